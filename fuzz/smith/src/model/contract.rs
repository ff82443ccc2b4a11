//! The operations that take part in ptxas's contraction of `mul` with `add`/`sub` and in its
//! `neg` folds, with their float type ([`Fty`]): the generator draws chains of them, the
//! reference semantics (`ptx-ir-refsem`) decides which ones fuse.

use super::op::Operation;
use super::types::{Fop, Ft};
use ptx_ir_core::Type;

/// Float types that contract.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fty {
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.f16x2`
    F16x2,
    /// `.bf16x2`
    Bf16x2,
}
impl Fty {
    /// The sign bit(s) of a value of the type.
    pub fn signs(self) -> u64 {
        match self {
            Fty::F32 => 1 << 31,
            Fty::F64 => 1 << 63,
            Fty::F16 | Fty::Bf16 => 0x8000,
            Fty::F16x2 | Fty::Bf16x2 => 0x8000_8000,
        }
    }

    fn of_ft(ft: Ft) -> Fty {
        match ft {
            Ft::F32 => Fty::F32,
            Ft::F64 => Fty::F64,
        }
    }

    /// The type of a half-precision operation, if the format is a half one.
    fn of_half(hf: Type, x2: bool) -> Option<Fty> {
        Some(match (hf, x2) {
            (Type::F16, false) => Fty::F16,
            (Type::Bf16, false) => Fty::Bf16,
            (Type::F16, true) => Fty::F16x2,
            (Type::Bf16, true) => Fty::Bf16x2,
            _ => return None,
        })
    }
}

/// A `mul` without rounding modifier: its type, `.ftz` and `.sat`.
pub fn mul_of(op: &Operation) -> Option<(Fty, bool, bool)> {
    match *op {
        Operation::Fbin {
            op: Fop::Mul,
            ft,
            rnd: None,
            ftz,
            sat,
        } => Some((Fty::of_ft(ft), ftz, sat)),
        Operation::Hbin {
            op: Fop::Mul,
            hf,
            x2,
            rn: false,
            ftz,
            sat,
        } => Some((Fty::of_half(hf, x2)?, ftz, sat)),
        _ => None,
    }
}

/// An `add`/`sub` without rounding modifier: its type, whether it is `sub`, `.ftz`, `.sat`.
pub fn add_of(op: &Operation) -> Option<(Fty, bool, bool, bool)> {
    match *op {
        Operation::Fbin {
            op: op @ (Fop::Add | Fop::Sub),
            ft,
            rnd: None,
            ftz,
            sat,
        } => Some((Fty::of_ft(ft), op == Fop::Sub, ftz, sat)),
        Operation::Hbin {
            op: op @ (Fop::Add | Fop::Sub),
            hf,
            x2,
            rn: false,
            ftz,
            sat,
        } => Some((Fty::of_half(hf, x2)?, op == Fop::Sub, ftz, sat)),
        _ => None,
    }
}

/// A float `neg`: its type and `.ftz`.
pub fn neg_of(op: &Operation) -> Option<(Fty, bool)> {
    match *op {
        Operation::Fneg { ft, ftz } => Some((Fty::of_ft(ft), ftz)),
        Operation::Hsign {
            abs: false,
            hf,
            x2,
            ftz,
        } => Some((Fty::of_half(hf, x2)?, ftz)),
        _ => None,
    }
}
