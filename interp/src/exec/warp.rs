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

use crate::code::FuncId;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::rc::Rc;

/// A caller frame: the call instruction to return after, and the caller's frame base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The calling function.
    pub func: FuncId,
    /// The pc of the `call`.
    pub pc: u32,
    /// The caller's frame base.
    pub base: u32,
    /// The caller's [`Group::sbase`].
    pub sbase: u32,
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

/// A group's caller frames, outermost first, as a persistent list shared between groups: a call
/// pushes and a return pops in O(1) whatever the depth (groups split off a group share its
/// chain), and comparing two chains costs O(log depth) through jump pointers.
#[derive(Clone, Default)]
pub struct Chain(Option<Rc<Node>>);

/// One caller frame of a [`Chain`].
struct Node {
    frame: Frame,
    /// Frames in the chain up to and including this one.
    depth: u32,
    parent: Chain,
    /// An ancestor chosen so that [`Chain::ancestor`] takes O(log depth) steps (Myers'
    /// skew-binary jump pointers: they depend only on the depth).
    jump: Chain,
}

impl Drop for Node {
    // Dropping a long chain node by node with the default recursive drop would overflow the
    // host stack; unlink iteratively instead.
    fn drop(&mut self) {
        if self.parent.0.is_none() && self.jump.0.is_none() {
            return;
        }
        let mut work: SmallVec<[Chain; 4]> = SmallVec::new();
        work.push(std::mem::take(&mut self.parent));
        work.push(std::mem::take(&mut self.jump));
        while let Some(c) = work.pop() {
            if let Some(rc) = c.0 {
                if let Ok(mut n) = Rc::try_unwrap(rc) {
                    work.push(std::mem::take(&mut n.parent));
                    work.push(std::mem::take(&mut n.jump));
                }
            }
        }
    }
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Only the innermost frame: a chain can be as deep as the stack model allows.
        write!(f, "Chain(depth {}, last {:?})", self.depth(), self.last())
    }
}

impl PartialEq for Chain {
    fn eq(&self, o: &Chain) -> bool {
        self.depth() == o.depth() && Chain::cmp_same_depth(self, o) == Ordering::Equal
    }
}

impl Chain {
    /// Number of frames (the call depth).
    #[inline]
    pub fn depth(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.depth as usize)
    }

    /// The innermost frame.
    pub fn last(&self) -> Option<Frame> {
        self.0.as_ref().map(|n| n.frame)
    }

    /// The chain with `f` appended.
    pub fn push(&self, f: Frame) -> Chain {
        let depth = self.depth() as u32 + 1;
        let jump = match &self.0 {
            Some(p) => {
                let j = &p.jump;
                let jj = j.0.as_ref().map(|n| n.jump.clone()).unwrap_or_default();
                if j.0.is_some() && p.depth as usize - j.depth() == j.depth() - jj.depth() {
                    jj
                } else {
                    self.clone()
                }
            }
            None => Chain(None),
        };
        Chain(Some(Rc::new(Node {
            frame: f,
            depth,
            parent: self.clone(),
            jump,
        })))
    }

    /// The chain without its innermost frame.
    pub fn pop(&self) -> Chain {
        self.0
            .as_ref()
            .map(|n| n.parent.clone())
            .unwrap_or_default()
    }

    fn ptr_eq(a: &Chain, b: &Chain) -> bool {
        match (&a.0, &b.0) {
            (None, None) => true,
            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
            _ => false,
        }
    }

    /// The prefix of `d` frames (`d` at most the depth).
    fn ancestor(&self, d: usize) -> &Chain {
        let mut c = self;
        while let Some(n) = &c.0 {
            if n.depth as usize <= d {
                break;
            }
            c = if n.jump.depth() >= d {
                &n.jump
            } else {
                &n.parent
            };
        }
        c
    }

    /// Program order of two chains of the same depth, outermost frame first.
    fn cmp_same_depth(a: &Chain, b: &Chain) -> Ordering {
        if Chain::ptr_eq(a, b) {
            return Ordering::Equal;
        }
        // The deepest shared node: jump pointers of equal depths have equal depths.
        let (mut x, mut y) = (a, b);
        while !Chain::ptr_eq(x, y) {
            let (Some(nx), Some(ny)) = (&x.0, &y.0) else {
                break;
            };
            if Chain::ptr_eq(&nx.jump, &ny.jump) {
                x = &nx.parent;
                y = &ny.parent;
            } else {
                x = &nx.jump;
                y = &ny.jump;
            }
        }
        // Below it the frames differ as nodes; compare them as values from the outermost on
        // (distinct nodes with equal frames only arise from groups that reached the same call
        // separately and were kept apart by a barrier, so this loop is short).
        for d in x.depth() + 1..=a.depth() {
            let fa = a.ancestor(d).last();
            let fb = b.ancestor(d).last();
            let c = fa.map(|f| (f.func, f.pc)).cmp(&fb.map(|f| (f.func, f.pc)));
            if c != Ordering::Equal {
                return c;
            }
        }
        Ordering::Equal
    }
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
    /// Bytes of the GPU's per-thread stack in use above this activation's frame: module
    /// `.local` variables and the callers' frames (`alloca` memory is per lane, counted apart).
    pub sbase: u32,
    /// Caller frames.
    pub callers: Chain,
    /// Whether and why the group waits.
    pub wait: Wait,
}

impl Group {
    /// Call depth (0 in the kernel).
    #[inline]
    pub fn depth(&self) -> usize {
        self.callers.depth()
    }

    /// Program order of two groups' positions: call chains frame by frame, outermost first,
    /// then the pc; a caller's position is its `call`.
    pub fn order(&self, o: &Group) -> Ordering {
        let (da, db) = (self.depth(), o.depth());
        let n = da.min(db);
        let c = Chain::cmp_same_depth(self.callers.ancestor(n), o.callers.ancestor(n));
        if c != Ordering::Equal {
            return c;
        }
        let here = |g: &Group, d: usize| -> (FuncId, u32) {
            if d > n {
                let f = g.callers.ancestor(n + 1).last();
                f.map_or((g.func, g.pc), |f| (f.func, f.pc))
            } else {
                (g.func, g.pc)
            }
        };
        let c = here(self, da).cmp(&here(o, db));
        if c != Ordering::Equal {
            return c;
        }
        da.cmp(&db)
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
    /// Registers per call depth.
    pub regs: Vec<crate::regs::Regs>,
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
    pub wg: Option<Box<super::state::wgmma::WgState>>,
    /// With the `init` check: which bytes of each lane's [`Warp::stacks`] were written since
    /// the frame holding them was made (empty without the check).
    pub local_init: Vec<crate::check::Shadow>,
    /// With the `init` check: which bytes of each lane's `alloca` memory were written since
    /// they were allocated, byte `DYN_TOP - 1 - a` for address `a` (empty without the check).
    pub alloca_init: Vec<crate::check::Shadow>,
    /// With the `reg` check: per call depth, per register slot ([`crate::regs::dense`]), the
    /// lanes that have written it since the function was entered (empty without the check).
    pub reg_written: Vec<Vec<u32>>,
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
