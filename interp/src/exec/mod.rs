//! Launching a kernel: grid, clusters, CTAs, warps, the scheduler and barriers.
//!
//! Memory model: one warp-instruction executes at a time, its lanes in lane order, so every
//! execution is sequentially consistent; weak, relaxed, volatile, acquire and release accesses,
//! `.nc` and `ldu` loads, fences and `membar` are all accepted and need no further action.
//! Asynchronous operations (`cp.async*`, bulk and tensor copies) complete as late as their
//! completion mechanism allows and are checked against early accesses ([`inflight`]).
//! Clusters are queued in launch order and at most [`Launch::resident_clusters`] (default 1) run
//! at once (a grid that needs more clusters at once to make progress is reported as a
//! deadlock); the CTAs of the running clusters and the warps of a CTA are interleaved
//! round-robin, [`SLICE`] warp-instructions at a time, so spin-waits on memory written by
//! another warp terminate.

pub mod ctx;
pub mod special;
mod step;
pub mod warp;

pub mod inflight;

mod arith;
mod async_copy;
mod bulk;
mod cluster;
mod control;
mod matrix;
mod mbarrier;
mod memops;
mod mma;
mod stack;
mod tensor;
mod tmem;
mod warpgroup;
mod warpops;
pub mod wgmma;

use crate::error::Error;
use crate::load::{FuncId, ParamLoc, Program};
use crate::mem::{self, Global};
use crate::tmap::TensorMapArg;
use ptx_ir_core::FunctionKind;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
use warp::{Group, Wait, Warp};

/// Warp-instructions a warp runs before the scheduler moves to the next warp.
pub const SLICE: u32 = 256;

/// Default fuel: thread-instructions per launch.
pub const DEFAULT_FUEL: u64 = 1 << 32;

/// A kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A scalar, as the little-endian bytes of its parameter.
    Scalar(Vec<u8>),
    /// A global-memory buffer; the parameter receives its address. Read back after the run.
    Buffer(Vec<u8>),
    /// A tensor map over another argument's buffer (see [`crate::tmap`]): a 128-byte parameter
    /// receives the object itself, an 8-byte one the address of a global copy.
    TensorMap(TensorMapArg),
}

/// What an argument specification asked for, beyond the argument itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// A scalar.
    Scalar,
    /// `buf:PATH`: a buffer read from a file, to be written back.
    File(std::path::PathBuf),
    /// `zeros:BYTES` or `hex:BYTES`: a buffer to print after the run.
    Shown,
    /// `iota32:N`: an input buffer, not printed.
    Input,
}

fn parse_float_bits(v: &str, width: u32) -> Result<u64, String> {
    let hex = |h: &str| u64::from_str_radix(h, 16).map_err(|_| format!("bad float `{v}`"));
    if let Some(h) = v.strip_prefix("0f").or_else(|| v.strip_prefix("0F")) {
        let b = hex(h)?;
        return Ok(if width == 64 {
            (f32::from_bits(b as u32) as f64).to_bits()
        } else {
            b
        });
    }
    if let Some(h) = v.strip_prefix("0d").or_else(|| v.strip_prefix("0D")) {
        let b = hex(h)?;
        return Ok(if width == 32 {
            (f64::from_bits(b) as f32).to_bits() as u64
        } else {
            b
        });
    }
    let x: f64 = v.parse().map_err(|_| format!("bad float `{v}`"))?;
    Ok(if width == 32 {
        (x as f32).to_bits() as u64
    } else {
        x.to_bits()
    })
}

fn parse_int(v: &str) -> Result<i128, String> {
    let (neg, t) = match v.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, v),
    };
    let mag = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16)
    } else {
        t.parse::<i128>()
    }
    .map_err(|_| format!("bad integer `{v}`"))?;
    Ok(if neg { -mag } else { mag })
}

