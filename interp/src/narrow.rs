//! The `cvt` forms of sm_100a: the 4- and 6-bit floats `e2m1`, `e2m3`, `e3m2`, the
//! exponent-only `ue8m0`, and stochastic rounding (`.rs`) into `f16x2`, `bf16x2` and the packed
//! FP8/FP6/FP4 formats. ISA-derived, not hardware-checked: no Blackwell GPU is available here.
//!
//! From the PTX ISA (9.7.9.21 `cvt`, 5.2.3 alternate formats, "Floating point notes"):
//! - `e2m1`, `e2m3`, `e3m2` have no infinity or NaN; conversions into them are `.satfinite`:
//!   NaN becomes `+MAX_NORM`, a magnitude above `MAX_NORM` (infinity included) the
//!   sign-preserved `MAX_NORM`. Biases (1, 1, 3) and maxima (6, 7.5, 28) are the OCP MX values
//!   NVIDIA's `cuda_fp4`/`cuda_fp6` headers use.
//! - `.relu` clamps a negative result to `+0`; a NaN, already `+MAX_NORM`, stays.
//! - `.rs`: "rounded in the direction toward zero or away from zero based on the carry out of the
//!   integer addition of the supplied random bits (rbits) to the truncated off (discarded) bits
//!   of mantissa". The random bits are aligned with the top of the discarded field; lower
//!   discarded bits do not take part. `f16x2` takes 13 bits of each half of `rbits`, `bf16x2`
//!   each half; the x4 forms take the upper half for `a, b` and the lower for `e, f`. How two
//!   operands share one 16-bit half is only drawn in the ISA's figures: here `b` and `f` take
//!   theirs as is and `a` and `e` bit-reversed, the layout published measurements of
//!   `cvt.rs.satfinite.e4m3x4.f32` on sm_100a report, applied to every x4 format (`e2m1x4`
//!   forms its halves from the bytes the ISA names: `a, b` from bits 31..24 and 15..8, `e, f`
//!   from 23..16 and 7..0).
//! - `ue8m0`: an unsigned power of two, `2^(code - 127)`, code `0xff` NaN. From `f32` or
//!   `bf16` the sign is ignored; `.rz` takes the exponent, `.rp` adds one when the mantissa is
//!   non-zero and the magnitude is above `2^-127`; NaN gives `0xff`, infinity `0xfe` with
//!   `.satfinite` (`0xff` without). To `bf16`: code 0 is `2^-127` (`0x0040`), `0xff` the
//!   canonical NaN `0x7fff` (NVIDIA's `cuda_fp8.hpp`).

/// A small float format: exponent and mantissa widths, bias, largest finite code, and the NaN
/// code (`None` for formats without NaN).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mini {
    /// Exponent bits.
    pub ebits: u32,
    /// Mantissa bits.
    pub mbits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// The largest finite magnitude's code.
    pub max_code: u64,
    /// The NaN code (sign bit clear), if the format has NaN.
    pub nan: Option<u64>,
}

/// `e2m1`
pub const E2M1: Mini = Mini {
    ebits: 2,
    mbits: 1,
    bias: 1,
    max_code: 0x7,
    nan: None,
};
/// `e2m3`
pub const E2M3: Mini = Mini {
    ebits: 2,
    mbits: 3,
    bias: 1,
    max_code: 0x1f,
    nan: None,
};
/// `e3m2`
pub const E3M2: Mini = Mini {
    ebits: 3,
    mbits: 2,
    bias: 3,
    max_code: 0x1f,
    nan: None,
};
/// `e4m3` (FN: no infinity, NaN `0x7f`).
pub const E4M3: Mini = Mini {
    ebits: 4,
    mbits: 3,
    bias: 7,
    max_code: 0x7e,
    nan: Some(0x7f),
};
/// `e5m2` (IEEE-like; saturated here, as every `.rs` form is `.satfinite`).
pub const E5M2: Mini = Mini {
    ebits: 5,
    mbits: 2,
    bias: 15,
    max_code: 0x7b,
    nan: Some(0x7f),
};
/// `f16` (for `.rs`).
pub const F16: Mini = Mini {
    ebits: 5,
    mbits: 10,
    bias: 15,
    max_code: 0x7bff,
    nan: Some(0x7fff),
};
/// `bf16` (for `.rs`).
pub const BF16: Mini = Mini {
    ebits: 8,
    mbits: 7,
    bias: 127,
    max_code: 0x7f7f,
    nan: Some(0x7fff),
};

