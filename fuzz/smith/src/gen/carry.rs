//! The extended-precision family: chains of `.cc` producers and `addc`/`subc`/`madc` consumers
//! of the carry flag.

use super::state::Gen;
use crate::model::*;
use arbitrary::{Result, Unstructured};

impl Gen<'_> {
    /// A chain of extended-precision instructions: a `.cc` producer, then one to three
    /// consumers of the carry flag (some of them `.cc` too), all of one type.
    pub(super) fn carry_chain(&mut self, u: &mut Unstructured) -> Result<Vec<Inst>> {
        let t = self.it(u, &[32, 64])?;
        let n = u.int_in_range(1..=3usize)?;
        let mut out = Vec::with_capacity(n + 1);
        for k in 0..=n {
            let cin = k > 0;
            // The producer writes the flag; consumers pass it on except, often, the last.
            let cout = k == 0 || (k < n || u.ratio(1, 3)?);
            let op = if u.ratio(1, 3)? {
                Operation::MadCc {
                    hi: u.arbitrary()?,
                    cin,
                    cout,
                    t,
                }
            } else {
                Operation::AddCc {
                    sub: u.arbitrary()?,
                    cin,
                    cout,
                    t,
                }
            };
            out.push(self.operands(u, op, SimtFamily::Carry)?);
        }
        Ok(out)
    }
}