impl Arg {
    /// Parses an argument specification: `u32:7`, `s64:-3`, `f32:1.5`,
    /// `f64:0d3FF0000000000000` (any of `u8 s8 b8 u16 s16 b16 u32 s32 b32 u64 s64 b64 f32 f64`),
    /// `buf:PATH`, `zeros:BYTES`, `hex:BYTES-IN-HEX` (memory order), `iota32:N` (N `.u32` words
    /// 0, 1, ..., N-1), `tmap:buf=ARG,type=T,dims=..,box=..[,...]` (a tensor map, see
    /// [`TensorMapArg::parse`]).
    pub fn parse_spec(s: &str) -> Result<(Arg, Spec), String> {
        let (kind, v) = s
            .split_once(':')
            .ok_or_else(|| format!("bad argument `{s}` (expected TYPE:VALUE)"))?;
        let scalar = |bytes: usize, bits: u64| {
            Ok((
                Arg::Scalar(bits.to_le_bytes()[..bytes].to_vec()),
                Spec::Scalar,
            ))
        };
        match kind {
            "buf" => {
                let p = std::path::PathBuf::from(v);
                let b = std::fs::read(&p).map_err(|e| format!("{v}: {e}"))?;
                Ok((Arg::Buffer(b), Spec::File(p)))
            }
            "zeros" => {
                let n: usize = v.parse().map_err(|_| format!("bad size `{v}`"))?;
                Ok((Arg::Buffer(vec![0; n]), Spec::Shown))
            }
            "hex" => {
                let b = (0..v.len())
                    .step_by(2)
                    .map(|i| {
                        v.get(i..i + 2)
                            .and_then(|x| u8::from_str_radix(x, 16).ok())
                            .ok_or_else(|| format!("bad hex `{v}`"))
                    })
                    .collect::<Result<Vec<u8>, String>>()?;
                Ok((Arg::Buffer(b), Spec::Shown))
            }
            "tmap" => Ok((Arg::TensorMap(TensorMapArg::parse(v)?), Spec::Scalar)),
            "iota32" => {
                let n: u32 = v.parse().map_err(|_| format!("bad count `{v}`"))?;
                let b = (0..n).flat_map(|i| i.to_le_bytes()).collect();
                Ok((Arg::Buffer(b), Spec::Input))
            }
            "f32" => scalar(4, parse_float_bits(v, 32)?),
            "f64" => scalar(8, parse_float_bits(v, 64)?),
            "u8" | "s8" | "b8" => scalar(1, parse_int(v)? as u64),
            "u16" | "s16" | "b16" => scalar(2, parse_int(v)? as u64),
            "u32" | "s32" | "b32" => scalar(4, parse_int(v)? as u64),
            "u64" | "s64" | "b64" => scalar(8, parse_int(v)? as u64),
            _ => Err(format!("unknown argument type `{kind}`")),
        }
    }

    /// A `.u32`/`.s32`/`.b32` scalar.
    pub fn u32(v: u32) -> Arg {
        Arg::Scalar(v.to_le_bytes().to_vec())
    }

    /// A 64-bit scalar.
    pub fn u64(v: u64) -> Arg {
        Arg::Scalar(v.to_le_bytes().to_vec())
    }

    /// An `.f32` scalar.
    pub fn f32(v: f32) -> Arg {
        Arg::Scalar(v.to_bits().to_le_bytes().to_vec())
    }

    /// An `.f64` scalar.
    pub fn f64(v: f64) -> Arg {
        Arg::Scalar(v.to_bits().to_le_bytes().to_vec())
    }
}

/// Counters of a run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions executed, counted once per thread that issued them.
    pub thread_instructions: u64,
    /// Instructions issued, counted once per warp.
    pub warp_instructions: u64,
}

/// The result of a launch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The contents of each [`Arg::Buffer`] after the run, in argument order.
    pub buffers: Vec<Vec<u8>>,
    /// Counters.
    pub stats: Stats,
}

/// A failed launch: the error and the state when it happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// What went wrong.
    pub error: Error,
    /// Buffers and counters at the time.
    pub outcome: Outcome,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Failure {}

/// A launch configuration.
#[derive(Clone, Debug)]
pub struct Launch<'p> {
    prog: &'p Program,
    entry: String,
    grid: [u32; 3],
    block: [u32; 3],
    cluster: Option<[u32; 3]>,
    fuel: u64,
    dyn_smem: u32,
    resident: u32,
    args: Vec<Arg>,
}

impl Program {
    /// Starts configuring a launch of kernel `entry` (one CTA of one thread until set).
    pub fn launch(&self, entry: &str) -> Launch<'_> {
        Launch {
            prog: self,
            entry: entry.to_string(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
            cluster: None,
            fuel: DEFAULT_FUEL,
            dyn_smem: 0,
            resident: 1,
            args: Vec::new(),
        }
    }
}

