//! The reference semantics of the Hopper/Blackwell protocols (`ptx_ir_smith::hopper`): per
//! family, the output a kernel must leave, computed from its launch and the protocol as it runs
//! ([`ptx_ir_smith::hopper::Protocol::Trace`]) with a model written from the PTX ISA in plain
//! Rust (no code shared with `interp/`).
//!
//! | family | module |
//! | --- | --- |
//! | `cp.async` | [`copy`]: the copies as `memcpy` with zero fill, in program order |
//! | `cp.async.bulk`, `cp.reduce.async.bulk` | [`bulk`]: array copies and element-wise reductions |
//! | `mbarrier` | [`mbar`]: the mbarrier's state machine (pending count, tx-count, phase) |
//! | clusters | [`cluster`]: an array per CTA, the cluster special registers, `elect.sync` |
//! | `ldmatrix`, `stmatrix`, `movmatrix`, integer `mma.sync` | [`matrix`]: the fragment layouts as index formulas |
//! | floating-point `mma.sync` | [`fmma`], with the tensor-core arithmetic of [`tcref`] |
//! | `wgmma.mma_async` | [`wgmma`]: the canonical shared-memory layouts, with [`tcref`] |
//! | multicast and CTA-to-CTA copies | [`mcast`]: a shared array per CTA |
//! | `tcgen05.alloc` | [`tmem`]: invariants of the addresses (the ISA fixes no placement) |
//! | `clusterlaunchcontrol` | [`clc`]: every work item done exactly once |
//! | tile-mode tensor copies | [`tensor`]: box traversal, swizzle, fill and reductions |

pub mod bulk;
pub mod clc;
pub mod cluster;
pub mod copy;
pub mod fmma;
pub mod matrix;
pub mod mbar;
pub mod mcast;
pub mod tcref;
pub mod tensor;
pub mod tmem;
pub mod wgmma;

use ptx_ir_smith::hopper::{Launch, Protocol};

/// What a kernel's output buffer must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The output buffer.
    pub expected: Vec<u8>,
    /// Which bytes of `expected` the reference knows (the rest are not compared).
    pub known: Vec<bool>,
}

impl Answer {
    /// An answer the reference knows whole.
    pub fn known(expected: Vec<u8>) -> Answer {
        let n = expected.len();
        Answer {
            expected,
            known: vec![true; n],
        }
    }
}

/// A protocol's reference semantics.
pub trait Reference: Protocol {
    /// The output `launch` must leave, with the protocol run as `trace` says.
    fn answer(&self, launch: &Launch, trace: &Self::Trace) -> Answer;
}

/// Little-endian u32 of `b` at `at`.
pub fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Writes `v` little-endian at `at`.
pub fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
