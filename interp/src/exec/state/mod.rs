//! The state of a launch as data with plain methods: the launch-wide [`Machine`], each running
//! [`Cluster`] (its CTAs' shared memory and barriers), and in the child modules the state each
//! mechanism keeps in them (or, for [`wgmma`], in a warp), named after the module that executes
//! its instructions ([`inflight`] for `exec/inflight.rs`, [`mbarrier`] for `exec/mbarrier.rs`,
//! ...). The warps are `exec/warp.rs`.
//!
//! Nothing here executes an instruction or calls a module that does: the scheduler (`mod.rs`,
//! `step.rs`), the per-instruction context (`ctx.rs`) and every handler import this module,
//! and it imports none of them, so that no import circle runs through the shared types.

pub mod inflight;
pub mod mbarrier;
pub mod proxy;
pub mod tmem;
pub mod warpgroup;
pub mod wgmma;

use crate::code::FuncId;
use crate::load::{self, Program};
use crate::mem::{self, Budget, Global};
use rustc_hash::FxHashMap;

/// Counters of a run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions executed, counted once per thread that issued them.
    pub thread_instructions: u64,
    /// Instructions issued, counted once per warp.
    pub warp_instructions: u64,
}

/// How `mul` and `add`/`sub` without rounding modifiers execute (the ISA lets them fuse).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Contraction {
    /// As ptxas compiles them: fused where ptxas fuses (docs/INTERP.md, "Contraction and other ptxas lowerings").
    #[default]
    Ptxas,
    /// The ISA's one-by-one reading: each instruction rounds.
    Never,
    /// As [`Contraction::Ptxas`], and [`Outcome::contraction`](crate::Outcome::contraction)
    /// lists the fused operations whose result differs from the one-by-one reading.
    Report,
}

/// A multicast object of the launch: its multimem address range and each device's replica.
#[derive(Clone, Debug)]
pub struct Multicast {
    /// The first multimem address.
    pub base: u64,
    /// Bytes.
    pub len: u64,
    /// Each device's replica's global address.
    pub replicas: Vec<u64>,
}

/// A texture or surface object of the launch: its argument and its buffer's global address.
#[derive(Clone, Debug)]
pub struct Image {
    /// The texels' global address.
    pub base: u64,
    /// The `Arg::Texture` or `Arg::Surface` it was made from.
    pub arg: crate::exec::Arg,
}

