//! How an executed instruction moves its group on: what every handler returns to the
//! dispatcher (`step.rs`). A module of its own so that the handlers, which the dispatcher calls,
//! do not import the dispatcher.

use super::warp::{Group, Wait};
use smallvec::SmallVec;

/// How the executing group moves on.
pub enum Flow {
    /// Every lane to the next instruction.
    Next,
    /// Lanes in `taken` jump to `target`; the rest go on.
    Jump {
        /// Lanes that branch.
        taken: u32,
        /// Target pc.
        target: u32,
    },
    /// Lanes go to the given pcs; lanes not listed go on.
    Split(SmallVec<[(u32, u32); 4]>),
    /// The group is replaced by these (calls and returns).
    Groups(SmallVec<[Group; 2]>),
    /// These lanes exit; the rest go on.
    Exit(u32),
    /// The group waits here.
    Block(Wait),
    /// Guarded lanes arrive at a CTA barrier (and wait unless `arrive`); the rest go on.
    Barrier {
        /// Barrier number.
        id: u8,
        /// Thread count.
        count: Option<u32>,
        /// `bar.arrive`: do not wait.
        arrive: bool,
        /// Lanes whose `bar.red` predicate holds.
        preds: u32,
    },
    /// Guarded lanes arrive at the cluster barrier; the rest go on.
    ClusterArrive,
    /// The group waits for the cluster barrier's phase (if it has not completed already).
    ClusterWait,
    /// The instruction cannot complete yet; it runs again later (not counted as progress).
    Retry,
}
