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
//! Global memory: within a cluster the same clocks and shadow words (a sparse map of the words
//! the cluster touched, at most [`MAX_CLUSTER_WORDS`], charged to the launch's budget), where
//! atomics, strong accesses and GPU-scope fences on global memory ([`synchronises`]) are
//! acquire-release operations on one join for the whole cluster ([`Race::global_sync`]).
//! Between clusters, which share no barrier, each cluster's accesses are summarised per word
//! and checked against the finished clusters' when it finishes ([`Grid`] gives the rule).
//!
//! Lanes of one warp: the interpreter runs them in lockstep, the GPU does not (since Volta),
//! and the memory model knows threads, not warps. A warp's clock also moves at every
//! operation that orders its lanes ([`Race::warp_order`]); two conflicting plain accesses of
//! different lanes of one warp at the same clock, in different executions of instructions
//! (not one store of all lanes), are a race (`__syncwarp` missing).
//!
//! Asynchronous operations (`cp.async`, bulk and tensor copies, `wgmma`, `tcgen05.mma` and
//! `tcgen05.cp` operands, cluster launch control responses): their shared-memory accesses, and the global-memory accesses
//! of bulk and tensor copies (and every copy's writes), are made by the issuing warp's
//! asynchronous proxy, a clock of its own that the completion mechanism releases
//! ([`Race::async_access`], [`Race::async_global`]).
//!
//! Granularity: threads, and 4-byte words with a byte mask. Not checked: Tensor Memory and
//! texture reads.

use crate::check::{Class, Finding};
use crate::error::{Site, Thread};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// A warp's index in its cluster: `cta * warps_per_cta + warp`.
pub type WarpId = u32;

/// One access remembered in a shadow word.
#[derive(Clone, Copy, Debug)]
struct Access {
    /// The clock's index (a cluster has at most 16 CTAs of 32 warps, each with a proxy clock:
    /// 1,024 clocks).
    warp: u16,
    clock: u32,
    /// Bytes of the word it touched.
    mask: u8,
    lane: u8,
    func: u32,
    pc: u32,
    /// The warp-instruction execution it belongs to (the launch's count, truncated: two
    /// executions taken for one can only hide a race between lanes).
    step: u32,
    /// The lanes of the warp that made the same access in the same execution.
    lanes: u32,
}

/// What a shadow word remembers: the last write and the reads since it that no later access
/// is known to follow.
#[derive(Clone, Debug, Default)]
struct Word {
    write: Option<Access>,
    /// Mostly one warp's: kept inline, so that a word costs no allocation of its own.
    reads: SmallVec<[Access; 1]>,
    /// Global words: the bytes of a read by the thread whose accesses the word remembers that
    /// the summaries between clusters hold ([`Word::repeat`]); 0 when not known.
    rnote: u8,
}

// A word takes one cache line at most (the global-memory loop's shadow stays dense).
const _: () = assert!(std::mem::size_of::<Word>() <= 64);

impl Access {
    fn warp(&self) -> WarpId {
        WarpId::from(self.warp)
    }
}

impl Word {
    /// [`Word::check`] of the lanes in `group` of the access `me`, each in order, as if they
    /// came one by one: the first conflict, with the lane that found it.
    #[cold]
    #[inline(never)]
    fn check_each(
        &mut self,
        me: Access,
        group: u32,
        vcw: &[u32],
        write: bool,
    ) -> Option<(u8, &'static str, Access)> {
        let mut found = None;
        for l in (0..32u8).filter(|l| group >> l & 1 != 0) {
            let f = self.check(
                Access {
                    lane: l,
                    lanes: 1 << l,
                    ..me
                },
                vcw,
                write,
            );
            found = found.or(f.map(|(k, a)| (l, k, a)));
        }
        found
    }

    /// Whether lanes of warp `w` making one access (at clock `clock`, in execution `step`)
    /// can be checked together, as [`Word::check`] of the lowest with all their lanes: what
    /// the word remembers of the warp (the only accesses whose order depends on the lane) is of
    /// another clock or of this execution, so ordered before each of them alike, and every
    /// lane but the first would only join the first's access.
    fn group_safe(&self, w: u16, clock: u32, step: u32) -> bool {
        let apart = |a: &Access| a.warp == w && a.clock == clock && a.step != step;
        !self.write.as_ref().is_some_and(apart) && !self.reads.iter().any(apart)
    }

    /// Every access the word remembers is the thread's of `me`, since nothing ordered its
    /// warp's lanes (a loop over a thread's own words): ordered by program order, so there is
    /// nothing to check, and the word keeps what [`Word::check`] would keep. `None` when that
    /// does not hold (and nothing changed); else whether the word held an access of the same
    /// kind and bytes (so that the summaries between clusters hold one too).
    #[inline(always)]
    fn repeat(&mut self, me: Access, write: bool) -> Option<bool> {
        let bit = 1u32 << (me.lane & 31);
        let mine = |a: &Access| a.warp == me.warp && a.clock == me.clock && a.lanes == bit;
        if !self.write.as_ref().is_none_or(mine) {
            return None;
        }
        let noted = |a: &Option<Access>| a.is_some_and(|a| a.mask == me.mask);
        match self.reads.as_slice() {
            [] if write => {
                let noted = noted(&self.write);
                self.write = Some(me);
                Some(noted)
            }
            // The reads went with this thread's write (or there were none): `rnote` says
            // whether the summary holds one of these bytes (the caller notes this one if not).
            [] => {
                self.reads.push(me);
                let n = self.rnote == me.mask;
                self.rnote = me.mask;
                Some(n)
            }
            [r] if mine(r) => {
                let noted = if write {
                    let n = noted(&self.write);
                    self.write = Some(me);
                    self.reads.clear();
                    n
                } else {
                    let n = r.mask == me.mask;
                    self.reads[0] = me;
                    n
                };
                Some(noted)
            }
            _ => None,
        }
    }

