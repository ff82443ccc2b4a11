//! A warp's `wgmma` state: the fence, the registers written since it, and the issued
//! operations with the registers they keep busy. Held by the warp (`exec/warp.rs`);
//! `exec/wgmma.rs` executes the instructions.

use super::inflight::OpId;
use std::collections::VecDeque;

/// One issued `wgmma.mma_async` of a warp.
#[derive(Clone, Debug)]
pub struct Pend {
    /// Register slots (at the call depth of the instruction) it keeps busy.
    pub slots: Vec<(usize, u32)>,
    /// Its pending shared-memory reads.
    pub op: Option<OpId>,
}

/// A warp's wgmma state.
#[derive(Clone, Debug, Default)]
pub struct WgState {
    /// A `wgmma.fence` has been executed.
    pub fenced: bool,
    /// Register slots written since the last `wgmma.fence`, by call depth.
    pub dirty: Vec<Vec<u64>>,
    /// Issued, not committed.
    pub uncommitted: Vec<Pend>,
    /// Committed groups, oldest first.
    pub groups: VecDeque<Vec<Pend>>,
    /// Slots of every pending operation.
    pub busy: Vec<(usize, u32)>,
}

impl WgState {
    /// Records a register write (after a fence).
    pub fn mark(&mut self, depth: usize, slot: u32, count: u32) {
        if self.dirty.len() <= depth {
            self.dirty.resize(depth + 1, Vec::new());
        }
        let d = &mut self.dirty[depth];
        for s in slot..slot + count {
            let s = crate::regs::dense(s);
            let (i, b) = (s as usize / 64, s % 64);
            if d.len() <= i {
                d.resize(i + 1, 0);
            }
            d[i] |= 1 << b;
        }
    }

    /// Whether a register slot was written since the last `wgmma.fence`.
    pub fn is_dirty(&self, depth: usize, slot: u32) -> bool {
        let slot = crate::regs::dense(slot);
        self.dirty
            .get(depth)
            .and_then(|d| d.get(slot as usize / 64))
            .is_some_and(|w| w >> (slot % 64) & 1 != 0)
    }

    /// Recomputes [`WgState::busy`] from the pending operations.
    pub fn recompute_busy(&mut self) {
        self.busy = self
            .uncommitted
            .iter()
            .chain(self.groups.iter().flatten())
            .flat_map(|p| p.slots.iter().copied())
            .collect();
        self.busy.sort_unstable();
        self.busy.dedup();
    }
}