/// Launch-wide state.
pub struct Machine<'p> {
    /// The program.
    pub prog: &'p Program,
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
    /// Thread-instructions left.
    pub fuel: u64,
    /// Counters.
    pub stats: Stats,
    /// Counts state changes (stores, mbarrier and barrier operations, completions, exits), so
    /// that a launch in which only polls run can be recognised as stuck.
    pub events: u64,
    /// The last asynchronous operation id handed out.
    pub next_op: u64,
    /// Global ranges of asynchronous operations in flight.
    pub gwatch: inflight::GlobalWatch,
    /// Clusters not yet launched, in launch order.
    pub queue: VecDeque<[u32; 3]>,
    /// Clusters cancelled by `clusterlaunchcontrol.try_cancel`.
    pub cancelled: u64,
    /// Most clusters running at once.
    pub resident: u32,
    /// `mbarrier.try_wait` returns instead of suspending (nothing else could run).
    pub try_timeout: bool,
    stalls: u32,
    stall_events: u64,
}

/// A CTA barrier's state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bar {
    arrived: u32,
    expected: Option<u32>,
    popc: u32,
    all: bool,
    any: bool,
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
}

/// What a warp-instruction asks of the scheduler.
pub enum Event {
    /// Nothing.
    None,
    /// Lanes arrived at CTA barrier `id`.
    Bar {
        /// Barrier number.
        id: u8,
        /// Thread count, if given.
        count: Option<u32>,
        /// Arriving lanes.
        lanes: u32,
        /// Lanes whose `bar.red` predicate is true.
        preds: u32,
    },
    /// These lanes exited.
    Exited(u32),
    /// Let another warp run (a poll failed).
    Yield,
    /// Lanes arrived at the cluster barrier.
    ClusterArrive(u32),
}

/// What the scheduler learns from one step.
pub enum Progress {
    /// An instruction ran.
    Ran(Event),
    /// Nothing can run in this warp now.
    Blocked,
    /// The instruction must wait and will be retried (not progress).
    Retry,
}

impl<'p> Launch<'p> {
    /// Grid dimensions in CTAs.
    pub fn grid(mut self, g: [u32; 3]) -> Self {
        self.grid = g;
        self
    }

    /// CTA dimensions in threads.
    pub fn block(mut self, b: [u32; 3]) -> Self {
        self.block = b;
        self
    }

    /// Cluster dimensions in CTAs.
    pub fn cluster(mut self, c: [u32; 3]) -> Self {
        self.cluster = Some(c);
        self
    }

    /// Thread-instruction budget.
    pub fn fuel(mut self, f: u64) -> Self {
        self.fuel = f;
        self
    }

    /// Bytes of dynamic shared memory.
    pub fn dynamic_shared(mut self, bytes: u32) -> Self {
        self.dyn_smem = bytes;
        self
    }

    /// Most clusters that run at once (default 1; at least 1). Clusters not yet running can be
    /// cancelled by `clusterlaunchcontrol.try_cancel`.
    pub fn resident_clusters(mut self, n: u32) -> Self {
        self.resident = n.max(1);
        self
    }

    /// Appends an argument.
    pub fn arg(mut self, a: Arg) -> Self {
        self.args.push(a);
        self
    }

    /// Appends arguments.
    pub fn args(mut self, a: impl IntoIterator<Item = Arg>) -> Self {
        self.args.extend(a);
        self
    }

