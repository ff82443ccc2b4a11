//! The approximate instructions (`rcp.approx`, `sqrt.approx`, `rsqrt.approx`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh`, `div.approx`, `div.full`).
//!
//! The hardware computes these in its special-function unit (`MUFU`) with table-driven
//! interpolation whose tables are not published. `rcp`, `rsqrt`, `sqrt`, `lg2` and `ex2` use
//! the unit's outputs measured exhaustively over one or two binades, `sin` and `cos` over the
//! first quadrant of the reduced argument ([`super::sfu`]), and the rules that extend them,
//! measured around the unit:
//! - within a binade the result depends only on the significand: other exponents shift the
//!   table's result (`rcp`, `rsqrt`, `sqrt`; the exponent sweeps of `interp/sfu/tables.json`);
//!   the unit flushes subnormal inputs and results to zero;
//! - `ex2` truncates `|x|` to fixed point with 23 fraction bits and multiplies the table's
//!   value of the fraction (of the sign's table) by `2^±int(|x|)`;
//! - `lg2` outside the table's `[0.5, 2)` adds the exponent to the table's value of the
//!   significand in `[1, 2)` and truncates the sum toward zero;
//! - the non-`.ftz` forms scale subnormal operands (and results, for `rcp` and `ex2`) around
//!   the unit by powers of two, rounding the final product to nearest;
//! - `div.approx` is `a * rcp(b)` (non-`.ftz`: a subnormal divisor is first scaled by 2^24
//!   with the dividend); `div.full` scales a divisor outside `[2^-126, 2^126)` into range;
//! - `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` (`MUFU.RCP64H`/`RSQ64H`) read only the
//!   upper 32 bits of the operand and return the single-precision unit's result for that
//!   significand with 20 fraction bits (truncated) and the low word zero (all 2^20 and 2^21
//!   significands of the measured `f64` tables agree);
//! - `sin`/`cos` multiply by `1/(2π)` (the `f32` constant `0x3e22f983`) rounding toward zero,
//!   keep the fraction of the turn in fixed point with 25 bits (truncated), and look it up in
//!   the measured first-quadrant tables, the quadrant choosing the table and the sign;
//! - `tanh.approx.f32` is the measured table of its reduced input (see [`tanh_f32`]).
//!
//! Each rule agrees with every lane of the hardware vectors that exercises it; the measured
//! distances are in `docs/INTERP.md`. Should a table fail to decode (it is compiled in, so only
//! a broken build could), the function falls back to the correctly rounded value.

use super::sfu::Table;
use super::{flush, is_inf, is_nan, is_subnormal, is_zero, neg, Fmt};

const F32: Fmt = Fmt::F32;
const NAN32: u64 = 0x7fff_ffff;

fn to_f32_bits(v: f64) -> u64 {
    if v.is_nan() {
        return NAN32;
    }
    (v as f32).to_bits() as u64
}

fn x32(b: u64) -> f64 {
    f32::from_bits(b as u32) as f64
}

fn inf32(negative: bool) -> u64 {
    if negative {
        0xff80_0000
    } else {
        0x7f80_0000
    }
}

fn pre(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if ftz {
        flush(b, F32)
    } else {
        b
    }
}

fn post(r: u64, ftz: bool) -> u64 {
    if ftz {
        flush(r, F32)
    } else {
        r
    }
}

/// `2^24` and `2^-24` as `f32` bits: the compiler's scale factors around the unit.
const TWO_24: u64 = 0x4b80_0000;
const TWO_M24: u64 = 0x3380_0000;

/// The single-precision product, rounded to nearest (subnormal results kept).
fn mul32(a: u64, b: u64) -> u64 {
    (f32::from_bits(a as u32) * f32::from_bits(b as u32)).to_bits() as u64
}

/// The single-precision sum, rounded to nearest.
fn add32(a: u64, b: f32) -> u64 {
    (f32::from_bits(a as u32) + b).to_bits() as u64
}

