//! A warp: 32 lanes, their registers and stacks, and the SIMT groups that schedule them.
//!
//! Reconvergence: every runnable lane belongs to exactly one *group* — the lanes sharing a call
//! chain and a program counter. The warp always runs the group that is earliest in program order
//! (its call chain compared level by level, then its pc), and groups reaching the same point
//! merge. Lanes that branch ahead therefore wait for lanes behind them, loops run until every
//! lane has left them, `brx.idx` may split a group into any number of groups, and lanes that
//! returned from a call wait (their chain says "after the call") for lanes still inside it. For
//! code laid out in program order this is immediate-post-dominator reconvergence; otherwise it is
//! still a valid schedule of independent threads (sm_70+), and warp-synchronous instructions
//! wait for the lanes they name.

use crate::load::FuncId;
use smallvec::SmallVec;
use std::cmp::Ordering;

/// A caller frame: the call instruction to return after, and the caller's frame base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The calling function.
    pub func: FuncId,
    /// The pc of the `call`.
    pub pc: u32,
    /// The caller's frame base.
    pub base: u32,
}

/// A lane's stack pointer bounds in one function activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpFrame {
    /// The stack pointer when the function was entered.
    pub entry: u32,
    /// The lowest stack pointer `alloca` has produced in this activation.
    pub low: u32,
}

impl SpFrame {
    /// Bounds of an activation entered with stack pointer `sp`.
    pub const fn at(sp: u32) -> SpFrame {
        SpFrame { entry: sp, low: sp }
    }
}

/// Why a group is not runnable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Runnable.
    Ready,
    /// Arrived at CTA barrier `id`; waits for its release (pc stays at the barrier).
    Barrier(u8),
    /// A warp-synchronous instruction waits for lanes of its membermask; retried when the
    /// warp's exited set changes from the one recorded.
    WarpSync(u32),
    /// `barrier.cluster.wait`: waits for the cluster barrier's phase to complete.
    Cluster,
}

/// Lanes executing together.
#[derive(Clone, Debug)]
pub struct Group {
    /// The lanes.
    pub mask: u32,
    /// The function being executed.
    pub func: FuncId,
    /// Its pc.
    pub pc: u32,
    /// Its frame base in each lane's stack.
    pub base: u32,
    /// Caller frames, outermost first.
    pub callers: SmallVec<[Frame; 2]>,
    /// Whether and why the group waits.
    pub wait: Wait,
}

impl Group {
    /// Call depth (0 in the kernel).
    #[inline]
    pub fn depth(&self) -> usize {
        self.callers.len()
    }

    /// Program order of two groups' positions.
    pub fn order(&self, o: &Group) -> Ordering {
        let n = self.callers.len().min(o.callers.len());
        for i in 0..n {
            let (a, b) = (&self.callers[i], &o.callers[i]);
            let c = (a.func, a.pc).cmp(&(b.func, b.pc));
            if c != Ordering::Equal {
                return c;
            }
        }
        let here = |g: &Group, i: usize| -> (FuncId, u32) {
            match g.callers.get(i) {
                Some(f) => (f.func, f.pc),
                None => (g.func, g.pc),
            }
        };
        let c = here(self, n).cmp(&here(o, n));
        if c != Ordering::Equal {
            return c;
        }
        self.callers.len().cmp(&o.callers.len())
    }

    /// Same position (same chain, same pc).
    pub fn same_place(&self, o: &Group) -> bool {
        self.func == o.func && self.pc == o.pc && self.callers == o.callers
    }
}

/// Per-warp state.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Rank of the warp's CTA in its cluster.
    pub cta: u32,
    /// Warp index within the CTA.
    pub index: u32,
    /// Lanes that exist (a CTA's last warp may be partial).
    pub valid: u32,
    /// Lanes that have exited.
    pub exited: u32,
    /// Runnable and waiting groups, in program order.
    pub groups: Vec<Group>,
    /// Registers per call depth: `regs[d][slot * 32 + lane]`.
    pub regs: Vec<Vec<u64>>,
    /// Each lane's local memory (module `.local`, then frames), from address 0.
    pub stacks: Vec<Vec<u8>>,
    /// Each lane's `alloca` memory, the `.local` addresses `[DYN_TOP - len, DYN_TOP)`
    /// ([`crate::mem::DYN_TOP`]); grown (never shrunk) as the lane's stack pointer goes down.
    pub dyn_stacks: Vec<Vec<u8>>,
    /// Each lane's stack pointer: the lowest address of its live `alloca` memory (`DYN_TOP`
    /// when there is none). What `stacksave` reads and `stackrestore` writes.
    pub sp: [u32; 32],
    /// Per call depth and lane: the stack pointer at entry to the function (restored by its
    /// return) and the lowest value it has had in that function (the bounds of a
    /// `stackrestore` there).
    pub sp_frames: Vec<[SpFrame; 32]>,
    /// `%tid` per lane.
    pub tid: [[u32; 3]; 32],
    /// Cluster-barrier phase each lane last arrived in (`u64::MAX`: not arrived).
    pub cluster_arrived: [u64; 32],
    /// Backward branches taken while other groups of the warp were ready.
    pub spins: u32,
    /// A group (by mask) that spun too long: the next picks prefer any other ready group.
    pub avoid: Option<u32>,
    /// wgmma state, once the warp has executed a wgmma instruction.
    pub wg: Option<Box<super::wgmma::WgState>>,
}

/// Backward branches a group may take while other groups wait before the warp lets them run
/// (forward progress for spin-waits, as independent thread scheduling guarantees).
pub const SPIN_LIMIT: u32 = 256;

impl Warp {
    /// Inserts a group in program order, merging with a group at the same place unless either
    /// is parked at a barrier.
    pub fn insert(&mut self, g: Group) {
        if g.mask == 0 {
            return;
        }
        let mut pos = self.groups.len();
        for (i, h) in self.groups.iter_mut().enumerate() {
            match g.order(h) {
                Ordering::Less => {
                    pos = i;
                    break;
                }
                Ordering::Equal => {
                    let parked = |w: Wait| matches!(w, Wait::Barrier(_) | Wait::Cluster);
                    if !parked(h.wait) && !parked(g.wait) && h.same_place(&g) {
                        h.mask |= g.mask;
                        if h.wait != g.wait {
                            h.wait = Wait::Ready;
                        }
                        return;
                    }
                }
                Ordering::Greater => {}
            }
        }
        self.groups.insert(pos, g);
    }

    /// Re-sorts and merges after groups changed place (barrier release).
    pub fn normalize(&mut self) {
        let gs = std::mem::take(&mut self.groups);
        for g in gs {
            self.insert(g);
        }
    }

    /// The first runnable group, re-arming warp-sync waits whose recorded exited set is stale.
    pub fn next_ready(&mut self) -> Option<usize> {
        if let Some(avoid) = self.avoid {
            if let Some(i) = self
                .groups
                .iter()
                .position(|g| g.wait == Wait::Ready && g.mask != avoid)
            {
                return Some(i);
            }
            self.avoid = None;
        }
        if let Some(i) = self.groups.iter().position(|g| g.wait == Wait::Ready) {
            return Some(i);
        }
        let exited = self.exited;
        let mut any = None;
        for (i, g) in self.groups.iter_mut().enumerate() {
            if let Wait::WarpSync(e) = g.wait {
                if e != exited {
                    g.wait = Wait::Ready;
                    any.get_or_insert(i);
                }
            }
        }
        any
    }

    /// Whether every lane has exited.
    pub fn done(&self) -> bool {
        self.groups.is_empty()
    }
}