    /// Runs the kernel to completion.
    pub fn run(&self) -> Result<Outcome, Box<Failure>> {
        let fail = |e: Error| {
            Box::new(Failure {
                error: e,
                outcome: Outcome::default(),
            })
        };
        let prog = self.prog;
        let entry = *prog
            .by_name
            .get(&self.entry)
            .ok_or_else(|| fail(Error::Launch(format!("no function `{}`", self.entry))))?;
        let ef = &prog.funcs[entry as usize];
        if ef.kind != FunctionKind::Entry || !ef.defined {
            return Err(fail(Error::Launch(format!(
                "`{}` is not a kernel with a body",
                self.entry
            ))));
        }
        let nthreads = self.block.iter().map(|&x| x as u64).product::<u64>();
        if nthreads == 0 || nthreads > 1024 || self.grid.contains(&0) {
            return Err(fail(Error::Launch(format!(
                "bad launch dimensions grid {:?} block {:?}",
                self.grid, self.block
            ))));
        }
        let cluster = self.cluster.or(ef.req_cluster);
        let cdims = cluster.unwrap_or([1, 1, 1]);
        if cdims.contains(&0) || (0..3).any(|i| self.grid[i] % cdims[i] != 0) {
            return Err(fail(Error::Launch(format!(
                "grid {:?} is not a whole number of clusters {:?}",
                self.grid, cdims
            ))));
        }
        if let (Some(req), Some(c)) = (ef.req_cluster, self.cluster) {
            if req != c {
                return Err(fail(Error::Launch(format!(
                    "kernel requires clusters {req:?}, launch gives {c:?}"
                ))));
            }
        }
        cluster::launch_checks(ef, self.block, self.cluster).map_err(|e| fail(Error::Launch(e)))?;
        tmem::check_cta_group(prog, entry).map_err(fail)?;
        let mut global = Global::new();
        for (align, bytes) in &prog.globals {
            global.alloc(bytes.clone(), *align);
        }
        let nglobals = global.allocs.len();
        // Kernel parameters.
        // Arguments beyond the parameters are buffers that only tensor maps refer to.
        let extra_ok = self.args[ef.params.len().min(self.args.len())..]
            .iter()
            .all(|a| matches!(a, Arg::Buffer(_)));
        if self.args.len() < ef.params.len() || !extra_ok {
            return Err(fail(Error::Launch(format!(
                "`{}` takes {} parameters, {} given",
                self.entry,
                ef.params.len(),
                self.args.len()
            ))));
        }
        let ksize = ef
            .params
            .iter()
            .map(|p| match p.loc {
                ParamLoc::Mem(o) => o + p.size,
                ParamLoc::Reg(_) => 0,
            })
            .max()
            .unwrap_or(0);
        let mut kparams = vec![0u8; ksize as usize];
        let mut buffer_ids = Vec::new();
        // Buffers first, so that tensor maps can name any of them.
        let mut addrs: Vec<Option<u64>> = Vec::new();
        for a in &self.args {
            addrs.push(match a {
                Arg::Buffer(b) => {
                    let addr = global.alloc(b.clone(), 256);
                    buffer_ids.push(global.allocs.len() - 1);
                    Some(addr)
                }
                _ => None,
            });
        }
        for (i, (a, p)) in self.args.iter().zip(&ef.params).enumerate() {
            let ParamLoc::Mem(off) = p.loc else {
                return Err(fail(Error::Launch("kernel .reg parameters".into())));
            };
            let bytes = match a {
                Arg::Scalar(b) => {
                    if b.len() != p.size as usize {
                        return Err(fail(Error::Launch(format!(
                            "argument {i} has {} bytes, parameter {i} takes {}",
                            b.len(),
                            p.size
                        ))));
                    }
                    b.clone()
                }
                Arg::TensorMap(t) => {
                    let base = addrs.get(t.buffer).copied().flatten().ok_or_else(|| {
                        fail(Error::Launch(format!(
                            "tensor map argument {i} names argument {}, which is not a buffer",
                            t.buffer
                        )))
                    })?;
                    let mut map = t.map.clone();
                    map.addr = base.wrapping_add(t.offset);
                    map.check().map_err(|e| {
                        fail(Error::Launch(format!("tensor map argument {i}: {e}")))
                    })?;
                    let obj = map.encode().to_vec();
                    match p.size {
                        128 => obj,
                        8 => global.alloc(obj, 64).to_le_bytes().to_vec(),
                        n => {
                            return Err(fail(Error::Launch(format!(
                                "tensor map argument {i} for a {n}-byte parameter (128 or 8)"
                            ))))
                        }
                    }
                }
                Arg::Buffer(_) => {
                    let addr = addrs[i].unwrap_or(0);
                    let v = addr.to_le_bytes();
                    if p.size == 8 {
                        v.to_vec()
                    } else if p.size == 4 {
                        v[..4].to_vec()
                    } else {
                        return Err(fail(Error::Launch(format!(
                            "buffer argument {i} for a {}-byte parameter",
                            p.size
                        ))));
                    }
                }
            };
            let o = off as usize;
            if let Some(dst) = kparams.get_mut(o..o + bytes.len()) {
                dst.copy_from_slice(&bytes);
            }
        }
        let _ = nglobals;
        let mut m = Machine {
            prog,
            global,
            consts: prog.consts.clone(),
            kparams,
            grid: self.grid,
            block: self.block,
            cluster: cdims,
            explicit_cluster: cluster.is_some(),
            dyn_smem: self.dyn_smem,
            fuel: self.fuel,
            stats: Stats::default(),
            events: 0,
            next_op: 0,
            gwatch: inflight::GlobalWatch::default(),
            queue: VecDeque::new(),
            cancelled: 0,
            resident: self.resident,
            try_timeout: false,
            stalls: 0,
            stall_events: 0,
        };
        let res = run_grid(&mut m, entry);
        let outcome = Outcome {
            buffers: buffer_ids
                .iter()
                .map(|&i| m.global.allocs[i].data.clone())
                .collect(),
            stats: m.stats,
        };
        match res {
            Ok(()) => Ok(outcome),
            Err(error) => Err(Box::new(Failure { error, outcome })),
        }
    }
}

