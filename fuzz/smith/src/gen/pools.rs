//! The input pools: interesting values of each register class (signed and unsigned limits,
//! float specials, half-precision ties and subnormals) mixed with random and small values.

use arbitrary::{Result, Unstructured};

/// Interesting values of each pool class.
pub(super) const H_VALUES: &[u64] = &[
    0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x1234, 31, 16,
    // f16: 1, -1, 0.5, 2, inf, -inf, qNaN, sNaN, max subnormal, min normal, max, 1/3
    0x3c00, 0xbc00, 0x3800, 0x4000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x03ff, 0x0400, 0x7bff, 0x3555,
    // f16 products near the smallest normal decide `.ftz`'s tininess after rounding:
    // 0x0401 * 0x3bfe rounds to 2^-14 at 11 bits, 0x0400 * 0x3bff is below it.
    0x0401, 0x3bfe, 0x3bff, // bf16: 1, -1, inf, qNaN, min normal, max, 1 + ulp
    0x3f80, 0xbf80, 0x7f80, 0x7fc0, 0x0080, 0x7f7f, 0x3f81,
    // 1 + ulp (f16), 1 - ulp (bf16): (1 + u)(1 - u) - 1 cancels, fused or not.
    0x3c01, 0x3f7f,
];
pub(super) const R_VALUES: &[u64] = &[
    0,
    1,
    2,
    3,
    31,
    32,
    33,
    0x7f,
    0xff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0x0001_0000,
    0x00ff_ff00,
    0x8000_0001,
    // Packed halves: f16 (1, -1), (qNaN, min subnormal), (max, min normal); bf16 (1, inf).
    0x3c00_bc00,
    0x7e00_0001,
    0x7bff_0400,
    0x3f80_7f80,
    // Packed 1 + ulp and 1 - ulp: f16, bf16.
    0x3c01_3bff,
    0x3f81_3f7f,
];
pub(super) const D_VALUES: &[u64] = &[
    0,
    1,
    63,
    64,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
    0x8000_0000,
    0xffff_ffff_8000_0000,
];
pub(super) const F_VALUES: &[u64] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x4040_0000, // 3
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0x7fa0_0001, // sNaN
    0xffc1_2345, // -NaN with payload
    0x0000_0001, // min subnormal
    0x807f_ffff, // -max subnormal
    0x0080_0000, // min normal
    0x7f7f_ffff, // max
    0x4b80_0000, // 2^24
    0x3eaa_aaab, // 1/3
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x5f80_0000, // 2^64
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0x477f_e000, // 65504, the largest f16
    0x477f_f000, // 65520, where f16 rounding overflows
    0x3380_0000, // 2^-24, the smallest f16 subnormal
    0x3300_0000, // 2^-25
    0x3f80_1000, // 1 + 2^-11, an f16 tie
    0x3f80_8000, // 1 + 2^-8, a bf16 tie
    0x3881_0000, // just above the smallest f16 normal
    0x3f80_0001, // 1 + ulp: (1 + u)(1 - u) - 1 cancels, fused or not
    0x3f7f_ffff, // 1 - ulp
    0xbf80_0001, // -(1 + ulp)
];
pub(super) const FD_VALUES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001,
    0xfff8_0000_dead_beef,
    0x0000_0000_0000_0001,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x3fd5_5555_5555_5555,
    0x41e0_0000_0000_0000, // 2^31
    0x43e0_0000_0000_0000, // 2^63
    0x3ff8_0000_0000_0000, // 1.5
    0x4004_0000_0000_0000, // 2.5
    0x47ef_ffff_e000_0000, // f32 max as f64
    0x36a0_0000_0000_0000, // f32 min subnormal as f64
    0x3690_0000_0000_0000, // half of it
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x3fef_ffff_ffff_ffff, // 1 - ulp
];

pub(super) fn pool_value(u: &mut Unstructured, interesting: &[u64], bits: u32) -> Result<u64> {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => *u.choose(interesting)?,
        2 => {
            let v: u64 = u.arbitrary()?;
            v & m
        }
        _ => {
            // Small integers (and their floats) make arithmetic land on exact results.
            let v: i8 = u.arbitrary()?;
            match bits {
                32 if interesting == F_VALUES => (v as f32).to_bits() as u64,
                64 if interesting == FD_VALUES => (v as f64).to_bits(),
                _ => (v as i64 as u64) & m,
            }
        }
    })
}
