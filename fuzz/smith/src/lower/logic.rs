//! The logic family: `and`/`or`/`xor`/`not`/`cnot`, `lop3`, shifts and funnel shifts.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Operand, Type};

/// The opcode and qualifiers of a logic instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(op: Operation, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::And(c) => (And, vec![t(class_type(c))]),
        Operation::Or(c) => (Or, vec![t(class_type(c))]),
        Operation::Xor(c) => (Xor, vec![t(class_type(c))]),
        Operation::Not(c) => (Not, vec![t(class_type(c))]),
        Operation::Cnot(c) => (Cnot, vec![t(class_type(c))]),
        Operation::Lop3(lut) => {
            cx.srcs.push(Operand::Int(lut as i64));
            (Lop3, vec![t(Type::B32)])
        }
        Operation::Shf { left, clamp } => (
            Shf,
            vec![
                f(if left { Flag::L } else { Flag::R }),
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(Type::B32),
            ],
        ),
        Operation::Shl(c) => (Shl, vec![t(class_type(c))]),
        Operation::Shr(x) => (Shr, vec![t(it_type(x))]),
        _ => unreachable!("not a logic operation: {:?}", op),
    }
}
