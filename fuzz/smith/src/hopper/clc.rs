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

use super::asm::Asm;
use super::{Launch, Protocol};
use arbitrary::Unstructured;

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
        let mut a = Asm::new(
            &format!(".reqnctapercluster {c}, 1, 1"),
            &[
                ".shared .align 16 .b8 resp[16];".to_string(),
                ".shared .align 8 .b64 mb;".to_string(),
                ".reg .b32 xctaid, phase;".to_string(),
                ".reg .b128 handle;".to_string(),
                ".reg .pred pc, complete;".to_string(),
            ],
        );
        a.i("mov.u32 %r1, %cluster_ctaid.x;");
        a.i("sub.u32 xctaid, %cta, %r1;");
        a.i("mov.u32 phase, 0;");
        a.i("setp.eq.u32 %p0, %tx, 0;");
        a.i("@%p0 mbarrier.init.shared::cta.b64 [mb], 1;");
        a.i("fence.mbarrier_init.release.cluster;");
        a.i("barrier.cluster.arrive;");
        a.i("barrier.cluster.wait;");
        a.place("$Lprocess");
        a.i("@!%p0 bra $Lwork;");
        a.i("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 _, [mb], 16;");
        a.i("setp.eq.u32 %p1, %r1, 0;");
        a.i("@%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [mb];");
        a.place("$Lwork");
        // The item's words: count at 8 * item, sum at 8 * item + 4.
        a.i("add.u32 %r3, xctaid, %r1;");
        a.i("mul.wide.u32 %rd3, %r3, 8;");
        a.i("add.s64 %rd4, %rout, %rd3;");
        a.i("@%p0 red.global.add.u32 [%rd4], 1;");
        a.i("add.u32 %r5, %tx, 1;");
        a.i(format!("mul.lo.u32 %r5, %r5, {w};"));
        a.i("red.global.add.u32 [%rd4+4], %r5;");
        a.place("$Lwait");
        a.i("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 complete, [mb], phase;");
        a.i("@!complete bra $Lwait;");
        a.i("xor.b32 phase, phase, 1;");
        a.i("ld.shared.b128 handle, [resp];");
        a.i("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 pc, handle;");
        a.i("@!pc bra $Ldone;");
        a.i("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 xctaid, handle;");
        a.i("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;");
        a.i("barrier.cluster.arrive.relaxed;");
        a.i("barrier.cluster.wait;");
        a.i("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;");
        a.i("bra $Lprocess;");
        a.place("$Ldone");
        let text = a.finish().replacen(".target sm_90a", ".target sm_100a", 1);
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