/// The positive normal `t` times `2^n`: an exponent that leaves the range flushes to zero or
/// saturates to infinity, as the unit does.
fn scale_exp(t: u32, n: i32) -> u64 {
    let e = ((t >> 23) & 0xff) as i32 + n;
    if e <= 0 {
        0
    } else if e >= 0xff {
        0x7f80_0000
    } else {
        ((t & 0x807f_ffff) | ((e as u32) << 23)) as u64
    }
}

fn exponent(b: u64) -> i32 {
    ((b >> 23) & 0xff) as i32
}

fn fraction(b: u64) -> u32 {
    (b & 0x7f_ffff) as u32
}

/// `|x| = 2^(2k + odd) * 1.m`: the index of `x`'s significand in the `[1, 4)` tables of
/// `rsqrt`/`sqrt` and `k`.
fn sqrt_index(b: u64) -> (u32, i32) {
    let e = exponent(b) - 127;
    let odd = e.rem_euclid(2);
    (((odd as u32) << 23) | fraction(b), (e - odd) / 2)
}

/// The special-function unit's single-precision reciprocal (`MUFU.RCP`): subnormal inputs and
/// results flush to zero of the same sign, `±0` gives `±inf`, `±inf` gives `±0`, NaN the
/// canonical NaN; otherwise the measured table's value for the significand, shifted by the
/// exponent (exact on every significand and on the 13 exponents swept).
pub fn mufu_rcp(b: u64) -> u64 {
    let b = flush(b & 0xffff_ffff, F32);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return inf32(neg(b, F32));
    }
    if is_inf(b, F32) {
        return b & 0x8000_0000;
    }
    match Table::Rcp.get(fraction(b)) {
        Some(t) => (b & 0x8000_0000) | scale_exp(t, 127 - exponent(b)),
        None => flush(to_f32_bits(1.0 / x32(b)), F32),
    }
}

/// `rcp.approx.f32`: `MUFU.RCP` with `.ftz`; without it a subnormal operand is scaled up by
/// 2^24 before the unit and the result by 2^24 after it, and an operand of at least 2^126
/// (whose reciprocal is subnormal) is scaled down likewise, the final product rounding to
/// nearest (measured on the subnormal and huge lanes of the hardware vectors).
pub fn rcp_f32(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if ftz {
        return mufu_rcp(b);
    }
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return inf32(neg(b, F32));
    }
    if is_inf(b, F32) {
        return b & 0x8000_0000;
    }
    if is_subnormal(b, F32) {
        return mul32(mufu_rcp(mul32(b, TWO_24)), TWO_24);
    }
    if exponent(b) >= 253 {
        return mul32(mufu_rcp(mul32(b, TWO_M24)), TWO_M24);
    }
    mufu_rcp(b)
}

/// `MUFU.SQRT`: the `[1, 4)` table shifted by half the even part of the exponent.
fn mufu_sqrt(b: u64) -> u64 {
    let b = flush(b & 0xffff_ffff, F32);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return b;
    }
    if neg(b, F32) {
        return NAN32;
    }
    if is_inf(b, F32) {
        return b;
    }
    let (i, k) = sqrt_index(b);
    match Table::Sqrt.get(i) {
        Some(t) => scale_exp(t, k),
        None => to_f32_bits(x32(b).sqrt()),
    }
}

/// `MUFU.RSQ`: the `[1, 4)` table shifted by minus half the even part of the exponent.
fn mufu_rsqrt(b: u64) -> u64 {
    let b = flush(b & 0xffff_ffff, F32);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return inf32(neg(b, F32));
    }
    if neg(b, F32) {
        return NAN32;
    }
    if is_inf(b, F32) {
        return 0;
    }
    let (i, k) = sqrt_index(b);
    match Table::Rsqrt.get(i) {
        Some(t) => scale_exp(t, -k),
        None => flush(to_f32_bits(1.0 / x32(b).sqrt()), F32),
    }
}

