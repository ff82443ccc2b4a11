//! The reference's floating-point arithmetic, written independently of the interpreter.
//!
//! Round-to-nearest-even uses the host's IEEE operations. The directed modes (`.rz`, `.rm`,
//! `.rp`) do not use a soft-float library where they can avoid it: the exact result is
//! represented as an unevaluated sum `s + tail` of host doubles (error-free transformations:
//! `TwoSum`, the exact f64 product of two f32 values, the exact remainder `fma(-q, b, a)` of a
//! division and `fma(-q, q, a)` of a square root), the round-to-nearest result `rr` is known to
//! be one of the two neighbours of the exact value on the target grid, and the sign of
//! `exact - rr` picks the directed result. Single precision is always exact this way (every f32
//! operation's exact result fits a double-double). Double precision falls back to
//! `rustc_apfloat` only when an error term could underflow (results below 2^-900) — the
//! interpreter uses apfloat for every directed operation, so the two still differ in code path.
//!
//! PTX's rules on top (measured on the hardware; see `interp/src/float/mod.rs` and
//! `../shared/hwtruth`): f32 NaN results are `0x7fffffff`; f64 NaN results are a NaN operand
//! quieted (the caller lists the operands in the measured priority order), else
//! `0xfff8000000000000`; `.ftz` flushes subnormal f32 inputs and results
//! to zero of the same sign; `.sat` clamps to `[+0, 1]` with NaN giving `+0`.

use ptx_ir_core::Rounding;
pub use ptx_ir_smith::model::{nan32, nan64};
use std::cmp::Ordering;

/// A rounding direction, one of IEEE 754's four. PTX's float roundings (`.rn`, `.rz`, `.rm`,
/// `.rp`) and its integer roundings (`.rni`, `.rzi`, `.rmi`, `.rpi`) each name one ([`Rnd::of`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward negative infinity.
    Rm,
    /// Toward positive infinity.
    Rp,
}

impl Rnd {
    /// The direction of a PTX rounding; `None` for `.rna` and `.rs`, which the reference does
    /// not model (the generator never draws them).
    pub fn of(r: Rounding) -> Option<Rnd> {
        match r {
            Rounding::Rn | Rounding::Rni => Some(Rnd::Rn),
            Rounding::Rz | Rounding::Rzi => Some(Rnd::Rz),
            Rounding::Rm | Rounding::Rmi => Some(Rnd::Rm),
            Rounding::Rp | Rounding::Rpi => Some(Rnd::Rp),
            Rounding::Rna | Rounding::Rs => None,
        }
    }
}

/// The f32 NaN PTX produces.
pub const F32_NAN: u64 = 0x7fff_ffff;
/// The f64 NaN PTX produces for an invalid operation.
pub const F64_NAN: u64 = 0xfff8_0000_0000_0000;

/// Flushes a subnormal f32 to zero of the same sign.
pub fn flush32(b: u64) -> u64 {
    let x = b as u32;
    if x & 0x7f80_0000 == 0 {
        (x & 0x8000_0000) as u64
    } else {
        x as u64
    }
}

/// Clamps f32 bits to `[+0, 1]`, NaN to `+0`.
pub fn sat32(b: u64) -> u64 {
    let x = f32::from_bits(b as u32);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x > 1.0 {
        0x3f80_0000
    } else {
        b & 0xffff_ffff
    }
}