fn run_grid(m: &mut Machine<'_>, entry: FuncId) -> Result<(), Error> {
    let c = m.cluster;
    let nclusters = [m.grid[0] / c[0], m.grid[1] / c[1], m.grid[2] / c[2]];
    for cz in 0..nclusters[2] {
        for cy in 0..nclusters[1] {
            for cx in 0..nclusters[0] {
                m.queue.push_back([cx, cy, cz]);
            }
        }
    }
    let mut active: Vec<Active> = Vec::new();
    loop {
        while active.len() < m.resident as usize {
            match m.queue.pop_front() {
                Some(cid) => active.push(start_cluster(m, entry, cid)),
                None => break,
            }
        }
        if active.is_empty() {
            return Ok(());
        }
        let mut progressed = false;
        let mut retried = false;
        let mut i = 0;
        while i < active.len() {
            let (p, r) = round(m, &mut active[i])?;
            progressed |= p;
            retried |= r;
            if active[i].warps.iter().all(|ws| ws.iter().all(|w| w.done())) {
                let mut a = active.remove(i);
                inflight::drain(m, &mut a.cl)?;
                progressed = true;
            } else {
                i += 1;
            }
        }
        if progressed {
            m.try_timeout = false;
            continue;
        }
        if retried {
            // Only suspended instructions are left: let `try_wait` time out, and give up when
            // that changes nothing for a while.
            if m.events != m.stall_events {
                m.stall_events = m.events;
                m.stalls = 0;
            }
            m.stalls += 1;
            if m.stalls <= STALL_LIMIT {
                m.try_timeout = true;
                continue;
            }
        }
        let text: Vec<String> = active
            .iter()
            .map(|a| describe_deadlock(m, &a.cl, &a.warps))
            .collect();
        return Err(Error::Deadlock(text.join("; ")));
    }
}

/// Rounds of nothing but suspended instructions (and polls) without any state change after
/// which a launch counts as deadlocked.
const STALL_LIMIT: u32 = 64;

/// A running cluster.
struct Active {
    cl: Cluster,
    warps: Vec<Vec<Warp>>,
}

fn start_cluster(m: &Machine<'_>, entry: FuncId, cid: [u32; 3]) -> Active {
    let c = m.cluster;
    let mut ctaid = Vec::new();
    for z in 0..c[2] {
        for y in 0..c[1] {
            for x in 0..c[0] {
                ctaid.push([cid[0] * c[0] + x, cid[1] * c[1] + y, cid[2] * c[2] + z]);
            }
        }
    }
    let ncta = ctaid.len();
    let smem = m.prog.shared_dynamic_offset as usize + m.dyn_smem as usize;
    let cl = Cluster {
        id: cid,
        ctaid,
        shared: vec![vec![0u8; smem]; ncta],
        bars: vec![[Bar::default(); 16]; ncta],
        cbar_arrived: 0,
        cbar_phase: 0,
        inflight: inflight::Inflight::default(),
        mbars: FxHashMap::default(),
        tmem: vec![tmem::CtaTmem::default(); ncta],
        tmem_pair: Vec::new(),
        clc_failed: vec![false; ncta],
        cta_done: vec![false; ncta],
        setmaxnreg: FxHashMap::default(),
    };
    let warps: Vec<Vec<Warp>> = (0..ncta as u32).map(|r| new_warps(m, entry, r)).collect();
    Active { cl, warps }
}

