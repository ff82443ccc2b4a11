//! Correctly rounded square root in every rounding mode.
//!
//! apfloat has no square root, so the significand's integer square root is taken with enough
//! extra bits (plus a sticky bit for the remainder) and handed to apfloat's integer conversion,
//! which rounds once; the power-of-two scaling afterwards is exact because square roots of
//! finite positive values are always normal.

use super::{with_fmt, Fmt};
use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, Round};

/// IEEE `sqrt(x)` in format `f` (NaN payload unspecified: callers apply PTX's NaN rule).
pub fn ieee_sqrt(b: u64, f: Fmt, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            // Double rounding through f64 is exact for square roots of f32 (53 >= 2*24 + 2).
            Fmt::F32 => return ((f32::from_bits(b as u32) as f64).sqrt() as f32).to_bits() as u64,
            Fmt::F64 => return f64::from_bits(b).sqrt().to_bits(),
            _ => {}
        }
    }
    let b = b & f.mask();
    let sign = b & f.sign() != 0;
    if super::is_nan(b, f) {
        return f.canonical_nan();
    }
    if super::is_zero(b, f) {
        return b;
    }
    if sign {
        return f.canonical_nan();
    }
    if super::is_inf(b, f) {
        return b;
    }
    let man = f.man();
    let bias = (1i64 << (f.exp() - 1)) - 1;
    let e_field = ((b >> man) & ((1 << f.exp()) - 1)) as i64;
    let frac = b & ((1u64 << man) - 1);
    // x = m * 2^e with m an integer.
    let (mut m, mut e) = if e_field == 0 {
        (frac as u128, 1 - bias - man as i64)
    } else {
        ((frac | (1u64 << man)) as u128, e_field - bias - man as i64)
    };
    // Normalise so that m has exactly man+1 significant bits.
    while m >> man == 0 {
        m <<= 1;
        e -= 1;
    }
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    let p = man as i64 + 1;
    let k = (p + 4) / 2 + 1;
    let big = m << (2 * k);
    let root = big.isqrt();
    let sticky = (root * root != big) as u128;
    let val = (root << 1) | sticky;
    // sqrt(x) = val * 2^(e/2 - k - 1)
    let exp = e / 2 - k - 1;
    with_fmt!(f, T => {
        let v = T::from_u128_r(val, r).value;
        v.scalbn_r(exp as i32, r).to_bits() as u64
    })
}
