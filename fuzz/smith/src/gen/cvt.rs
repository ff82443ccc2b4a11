//! The conversion family: `cvt` between integer and float types with their roundings,
//! `.ftz` and `.sat`, and moves.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};
use ptx_ir_core::Type;

impl Gen<'_> {
    pub(super) fn cvt_op(&self, u: &mut Unstructured) -> Result<Operation> {
        const TYPES: &[CvtT] = &[
            CvtT::Int(8, false),
            CvtT::Int(8, true),
            CvtT::Int(16, false),
            CvtT::Int(16, true),
            CvtT::Int(32, false),
            CvtT::Int(32, true),
            CvtT::Int(64, false),
            CvtT::Int(64, true),
            CvtT::F(Type::F32),
            CvtT::F(Type::F64),
        ];
        if u.ratio(1, 8)? {
            return Ok(Operation::Mov(*u.choose(&Class::ALL)?));
        }
        let d = *u.choose(TYPES)?;
        let s = *u.choose(TYPES)?;
        let rnd = match (d, s) {
            (CvtT::Int(..), CvtT::F(_)) => Some(self.irnd(u)?),
            (CvtT::F(_), CvtT::Int(..)) => Some(self.rnd(u)?),
            (CvtT::F(Type::F32), CvtT::F(Type::F64)) => Some(self.rnd(u)?),
            (CvtT::F(a), CvtT::F(b)) if a == b => {
                if u.arbitrary()? {
                    Some(self.irnd(u)?)
                } else {
                    None
                }
            }
            _ => None,
        };
        let f32_involved = d == CvtT::F(Type::F32) || s == CvtT::F(Type::F32);
        let ftz = f32_involved && self.swarm.ftz && u.arbitrary()?;
        // `.sat` clamps a float result to [0, 1] and saturates an integer one; ptxas rejects
        // it on integer conversions that cannot overflow ("Illegal modifier").
        let can_sat = match (d, s) {
            (CvtT::Int(db, ds), CvtT::Int(sb, ss)) => {
                let fits = if ss {
                    ds && db >= sb
                } else {
                    db > sb || (!ds && db == sb)
                };
                !fits
            }
            _ => true,
        };
        let sat = can_sat && self.swarm.sat && u.ratio(1, 3)?;
        Ok(Operation::Cvt {
            d,
            s,
            rnd,
            ftz,
            sat,
        })
    }
}
