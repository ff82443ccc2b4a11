//! Tensor-core arithmetic: the dot products of `mma` and `wgmma.mma_async`.
//!
//! The PTX ISA leaves "the accumulation order, rounding and handling of subnormal inputs"
//! unspecified for the floating-point MMA variants. The interpreter follows a block fused
//! multiply-add model in the family of Fasi, Higham, Mikaitis and Pranesh ("Numerical behavior of
//! NVIDIA tensor cores", PeerJ CS 7:e330, 2021) and Khattak and Mikaitis ("Accurate models of
//! NVIDIA tensor cores", arXiv:2512.07004, 2025), with the parameters fitted to our own H100
//! measurements (`tools/hwvectors/hopper.py`, families `mma` and `wgmma`; how the parameters
//! were searched is in `docs/INTERP.md`):
//!
//! 1. every product `a_k * b_k` is exact;
//! 2. the products of a block and the accumulator `c` are added in one step. The alignment
//!    exponent is the largest of `c`'s exponent and, for each product, the *sum of the
//!    operands' exponents* (the exponent of the product before normalisation: a product of
//!    significands in [2, 4) does not raise it). Every term is truncated toward zero to
//!    [`Model::frac`] bits below that exponent, the truncated terms are summed exactly, and the
//!    sum is truncated toward zero to `f32`; a sum beyond the `f32` range is an infinity.
//! 3. the result is the `c` of the next block; `f16` accumulators are converted exactly to
//!    `f32`; into an `f16` result the aligned sum of a single block is rounded to nearest `f16`
//!    directly (a final `f32` result of several blocks is rounded to nearest `f16`);
//! 4. NaN inputs, `inf * 0` and `inf - inf` give the canonical NaN, infinities propagate;
//!    subnormal inputs are exact, subnormal results are kept (gradual underflow).
//!
//! With `frac` 25 and one block per instruction this reproduces every measured element of the
//! `f16`, `bf16` and `tf32` `mma.sync` and `wgmma` shapes. FP8 (`e4m3`/`e5m2`) `wgmma` aligns to
//! 13 bits and keeps 13 bits of each `f32` result (an `f16` result is rounded from the aligned
//! sum). FP8 `mma.sync` has no unit on sm_90: ptxas lowers it to two `f16` MMAs and an add,
//! which [`model`] describes and which matches every measured element. Integer MMAs are exact
//! (wrapping, or saturating with `.satfinite`); `f64`
//! MMAs are chains of IEEE `fma` in K order with the instruction's rounding mode.

use crate::float::{self, Fmt};
use smallvec::SmallVec;

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
    /// Bits kept below the alignment exponent.
    pub frac: u32,
    /// Rounding of each block's sum to `f32`.
    pub round: Rnd,
    /// Significand bits of each block's `f32` result kept below the leading bit (the rest are
    /// truncated): 23 keeps them all.
    pub keep: u32,
    /// FP8 `mma.sync` as ptxas lowers it for sm_90, which has no FP8 `mma.sync` unit: see
    /// [`model`].
    pub fp8_split: bool,
}

/// The model for an input format (`f16`, `bf16`, `tf32`, `e4m3`/`e5m2`), the accumulator format
/// (`f32` or `f16`), the instruction's K and whether the instruction is `wgmma` (whose FP8 path
/// is narrower than `mma.sync`'s).
pub fn model(input: Fmt, out: Fmt, k: usize, wgmma: bool) -> Model {
    let fp8 = matches!(input, Fmt::E4m3 | Fmt::E5m2);
    let f16 = Model {
        block: k,
        frac: 25,
        round: Rnd::Zero,
        keep: 23,
        fp8_split: false,
    };
    if fp8 && wgmma {
        // Measured: FP8 `wgmma` aligns to 13 bits and, into an f32 accumulator, keeps 13 bits
        // of each result (the "14-bit accumulation" reported for Hopper FP8 GEMMs); into an f16
        // accumulator the aligned sum is rounded to f16 directly.
        Model {
            frac: 13,
            keep: if out == Fmt::F32 { 13 } else { 23 },
            ..f16
        }
    } else if fp8 {
        // sm_90 has no FP8 `mma.sync`: ptxas (CUDA 13.0) converts the FP8 operands to f16
        // (`F2FP.F16.E4M3.UNPACK_B`, exact) and issues two f16 MMAs (`HMMA.16816` for k32,
        // `HMMA.1688` for k16), the first over the low halves of the operand registers with a
        // zero accumulator, the second over the high halves, then adds C with `FADD` (`HADD2`
        // for an f16 accumulator). Seen in `cuobjdump -sass` of the measured kernels.
        Model {
            block: k / 2,
            fp8_split: true,
            ..f16
        }
    } else {
        f16
    }
}

