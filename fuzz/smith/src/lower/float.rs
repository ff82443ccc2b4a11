//! The single- and double-precision family: `add`/`sub`/`mul`/`div`, `fma`/`mad`, `rcp`,
//! `sqrt`, `abs`/`neg`, `min`/`max`, `copysign`, `testp`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode};

/// The opcode and qualifiers of a float instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Operation) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Operation::Fbin {
            op,
            ft,
            rnd,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            if let Some(r) = rnd {
                m.push(Modifier::Rounding(r));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft));
            (
                match op {
                    Fop::Add => Add,
                    Fop::Sub => Sub,
                    Fop::Mul => Mul,
                    Fop::Div => Div,
                },
                m,
            )
        }
        Operation::Fma {
            ft,
            rnd,
            ftz,
            sat,
            mad,
        } => {
            let mut m = vec![Modifier::Rounding(rnd)];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft));
            (if mad { Mad } else { Fma }, m)
        }
        Operation::Rcp { ft, rnd, ftz } | Operation::Sqrt { ft, rnd, ftz } => {
            let mut m = vec![Modifier::Rounding(rnd)];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft));
            (
                if matches!(op, Operation::Rcp { .. }) {
                    Rcp
                } else {
                    Sqrt
                },
                m,
            )
        }
        Operation::Fabs { ft, ftz } | Operation::Fneg { ft, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft));
            (
                if matches!(op, Operation::Fabs { .. }) {
                    Abs
                } else {
                    Neg
                },
                m,
            )
        }
        Operation::Fminmax {
            ft,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let mut m = minmax_mods(ftz, nan, xorsign);
            m.push(t(ft));
            (if max { Max } else { Min }, m)
        }
        Operation::Copysign(ft) => (Copysign, vec![t(ft)]),
        Operation::Testp { ft, class } => (
            Testp,
            vec![
                f([
                    Flag::Finite,
                    Flag::Infinite,
                    Flag::Number,
                    Flag::NotANumber,
                    Flag::Normal,
                    Flag::Subnormal,
                ][class as usize % 6]),
                t(ft),
            ],
        ),
        _ => unreachable!("not a float operation: {:?}", op),
    }
}
