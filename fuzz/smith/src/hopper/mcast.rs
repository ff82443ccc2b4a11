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

use super::kernel::{kernel, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::{sink, Sreg};
use ptx_ir_core::{Cmp, Flag, Scope, Sem, Space, SpecialReg, Type};

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
        let text = kernel(Head::hopper().cluster(c), |k| {
            let sm = k.shared("sm", 128, Type::B8, Some(SMEM))?;
            let mb = k.shared("mb", 8, Type::B64, None)?;
            k.prologue()?;
            let (r4, r6, r7, r8, r14, r15, r16, r20) = (
                k.r(4),
                k.r(6),
                k.r(7),
                k.r(8),
                k.r(14),
                k.r(15),
                k.r(16),
                k.r(20),
            );
            let (rd10, rd11, rd22, rd23, h1) = (k.rd(10), k.rd(11), k.rd(22), k.rd(23), k.h(1));
            let (p0, p3, p4, p5, p6, p7) = (k.p(0), k.p(3), k.p(4), k.p(5), k.p(6), k.p(7));
            let cluster_barrier = |k: &mut K| {
                k.f.barrier_cluster((Flag::Arrive, Sem::Release, Flag::Aligned), ())?;
                k.f.barrier_cluster((Flag::Wait, Sem::Acquire, Flag::Aligned), ())
            };
            k.f.mov(Type::U32, (r4, sm))?;
            k.f.mov(Type::U32, (r7, mb))?;
            k.f.mov(Type::U32, (r6, Sreg::from(SpecialReg::ClusterCtarank)))?;
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            // Shared memory: the input window of this CTA.
            k.f.mul((Flag::Wide, Type::U32), (rd22, k.cta, WINDOW))?;
            k.f.add(Type::S64, (rd22, k.rin, rd22))?;
            k.f.mul((Flag::Wide, Type::U32), (rd23, k.tx, 16))?;
            k.f.add(Type::S64, (rd22, rd22, rd23))?;
            k.f.shl(Type::B32, (r8, k.tx, 4))?;
            k.f.add(Type::U32, (r8, r4, r8))?;
            k.fill_shared(SMEM, block)?;
            k.f.guard(p0)
                .mbarrier_init((Space::SharedCta, Type::B64), (r7.at(0), 1))?;
            k.f.fence((Flag::MbarrierInit, Sem::Release, Scope::Cluster), ())?;
            k.f.fence((Flag::Proxy, Flag::Async, Space::SharedCta), ())?;
            cluster_barrier(k)?;
            for (phase, step) in self.steps.iter().enumerate() {
                let (mask, size) = match *step {
                    Step::Multicast { mask, size, .. } => (mask as u32, size),
                    Step::Remote { to, size, .. } => (1u32 << to, size),
                };
                // Receivers arm their mbarrier; the others arrive plainly.
                k.f.shr(Type::B32, (r20, mask, r6))?;
                k.f.and(Type::B32, (r20, r20, 1))?;
                k.f.setp((Cmp::Ne, Type::U32), (p5, r20, 0))?;
                k.f.and(Type::Pred, (p6, p0, p5))?;
                k.f.not(Type::Pred, (p7, p5))?;
                k.f.and(Type::Pred, (p7, p7, p0))?;
                k.f.guard(p6).mbarrier_arrive(
                    (Flag::ExpectTx, Space::SharedCta, Type::B64),
                    (sink(), r7.at(0), size),
                )?;
                k.f.guard(p7)
                    .mbarrier_arrive((Space::SharedCta, Type::B64), (rd11, r7.at(0)))?;
                match *step {
                    Step::Multicast {
                        rank,
                        mask,
                        src,
                        dst,
                        size,
                    } => {
                        k.f.setp((Cmp::Eq, Type::U32), (p3, r6, rank))?;
                        k.f.and(Type::Pred, (p4, p3, p0))?;
                        k.f.add(Type::S64, (rd10, k.rin, src))?;
                        k.f.mov(Type::B16, (h1, u32::from(mask)))?;
                        k.f.guard(p4).cp_async_bulk(
                            (
                                Space::SharedCluster,
                                Space::Global,
                                Flag::MbarrierCompleteTxBytes,
                                Flag::MulticastCluster,
                            ),
                            (r4.at(dst.into()), rd10.at(0), size, r7.at(0), h1),
                        )?;
                    }
                    Step::Remote {
                        from,
                        to,
                        src,
                        dst,
                        size,
                    } => {
                        k.f.setp((Cmp::Eq, Type::U32), (p3, r6, from))?;
                        k.f.and(Type::Pred, (p4, p3, p0))?;
                        k.f.add(Type::U32, (r14, r4, dst))?;
                        k.f.mapa((Space::SharedCluster, Type::U32), (r14, r14, to))?;
                        k.f.mapa((Space::SharedCluster, Type::U32), (r15, r7, to))?;
                        k.f.add(Type::U32, (r16, r4, src))?;
                        k.f.guard(p4).cp_async_bulk(
                            (
                                Space::SharedCluster,
                                Space::SharedCta,
                                Flag::MbarrierCompleteTxBytes,
                            ),
                            (r14.at(0), r16.at(0), size, r15.at(0)),
                        )?;
                    }
                }
                k.wait_phase(phase as u32)?;
                cluster_barrier(k)?;
            }
            k.dump_shared(r4, SMEM, block, 0)
        });
        let out_len = (grid * SMEM) as usize;
        (
            Launch::new(text, grid, block, self.input.clone(), out_len),
            (),
        )
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}