    /// Checks the plain access `me` (by a warp whose vector is `vcw`) against what the word
    /// remembers and remembers it: the conflicting earlier access nothing orders before it, if
    /// any, as (kind, that access).
    #[inline(always)]
    fn check(&mut self, me: Access, vcw: &[u32], write: bool) -> Option<(&'static str, Access)> {
        let (w, clock, mask, step) = (me.warp, me.clock, me.mask, me.step);
        let bit = 1u32 << (me.lane & 31);
        // Lanes of one warp are threads of their own (PTX ISA 8: the memory model knows no
        // warps; since Volta they do not run in lockstep): an access of another lane of the
        // warp in another execution of an instruction, with nothing ordering the warp's lanes
        // since (its clock unchanged: `Race::warp_order`), is unordered. Not within one
        // execution (every lane storing to one flag), nor when this lane took part in it.
        let before = |a: &Access| {
            if a.warp == w {
                a.clock != clock || a.step == step || a.lanes & bit != 0
            } else {
                a.clock <= vcw[a.warp as usize]
            }
        };
        // Another lane of this warp did the same in this execution (these bytes included):
        // nothing new to check; the lane joins the access.
        let same = |a: &Access| a.warp == w && a.step == step && mask & !a.mask == 0;
        // `me.lanes`: this lane, or the lanes of the warp making the same access with it
        // ([`Word::group_safe`]).
        if me.lanes == bit && self.repeat(me, write).is_some() {
            return None;
        }
        // The warp's read, if the word remembers one (at most one per warp).
        let own = if write {
            None
        } else {
            self.reads.iter().position(|a| a.warp == w)
        };
        if write {
            if self.reads.is_empty() {
                if let Some(a) = self.write.as_mut().filter(|a| same(a)) {
                    a.lanes |= me.lanes;
                    return None;
                }
            }
        } else if let Some(a) = own.and_then(|i| self.reads.get_mut(i)).filter(|a| same(a)) {
            a.lanes |= me.lanes;
            // The write may be another lane's of this warp, unordered for this lane only.
            return self
                .write
                .filter(|a| a.warp == w && a.mask & mask != 0 && !before(a))
                .map(|a| ("read-after-write", a));
        }
        let unordered = |a: &Access| a.mask & mask != 0 && !before(a);
        let mut found = None;
        if let Some(a) = self.write.filter(|a| unordered(a)) {
            found = Some((
                if write {
                    "write-after-write"
                } else {
                    "read-after-write"
                },
                a,
            ));
        } else if write {
            if let Some(a) = self.reads.iter().find(|a| unordered(a)) {
                found = Some(("write-after-read", *a));
            }
        }
        if write {
            self.write = Some(me);
            self.reads.clear();
        } else if let Some(a) = own.and_then(|i| self.reads.get_mut(i)) {
            // One read per warp: this one stands for its warp's. Reads of other warps known
            // to come before it stay until the next write: a later access unordered with one
            // of them is unordered with this one too (the clocks are joined transitively), so
            // keeping them changes at most which read a finding names.
            *a = me;
        } else {
            // The reads of other warps stay, those known to come before this one too (as
            // above): at most one per warp, and no scan to prune them.
            self.reads.push(me);
        }
        found
    }
}

/// The bytes of 4-byte word `word` that the access `[lo, hi)` touches.
fn byte_mask(word: u64, lo: u64, hi: u64) -> u8 {
    let a = (word * 4).max(lo);
    let b = (word * 4 + 4).min(hi);
    if b <= a {
        return 0;
    }
    (((1u32 << (b - a)) - 1) << (a - word * 4)) as u8
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
    warps: usize,
    /// Clocks: the cluster's warps, then (for a program with asynchronous operations) one per
    /// warp for the operations it issues ([`Race::async_access`]).
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
    /// The global words the cluster's plain accesses touched, by page.
    gwords: Pages<Word>,
    /// Their summaries for the check between clusters (writes, reads), by the index of the
    /// word in `gwords`: apart, since a repeated access rarely changes its summary, so that
    /// the shadows the check reads stay dense in the cache.
    gsum: Vec<[Sum; 2]>,
    /// The launch's epoch at the cluster's first global access.
    epoch0: Option<u64>,
    /// What the cluster's global synchronising operations released (one join for all of them:
    /// see [`Race::global_sync`]).
    gjoin: Vec<u32>,
    /// The launch-wide indices of the cluster's first and last global synchronising
    /// operations.
    gsyncs: Option<(u64, u64)>,
    /// Per (warp below [`MEMO_WARPS`], lane, slot): what the lane's recent whole-word global
    /// accesses left ([`Memo`]); made as used.
    memo: Vec<Memo>,
    /// Moves on whenever a global word changes other than by a thread's whole-word repeat of
    /// its own accesses: a [`Memo`] of an earlier generation no longer holds.
    gen: u64,
}

/// Warps (and proxies) whose lanes keep [`Memo`]s: the first ones of the cluster, which bounds
/// the memos' memory.
const MEMO_WARPS: usize = 256;

/// Memos per lane: a lane's accesses to different words of its own (a vector, then a scalar
/// inside it) mostly keep theirs apart, by the first word modulo this.
const MEMO_SLOTS: usize = 4;

/// What a lane's whole-word access to global words `first .. first + n` left when every word
/// was already the thread's alone ([`Word::repeat`]): each holds the thread's write at
/// `clock` (`write`), or its read or write (`read`), of every byte. While nothing but such
/// repeats changed a global word since (`gen`), the thread's repeat of that access of a kind
/// the words hold changes nothing a later check can see: a conflicting access of another
/// thread finds the write (or read) held, of the same clock, so ordered as the repeat would
/// be; the repeat's execution and instruction would only rename what is reported. So it is
/// skipped, word lookups and all (a loop over a thread's own elements).
#[derive(Clone, Copy, Debug, Default)]
struct Memo {
    first: u64,
    gen: u64,
    clock: u32,
    n: u8,
    write: bool,
    read: bool,
}

impl Race {
    /// The state for `ncta` CTAs of `wpc` warps and `smem` bytes of shared memory each.
    /// With `proxies`, each warp also has a clock for the asynchronous operations it issues.
    pub fn new(ncta: usize, wpc: u32, smem: u64, ctaid: Vec<[u32; 3]>, proxies: bool) -> Race {
        let warps = ncta * wpc as usize;
        let nw = warps << usize::from(proxies);
        let mut vc = vec![0; nw * nw];
        for w in 0..nw {
            vc[w * nw + w] = 1;
        }
        Race {
            wpc,
            warps,
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
            gwords: Pages::default(),
            gsum: Vec::new(),
            epoch0: None,
            gjoin: vec![0; nw],
            gsyncs: None,
            memo: Vec::new(),
            gen: 1,
        }
    }

    /// Makes a finished cluster's state the fresh state of another of the same shape (`ncta`
    /// CTAs of `wpc` warps and `smem` bytes of shared memory), keeping its allocations: a grid
    /// of many short clusters would otherwise spend most of the check's time allocating. False
    /// (and nothing changed) when the shape differs.
    pub fn reuse(
        &mut self,
        ncta: usize,
        wpc: u32,
        smem: u64,
        ctaid: Vec<[u32; 3]>,
        proxies: bool,
    ) -> bool {
        let nw = (ncta * wpc as usize) << usize::from(proxies);
        let words = smem.div_ceil(4) as usize;
        if self.wpc != wpc
            || self.nw != nw
            || self.words.len() != ncta
            || self.words.first().is_some_and(|w| w.len() != words)
        {
            return false;
        }
        self.vc.fill(0);
        for w in 0..nw {
            self.vc[w * nw + w] = 1;
        }
        self.bars.iter_mut().for_each(|b| b.fill(0));
        self.mbars.clear();
        self.cbar.0.fill(0);
        self.cbar.1.fill(0);
        self.syncs.clear();
        for cta in &mut self.words {
            for w in cta.iter_mut() {
                w.write = None;
                w.reads.clear();
            }
        }
        self.ctaid = ctaid;
        // The summaries are made afresh word by word, as `gwords` gives them out.
        self.gwords.clear();
        self.epoch0 = None;
        self.gjoin.fill(0);
        self.gsyncs = None;
        self.gen += 1;
        true
    }

