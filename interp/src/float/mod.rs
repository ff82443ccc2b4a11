//! Floating-point semantics on raw bits.
//!
//! Arithmetic in every rounding mode goes through `rustc_apfloat` (LLVM's APFloat), which rounds
//! exactly per IEEE 754. Round-to-nearest-even single and double arithmetic takes the host's
//! IEEE operations, which compute the same correctly rounded results faster (unit tests compare
//! the two on edge values). On top of the IEEE result sit PTX's rules, measured on the hardware:
//!
//! - `f32`, `f16`, `bf16` arithmetic returns the canonical NaN (`0x7fffffff`, `0x7fff`) for
//!   any NaN result;
//! - `f64` arithmetic returns a NaN operand, quieted, or `0xfff8000000000000` for an invalid
//!   operation. When several operands are NaN the one returned is, as measured on sm_90 with the
//!   operands in registers: `add`/`sub`/`mul`/`min`/`max` the second (`b`), then `a`; `fma`/`mad`
//!   `b`, then `c`, then `a`; `div` (a software sequence) `a`, then `b`; `abs`/`neg` return the
//!   NaN operand quieted with its own sign (the ISA leaves all of this unspecified);
//! - `.ftz` flushes subnormal inputs and results to zero of the same sign;
//! - `.sat` clamps to `[+0, 1]` with NaN giving `+0`; `.relu` clamps negatives to `+0` and keeps
//!   NaN canonical.

pub mod approx;
pub mod sfu;
pub mod sqrt;

use ptx_ir_core::{Rounding, Type};
use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// A floating-point format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fmt {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// FP8 E4M3 (no infinities, one NaN per sign).
    E4m3,
    /// FP8 E5M2.
    E5m2,
}

impl Fmt {
    /// The scalar format of a PTX type (packed types give their element format).
    pub fn of(t: Type) -> Option<Fmt> {
        Some(match t {
            Type::F16 | Type::F16x2 => Fmt::F16,
            Type::Bf16 | Type::Bf16x2 => Fmt::Bf16,
            Type::F32 | Type::F32x2 | Type::Tf32 => Fmt::F32,
            Type::F64 => Fmt::F64,
            Type::E4m3 | Type::E4m3x2 | Type::E4m3x4 => Fmt::E4m3,
            Type::E5m2 | Type::E5m2x2 | Type::E5m2x4 => Fmt::E5m2,
            _ => return None,
        })
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::F32 => 32,
            Fmt::F64 => 64,
            Fmt::E4m3 | Fmt::E5m2 => 8,
        }
    }

    /// Mantissa (fraction) bits.
    pub const fn man(self) -> u32 {
        match self {
            Fmt::F16 => 10,
            Fmt::Bf16 => 7,
            Fmt::F32 => 23,
            Fmt::F64 => 52,
            Fmt::E4m3 => 3,
            Fmt::E5m2 => 2,
        }
    }

    /// Exponent bits.
    pub const fn exp(self) -> u32 {
        self.bits() - 1 - self.man()
    }

    /// Mask of all bits.
    pub const fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// The sign bit.
    pub const fn sign(self) -> u64 {
        1u64 << (self.bits() - 1)
    }

    /// The canonical NaN PTX produces.
    pub const fn canonical_nan(self) -> u64 {
        match self {
            Fmt::F64 => 0xfff8_0000_0000_0000,
            Fmt::E4m3 | Fmt::E5m2 => 0x7f,
            _ => self.mask() >> 1,
        }
    }
}

/// Whether `b` is a NaN of format `f`.
#[inline]
pub fn is_nan(b: u64, f: Fmt) -> bool {
    let b = b & f.mask();
    match f {
        Fmt::E4m3 => b & 0x7f == 0x7f,
        _ => {
            let exp = (b >> f.man()) & ((1 << f.exp()) - 1);
            exp == (1 << f.exp()) - 1 && b & ((1 << f.man()) - 1) != 0
        }
    }
}

/// Whether `b` is an infinity of format `f`.
#[inline]
pub fn is_inf(b: u64, f: Fmt) -> bool {
    if f == Fmt::E4m3 {
        return false;
    }
    let b = b & f.mask() & !f.sign();
    b == ((1u64 << f.exp()) - 1) << f.man()
}

