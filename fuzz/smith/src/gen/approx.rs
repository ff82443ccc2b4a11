//! The approximate-function family (`sin`, `cos`, `ex2`, `lg2`, `rcp`, `sqrt`, `rsqrt`,
//! `tanh`, `div` in `.approx` or `.full`): checked three ways only, the reference knows no
//! answer for them.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    pub(super) fn approx_op(&self, u: &mut Unstructured) -> Result<Operation> {
        Ok(Operation::Approx {
            kind: *u.choose(&[
                Approx::Sin,
                Approx::Cos,
                Approx::Ex2,
                Approx::Lg2,
                Approx::Rcp,
                Approx::Sqrt,
                Approx::Rsqrt,
                Approx::Tanh,
                Approx::Div,
                Approx::DivFull,
            ])?,
            ftz: self.swarm.ftz && u.arbitrary()?,
        })
    }
}