    /// Host bytes the state of such a cluster takes (for the launch's budget).
    pub fn cost(ncta: usize, wpc: u32, smem: u64, proxies: bool) -> u64 {
        let nw = ((ncta * wpc as usize) << usize::from(proxies)) as u64;
        let word = std::mem::size_of::<Word>() as u64;
        let memo = (nw.min(MEMO_WARPS as u64) * 32 * MEMO_SLOTS as u64)
            * std::mem::size_of::<Memo>() as u64;
        nw * nw * 4
            + ncta as u64 * 16 * nw * 4
            + ncta as u64 * smem.div_ceil(4) * word
            + nw * 4
            + memo
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
        step: u32,
        group: u32,
    ) -> Option<(u8, &'static str, Access)> {
        // Disjoint borrows: the warp's vector is read while the shadow words change.
        let nw = self.nw;
        let vcw = &self.vc[w as usize * nw..(w as usize + 1) * nw];
        let words = self.words.get_mut(rank as usize)?;
        let mut found = None;
        let end = off.saturating_add(size.max(1));
        let clock = vcw[w as usize];
        for word in off / 4..(end - 1) / 4 + 1 {
            let Some(cell) = words.get_mut(word as usize) else {
                continue;
            };
            let me = Access {
                warp: w as u16,
                clock,
                mask: byte_mask(word as u64, off as u64, end as u64),
                lane,
                func,
                pc,
                step,
                lanes: 1 << (lane & 31),
            };
            if group == me.lanes || cell.group_safe(me.warp, clock, step) {
                let f = cell.check(Access { lanes: group, ..me }, vcw, write);
                found = found.or(f.map(|(k, a)| (lane, k, a)));
            } else {
                found = found.or(cell.check_each(me, group, vcw, write));
            }
        }
        found
    }