fn next_up32(x: f32) -> f32 {
    let b = x.to_bits();
    if x.is_nan() || b == 0x7f80_0000 {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    if b & 0x8000_0000 == 0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

fn next_up64(x: f64) -> f64 {
    let b = x.to_bits();
    if x.is_nan() || b == 0x7ff0_0000_0000_0000 {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    if b >> 63 == 0 {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

/// The directed result from a neighbour `rr` of the exact value, the sign of `exact - rr`
/// and the sign of the exact value (needed for `.rz` when `rr` is zero).
fn pick(
    rr: f64,
    above: Ordering,
    exact_neg: bool,
    m: Rnd,
    up: fn(f64) -> f64,
    down: fn(f64) -> f64,
) -> f64 {
    use Ordering::*;
    match (m, above) {
        (_, Equal) | (Rnd::Rn, _) => rr,
        (Rnd::Rp, Greater) => up(rr),
        (Rnd::Rp, Less) => rr,
        (Rnd::Rm, Less) => down(rr),
        (Rnd::Rm, Greater) => rr,
        (Rnd::Rz, Greater) => {
            if exact_neg {
                up(rr)
            } else {
                rr
            }
        }
        (Rnd::Rz, Less) => {
            if exact_neg {
                rr
            } else {
                down(rr)
            }
        }
    }
}

fn up32(x: f64) -> f64 {
    next_up32(x as f32) as f64
}

fn down32(x: f64) -> f64 {
    next_down32(x as f32) as f64
}

/// Rounds the exact value `s + tail` (`s` the nearest double, `tail` known by its sign) to
/// f32 in mode `m` (not `Rn`).
fn round32(s: f64, tail: Ordering, m: Rnd) -> f32 {
    let rr = s as f32;
    let above = if rr.is_infinite() {
        if rr > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    } else {
        let d = s - rr as f64;
        match d.partial_cmp(&0.0) {
            Some(Ordering::Equal) | None => tail,
            Some(o) => o,
        }
    };
    let neg = s < 0.0 || (s == 0.0 && tail == Ordering::Less);
    pick(rr as f64, above, neg, m, up32, down32) as f32
}

/// The rounding error of `s = a + b` (`Fast2Sum` with the operands ordered by magnitude: exact
/// for finite values, and without the intermediate overflow of `TwoSum` near the top of the
/// range).
fn two_sum_err(a: f64, b: f64, s: f64) -> f64 {
    let (a, b) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    b - (s - a)
}

fn sign(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// The sign of `xs[0] + xs[1] + ...` computed exactly (Shewchuk's grow-expansion; finite
/// values without overflow).
fn sign_of_sum(xs: &[f64]) -> Ordering {
    let mut e: Vec<f64> = Vec::with_capacity(xs.len() * 2);
    for &x in xs {
        let mut q = x;
        let mut out = Vec::with_capacity(e.len() + 1);
        for &h in &e {
            let s = q + h;
            let err = two_sum_err(q, h, s);
            if err != 0.0 {
                out.push(err);
            }
            q = s;
        }
        out.push(q);
        e = out;
    }
    // Non-overlapping, increasing magnitude: the sign is the sign of the last non-zero term.
    e.iter()
        .rev()
        .find(|x| **x != 0.0)
        .map_or(Ordering::Equal, |x| sign(*x))
}

/// Whether a double is far enough from underflow for the error terms to be exact.
fn safe(x: f64) -> bool {
    let a = x.abs();
    a == 0.0 || (a > 1e-270 && a.is_finite())
}

fn apfloat_round(m: Rnd) -> rustc_apfloat::Round {
    match m {
        Rnd::Rn => rustc_apfloat::Round::NearestTiesToEven,
        Rnd::Rz => rustc_apfloat::Round::TowardZero,
        Rnd::Rm => rustc_apfloat::Round::TowardNegative,
        Rnd::Rp => rustc_apfloat::Round::TowardPositive,
    }
}

/// Exact-zero sum: `+0 + +0` is `+0` in every mode, `-0 + -0` is `-0`, and any other exact
/// zero is `+0`, except `-0` in `.rm`.
fn zero_result(a: f64, b: f64, m: Rnd) -> f64 {
    let (an, bn) = (a.is_sign_negative(), b.is_sign_negative());
    if a == 0.0 && b == 0.0 {
        if an && bn {
            return -0.0;
        }
        if !an && !bn {
            return 0.0;
        }
    }
    if m == Rnd::Rm {
        -0.0
    } else {
        0.0
    }
}

// ------------------------------------------------------------------ single precision

/// IEEE `a + b` in f32 (`a`, `b` not NaN).
pub fn add32(a: f32, b: f32, m: Rnd) -> f32 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() {
        return a + b;
    }
    let (x, y) = (a as f64, b as f64);
    let s = x + y;
    let e = two_sum_err(x, y, s);
    if s == 0.0 && e == 0.0 {
        return zero_result(x, y, m) as f32;
    }
    round32(s, sign(e), m)
}

/// IEEE `a * b` in f32.
pub fn mul32(a: f32, b: f32, m: Rnd) -> f32 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return a * b;
    }
    // Exact: 24 + 24 bits fit a double, and the exponent range too.
    round32(a as f64 * b as f64, Ordering::Equal, m)
}

/// IEEE `a * b + c` in f32, one rounding.
pub fn fma32(a: f32, b: f32, c: f32, m: Rnd) -> f32 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let z = c as f64;
    let s = p + z;
    let e = two_sum_err(p, z, s);
    if s == 0.0 && e == 0.0 {
        return zero_result(p, z, m) as f32;
    }
    round32(s, sign(e), m)
}

/// IEEE `a / b` in f32.
pub fn div32(a: f32, b: f32, m: Rnd) -> f32 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return a / b;
    }
    let (x, y) = (a as f64, b as f64);
    let q = x / y;
    let r = (-q).mul_add(y, x);
    let tail = if y > 0.0 { sign(r) } else { sign(r).reverse() };
    round32(q, tail, m)
}

/// IEEE square root in f32.
pub fn sqrt32(a: f32, m: Rnd) -> f32 {
    if m == Rnd::Rn || !a.is_finite() || a <= 0.0 {
        return a.sqrt();
    }
    let x = a as f64;
    let q = x.sqrt();
    let r = (-q).mul_add(q, x);
    round32(q, sign(r), m)
}

