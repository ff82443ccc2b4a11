//! Operands of the block-scaled and narrow-format MMAs of sm_100/sm_120 (`mma` and
//! `tcgen05.mma` with `.kind::f8f6f4`, `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`):
//! element codes, scale factors and the model their dot products use. ISA-derived, not
//! hardware-checked (no sm_100 or sm_120 GPU here).
//!
//! - Elements (PTX ISA 9.7.14.5.14, 5.2.3): `.e4m3`/`.e5m2` are FP8; `.e3m2`/`.e2m3` (6-bit)
//!   and `.e2m1` (4-bit) have no infinity or NaN. With `.kind::f8f6f4` and `.kind::mxf8f6f4`
//!   each element has an 8-bit container: a 6-bit element in bits 5..0, an `e2m1` in bits 5..2
//!   ("the central 4 bits"); the padding bits are ignored. `.kind::mxf4`/`.mxf4nvf4` pack
//!   `e2m1` eight to a register.
//! - Scale factors (9.7.14.3): `.ue8m0` is `2^(c - 127)` with 0xff NaN; `.ue4m3` is an unsigned
//!   E4M3 in the low 7 bits of its byte (0x7f NaN); a set bit 7 is undefined.
//! - Products `(a * sa) * (b * sb)` are exact; the ISA states that accumulation is "at least
//!   single precision" and leaves order, rounding and subnormals unspecified. [`model`] is the
//!   block fused multiply-add measured for the f16/bf16 tensor-core path of the H100 (all K
//!   products and C aligned together 25 bits below the largest, truncated, one rounding toward
//!   zero to `f32`), applied over the whole K of the instruction. The tests cross-check it
//!   against an exact scalar reference.

use crate::float::Fmt;
use crate::narrow::{E2M1, E2M3, E3M2};
use crate::tc::{self, Input, Model};
use ptx_ir_core::Type;

/// The element code of `t` held in `raw`: an 8-bit container's payload (`container`), or a
/// packed code as is.
pub fn code(t: Type, raw: u64, container: bool) -> u64 {
    match (t, container) {
        (Type::E2m1, true) => (raw >> 2) & 0xf,
        (Type::E2m3 | Type::E3m2, true) => raw & 0x3f,
        (Type::E2m1, false) => raw & 0xf,
        _ => raw & 0xff,
    }
}

/// Element code `c` of type `t` as a dot-product input; `None` for a type these MMAs do not
/// take.
pub fn element(t: Type, c: u64) -> Option<Input> {
    Some(match t {
        Type::E4m3 => tc::input(c, Fmt::E4m3),
        Type::E5m2 => tc::input(c, Fmt::E5m2),
        Type::E2m1 => tc::input(E2M1.decode(c) as u64, Fmt::F32),
        Type::E2m3 => tc::input(E2M3.decode(c) as u64, Fmt::F32),
        Type::E3m2 => tc::input(E3M2.decode(c) as u64, Fmt::F32),
        _ => return None,
    })
}

/// A scale factor of type `st` (`.ue8m0` or `.ue4m3`) in byte `b`; `Err` names the rule a
/// `.ue4m3` with its top bit set breaks.
pub fn scale(st: Type, b: u8) -> Result<Input, String> {
    match st {
        Type::Ue8m0 => Ok(if b == 0xff {
            tc::input(0x7fff_ffff, Fmt::F32)
        } else if b == 0 {
            // 2^-127, an f32 subnormal.
            tc::input(0x0040_0000, Fmt::F32)
        } else {
            tc::input((b as u64) << 23, Fmt::F32)
        }),
        Type::Ue4m3 if b & 0x80 != 0 => Err(format!(
            "scale factor {b:#04x}: a .ue4m3 is 7 bits, its byte's top bit must be zero (PTX ISA 5.2.3)"
        )),
        Type::Ue4m3 => Ok(tc::input(b as u64, Fmt::E4m3)),
        _ => Err(format!("scale factors of .{} do not exist", st.as_str())),
    }
}

/// The dot-product model of these MMAs over `k` products (see the module documentation).
pub fn model(k: usize) -> Model {
    tc::model(Fmt::F16, Fmt::F32, k, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_scales() {
        // e2m1 6.0 = 0b0111 in the central bits of its container.
        assert_eq!(code(Type::E2m1, 0b0001_1100, true), 0b0111);
        assert_eq!(code(Type::E2m1, 0b1111_0111, false), 0b0111);
        assert_eq!(code(Type::E3m2, 0b1111_1111, true), 0x3f);
        let one = tc::input(1f32.to_bits() as u64, Fmt::F32);
        // Equal values, whatever their representation.
        let norm = |i: Input| tc::scaled(i, one);
        assert_eq!(norm(scale(Type::Ue8m0, 127).unwrap()), norm(one));
        assert_eq!(norm(scale(Type::Ue4m3, 0x38).unwrap()), norm(one));
        assert!(scale(Type::Ue4m3, 0xb8).is_err());
        assert_eq!(
            element(Type::E2m1, 0b0111).unwrap(),
            tc::input(6f32.to_bits() as u64, Fmt::F32)
        );
    }
}