    /// [`Race::check`] for the executing lanes of one access by warp `w`, (lane, CTA rank,
    /// offset) in `lanes` (`thread` names a lane's thread), recording the findings.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: impl Fn(u8) -> Thread,
        w: WarpId,
        func: u32,
        pc: u32,
        lanes: &[(u8, u32, u32)],
        size: u32,
        write: bool,
        step: u32,
        tid_of: impl Fn(WarpId, u8) -> [u32; 3],
        note: &str,
    ) {
        // Lanes making the same access (a broadcast read, one flag stored by many) are checked
        // together: groups by (rank, offset), found through a small table of the offsets seen,
        // where a neighbour (or the lane 8 or 16 further: a row or column of a tile) shares
        // the first lane's address; every lane apart otherwise.
        let at = |i: usize| lanes.get(i).map(|&(_, r, o)| (r, o));
        let shared = lanes
            .windows(2)
            .any(|p| (p[0].1, p[0].2) == (p[1].1, p[1].2))
            || (at(8).is_some() && at(0) == at(8))
            || (at(16).is_some() && at(0) == at(16));
        let mut groups = [(0u32, 0u32, 0u32, 0u8); 32];
        let mut n = 0;
        if !shared {
            for (g, &(lane, rank, off)) in groups.iter_mut().zip(lanes) {
                *g = (rank, off, 1 << (lane & 31), lane);
                n += 1;
            }
        } else {
            let mut seen = [0u8; 32];
            for &(lane, rank, off) in lanes {
                let h = ((off >> 2) ^ (off >> 7) ^ rank) as usize & 31;
                let g = seen[h] as usize;
                if g > 0 && groups[g - 1].0 == rank && groups[g - 1].1 == off {
                    groups[g - 1].2 |= 1 << (lane & 31);
                    continue;
                }
                if n < groups.len() {
                    groups[n] = (rank, off, 1 << (lane & 31), lane);
                    n += 1;
                    if g == 0 {
                        seen[h] = n as u8;
                    }
                }
            }
        }
        for &(rank, off, group, lane) in &groups[..n] {
            let Some((lane, kind, other)) =
                self.check(w, lane, func, pc, rank, off, size, write, step, group)
            else {
                continue;
            };
            let them = self.thread_of(other, &tid_of);
            let thread = thread(lane);
            findings.add(Class::Race, func, pc, || Finding {
            class: Class::Race,
            what: format!(
                "{kind} hazard on shared memory (CTA rank {rank}) with {} at {}, which {} before it",
                self.other(w, other, &them),
                site(other.func, other.pc),
                if self.is_proxy(other.warp()) {
                    "no wait for its completion (its mbarrier's phase, a wait_group) orders"
                } else {
                    "no barrier, mbarrier or atomic orders"
                }
            ) + note,
            site: site(func, pc),
            threads: vec![thread, them],
            space: Some("shared".into()),
            addr: Some(off as u64),
            count: 1,
        });
        }
    }

    /// The thread of the cluster that made access `a` (for an access of an asynchronous
    /// proxy, the thread that issued the operation).
    fn thread_of(&self, a: Access, tid_of: impl Fn(WarpId, u8) -> [u32; 3]) -> Thread {
        let warp = if self.is_proxy(a.warp()) {
            a.warp() - self.warps as WarpId
        } else {
            a.warp()
        };
        let ctaid = self
            .ctaid
            .get((warp / self.wpc.max(1)) as usize)
            .copied()
            .unwrap_or_default();
        Thread {
            ctaid,
            tid: tid_of(warp, a.lane),
            lane: a.lane as u32,
        }
    }

    /// How a finding names the other access `a`'s thread `them`.
    fn other(&self, w: WarpId, a: Access, them: &Thread) -> String {
        if self.is_proxy(a.warp()) {
            format!("the asynchronous operation that {them} issued")
        } else {
            format!("{them}{}", same_warp(w, a))
        }
    }

    /// Whether clock `w` is that of a warp's asynchronous operations rather than a warp's.
    fn is_proxy(&self, w: WarpId) -> bool {
        (w as usize) >= self.warps
    }

    /// The clock of warp `w`'s asynchronous operations, if the state has them.
    fn proxy(&self, w: WarpId) -> Option<WarpId> {
        let p = self.warps + w as usize;
        (p < self.nw).then_some(p as WarpId)
    }

    /// Warp `w`'s vector now: what an asynchronous operation it issues carries, for
    /// [`Race::async_access`].
    pub fn snapshot(&self, w: WarpId) -> Vec<u32> {
        let nw = self.nw;
        self.vc
            .get(w as usize * nw..(w as usize + 1) * nw)
            .map(<[u32]>::to_vec)
            .unwrap_or_default()
    }

    /// An asynchronous operation (issued by warp `issuer`, thread `thread`, at instruction
    /// `pc` of function `func`, with the issuer's vector `vc` then: see [`Race::snapshot`])
    /// writes (`write`) or reads `len` bytes of CTA `rank`'s shared memory at `off`. The
    /// access is made by the issuing warp's asynchronous proxy: a clock of its own, which
    /// acquires the issuer's vector (what came before the issue comes before the access) and
    /// which only the operation's completion mechanism releases: the complete-tx or arrive-on
    /// of an mbarrier ([`Race::proxy_release`]) or the issuer's `wait_group`
    /// ([`Race::proxy_acquire`]). A generic access not ordered after that (a consumer reading
    /// a stage without waiting on its mbarrier, a thread reading another's `cp.async` data
    /// with no barrier after the other's `wait_group`) or an earlier one not ordered before
    /// the issue (a stage overwritten while another warp still reads it) is a race. One clock
    /// for all operations of a warp: their completions order each other, which can hide a
    /// race, never invent one.
    #[allow(clippy::too_many_arguments)]
    pub fn async_access(
        &mut self,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: Thread,
        issuer: WarpId,
        vc: &[u32],
        func: u32,
        pc: u32,
        rank: u32,
        off: u32,
        len: u32,
        write: bool,
        tid_of: impl Fn(WarpId, u8) -> [u32; 3],
    ) {
        let Some(p) = self.proxy(issuer) else {
            return;
        };
        if vc.len() != self.nw {
            return;
        }
        self.join_into(p, vc);
        self.tick(p);
        let nw = self.nw;
        let vcp = &self.vc[p as usize * nw..(p as usize + 1) * nw];
        let Some(words) = self.words.get_mut(rank as usize) else {
            return;
        };
        let end = off.saturating_add(len.max(1));
        let mut found = None;
        for word in off / 4..(end - 1) / 4 + 1 {
            let Some(cell) = words.get_mut(word as usize) else {
                break;
            };
            let me = Access {
                warp: p as u16,
                clock: vcp[p as usize],
                mask: byte_mask(word as u64, off as u64, end as u64),
                lane: thread.lane as u8,
                func,
                pc,
                step: 0,
                // Every lane "took part": a proxy's accesses are ordered among themselves.
                lanes: u32::MAX,
            };
            if let Some((kind, a)) = cell.check(me, vcp, write) {
                // One finding per operation and CTA: the first word names it.
                found = found.or(Some((kind, a, word * 4)));
            }
        }
        let Some((kind, other, addr)) = found else {
            return;
        };
        let them = self.thread_of(other, tid_of);
        let who = self.other(p, other, &them);
        let verb = if write { "writes" } else { "reads" };
        findings.add(Class::Race, func, pc, || Finding {
            class: Class::Race,
            what: format!(
                "{kind} hazard on shared memory (CTA rank {rank}): this asynchronous operation {verb} it, and {who} at {} accesses it with nothing ordering that access before the operation's issue",
                site(other.func, other.pc)
            ),
            site: site(func, pc),
            threads: vec![thread, them],
            space: Some("shared".into()),
            addr: Some(addr as u64),
            count: 1,
        });
    }

    /// An asynchronous operation (issued by warp `issuer`, whose vector then was `vc`: see
    /// [`Race::async_access`]) reads (at its issue) or writes (at its completion) `len` bytes
    /// of global memory at `addr`: checked as plain accesses of the issuing warp's
    /// asynchronous proxy ([`Race::global_access`], one "lane" per 64 bytes, `lane` the
    /// issuing thread's), which only the completion mechanism releases. `id` tells the
    /// operation's accesses from another's of the same warp.
    #[allow(clippy::too_many_arguments)]
    pub fn async_global(
        &mut self,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: Thread,
        tid: u16,
        issuer: WarpId,
        vc: &[u32],
        func: u32,
        pc: u32,
        addr: u64,
        len: u64,
        write: bool,
        id: u64,
        tid_of: impl Fn(WarpId, u8) -> [u32; 3],
        at: Rep,
        mut charge: impl FnMut(u64) -> bool,
    ) {
        let Some(p) = self.proxy(issuer) else {
            return;
        };
        if vc.len() != self.nw || len == 0 {
            return;
        }
        self.join_into(p, vc);
        self.tick(p);
        let lane = thread.lane as u8;
        const CHUNK: u64 = 64;
        let whole = len / CHUNK;
        // At most as many chunks as a cluster tracks words (of 16 words each): the rest would
        // not be tracked.
        let n = whole.min(MAX_CLUSTER_WORDS as u64 / (CHUNK / 4));
        let parts = [
            ((0..n).map(|k| (lane, addr + k * CHUNK)).collect(), CHUNK),
            (vec![(lane, addr + whole * CHUNK)], len % CHUNK),
        ];
        let (site, tid_of) = (&site, &tid_of);
        let thread = |_: u8| thread;
        let tid = |_: u8| tid;
        let step = id as u32;
        for (chunks, size) in &parts {
            if chunks.is_empty() || *size == 0 {
                continue;
            }
            self.global_access(
                findings,
                site,
                thread,
                p,
                func,
                pc,
                chunks,
                tid,
                *size as u32,
                write,
                step,
                tid_of,
                at,
                &mut charge,
            );
        }
    }

    /// The asynchronous operations of warp `w` signal the mbarrier at `key`, in phase
    /// `phase` (a complete-tx, or the arrive-on of `cp.async.mbarrier.arrive`): a release,
    /// which a wait observing the phase acquires.
    pub fn proxy_release(&mut self, w: WarpId, key: (u32, u32), phase: u64) {
        if let Some(p) = self.proxy(w) {
            self.mbar_arrive(p, key, phase);
        }
    }

    /// Warp `w` waited for its asynchronous operations with a `wait_group` and they
    /// completed: it acquires what they did.
    pub fn proxy_acquire(&mut self, w: WarpId) {
        let Some(p) = self.proxy(w) else {
            return;
        };
        let (p, n) = (p as usize, self.nw);
        let row = self.vc[p * n..(p + 1) * n].to_vec();
        self.join_into(w, &row);
    }

    /// Warp `w` executed an operation that orders its lanes (`bar.warp.sync` and the other
    /// warp collectives, barriers, fences, atomics: [`orders_lanes`]): its clock moves on, so
    /// that its lanes' accesses before it and after it are ordered.
    pub fn warp_order(&mut self, w: WarpId) {
        self.tick(w);
    }

    /// A global synchronising operation ([`Grid::is_sync`]) by warp `w`, the launch's
    /// `index`th: an acquire-release on one join shared by all of the cluster's global
    /// synchronising operations. One join rather than one per word, since a release and an
    /// acquire of this cluster may meet through other clusters (this warp releases a flag that
    /// a CTA of another cluster acquires before releasing another flag that a warp here
    /// acquires), which the cluster's clocks do not see: more order than the memory model
    /// gives, so that a race may be missed, never invented.
    pub fn global_sync(&mut self, w: WarpId, index: u64) {
        let nw = self.nw;
        let row = &mut self.vc[w as usize * nw..(w as usize + 1) * nw];
        join(row, &self.gjoin);
        self.gjoin.copy_from_slice(row);
        self.tick(w);
        self.gsyncs = Some(match self.gsyncs {
            Some((first, _)) => (first, index),
            None => (index, index),
        });
    }

    /// The plain accesses by warp `w` (instruction `pc` of function `func`) of `size` bytes of
    /// global memory, one per executing lane in `lanes` (lane, address; `tid` gives a lane's
    /// thread's linear index in its CTA, `thread` names it): each checked against the
    /// cluster's earlier accesses as shared memory is ([`Race::access`]), and noted in the word's summary for the check
    /// between clusters ([`Grid::merge`]) as `at` (the launch's epoch and the thread). A word
    /// of a page ([`PAGE`]) seen for the first time takes [`GWORD_BYTES`] per word of the
    /// page that `charge` asks of the launch's budget; refused, or past [`MAX_CLUSTER_WORDS`]
    /// words, it is not tracked.
    #[allow(clippy::too_many_arguments)]
    pub fn global_access(
        &mut self,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: impl Fn(u8) -> Thread,
        w: WarpId,
        func: u32,
        pc: u32,
        lanes: &[(u8, u64)],
        tid: impl Fn(u8) -> u16,
        size: u32,
        write: bool,
        step: u32,
        tid_of: impl Fn(WarpId, u8) -> [u32; 3],
        at: Rep,
        mut charge: impl FnMut(u64) -> bool,
    ) {
        let nw = self.nw;
        let vcw = &self.vc[w as usize * nw..(w as usize + 1) * nw];
        let clock = vcw.get(w as usize).copied().unwrap_or(0);
        let syncs = self.gsyncs;
        let kind = usize::from(!write);
        // With no global synchronising operation since the cluster's first global access (in
        // the cluster, or in another resident one), every access has the same epoch.
        let one_epoch = syncs.is_none() && *self.epoch0.get_or_insert(at.e()) == at.e();
        for &(lane, addr) in lanes {
            let whole = addr % 4 == 0 && size % 4 == 0;
            let end = addr.saturating_add(size.max(1) as u64);
            let first = addr / 4;
            // An access is at most a few words (a 16-byte vector, or 32 bytes for the widest).
            let last = ((end - 1) / 4).min(first + 15);
            let n = (last - first + 1) as u8;
            let key = ((w as usize * 32 + (lane & 31) as usize) * MEMO_SLOTS)
                + (first % MEMO_SLOTS as u64) as usize;
            let memo_ok = whole && one_epoch && (w as usize) < MEMO_WARPS;
            if memo_ok {
                if let Some(m) = self.memo.get(key) {
                    if m.gen == self.gen
                        && m.first == first
                        && m.n == n
                        && m.clock == clock
                        && (m.write || (!write && m.read))
                    {
                        continue;
                    }
                }
            }
            // Whether every word was the thread's alone (a [`Memo`] can be made).
            let mut repeats = whole;
            let mut found = None;
            // The index of the previous word, while on its page (the next word then needs no
            // lookup).
            let mut prev: Option<usize> = None;
            for word in first..last + 1 {
                let at_page = match prev {
                    Some(p) if word % PAGE != 0 => self.gwords.touch(p + 1).map(|f| (p + 1, f)),
                    _ => self
                        .gwords
                        .index_of(word, MAX_CLUSTER_WORDS, || charge(GWORD_BYTES * PAGE)),
                };
                prev = at_page.map(|(i, _)| i);
                let Some((i, first)) = at_page else {
                    repeats = false;
                    continue;
                };
                if first {
                    // A page added since grew the words: the summaries follow.
                    if self.gsum.len() < self.gwords.slots.len() {
                        self.gsum
                            .resize(self.gwords.slots.len(), Default::default());
                    }
                    if let Some(s) = self.gsum.get_mut(i) {
                        *s = Default::default();
                    }
                }
                let (Some(cell), Some(sum)) = (self.gwords.slots.get_mut(i), self.gsum.get_mut(i))
                else {
                    continue;
                };
                let mask = if whole {
                    0xf
                } else {
                    byte_mask(word, addr, end)
                };
                let me = Access {
                    warp: w as u16,
                    clock,
                    mask,
                    lane,
                    func,
                    pc,
                    step,
                    lanes: 1 << (lane & 31),
                };
                let heap = |w: &Word| {
                    if w.reads.spilled() {
                        w.reads.capacity()
                    } else {
                        0
                    }
                };
                if let Some(noted) = cell.repeat(me, write) {
                    // In one epoch the summary then holds one of this thread, kind and bytes.
                    if !(noted && one_epoch) {
                        let tid = tid(lane);
                        sum[kind].note(at.with(tid, mask), syncs);
                    }
                    continue;
                }
                repeats = false;
                let cap = heap(cell);
                found = found.or(cell.check(me, vcw, write));
                // Noted below; the word's accesses may now be another thread's.
                cell.rnote = if write { 0 } else { mask };
                let grown = heap(cell).saturating_sub(cap);
                if grown > 0 {
                    // The reads kept are at most one per warp of the cluster: bounded, charged
                    // as they grow (a refusal leaves the budget to report the next allocation).
                    charge((grown * std::mem::size_of::<Access>()) as u64);
                }
                let tid = tid(lane);
                sum[kind].note(at.with(tid, mask), syncs);
            }
            if repeats && memo_ok {
                if self.memo.len() <= key {
                    self.memo.resize(key + 1, Memo::default());
                }
                let gen = self.gen;
                if let Some(m) = self.memo.get_mut(key) {
                    let same = m.gen == gen && m.first == first && m.n == n && m.clock == clock;
                    *m = Memo {
                        first,
                        gen,
                        clock,
                        n,
                        write: write || (same && m.write),
                        read: !write || (same && m.read),
                    };
                }
            } else if !repeats {
                // A word changed otherwise: no memo holds.
                self.gen += 1;
            }
            let Some((kind, other)) = found else {
                continue;
            };
            let them = self.thread_of(other, &tid_of);
            let thread = thread(lane);
            let (me, who) = (
                if self.is_proxy(w) {
                    "this asynchronous operation's access"
                } else {
                    "this access"
                },
                self.other(w, other, &them),
            );
            findings.add(Class::Race, func, pc, || Finding {
                class: Class::Race,
                what: format!(
                    "{kind} hazard on global memory: {me} and that of {who} (same cluster) at {}, which no barrier, mbarrier, atomic, fence or wait for an asynchronous operation's completion orders",
                    site(other.func, other.pc)
                ),
                site: site(func, pc),
                threads: vec![thread, them],
                space: Some("global".into()),
                addr: Some(addr),
                count: 1,
            });
        }
    }
}