/// `sqrt.approx.f32`: `MUFU.SQRT`; without `.ftz` a subnormal operand is scaled by 2^24 and
/// the result by 2^-12.
pub fn sqrt_f32(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if !ftz && is_subnormal(b, F32) {
        return mul32(mufu_sqrt(mul32(b, TWO_24)), 0x3980_0000);
    }
    mufu_sqrt(b)
}

/// `rsqrt.approx.f32`: `MUFU.RSQ`; without `.ftz` a subnormal operand is scaled by 2^24 and
/// the result by 2^12.
pub fn rsqrt_f32(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if !ftz && is_subnormal(b, F32) {
        return mul32(mufu_rsqrt(mul32(b, TWO_24)), 0x4580_0000);
    }
    mufu_rsqrt(b)
}

/// `sin.approx.f32` / `cos.approx.f32`, reduced as the hardware does it: `t = x * 1/(2π)` in
/// single precision rounded toward zero (`FMUL.RZ` by `0x3e22f983`; without `.ftz` a subnormal
/// product is kept), the fraction of the turn `|t| mod 1` truncated to 25 bits of fixed point
/// `n` (so tiny arguments give `n = 0`, and arguments past 2^23 turns have no fraction left),
/// then `MUFU.SIN`/`MUFU.COS` of `n`: the measured first-quadrant tables `S`, `C` at
/// `r = n mod 2^23`, by quadrant `q = n / 2^23 mod 4`:
///
/// - `sin`: `[S(r), C(r), -S(r), -C(r)][q]`, negated again for a negative `t`;
/// - `cos`: `[C(r), -S(r), -C(r), S(r)][q]` (that is `sin` a quadrant on, without `t`'s sign),
///
/// where `-` flips the sign bit, so the zeros come out signed by the quadrant: `sin` of half a
/// turn is `-0`, `cos` of a quarter turn `-0` (`S(0) = +0`, and `C(2^23 - 1) = +0`: the unit's
/// `C(r)` is `S(2^23 - 1 - r)`). Every input of `x` in `[2^-30, 2)` (which reaches every `n` of
/// the first quadrant) and `±[2, 16)` agrees with an H200.
pub fn sincos_f32(b: u64, ftz: bool, cos: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) || is_inf(b, F32) {
        return NAN32;
    }
    let t = mul_rz_f32(x32(b), SIN_SCALE as f64);
    let frac = t.abs().fract();
    // Fixed point: 2^25 steps per turn, 2^23 per quadrant.
    let n = (frac * TURN_STEPS).floor() as u64;
    let r = (n & ((1 << 23) - 1)) as u32;
    // `cos` is `sin` a quadrant on (without the sign of `t`).
    let q = ((n >> 23) + cos as u64) & 3;
    let (table, quarter) = if q & 1 == 0 {
        (Table::Sin, false)
    } else {
        (Table::Cos, true)
    };
    let v = table.get(r).map_or_else(
        || {
            // The tables failed to decode: the exact function of the first quadrant.
            let theta = r as f64 * (std::f64::consts::TAU / TURN_STEPS);
            to_f32_bits(if quarter { theta.cos() } else { theta.sin() })
        },
        u64::from,
    );
    let negative = (q >= 2) ^ (!cos && t.is_sign_negative());
    post(if negative { v ^ 0x8000_0000 } else { v }, ftz)
}

/// `1/(2π)` as the compiler's single-precision constant.
const SIN_SCALE: f32 = 0.159_154_94;

/// The single-precision product of two `f32` values (given as `f64`), rounded toward zero.
fn mul_rz_f32(x: f64, y: f64) -> f64 {
    // The product of two 24-bit significands is exact in f64.
    let p = x * y;
    let r = p as f32;
    if (r as f64).abs() > p.abs() {
        // `as` rounded away from zero: step one unit toward zero.
        f32::from_bits(r.to_bits() - 1) as f64
    } else {
        r as f64
    }
}

