//! The `race` check ([`crate::check`]): data races on shared memory (the executing CTA's and,
//! through `.shared::cluster`, the other CTAs' of the cluster) between warps that nothing
//! orders, found with vector clocks over the cluster's warps.
//!
//! Each warp has a clock; a warp's vector holds what it knows of every warp's clock. An access
//! happens before another when the second warp's vector covers the first's clock. The edges:
//! - a CTA barrier (`bar`/`barrier`, with or without a thread count, `.arrive` included):
//!   arriving joins the warp's vector into the barrier's; waiters join it when it completes;
//! - an mbarrier: an arrive-on joins into the object's current phase; a `test_wait`/`try_wait`
//!   that observes a completed phase joins every completed phase's arrivals;
//! - the cluster barrier: `barrier.cluster.arrive` joins, the wait joins at completion;
//! - atomics and strong (`.volatile`, `.relaxed`, `.acquire`, `.release`) loads and stores on
//!   shared memory act as acquire-release operations on their word (a conservative reading of
//!   the memory model's release/acquire patterns: it can hide a race, never invent one) and
//!   are never reported themselves, strong accesses not being data races with each other.
//!
//! Granularity: warps, not threads (lanes of one warp are not checked against each other: the
//! interpreter runs them in lockstep and warp-synchronous code orders them with `__syncwarp`),
//! and 4-byte words with a byte mask. Asynchronous-proxy accesses (bulk and tensor copies,
//! `cp.async`, `wgmma`/`tcgen05` operands) are not checked. Global memory is not checked.

use crate::check::{Class, Finding};
use crate::error::{Site, Thread};
use rustc_hash::FxHashMap;

/// A warp's index in its cluster: `cta * warps_per_cta + warp`.
pub type WarpId = u32;

/// One access remembered in a shadow word.
#[derive(Clone, Copy, Debug)]
struct Access {
    warp: WarpId,
    clock: u32,
    /// Bytes of the word it touched.
    mask: u8,
    lane: u8,
    func: u32,
    pc: u32,
}

/// What a shadow word remembers: the last write and the reads since it that no later access
/// is known to follow.
#[derive(Clone, Debug, Default)]
struct Word {
    write: Option<Access>,
    reads: Vec<Access>,
}

/// What an mbarrier's arrivals released.
#[derive(Clone, Debug)]
struct MbarJoins {
    /// The phase `current` belongs to.
    phase: u64,
    /// The arrivals of that phase so far.
    current: Vec<u32>,
    /// The arrivals of every completed phase.
    done: Vec<u32>,
}

/// The race state of one cluster.
#[derive(Debug)]
pub struct Race {
    /// Warps per CTA.
    wpc: u32,
    /// Warps in the cluster.
    nw: usize,
    /// `vc[w * nw + v]`: warp `w`'s knowledge of warp `v`'s clock.
    vc: Vec<u32>,
    /// Per (CTA, barrier id): the arrivals' join since the barrier last completed.
    bars: Vec<Vec<u32>>,
    /// Per mbarrier (rank, offset).
    mbars: FxHashMap<(u32, u32), MbarJoins>,
    /// The cluster barrier: (current arrivals' join, completed join).
    cbar: (Vec<u32>, Vec<u32>),
    /// Per shared word used by atomics or strong accesses: its release join.
    syncs: FxHashMap<(u32, u32), Vec<u32>>,
    /// Per CTA, per 4-byte word of its shared memory.
    words: Vec<Vec<Word>>,
    /// CTA ids of the cluster's CTAs, for findings.
    ctaid: Vec<[u32; 3]>,
}

impl Race {
    /// The state for `ncta` CTAs of `wpc` warps and `smem` bytes of shared memory each.
    pub fn new(ncta: usize, wpc: u32, smem: u64, ctaid: Vec<[u32; 3]>) -> Race {
        let nw = ncta * wpc as usize;
        let mut vc = vec![0; nw * nw];
        for w in 0..nw {
            vc[w * nw + w] = 1;
        }
        Race {
            wpc,
            nw,
            vc,
            bars: vec![vec![0; nw]; ncta * 16],
            mbars: FxHashMap::default(),
            cbar: (vec![0; nw], vec![0; nw]),
            syncs: FxHashMap::default(),
            words: (0..ncta)
                .map(|_| vec![Word::default(); smem.div_ceil(4) as usize])
                .collect(),
            ctaid,
        }
    }

