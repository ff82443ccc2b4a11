//! The operations that take part in ptxas's contraction of `mul` with `add`/`sub` and in its
//! `neg` folds, with their float type (`.f32`, `.f64`, `.f16`, `.bf16`, `.f16x2`, `.bf16x2`):
//! the generator draws chains of them, the reference semantics (`ptx-ir-refsem`) decides which
//! ones fuse.

use super::op::Operation;
use super::types::Fop;
use ptx_ir_core::Type;

/// The sign bit(s) of a value of float type `t` (both halves of a packed pair).
pub fn sign_bits(t: Type) -> u64 {
    match t {
        Type::F16x2 | Type::Bf16x2 => 0x8000_8000,
        t => 1 << (t.bits().clamp(1, 64) - 1),
    }
}

/// The type of a single or double precision operation, if the format is one of those.
fn of_ft(ft: Type) -> Option<Type> {
    matches!(ft, Type::F32 | Type::F64).then_some(ft)
}

/// The type of a half-precision operation (the format, or its packed pair), if the format is a
/// half one.
fn of_half(hf: Type, x2: bool) -> Option<Type> {
    Some(match (hf, x2) {
        (Type::F16, false) => Type::F16,
        (Type::Bf16, false) => Type::Bf16,
        (Type::F16, true) => Type::F16x2,
        (Type::Bf16, true) => Type::Bf16x2,
        _ => return None,
    })
}

/// A `mul` without rounding modifier: its type, `.ftz` and `.sat`.
pub fn mul_of(op: &Operation) -> Option<(Type, bool, bool)> {
    match *op {
        Operation::Fbin {
            op: Fop::Mul,
            ft,
            rnd: None,
            ftz,
            sat,
        } => Some((of_ft(ft)?, ftz, sat)),
        Operation::Hbin {
            op: Fop::Mul,
            hf,
            x2,
            rn: false,
            ftz,
            sat,
        } => Some((of_half(hf, x2)?, ftz, sat)),
        _ => None,
    }
}

/// An `add`/`sub` without rounding modifier: its type, whether it is `sub`, `.ftz`, `.sat`.
pub fn add_of(op: &Operation) -> Option<(Type, bool, bool, bool)> {
    match *op {
        Operation::Fbin {
            op: op @ (Fop::Add | Fop::Sub),
            ft,
            rnd: None,
            ftz,
            sat,
        } => Some((of_ft(ft)?, op == Fop::Sub, ftz, sat)),
        Operation::Hbin {
            op: op @ (Fop::Add | Fop::Sub),
            hf,
            x2,
            rn: false,
            ftz,
            sat,
        } => Some((of_half(hf, x2)?, op == Fop::Sub, ftz, sat)),
        _ => None,
    }
}

/// A float `neg`: its type and `.ftz`.
pub fn neg_of(op: &Operation) -> Option<(Type, bool)> {
    match *op {
        Operation::Fneg { ft, ftz } => Some((of_ft(ft)?, ftz)),
        Operation::Hsign {
            abs: false,
            hf,
            x2,
            ftz,
        } => Some((of_half(hf, x2)?, ftz)),
        _ => None,
    }
}
