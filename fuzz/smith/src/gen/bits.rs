//! The bit-manipulation family: `popc`, `clz`, `brev`, `bfind`, `bfe`/`bfi`, `dp4a`/`dp2a`,
//! `prmt`, `bmsk`, `szext`, `fns`.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn bits_op(&self, u: &mut Unstructured) -> Result<Op> {
        Ok(match u.int_in_range(0..=11u8)? {
            0 => Op::Popc(*u.choose(&[32, 64])?),
            1 => Op::Clz(*u.choose(&[32, 64])?),
            2 => Op::Brev(*u.choose(&[32, 64])?),
            3 => Op::Bfind {
                t: self.it(u, &[32, 64])?,
                shiftamt: u.arbitrary()?,
            },
            4 => Op::Bfe(self.it(u, &[32, 64])?),
            5 => Op::Bfi(*u.choose(&[32, 64])?),
            6 => Op::Dp4a {
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            7 => Op::Dp2a {
                hi: u.arbitrary()?,
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            8 => Op::Prmt(*u.choose(&[
                PrmtMode::Default,
                PrmtMode::F4e,
                PrmtMode::B4e,
                PrmtMode::Rc8,
                PrmtMode::Ecl,
                PrmtMode::Ecr,
                PrmtMode::Rc16,
            ])?),
            9 => Op::Bmsk {
                clamp: u.arbitrary()?,
            },
            10 => Op::Szext {
                clamp: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            _ => Op::Fns,
        })
    }
}
