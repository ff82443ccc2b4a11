//! The warp family: `shfl.sync`, `vote.sync`, `redux.sync`, `match.sync`, `activemask` and
//! `bar.warp.sync`, with the region's mask (`%m<depth>`) as membermask.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Op, Opcode, Operand, Type};

/// The opcode and qualifiers of a warp instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(b: &mut B, i: &Inst, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match i.op {
        Operation::Shfl { mode, c } => {
            cx.srcs.push(Operand::Int(c as i64));
            cx.srcs.push(mask_reg(b, cx.depth));
            (Shfl, vec![f(Flag::Sync), f(mode), t(Type::B32)])
        }
        Operation::Vote { mode, .. } => {
            cx.srcs.push(mask_reg(b, cx.depth));
            let ty = if mode == Flag::Ballot {
                Type::B32
            } else {
                Type::Pred
            };
            (Vote, vec![f(Flag::Sync), f(mode), t(ty)])
        }
        Operation::Redux { op, signed } => {
            cx.srcs.push(mask_reg(b, cx.depth));
            // The bitwise operations are untyped; the arithmetic ones signed or unsigned.
            let ty = match op {
                Op::And | Op::Or | Op::Xor => Type::B32,
                _ if signed => Type::S32,
                _ => Type::U32,
            };
            (Redux, vec![f(Flag::Sync), Modifier::Op(op), t(ty)])
        }
        Operation::Activemask => (Activemask, vec![t(Type::B32)]),
        Operation::WarpSync => {
            let m = mask_reg(b, cx.depth);
            b.e(BarWarpSync, vec![], vec![m]);
            (Mov, vec![t(Type::B32)])
        }
        Operation::Match { all, wide } => {
            cx.srcs.push(mask_reg(b, cx.depth));
            (
                Match,
                vec![
                    f(if all { Flag::All } else { Flag::Any }),
                    f(Flag::Sync),
                    t(if wide { Type::B64 } else { Type::B32 }),
                ],
            )
        }
        _ => unreachable!("not a warp operation: {:?}", i.op),
    }
}