/// Fixed-point resolution of the reduced argument of `sin`/`cos`, in steps per turn.
const TURN_STEPS: f64 = (1u64 << 25) as f64;

/// Rounds toward zero to single precision.
fn rz32(v: f64) -> u64 {
    let r = v as f32;
    if (r as f64).abs() > v.abs() {
        // `as` rounded away from zero: one unit back toward it (same sign, smaller magnitude).
        (r.to_bits() - 1) as u64
    } else {
        r.to_bits() as u64
    }
}

/// `MUFU.LG2`. On `[0.5, 2)` the measured table. Elsewhere `x = 2^k * 1.m` gives the exponent
/// plus the table's value at `1.m`, truncated toward zero, except that the unit's own value of
/// `lg2(1.m)` lies just above the table's: a negative sum that is exact comes out one unit
/// toward zero (`lg2(2^-126)` is `0xc2fbffff`; `lg2(0x3e801b06)` is `0xbfffd906`, not the exact
/// `0xbfffd907`). Agrees with an H200 on every input of 13 whole binades, 2^-126 to 2^127.
fn mufu_lg2(b: u64) -> u64 {
    let b = flush(b & 0xffff_ffff, F32);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return 0xff80_0000;
    }
    if neg(b, F32) {
        return NAN32;
    }
    if is_inf(b, F32) {
        return b;
    }
    if (0x3f00_0000..0x4000_0000).contains(&b) {
        if let Some(t) = Table::Lg2.get((b - 0x3f00_0000) as u32) {
            return t as u64;
        }
    }
    let k = exponent(b) - 127;
    let m = fraction(b);
    let Some(t) = Table::Lg2.get((1 << 23) + m) else {
        return to_f32_bits(x32(b).log2());
    };
    // The unit adds the exponent to its internal value of lg2(1.m), which lies just above the
    // table's truncated one, and truncates the sum toward zero: for a negative sum that the
    // table's value makes exact, the result is one unit toward zero from it (the powers of two
    // among them). Exhaustive on whole binades of an H200 (tools/hwvectors/probes/lg2_sweep.py).
    let s = k as f64 + f32::from_bits(t) as f64;
    let r = rz32(s);
    if k < 0 && f32::from_bits(r as u32) as f64 == s {
        r - 1
    } else {
        r
    }
}

/// `lg2.approx.f32`: `MUFU.LG2`; without `.ftz` a subnormal operand is scaled by 2^24 and 24
/// subtracted from the result (rounded to nearest).
pub fn lg2_f32(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if !ftz && is_subnormal(b, F32) {
        if neg(b, F32) {
            return NAN32;
        }
        return add32(mufu_lg2(mul32(b, TWO_24)), -24.0);
    }
    mufu_lg2(b)
}

/// `MUFU.EX2`: `|x|` truncated to fixed point with 23 fraction bits, `n + f`; the result is the
/// table of `x`'s sign at `f` times `2^±n`, flushed or saturated out of range (exact on every
/// hardware lane, grid points or not).
fn mufu_ex2(b: u64) -> u64 {
    let b = flush(b & 0xffff_ffff, F32);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_inf(b, F32) {
        return if neg(b, F32) { 0 } else { b };
    }
    let negative = neg(b, F32);
    let e = exponent(b);
    if e >= 127 + 8 {
        return if negative { 0 } else { 0x7f80_0000 };
    }
    let sig = (fraction(b) | 0x80_0000) as u64;
    // q = floor(|x| * 2^23)
    let q = if e == 0 {
        0
    } else if e >= 127 {
        sig << (e - 127)
    } else {
        sig.checked_shr((127 - e) as u32).unwrap_or(0)
    };
    let (n, f) = ((q >> 23) as i32, (q & 0x7f_ffff) as u32);
    let (table, n) = if negative {
        (Table::Ex2Neg, -n)
    } else {
        (Table::Ex2Pos, n)
    };
    match table.get(f) {
        Some(t) => scale_exp(t, n),
        None => flush(to_f32_bits(x32(b).exp2()), F32),
    }
}