/// The exact value of an f32 operation, for [`tiny32`].
#[derive(Clone, Debug)]
pub enum Exact32 {
    /// The sum of these doubles (products of two f32 values are exact doubles).
    Sum(Vec<f64>),
    /// The quotient of these doubles.
    Quot(f64, f64),
}

impl Exact32 {
    /// The sign of `value - t` (`t` of a few bits: `t * divisor` is exact).
    fn cmp(&self, t: f64) -> Ordering {
        match self {
            Exact32::Sum(xs) => {
                let mut v = xs.clone();
                v.push(-t);
                sign_of_sum(&v)
            }
            Exact32::Quot(a, b) => {
                let s = sign_of_sum(&[*a, -t * b]);
                if *b < 0.0 {
                    s.reverse()
                } else {
                    s
                }
            }
        }
    }
}

/// Whether an f32 result that rounds (with subnormals) to the smallest normal magnitude is
/// tiny *after rounding* in IEEE 754's sense, as `.ftz` decides (measured: `mul.rn.ftz.f32`
/// of `2^-126` and `1 - 2^-24` gives 0): the exact value `v` (negative when `neg`), rounded to
/// 24 bits in mode `m` with an unbounded exponent range, is below `2^-126`. Between `2^-127`
/// and `2^-126` that grid's step is `2^-150`: round to nearest reaches `2^-126` from
/// `2^-126 - 2^-151` up (the tie goes to the even `2^-126`), rounding away from zero from
/// above `2^-126 - 2^-150`, rounding towards zero only from `2^-126`.
pub fn tiny32(v: &Exact32, neg: bool, m: Rnd) -> bool {
    let min = f64::from_bits(0x3810_0000_0000_0000); // 2^-126
    let away = matches!((m, neg), (Rnd::Rp, false) | (Rnd::Rm, true));
    let toward = matches!((m, neg), (Rnd::Rz, _) | (Rnd::Rp, true) | (Rnd::Rm, false));
    let (t, tiny_at_t) = if away {
        (min - min * f64::powi(2.0, -24), true)
    } else if toward {
        (min, false)
    } else {
        (min - min * f64::powi(2.0, -25), false)
    };
    // |v| against t: for a negative v, -v - t has the sign of -(v + t).
    let o = if neg { v.cmp(-t).reverse() } else { v.cmp(t) };
    o == Ordering::Less || (o == Ordering::Equal && tiny_at_t)
}

// ------------------------------------------------------------------ double precision

fn soft64(m: Rnd, f: impl FnOnce(rustc_apfloat::Round) -> rustc_apfloat::ieee::Double) -> f64 {
    use rustc_apfloat::Float;
    f64::from_bits(f(apfloat_round(m)).to_bits() as u64)
}

fn d(x: f64) -> rustc_apfloat::ieee::Double {
    use rustc_apfloat::Float;
    rustc_apfloat::ieee::Double::from_bits(x.to_bits() as u128)
}

/// The directed double result when the nearest double `r` overflowed from finite operands.
fn overflow64(r: f64, m: Rnd) -> f64 {
    let above = if r > 0.0 {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    pick(r, above, r < 0.0, m, next_up64, next_down64)
}

/// IEEE `a + b` in f64.
pub fn add64(a: f64, b: f64, m: Rnd) -> f64 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() {
        return a + b;
    }
    let s = a + b;
    if s.is_infinite() {
        return overflow64(s, m);
    }
    let e = two_sum_err(a, b, s);
    if s == 0.0 && e == 0.0 {
        return zero_result(a, b, m);
    }
    pick(s, sign(e), s < 0.0, m, next_up64, next_down64)
}

/// IEEE `a * b` in f64.
pub fn mul64(a: f64, b: f64, m: Rnd) -> f64 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return a * b;
    }
    let p = a * b;
    if p.is_infinite() {
        return overflow64(p, m);
    }
    if !safe(p) || p == 0.0 {
        use rustc_apfloat::Float;
        return soft64(m, |r| d(a).mul_r(d(b), r).value);
    }
    let e = a.mul_add(b, -p);
    pick(p, sign(e), p < 0.0, m, next_up64, next_down64)
}

/// IEEE `a / b` in f64.
pub fn div64(a: f64, b: f64, m: Rnd) -> f64 {
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return a / b;
    }
    let q = a / b;
    if q.is_infinite() {
        return overflow64(q, m);
    }
    if !safe(q) || !safe(a) || !safe(b) || q == 0.0 {
        use rustc_apfloat::Float;
        return soft64(m, |r| d(a).div_r(d(b), r).value);
    }
    let r = (-q).mul_add(b, a);
    let tail = if b > 0.0 { sign(r) } else { sign(r).reverse() };
    pick(q, tail, q < 0.0, m, next_up64, next_down64)
}