/// An exactly decoded value. Tensor-core operands and accumulators have at most 24 significant
/// bits (`f32`, `tf32` as `f32`, `f16`, `bf16`, the FP8 formats), so a product of two has at most
/// 48 and fits the `u64` significand; sums are formed in `i128` ([`block`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Val {
    Zero(bool),
    /// (-1)^neg * sig * 2^exp
    Fin(bool, u64, i32),
    Inf(bool),
    NaN,
}

fn decode(bits: u64, f: Fmt) -> Val {
    debug_assert!(
        f.man() <= 23,
        "tensor-core formats have at most 24 significant bits"
    );
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
    let m = b & ((1u64 << man) - 1);
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

/// The exponent of a finite value's leading bit.
fn lead(v: Val) -> Option<i32> {
    match v {
        Val::Fin(_, s, e) => Some(e + bitlen(s as u128) - 1),
        _ => None,
    }
}

/// A block's sum before its rounding: a special value, or the exact sum of the aligned terms
/// in units of `2^q`.
enum Aligned {
    Special(Val),
    Sum(i128, i32),
}

/// One block: `c + sum(a_k * b_k)` with the model, the result in `f32`. Each product comes with
/// its alignment exponent (the sum of its operands' exponents).
fn block(m: Model, c: Val, prods: &[(Val, Option<i32>)]) -> Val {
    let (sum, q) = match aligned(m, c, prods) {
        Aligned::Special(v) => return v,
        Aligned::Sum(0, _) => return Val::Zero(false),
        Aligned::Sum(s, q) => (s, q),
    };
    let f = Fmt::F32;
    let mag = sum.unsigned_abs();
    // Truncation toward zero would saturate; the measured result of an overflowing sum is an
    // infinity.
    if q + bitlen(mag) - 1 > (1 << (f.exp() - 1)) - 1 {
        return Val::Inf(sum < 0);
    }
    let r = round_to(sum < 0, mag, q, f, m.round);
    decode(r & !((1u64 << (f.man() - m.keep.min(f.man()))) - 1), f)
}

/// The aligned sum of one block (step 2 of the model).
fn aligned(m: Model, c: Val, prods: &[(Val, Option<i32>)]) -> Aligned {
    let terms = || std::iter::once((c, lead(c))).chain(prods.iter().copied());
    // One pass for the special values and the largest exponent (only finite terms have one).
    let (mut nan, mut pinf, mut ninf, mut all_neg_zero) = (false, false, false, true);
    let mut emax: Option<i32> = None;
    for (t, e) in terms() {
        match t {
            Val::NaN => nan = true,
            Val::Inf(false) => pinf = true,
            Val::Inf(true) => ninf = true,
            Val::Zero(neg) => all_neg_zero &= neg,
            Val::Fin(..) => all_neg_zero = false,
        }
        if let Some(e) = e {
            emax = Some(emax.map_or(e, |m| m.max(e)));
        }
    }
    match (nan, pinf, ninf) {
        (true, _, _) | (false, true, true) => return Aligned::Special(Val::NaN),
        (false, true, false) => return Aligned::Special(Val::Inf(false)),
        (false, false, true) => return Aligned::Special(Val::Inf(true)),
        _ => {}
    }
    let Some(emax) = emax else {
        return Aligned::Special(Val::Zero(all_neg_zero));
    };
    let q = emax - m.frac as i32;
    let mut sum: i128 = 0;
    for (t, _) in terms() {
        if let Val::Fin(n, s, e) = t {
            let v: i128 = if e >= q {
                ((s as u128) << (e - q).min(100)) as i128
            } else {
                let sh = (q - e) as u32;
                if sh >= 128 {
                    0
                } else {
                    (s as u128 >> sh) as i128
                }
            };
            sum += if n { -v } else { v };
        }
    }
    Aligned::Sum(sum, q)
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
        Val::Fin(n, s, e) => round_to(n, s as u128, e, out, Rnd::Nearest),
    }
}

