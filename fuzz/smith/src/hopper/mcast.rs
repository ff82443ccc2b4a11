//! Bulk copies between the CTAs of a cluster: `cp.async.bulk.shared::cluster.global
//! .mbarrier::complete_tx::bytes.multicast::cluster` with a random `ctaMask` (PTX ISA
//! 9.7.9.25.4.1: the same bytes land at the same offset in every CTA of the mask, each CTA's own
//! mbarrier at the same offset gets the complete-tx), and `cp.async.bulk.shared::cluster
//! .shared::cta` from one CTA's shared memory into another CTA's (destination and mbarrier
//! addresses from `mapa`; the mbarrier is the destination CTA's).
//!
//! The protocol runs in rounds, one copy per round: thread 0 of every CTA that receives bytes
//! arms its mbarrier with `arrive.expect_tx` of the size, the other CTAs arrive plainly, thread 0
//! of the issuing CTA issues the copy, every thread waits for its own mbarrier's phase and a
//! cluster barrier ends the round (so no two copies are in flight, and every CTA's mbarrier is
//! initialised before any copy signals it). Shared memory starts as a per-CTA window of the
//! input.
//!
//! Every drawn round runs: the trace is empty, the reference reads the rounds from the
//! [`Spec`].

use super::asm::Asm;
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;

/// Bytes of shared memory per CTA (dumped to the output, CTA after CTA).
pub const SMEM: u32 = 1024;
/// Distance between the input windows that initialise consecutive CTAs' shared memory.
pub const WINDOW: u32 = 256;
/// Bytes of the input buffer.
pub const IN: u32 = 16 * WINDOW + SMEM;

/// One round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// CTA `rank` multicasts input bytes `src..src+size` to offset `dst` of the CTAs in `mask`.
    Multicast {
        /// Issuing CTA (cluster rank).
        rank: u32,
        /// Destination CTAs (bit i = cluster rank i).
        mask: u16,
        /// Input offset.
        src: u32,
        /// Shared offset.
        dst: u32,
        /// Bytes.
        size: u32,
    },
    /// CTA `from` copies its shared bytes `src..src+size` to offset `dst` of CTA `to`.
    Remote {
        /// Source CTA.
        from: u32,
        /// Destination CTA (not `from`).
        to: u32,
        /// Source shared offset.
        src: u32,
        /// Destination shared offset.
        dst: u32,
        /// Bytes.
        size: u32,
    },
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs per cluster (2, 4 or 8).
    pub cluster: u32,
    /// Clusters in the grid.
    pub clusters: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The rounds.
    pub steps: Vec<Step>,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let cluster = *u.choose(&[2u32, 4, 8])?;
        let clusters = u.int_in_range(1..=2)?;
        let mut steps = Vec::new();
        for _ in 0..u.int_in_range(1..=6)? {
            let size = 16 * u.int_in_range(1..=16)?;
            let dst = 16 * u.int_in_range(0..=(SMEM - size) / 16)?;
            steps.push(if u.ratio(3, 5)? {
                let mask = u.int_in_range(1..=(1u32 << cluster) - 1)? as u16;
                Step::Multicast {
                    rank: u.int_in_range(0..=cluster - 1)?,
                    mask,
                    src: 16 * u.int_in_range(0..=(IN - size) / 16)?,
                    dst,
                    size,
                }
            } else {
                let from = u.int_in_range(0..=cluster - 1)?;
                let to = (from + u.int_in_range(1..=cluster - 1)?) % cluster;
                Step::Remote {
                    from,
                    to,
                    src: 16 * u.int_in_range(0..=(SMEM - size) / 16)?,
                    dst,
                    size,
                }
            });
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            cluster,
            clusters,
            input,
            steps,
        })
    }
}

impl Protocol for Spec {
    /// Nothing: every round runs.
    type Trace = ();