/// IEEE square root in f64.
pub fn sqrt64(a: f64, m: Rnd) -> f64 {
    if m == Rnd::Rn || !a.is_finite() || a <= 0.0 {
        return a.sqrt();
    }
    if !safe(a) {
        return soft_sqrt64(a, m);
    }
    let q = a.sqrt();
    let r = (-q).mul_add(q, a);
    pick(q, sign(r), false, m, next_up64, next_down64)
}

/// Square root of a tiny double by bisection on the bit pattern (monotone), exact.
fn soft_sqrt64(a: f64, m: Rnd) -> f64 {
    // Find the largest q with q*q <= a, comparing exactly through f64 products of scaled
    // values: scale a by 2^600 (even power) so that everything is normal.
    let s = a * f64::from_bits((1023u64 + 600) << 52);
    let q = s.sqrt();
    let r = (-q).mul_add(q, s);
    let t = pick(q, sign(r), false, m, next_up64, next_down64);
    // Scaling back by 2^-300 is exact unless the result is subnormal, which the square root
    // of a positive double never is.
    t * f64::from_bits((1023u64 - 300) << 52)
}

/// IEEE `a * b + c` in f64, one rounding.
pub fn fma64(a: f64, b: f64, c: f64, m: Rnd) -> f64 {
    let r = a.mul_add(b, c);
    if m == Rnd::Rn || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow64(r, m);
    }
    let p = a * b;
    if !safe(p) || p == 0.0 || !safe(c) || !safe(r) {
        use rustc_apfloat::Float;
        return soft64(m, |rd| d(a).mul_add_r(d(b), d(c), rd).value);
    }
    let pl = a.mul_add(b, -p);
    let tail = sign_of_sum(&[p, pl, c, -r]);
    if r == 0.0 && tail == Ordering::Equal {
        let pz = if a.is_sign_negative() != b.is_sign_negative() {
            -0.0
        } else {
            0.0
        };
        return zero_result(if p == 0.0 { pz } else { p }, c, m);
    }
    pick(
        r,
        tail,
        r < 0.0 || (r == 0.0 && tail == Ordering::Less),
        m,
        next_up64,
        next_down64,
    )
}

// ------------------------------------------------------------------ conversions

/// f64 to f32 in mode `m` (NaN handled by the caller).
pub fn f64_to_f32(x: f64, m: Rnd) -> f32 {
    if m == Rnd::Rn || !x.is_finite() || x == 0.0 {
        return x as f32;
    }
    round32(x, Ordering::Equal, m)
}

/// A signed or unsigned 64-bit integer to f32 in mode `m`.
pub fn int_to_f32(v: i128, m: Rnd) -> f32 {
    let rr = v as f32;
    if m == Rnd::Rn {
        return rr;
    }
    let above = v.cmp(&(rr as i128));
    pick(rr as f64, above, v < 0, m, up32, down32) as f32
}

/// A signed or unsigned 64-bit integer to f64 in mode `m`.
pub fn int_to_f64(v: i128, m: Rnd) -> f64 {
    let rr = v as f64;
    if m == Rnd::Rn {
        return rr;
    }
    let above = v.cmp(&(rr as i128));
    pick(rr, above, v < 0, m, next_up64, next_down64)
}

/// Rounds to an integral value in mode `m` (ties to even for `Rn`); a zero result keeps the
/// sign of `x`.
pub fn round_int64(x: f64, m: Rnd) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let r = match m {
        Rnd::Rn => {
            let f = x.floor();
            let diff = x - f;
            if diff > 0.5 || (diff == 0.5 && (f / 2.0).floor() * 2.0 != f) {
                f + 1.0
            } else {
                f
            }
        }
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    };
    if r == 0.0 {
        0f64.copysign(x)
    } else {
        r
    }
}

