//! The generators of `ptx-ir`'s fuzz oracles (`ptx-ir-oracles`): they draw test kernels from
//! fuzzer bytes, and know nothing of the answers (the reference semantics, `ptx-ir-refsem`,
//! computes those; the oracles compare them with the interpreter's).
//!
//! | module | generates |
//! | --- | --- |
//! | [`model`] | the typed program model: registers, operations, structured bodies, [`model::Program`] |
//! | [`gen`] | [`gen::Gen`]: well-defined SIMT programs under a swarm configuration, one file per family |
//! | [`lower`] | a program's kernel, built through the IR builder (`ptx_ir_core::build`: each instruction checked against the instruction table), and its input buffer |
//! | [`hopper`] | the Hopper/Blackwell protocols (asynchronous and bulk copies, mbarriers, clusters, matrix instructions, tensor memory, cluster launch control), one file per family, built through the IR builder like the SIMT kernels and printed as PTX text |
//!
//! The same bytes always give the same kernels: GPU batches recorded from these generators
//! (`corpus/fuzzhw/`) stay comparable with a later run.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod gen;
pub mod hopper;
pub mod lower;
pub mod model;

/// A deterministic byte source (xorshift64*), so that smoke runs are reproducible and short
/// fuzzer inputs can be expanded into long buffers.
#[derive(Clone, Debug)]
pub struct Bytes {
    state: u64,
}

impl Bytes {
    /// A source seeded with `seed` (any value; zero is replaced).
    pub fn new(seed: u64) -> Bytes {
        Bytes {
            state: seed.max(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` random bytes.
    pub fn fill(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}