/// One pass over every warp of a running cluster: (some instruction ran, some instruction was
/// suspended).
fn round(m: &mut Machine<'_>, a: &mut Active) -> Result<(bool, bool), Error> {
    let Active { cl, warps } = a;
    let ncta = warps.len();
    let mut progressed = false;
    let mut retried = false;
    for r in 0..ncta {
        for wi in 0..warps[r].len() {
            if warps[r][wi].done() {
                continue;
            }
            for _ in 0..SLICE {
                let p = step::step(m, cl, &mut warps[r][wi])?;
                match p {
                    Progress::Blocked => break,
                    Progress::Retry => {
                        retried = true;
                        break;
                    }
                    Progress::Ran(ev) => {
                        progressed = true;
                        let mut yielded = false;
                        match ev {
                            Event::None => {}
                            Event::Yield => yielded = true,
                            Event::Bar {
                                id,
                                count,
                                lanes,
                                preds,
                            } => {
                                m.events += 1;
                                bar_arrive(m, cl, &mut warps[r], r, id, count, lanes, preds)?;
                            }
                            Event::Exited(lanes) => {
                                m.events += 1;
                                let w = &warps[r][wi];
                                let (cta, base) = (w.cta, w.index * 32);
                                for l in ctx::lanes(lanes) {
                                    inflight::thread_exit(m, cl, (cta, base + l as u32))?;
                                }
                                recheck_bars(m, cl, &mut warps[r], r)?;
                                cluster_check(cl, warps);
                                if !cl.cta_done[r] && warps[r].iter().all(|w| w.done()) {
                                    cl.cta_done[r] = true;
                                    tmem::cta_exit(m.prog, &cl.tmem[r])?;
                                }
                            }
                            Event::ClusterArrive(lanes) => {
                                m.events += 1;
                                cl.cbar_arrived += lanes.count_ones();
                                cluster_check(cl, warps);
                            }
                        }
                        if yielded || warps[r][wi].done() {
                            break;
                        }
                    }
                }
            }
        }
    }
    Ok((progressed, retried))
}

fn new_warps(m: &Machine<'_>, entry: FuncId, cta: u32) -> Vec<Warp> {
    let prog = m.prog;
    let f = &prog.funcs[entry as usize];
    let [bx, by, bz] = m.block;
    let n = bx * by * bz;
    let nwarps = n.div_ceil(32);
    let stack_size = prog
        .local_static
        .saturating_add(f.frame_size)
        .min(mem::STACK_LIMIT) as usize;
    (0..nwarps)
        .map(|wi| {
            let mut tid = [[0u32; 3]; 32];
            let mut valid = 0u32;
            for (l, t) in tid.iter_mut().enumerate() {
                let lin = wi * 32 + l as u32;
                if lin < n {
                    valid |= 1 << l;
                    *t = [lin % bx, (lin / bx) % by, lin / (bx * by)];
                }
            }
            Warp {
                cta,
                index: wi,
                valid,
                exited: 0,
                groups: vec![Group {
                    mask: valid,
                    func: entry,
                    pc: 0,
                    base: prog.local_static,
                    callers: SmallVec::new(),
                    wait: Wait::Ready,
                }],
                regs: vec![vec![0u64; f.nslots as usize * 32]],
                stacks: (0..32).map(|_| vec![0u8; stack_size]).collect(),
                dyn_stacks: vec![Vec::new(); 32],
                sp: [mem::DYN_TOP; 32],
                sp_frames: vec![[warp::SpFrame::at(mem::DYN_TOP); 32]],
                tid,
                cluster_arrived: [u64::MAX; 32],
                spins: 0,
                avoid: None,
                wg: None,
            }
        })
        .collect()
}