/// Float to integer: round in mode `m`, saturate to the `bits`-bit range, NaN to 0.
pub fn float_to_int(x: f64, m: Rnd, bits: u32, signed: bool) -> i128 {
    if x.is_nan() {
        return 0;
    }
    let r = round_int64(x, m);
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    if r.is_infinite() {
        return if r > 0.0 { hi } else { lo };
    }
    // |r| < 2^1024: compare in f64 first to avoid overflow in the cast.
    if r >= hi as f64 {
        return hi;
    }
    if r <= lo as f64 {
        return lo;
    }
    r as i128
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_apfloat::ieee::{Double, Single};
    use rustc_apfloat::Float;

    fn ap32(m: Rnd, f: impl Fn(Single, rustc_apfloat::Round) -> Single) -> u32 {
        f(Single::ZERO, apfloat_round(m)).to_bits() as u32
    }

    fn ap64(m: Rnd, f: impl Fn(Double, rustc_apfloat::Round) -> Double) -> u64 {
        f(Double::ZERO, apfloat_round(m)).to_bits() as u64
    }

    /// The error-free-transformation results agree with apfloat on random and edge values.
    #[test]
    fn directed_rounding_matches_apfloat() {
        let mut src = ptx_ir_smith::Bytes::new(7);
        let edge32 = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3eaa_aaab,
            0x4b80_0001,
            0x3400_0000,
            0x0040_0000,
        ];
        let edge64 = [
            0u64,
            1 << 63,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x3fd5_5555_5555_5555,
            0x4340_0000_0000_0001,
            0x1000_0000_0000_0000,
            0x2000_0000_0000_0001,
        ];
        for i in 0..200_000u32 {
            let pick32 = |src: &mut ptx_ir_smith::Bytes| {
                let r = src.next_u64();
                let b = if r & 3 == 0 {
                    edge32[(r >> 8) as usize % edge32.len()]
                } else if r & 3 == 1 {
                    // Close exponents make cancellations and ties.
                    (r >> 16) as u32 & 0x807f_ffff | 0x3f00_0000
                } else {
                    (r >> 16) as u32
                };
                let x = f32::from_bits(b);
                if x.is_nan() {
                    1.0
                } else {
                    x
                }
            };
            let pick64 = |src: &mut ptx_ir_smith::Bytes| {
                let r = src.next_u64();
                let b = if r & 3 == 0 {
                    edge64[(r >> 8) as usize % edge64.len()]
                } else if r & 3 == 1 {
                    src.next_u64() & 0x800f_ffff_ffff_ffff | 0x3fe0_0000_0000_0000
                } else {
                    src.next_u64()
                };
                let x = f64::from_bits(b);
                if x.is_nan() {
                    1.0
                } else {
                    x
                }
            };
            let (a, b, c) = (pick32(&mut src), pick32(&mut src), pick32(&mut src));
            let m = [Rnd::Rz, Rnd::Rm, Rnd::Rp][i as usize % 3];
            let (sa, sb, sc) = (
                Single::from_bits(a.to_bits() as u128),
                Single::from_bits(b.to_bits() as u128),
                Single::from_bits(c.to_bits() as u128),
            );
            let same = |x: u32, y: u32| {
                x == y || (f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan())
            };
            assert!(
                same(
                    add32(a, b, m).to_bits(),
                    ap32(m, |_, r| sa.add_r(sb, r).value)
                ),
                "add32 {a:e} {b:e} {m:?}"
            );
            assert!(
                same(
                    mul32(a, b, m).to_bits(),
                    ap32(m, |_, r| sa.mul_r(sb, r).value)
                ),
                "mul32 {a:e} {b:e} {m:?}"
            );
            assert!(
                same(
                    div32(a, b, m).to_bits(),
                    ap32(m, |_, r| sa.div_r(sb, r).value)
                ),
                "div32 {a:e} {b:e} {m:?}"
            );
            assert!(
                same(
                    fma32(a, b, c, m).to_bits(),
                    ap32(m, |_, r| sa.mul_add_r(sb, sc, r).value)
                ),
                "fma32 {a:e} {b:e} {c:e} {m:?}"
            );
            let (x, y, z) = (pick64(&mut src), pick64(&mut src), pick64(&mut src));
            let (dx, dy, dz) = (d(x), d(y), d(z));
            let same64 = |p: u64, q: u64| {
                p == q || (f64::from_bits(p).is_nan() && f64::from_bits(q).is_nan())
            };
            assert!(
                same64(
                    add64(x, y, m).to_bits(),
                    ap64(m, |_, r| dx.add_r(dy, r).value)
                ),
                "add64 {x:e} {y:e} {m:?}"
            );
            assert!(
                same64(
                    mul64(x, y, m).to_bits(),
                    ap64(m, |_, r| dx.mul_r(dy, r).value)
                ),
                "mul64 {x:e} {y:e} {m:?}"
            );
            assert!(
                same64(
                    div64(x, y, m).to_bits(),
                    ap64(m, |_, r| dx.div_r(dy, r).value)
                ),
                "div64 {x:e} {y:e} {m:?}"
            );
            assert!(
                same64(
                    fma64(x, y, z, m).to_bits(),
                    ap64(m, |_, r| dx.mul_add_r(dy, dz, r).value)
                ),
                "fma64 {x:e} {y:e} {z:e} {m:?}"
            );
            assert!(
                same64(f64_to_f32(x, m).to_bits() as u64, {
                    let mut loses = false;
                    let v: Single =
                        rustc_apfloat::FloatConvert::convert_r(dx, apfloat_round(m), &mut loses)
                            .value;
                    v.to_bits() as u64
                }),
                "f64_to_f32 {x:e} {m:?}"
            );
        }
    }
}

