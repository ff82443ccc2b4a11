//! The comparison family: `setp`/`set` with boolean combinations, `selp`, `slct`.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::Type;

impl Gen<'_> {
    pub(super) fn cmp_op(&self, u: &mut Unstructured) -> Result<Operation> {
        use ptx_ir_core::Cmp;
        let t = match u.int_in_range(0..=3u8)? {
            0 => CmpT::Bits(*u.choose(&[16, 32, 64])?),
            1 => CmpT::Int(self.it(u, &[16, 32, 64])?),
            _ => CmpT::F(self.ft(u)?),
        };
        let cmp = match t {
            CmpT::Bits(_) => *u.choose(&[Cmp::Eq, Cmp::Ne])?,
            CmpT::Int(it) if it.signed => {
                *u.choose(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])?
            }
            CmpT::Int(_) => *u.choose(&[
                Cmp::Eq,
                Cmp::Ne,
                Cmp::Lt,
                Cmp::Le,
                Cmp::Gt,
                Cmp::Ge,
                Cmp::Ls,
                Cmp::Hs,
            ])?,
            CmpT::F(_) => *u.choose(&[
                Cmp::Eq,
                Cmp::Ne,
                Cmp::Lt,
                Cmp::Le,
                Cmp::Gt,
                Cmp::Ge,
                Cmp::Equ,
                Cmp::Neu,
                Cmp::Ltu,
                Cmp::Leu,
                Cmp::Gtu,
                Cmp::Geu,
                Cmp::Num,
                Cmp::Nan,
            ])?,
        };
        let lohi = matches!(t, CmpT::Int(it) if !it.signed)
            && matches!(cmp, Cmp::Lt | Cmp::Gt)
            && u.arbitrary()?;
        let bop = if u.ratio(1, 3)? {
            Some(*u.choose(&BOOL_OPS)?)
        } else {
            None
        };
        let ftz = t == CmpT::F(Type::F32) && self.swarm.ftz && u.arbitrary()?;
        Ok(match u.int_in_range(0..=5u8)? {
            0..=2 => Operation::Setp {
                cmp,
                lohi,
                t,
                bop,
                ftz,
            },
            3 => {
                // `set` takes 32-bit comparisons' types only in some combinations; keep to
                // the integer and float forms every table line accepts.
                let d = *u.choose(&SET_TYPES)?;
                Operation::Set {
                    cmp,
                    t: match t {
                        CmpT::Bits(b) => CmpT::Bits(b),
                        other => other,
                    },
                    d,
                    bop,
                    ftz,
                }
            }
            4 => {
                Operation::Selp(*u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?)
            }
            _ => {
                Operation::Slct(*u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?)
            }
        })
    }
}