/// How a finding names an access of the same warp: lanes of one warp race only where no
/// `bar.warp.sync` (`__syncwarp`) or other ordering came between them.
fn same_warp(w: WarpId, other: Access) -> &'static str {
    if other.warp() == w {
        " (a lane of the same warp, with no bar.warp.sync between)"
    } else {
        ""
    }
}

/// Whether executing `d` orders the lanes of its warp for the race check: CTA and cluster
/// barriers, `bar.warp.sync` ("guarantees memory ordering among threads participating in the
/// barrier", PTX ISA 9.7.13.2), the other warp collectives (`shfl.sync`, `vote.sync`,
/// `match.sync`, `redux.sync`, `elect.sync`, whose ISA text promises no memory ordering: taken
/// as ordering, the conservative reading), mbarrier operations, fences, atomics and strong
/// accesses (every instruction of the ISA's synchronisation family, `shfl`, and every
/// `.sync` or `.aligned` warp-wide instruction: `ldmatrix`, `stmatrix`, `mma.sync`, `wmma`,
/// `wgmma`, which exchange data between the lanes).
fn orders_lanes(d: &crate::code::DInst) -> bool {
    use ptx_ir_core::{Family, Flag, Opcode, Sem};
    d.op.family() == Family::Sync
        || d.op == Opcode::Shfl
        || d.flags.has(Flag::Sync)
        || d.flags.has(Flag::Aligned)
        || d.sem.is_some_and(|s| s != Sem::Weak)
}

/// Global words a cluster's race state tracks at most (1 MiB of global memory); the accesses
/// to further words are not checked.
pub const MAX_CLUSTER_WORDS: usize = 1 << 18;

/// Global words the launch's table of finished clusters' accesses tracks at most (4 MiB of
/// global memory); further words are not checked between clusters.
pub const MAX_GRID_WORDS: usize = 1 << 20;

/// Global words per page of the race check's sparse shadows of global memory: a lookup finds
/// a page, so the lanes of one access (mostly consecutive words) cost a probe per page, not
/// one per word (and the launch's table grows and rehashes per page); small, so that a
/// scattered access pattern wastes little.
pub const PAGE: u64 = 16;