// ---------------------------------------------------------------- half precision

/// A 16-bit float format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HalfFmt {
    /// Exponent bits.
    pub ebits: u32,
    /// Stored significand bits.
    pub mbits: u32,
}

/// IEEE binary16.
pub const F16: HalfFmt = HalfFmt {
    ebits: 5,
    mbits: 10,
};
/// bfloat16.
pub const BF16: HalfFmt = HalfFmt { ebits: 8, mbits: 7 };

/// The NaN PTX produces for `f16` and `bf16` results (measured: canonical for both).
pub const HALF_NAN: u64 = 0x7fff;

impl HalfFmt {
    fn bias(self) -> i64 {
        (1 << (self.ebits - 1)) - 1
    }

    /// Whether `b` is a NaN.
    pub fn nan(self, b: u64) -> bool {
        let b = b & 0xffff;
        let exp = (b >> self.mbits) & ((1 << self.ebits) - 1);
        exp == (1 << self.ebits) - 1 && b & ((1 << self.mbits) - 1) != 0
    }

    /// Whether `b` is subnormal (non-zero with a zero exponent field).
    pub fn subnormal(self, b: u64) -> bool {
        let b = b & 0x7fff;
        b != 0 && b >> self.mbits == 0
    }

    /// Flushes a subnormal to zero of the same sign.
    pub fn flush(self, b: u64) -> u64 {
        if self.subnormal(b) {
            b & 0x8000
        } else {
            b & 0xffff
        }
    }

    /// The exact value of `b` (not a NaN) as a double (every 16-bit float is one).
    pub fn value(self, b: u64) -> f64 {
        let b = b & 0xffff;
        let neg = b & 0x8000 != 0;
        let exp = ((b >> self.mbits) & ((1 << self.ebits) - 1)) as i64;
        let man = b & ((1 << self.mbits) - 1);
        let mag = if exp == (1 << self.ebits) - 1 {
            f64::INFINITY
        } else if exp == 0 {
            man as f64 * pow2(1 - self.bias() - self.mbits as i64)
        } else {
            ((1u64 << self.mbits) | man) as f64 * pow2(exp - self.bias() - self.mbits as i64)
        };
        if neg {
            -mag
        } else {
            mag
        }
    }

    /// The largest finite value's bits with sign `neg`.
    pub fn max_finite(self, neg: bool) -> u64 {
        let m = (((1u64 << self.ebits) - 2) << self.mbits) | ((1 << self.mbits) - 1);
        m | if neg { 0x8000 } else { 0 }
    }

    /// Infinity's bits with sign `neg`.
    pub fn inf(self, neg: bool) -> u64 {
        (((1u64 << self.ebits) - 1) << self.mbits) | if neg { 0x8000 } else { 0 }
    }
}

