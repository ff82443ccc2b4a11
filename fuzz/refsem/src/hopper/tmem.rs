//! The reference of the tensor-memory allocation family ([`ptx_ir_smith::hopper::tmem`]).
//!
//! The ISA fixes no placement, so the check is on invariants — every address has lane
//! 0 (bits 31..16) and a column range inside the 512 columns, and the column ranges of
//! allocations live at the same time do not overlap.

use super::le32;
use ptx_ir_smith::hopper::tmem::{Spec, Step, SLOTS};

/// Whether the addresses `got` (per CTA, slot k = allocation k) keep the invariants; `Err`
/// says which does not.
pub fn invariants(s: &Spec, got: &[u8]) -> Result<(), String> {
    for c in 0..s.grid as usize {
        let addr = |k: usize| le32(got, c * 4 * SLOTS + 4 * k);
        let mut live: Vec<(usize, u32, u32)> = Vec::new();
        let mut next = 0usize;
        for step in &s.steps {
            match *step {
                Step::Alloc(_, n) => {
                    let a = addr(next);
                    if a >> 16 != 0 {
                        return Err(format!(
                            "CTA {c}: allocation {next} has address {a:#x}, lane not 0"
                        ));
                    }
                    if a + n > 512 {
                        return Err(format!(
                            "CTA {c}: allocation {next} of {n} columns at column {a} passes column 512"
                        ));
                    }
                    if let Some(o) = live.iter().find(|o| a < o.1 + o.2 && o.1 < a + n) {
                        return Err(format!(
                            "CTA {c}: allocation {next} (columns {a}..{}) overlaps live allocation {} (columns {}..{})",
                            a + n,
                            o.0,
                            o.1,
                            o.1 + o.2
                        ));
                    }
                    live.push((next, a, n));
                    next += 1;
                }
                Step::Dealloc(_, k) => live.retain(|o| o.0 != k),
                Step::Relinquish(_) => {}
            }
        }
    }
    Ok(())
}
