//! The Hopper/Blackwell protocol generators: one file per family.
//!
//! The SIMT generator ([`crate::gen`]) draws straight-line arithmetic over a register file; the
//! asynchronous and cluster instructions need protocols instead (a copy must be waited for
//! before its destination is read, an mbarrier phase must be observed before the next arrive, a
//! cluster barrier separates a remote store from the load that reads it). So each family here
//! draws a *protocol* — a list of steps that is well defined by construction — and builds it as a
//! kernel for `sm_90a` ([`Protocol::build`]), together with the protocol as the kernel runs it
//! (the steps the builder kept, with the launch shape: [`Protocol::Trace`]), from which the
//! reference semantics (`ptx-ir-refsem`) computes the output.
//!
//! Kernels are built through the IR builder ([`ptx_ir_core::build`]), like the SIMT generator's
//! ([`crate::lower`]): [`kernel::kernel`] makes the module, the common prologue, the scratch
//! registers and the epilogues ([`kernel::K`]), and each family builds its instructions with the
//! builder's per-opcode methods, so that every instruction is checked against the instruction
//! table and every name it uses is declared. [`Launch::text`] is the built module as the printer
//! writes it (`ptx_ir_text::print`): reading it back gives the same module.
//!
//! | family | module |
//! | --- | --- |
//! | `cp.async` with groups and `cp.async.mbarrier.arrive` | [`copy`] |
//! | `cp.async.bulk`, `cp.reduce.async.bulk` | [`bulk`] |
//! | `mbarrier` phase sequences | [`mbar`] |
//! | clusters, distributed shared memory, `elect.sync` | [`cluster`] |
//! | `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync` | [`matrix`] |
//! | floating-point `mma.sync` | [`fmma`] (operand values: [`values`]) |
//! | `wgmma.mma_async` | [`wgmma`] |
//! | multicast and CTA-to-CTA `cp.async.bulk` in a cluster | [`mcast`] |
//! | `tcgen05.alloc`, `dealloc`, `relinquish_alloc_permit` (`sm_100a`) | [`tmem`] |
//! | `clusterlaunchcontrol` work stealing (`sm_100a`) | [`clc`] |
//! | tile-mode `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor` | [`tensor`] |
//!
//! Every kernel has the signature `k(.param .u64 pin, .param .u64 pout)` (tensor kernels add
//! their tensor maps): a random input buffer and a zeroed output buffer ([`Launch`]).

pub mod bulk;
pub mod clc;
pub mod cluster;
pub mod copy;
pub mod fmma;
pub mod kernel;
pub mod matrix;
pub mod mbar;
pub mod mcast;
pub mod tensor;
pub mod tmem;
pub mod values;
pub mod wgmma;

use arbitrary::Unstructured;

/// A generated kernel and its launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The PTX module text (entry `k`): the built module, printed.
    pub text: String,
    /// CTAs in the grid (x only; clusters come from `.reqnctapercluster` in the text).
    pub grid: u32,
    /// Threads per CTA (x only).
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// Bytes of the zeroed output buffer.
    pub out_len: usize,
    /// Tensor-map arguments after the two buffers (`ptx run --arg tmap:DESC`, `buf=0` the
    /// input, `buf=1` the output); empty for kernels without tensor maps.
    pub tmaps: Vec<String>,
}

impl Launch {
    /// A launch without tensor maps.
    pub fn new(text: String, grid: u32, block: u32, input: Vec<u8>, out_len: usize) -> Launch {
        Launch {
            text,
            grid,
            block,
            input,
            out_len,
            tmaps: Vec::new(),
        }
    }
}

/// A generated protocol of one family: it builds as a kernel and can be made smaller.
pub trait Protocol: Clone + std::fmt::Debug {
    /// The protocol as the kernel runs it: the steps the builder kept (it leaves out a step
    /// that would break a rule, or one that finds no result slot), in order, with what they
    /// resolved to. The reference semantics computes the output from it.
    type Trace;
    /// The kernel and its trace.
    fn build(&self) -> (Launch, Self::Trace);
    /// Candidate protocols one step smaller (for shrinking); each must still be well defined.
    fn smaller(&self) -> Vec<Self>;
}