/// A sparse map from global words (address / 4) to `T`, allocated a page of [`PAGE`] words
/// at a time.
#[derive(Debug, Default)]
pub struct Pages<T> {
    /// Page number (word / [`PAGE`]) -> index of its first word in `slots`.
    index: FxHashMap<u64, u32>,
    /// The pages' words, [`PAGE`] per page, in the order the pages were added; past `used`
    /// pages, or where `touched` says so, what an earlier use left (the allocation is kept
    /// from one cluster to the next, and a word is made afresh only when first given out).
    slots: Vec<T>,
    /// Per page in use: the words given out since the page was added.
    touched: Vec<u16>,
    /// Per page in use: its page number (the reverse of `index`).
    numbers: Vec<u64>,
    /// Pages in use.
    used: usize,
    /// The page last looked up, (page number, index): the next lookup mostly wants it again.
    last: Option<(u64, u32)>,
}

impl<T: Default + Clone> Pages<T> {
    /// Word `word`'s entry, its page added when missing if the map holds fewer than `max`
    /// words and `add` (asking the launch's budget for the page) agrees; `None` otherwise.
    fn get_or_add(&mut self, word: u64, max: usize, add: impl FnOnce() -> bool) -> Option<&mut T> {
        let (i, _) = self.index_of(word, max, add)?;
        self.slots.get_mut(i)
    }

    /// [`Pages::get_or_add`]'s index into the pages' words, and whether the word was given
    /// out for the first time (made afresh: state kept beside the map is to be too).
    #[inline(always)]
    fn index_of(
        &mut self,
        word: u64,
        max: usize,
        add: impl FnOnce() -> bool,
    ) -> Option<(usize, bool)> {
        let page = word / PAGE;
        // The page after the last one looked up was mostly added after it (pages are added
        // in the order of first use, and lanes walk memory upwards): no hash probe then.
        let next = |p: u64, b: u32| {
            let k = b as usize / PAGE as usize + 1;
            p.wrapping_add(1) == page && k < self.used && self.numbers.get(k) == Some(&page)
        };
        let base = match self.last {
            Some((p, b)) if p == page => b,
            Some((p, b)) if next(p, b) => {
                let b = b + PAGE as u32;
                self.last = Some((page, b));
                b
            }
            _ => {
                let b = match self.index.get(&page) {
                    Some(&b) => b,
                    None => {
                        let n = self.used * PAGE as usize;
                        if n.saturating_add(PAGE as usize) > max || !add() {
                            return None;
                        }
                        let b = u32::try_from(n).ok()?;
                        if self.slots.len() < n + PAGE as usize {
                            self.slots.resize(n + PAGE as usize, T::default());
                        }
                        match self.touched.get_mut(self.used) {
                            Some(t) => *t = 0,
                            None => self.touched.push(0),
                        }
                        match self.numbers.get_mut(self.used) {
                            Some(q) => *q = page,
                            None => self.numbers.push(page),
                        }
                        self.used += 1;
                        self.index.insert(page, b);
                        b
                    }
                };
                self.last = Some((page, b));
                b
            }
        };
        let i = base as usize + (word % PAGE) as usize;
        Some((i, self.touch(i)?))
    }

    /// Gives out the word at index `i` of a page in use: whether for the first time (then
    /// made afresh).
    #[inline(always)]
    fn touch(&mut self, i: usize) -> Option<bool> {
        let bit = 1u16 << (i % PAGE as usize);
        let t = self.touched.get_mut(i / PAGE as usize)?;
        let first = *t & bit == 0;
        if first {
            *t |= bit;
            *self.slots.get_mut(i)? = T::default();
        }
        Some(first)
    }

    /// The words of the page at `base` (an index of [`Pages::sorted`]) given out since it was
    /// added, one bit each.
    fn touched(&self, base: u32) -> u16 {
        self.touched
            .get(base as usize / PAGE as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The pages, as (page number, index of the first word), in address order.
    fn sorted(&self) -> Vec<(u64, u32)> {
        let mut v: Vec<(u64, u32)> = self.index.iter().map(|(&p, &b)| (p, b)).collect();
        v.sort_unstable();
        v
    }

    /// Forgets every word, keeping the allocations (and what they hold, unseen).
    fn clear(&mut self) {
        self.index.clear();
        self.used = 0;
        self.last = None;
    }
}

/// Host bytes charged for a global word a cluster tracks (its shadow, its summary and the
/// hash table's share).
pub const GWORD_BYTES: u64 =
    (std::mem::size_of::<Word>() + std::mem::size_of::<[Sum; 2]>() + 16) as u64;

/// Host bytes charged for a global word of the launch's table.
pub const GRID_WORD_BYTES: u64 = (std::mem::size_of::<[Sum; 2]>() + 16) as u64;

/// Global synchronising operations a launch counts at most: past them the check between
/// clusters stops (an epoch must fit in [`Rep`]'s 40 bits; a trillion synchronising operations
/// take the interpreter hours).
pub const EPOCH_MAX: u64 = (1 << 40) - 1;

/// A plain global access as the check between clusters remembers it (16 bytes: the summaries
/// of every word a launch touches are made of these).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rep {
    /// The launch's epoch when it happened (how many global synchronising operations the
    /// launch had executed before it, at most [`EPOCH_MAX`]) in bits 24 and up, its thread's
    /// linear index in the CTA in bits 8 to 23, the bytes of the word it touched (0 for no
    /// access) in bits 0 to 7.
    bits: u64,
    /// Its instruction ([`Grid::site`]).
    site: u32,
    /// Its CTA's linear index in the grid.
    pub cta: u32,
}

impl Rep {
    /// An access at epoch `e` by instruction `site` ([`Grid::site`]) of CTA `cta`, its thread
    /// and bytes to be set ([`Rep::with`]).
    pub fn new(e: u64, site: u32, cta: u32) -> Rep {
        Rep {
            bits: e.min(EPOCH_MAX) << 24,
            site,
            cta,
        }
    }

    /// This access by thread `tid` of its CTA to the bytes `mask` of a word.
    fn with(self, tid: u16, mask: u8) -> Rep {
        Rep {
            bits: self.bits & !0xff_ffff | u64::from(tid) << 8 | u64::from(mask),
            ..self
        }
    }

    /// Its epoch.
    fn e(&self) -> u64 {
        self.bits >> 24
    }

    /// Its thread's linear index in its CTA.
    pub fn tid(&self) -> u16 {
        (self.bits >> 8) as u16
    }

    /// The bytes of the word it touched.
    fn mask(&self) -> u8 {
        self.bits as u8
    }

    fn some(&self) -> bool {
        self.mask() != 0
    }
}

/// The plain accesses of one kind (writes or reads) to a global word that the check between
/// clusters needs: for one cluster, or (in the launch's table) for every finished cluster.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum {
    /// The earliest (least epoch).
    lo: Rep,
    /// The latest.
    hi: Rep,
    /// The latest made before its cluster's first global synchronising operation.
    early: Rep,
    /// The earliest made after its cluster's last global synchronising operation.
    late: Rep,
}

