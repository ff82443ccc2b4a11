//! The conversion family: `cvt` between integer and float types, and moves.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode};

/// The opcode and qualifiers of a conversion instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Cvt {
            d: dt,
            s: st,
            rnd,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            m.extend(rnd.map(Modifier::Rounding));
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(cvt_type(dt)));
            m.push(t(cvt_type(st)));
            (Cvt, m)
        }
        Operation::Mov(c) => (Mov, vec![t(class_type(c))]),
        _ => unreachable!("not a conversion operation: {:?}", op),
    }
}
