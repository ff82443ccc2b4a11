//! The warp family: `shfl.sync`, `vote.sync`, `redux.sync`, `match.sync`, `activemask` and
//! `bar.warp.sync`, with the region's lanes as membermask.

use super::state::{Gen, Region};
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn warp_op(&self, u: &mut Unstructured, r: Region) -> Result<Operation> {
        // `shfl` reads other lanes: only where every lane is active.
        let k = if r.full {
            u.int_in_range(0..=6u8)?
        } else {
            u.int_in_range(2..=6u8)?
        };
        Ok(match k {
            0 | 1 => Operation::Shfl {
                mode: *u.choose(&SHFL_MODES)?,
                c: {
                    let clamp: u32 = u.int_in_range(0..=31)?;
                    let seg: u32 = *u.choose(&[0, 0x10, 0x18, 0x1c, 0x1e, 0x1f])?;
                    (seg << 8) | clamp
                },
            },
            2 => Operation::Vote {
                mode: *u.choose(&VOTE_MODES)?,
            },
            3 => Operation::Redux {
                op: *u.choose(&REDUX_OPS)?,
                signed: u.arbitrary()?,
            },
            4 => Operation::Match {
                all: u.arbitrary()?,
                wide: u.arbitrary()?,
            },
            5 => Operation::Activemask,
            _ => Operation::WarpSync,
        })
    }
}