impl Sum {
    /// Notes access `r` of a cluster whose global synchronising operations so far are `syncs`
    /// (the first's and the last's indices).
    #[inline(always)]
    fn note(&mut self, r: Rep, syncs: Option<(u64, u64)>) {
        let again = |h: &Rep| h.bits == r.bits && h.cta == r.cta;
        if syncs.is_none() && again(&self.hi) && self.late.some() {
            // A repeat of the latest access's thread, bytes and epoch with no synchronising
            // operation yet (a loop over the same word): `early` and `hi` already hold an
            // access the rule of [`Grid`] cannot tell from it (it looks at epochs and bytes
            // only), `lo` and `late` stay.
            return;
        }
        if !self.lo.some() {
            self.lo = r;
        }
        self.hi = r;
        if syncs.is_none() {
            self.early = r;
        }
        // The access kept as `late` is stale once a synchronising operation followed it.
        if !self.late.some() || syncs.is_some_and(|(_, last)| self.late.e() <= last) {
            self.late = r;
        }
    }
}

/// Whether executing `d` (whose source form is `i`) can order accesses of different clusters,
/// or of warps of one cluster through global memory: an atomic or reduction not on shared
/// memory, a strong (`.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc`, `.volatile`,
/// `.mmio`) operation not on shared, local or parameter memory (fences included), anything at
/// GPU or system scope (`membar.gl` and `.sys` included), bulk reductions into global memory,
/// surface reductions, multimem operations and cluster launch control. A superset of what the
/// memory model lets synchronise between CTAs (PTX ISA 8.7, morally strong operations; 8.8,
/// release and acquire patterns): taking more as synchronising hides races, never invents one.
fn synchronises(d: &crate::code::DInst, i: &ptx_ir_core::Instruction) -> bool {
    use ptx_ir_core::{Modifier, Opcode, Scope, Sem, Space};
    let shared = matches!(
        d.space,
        Some(Space::Shared | Space::SharedCta | Space::SharedCluster)
    );
    let private = matches!(
        d.space,
        Some(Space::Local | Space::Param | Space::ParamEntry | Space::ParamFunc)
    );
    match d.op {
        Opcode::Atom | Opcode::Red => return !shared,
        Opcode::CpReduceAsyncBulk
        | Opcode::CpReduceAsyncBulkTensor
        | Opcode::ClusterlaunchcontrolTryCancel
        | Opcode::Sured
        | Opcode::MultimemLdReduce
        | Opcode::MultimemSt
        | Opcode::MultimemRed => return true,
        _ => {}
    }
    if d.sem.is_some_and(|s| s != Sem::Weak) && !shared && !private {
        return true;
    }
    i.mods
        .iter()
        .any(|m| matches!(m, Modifier::Scope(Scope::Gpu | Scope::Sys | Scope::Gl)))
}

/// Whether `op` issues an asynchronous operation that may access shared memory (its reads
/// and writes are made by the issuing warp's asynchronous proxy: [`Race::async_access`]).
fn async_proxy(op: ptx_ir_core::Opcode) -> bool {
    use ptx_ir_core::Opcode as O;
    matches!(
        op,
        O::CpAsync
            | O::CpAsyncBulk
            | O::CpReduceAsyncBulk
            | O::CpAsyncBulkTensor
            | O::CpReduceAsyncBulkTensor
            | O::WgmmaMmaAsync
            | O::Tcgen05Mma
            | O::Tcgen05Cp
            | O::ClusterlaunchcontrolTryCancel
    )
}

/// [`Grid::is_sync`]: a global synchronising operation ([`synchronises`]).
pub const SYNC_GLOBAL: u8 = 1;

/// [`Grid::is_sync`]: an operation that orders its warp's lanes ([`orders_lanes`]).
pub const SYNC_LANES: u8 = 2;

/// The launch's state of the race check on global memory between clusters.
///
/// Clusters share no barrier: an access of one happens before an access of another only
/// through a chain of synchronising operations at GPU scope ([`synchronises`]) that leaves the
/// first's cluster after its access and enters the second's before its access. Every order
/// the model gives is one of execution, which the interpreter follows, so such a chain needs
/// (i) a synchronising operation executed between the two accesses, (ii) one of the first
/// access's cluster after it and (iii) one of the second's before it. Counting the launch's
/// synchronising operations (an access's epoch is the count before it), two conflicting
/// plain accesses of different clusters are reported when, for both orders, one of the three
/// fails: the epochs are equal, or the earlier came after its cluster's last synchronising
/// operation (`late`), or the later came before its cluster's first (`early`). A necessary
/// condition of happens-before failing, so a reported pair is never ordered; the converse is
/// not checked (a pair with synchronising operations around it may still race).
#[derive(Debug, Default)]
pub struct Grid {
    /// Global synchronising operations executed so far.
    epoch: u64,
    /// Per function, per instruction: [`SYNC_GLOBAL`] and [`SYNC_LANES`] flags.
    sync: Vec<Vec<u8>>,
    /// Per function: the [`Grid::site`] of its first instruction.
    bases: Vec<u32>,
    /// Per global word: the plain accesses of the finished clusters (writes, reads).
    table: Pages<[Sum; 2]>,
    /// Whether the program issues asynchronous operations that touch shared memory (the
    /// clusters' states then have a clock per warp for them: [`Race::async_access`]).
    pub proxies: bool,
}

impl Grid {
    /// The state for a launch of `prog`.
    pub fn new(prog: &crate::load::Program) -> Grid {
        let mut base = 0u32;
        let bases = prog
            .funcs
            .iter()
            .map(|f| {
                let b = base;
                base = base.saturating_add(u32::try_from(f.code.len()).unwrap_or(u32::MAX));
                b
            })
            .collect();
        Grid {
            epoch: 0,
            bases,
            sync: prog
                .funcs
                .iter()
                .map(|f| {
                    f.code
                        .iter()
                        .zip(&f.insts)
                        .map(|(d, i)| {
                            let g = if synchronises(d, i) { SYNC_GLOBAL } else { 0 };
                            g | if orders_lanes(d) { SYNC_LANES } else { 0 }
                        })
                        .collect()
                })
                .collect(),
            table: Pages::default(),
            proxies: prog
                .funcs
                .iter()
                .any(|f| f.code.iter().any(|d| async_proxy(d.op))),
        }
    }

    /// Whether instruction `pc` of function `func` is a global synchronising operation
    /// ([`SYNC_GLOBAL`]) and whether it orders its warp's lanes ([`SYNC_LANES`]).
    pub fn is_sync(&self, func: u32, pc: u32) -> u8 {
        self.sync
            .get(func as usize)
            .and_then(|f| f.get(pc as usize))
            .copied()
            .unwrap_or(0)
    }

    /// The current epoch (the count of global synchronising operations so far).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// A global synchronising operation executes: its index.
    pub fn sync_op(&mut self) -> u64 {
        let i = self.epoch;
        self.epoch = (i + 1).min(EPOCH_MAX);
        i
    }

    /// The number naming instruction `pc` of function `func` in a [`Rep`].
    pub fn site(&self, func: u32, pc: u32) -> u32 {
        self.bases
            .get(func as usize)
            .map_or(0, |b| b.saturating_add(pc))
    }

