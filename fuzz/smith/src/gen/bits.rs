//! The bit-manipulation family: `popc`, `clz`, `brev`, `bfind`, `bfe`/`bfi`, `dp4a`/`dp2a`,
//! `prmt`, `bmsk`, `szext`, `fns`.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn bits_op(&self, u: &mut Unstructured) -> Result<Operation> {
        Ok(match u.int_in_range(0..=11u8)? {
            0 => Operation::Popc(*u.choose(&[32, 64])?),
            1 => Operation::Clz(*u.choose(&[32, 64])?),
            2 => Operation::Brev(*u.choose(&[32, 64])?),
            3 => Operation::Bfind {
                t: self.it(u, &[32, 64])?,
                shiftamt: u.arbitrary()?,
            },
            4 => Operation::Bfe(self.it(u, &[32, 64])?),
            5 => Operation::Bfi(*u.choose(&[32, 64])?),
            6 => Operation::Dp4a {
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            7 => Operation::Dp2a {
                hi: u.arbitrary()?,
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            8 => Operation::Prmt(*u.choose(&PRMT_MODES)?),
            9 => Operation::Bmsk {
                clamp: u.arbitrary()?,
            },
            10 => Operation::Szext {
                clamp: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            _ => Operation::Fns,
        })
    }
}