/// `c + sum_k a[k] * b[k]` as the tensor cores compute it: inputs in `af`/`bf` (A and B may
/// differ for FP8), `c` and the result in `out` (`f32` or `f16`). `tf32` inputs are passed as
/// `F32` with their low 13 bits already cleared. (The MMAs decode each operand once and call
/// [`dot_inputs`]; the tests call this.)
#[cfg(test)]
pub fn dot(m: Model, a: &[u64], af: Fmt, b: &[u64], bf: Fmt, c: u64, out: Fmt) -> u64 {
    let a: SmallVec<[Input; 64]> = a.iter().map(|&x| input(x, af)).collect();
    let b: SmallVec<[Input; 64]> = b.iter().map(|&y| input(y, bf)).collect();
    dot_inputs(m, &a, &b, c, out)
}

/// An operand element of a dot product, decoded once ([`input`]) so that an MMA decodes each
/// element of A and B once rather than once per product it enters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Input(Val);

/// `bits` in format `f`, decoded for [`dot_inputs`].
pub fn input(bits: u64, f: Fmt) -> Input {
    Input(decode(bits, f))
}

/// The exact product of two inputs with its alignment exponent (the sum of the operands'
/// exponents; `None` unless both are finite and nonzero).
fn product((&Input(x), &Input(y)): (&Input, &Input)) -> (Val, Option<i32>) {
    let e = match (lead(x), lead(y)) {
        (Some(p), Some(q)) => Some(p + q),
        _ => None,
    };
    (mul(x, y), e)
}

/// `a` multiplied exactly by the scale factor `s` (block-scaled MMAs: an input of at most 4
/// significant bits by a power of two or an unsigned E4M3, so the product stays exact).
pub fn scaled(a: Input, s: Input) -> Input {
    // Decoded from f32, both significands may carry 24 bits; without its trailing zeros the
    // product keeps the few significant bits, so two scaled inputs still multiply in a u64.
    Input(match mul(a.0, s.0) {
        Val::Fin(n, m, e) => {
            let z = m.trailing_zeros();
            Val::Fin(n, m >> z, e + z as i32)
        }
        v => v,
    })
}

/// `c + sum_k a[k] * b[k]` over operands decoded by [`input`], as the tensor cores compute it.
pub fn dot_inputs(m: Model, a: &[Input], b: &[Input], c: u64, out: Fmt) -> u64 {
    // Built in place: the widest dot product (k = 32) stays inline, and nothing moves it.
    let mut prods: SmallVec<[(Val, Option<i32>); 32]> = SmallVec::new();
    prods.extend(a.iter().zip(b).map(product));
    if m.fp8_split {
        let hi: SmallVec<[bool; 32]> = (0..prods.len()).map(|k| k % 4 >= 2).collect();
        return split_fp8(m, &prods, &hi, c, out);
    }
    sum(m, &prods, decode(c, out), out)
}

/// `c + sum_k a[k] * b[k]` with the accumulator given as an exact value (`tcgen05.mma` scales
/// it by a power of two first); not for the FP8 split of `mma.sync`.
pub fn dot_inputs_c(m: Model, a: &[Input], b: &[Input], c: Input, out: Fmt) -> u64 {
    let prods: SmallVec<[(Val, Option<i32>); 32]> = a.iter().zip(b).map(product).collect();
    sum(m, &prods, c.0, out)
}

