//! The comparison family: `setp`/`set` with boolean combinations, `selp`, `slct`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Type};

/// The opcode and qualifiers of a comparison instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Setp {
            cmp,
            lohi,
            t: ct,
            bop,
            ftz,
        } => {
            let mut m = vec![cmp_mod(cmp, lohi)];
            if let Some(o) = bop {
                m.push(Modifier::Op(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(cmp_type(ct)));
            (Setp, m)
        }
        Operation::Set {
            cmp,
            t: ct,
            d: dt,
            bop,
            ftz,
        } => {
            let mut m = vec![cmp_mod(cmp, false)];
            if let Some(o) = bop {
                m.push(Modifier::Op(o));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(dt));
            m.push(t(cmp_type(ct)));
            (Set, m)
        }
        Operation::Selp(c) => (Selp, vec![t(class_type(c))]),
        Operation::Slct(c) => (Slct, vec![t(class_type(c)), t(Type::S32)]),
        _ => unreachable!("not a comparison operation: {:?}", op),
    }
}
