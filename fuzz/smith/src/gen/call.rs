//! The call family: calls of the generated device functions (direct, through a
//! `.callprototype` or a `.calltargets` list) and of the two recursive functions.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    /// A call of one of the program's device functions or of a recursive function; `None` when
    /// the program has no device function.
    pub(super) fn call_op(&self, u: &mut Unstructured) -> Result<Option<Operation>> {
        if self.funcs.is_empty() {
            return Ok(None);
        }
        let f = u.int_in_range(0..=self.funcs.len() - 1)?;
        let (ps, ret) = &self.funcs[f];
        let mut params = [Class::R; 3];
        params[..ps.len()].copy_from_slice(ps);
        // After a call that recursed to different depths per lane, the H100's CTA
        // barrier reductions count partial groups (a `barrier.red.popc` of a true
        // predicate over 64 threads gave 8, 24 and 32 in one CTA, with or without
        // `bar.warp.sync` or `.aligned`), so recursion stays out of kernels with barriers.
        let barriers = self.swarm.families.contains(&SimtFamily::Barrier)
            || self.swarm.families.contains(&SimtFamily::Mem);
        let op = if !barriers && u.ratio(1, 4)? {
            Operation::Rec {
                reg: u.arbitrary()?,
            }
        } else {
            Operation::Call {
                f: f as u8,
                n: ps.len() as u8,
                params,
                ret: *ret,
                via: *u.choose(&[Via::Direct, Via::Proto, Via::Targets])?,
            }
        };
        Ok(Some(op))
    }
}
