//! The integer family: `add`/`sub` (`.sat`), `mul`/`mad` (`.lo`/`.hi`/`.wide`, 24-bit),
//! `sad`, `div`/`rem`, `abs`/`neg`, `min`/`max` (`.relu`).

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn int_op(&self, u: &mut Unstructured) -> Result<Op> {
        const ALL: &[u8] = &[16, 32, 64];
        Ok(match u.int_in_range(0..=19u8)? {
            0 => Op::Add(self.it(u, ALL)?),
            1 => Op::Sub(self.it(u, ALL)?),
            2 => Op::AddSat(u.arbitrary()?),
            3 => Op::MulLo(self.it(u, ALL)?),
            4 => Op::MulHi(self.it(u, ALL)?),
            5 => Op::MulWide(self.it(u, &[16, 32])?),
            6 => Op::MadLo(self.it(u, ALL)?),
            7 => Op::MadHi(self.it(u, ALL)?),
            8 => Op::MadWide(self.it(u, &[16, 32])?),
            9 => Op::MadHiSat,
            10 => Op::Mul24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            11 => Op::Mad24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            12 => Op::Sad(self.it(u, ALL)?),
            13 => Op::Div(self.it(u, ALL)?),
            14 => Op::Rem(self.it(u, ALL)?),
            15 => Op::Abs(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            16 => Op::Neg(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            17 => Op::Min(self.it(u, ALL)?),
            18 => Op::Max(self.it(u, ALL)?),
            _ => Op::Relu {
                max: u.arbitrary()?,
            },
        })
    }
}
