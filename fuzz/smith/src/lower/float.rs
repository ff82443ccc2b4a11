//! The single- and double-precision family: `add`/`sub`/`mul`/`div`, `fma`/`mad`, `rcp`,
//! `sqrt`, `abs`/`neg`, `min`/`max`, `copysign`, `testp`.

use super::emit::*;
use crate::model::*;
use ptx_ir_core::{Flag, Modifier, Opcode};

/// The opcode and qualifiers of a float instruction
/// ([`super::flow::inst`] dispatches here by operation; the operands are the generic ones).
pub(super) fn lower(op: Op) -> (Opcode, Vec<Modifier>) {
    use Opcode::*;
    match op {
        Op::Fbin {
            op,
            ft,
            rnd,
            ftz,
            sat,
        } => {
            let mut m = vec![];
            if let Some(r) = rnd {
                m.push(Modifier::Rounding(rounding(r)));
            }
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft_type(ft)));
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
        Op::Fma {
            ft,
            rnd,
            ftz,
            sat,
            mad,
        } => {
            let mut m = vec![Modifier::Rounding(rounding(rnd))];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            if sat {
                m.push(f(Flag::Sat));
            }
            m.push(t(ft_type(ft)));
            (if mad { Mad } else { Fma }, m)
        }
        Op::Rcp { ft, rnd, ftz } | Op::Sqrt { ft, rnd, ftz } => {
            let mut m = vec![Modifier::Rounding(rounding(rnd))];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft_type(ft)));
            (
                if matches!(op, Op::Rcp { .. }) {
                    Rcp
                } else {
                    Sqrt
                },
                m,
            )
        }
        Op::Fabs { ft, ftz } | Op::Fneg { ft, ftz } => {
            let mut m = vec![];
            if ftz {
                m.push(f(Flag::Ftz));
            }
            m.push(t(ft_type(ft)));
            (
                if matches!(op, Op::Fabs { .. }) {
                    Abs
                } else {
                    Neg
                },
                m,
            )
        }
        Op::Fminmax {
            ft,
            max,
            ftz,
            nan,
            xorsign,
        } => {
            let mut m = minmax_mods(ftz, nan, xorsign);
            m.push(t(ft_type(ft)));
            (if max { Max } else { Min }, m)
        }
        Op::Copysign(ft) => (Copysign, vec![t(ft_type(ft))]),
        Op::Testp { ft, class } => (
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
                t(ft_type(ft)),
            ],
        ),
        _ => unreachable!("not a float operation: {:?}", op),
    }
}
