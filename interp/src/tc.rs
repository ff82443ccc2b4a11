//! Tensor-core arithmetic: the dot products of `mma` and `wgmma.mma_async`.
//!
//! The PTX ISA leaves "the accumulation order, rounding and handling of subnormal inputs"
//! unspecified for the floating-point MMA variants. The interpreter uses the block fused
//! multiply-add model that measurements of NVIDIA tensor cores have converged on (Fasi, Higham,
//! Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330, 2021, for
//! V100/T4/A100; Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores",
//! arXiv:2512.07004, 2025, adding H100/B200; the probes of github.com/huweim/emulation_sys, which
//! report a 25-bit accumulator with truncation for f16 on H100 and a 13-bit one for FP8 `wgmma`):
//!
//! 1. every product `a_k * b_k` is exact (the inputs are at most 11-bit significands);
//! 2. a block of [`Model::block`] products and the accumulator `c` are added in one step: every
//!    term is aligned to the largest exponent among them and truncated (toward zero) to
//!    [`Model::frac`] bits below that exponent's leading bit, the truncated terms are summed
//!    exactly, and the sum is converted to the accumulator format with [`Model::round`]
//!    (truncation on the measured parts);
//! 3. the result is the `c` of the next block (the instruction's K is covered in order);
//! 4. NaN inputs, `inf * 0` and `inf - inf` give the canonical NaN, infinities propagate;
//!    subnormal inputs are exact, subnormal results are kept (gradual underflow).
//!
//! Integer MMAs are exact (wrapping, or saturating with `.satfinite`); `f64` MMAs are chains of
//! IEEE `fma` in K order with the instruction's rounding mode. The parameters for each input
//! type are in [`model`]; the hardware vectors (`tools/hwvectors/hopper.py`, family `mma`)
//! check them.

use crate::float::{self, Fmt};

/// How results are rounded to the accumulator format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// Toward zero (truncation).
    Zero,
    /// To nearest, ties to even.
    Nearest,
}

/// Parameters of the block fused multiply-add.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Products summed in one step with the accumulator.
    pub block: usize,
    /// Bits kept below the leading bit of the largest term when aligning.
    pub frac: u32,
    /// Rounding of each block's sum.
    pub round: Rnd,
}

/// The model for an input format (`f16`, `bf16`, `tf32`, `e4m3`/`e5m2`) and the instruction's K.
pub fn model(input: Fmt, k: usize) -> Model {
    match input {
        Fmt::E4m3 | Fmt::E5m2 => Model {
            block: k,
            frac: 13,
            round: Rnd::Zero,
        },
        _ => Model {
            block: k,
            frac: 24,
            round: Rnd::Zero,
        },
    }
}

/// An exactly decoded value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Val {
    Zero(bool),
    /// (-1)^neg * sig * 2^exp
    Fin(bool, u128, i32),
    Inf(bool),
    NaN,
}

fn decode(bits: u64, f: Fmt) -> Val {
    let b = bits & f.mask();
    if float::is_nan(b, f) {
        return Val::NaN;
    }
    let neg = b & f.sign() != 0;
    if float::is_inf(b, f) {
        return Val::Inf(neg);
    }
    let man = f.man();
    let e = ((b >> man) & ((1 << f.exp()) - 1)) as i32;
    let m = (b & ((1u64 << man) - 1)) as u128;
    let bias = (1i32 << (f.exp() - 1)) - 1;
    if e == 0 {
        if m == 0 {
            Val::Zero(neg)
        } else {
            Val::Fin(neg, m, 1 - bias - man as i32)
        }
    } else {
        Val::Fin(neg, m | (1 << man), e - bias - man as i32)
    }
}

