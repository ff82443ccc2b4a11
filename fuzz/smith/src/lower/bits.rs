//! The bit-manipulation family: `popc`, `clz`, `brev`, `bfind`, `bfe`/`bfi`, `dp4a`/`dp2a`,
//! `prmt`, `bmsk`, `szext`, `fns`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Type};

/// The opcode and qualifiers of a bit-manipulation instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Popc(w) => (Popc, vec![t(bits_type(w as u32))]),
        Operation::Clz(w) => (Clz, vec![t(bits_type(w as u32))]),
        Operation::Brev(w) => (Brev, vec![t(bits_type(w as u32))]),
        Operation::Bfind { t: x, shiftamt } => {
            let mut m = vec![];
            if shiftamt {
                m.push(f(Flag::ShiftAmt));
            }
            m.push(t(it_type(x)));
            (Bfind, m)
        }
        Operation::Bfe(x) => (Bfe, vec![t(it_type(x))]),
        Operation::Bfi(w) => (Bfi, vec![t(bits_type(w as u32))]),
        Operation::Dp4a { sa, sb } => (
            Dp4a,
            vec![
                t(if sa { Type::S32 } else { Type::U32 }),
                t(if sb { Type::S32 } else { Type::U32 }),
            ],
        ),
        Operation::Dp2a { hi, sa, sb } => (
            Dp2a,
            vec![
                f(if hi { Flag::Hi } else { Flag::Lo }),
                t(if sa { Type::S32 } else { Type::U32 }),
                t(if sb { Type::S32 } else { Type::U32 }),
            ],
        ),
        Operation::Prmt(mode) => {
            let mut m = vec![t(Type::B32)];
            m.extend(mode.map(f));
            (Prmt, m)
        }
        Operation::Bmsk { clamp } => (
            Bmsk,
            vec![
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(Type::B32),
            ],
        ),
        Operation::Szext { clamp, signed } => (
            Szext,
            vec![
                f(if clamp { Flag::Clamp } else { Flag::Wrap }),
                t(if signed { Type::S32 } else { Type::U32 }),
            ],
        ),
        Operation::Fns => (Fns, vec![t(Type::B32)]),
        _ => unreachable!("not a bit-manipulation operation: {:?}", op),
    }
}