/// The families of the Hopper/Blackwell protocols.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProtocolFamily {
    /// `cp.async` (non-bulk).
    Async,
    /// Bulk copies and reductions.
    Bulk,
    /// mbarrier phases.
    Mbarrier,
    /// Clusters and distributed shared memory.
    Cluster,
    /// Matrix load/store/transpose and `mma.sync`.
    Matrix,
    /// Floating-point `mma.sync`.
    Fmma,
    /// `wgmma.mma_async`.
    Wgmma,
    /// Tile-mode tensor copies over launch-supplied tensor maps.
    Tensor,
    /// Multicast and CTA-to-CTA bulk copies in a cluster.
    Multicast,
    /// Tensor-memory allocation.
    Tmem,
    /// Cluster launch control work stealing.
    Clc,
}

impl ProtocolFamily {
    /// Every family.
    pub const ALL: [ProtocolFamily; 11] = [
        ProtocolFamily::Async,
        ProtocolFamily::Bulk,
        ProtocolFamily::Mbarrier,
        ProtocolFamily::Cluster,
        ProtocolFamily::Matrix,
        ProtocolFamily::Fmma,
        ProtocolFamily::Wgmma,
        ProtocolFamily::Tensor,
        ProtocolFamily::Multicast,
        ProtocolFamily::Tmem,
        ProtocolFamily::Clc,
    ];
}

/// `spec` with each of its `n` steps removed in turn (`remove(spec, k)` removes step `k`): the
/// shrinking candidates most protocols start from.
pub(crate) fn drop_each<S: Clone>(spec: &S, n: usize, remove: impl Fn(&mut S, usize)) -> Vec<S> {
    (0..n)
        .map(|k| {
            let mut s = spec.clone();
            remove(&mut s, k);
            s
        })
        .collect()
}

/// `n` input bytes: expanded from a seed drawn from `u`, so that short fuzzer inputs still give
/// a full buffer of varied data; some words are made small (counts and bounds near zero).
pub fn input(u: &mut Unstructured, n: usize) -> arbitrary::Result<Vec<u8>> {
    let mut src = crate::Bytes::new(u.arbitrary()?);
    let mut v = src.fill(n);
    for w in v.chunks_exact_mut(4) {
        if src.next_u64() % 4 == 0 {
            let x = (src.next_u64() % 16) as u32;
            w.copy_from_slice(&x.to_le_bytes());
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` kernels of protocol `P` (and of each of their smaller candidates) read back as
    /// PTX, and print again as the same text (the text is the built module as the printer
    /// writes it); returns how many were drawn.
    fn reads_back<P: Protocol>(
        seed: u64,
        n: usize,
        arbitrary: fn(&mut Unstructured) -> arbitrary::Result<P>,
    ) -> usize {
        let mut src = crate::Bytes::new(seed);
        let mut drawn = 0;
        for _ in 0..n {
            let data = src.fill(2048);
            let Ok(p) = arbitrary(&mut Unstructured::new(&data)) else {
                continue;
            };
            drawn += 1;
            for q in std::iter::once(p.clone()).chain(p.smaller()) {
                let (l, _) = q.build();
                match ptx_ir_text::parse(&l.text) {
                    Ok(m) => assert_eq!(ptx_ir_text::print(&m), l.text),
                    Err(e) => panic!("{e}\n{}", l.text),
                }
                assert!(l.out_len > 0 && l.grid > 0 && l.block > 0);
            }
        }
        drawn
    }

    /// Every family's protocols, and the candidates the shrinker tries, print kernels the
    /// reader accepts.
    #[test]
    fn every_family_reads_back() {
        let counts = [
            reads_back(1, 30, copy::Spec::arbitrary),
            reads_back(2, 30, bulk::Spec::arbitrary),
            reads_back(3, 30, mbar::Spec::arbitrary),
            reads_back(4, 30, cluster::Spec::arbitrary),
            reads_back(5, 30, matrix::Spec::arbitrary),
            reads_back(6, 30, fmma::Spec::arbitrary),
            reads_back(7, 30, wgmma::Spec::arbitrary),
            reads_back(8, 30, tensor::Spec::arbitrary),
            reads_back(9, 30, mcast::Spec::arbitrary),
            reads_back(10, 30, clc::Spec::arbitrary),
        ];
        assert!(counts.iter().all(|&n| n >= 20), "{counts:?}");
        let mut src = crate::Bytes::new(11);
        for _ in 0..30 {
            let data = src.fill(2048);
            if let Ok(s) = tmem::Spec::arbitrary(&mut Unstructured::new(&data)) {
                let (l, _) = s.build();
                let m = ptx_ir_text::parse(&l.text).expect("a tcgen05 kernel reads back");
                assert_eq!(ptx_ir_text::print(&m), l.text);
            }
        }
    }
}