/// `2^e` as a double (`e` within the double range, subnormals included).
fn pow2(e: i64) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Rounds the exact value `x + tail` (`x` a finite non-NaN double, `tail` known by its sign
/// and far smaller than an ulp of `x`) to `fmt` in mode `m`. Returns the bits and whether the
/// result is tiny after rounding (the value rounded to the format's precision with an
/// unbounded exponent range lies below the smallest normal), which decides `.ftz`.
///
/// Integer arithmetic on the significand: the exact value is `M * 2^E` (+ tail); the
/// quantum is `2^q` with `q = max(e, emin) - mbits` (`e` the exponent of the leading bit).
pub fn round_half(x: f64, tail: Ordering, fmt: HalfFmt, m: Rnd) -> (u64, bool) {
    let neg = x < 0.0 || (x == 0.0 && (x.is_sign_negative() || tail == Ordering::Less));
    if x == 0.0 && tail == Ordering::Equal {
        return (if x.is_sign_negative() { 0x8000 } else { 0 }, true);
    }
    // Magnitude direction of the tail.
    let mag_tail = if neg { tail.reverse() } else { tail };
    let emin = 1 - fmt.bias();
    let emax = fmt.bias();
    let (man, e2) = if x == 0.0 {
        // Only a tail: the magnitude is positive and far below any quantum.
        (0u128, -2000i64)
    } else {
        let b = x.abs().to_bits();
        let (exp, frac) = ((b >> 52) as i64, (b & ((1 << 52) - 1)) as u128);
        if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        }
    };
    let mut lead = if man == 0 {
        i64::MIN / 2
    } else {
        127 - man.leading_zeros() as i64 + e2
    };
    if mag_tail == Ordering::Less && man.is_power_of_two() {
        // Just below a power of two: the leading bit is one lower.
        lead -= 1;
    }
    let round_at = |q: i64| -> (u128, bool) {
        // (n, whether rounded up) for quantum 2^q.
        let shift = q - e2;
        let (mut n, rem_cmp, inexact);
        if man == 0 {
            n = 0;
            // Below half a quantum, above zero.
            rem_cmp = Ordering::Less;
            inexact = true;
        } else if shift <= 0 {
            n = man << (-shift).min(100);
            if mag_tail == Ordering::Less {
                // Just below n * 2^q: the truncation is n - 1 and the rest close to a quantum.
                n -= 1;
                rem_cmp = Ordering::Greater;
                inexact = true;
            } else {
                rem_cmp = if mag_tail == Ordering::Greater {
                    Ordering::Less
                } else {
                    Ordering::Equal
                };
                inexact = mag_tail == Ordering::Greater;
            }
        } else {
            let sh = shift.min(120) as u32;
            n = man >> sh;
            let rem = man & ((1u128 << sh) - 1);
            let half = 1u128 << (sh - 1);
            if rem == 0 && mag_tail == Ordering::Less {
                n -= 1;
                rem_cmp = Ordering::Greater;
                inexact = true;
            } else {
                rem_cmp = match rem.cmp(&half) {
                    Ordering::Equal => mag_tail,
                    o => o,
                };
                inexact = rem != 0 || mag_tail != Ordering::Equal;
            }
            // rem_cmp: comparison of the discarded part with half a quantum (Equal: a tie).
            let _ = inexact;
        }
        let up = match m {
            Rnd::Rn => rem_cmp == Ordering::Greater || (rem_cmp == Ordering::Equal && n & 1 == 1),
            Rnd::Rz => false,
            Rnd::Rp => inexact && !neg,
            Rnd::Rm => inexact && neg,
        };
        // A tie needs a non-zero discarded part: `Equal` with nothing discarded is exact.
        let up = up && (inexact || rem_cmp != Ordering::Equal);
        (n + up as u128, up)
    };
    // Tininess after rounding: round at the precision with an unbounded exponent.
    let qu = lead - fmt.mbits as i64;
    let (nu, _) = round_at(qu);
    let e_after = if man == 0 {
        i64::MIN / 2
    } else if nu >> (fmt.mbits + 1) != 0 {
        lead + 1
    } else {
        lead
    };
    let tiny = e_after < emin;
    let mut q = lead.max(emin) - fmt.mbits as i64;
    let (mut n, _) = round_at(q);
    if n >> (fmt.mbits + 1) != 0 {
        n >>= 1;
        q += 1;
    }
    let sign = if neg { 0x8000 } else { 0 };
    if n != 0 && q + fmt.mbits as i64 > emax {
        let to_inf = match m {
            Rnd::Rn => true,
            Rnd::Rz => false,
            Rnd::Rp => !neg,
            Rnd::Rm => neg,
        };
        return (
            if to_inf {
                fmt.inf(neg)
            } else {
                fmt.max_finite(neg)
            },
            false,
        );
    }
    let bits = if n >> fmt.mbits == 0 {
        n as u64
    } else {
        let be = (q + fmt.mbits as i64 + fmt.bias()) as u64;
        (be << fmt.mbits) | (n as u64 & ((1 << fmt.mbits) - 1))
    };
    (sign | bits, tiny)
}

#[cfg(test)]
mod half_tests {
    use super::*;

    /// Every finite 16-bit value reads back exactly; the midpoints between neighbours round
    /// to the even one (up with `.rp`, down with `.rm` for positive values); a tail breaks
    /// the tie.
    #[test]
    fn round_half_grid() {
        for fmt in [F16, BF16] {
            for b in 0u64..0x7fff {
                if fmt.nan(b) || b == fmt.inf(false) {
                    continue;
                }
                let v = fmt.value(b);
                assert_eq!(round_half(v, Ordering::Equal, fmt, Rnd::Rn).0, b);
                assert_eq!(round_half(-v, Ordering::Equal, fmt, Rnd::Rz).0, b | 0x8000);
                if b + 1 >= fmt.inf(false) {
                    continue;
                }
                let mid = (v + fmt.value(b + 1)) / 2.0;
                let even = if b & 1 == 0 { b } else { b + 1 };
                assert_eq!(round_half(mid, Ordering::Equal, fmt, Rnd::Rn).0, even);
                assert_eq!(round_half(mid, Ordering::Greater, fmt, Rnd::Rn).0, b + 1);
                assert_eq!(round_half(mid, Ordering::Less, fmt, Rnd::Rn).0, b);
                assert_eq!(round_half(mid, Ordering::Equal, fmt, Rnd::Rp).0, b + 1);
                assert_eq!(round_half(mid, Ordering::Equal, fmt, Rnd::Rm).0, b);
                assert_eq!(
                    round_half(-mid, Ordering::Equal, fmt, Rnd::Rz).0,
                    b | 0x8000
                );
                // Just below an exact value: directed modes step down.
                if b > 0 {
                    assert_eq!(round_half(v, Ordering::Less, fmt, Rnd::Rz).0, b - 1);
                    assert_eq!(round_half(v, Ordering::Less, fmt, Rnd::Rn).0, b);
                }
            }
        }
    }