/// `ex2.approx.f32`: `MUFU.EX2`; without `.ftz` an operand below -126 (a subnormal result) is
/// halved before the unit and the result squared (`FMUL x, 0.5`, `MUFU.EX2`, `FMUL r, r`, from
/// the SASS). The earlier model (add 24, scale by 2^-24) was one unit high on 100,385 inputs of
/// (-256, -64) in an exhaustive sweep on an H200; this one gives the GPU's value on the eight
/// of them the sweep printed (the sweep is to be rerun).
pub fn ex2_f32(b: u64, ftz: bool) -> u64 {
    let b = b & 0xffff_ffff;
    if !ftz && !is_nan(b, F32) && x32(b) < -126.0 {
        let r = mufu_ex2(mul32(b, 0x3f00_0000));
        return mul32(r, r);
    }
    mufu_ex2(b)
}

/// `tanh.approx.f32`: `MUFU.TANH` (nothing else in the SASS). Measured on every input on an
/// H200 (`tools/hwvectors/probes/tanh_dump.py`): odd in the sign bit; the input itself below
/// 2^-8 in magnitude (zeros and subnormals too); 1.0 from 8 on and for infinity; the canonical
/// NaN for a NaN; in between, the unit's value for the input's top 17 to 21 significand bits
/// ([`super::sfu::Table::Tanh`]). The correctly rounded function stands in for that range only
/// should the table be unreadable.
pub fn tanh_f32(b: u64) -> u64 {
    let b = b & 0xffff_ffff;
    if is_nan(b, F32) {
        return NAN32;
    }
    let sign = b & 0x8000_0000;
    let a = (b ^ sign) as u32;
    let e = a >> 23;
    let segments = &super::sfu::TANH_SEGMENTS;
    let m = if e < segments[0].0 {
        a
    } else if e > segments[segments.len() - 1].0 {
        0x3f80_0000
    } else {
        super::sfu::tanh_entry(a)
            .and_then(|i| super::sfu::Table::Tanh.get(i))
            .unwrap_or_else(|| ((f32::from_bits(a) as f64).tanh() as f32).to_bits())
    };
    sign | m as u64
}