    /// Host bytes the state of such a cluster takes (for the launch's budget).
    pub fn cost(ncta: usize, wpc: u32, smem: u64) -> u64 {
        let nw = (ncta * wpc as usize) as u64;
        nw * nw * 4 + ncta as u64 * 16 * nw * 4 + ncta as u64 * smem.div_ceil(4) * 32
    }

    /// The cluster-wide id of warp `warp` of CTA `cta`.
    pub fn warp_id(&self, cta: u32, warp: u32) -> WarpId {
        cta * self.wpc + warp
    }

    fn join_into(&mut self, w: WarpId, other: &[u32]) {
        let n = self.nw;
        join(&mut self.vc[w as usize * n..(w as usize + 1) * n], other);
    }

    fn tick(&mut self, w: WarpId) {
        let i = w as usize * self.nw + w as usize;
        self.vc[i] = self.vc[i].saturating_add(1);
    }

    /// Warp `w` arrives at barrier `id` of CTA `cta` (a release).
    pub fn bar_arrive(&mut self, w: WarpId, cta: u32, id: u8) {
        let k = cta as usize * 16 + (id & 15) as usize;
        let n = self.nw;
        let row = &self.vc[w as usize * n..(w as usize + 1) * n];
        if let Some(b) = self.bars.get_mut(k) {
            join(b, row);
        }
        self.tick(w);
    }

    /// Barrier `id` of CTA `cta` completes: each of `waiters` acquires the arrivals. A
    /// completion nobody waits for keeps them for the next: the interpreter completes a
    /// counted barrier early when its other threads exited (`bar.arrive` producers that then
    /// exit, consumers that `bar.sync` later), where the GPU's phase would still be open.
    pub fn bar_complete(&mut self, cta: u32, id: u8, waiters: &[WarpId]) {
        if waiters.is_empty() {
            return;
        }
        let k = cta as usize * 16 + (id & 15) as usize;
        let Some(b) = self.bars.get(k).cloned() else {
            return;
        };
        for &w in waiters {
            self.join_into(w, &b);
        }
        if let Some(b) = self.bars.get_mut(k) {
            b.iter_mut().for_each(|v| *v = 0);
        }
    }

    /// Settles the mbarrier's joins against its current phase `phase`.
    fn mbar_entry(&mut self, key: (u32, u32), phase: u64) -> &mut MbarJoins {
        let nw = self.nw;
        let e = self.mbars.entry(key).or_insert_with(|| MbarJoins {
            phase,
            current: vec![0; nw],
            done: vec![0; nw],
        });
        if e.phase < phase {
            // The arrivals joined so far belong to phases that have completed.
            let cur = std::mem::replace(&mut e.current, vec![0; nw]);
            join(&mut e.done, &cur);
            e.phase = phase;
        }
        e
    }

    /// Warp `w` arrives on the mbarrier at `key` in phase `phase` (a release).
    pub fn mbar_arrive(&mut self, w: WarpId, key: (u32, u32), phase: u64) {
        self.mbar_entry(key, phase);
        let n = self.nw;
        let row = &self.vc[w as usize * n..(w as usize + 1) * n];
        if let Some(e) = self.mbars.get_mut(&key) {
            join(&mut e.current, row);
        }
        self.tick(w);
    }

    /// Warp `w` observed a completed phase of the mbarrier at `key`, now in phase `phase` (an
    /// acquire).
    pub fn mbar_observe(&mut self, w: WarpId, key: (u32, u32), phase: u64) {
        let done = self.mbar_entry(key, phase).done.clone();
        self.join_into(w, &done);
    }

    /// The mbarrier at `key` is invalidated: its joins go.
    pub fn mbar_forget(&mut self, key: (u32, u32)) {
        self.mbars.remove(&key);
    }

    /// Warp `w` arrives at the cluster barrier.
    pub fn cluster_arrive(&mut self, w: WarpId) {
        let n = self.nw;
        join(
            &mut self.cbar.0,
            &self.vc[w as usize * n..(w as usize + 1) * n],
        );
        self.tick(w);
    }

    /// The cluster barrier completes: its arrivals become what a wait acquires.
    pub fn cluster_complete(&mut self) {
        let cur = std::mem::replace(&mut self.cbar.0, vec![0; self.nw]);
        for (a, b) in self.cbar.1.iter_mut().zip(cur) {
            *a = (*a).max(b);
        }
    }

    /// Warp `w` returns from a cluster-barrier wait.
    pub fn cluster_wait(&mut self, w: WarpId) {
        let done = self.cbar.1.clone();
        self.join_into(w, &done);
    }

