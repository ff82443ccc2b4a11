//! The single- and double-precision family: `add`/`sub`/`mul`/`div`, `fma`/`mad`, `rcp`,
//! `sqrt`, `abs`/`neg`, `min`/`max` (`.NaN`, `.xorsign.abs`), `copysign`, `testp`.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::Type;

impl Gen<'_> {
    pub(super) fn float_op(&self, u: &mut Unstructured) -> Result<Operation> {
        let ft = self.ft(u)?;
        Ok(match u.int_in_range(0..=11u8)? {
            0..=3 => {
                let op = *u.choose(&[Fop::Add, Fop::Sub, Fop::Mul, Fop::Div])?;
                let rnd = if op == Fop::Div || u.ratio(3, 4)? {
                    Some(self.rnd(u)?)
                } else {
                    None
                };
                Operation::Fbin {
                    op,
                    ft,
                    rnd,
                    ftz: self.ftz(u, ft)?,
                    sat: op != Fop::Div && self.sat(u, ft)?,
                }
            }
            4 | 5 => Operation::Fma {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
                sat: self.sat(u, ft)?,
                mad: u.arbitrary()?,
            },
            6 => Operation::Rcp {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
            },
            7 => Operation::Sqrt {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
            },
            8 => {
                if u.arbitrary()? {
                    Operation::Fabs {
                        ft,
                        ftz: self.ftz(u, ft)?,
                    }
                } else {
                    Operation::Fneg {
                        ft,
                        ftz: self.ftz(u, ft)?,
                    }
                }
            }
            9 => {
                let f32 = ft == Type::F32;
                Operation::Fminmax {
                    ft,
                    max: u.arbitrary()?,
                    ftz: self.ftz(u, ft)?,
                    nan: f32 && u.arbitrary()?,
                    xorsign: f32 && u.ratio(1, 4)?,
                }
            }
            10 => Operation::Copysign(ft),
            _ => Operation::Testp {
                ft,
                class: u.int_in_range(0..=5)?,
            },
        })
    }
}
