//! The barrier family's barriers: `bar.sync`/`barrier.sync{.aligned}` with barrier numbers and
//! thread counts, and `bar.red.popc`/`.and`/`.or` (the producer/consumer hand-off with
//! `bar.arrive` is a structure of [`super::Gen::program`]'s body).

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    /// A barrier of the barrier family.
    pub(super) fn barrier(&self, u: &mut Unstructured) -> Result<Bar> {
        let id = u.int_in_range(0..=15)?;
        Ok(match u.int_in_range(0..=3u8)? {
            0 => Bar::Sync,
            1 => {
                let barrier = u.arbitrary()?;
                Bar::SyncId {
                    id,
                    barrier,
                    aligned: barrier && u.arbitrary()?,
                    count: u.arbitrary()?,
                }
            }
            _ => {
                let op = *u.choose(&[BarRed::Popc, BarRed::And, BarRed::Or])?;
                let dc = if op == BarRed::Popc {
                    Class::R
                } else {
                    Class::P
                };
                Bar::Red {
                    op,
                    id,
                    d: u.int_in_range(0..=dc.count() - 1)?,
                    p: u.int_in_range(0..=Class::P.count() - 1)?,
                    neg: u.arbitrary()?,
                }
            }
        })
    }
}