fn sum(m: Model, prods: &[(Val, Option<i32>)], c: Val, out: Fmt) -> u64 {
    // An f16 accumulator is widened exactly; the sum is computed in f32 and rounded once.
    let mut acc = c;
    if out != Fmt::F32 {
        acc = decode(encode(acc, Fmt::F32), Fmt::F32);
        if prods.len() <= m.block {
            return block_narrow(m, acc, prods, out);
        }
    }
    for chunk in prods.chunks(m.block.max(1)) {
        acc = block(m, acc, chunk);
    }
    encode(acc, out)
}

/// One block into a narrow (`f16`) result: the aligned sum rounded to nearest directly, with no
/// truncation to `f32` first (measured: an `m8n32k16` `wmma.mma` whose aligned sum lies just
/// beyond an f16 midpoint that the f32 truncation lands on; `mma.sync` `m16n8k8` and `wgmma`
/// `m64n8k16` elements and both halves of FP8 `mma.sync` likewise).
fn block_narrow(m: Model, c: Val, prods: &[(Val, Option<i32>)], out: Fmt) -> u64 {
    match aligned(m, c, prods) {
        Aligned::Special(v) => encode(v, out),
        Aligned::Sum(0, _) => 0,
        Aligned::Sum(s, q) => round_to(s < 0, s.unsigned_abs(), q, out, Rnd::Nearest),
    }
}

/// FP8 `mma.sync` as two f16 MMAs and an add (see [`model`]). An FP8 operand register holds
/// four consecutive k; its low half (k % 4 in 0..2) feeds the first MMA and its high half the
/// second, in every fragment of the k16 and k32 shapes, so the split is by `k % 4`; `hi[k]`
/// says which MMA product `k` is in (a sparse A's register holds compressed columns, so there
/// the split follows them: [`dot_inputs_split`]).
fn split_fp8(m: Model, prods: &[(Val, Option<i32>)], hi: &[bool], c: u64, out: Fmt) -> u64 {
    let half = |h: bool| -> Vec<(Val, Option<i32>)> {
        prods
            .iter()
            .zip(hi)
            .filter(|(_, &x)| x == h)
            .map(|(p, _)| *p)
            .collect()
    };
    let mut acc = Val::Zero(false);
    for hi in [false, true] {
        acc = if out == Fmt::F32 {
            block(m, acc, &half(hi))
        } else {
            // `HMMA.F16` rounds each MMA's aligned sum to f16.
            decode(block_narrow(m, acc, &half(hi), out), out)
        };
    }
    let mode = float::Mode::default();
    float::bin(float::BinOp::Add, out, c, encode(acc, out), mode)
}

/// FP8 `c + sum_k a[k] * b[k]` as two f16 MMAs and an add, product `k` in the second MMA where
/// `hi[k]` (sparse `mma.sp`, whose A registers hold compressed columns).
pub fn dot_inputs_split(m: Model, a: &[Input], b: &[Input], hi: &[bool], c: u64, out: Fmt) -> u64 {
    let prods: SmallVec<[(Val, Option<i32>); 32]> = a.iter().zip(b).map(product).collect();
    split_fp8(m, &prods, hi, c, out)
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
        let m = model(Fmt::F16, Fmt::F32, 16, false);
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
    fn alignment_uses_the_operand_exponents() {
        // 1.5 * 1.5 = 2.25 aligns at exponent 0 (the sum of the operands' exponents), not 1,
        // so a 2^-25 term survives the 25-bit alignment (measured on an H100).
        let m = model(Fmt::F16, Fmt::F32, 16, false);
        let a = [h(1.5), h(-1.5), h(2f32.powi(-13))];
        let b = [h(1.5), h(1.5), h(2f32.powi(-12))];
        let r = dot(m, &a, Fmt::F16, &b, Fmt::F16, 0, Fmt::F32);
        assert_eq!(r, 0x3300_0000);
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