    fn build(&self) -> (Launch, ()) {
        let (c, block) = (self.cluster, 32);
        let grid = c * self.clusters;
        let mut a = Asm::new(
            &format!(".reqnctapercluster {c}, 1, 1"),
            &[
                format!(".shared .align 128 .b8 sm[{SMEM}];"),
                ".shared .align 8 .b64 mb;".to_string(),
            ],
        );
        a.i("mov.u32 %r4, sm;");
        a.i("mov.u32 %r7, mb;");
        a.i("mov.u32 %r6, %cluster_ctarank;");
        a.i("setp.eq.u32 %p0, %tx, 0;");
        // Shared memory: the input window of this CTA.
        a.i(format!("mul.wide.u32 %rd22, %cta, {WINDOW};"));
        a.i("add.s64 %rd22, %rin, %rd22;");
        a.i("mul.wide.u32 %rd23, %tx, 16;");
        a.i("add.s64 %rd22, %rd22, %rd23;");
        a.i("shl.b32 %r8, %tx, 4;");
        a.i("add.u32 %r8, %r4, %r8;");
        a.fill_shared(SMEM, block);
        a.i("@%p0 mbarrier.init.shared::cta.b64 [%r7], 1;");
        a.i("fence.mbarrier_init.release.cluster;");
        a.i("fence.proxy.async.shared::cta;");
        a.i("barrier.cluster.arrive.release.aligned;");
        a.i("barrier.cluster.wait.acquire.aligned;");
        for (phase, step) in self.steps.iter().enumerate() {
            let (mask, size) = match *step {
                Step::Multicast { mask, size, .. } => (mask as u32, size),
                Step::Remote { to, size, .. } => (1u32 << to, size),
            };
            // Receivers arm their mbarrier; the others arrive plainly.
            a.i(format!("shr.b32 %r20, {mask}, %r6;"));
            a.i("and.b32 %r20, %r20, 1;");
            a.i("setp.ne.u32 %p5, %r20, 0;");
            a.i("and.pred %p6, %p0, %p5;");
            a.i("not.pred %p7, %p5;");
            a.i("and.pred %p7, %p7, %p0;");
            a.i(format!(
                "@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], {size};"
            ));
            a.i("@%p7 mbarrier.arrive.shared::cta.b64 %rd11, [%r7];");
            match *step {
                Step::Multicast {
                    rank,
                    mask,
                    src,
                    dst,
                    size,
                } => {
                    a.i(format!("setp.eq.u32 %p3, %r6, {rank};"));
                    a.i("and.pred %p4, %p3, %p0;");
                    a.i(format!("add.s64 %rd10, %rin, {src};"));
                    a.i(format!("mov.b16 %h1, {mask};"));
                    a.i(format!(
                        "@%p4 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4+{dst}], [%rd10], {size}, [%r7], %h1;"
                    ));
                }
                Step::Remote {
                    from,
                    to,
                    src,
                    dst,
                    size,
                } => {
                    a.i(format!("setp.eq.u32 %p3, %r6, {from};"));
                    a.i("and.pred %p4, %p3, %p0;");
                    a.i(format!("add.u32 %r14, %r4, {dst};"));
                    a.i(format!("mapa.shared::cluster.u32 %r14, %r14, {to};"));
                    a.i(format!("mapa.shared::cluster.u32 %r15, %r7, {to};"));
                    a.i(format!("add.u32 %r16, %r4, {src};"));
                    a.i(format!(
                        "@%p4 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r14], [%r16], {size}, [%r15];"
                    ));
                }
            }
            a.wait_phase(phase as u32);
            a.i("barrier.cluster.arrive.release.aligned;");
            a.i("barrier.cluster.wait.acquire.aligned;");
        }
        a.dump_shared("%r4", SMEM, block, 0);
        let out_len = (grid * SMEM) as usize;
        (
            Launch::new(a.finish(), grid, block, self.input.clone(), out_len),
            (),
        )
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}
