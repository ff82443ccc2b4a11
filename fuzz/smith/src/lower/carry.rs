//! The extended-precision family: `add.cc`/`sub.cc`/`mad.cc` and `addc`/`subc`/`madc`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode};

/// The opcode and qualifiers of an extended-precision instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::AddCc {
            sub,
            cin,
            cout,
            t: x,
        } => {
            let mut m = vec![];
            if cout {
                m.push(f(Flag::Cc));
            }
            m.push(t(it_type(x)));
            let op = match (sub, cin) {
                (false, false) => Add,
                (false, true) => Addc,
                (true, false) => Sub,
                (true, true) => Subc,
            };
            (op, m)
        }
        Operation::MadCc {
            hi,
            cin,
            cout,
            t: x,
        } => {
            let mut m = vec![f(if hi { Flag::Hi } else { Flag::Lo })];
            if cout {
                m.push(f(Flag::Cc));
            }
            m.push(t(it_type(x)));
            (if cin { Madc } else { Mad }, m)
        }
        _ => unreachable!("not a extended-precision operation: {:?}", op),
    }
}
