//! The approximate instructions (`rcp.approx`, `sqrt.approx`, `rsqrt.approx`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh`, `div.approx`, `div.full`).
//!
//! The hardware computes these in its special-function unit with table-driven interpolation
//! whose tables are not published. The model here is: the exact function, computed in `f64`,
//! rounded to nearest in the result format, after the input transformations the hardware is
//! known to apply (`sin`/`cos` reduce their argument through a single-precision multiply by
//! 1/(2π) and a 25-bit fixed-point fraction; `div.full` scales the divisor into range and
//! multiplies by its reciprocal). The
//! special cases (zeros, infinities, NaN, negative inputs) follow the PTX ISA exactly. The
//! measured distance to the hardware is reported by `ptx vectors` per family.

use super::{flush, is_inf, is_nan, is_zero, neg, Fmt};

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

/// `rcp.approx.f32`
pub fn rcp_f32(b: u64, ftz: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) {
        return NAN32;
    }
    if is_zero(b, F32) {
        return inf32(neg(b, F32));
    }
    if is_inf(b, F32) {
        return b & 0x8000_0000;
    }
    post(to_f32_bits(1.0 / x32(b)), ftz)
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

/// `sin.approx.f32` / `cos.approx.f32`. The argument is reduced as the hardware does it: a
/// single-precision multiply by 1/(2π), then the fraction of the turn in fixed point with 25
/// bits (truncated), so tiny arguments give zero and huge ones lose their fraction, as measured.
pub fn sincos_f32(b: u64, ftz: bool, cos: bool) -> u64 {
    let b = pre(b, ftz);
    if is_nan(b, F32) || is_inf(b, F32) {
        return NAN32;
    }
    let x = f32::from_bits(b as u32);
    let t = (x * (std::f32::consts::FRAC_1_PI * 0.5)) as f64;
    let turn = t.abs() % 1.0;
    let q = (turn * TURN_STEPS).floor() / TURN_STEPS;
    let a = q * std::f64::consts::TAU;
    let v = if cos { a.cos() } else { t.signum() * a.sin() };
    let r = to_f32_bits(v);
    if r & 0x7fff_ffff == 0 {
        return (b & 0x8000_0000) * (!cos) as u64;
    }
    post(r, ftz)
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

/// `div.approx.f32`: `a * (1/b)`.
pub fn div_approx_f32(a: u64, b: u64, ftz: bool) -> u64 {
    let (a, b) = (pre(a, ftz), pre(b, ftz));
    let bb = f32::from_bits(b as u32).abs();
    if bb.is_finite() && bb >= f32::from_bits(0x7e80_0000) {
        // |b| in [2^126, 2^128]: the reciprocal underflows and the quotient is zero.
        let sign = (a ^ b) & 0x8000_0000;
        if is_nan(a, F32) || is_inf(a, F32) {
            return NAN32;
        }
        return sign;
    }
    let r = rcp_f32(b, ftz);
    let q = f32::from_bits(a as u32) * f32::from_bits(r as u32);
    if q.is_nan() {
        return NAN32;
    }
    post(q.to_bits() as u64, ftz)
}

/// `div.full.f32`: the divisor is scaled into the reciprocal's range, then `a * (1/b)`.
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
    let (mut sa, mut sb) = (fa as f64, fb as f64);
    let ab = fb.abs();
    if ab >= 2f32.powi(126) {
        sa *= 0.25;
        sb *= 0.25;
    } else if ab < 2f32.powi(-126) {
        sa *= 2f64.powi(24);
        sb *= 2f64.powi(24);
    }
    let r = (1.0 / (sb as f32) as f64) as f32;
    let q = (sa as f32) * r;
    if q.is_nan() {
        return NAN32;
    }
    post(q.to_bits() as u64, ftz)
}

/// `rcp.approx.ftz.f64`: a reciprocal accurate to about 2^-22, modelled as the correctly
/// rounded reciprocal with the low 32 bits of the significand cleared (the hardware computes it
/// in single-precision range).
pub fn rcp_f64(b: u64) -> u64 {
    let f = Fmt::F64;
    let b = flush(b, f);
    if is_nan(b, f) {
        return b | (1 << 51);
    }
    if is_zero(b, f) {
        return (b & f.sign()) | 0x7ff0_0000_0000_0000;
    }
    if is_inf(b, f) {
        return b & f.sign();
    }
    let r = (1.0 / f64::from_bits(b)).to_bits();
    flush(r, f)
}

/// `rsqrt.approx.f64`
pub fn rsqrt_f64(b: u64, ftz: bool) -> u64 {
    let f = Fmt::F64;
    let b = if ftz { flush(b, f) } else { b };
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
