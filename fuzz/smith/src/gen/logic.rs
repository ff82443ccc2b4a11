//! The logic family: `and`/`or`/`xor`/`not`/`cnot`, `lop3`, shifts and funnel shifts.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn logic_op(&self, u: &mut Unstructured) -> Result<Op> {
        let lc = *u.choose(&[Class::P, Class::H, Class::R, Class::D])?;
        let bc = *u.choose(&[Class::H, Class::R, Class::D])?;
        Ok(match u.int_in_range(0..=8u8)? {
            0 => Op::And(lc),
            1 => Op::Or(lc),
            2 => Op::Xor(lc),
            3 => Op::Not(lc),
            4 => Op::Cnot(bc),
            5 => Op::Lop3(u.arbitrary()?),
            6 => Op::Shf {
                left: u.arbitrary()?,
                clamp: u.arbitrary()?,
            },
            7 => Op::Shl(bc),
            _ => Op::Shr(self.it(u, &[16, 32, 64])?),
        })
    }
}