/// `div.approx.f32`: `a * rcp(b)` with the unit's reciprocal, whose result flushes to zero for
/// `|b| > 2^126` (the ISA's "returns zero for |b| in [2^126, 2^128]"; `b = 2^126` itself has
/// the normal reciprocal 2^-126, as measured). Without `.ftz` a subnormal divisor is first
/// scaled by 2^24 together with the dividend.
pub fn div_approx_f32(a: u64, b: u64, ftz: bool) -> u64 {
    let (a, b) = (pre(a, ftz), pre(b, ftz));
    let (mut fa, mut fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    if !ftz && is_subnormal(b, F32) {
        fa *= 16_777_216.0;
        fb *= 16_777_216.0;
    }
    let r = mufu_rcp(fb.to_bits() as u64);
    let q = fa * f32::from_bits(r as u32);
    if q.is_nan() {
        return NAN32;
    }
    post(q.to_bits() as u64, ftz)
}

/// The two factors of `div.full.f32` (`full`) or `div.approx.f32`, `a * rcp(b)`: the dividend
/// as scaled with the divisor, and the unit's reciprocal of the scaled divisor. ptxas fuses
/// that product with a following `add` like any `mul` (docs/INTERP.md, "Contraction and other ptxas lowerings").
pub fn div_factors(a: u64, b: u64, full: bool, ftz: bool) -> (u64, u64) {
    let (a, b) = (pre(a, ftz), pre(b, ftz));
    let (mut fa, mut fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    let ab = fb.abs();
    if full && ab >= 2f32.powi(126) {
        fa *= 0.25;
        fb *= 0.25;
    } else if (full && ab < 2f32.powi(-126)) || (!full && !ftz && is_subnormal(b, F32)) {
        fa *= 16_777_216.0;
        fb *= 16_777_216.0;
    }
    (fa.to_bits() as u64, mufu_rcp(fb.to_bits() as u64))
}

/// `div.full.f32`: the divisor is scaled into the reciprocal's range, then `a * rcp(b)`.
pub fn div_full_f32(a: u64, b: u64, ftz: bool) -> u64 {
    let (a, b) = (pre(a, ftz), pre(b, ftz));
    let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    if fa.is_nan() || fb.is_nan() {
        return NAN32;
    }
    if (fa == 0.0 && fb == 0.0) || (fa.is_infinite() && fb.is_infinite()) {
        return NAN32;
    }
    let sign = (a ^ b) & 0x8000_0000;
    if fb == 0.0 || fa.is_infinite() {
        return sign | 0x7f80_0000;
    }
    if fb.is_infinite() || fa == 0.0 {
        return sign;
    }
    // Scale b by a power of two into [2^-126, 2^126) and a by the same factor.
    let (mut sa, mut sb) = (fa, fb);
    let ab = fb.abs();
    if ab >= 2f32.powi(126) {
        sa *= 0.25;
        sb *= 0.25;
    } else if ab < 2f32.powi(-126) {
        sa *= 16_777_216.0;
        sb *= 16_777_216.0;
    }
    let r = mufu_rcp(sb.to_bits() as u64);
    let q = sa * f32::from_bits(r as u32);
    if q.is_nan() {
        return NAN32;
    }
    post(q.to_bits() as u64, ftz)
}

/// `MUFU.RCP64H`/`MUFU.RSQ64H`: the function of the operand's upper 32 bits (sign, exponent and
/// 20 fraction bits) computed in single precision, returned as an `f64` whose fraction keeps its
/// upper 20 bits (truncated) and whose low word is zero. A zero or subnormal upper word is a
/// zero; results below the normal range flush to zero; NaN gives `0x7fffffff_00000000`.
fn mufu64h(b: u64, rsqrt: bool) -> u64 {
    const NAN64H: u64 = 0x7fff_ffff_0000_0000;
    let hi = b >> 32;
    let sign = b & (1 << 63);
    let e = ((hi >> 20) & 0x7ff) as i64;
    let m = hi & 0xf_ffff;
    if e == 0x7ff {
        return if m != 0 || (rsqrt && sign != 0) {
            NAN64H
        } else {
            sign & if rsqrt { 0 } else { u64::MAX }
        };
    }
    if e == 0 {
        return sign | 0x7ff0_0000_0000_0000;
    }
    if rsqrt && sign != 0 {
        return NAN64H;
    }
    // The single-precision unit's result for the significand 1.m (20 fraction bits fit), the
    // exponent apart.
    let sig = 0x3f80_0000 | (m << 3);
    let ex = e - 1023;
    let (y, ey) = if rsqrt {
        // x = sig * 2^ex = (sig * 2^(ex mod 2)) * 2^(ex - ex mod 2)
        let odd = ex.rem_euclid(2);
        (mufu_rsqrt(sig + ((odd as u64) << 23)), -(ex - odd) / 2)
    } else {
        (mufu_rcp(sig), -ex)
    };
    let y = f32::from_bits(y as u32);
    // y in (0.25, 1]: keep 20 fraction bits of its f64 form and add the exponent.
    let yb = (y as f64).to_bits() & !0xffff_ffff;
    let exp = ((yb >> 52) & 0x7ff) as i64 + ey;
    if exp <= 0 {
        return sign;
    }
    if exp >= 0x7ff {
        return sign | 0x7ff0_0000_0000_0000;
    }
    sign | ((exp as u64) << 52) | (yb & 0x000f_ffff_ffff_ffff)
}

/// `rcp.approx.ftz.f64`: `MUFU.RCP64H` (see `mufu64h`; measured on every lane of the hardware
/// vectors).
pub fn rcp_f64(b: u64) -> u64 {
    mufu64h(b, false)
}

/// `rsqrt.approx.f64`: with `.ftz` the unit's `MUFU.RSQ64H` (see `mufu64h`); without it the
/// refinement ptxas compiles around that seed (read from the SASS): `y0 = MUFU.RSQ64H(x)`,
/// `e = fma(x, -(y0*y0), 1)`, `y = fma(fma(e, 0.375, 0.5), y0*e, y0)`, which matched 4,096 of
/// 4,096 recorded values. Zeros, infinities, NaNs and negatives take the slow path's IEEE
/// answers; a subnormal `x` is scaled by 2^54 first and the result by 2^27 after (exact powers
/// of two), as the seed unit flushes subnormal inputs.
pub fn rsqrt_f64(b: u64, ftz: bool) -> u64 {
    if ftz {
        return mufu64h(b, true);
    }
    let f = Fmt::F64;
    if is_nan(b, f) {
        return b | (1 << 51);
    }
    if is_zero(b, f) {
        return (b & f.sign()) | 0x7ff0_0000_0000_0000;
    }
    if neg(b, f) {
        return f.canonical_nan();
    }
    if is_inf(b, f) {
        return 0;
    }
    let subnormal = (b >> 52) & 0x7ff == 0;
    let x = f64::from_bits(b) * if subnormal { 2f64.powi(54) } else { 1.0 };
    let y0 = f64::from_bits(mufu64h(x.to_bits(), true));
    let e = (-(y0 * y0)).mul_add(x, 1.0);
    let y = e.mul_add(0.375, 0.5).mul_add(y0 * e, y0);
    (y * if subnormal { 2f64.powi(27) } else { 1.0 }).to_bits()
}

/// Half-precision `ex2.approx` (`f16`, or `bf16` which is always `.ftz`): the measured table
/// of every input; through single precision should the table be unreadable.
pub fn ex2_half(b: u64, f: Fmt, ftz: bool) -> u64 {
    let t = if f == Fmt::F16 && !ftz {
        Some(super::sfu::HalfTable::Ex2F16)
    } else if f == Fmt::Bf16 && ftz {
        Some(super::sfu::HalfTable::Ex2Bf16)
    } else {
        None
    };
    if let Some(r) = t.and_then(|t| t.get(b as u16)) {
        return r as u64;
    }
    let b = if ftz { flush(b, f) } else { b };
    if is_nan(b, f) {
        return f.canonical_nan();
    }
    let x = super::convert_round(b, f, F32, rustc_apfloat::Round::NearestTiesToEven);
    let y = ex2_f32(x, false);
    let r = super::convert_round(y, F32, f, rustc_apfloat::Round::NearestTiesToEven);
    if ftz {
        flush(r, f)
    } else {
        r
    }
}

/// Half-precision `tanh.approx`: the measured table of every input; through single precision
/// should the table be unreadable.
pub fn tanh_half(b: u64, f: Fmt) -> u64 {
    let t = match f {
        Fmt::F16 => super::sfu::HalfTable::TanhF16,
        _ => super::sfu::HalfTable::TanhBf16,
    };
    if let Some(r) = t.get(b as u16) {
        return r as u64;
    }
    if is_nan(b, f) {
        return f.canonical_nan();
    }
    let x = super::convert_round(b, f, F32, rustc_apfloat::Round::NearestTiesToEven);
    let y = tanh_f32(x);
    super::convert_round(y, F32, f, rustc_apfloat::Round::NearestTiesToEven)
}