fn mul(a: Val, b: Val) -> Val {
    match (a, b) {
        (Val::NaN, _) | (_, Val::NaN) => Val::NaN,
        (Val::Inf(_), Val::Zero(_)) | (Val::Zero(_), Val::Inf(_)) => Val::NaN,
        (Val::Inf(x), Val::Inf(y))
        | (Val::Inf(x), Val::Fin(y, ..))
        | (Val::Fin(x, ..), Val::Inf(y)) => Val::Inf(x != y),
        (Val::Zero(x), Val::Zero(y))
        | (Val::Zero(x), Val::Fin(y, ..))
        | (Val::Fin(x, ..), Val::Zero(y)) => Val::Zero(x != y),
        (Val::Fin(x, sa, ea), Val::Fin(y, sb, eb)) => Val::Fin(x != y, sa * sb, ea + eb),
    }
}

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// Rounds `(-1)^neg * mag * 2^q` (mag > 0) to format `f`.
pub fn round_to(neg: bool, mag: u128, q: i32, f: Fmt, r: Rnd) -> u64 {
    let p = f.man() as i32 + 1;
    let bias = (1i32 << (f.exp() - 1)) - 1;
    let (emin, emax) = (1 - bias, bias);
    let sign = if neg { f.sign() } else { 0 };
    let e = q + bitlen(mag) - 1;
    let mut u = if e >= emin {
        e - (p - 1)
    } else {
        emin - (p - 1)
    };
    let mut m: u128;
    let mut inexact_up = false;
    if q >= u {
        m = mag << (q - u).min(127);
    } else {
        let sh = (u - q) as u32;
        if sh > 128 {
            // Far below half an ulp.
            m = 0;
        } else {
            let (quot, rem) = if sh == 128 {
                (0, mag)
            } else {
                (mag >> sh, mag & ((1u128 << sh) - 1))
            };
            m = quot;
            let half = 1u128 << (sh - 1);
            if r == Rnd::Nearest && (rem > half || (rem == half && m & 1 == 1)) {
                inexact_up = true;
            }
        }
    }
    if inexact_up {
        m += 1;
        if m == 1u128 << p {
            m >>= 1;
            u += 1;
        }
    }
    let overflow = || -> u64 {
        match r {
            Rnd::Zero => sign | ((((1u64 << f.exp()) - 2) << f.man()) | ((1u64 << f.man()) - 1)),
            Rnd::Nearest => sign | (((1u64 << f.exp()) - 1) << f.man()),
        }
    };
    if m == 0 {
        return sign;
    }
    if m < 1u128 << (p - 1) {
        // Subnormal.
        return sign | m as u64;
    }
    let ef = u + (p - 1) + bias;
    if ef > emax + bias {
        return overflow();
    }
    sign | ((ef as u64) << f.man()) | (m as u64 & ((1u64 << f.man()) - 1))
}

/// One block: `c + sum(a_k * b_k)` with the model, the result in format `out`.
fn block(m: Model, c: Val, prods: &[Val], out: Fmt) -> Val {
    let mut terms: Vec<Val> = Vec::with_capacity(prods.len() + 1);
    terms.push(c);
    terms.extend_from_slice(prods);
    if terms.contains(&Val::NaN) {
        return Val::NaN;
    }
    let (mut pinf, mut ninf) = (false, false);
    for t in &terms {
        if let Val::Inf(n) = t {
            if *n {
                ninf = true;
            } else {
                pinf = true;
            }
        }
    }
    if pinf && ninf {
        return Val::NaN;
    }
    if pinf || ninf {
        return Val::Inf(ninf);
    }
    let emax = terms
        .iter()
        .filter_map(|t| match t {
            Val::Fin(_, s, e) => Some(e + bitlen(*s) - 1),
            _ => None,
        })
        .max();
    let Some(emax) = emax else {
        let all_neg = terms.iter().all(|t| matches!(t, Val::Zero(true)));
        return Val::Zero(all_neg);
    };
    let q = emax - m.frac as i32;
    let mut sum: i128 = 0;
    for t in &terms {
        if let Val::Fin(n, s, e) = *t {
            let v: i128 = if e >= q {
                (s << (e - q).min(100)) as i128
            } else {
                let sh = (q - e) as u32;
                if sh >= 128 {
                    0
                } else {
                    (s >> sh) as i128
                }
            };
            sum += if n { -v } else { v };
        }
    }
    if sum == 0 {
        return Val::Zero(false);
    }
    let bits = round_to(sum < 0, sum.unsigned_abs(), q, out, m.round);
    decode(bits, out)
}