    /// Checks the global accesses of the finished cluster `rc` against those of the clusters
    /// that finished before it (the rule of [`Grid`]), then adds them to the table (a page
    /// ([`PAGE`]) new to it taking [`GRID_WORD_BYTES`] per word that `charge` asks of the
    /// launch's budget; refused, or past [`MAX_GRID_WORDS`], its words are not kept). `site`
    /// names an instruction, `thread` a [`Rep`]'s thread.
    pub fn merge(
        &mut self,
        rc: &Race,
        findings: &mut crate::check::Findings,
        site: impl Fn(u32, u32) -> Site,
        thread: impl Fn(&Rep) -> Thread,
        mut charge: impl FnMut(u64) -> bool,
    ) {
        if self.epoch >= EPOCH_MAX {
            // Epochs no longer tell accesses apart.
            return;
        }
        let bases = &self.bases;
        for (page, base) in rc.gwords.sorted() {
            let touched = rc.gwords.touched(base);
            for i in 0..PAGE {
                let Some(sum) = rc.gsum.get(base as usize + i as usize) else {
                    continue;
                };
                if touched >> i & 1 == 0 || (!sum[0].lo.some() && !sum[1].lo.some()) {
                    // A word of the page that the cluster did not touch.
                    continue;
                }
                let key = page * PAGE + i;
                let mut b = *sum;
                for s in &mut b {
                    // `late` holds only if no synchronising operation of the cluster followed
                    // it.
                    if rc.gsyncs.is_some_and(|(_, last)| s.late.e() <= last) {
                        s.late = Rep::default();
                    }
                }
                let Some(t) = self
                    .table
                    .get_or_add(key, MAX_GRID_WORDS, || charge(GRID_WORD_BYTES * PAGE))
                else {
                    continue;
                };
                // Writes against writes and reads, reads against writes: none without a write
                // (words only read, mostly).
                let writes = b[0].lo.some() || t[0].lo.some();
                for (kb, ka) in [(0, 0), (0, 1), (1, 0)].into_iter().filter(|_| writes) {
                    if let Some((x, y)) = unordered(&t[ka], &b[kb]) {
                        report(findings, bases, &site, &thread, key, x, y, ka, kb);
                        break;
                    }
                }
                for k in 0..2 {
                    absorb(&mut t[k], &b[k]);
                }
            }
        }
    }
}

/// A pair of conflicting accesses, one of `t` (finished clusters) and one of `b` (another
/// cluster), that nothing can order by the rule of [`Grid`]: (the one of `t`, the one of `b`).
fn unordered(t: &Sum, b: &Sum) -> Option<(Rep, Rep)> {
    let pair = |x: Rep, y: Rep, holds: bool| {
        (holds && x.some() && y.some() && x.mask() & y.mask() != 0).then_some((x, y))
    };
    // An access of `t` after its cluster's last synchronising operation, not after one of
    // `b` (or at the same epoch).
    pair(t.late, b.hi, t.late.e() <= b.hi.e())
        // An access of `b` before its cluster's first, not before one of `t`.
        .or_else(|| pair(t.lo, b.early, b.early.e() >= t.lo.e()))
        // The same with `b` first.
        .or_else(|| pair(t.hi, b.late, b.late.e() <= t.hi.e()))
        .or_else(|| pair(t.early, b.lo, t.early.e() >= b.lo.e()))
}

/// Adds the accesses `b` of a cluster to `t`, keeping the extremes.
fn absorb(t: &mut Sum, b: &Sum) {
    if b.lo.some() && (!t.lo.some() || b.lo.e() < t.lo.e()) {
        t.lo = b.lo;
    }
    if b.hi.some() && (!t.hi.some() || b.hi.e() >= t.hi.e()) {
        t.hi = b.hi;
    }
    if b.late.some() && (!t.late.some() || b.late.e() < t.late.e()) {
        t.late = b.late;
    }
    if b.early.some() && (!t.early.some() || b.early.e() > t.early.e()) {
        t.early = b.early;
    }
}

/// Records the race between `x` (kind `kx`: 0 a write, 1 a read) and `y` (kind `ky`) of
/// different clusters on global word `word`, located at the later one.
#[allow(clippy::too_many_arguments)]
fn report(
    findings: &mut crate::check::Findings,
    bases: &[u32],
    site: impl Fn(u32, u32) -> Site,
    thread: impl Fn(&Rep) -> Thread,
    word: u64,
    x: Rep,
    y: Rep,
    kx: usize,
    ky: usize,
) {
    let ((first, kf), (later, kl)) = if x.e() > y.e() {
        ((y, ky), (x, kx))
    } else {
        ((x, kx), (y, ky))
    };
    let kind = match (kl, kf) {
        (0, 0) => "write-after-write",
        (0, _) => "write-after-read",
        _ => "read-after-write",
    };
    let (me, them) = (thread(&later), thread(&first));
    let addr = word * 4 + u64::from(later.mask().trailing_zeros());
    let (lf, lpc) = unsite(bases, later.site);
    let (ff, fpc) = unsite(bases, first.site);
    findings.add(Class::Race, lf, lpc, || Finding {
        class: Class::Race,
        what: format!(
            "{kind} hazard on global memory with {them} of another cluster at {}, which no atomic, strong access or GPU-scope fence can order before it (PTX ISA 8.7.1: a data race)",
            site(ff, fpc)
        ),
        site: site(lf, lpc),
        threads: vec![me, them],
        space: Some("global".into()),
        addr: Some(addr),
        count: 1,
    });
}

/// The function and instruction of [`Grid::site`] `site`, given each function's first site.
fn unsite(bases: &[u32], site: u32) -> (u32, u32) {
    // The last function starting at or before it (a function without instructions starts
    // where the next does).
    let f = bases.partition_point(|&b| b <= site).saturating_sub(1);
    let base = bases.get(f).copied().unwrap_or(0);
    (f as u32, site - base.min(site))
}

/// `a` becomes the element-wise maximum of `a` and `b`.
fn join(a: &mut [u32], b: &[u32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_give_out_fresh_words_after_clear() {
        let mut p: Pages<u32> = Pages::default();
        let (i, first) = p.index_of(35, 1 << 10, || true).expect("added");
        assert!(first);
        p.slots[i] = 7;
        assert_eq!(p.index_of(35, 1 << 10, || true), Some((i, false)));
        assert_eq!(p.slots[i], 7);
        assert_eq!(
            p.touched(i as u32 / PAGE as u32 * PAGE as u32),
            1 << (35 % PAGE)
        );
        p.clear();
        // The allocation is kept, what it held is not given out again.
        let (j, first) = p.index_of(32 + 35 % PAGE, 1 << 10, || true).expect("added");
        assert!(first);
        assert_eq!(j, i);
        assert_eq!(p.slots[j], 0);
        // A refused page is not added.
        assert_eq!(p.index_of(1000, 1 << 10, || false), None);
        assert_eq!(p.index_of(1000, PAGE as usize, || true), None);
    }

    #[test]
    fn sites_name_function_and_instruction() {
        // Function 1 has no instructions: it starts where function 2 does.
        let bases = [0, 5, 5, 9];
        for (f, pc) in [(0, 0), (0, 4), (2, 0), (2, 3), (3, 0), (3, 100)] {
            assert_eq!(unsite(&bases, bases[f as usize] + pc), (f, pc));
        }
        let r = Rep::new(EPOCH_MAX + 5, 17, 3).with(1023, 0b1010);
        assert_eq!(
            (r.e(), r.tid(), r.mask(), r.site, r.cta),
            (EPOCH_MAX, 1023, 0b1010, 17, 3)
        );
    }
}