/// Launch-wide state.
pub struct Machine<'p> {
    /// The program.
    pub prog: &'p Program,
    /// The launch's texture and surface objects, indexed by the low bits of their handles.
    pub images: std::sync::Arc<Vec<Image>>,
    /// The launch's multicast objects.
    pub multicasts: std::sync::Arc<Vec<Multicast>>,
    /// Global memory.
    pub global: Global,
    /// The constant bank.
    pub consts: Vec<u8>,
    /// The kernel parameter buffer.
    pub kparams: Vec<u8>,
    /// Grid dimensions in CTAs.
    pub grid: [u32; 3],
    /// CTA dimensions in threads.
    pub block: [u32; 3],
    /// Cluster dimensions in CTAs.
    pub cluster: [u32; 3],
    /// Whether the launch named clusters.
    pub explicit_cluster: bool,
    /// Bytes of dynamic shared memory.
    pub dyn_smem: u32,
    /// Offset of the dynamic shared array in the kernel's shared window (its static bytes,
    /// aligned): [`crate::load::Func::shared_dynamic_offset`] of the entry.
    pub dyn_smem_offset: u32,
    /// Thread-instructions left.
    pub fuel: u64,
    /// The fuel all workers of a parallel launch draw on, [`Machine::refuel`]'s source.
    pub fuel_pool: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// Counters.
    pub stats: Stats,
    /// How unrounded `mul`/`add` pairs execute.
    pub contraction: Contraction,
    /// With [`Contraction::Report`]: (function, index) of fused operations whose result
    /// differed, with the number of thread executions that differed.
    pub contraction_diffs: std::collections::BTreeMap<(FuncId, u32), u64>,
    /// Counts state changes (stores, mbarrier and barrier operations, completions, exits), so
    /// that a launch in which only polls run can be recognised as stuck.
    pub events: u64,
    /// The last asynchronous operation id handed out.
    pub next_op: u64,
    /// Global ranges of asynchronous operations in flight.
    pub gwatch: inflight::GlobalWatch,
    /// Clusters not yet launched, in launch order.
    pub queue: ClusterQueue,
    /// Clusters cancelled by `clusterlaunchcontrol.try_cancel`.
    pub cancelled: u64,
    /// Most clusters running at once.
    pub resident: u32,
    /// `mbarrier.try_wait` returns instead of suspending (nothing else could run).
    pub try_timeout: bool,
    /// Per-thread stack in bytes (frames, call costs and `alloca` memory).
    pub stack_limit: u32,
    /// Host memory charged so far and the limit.
    pub mem: Budget,
    /// The kernel's `.maxnreg`: each warp's register count when it starts (for `setmaxnreg`).
    pub maxnreg: Option<u32>,
    /// Whether generic-proxy writes are tracked for the cross-proxy fence rule (`exec/proxy.rs`).
    pub proxy_watch: bool,
    /// Generic-proxy writes to global memory that no proxy fence has followed.
    pub gproxy: proxy::GlobalWrites,
    /// Rounds in a row in which only suspended instructions ran, since [`Machine::events`] last
    /// changed (the scheduler's deadlock count).
    pub stalls: u32,
    /// [`Machine::events`] when `stalls` last restarted.
    pub stall_events: u64,
    /// The checks the launch runs (`crate::check`).
    pub checks: crate::check::Checks,
    /// What they found.
    pub findings: crate::check::Findings,
    /// Some global buffer is uninitialised (with the `init` check).
    pub global_init: bool,
    /// With the `init` check: reads of unwritten local memory not reported yet, by thread
    /// (`ctaid`, `tid`): a write of the same bytes by the thread takes one back (a bit-field
    /// store's read-modify-write), the others are findings when the launch ends.
    pub pending_local: rustc_hash::FxHashMap<([u32; 3], [u32; 3]), Vec<PendingLocal>>,
    /// With the `reg` check: what each instruction reads and writes (`exec/regcheck.rs`).
    pub reg_io: Vec<Vec<super::regcheck::RegIo>>,
    /// With the `race` check: global memory between clusters (`exec/race.rs`).
    pub grace: Option<Box<super::race::Grid>>,
}

/// A CTA barrier's state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bar {
    /// Threads arrived in the current phase.
    pub arrived: u32,
    /// The thread count it waits for, if an arriving instruction gave one.
    pub expected: Option<u32>,
    /// Arrived threads whose `bar.red` predicate holds.
    pub popc: u32,
    /// Whether every arrived thread's predicate holds (`bar.red.and`).
    pub all: bool,
    /// Whether some arrived thread's predicate holds (`bar.red.or`).
    pub any: bool,
}

/// Per-cluster state.
pub struct Cluster {
    /// `%clusterid`
    pub id: [u32; 3],
    /// `%ctaid` of each CTA, by cluster rank.
    pub ctaid: Vec<[u32; 3]>,
    /// Shared memory of each CTA.
    pub shared: Vec<Vec<u8>>,
    /// The 16 barriers of each CTA.
    pub bars: Vec<[Bar; 16]>,
    /// Threads arrived at the cluster barrier in the current phase.
    pub cbar_arrived: u32,
    /// The cluster barrier's phase.
    pub cbar_phase: u64,
    /// Asynchronous operations in flight and the shared-memory shadow.
    pub inflight: inflight::Inflight,
    /// Initialised mbarrier objects by (rank, offset).
    pub mbars: FxHashMap<(u32, u32), mbarrier::Mbar>,
    /// mbarrier objects invalidated and not initialised again, with the `mbarrier.inval`
    /// (function, pc), for messages.
    pub mbars_invalidated: FxHashMap<(u32, u32), (crate::code::FuncId, u32)>,
    /// Tensor memory of each CTA.
    pub tmem: Vec<tmem::CtaTmem>,
    /// `.cta_group::2` tensor-memory requests waiting for the peer CTA.
    pub tmem_pair: Vec<tmem::PairReq>,
    /// CTAs that observed a failed `clusterlaunchcontrol.try_cancel`.
    pub clc_failed: Vec<bool>,
    /// CTAs all of whose threads exited.
    pub cta_done: Vec<bool>,
    /// `setmaxnreg` sequences per (rank, warpgroup).
    pub setmaxnreg: FxHashMap<(u32, u32), warpgroup::Seq>,
    /// Generic-proxy writes to shared memory that no proxy fence has followed.
    pub proxy: proxy::SharedWrites,
    /// Bytes charged to [`Machine::mem`] for this cluster, released when it retires.
    pub charged: u64,
    /// With the `init` check: which bytes of each CTA's shared memory were written.
    pub shared_init: Vec<crate::check::Shadow>,
    /// With the `race` check: the cluster's vector clocks and shared-memory shadow.
    pub race: Option<Box<super::race::Race>>,
}

