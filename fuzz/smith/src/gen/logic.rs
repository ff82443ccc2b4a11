//! The logic family: `and`/`or`/`xor`/`not`/`cnot`, `lop3`, shifts and funnel shifts.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn logic_op(&self, u: &mut Unstructured) -> Result<Operation> {
        let lc = *u.choose(&[Class::P, Class::H, Class::R, Class::D])?;
        let bc = *u.choose(&[Class::H, Class::R, Class::D])?;
        Ok(match u.int_in_range(0..=8u8)? {
            0 => Operation::And(lc),
            1 => Operation::Or(lc),
            2 => Operation::Xor(lc),
            3 => Operation::Not(lc),
            4 => Operation::Cnot(bc),
            5 => Operation::Lop3(u.arbitrary()?),
            6 => Operation::Shf {
                left: u.arbitrary()?,
                clamp: u.arbitrary()?,
            },
            7 => Operation::Shl(bc),
            _ => Operation::Shr(self.it(u, &[16, 32, 64])?),
        })
    }
}