/// How the discarded bits are rounded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Round {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Stochastic: `bits` random bits `r` added at the top of the discarded field.
    Stochastic {
        /// The random bits.
        r: u32,
        /// How many there are.
        bits: u32,
    },
}

impl Mini {
    fn sign_bit(self) -> u64 {
        1 << (self.ebits + self.mbits)
    }

    /// The largest exponent field of a finite value.
    fn inf_code(self) -> u64 {
        ((1u64 << self.ebits) - 1) << self.mbits
    }

    /// Encodes `f32` bits `x`. With `satfinite`, NaN gives the format's NaN (or `+MAX_NORM`
    /// for a format without one) and overflow the sign-preserved maximum; without it (only
    /// `f16`/`bf16` `.rs`) NaN gives the canonical NaN and overflow infinity.
    pub fn encode(self, x: u32, r: Round, satfinite: bool, relu: bool) -> u64 {
        let sign = (x >> 31) as u64;
        let exp = ((x >> 23) & 0xff) as i32;
        let frac = (x & 0x7f_ffff) as u64;
        if exp == 0xff && frac != 0 {
            return match self.nan {
                Some(n) if self.ebits + self.mbits < 15 => {
                    n | if relu { 0 } else { sign * self.sign_bit() }
                }
                Some(n) => n,
                None => self.max_code,
            };
        }
        if relu && sign == 1 {
            return 0;
        }
        let sbit = sign * self.sign_bit();
        if exp == 0xff {
            return sbit
                | if satfinite || self.nan.is_none() {
                    self.max_code
                } else {
                    self.inf_code()
                };
        }
        if exp == 0 && frac == 0 {
            return sbit;
        }
        // |x| = m * 2^(e - 23) with m the 24-bit significand.
        let (m, e) = if exp == 0 {
            (frac, -126)
        } else {
            (frac | 1 << 23, exp - 127)
        };
        // The result's step: 2^(q - mbits) with q the result's exponent, at least the
        // subnormal one.
        let top = 63 - m.leading_zeros() as i32; // position of the leading one
        let value_exp = e - 23 + top; // floor(log2 |x|)
        let q = value_exp.max(1 - self.bias);
        let shift = (q - self.mbits as i32) - (e - 23); // bits of m below the step
        let mut n = if shift <= 0 {
            m << (-shift) as u32
        } else if shift >= 60 {
            0 // far below the smallest step; random bits at the top of the field cannot carry
        } else {
            let s = shift as u32;
            let kept = m >> s;
            let rest = m & ((1u64 << s) - 1);
            let up = match r {
                Round::Zero => false,
                Round::Nearest => {
                    let half = 1u64 << (s - 1);
                    rest > half || (rest == half && kept & 1 == 1)
                }
                Round::Stochastic { r, bits } => {
                    // Add r to the top `bits` of the discarded field; lower bits are dropped.
                    let field = if s >= bits {
                        rest >> (s - bits)
                    } else {
                        rest << (bits - s)
                    };
                    let r = r as u64 & ((1u64 << bits) - 1);
                    field + r >= 1u64 << bits
                }
            };
            kept + up as u64
        };
        // n is the magnitude in steps of 2^(q - mbits); encode it.
        let min_normal_steps = 1u64 << self.mbits;
        let mut code = if q == 1 - self.bias && n < min_normal_steps {
            n // subnormal (or zero)
        } else {
            // Normalise: n in [2^mbits, 2^(mbits+1)] (a carry may reach the top).
            let mut qe = q;
            if n >= 2 * min_normal_steps {
                n >>= 1;
                qe += 1;
            }
            let field = (qe + self.bias) as u64;
            (field << self.mbits) | (n - min_normal_steps)
        };
        let over = code > self.max_code;
        if over {
            code = if satfinite || self.nan.is_none() {
                self.max_code
            } else {
                self.inf_code()
            };
        }
        sbit | code
    }

