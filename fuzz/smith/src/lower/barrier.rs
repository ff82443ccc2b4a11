//! The barrier family's barriers: `bar.sync`/`barrier.sync{.aligned}` with barrier numbers and
//! thread counts, the producer/consumer `bar.arrive`, and `bar.red`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Cmp, Flag, Guard, Modifier, Op, Opcode, Operand, Type};

/// A CTA barrier. `bar.sync ID, COUNT` takes the CTA's size from `%ntid.x` (`%t2`).
pub(super) fn barrier(b: &mut B, k: Bar) {
    match k {
        Bar::Sync => b.e(Opcode::Bar, vec![f(Flag::Sync)], vec![Operand::Int(0)]),
        Bar::SyncId {
            id,
            barrier,
            aligned,
            count,
        } => {
            let mut m = vec![f(Flag::Sync)];
            if aligned {
                m.push(f(Flag::Aligned));
            }
            let mut ops = vec![Operand::Int(id as i64)];
            if count {
                ops.push(b.r("%t2"));
            }
            b.e(
                if barrier {
                    Opcode::Barrier
                } else {
                    Opcode::Bar
                },
                m,
                ops,
            );
        }
        Bar::Arrive { id } => {
            // The first warp arrives, the others wait; the count is the whole CTA.
            let tp0 = b.r("%tp0");
            let t0 = b.r("%t0");
            b.e(
                Opcode::Setp,
                vec![Modifier::Cmp(Cmp::Lt), t(Type::U32)],
                vec![tp0, t0, Operand::Int(32)],
            );
            let pred = b.name("%tp0");
            for (negated, flag) in [(false, Flag::Arrive), (true, Flag::Sync)] {
                let ntid = b.r("%t2");
                b.emit(
                    Some(Guard { pred, negated }),
                    Opcode::Bar,
                    vec![f(flag)],
                    vec![Operand::Int(id as i64), ntid],
                );
            }
        }
        Bar::Red { op, id, d, p, neg } => {
            let (m, ty, dc) = match op {
                BarRed::Popc => (Op::Popc, Type::U32, Class::R),
                BarRed::And => (Op::And, Type::Pred, Class::P),
                BarRed::Or => (Op::Or, Type::Pred, Class::P),
            };
            let d = b.reg(Reg { class: dc, idx: d });
            let pn = b.name(&format!("%p{p}"));
            let src = if neg {
                Operand::Not(pn)
            } else {
                Operand::reg(pn)
            };
            b.e(
                Opcode::Bar,
                vec![f(Flag::Red), Modifier::Op(m), t(ty)],
                vec![d, Operand::Int(id as i64), src],
            );
        }
    }
}