    /// bf16 round to nearest even of f32 values, by the integer trick on the bits.
    #[test]
    fn round_half_bf16_from_f32() {
        let mut x = 0x1234_5678u32;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let f = f32::from_bits(x);
            if !f.is_finite() {
                continue;
            }
            let want = ((x as u64 + 0x7fff + ((x as u64 >> 16) & 1)) >> 16) & 0xffff;
            if BF16.nan(want) {
                continue;
            }
            let got = round_half(f as f64, Ordering::Equal, BF16, Rnd::Rn).0;
            assert_eq!(got, want, "{x:#x}");
            let trunc = (x >> 16) as u64;
            assert_eq!(
                round_half(f as f64, Ordering::Equal, BF16, Rnd::Rz).0,
                trunc
            );
        }
    }

    /// Tininess after rounding (the measured `.ftz` rule) and overflow.
    #[test]
    fn round_half_edges() {
        let min = 2f64.powi(-14);
        // 2^-14 (1 - 2^-11): exact at 11 bits, so tiny; IEEE rounding gives 2^-14.
        assert_eq!(
            round_half(min * (1.0 - 2f64.powi(-11)), Ordering::Equal, F16, Rnd::Rn),
            (0x0400, true)
        );
        // 2^-14 (1 - 2^-20) rounds to 2^-14 at 11 bits: not tiny.
        assert_eq!(
            round_half(min * (1.0 - 2f64.powi(-20)), Ordering::Equal, F16, Rnd::Rn),
            (0x0400, false)
        );
        assert_eq!(round_half(65520.0, Ordering::Equal, F16, Rnd::Rn).0, 0x7c00);
        assert_eq!(round_half(65520.0, Ordering::Less, F16, Rnd::Rn).0, 0x7bff);
        assert_eq!(round_half(1e9, Ordering::Equal, F16, Rnd::Rz).0, 0x7bff);
        assert_eq!(round_half(-1e9, Ordering::Equal, F16, Rnd::Rp).0, 0xfbff);
        assert_eq!(round_half(-1e9, Ordering::Equal, F16, Rnd::Rm).0, 0xfc00);
        assert_eq!(
            round_half(2f64.powi(-26), Ordering::Equal, F16, Rnd::Rp).0,
            1
        );
        assert_eq!(
            round_half(2f64.powi(-26), Ordering::Equal, F16, Rnd::Rn).0,
            0
        );
        assert_eq!(
            round_half(-2f64.powi(-26), Ordering::Equal, F16, Rnd::Rn).0,
            0x8000
        );
    }
}

#[cfg(test)]
mod tiny_tests {
    use super::*;

    #[test]
    fn tininess_after_rounding() {
        let min = f32::from_bits(0x0080_0000) as f64;
        let mul = |a: u32, b: u32| {
            Exact32::Sum(vec![f32::from_bits(a) as f64 * f32::from_bits(b) as f64])
        };
        // 2^-126 (1 - 2^-24): representable with an unbounded exponent, tiny in every mode
        // (it rounds to 2^-126 with subnormals in .rn and .rp).
        let v = mul(0x0080_0000, 0x3f7f_ffff);
        for m in [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            assert!(tiny32(&v, false, m), "{m:?}");
        }
        // 2^-126 itself is not tiny; 2^-126 (1 - 2^-25) rounds to 2^-126 at 24 bits (a tie
        // to even) in .rn, to the step below in .rz.
        assert!(!tiny32(&Exact32::Sum(vec![min]), false, Rnd::Rn));
        let tie = Exact32::Sum(vec![min, -min * 2f64.powi(-25)]);
        assert!(!tiny32(&tie, false, Rnd::Rn) && tiny32(&tie, false, Rnd::Rz));
        assert!(!tiny32(&tie, false, Rnd::Rp) && tiny32(&tie, false, Rnd::Rm));
        let neg = Exact32::Sum(vec![-min, min * 2f64.powi(-25)]);
        assert!(!tiny32(&neg, true, Rnd::Rn) && !tiny32(&neg, true, Rnd::Rm));
        assert!(tiny32(&neg, true, Rnd::Rp));
        // A quotient: 2^-126 (1 - 2^-24) / 1.
        assert!(tiny32(
            &Exact32::Quot(min * (1.0 - 2f64.powi(-24)), 1.0),
            false,
            Rnd::Rn
        ));
        assert!(!tiny32(&Exact32::Quot(-min, -1.0), false, Rnd::Rn));
    }
}