fn encode(v: Val, out: Fmt) -> u64 {
    match v {
        Val::NaN => out.canonical_nan(),
        Val::Inf(n) => {
            let inf = ((1u64 << out.exp()) - 1) << out.man();
            if n {
                inf | out.sign()
            } else {
                inf
            }
        }
        Val::Zero(n) => {
            if n {
                out.sign()
            } else {
                0
            }
        }
        Val::Fin(n, s, e) => round_to(n, s, e, out, Rnd::Nearest),
    }
}

/// `c + sum_k a[k] * b[k]` as the tensor cores compute it: inputs in `inf` (A and B may differ
/// for FP8), `c` and the result in `out` (`f32` or `f16`). `tf32` inputs are passed as `F32`
/// with their low 13 bits already cleared.
pub fn dot(m: Model, a: &[u64], af: Fmt, b: &[u64], bf: Fmt, c: u64, out: Fmt) -> u64 {
    let mut acc = decode(c, out);
    let prods: Vec<Val> = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| mul(decode(x, af), decode(y, bf)))
        .collect();
    for chunk in prods.chunks(m.block.max(1)) {
        acc = block(m, acc, chunk, out);
    }
    encode(acc, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }
    fn h(x: f32) -> u64 {
        float::convert_bits(f(x), Fmt::F32, Fmt::F16, ptx_ir_core::Rounding::Rn)
    }

    #[test]
    fn exact_cases() {
        let m = model(Fmt::F16, 16);
        let a: Vec<u64> = (0..16).map(|i| h(i as f32)).collect();
        let b: Vec<u64> = (0..16).map(|_| h(0.5)).collect();
        let r = dot(m, &a, Fmt::F16, &b, Fmt::F16, f(1.0), Fmt::F32);
        assert_eq!(f32::from_bits(r as u32), 61.0);
        // Truncation: 2^-26 is below the bits kept under a leading 1.
        let a = [h(1.0), h(2f32.powi(-13))];
        let b = [h(1.0), h(2f32.powi(-13))];
        let r = dot(m, &a, Fmt::F16, &b, Fmt::F16, 0, Fmt::F32);
        assert_eq!(f32::from_bits(r as u32), 1.0);
        // NaN and inf rules.
        let inf = h(f32::INFINITY);
        let r = dot(
            m,
            &[inf, h(-1.0)],
            Fmt::F16,
            &[h(1.0), inf],
            Fmt::F16,
            0,
            Fmt::F32,
        );
        assert_eq!(r, 0x7fff_ffff);
        let r = dot(m, &[inf], Fmt::F16, &[0], Fmt::F16, 0, Fmt::F32);
        assert_eq!(r, 0x7fff_ffff);
    }

    #[test]
    fn rounding() {
        // 1 + 2^-23 + 2^-24 truncates to 1 + 2^-23 and rounds to nearest even 1 + 2^-22.
        assert_eq!(
            round_to(false, (1 << 24) | 3, -24, Fmt::F32, Rnd::Zero),
            0x3f80_0001
        );
        assert_eq!(
            round_to(false, (1 << 24) | 3, -24, Fmt::F32, Rnd::Nearest),
            0x3f80_0002
        );
        // Subnormal f32.
        assert_eq!(round_to(true, 1, -149, Fmt::F32, Rnd::Zero), 0x8000_0001);
        assert_eq!(round_to(false, 1, -150, Fmt::F32, Rnd::Zero), 0);
        assert_eq!(round_to(false, 3, -151, Fmt::F32, Rnd::Nearest), 1);
        // Overflow.
        assert_eq!(round_to(false, 1, 128, Fmt::F32, Rnd::Zero), 0x7f7f_ffff);
        assert_eq!(round_to(false, 1, 128, Fmt::F32, Rnd::Nearest), 0x7f80_0000);
    }
}