/// The clusters of a grid not yet launched, in launch order (x fastest, then y, then z),
/// produced one at a time so that a grid of any size costs nothing before it runs.
#[derive(Clone, Debug)]
pub struct ClusterQueue {
    next: u64,
    step: u64,
    total: u64,
    dims: [u32; 3],
}

impl ClusterQueue {
    /// All clusters of a grid of `dims` clusters.
    pub fn new(dims: [u32; 3]) -> ClusterQueue {
        ClusterQueue::every(dims, 0, 1)
    }

    /// The clusters `first`, `first + step`, ... of a grid of `dims` clusters: one worker's
    /// share of a parallel launch.
    pub fn every(dims: [u32; 3], first: u64, step: u64) -> ClusterQueue {
        ClusterQueue {
            next: first,
            step: step.max(1),
            total: dims.iter().map(|&d| d as u64).product(),
            dims,
        }
    }

    /// Takes the next cluster id.
    pub fn pop_front(&mut self) -> Option<[u32; 3]> {
        if self.next >= self.total {
            return None;
        }
        let i = self.next;
        self.next = self.next.saturating_add(self.step);
        let (dx, dy) = (self.dims[0] as u64, self.dims[1] as u64);
        Some([
            (i % dx) as u32,
            (i / dx % dy) as u32,
            (i / (dx * dy)) as u32,
        ])
    }
}

/// GPU stack bytes an activation of `f` at call depth `depth` holds: its `.local` frame, and
/// below the kernel the registers the call saved ([`mem::CALL_FRAME_COST`]).
pub fn own_stack(f: &load::Func, depth: usize) -> u32 {
    let save = if depth > 0 { mem::CALL_FRAME_COST } else { 0 };
    f.stack_bytes.saturating_add(save)
}

impl Machine<'_> {
    /// Fuel runs short for an instruction of `lanes` thread-instructions: a worker of a parallel
    /// launch takes more from the launch's pool; a serial launch, or a drained pool, is out.
    #[cold]
    pub fn refuel(&mut self, lanes: u64) -> Result<(), crate::error::Error> {
        use std::sync::atomic::Ordering::Relaxed;
        /// Thread-instructions a worker takes at a time: a few milliseconds of work, so that the
        /// pool is touched rarely and little is left stranded in workers when it runs dry.
        const CHUNK: u64 = 1 << 22;
        if let Some(pool) = &self.fuel_pool {
            let want = CHUNK.max(lanes);
            if let Ok(had) = pool.fetch_update(Relaxed, Relaxed, |p| {
                (p.saturating_add(self.fuel) >= lanes).then(|| p.saturating_sub(want))
            }) {
                self.fuel += had.min(want);
                if self.fuel >= lanes {
                    return Ok(());
                }
            }
        }
        Err(crate::error::Error::FuelExhausted(
            self.stats.thread_instructions,
        ))
    }
}

/// A read of unwritten local memory that a write of the same bytes may still take back.
#[derive(Clone, Debug)]
pub struct PendingLocal {
    /// The instruction.
    pub fid: u32,
    /// Its index.
    pub pc: u32,
    /// The thread.
    pub thread: crate::error::Thread,
    /// The bytes read, `[lo, hi)` (local addresses).
    pub lo: u64,
    /// See `lo`.
    pub hi: u64,
    /// The first byte not written.
    pub first: u64,
}