    /// Decodes a code to `f32` bits (exact for every format here).
    pub fn decode(self, c: u64) -> u32 {
        let sign = ((c >> (self.ebits + self.mbits)) & 1) as u32;
        let field = (c >> self.mbits) & ((1 << self.ebits) - 1);
        let man = c & ((1 << self.mbits) - 1);
        if let Some(n) = self.nan {
            if c & (self.sign_bit() - 1) == n {
                return 0x7fff_ffff;
            }
        }
        let v = if field == 0 {
            man as f64 * 2f64.powi(1 - self.bias - self.mbits as i32)
        } else {
            (1.0 + man as f64 / (1u64 << self.mbits) as f64) * 2f64.powi(field as i32 - self.bias)
        };
        (v as f32).to_bits() | sign << 31
    }
}

fn bitrev16(x: u32) -> u32 {
    (x as u16).reverse_bits() as u32
}

/// The random bits of operand `k` (0 = a, 1 = b, 2 = e, 3 = f) of an x4 conversion: 16 bits,
/// `b`/`f` from their half as is, `a`/`e` bit-reversed (see the module documentation).
pub fn x4_random(rbits: u32, k: usize, fp4: bool) -> u32 {
    let half = if fp4 {
        // a, b: bytes 31..24 and 15..8; e, f: bytes 23..16 and 7..0.
        let (hi, lo) = if k < 2 {
            (rbits >> 24 & 0xff, rbits >> 8 & 0xff)
        } else {
            (rbits >> 16 & 0xff, rbits & 0xff)
        };
        hi << 8 | lo
    } else if k < 2 {
        rbits >> 16
    } else {
        rbits & 0xffff
    };
    if k % 2 == 0 {
        bitrev16(half)
    } else {
        half
    }
}

/// The format of a narrow type and the width of its packed element.
pub fn mini_of(t: ptx_ir_core::Type) -> Option<(Mini, u32)> {
    use ptx_ir_core::Type::*;
    Some(match t {
        E2m1x2 | E2m1x4 => (E2M1, 4),
        E2m3x2 | E2m3x4 => (E2M3, 8),
        E3m2x2 | E3m2x4 => (E3M2, 8),
        E4m3x2 | E4m3x4 => (E4M3, 8),
        E5m2x2 | E5m2x4 => (E5M2, 8),
        _ => return None,
    })
}

/// `f32` to `ue8m0` (`.rz` unless `up`).
pub fn to_ue8m0(x: u32, up: bool, satfinite: bool) -> u64 {
    let mag = x & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        return 0xff;
    }
    if mag == 0x7f80_0000 {
        return if satfinite { 0xfe } else { 0xff };
    }
    let exp = (mag >> 23) as u64;
    let frac = mag & 0x7f_ffff;
    // 2^-127 is the smallest code (0); a subnormal above it rounds up to code 1 under `.rp`.
    let above_min = mag > 0x0040_0000;
    let mut c = exp;
    if up && frac != 0 && above_min {
        c += 1;
    }
    if c >= 0xff {
        c = if satfinite { 0xfe } else { 0xff };
    }
    c
}

/// `bf16` to `ue8m0` (`.rz` unless `up`).
pub fn bf16_to_ue8m0(x: u32, up: bool, satfinite: bool) -> u64 {
    to_ue8m0((x & 0xffff) << 16, up, satfinite)
}

/// `ue8m0` to `bf16`.
pub fn ue8m0_to_bf16(c: u64) -> u64 {
    match c & 0xff {
        0xff => 0x7fff,
        0 => 0x0040,
        c => c << 7,
    }
}
