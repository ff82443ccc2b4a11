//! Tensor memory of a cluster's CTAs: the live allocations and the `.cta_group::2` requests
//! waiting for a peer. `exec/tmem.rs` executes the instructions and checks their rules.

use crate::code::FuncId;
use crate::error::Thread;

/// Columns of tensor memory per CTA.
pub const COLUMNS: u32 = 512;

/// One allocation.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// First column.
    pub col: u32,
    /// Columns.
    pub ncols: u32,
    /// The allocating instruction and thread, for messages.
    pub site: (FuncId, u32, Thread),
}

/// A CTA's tensor memory.
#[derive(Clone, Debug, Default)]
pub struct CtaTmem {
    /// Live allocations.
    pub allocs: Vec<Alloc>,
    /// `relinquish_alloc_permit` was executed.
    pub relinquished: bool,
    /// Columns of the last allocation (they must not increase).
    pub last: Option<u32>,
    /// The cells, `LANES` x `COLUMNS` 32-bit words lane by lane; empty until an instruction
    /// first reads or writes tensor memory.
    pub data: Vec<u32>,
}

/// Lanes of tensor memory per CTA.
pub const LANES: u32 = 128;

impl CtaTmem {
    /// Whether column `col` lies in a live allocation.
    pub fn allocated(&self, col: u32) -> bool {
        self.allocs
            .iter()
            .any(|a| a.col <= col && col < a.col + a.ncols)
    }

    /// The cells, made on first use.
    pub fn cells(&mut self) -> &mut Vec<u32> {
        if self.data.is_empty() {
            self.data = vec![0; (LANES * COLUMNS) as usize];
        }
        &mut self.data
    }
}

/// A `.cta_group::2` request waiting for the peer CTA's warp.
#[derive(Clone, Debug)]
pub struct PairReq {
    /// Requesting CTA rank.
    pub rank: u32,
    /// Requesting warp.
    pub warp: u32,
    /// The instruction's pc and function.
    pub at: (FuncId, u32),
    /// Columns.
    pub ncols: u32,
    /// For a deallocation: the column.
    pub dealloc: Option<u32>,
    /// Filled in by the peer: the column allocated (or freed).
    pub done: Option<u32>,
}
