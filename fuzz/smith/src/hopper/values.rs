//! The operands of the floating-point matrix families ([`super::fmma`], [`super::wgmma`]): the
//! element formats ([`Fmt`]) and how a kernel draws its elements ([`Draw`]) — a mix of random
//! encodings, moderate values, specials (zeros, subnormals, infinities, NaN, the largest finite
//! value) and a small pool of magnitudes with both signs, so that products cancel.

use arbitrary::Unstructured;
use ptx_ir_core::Type;

/// An element format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fmt {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// TensorFloat-32 in a 32-bit register (the low 13 bits are ignored).
    Tf32,
    /// FP8 e4m3 (no infinity; `S.1111.111` is NaN).
    E4m3,
    /// FP8 e5m2.
    E5m2,
    /// IEEE binary32.
    F32,
}

impl Fmt {
    /// Exponent bits, fraction bits.
    pub fn bits(self) -> (u32, u32) {
        match self {
            Fmt::F16 => (5, 10),
            Fmt::Bf16 => (8, 7),
            Fmt::Tf32 | Fmt::F32 => (8, 23),
            Fmt::E4m3 => (4, 3),
            Fmt::E5m2 => (5, 2),
        }
    }

    /// The width of an encoding in bits.
    pub fn width(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::Tf32 | Fmt::F32 => 32,
            Fmt::E4m3 | Fmt::E5m2 => 8,
        }
    }

    /// The PTX type.
    pub fn ty(self) -> Type {
        match self {
            Fmt::F16 => Type::F16,
            Fmt::Bf16 => Type::Bf16,
            Fmt::Tf32 => Type::Tf32,
            Fmt::E4m3 => Type::E4m3,
            Fmt::E5m2 => Type::E5m2,
            Fmt::F32 => Type::F32,
        }
    }
}

/// How a kernel draws its operands.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Draw {
    mode: u8,
    pool: [u32; 4],
    seed: u64,
}

impl Draw {
    /// Draws a mode and a pool of magnitudes.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Draw> {
        Ok(Draw {
            mode: u.int_in_range(0..=3)?,
            pool: u.arbitrary()?,
            seed: u.arbitrary()?,
        })
    }

    /// `n` encodings of `f` (in the low bits of each word).
    pub fn values(&self, f: Fmt, n: usize, salt: u64) -> Vec<u32> {
        let mut src = crate::Bytes::new(self.seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (eb, mb) = f.bits();
        let w = f.width();
        let mask = if w == 32 { u32::MAX } else { (1 << w) - 1 };
        let bias = (1u32 << (eb - 1)) - 1;
        let sign = 1u32 << (eb + mb);
        let moderate = |r: u64| -> u32 {
            // exponent within a few binades of 1
            let e = (bias as i64 + (r % 7) as i64 - 3) as u32;
            ((r >> 8) as u32 & sign) | e << mb | ((r >> 16) as u32 & ((1 << mb) - 1))
        };
        (0..n)
            .map(|_| {
                let r = src.next_u64();
                let pick = r % 16;
                let x = match self.mode {
                    0 => r as u32 >> 3,
                    1 => moderate(r >> 4),
                    2 => match pick {
                        0 => 0,
                        1 => sign,
                        2 => (r >> 8) as u32 & ((1 << mb) - 1), // subnormal
                        3 => (r >> 8) as u32 & sign | ((1 << eb) - 1) << mb, // inf (NaN for e4m3)
                        4 => ((1 << eb) - 1) << mb | 1,         // NaN
                        5 => (((1 << eb) - 2) << mb) | ((r >> 8) as u32 & ((1 << mb) - 1)), // huge
                        6 => (r >> 8) as u32 & ((1 << (eb + mb)) - 1) | ((r >> 40) as u32 & sign),
                        _ => moderate(r >> 4),
                    },
                    _ => {
                        let p = self.pool[(r % 4) as usize] >> 3;
                        let x = if pick < 12 {
                            moderate(p as u64 >> 1) & !sign
                        } else {
                            p & !sign
                        };
                        x | if (r >> 7) & 1 == 1 { sign } else { 0 }
                    }
                };
                // tf32: random low bits, which must be ignored
                let x = if f == Fmt::Tf32 {
                    (x & !0x1fff) | (src.next_u64() as u32 & 0x1fff)
                } else {
                    x
                };
                x & mask
            })
            .collect()
    }
}