/// Whether `b` is a subnormal (non-zero with a zero exponent).
#[inline]
pub fn is_subnormal(b: u64, f: Fmt) -> bool {
    let b = b & f.mask();
    (b >> f.man()) & ((1 << f.exp()) - 1) == 0 && b & ((1 << f.man()) - 1) != 0
}

/// Whether `b` is ±0.
#[inline]
pub fn is_zero(b: u64, f: Fmt) -> bool {
    b & f.mask() & !f.sign() == 0
}

/// Flushes a subnormal to zero of the same sign.
#[inline]
pub fn flush(b: u64, f: Fmt) -> u64 {
    if is_subnormal(b, f) {
        b & f.sign()
    } else {
        b
    }
}

/// Whether the sign bit is set.
#[inline]
pub fn neg(b: u64, f: Fmt) -> bool {
    b & f.sign() != 0
}

/// The apfloat rounding of a PTX rounding modifier (integer roundings map to their float
/// counterparts; `None` is round-to-nearest-even).
pub fn round(r: Option<Rounding>) -> Round {
    match r {
        None | Some(Rounding::Rn) | Some(Rounding::Rni) | Some(Rounding::Rs) => {
            Round::NearestTiesToEven
        }
        Some(Rounding::Rz) | Some(Rounding::Rzi) => Round::TowardZero,
        Some(Rounding::Rm) | Some(Rounding::Rmi) => Round::TowardNegative,
        Some(Rounding::Rp) | Some(Rounding::Rpi) => Round::TowardPositive,
        Some(Rounding::Rna) => Round::NearestTiesToAway,
    }
}

macro_rules! with_fmt {
    ($f:expr, $T:ident => $body:expr) => {
        match $f {
            Fmt::F16 => {
                type $T = Half;
                $body
            }
            Fmt::Bf16 => {
                type $T = BFloat;
                $body
            }
            Fmt::F32 => {
                type $T = Single;
                $body
            }
            Fmt::F64 => {
                type $T = Double;
                $body
            }
            Fmt::E4m3 => {
                type $T = Float8E4M3FN;
                $body
            }
            Fmt::E5m2 => {
                type $T = Float8E5M2;
                $body
            }
        }
    };
}
pub(crate) use with_fmt;

/// A two-operand IEEE operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// a + b
    Add,
    /// a - b
    Sub,
    /// a * b
    Mul,
    /// a / b
    Div,
}

fn soft_bin<F: Float>(op: BinOp, a: u64, b: u64, r: Round) -> u64 {
    let (x, y) = (F::from_bits(a as u128), F::from_bits(b as u128));
    let v = match op {
        BinOp::Add => x.add_r(y, r),
        BinOp::Sub => x.sub_r(y, r),
        BinOp::Mul => x.mul_r(y, r),
        BinOp::Div => x.div_r(y, r),
    };
    v.value.to_bits() as u64
}

fn soft_fma<F: Float>(a: u64, b: u64, c: u64, r: Round) -> u64 {
    let (x, y, z) = (
        F::from_bits(a as u128),
        F::from_bits(b as u128),
        F::from_bits(c as u128),
    );
    x.mul_add_r(y, z, r).value.to_bits() as u64
}

/// The IEEE result of `a op b` in format `f`, correctly rounded (NaN payloads unspecified).
pub fn ieee_bin(op: BinOp, f: Fmt, a: u64, b: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::F32 => {
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                let v = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                };
                return v.to_bits() as u64;
            }
            Fmt::F64 => {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let v = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                };
                return v.to_bits();
            }
            _ => {}
        }
    }
    with_fmt!(f, T => soft_bin::<T>(op, a, b, r))
}

/// The IEEE fused multiply-add `a * b + c`, correctly rounded.
pub fn ieee_fma(f: Fmt, a: u64, b: u64, c: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::F32 => {
                let v = f32::from_bits(a as u32)
                    .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
                return v.to_bits() as u64;
            }
            Fmt::F64 => {
                return f64::from_bits(a)
                    .mul_add(f64::from_bits(b), f64::from_bits(c))
                    .to_bits()
            }
            _ => {}
        }
    }
    with_fmt!(f, T => soft_fma::<T>(a, b, c, r))
}

/// The quiet-bit of format `f` set in `b` (a NaN keeps its payload and sign).
#[inline]
pub fn quiet(b: u64, f: Fmt) -> u64 {
    b | (1u64 << (f.man() - 1))
}