fn live_threads(warps: &[Warp]) -> u32 {
    warps
        .iter()
        .map(|w| (w.valid & !w.exited).count_ones())
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn bar_arrive(
    m: &Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
    id: u8,
    count: Option<u32>,
    lanes: u32,
    preds: u32,
) -> Result<(), Error> {
    let b = &mut cl.bars[cta][id as usize & 15];
    if b.arrived == 0 {
        b.all = true;
        b.any = false;
        b.popc = 0;
        b.expected = None;
    }
    b.arrived += lanes.count_ones();
    b.popc += preds.count_ones();
    b.all &= preds == lanes;
    b.any |= preds != 0;
    if count.is_some() {
        b.expected = count;
    }
    try_release(m, cl, warps, cta, id as usize & 15)
}

fn recheck_bars(
    m: &Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
) -> Result<(), Error> {
    for id in 0..16 {
        if cl.bars[cta][id].arrived > 0 {
            try_release(m, cl, warps, cta, id)?;
        }
    }
    Ok(())
}

fn try_release(
    m: &Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
    id: usize,
) -> Result<(), Error> {
    let b = cl.bars[cta][id];
    let live = live_threads(warps);
    let expected = b.expected.unwrap_or(live).min(live.max(1));
    if b.arrived < expected && b.arrived < live {
        return Ok(());
    }
    cl.bars[cta][id] = Bar::default();
    for w in warps.iter_mut() {
        let mut changed = false;
        for gi in 0..w.groups.len() {
            if w.groups[gi].wait != Wait::Barrier(id as u8) {
                continue;
            }
            let (func, pc, mask, depth) = {
                let g = &w.groups[gi];
                (g.func, g.pc, g.mask, g.depth())
            };
            let f = &m.prog.funcs[func as usize];
            if let (Some(d), Some(inst)) = (f.code.get(pc as usize), f.insts.get(pc as usize)) {
                if inst.has(ptx_ir_core::Flag::Red) {
                    let v = if inst.has(ptx_ir_core::Op::Popc) {
                        b.popc as u64
                    } else if inst.has(ptx_ir_core::Op::And) {
                        b.all as u64
                    } else {
                        b.any as u64
                    };
                    if let Some(crate::load::Opnd::Reg { slot, bits }) = d.opnds.first() {
                        let mk = if *bits >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << bits) - 1
                        };
                        for l in ctx::lanes(mask) {
                            w.regs[depth][*slot as usize * 32 + l] = v & mk;
                        }
                    }
                }
            }
            let g = &mut w.groups[gi];
            g.wait = Wait::Ready;
            g.pc += 1;
            changed = true;
        }
        if changed {
            w.normalize();
        }
    }
    Ok(())
}

fn cluster_check(cl: &mut Cluster, warps: &mut [Vec<Warp>]) {
    let live: u32 = warps.iter().map(|ws| live_threads(ws)).sum();
    if cl.cbar_arrived > 0 && cl.cbar_arrived >= live {
        cl.cbar_arrived = 0;
        cl.cbar_phase += 1;
        for ws in warps.iter_mut() {
            for w in ws.iter_mut() {
                for g in w.groups.iter_mut() {
                    if g.wait == Wait::Cluster {
                        g.wait = Wait::Ready;
                    }
                }
            }
        }
    }
}

fn describe_deadlock(m: &Machine<'_>, cl: &Cluster, warps: &[Vec<Warp>]) -> String {
    let mut parts = Vec::new();
    for (r, ws) in warps.iter().enumerate() {
        for w in ws {
            for g in &w.groups {
                let what = match g.wait {
                    Wait::Ready => "cannot complete this instruction (it waits for something no thread can bring about)".to_string(),
                    Wait::Barrier(id) => format!(
                        "waits at barrier {id} ({} of {} threads arrived)",
                        cl.bars[r][id as usize].arrived,
                        cl.bars[r][id as usize]
                            .expected
                            .unwrap_or_else(|| live_threads(ws))
                    ),
                    Wait::WarpSync(_) => "waits for lanes of its membermask".to_string(),
                    Wait::Cluster => "waits at the cluster barrier".to_string(),
                };
                parts.push(format!(
                    "CTA {:?} warp {} lanes {:#010x} at `{}` ({} #{}) {what}",
                    cl.ctaid.get(r).copied().unwrap_or_default(),
                    w.index,
                    g.mask,
                    m.prog.inst_text(g.func, g.pc),
                    m.prog.funcs[g.func as usize].name,
                    g.pc
                ));
            }
        }
        if parts.len() > 8 {
            parts.truncate(8);
            parts.push("...".into());
            break;
        }
    }
    parts.join("; ")
}

/// Grows the lanes' stacks to hold frames up to `end`; `false` (and nothing grown) when frames
/// up to `end` and a lane's live `alloca` memory would exceed [`mem::STACK_LIMIT`].
pub fn ensure_stack(w: &mut Warp, lanes_mask: u32, end: u32) -> bool {
    let fits = |l: usize| {
        let dynamic = mem::DYN_TOP - w.sp[l];
        end.checked_add(dynamic)
            .is_some_and(|t| t <= mem::STACK_LIMIT)
    };
    if !ctx::lanes(lanes_mask).all(fits) {
        return false;
    }
    for l in ctx::lanes(lanes_mask) {
        let s = &mut w.stacks[l];
        if s.len() < end as usize {
            s.resize(end as usize, 0);
        }
    }
    true
}
