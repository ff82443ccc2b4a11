//! The approximate instructions (`rcp.approx`, `sqrt.approx`, `rsqrt.approx`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh`, `div.approx`, `div.full`).
//!
//! The hardware computes these in its special-function unit (`MUFU`) with table-driven
//! interpolation whose tables are not published. The model here is: the exact function,
//! computed in `f64`, rounded to nearest in the result format, wrapped in the input and output
//! transformations the compiler and the unit are measured to apply:
//! - `MUFU` flushes subnormal inputs and results to zero ([`mufu_rcp`]);
//! - `sin`/`cos` multiply by `1/(2π)` (the `f32` constant `0x3e22f983`) rounding toward zero,
//!   keep the fraction of the turn in fixed point with 25 bits (truncated), and evaluate per
//!   quadrant, so zeros come out signed as the quadrant says;
//! - `div.approx` is `a * rcp(b)` (non-`.ftz`: a subnormal divisor is first scaled by 2^24
//!   with the dividend); `div.full` scales a divisor outside `[2^-126, 2^126)` into range;
//! - `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` (`MUFU.RCP64H`/`RSQ64H`) read only the
//!   upper 32 bits of the operand, compute in single precision and return 20 fraction bits
//!   (truncated) with the low word zero.
//!
//! The special cases (zeros, infinities, NaN, negative inputs) follow the PTX ISA. The measured
//! distance to the hardware is reported by `ptx vectors` per family and in `docs/INTERP.md`.

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

/// The special-function unit's single-precision reciprocal (`MUFU.RCP`): subnormal inputs and
/// results flush to zero of the same sign, `±0` gives `±inf`, `±inf` gives `±0`, NaN the
/// canonical NaN. Within range the value is modelled as the correctly rounded reciprocal; the
/// hardware differs from it by one unit in the last place on about one input in ten (see
/// `docs/INTERP.md`).
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
    flush(to_f32_bits(1.0 / x32(b)), F32)
}

/// `rcp.approx.f32`: `MUFU.RCP` with `.ftz`; without it, subnormal operands and results are
/// handled around the unit, as the correctly rounded reciprocal.
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
    let r = mufu_rcp(b);
    if is_subnormal(b, F32) || is_zero(r, F32) {
        return to_f32_bits(1.0 / x32(b));
    }
    r
}

/// `sqrt.approx.f32`
pub fn sqrt_f32(b: u64, ftz: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return b;
    }
    if neg(b, F32) {
        return NAN32;
    }
    post(to_f32_bits(x32(b).sqrt()), ftz)
}

/// `rsqrt.approx.f32`
pub fn rsqrt_f32(b: u64, ftz: bool) -> u64 {
    let b = pre(b, ftz);
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
    post(to_f32_bits(1.0 / x32(b).sqrt()), ftz)
}

/// `sin.approx.f32` / `cos.approx.f32`, reduced as the hardware does it: `t = x * 1/(2π)` in
/// single precision rounded toward zero (the constant is `0x3e22f983`), the fraction of the
/// turn `|t| mod 1` truncated to 25 bits of fixed point (so tiny arguments give zero and
/// arguments past 2^23 turns have no fraction left), then one quadrant of `sin`/`cos`: at the
/// quadrant boundaries the zeros are signed by the quadrant (`sin` of half a turn is `-0`,
/// `cos` of a quarter turn `-0`), as measured.
pub fn sincos_f32(b: u64, ftz: bool, cos: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) || is_inf(b, F32) {
        return NAN32;
    }
    let t = mul_rz_f32(x32(b), SIN_SCALE as f64);
    let frac = t.abs().fract();
    // Fixed point: 2^25 steps per turn, 2^23 per quadrant.
    let n = (frac * TURN_STEPS).floor() as u64;
    let (quadrant, r) = (n >> 23, n & ((1 << 23) - 1));
    let theta = r as f64 * (std::f64::consts::TAU / TURN_STEPS);
    let (s, c) = (theta.sin(), theta.cos());
    let v = if cos {
        [c, -s, -c, s][quadrant as usize & 3]
    } else {
        let v = [s, c, -s, -c][quadrant as usize & 3];
        if t.is_sign_negative() {
            -v
        } else {
            v
        }
    };
    post(to_f32_bits(v), ftz)
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

/// `lg2.approx.f32`
pub fn lg2_f32(b: u64, ftz: bool) -> u64 {
    let b = pre(b, ftz);
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
    post(to_f32_bits(x32(b).log2()), ftz)
}

/// `ex2.approx.f32`
pub fn ex2_f32(b: u64, ftz: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_inf(b, F32) {
        return if neg(b, F32) { 0 } else { b };
    }
    post(to_f32_bits(x32(b).exp2()), ftz)
}

/// `tanh.approx.f32`
pub fn tanh_f32(b: u64) -> u64 {
    let b = b & 0xffff_ffff;
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return b;
    }
    to_f32_bits(x32(b).tanh())
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
    // The significand 1.m in single precision (20 fraction bits fit), the exponent apart.
    let sig = f32::from_bits(0x3f80_0000 | (m << 3) as u32) as f64;
    let ex = e - 1023;
    let (y, ey) = if rsqrt {
        // x = sig * 2^ex = (sig * 2^(ex mod 2)) * 2^(ex - ex mod 2)
        let odd = ex.rem_euclid(2);
        let v = sig * (1 << odd) as f64;
        ((1.0 / v.sqrt()) as f32, -(ex - odd) / 2)
    } else {
        ((1.0 / sig) as f32, -ex)
    };
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

/// `rcp.approx.ftz.f64`: `MUFU.RCP64H` (see [`mufu64h`]; measured on every lane of the hardware
/// vectors).
pub fn rcp_f64(b: u64) -> u64 {
    mufu64h(b, false)
}

/// `rsqrt.approx.f64`: with `.ftz` the unit's `MUFU.RSQ64H` (see [`mufu64h`]); without it a
/// refined double-precision result, modelled as the correctly rounded one.
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
    (1.0 / f64::from_bits(b).sqrt()).to_bits()
}

/// Half-precision `ex2.approx` (`f16` or `bf16`), through single precision.
pub fn ex2_half(b: u64, f: Fmt, ftz: bool) -> u64 {
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

/// Half-precision `tanh.approx`.
pub fn tanh_half(b: u64, f: Fmt) -> u64 {
    if is_nan(b, f) {
        return f.canonical_nan();
    }
    let x = super::convert_round(b, f, F32, rustc_apfloat::Round::NearestTiesToEven);
    let y = tanh_f32(x);
    super::convert_round(y, F32, f, rustc_apfloat::Round::NearestTiesToEven)
}