    /// An atomic or strong access by warp `w` to the shared word at (`rank`, `off`): acquires
    /// what earlier such accesses released, then releases.
    pub fn sync_access(&mut self, w: WarpId, rank: u32, off: u32) {
        let key = (rank, off & !3);
        let nw = self.nw;
        let rel = self.syncs.entry(key).or_insert_with(|| vec![0; nw]);
        let row = &mut self.vc[w as usize * nw..(w as usize + 1) * nw];
        join(row, rel);
        rel.copy_from_slice(row);
        self.tick(w);
    }

    /// A plain access by warp `w` (lane `lane`, instruction `pc` of function `func`) to `size`
    /// bytes of CTA `rank`'s shared memory at `off`: the conflicting earlier access nothing
    /// orders before it, if any, as (kind, that access).
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        w: WarpId,
        lane: u8,
        func: u32,
        pc: u32,
        rank: u32,
        off: u32,
        size: u32,
        write: bool,
    ) -> Option<(&'static str, Access)> {
        // Disjoint borrows: the warp's vector is read while the shadow words change.
        let nw = self.nw;
        let vcw = &self.vc[w as usize * nw..(w as usize + 1) * nw];
        let words = self.words.get_mut(rank as usize)?;
        let clock = vcw[w as usize];
        let before = |a: &Access| a.warp == w || a.clock <= vcw[a.warp as usize];
        let mut found = None;
        let (first, last) = (off / 4, (off + size.max(1) - 1) / 4);
        for word in first..=last {
            let Some(cell) = words.get_mut(word as usize) else {
                continue;
            };
            let lo = (word * 4).max(off);
            let hi = (word * 4 + 4).min(off + size);
            let mask = (((1u32 << (hi - lo)) - 1) << (lo - word * 4)) as u8;
            // Another lane of this warp did the same in this step (same clock, these bytes
            // included): nothing new to check or remember.
            let same = |a: &Access| a.warp == w && a.clock == clock && mask & !a.mask == 0;
            if write {
                if cell.reads.is_empty() && cell.write.as_ref().is_some_and(same) {
                    continue;
                }
            } else if cell.reads.last().is_some_and(same) {
                continue;
            }
            let unordered = |a: &Access| a.mask & mask != 0 && !before(a);
            if found.is_none() {
                if let Some(a) = cell.write.filter(|a| unordered(a)) {
                    found = Some((
                        if write {
                            "write-after-write"
                        } else {
                            "read-after-write"
                        },
                        a,
                    ));
                } else if write {
                    if let Some(a) = cell.reads.iter().find(|a| unordered(a)) {
                        found = Some(("write-after-read", *a));
                    }
                }
            }
            let me = Access {
                warp: w,
                clock,
                mask,
                lane,
                func,
                pc,
            };
            if write {
                cell.write = Some(me);
                cell.reads.clear();
            } else {
                // Keep only the reads not known to come before this one (and one per warp).
                if !(cell.reads.len() == 1 && cell.reads[0].warp == w) {
                    cell.reads.retain(|a| !before(a));
                    cell.reads.push(me);
                } else {
                    cell.reads[0] = me;
                }
            }
        }
        found
    }

    /// [`Race::check`] for an executing lane, recording a finding.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: Thread,
        w: WarpId,
        func: u32,
        pc: u32,
        rank: u32,
        off: u32,
        size: u32,
        write: bool,
        tid_of: impl Fn(WarpId, u8) -> [u32; 3],
    ) {
        let lane = thread.lane as u8;
        let Some((kind, other)) = self.check(w, lane, func, pc, rank, off, size, write) else {
            return;
        };
        let wpc = self.wpc;
        let ctaid = self
            .ctaid
            .get((other.warp / wpc) as usize)
            .copied()
            .unwrap_or_default();
        let them = Thread {
            ctaid,
            tid: tid_of(other.warp, other.lane),
            lane: other.lane as u32,
        };
        findings.add(Class::Race, func, pc, || Finding {
            class: Class::Race,
            what: format!(
                "{kind} hazard on shared memory (CTA rank {rank}) with {them} at {}, which no barrier, mbarrier or atomic orders before it",
                site(other.func, other.pc)
            ),
            site: site(func, pc),
            threads: vec![thread, them],
            space: Some("shared".into()),
            addr: Some(off as u64),
            count: 1,
        });
    }
}

/// `a` becomes the element-wise maximum of `a` and `b`.
fn join(a: &mut [u32], b: &[u32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}