/// PTX's NaN result for an operation whose IEEE result is NaN: for `f64` the first NaN of `ins`,
/// quieted, so callers list the operands in the hardware's priority order (see the module
/// documentation; [`nan_order2`], [`nan_order3`]); otherwise the canonical NaN.
#[inline]
pub fn nan_result(f: Fmt, ins: &[u64]) -> u64 {
    if f == Fmt::F64 {
        for &x in ins {
            if is_nan(x, f) {
                return x | (1 << 51);
            }
        }
    }
    f.canonical_nan()
}

/// The operands of a two-operand `f64` operation in NaN-priority order: `div` returns its
/// dividend's NaN first, every other operation its second operand's (measured).
#[inline]
pub fn nan_order2(op: BinOp, a: u64, b: u64) -> [u64; 2] {
    if op == BinOp::Div {
        [a, b]
    } else {
        [b, a]
    }
}

/// The operands of `fma`/`mad` `a * b + c` in NaN-priority order: `b`, `c`, `a` (measured: the
/// multiplier's NaN wins over the addend's, which wins over the multiplicand's).
#[inline]
pub fn nan_order3(a: u64, b: u64, c: u64) -> [u64; 3] {
    [b, c, a]
}

/// Single precision with the exponent range of double precision: the result of an operation
/// "rounded as if the exponent range were unbounded", which IEEE 754 uses to define tininess
/// after rounding.
struct WideSingleS;
impl rustc_apfloat::ieee::Semantics for WideSingleS {
    const BITS: usize = 35;
    const EXP_BITS: usize = 11;
}
type WideSingle = rustc_apfloat::ieee::IeeeFloat<WideSingleS>;

/// Half precision with a single-precision exponent range (see [`WideSingleS`]).
struct WideHalfS;
impl rustc_apfloat::ieee::Semantics for WideHalfS {
    const BITS: usize = 19;
    const EXP_BITS: usize = 8;
}
type WideHalf = rustc_apfloat::ieee::IeeeFloat<WideHalfS>;

/// The operations whose `.ftz` result is decided by tininess after rounding.
#[derive(Copy, Clone)]
enum Tiny {
    Bin(BinOp),
    Fma,
}

fn tiny_in<F, W>(op: Tiny, ins: &[u64], r: Round) -> bool
where
    F: Float + FloatConvert<W>,
    W: Float,
{
    let w = |b: u64| -> W {
        let mut loses = false;
        F::from_bits(b as u128).convert(&mut loses).value
    };
    let v = match (op, ins) {
        (Tiny::Bin(o), &[a, b]) => {
            let (x, y) = (w(a), w(b));
            match o {
                BinOp::Add => x.add_r(y, r),
                BinOp::Sub => x.sub_r(y, r),
                BinOp::Mul => x.mul_r(y, r),
                BinOp::Div => x.div_r(y, r),
            }
            .value
        }
        (Tiny::Fma, &[a, b, c]) => w(a).mul_add_r(w(b), w(c), r).value,
        _ => return false,
    };
    let min: W = w(F::smallest_normalized().to_bits() as u64);
    v.abs() < min
}

/// `.ftz` in `f32` and `f16` detects tininess *after* rounding: a result is flushed when the
/// exact value, rounded to the format's precision as if the exponent range were unbounded, lies
/// below the smallest normal (measured on `mul`/`fma` `.rn`/`.rp`/`.rz`, `corpus/vectors/
/// probe.jsonl.xz`: `mul.rn.ftz.f32 0x00800000, 0x3f7fffff` is `2^-126 (1 - 2^-24)`, exactly
/// representable with an unbounded exponent, and gives 0; `mul.rn.ftz.f16 0x0401, 0x3bfe` is
/// `2^-14 (1 - 2^-20)`, which rounds to `2^-14` at 11 bits, and gives `0x0400`). The IEEE
/// result `r` (rounded with subnormals) differs from that only when it is the smallest normal:
/// below it the wide rounding is tiny too, so [`flush`] of `r` suffices.
#[inline]
fn flush_tiny(f: Fmt, r: u64, op: Tiny, ins: &[u64], rnd: Round) -> u64 {
    if r & f.mask() & !f.sign() != 1 << f.man() {
        return flush(r, f);
    }
    let tiny = match f {
        Fmt::F32 => tiny_in::<Single, WideSingle>(op, ins, rnd),
        Fmt::F16 => tiny_in::<Half, WideHalf>(op, ins, rnd),
        _ => false,
    };
    if tiny {
        r & f.sign()
    } else {
        r
    }
}

