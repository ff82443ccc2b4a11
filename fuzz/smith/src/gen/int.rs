//! The integer family: `add`/`sub` (`.sat`), `mul`/`mad` (`.lo`/`.hi`/`.wide`, 24-bit),
//! `sad`, `div`/`rem`, `abs`/`neg`, `min`/`max` (`.relu`).

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn int_op(&self, u: &mut Unstructured) -> Result<Operation> {
        const ALL: &[u8] = &[16, 32, 64];
        Ok(match u.int_in_range(0..=19u8)? {
            0 => Operation::Add(self.it(u, ALL)?),
            1 => Operation::Sub(self.it(u, ALL)?),
            2 => Operation::AddSat(u.arbitrary()?),
            3 => Operation::MulLo(self.it(u, ALL)?),
            4 => Operation::MulHi(self.it(u, ALL)?),
            5 => Operation::MulWide(self.it(u, &[16, 32])?),
            6 => Operation::MadLo(self.it(u, ALL)?),
            7 => Operation::MadHi(self.it(u, ALL)?),
            8 => Operation::MadWide(self.it(u, &[16, 32])?),
            9 => Operation::MadHiSat,
            10 => Operation::Mul24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            11 => Operation::Mad24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            12 => Operation::Sad(self.it(u, ALL)?),
            13 => Operation::Div(self.it(u, ALL)?),
            14 => Operation::Rem(self.it(u, ALL)?),
            15 => Operation::Abs(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            16 => Operation::Neg(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            17 => Operation::Min(self.it(u, ALL)?),
            18 => Operation::Max(self.it(u, ALL)?),
            _ => Operation::Relu {
                max: u.arbitrary()?,
            },
        })
    }
}
