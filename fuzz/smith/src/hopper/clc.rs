//! Cluster launch control (`sm_100a`): the work-stealing loop of seed 000 (PTX ISA 9.7.13.17,
//! `clusterlaunchcontrol.try_cancel` multicast to every CTA of the cluster, then
//! `query_cancel.is_canceled` / `get_first_ctaid::x`) with random cluster sizes (1, 2, 4), grid
//! sizes (1-10 clusters), CTA sizes and work weights.
//!
//! Each work item is one CTA's `%ctaid.x`: its thread t adds `(t + 1) * weight` to the item's
//! sum word and thread 0 adds 1 to its count word. A cluster processes its own items, then steals
//! the items of a cluster that has not started until a cancel request fails.
//!
//! The trace is empty: the reference reads the launch shape and the weight from the [`Spec`].

use super::kernel::{kernel, Head};
use super::{Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::{sink, Sreg};
use ptx_ir_core::{Cmp, Flag, Op, Scope, Sem, Space, SpecialReg, Type};

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs per cluster (1, 2, 4).
    pub cluster: u32,
    /// Clusters in the grid.
    pub clusters: u32,
    /// Threads per CTA.
    pub block: u32,
    /// What each thread adds (times its index plus one) to its item's sum.
    pub weight: u32,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        Ok(Spec {
            cluster: *u.choose(&[1u32, 2, 4])?,
            clusters: u.int_in_range(1..=10)?,
            block: 32 * u.int_in_range(1..=3)?,
            weight: u.int_in_range(1..=1000)?,
        })
    }
}

impl Protocol for Spec {
    /// Nothing: the reference needs the launch only.
    type Trace = ();

    fn build(&self) -> (Launch, ()) {
        let (c, block, w) = (self.cluster, self.block, self.weight);
        let grid = c * self.clusters;
        let text = kernel(Head::blackwell().cluster(c), |k| {
            let resp = k.shared("resp", 16, Type::B8, Some(16))?;
            let mb = k.shared("mb", 8, Type::B64, None)?;
            let [xctaid, phase] = k.regs(Type::B32, ["xctaid", "phase"])?;
            let [handle] = k.regs(Type::B128, ["handle"])?;
            let [pc, complete] = k.regs(Type::Pred, ["pc", "complete"])?;
            k.prologue()?;
            let (r1, r3, r5, rd3, rd4, p0, p1) =
                (k.r(1), k.r(3), k.r(5), k.rd(3), k.rd(4), k.p(0), k.p(1));
            let process = k.f.label("$Lprocess")?;
            let work = k.f.label("$Lwork")?;
            let wait = k.f.label("$Lwait")?;
            let done = k.f.label("$Ldone")?;
            k.f.mov(Type::U32, (r1, Sreg::axis(SpecialReg::ClusterCtaid, 0)))?;
            k.f.sub(Type::U32, (xctaid, k.cta, r1))?;
            k.f.mov(Type::U32, (phase, 0))?;
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            k.f.guard(p0)
                .mbarrier_init((Space::SharedCta, Type::B64), (mb.at(0), 1))?;
            k.f.fence((Flag::MbarrierInit, Sem::Release, Scope::Cluster), ())?;
            k.f.barrier_cluster(Flag::Arrive, ())?;
            k.f.barrier_cluster(Flag::Wait, ())?;
            k.place(process)?;
            k.f.guard_not(p0).bra((), work)?;
            k.f.mbarrier_arrive(
                (
                    Flag::ExpectTx,
                    Sem::Relaxed,
                    Scope::Cluster,
                    Space::SharedCta,
                    Type::B64,
                ),
                (sink(), mb.at(0), 16),
            )?;
            k.f.setp((Cmp::Eq, Type::U32), (p1, r1, 0))?;
            k.f.guard(p1).clusterlaunchcontrol_try_cancel(
                (
                    Flag::Async,
                    Space::SharedCta,
                    Flag::MbarrierCompleteTxBytes,
                    Flag::MulticastClusterAll,
                    Type::B128,
                ),
                (resp.at(0), mb.at(0)),
            )?;
            k.place(work)?;
            // The item's words: count at 8 * item, sum at 8 * item + 4.
            k.f.add(Type::U32, (r3, xctaid, r1))?;
            k.f.mul((Flag::Wide, Type::U32), (rd3, r3, 8))?;
            k.f.add(Type::S64, (rd4, k.rout, rd3))?;
            k.f.guard(p0)
                .red((Space::Global, Op::Add, Type::U32), (rd4.at(0), 1))?;
            k.f.add(Type::U32, (r5, k.tx, 1))?;
            k.f.mul((Flag::Lo, Type::U32), (r5, r5, w))?;
            k.f.red((Space::Global, Op::Add, Type::U32), (rd4.at(4), r5))?;
            k.spin_try_wait(wait, true, complete, mb.at(0), phase)?;
            k.f.xor(Type::B32, (phase, phase, 1))?;
            k.f.ld((Space::Shared, Type::B128), (handle, resp.at(0)))?;
            k.f.clusterlaunchcontrol_query_cancel(
                (Flag::IsCanceled, Type::Pred, Type::B128),
                (pc, handle),
            )?;
            k.f.guard_not(pc).bra((), done)?;
            k.f.clusterlaunchcontrol_query_cancel(
                (Flag::GetFirstCtaidX, Type::B32, Type::B128),
                (xctaid, handle),
            )?;
            k.f.fence(
                (
                    Flag::Proxy,
                    Flag::AsyncGeneric,
                    Sem::Release,
                    Flag::SyncRestrictSharedCta,
                    Scope::Cluster,
                ),
                (),
            )?;
            k.f.barrier_cluster((Flag::Arrive, Sem::Relaxed), ())?;
            k.f.barrier_cluster(Flag::Wait, ())?;
            k.f.fence(
                (
                    Flag::Proxy,
                    Flag::AsyncGeneric,
                    Sem::Acquire,
                    Flag::SyncRestrictSharedCluster,
                    Scope::Cluster,
                ),
                (),
            )?;
            k.f.bra((), process)?;
            k.place(done)
        });
        (
            Launch::new(text, grid, block, vec![0; 16], 8 * grid as usize),
            (),
        )
    }

    fn smaller(&self) -> Vec<Spec> {
        let mut v = Vec::new();
        if self.clusters > 1 {
            v.push(Spec {
                clusters: self.clusters - 1,
                ..self.clone()
            });
        }
        if self.block > 32 {
            v.push(Spec {
                block: 32,
                ..self.clone()
            });
        }
        v
    }
}