/// Options of a float arithmetic instruction.
#[derive(Copy, Clone, Debug, Default)]
pub struct Mode {
    /// Rounding.
    pub rnd: Option<Rounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu`
    pub relu: bool,
}

/// Applies the output rules: NaN, ftz, sat, relu.
#[inline]
pub fn finish(f: Fmt, res: u64, ins: &[u64], m: Mode) -> u64 {
    let mut r = res & f.mask();
    if is_nan(r, f) {
        r = nan_result(f, ins);
        if m.sat {
            return 0;
        }
        return r;
    }
    if m.ftz {
        r = flush(r, f);
    }
    if m.sat {
        r = saturate(r, f);
    }
    if m.relu && neg(r, f) {
        r = 0;
    }
    r
}

/// Clamps to `[+0, 1.0]`.
pub fn saturate(r: u64, f: Fmt) -> u64 {
    if is_nan(r, f) || neg(r, f) {
        return 0;
    }
    let one = one(f);
    if r > one {
        one
    } else {
        r
    }
}

/// The bits of 1.0.
pub const fn one(f: Fmt) -> u64 {
    let bias = (1u64 << (f.exp() - 1)) - 1;
    bias << f.man()
}

/// `a op b` with PTX's rules.
#[inline]
pub fn bin(op: BinOp, f: Fmt, a: u64, b: u64, m: Mode) -> u64 {
    let (a, b) = if m.ftz {
        (flush(a, f), flush(b, f))
    } else {
        (a, b)
    };
    let mut r = ieee_bin(op, f, a, b, round(m.rnd));
    if m.ftz && !is_nan(r, f) {
        r = flush_tiny(f, r, Tiny::Bin(op), &[a, b], round(m.rnd));
    }
    finish(f, r, &nan_order2(op, a, b), m)
}

/// `a * b + c` with PTX's rules.
#[inline]
pub fn fma(f: Fmt, a: u64, b: u64, c: u64, m: Mode) -> u64 {
    let (a, b, c) = if m.ftz {
        (flush(a, f), flush(b, f), flush(c, f))
    } else {
        (a, b, c)
    };
    let mut r = ieee_fma(f, a, b, c, round(m.rnd));
    if m.ftz && !is_nan(r, f) {
        r = flush_tiny(f, r, Tiny::Fma, &[a, b, c], round(m.rnd));
    }
    finish(f, r, &nan_order3(a, b, c), m)
}

/// Converts between float formats with rounding `r` (NaN payload kept as far as it fits,
/// quieted).
pub fn convert_bits(b: u64, from: Fmt, to: Fmt, r: Rounding) -> u64 {
    convert_round(b, from, to, round(Some(r)))
}

fn conv<F: Float + FloatConvert<G>, G: Float>(b: u64, r: Round) -> u64 {
    let x = F::from_bits(b as u128);
    let mut loses = false;
    let v: G = x.convert_r(r, &mut loses).value;
    v.to_bits() as u64
}

/// Converts between float formats with an apfloat rounding.
pub fn convert_round(b: u64, from: Fmt, to: Fmt, r: Round) -> u64 {
    if from == to {
        return b;
    }
    with_fmt!(from, S => with_fmt!(to, D => conv::<S, D>(b, r)))
}

/// `f64` bits to `f32` bits, round to nearest even.
pub fn f64_to_f32_rn(b: u64) -> u32 {
    (f64::from_bits(b) as f32).to_bits()
}

/// Rounds to an integral value in the same format.
pub fn round_integral(b: u64, f: Fmt, r: Round) -> u64 {
    with_fmt!(f, T => T::from_bits(b as u128).round_to_integral(r).value.to_bits() as u64)
}

/// Float to integer of `width` bits, saturating, NaN to 0.
pub fn to_int(b: u64, f: Fmt, signed: bool, width: u32, r: Round) -> u64 {
    let mut exact = false;
    with_fmt!(f, T => {
        let x = T::from_bits(b as u128);
        if signed {
            x.to_i128_r(width as usize, r, &mut exact).value as u64
        } else {
            x.to_u128_r(width as usize, r, &mut exact).value as u64
        }
    })
}

/// Integer to float, correctly rounded.
pub fn from_int(v: u64, signed: bool, width: u32, f: Fmt, r: Round) -> u64 {
    let wide: i128 = if signed {
        let s = 64 - width;
        (((v << s) as i64) >> s) as i128
    } else {
        let m = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        (v & m) as i128
    };
    with_fmt!(f, T => T::from_i128_r(wide, r).value.to_bits() as u64)
}

/// Total-order key for min/max and comparisons of non-NaN values.
#[inline]
pub fn order_key(b: u64, f: Fmt) -> i64 {
    let b = b & f.mask();
    let mag = (b & !f.sign()) as i64;
    if neg(b, f) {
        -mag - 1
    } else {
        mag
    }
}

/// Numeric comparison of two non-NaN values (-0 == +0).
#[inline]
pub fn cmp(a: u64, b: u64, f: Fmt) -> std::cmp::Ordering {
    num_key(a, f).cmp(&num_key(b, f))
}

#[inline]
fn num_key(b: u64, f: Fmt) -> i64 {
    let b = b & f.mask();
    let mag = (b & !f.sign()) as i64;
    if neg(b, f) {
        -mag
    } else {
        mag
    }
}

/// Options of `min`/`max`.
#[derive(Copy, Clone, Debug, Default)]
pub struct MinMax {
    /// `max` rather than `min`.
    pub max: bool,
    /// `.NaN`: any NaN input gives the canonical NaN.
    pub nan: bool,
    /// `.xorsign.abs`: compare magnitudes, result sign is the xor of the input signs.
    pub xorsign: bool,
    /// `.abs` (three-input forms): compare absolute values.
    pub abs: bool,
    /// `.ftz`
    pub ftz: bool,
}

/// `min`/`max` of two values. `-0` is less than `+0`. Two NaNs give the canonical NaN, except in
/// `f64`, which returns the second operand quieted (measured).
pub fn min_max(f: Fmt, a: u64, b: u64, o: MinMax) -> u64 {
    let (mut a, mut b) = (a & f.mask(), b & f.mask());
    if o.ftz {
        a = flush(a, f);
        b = flush(b, f);
    }
    let sign = (a ^ b) & f.sign();
    if o.xorsign || o.abs {
        a &= !f.sign();
        b &= !f.sign();
    }
    let r = match (is_nan(a, f), is_nan(b, f)) {
        (true, true) if f == Fmt::F64 => return quiet(b, f),
        (true, true) => return f.canonical_nan(),
        (true, false) | (false, true) if o.nan => return f.canonical_nan(),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let (ka, kb) = (order_key(a, f), order_key(b, f));
            if (ka < kb) != o.max {
                a
            } else {
                b
            }
        }
    };
    if o.xorsign {
        r | sign
    } else {
        r
    }
}

/// Class tests of `testp`.
#[derive(Copy, Clone, Debug)]
pub enum Class {
    /// Not infinite and not NaN.
    Finite,
    /// ±inf.
    Infinite,
    /// Not NaN.
    Number,
    /// NaN.
    NotANumber,
    /// Normal or zero (not subnormal, inf or NaN): "as a special case, positive and negative
    /// zero are considered normal numbers" (PTX ISA, `testp`).
    Normal,
    /// Subnormal.
    Subnormal,
}

/// `testp`
pub fn test_class(b: u64, f: Fmt, c: Class) -> bool {
    let nan = is_nan(b, f);
    let inf = is_inf(b, f);
    match c {
        Class::Finite => !nan && !inf,
        Class::Infinite => inf,
        Class::Number => !nan,
        Class::NotANumber => nan,
        Class::Normal => !nan && !inf && !is_subnormal(b, f),
        Class::Subnormal => is_subnormal(b, f),
    }
}

/// Distance in units in the last place between two values of format `f` (NaNs equal each other
/// and are infinitely far from numbers).
pub fn ulp_distance(a: u64, b: u64, f: Fmt) -> u64 {
    match (is_nan(a, f), is_nan(b, f)) {
        (true, true) => return 0,
        (true, false) | (false, true) => return u64::MAX,
        _ => {}
    }
    let ka = order_key(a, f) as i128;
    let kb = order_key(b, f) as i128;
    // -0 and +0 are adjacent keys (-1 and 0); count them as equal.
    let adj = |k: i128| if k < 0 { k + 1 } else { k };
    (adj(ka) - adj(kb)).unsigned_abs() as u64
}

#[cfg(test)]
mod tests;
