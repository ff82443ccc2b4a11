//! The integer family: `add`/`sub` (`.sat`), `mul`/`mad` (`.lo`/`.hi`/`.wide`, 24-bit), `sad`,
//! `div`/`rem` (behind a guard that makes the divisor safe), `abs`/`neg`, `min`/`max` (`.relu`).

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Cmp, Flag, Modifier, Opcode, Operand, Type};

/// The opcode and qualifiers of an integer instruction; its operands in `cx` (the lowering of
/// [`super::flow::inst`] dispatches here by operation).
pub(super) fn lower(b: &mut B, i: &Inst, cx: &mut Parts) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match i.op {
        Operation::Add(x) => (Add, vec![t(it_type(x))]),
        Operation::Sub(x) => (Sub, vec![t(it_type(x))]),
        Operation::AddSat(sub) => (
            if sub { Sub } else { Add },
            vec![f(Flag::Sat), t(Type::S32)],
        ),
        Operation::MulLo(x) => (Mul, vec![f(Flag::Lo), t(it_type(x))]),
        Operation::MulHi(x) => (Mul, vec![f(Flag::Hi), t(it_type(x))]),
        Operation::MulWide(x) => (Mul, vec![f(Flag::Wide), t(it_type(x))]),
        Operation::MadLo(x) => (Mad, vec![f(Flag::Lo), t(it_type(x))]),
        Operation::MadHi(x) => (Mad, vec![f(Flag::Hi), t(it_type(x))]),
        Operation::MadWide(x) => (Mad, vec![f(Flag::Wide), t(it_type(x))]),
        Operation::MadHiSat => (Mad, vec![f(Flag::Hi), f(Flag::Sat), t(Type::S32)]),
        Operation::Mul24 { hi, signed } | Operation::Mad24 { hi, signed } => (
            if matches!(i.op, Operation::Mul24 { .. }) {
                Mul24
            } else {
                Mad24
            },
            vec![
                f(if hi { Flag::Hi } else { Flag::Lo }),
                t(if signed { Type::S32 } else { Type::U32 }),
            ],
        ),
        Operation::Sad(x) => (Sad, vec![t(it_type(x))]),
        Operation::Div(x) | Operation::Rem(x) => {
            // Guard the divisor: 0 -> 1 and, for signed types, -1 -> 1.
            let class = Class::int(x.bits);
            let bt = bits_type(x.bits as u32);
            let tg = b.r(guard_temp(class));
            let tp = b.r("%tp0");
            let dv = cx.srcs[1].clone();
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Eq), t(bt)],
                vec![tp.clone(), dv.clone(), Operand::Int(0)],
            );
            b.e(
                Selp,
                vec![t(bt)],
                vec![tg.clone(), Operand::Int(1), dv, tp.clone()],
            );
            if x.signed {
                let ones = int_imm(mask(x.bits as u32) as i128);
                b.e(
                    Setp,
                    vec![Modifier::Cmp(Cmp::Eq), t(bt)],
                    vec![tp.clone(), tg.clone(), ones],
                );
                b.e(
                    Selp,
                    vec![t(bt)],
                    vec![tg.clone(), Operand::Int(1), tg.clone(), tp],
                );
            }
            cx.srcs[1] = tg;
            (
                if matches!(i.op, Operation::Div(_)) {
                    Div
                } else {
                    Rem
                },
                vec![t(it_type(x))],
            )
        }
        Operation::Abs(x) => (Abs, vec![t(it_type(x))]),
        Operation::Neg(x) => (Neg, vec![t(it_type(x))]),
        Operation::Min(x) => (Min, vec![t(it_type(x))]),
        Operation::Max(x) => (Max, vec![t(it_type(x))]),
        Operation::Relu { max } => (
            if max { Max } else { Min },
            vec![f(Flag::Relu), t(Type::S32)],
        ),
        _ => unreachable!("not a integer operation: {:?}", i.op),
    }
}

/// The temporary register of `class` used by division guards.
fn guard_temp(class: Class) -> &'static str {
    match class {
        Class::H => "%th1",
        Class::R => "%t6",
        _ => "%td4",
    }
}
