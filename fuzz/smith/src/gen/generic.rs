//! The generic-addressing family: `cvta` to and from the state spaces, `isspacep`, and the
//! memory family's loads, stores and atomics through generic addresses.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn generic_op(&self, u: &mut Unstructured) -> Result<Operation> {
        const PTRS: &[Win] = &[Win::Global, Win::Shared, Win::Local, Win::Const, Win::Param];
        Ok(match u.int_in_range(0..=5u8)? {
            0..=2 => self.mem_op(u, true)?,
            3 | 4 => Operation::Isspacep {
                space: *u.choose(&[
                    Win::Global,
                    Win::Shared,
                    Win::SharedCta,
                    Win::SharedCluster,
                    Win::Local,
                    Win::Const,
                    Win::Param,
                ])?,
                ptr: *u.choose(PTRS)?,
            },
            _ => Operation::CvtaRound {
                space: *u.choose(&[
                    Win::Global,
                    Win::Shared,
                    Win::SharedCta,
                    Win::SharedCluster,
                    Win::Local,
                    Win::Const,
                    Win::Param,
                ])?,
            },
        })
    }
}
