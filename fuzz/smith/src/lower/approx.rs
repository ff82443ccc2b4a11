//! The approximate functions: `sin`, `cos`, `ex2`, `lg2`, `rcp`, `sqrt`, `rsqrt`, `tanh`,
//! `div` (`.approx` or `.full`).

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Type};

/// The opcode and qualifiers of an approximate-function instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Approx { kind, ftz } => {
            let opc = match kind {
                Approx::Sin => Sin,
                Approx::Cos => Cos,
                Approx::Ex2 => Ex2,
                Approx::Lg2 => Lg2,
                Approx::Rcp => Rcp,
                Approx::Sqrt => Sqrt,
                Approx::Rsqrt => Rsqrt,
                Approx::Tanh => Tanh,
                Approx::Div | Approx::DivFull => Div,
            };
            let mut m = vec![f(if kind == Approx::DivFull {
                Flag::Full
            } else {
                Flag::Approx
            })];
            if ftz && kind != Approx::Tanh {
                m.push(f(Flag::Ftz));
            }
            m.push(t(Type::F32));
            (opc, m)
        }
        _ => unreachable!("not a approximate-function operation: {:?}", op),
    }
}
