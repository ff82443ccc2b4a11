//! The generic-addressing family's own instructions: `isspacep` of a generic address made with
//! `cvta`, and a `cvta` round trip.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode, Operand, Space, Type};

/// The opcode and qualifiers of a generic-addressing instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(b: &mut B, i: &Inst, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match i.op {
        Operation::Isspacep { space, ptr } => {
            let tg1 = b.r("%tg1");
            win_base(b, ptr, &tg1);
            b.e(
                Cvta,
                vec![Modifier::Space(win_space(ptr)), t(Type::U64)],
                vec![tg1.clone(), tg1.clone()],
            );
            cx.srcs = vec![tg1];
            (Isspacep, vec![Modifier::Space(win_space(space))])
        }
        Operation::CvtaRound { space } => {
            let (tg0, tg1) = (b.r("%tg0"), b.r("%tg1"));
            win_base(b, space, &tg0);
            let sp = Modifier::Space(win_space(space));
            b.e(Cvta, vec![sp, t(Type::U64)], vec![tg1.clone(), tg0.clone()]);
            b.e(
                Cvta,
                vec![f(Flag::To), sp, t(Type::U64)],
                vec![tg1.clone(), tg1.clone()],
            );
            b.e(Sub, vec![t(Type::S64)], vec![tg1.clone(), tg1.clone(), tg0]);
            cx.srcs.push(tg1);
            (Add, vec![t(Type::S64)])
        }
        _ => unreachable!("not a generic-addressing operation: {:?}", i.op),
    }
}

fn win_space(w: Win) -> Space {
    match w {
        Win::Global => Space::Global,
        Win::Shared => Space::Shared,
        Win::SharedCta => Space::SharedCta,
        Win::SharedCluster => Space::SharedCluster,
        Win::Local => Space::Local,
        Win::Const => Space::Const,
        Win::Param => Space::Param,
    }
}

/// Moves into `d` the thread's own address in `w`'s space: its shared slot (`%tm0`), its
/// global scratch word (`%tm1`), the `.local` array `lmem`, the module's `.const` array `cdata`
/// or the kernel parameter `in`.
fn win_base(b: &mut B, w: Win, d: &Operand) {
    let src = match w {
        Win::Global => b.r("%tm1"),
        Win::Local => b.r("lmem"),
        Win::Const => b.r("cdata"),
        Win::Param => b.r("in"),
        _ => b.r("%tm0"),
    };
    b.e(Opcode::Mov, vec![t(Type::U64)], vec![d.clone(), src]);
}
