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
//! round-robin, [`schedule::SLICE`] warp-instructions at a time, so spin-waits on memory written by
//! another warp terminate.
//!
//! Layout, with imports going one way only: the launch's state is data in [`state`] (the
//! [`state::Machine`], each running [`state::Cluster`] and the state every mechanism keeps) and
//! [`warp`]; [`ctx::Ctx`] gives a handler one instruction's view of it; the handler modules
//! (`arith.rs`, `memops.rs`, ...) execute instructions, return a [`flow::Flow`] and share the
//! mechanisms below them, such as [`inflight`] (issuing and completing asynchronous
//! operations); `semantics.rs` is the table of their handlers, which `step.rs` runs;
//! [`schedule`] runs clusters, serially or on each worker of [`parallel`]; this module sets up
//! and finishes launches. No module imports one above it, so none takes part in an import
//! circle.

pub mod ctx;
mod flow;
mod schedule;
mod semantics;
pub mod special;
mod state;
mod step;
pub mod warp;

pub mod inflight;

mod arith;
mod async_copy;
mod bulk;
mod cluster;
mod control;
mod direct;
mod matrix;
mod mbarrier;
mod memops;
mod mma;
mod mma_kind;
mod multimem;
mod parallel;
mod proxy;
mod race;
mod regcheck;
mod stack;
mod tcgen05;
mod tensor;
mod tensor_smem;
mod texture;
mod tmem;
mod umma;
mod video;
mod warpgroup;
mod warpops;
pub mod wgmma;
mod wmma;

use crate::code::{FuncId, Opnd};
use crate::error::{Error, SpecError};
use crate::load::{self, ParamLoc, Program};
use crate::mem::{self, Budget, Global};
use crate::tmap::TensorMapArg;
use ptx_ir_core::FunctionKind;
use state::{ClusterQueue, Machine};

pub use state::{Contraction, Stats};

/// Most simulated devices a multicast object spans (an NVLink domain of eight GPUs).
pub const MAX_DEVICES: usize = 8;

/// Where multimem addresses start: far above every allocation, so that an ordinary access to
/// one is an out-of-bounds fault; object `k` spans `[MC_BASE + k * 2^40, ...)`.
pub const MC_BASE: u64 = 0x7c00_0000_0000;

/// Default fuel: thread-instructions per launch.
pub const DEFAULT_FUEL: u64 = 1 << 32;

/// The GPU's launch limits (CUDA device attributes of sm_90, e.g. the H200): largest grid in
/// CTAs per dimension.
pub const MAX_GRID: [u32; 3] = [2_147_483_647, 65_535, 65_535];
/// Largest CTA in threads per dimension.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// Most threads in a CTA.
pub const MAX_THREADS: u64 = 1024;
/// Most shared memory of one CTA, static and dynamic together (227 KiB, the sm_90 opt-in
/// maximum `cudaDevAttrMaxSharedMemoryPerBlockOptin`).
pub const MAX_SHARED: u64 = 232_448;

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
    /// A texture object over another argument's buffer (see [`crate::texture`]): an 8-byte
    /// parameter receives its handle.
    Texture(crate::texture::TextureArg),
    /// A surface object over another argument's buffer: an 8-byte parameter receives its
    /// handle; stores land in the buffer.
    Surface(crate::texture::SurfaceArg),
    /// A multicast object over simulated devices: one replica per device (the launch runs on
    /// device 0). An 8-byte parameter receives its multimem address, which only `multimem.*`
    /// may access; each replica is read back after the run.
    Multicast(Vec<Vec<u8>>),
    /// The unicast address of replica `device` of multicast argument `arg` (a peer pointer of
    /// device 0 into that device's memory).
    Unicast {
        /// The multicast argument's index.
        arg: usize,
        /// The device.
        device: usize,
    },
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
    /// `uninit:BYTES`: a buffer of uninitialised device memory (zeros here; reading it before
    /// writing is an `init` finding, [`Launch::uninitialized`]), printed after the run.
    Uninit,
    /// `iota32:N`: an input buffer, not printed.
    Input,
    /// `mc:...`: a multicast object whose replicas, one per device, are printed after the run.
    Replicas(usize),
}

fn bad(what: &'static str, v: &str) -> SpecError {
    SpecError::BadValue {
        what,
        value: v.to_string(),
    }
}

fn parse_float_bits(v: &str, width: u32) -> Result<u64, SpecError> {
    let hex = |h: &str| u64::from_str_radix(h, 16).map_err(|_| bad("float", v));
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
    let x: f64 = v.parse().map_err(|_| bad("float", v))?;
    Ok(if width == 32 {
        (x as f32).to_bits() as u64
    } else {
        x.to_bits()
    })
}

fn parse_int(v: &str) -> Result<i128, SpecError> {
    let (neg, t) = match v.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, v),
    };
    let mag = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16)
    } else {
        t.parse::<i128>()
    }
    .map_err(|_| bad("integer", v))?;
    Ok(if neg { -mag } else { mag })
}

impl Arg {
    /// Parses an argument specification: `u32:7`, `s64:-3`, `f32:1.5`,
    /// `f64:0d3FF0000000000000` (any of `u8 s8 b8 u16 s16 b16 u32 s32 b32 u64 s64 b64 f32 f64`),
    /// `buf:PATH`, `zeros:BYTES`, `hex:BYTES-IN-HEX` (memory order), `iota32:N` (N `.u32` words
    /// 0, 1, ..., N-1), `tmap:buf=ARG,type=T,dims=..,box=..[,...]` (a tensor map, see
    /// [`TensorMapArg::parse`]), `tex:buf=ARG,type=T,ch=C,dims=..[,...]` and
    /// `surf:buf=ARG,type=T,ch=C,dims=..[,...]` (texture and surface objects, see
    /// [`crate::texture::TextureArg::parse`]). Buffers are limited to
    /// [`mem::DEFAULT_MEM_LIMIT`] bytes.
    pub fn parse_spec(s: &str) -> Result<(Arg, Spec), SpecError> {
        Arg::parse_spec_within(s, mem::DEFAULT_MEM_LIMIT)
    }

    /// [`Arg::parse_spec`] with buffers limited to `limit` bytes: a larger one is an error
    /// naming the specification, never an allocation.
    pub fn parse_spec_within(s: &str, limit: u64) -> Result<(Arg, Spec), SpecError> {
        let too_big = |bytes: u64, out_of_memory: bool| SpecError::TooBig {
            spec: s.chars().take(60).collect(),
            bytes,
            limit,
            out_of_memory,
        };
        let buffer = |bytes: u64| -> Result<Vec<u8>, SpecError> {
            if bytes > limit {
                return Err(too_big(bytes, false));
            }
            mem::try_zeroed(bytes).ok_or_else(|| too_big(bytes, true))
        };
        // Bytes written in hex (memory order), within the limit.
        let hex_bytes = |h: &str| -> Result<Vec<u8>, SpecError> {
            if h.len() as u64 / 2 > limit {
                return Err(too_big(h.len() as u64 / 2, false));
            }
            (0..h.len())
                .step_by(2)
                .map(|i| {
                    h.get(i..i + 2)
                        .and_then(|x| u8::from_str_radix(x, 16).ok())
                        .ok_or_else(|| bad("hex", h))
                })
                .collect()
        };
        let (kind, v) = s
            .split_once(':')
            .ok_or_else(|| SpecError::Syntax(s.to_string()))?;
        let scalar = |bytes: usize, bits: u64| {
            Ok((
                Arg::Scalar(bits.to_le_bytes()[..bytes].to_vec()),
                Spec::Scalar,
            ))
        };
        match kind {
            "buf" => {
                let p = std::path::PathBuf::from(v);
                let len = std::fs::metadata(&p)
                    .map_err(|e| SpecError::File {
                        path: v.to_string(),
                        message: e.to_string(),
                    })?
                    .len();
                if len > limit {
                    return Err(too_big(len, false));
                }
                let b = std::fs::read(&p).map_err(|e| SpecError::File {
                    path: v.to_string(),
                    message: e.to_string(),
                })?;
                Ok((Arg::Buffer(b), Spec::File(p)))
            }
            "zeros" => {
                let n: u64 = v.parse().map_err(|_| bad("size", v))?;
                Ok((Arg::Buffer(buffer(n)?), Spec::Shown))
            }
            "hex" => Ok((Arg::Buffer(hex_bytes(v)?), Spec::Shown)),
            "uninit" => {
                let n: u64 = v.parse().map_err(|_| bad("size", v))?;
                Ok((Arg::Buffer(buffer(n)?), Spec::Uninit))
            }
            "tmap" => Ok((
                Arg::TensorMap(TensorMapArg::parse(v).map_err(SpecError::TensorMap)?),
                Spec::Scalar,
            )),
            "tex" => Ok((
                Arg::Texture(crate::texture::TextureArg::parse(v).map_err(SpecError::Image)?),
                Spec::Scalar,
            )),
            "surf" => Ok((
                Arg::Surface(crate::texture::SurfaceArg::parse(v).map_err(SpecError::Image)?),
                Spec::Scalar,
            )),
            "mc" => {
                // `mc:HEX/HEX/...`: one replica per device, in memory order; or `mc:N*BYTES`:
                // N zero replicas.
                let reps: Vec<Vec<u8>> = if let Some((n, bytes)) = v.split_once('*') {
                    let n: usize = n.parse().map_err(|_| bad("device count", v))?;
                    let bytes: u64 = bytes.parse().map_err(|_| bad("size", v))?;
                    if n == 0 || n > crate::exec::MAX_DEVICES {
                        return Err(bad("device count (1..=8)", v));
                    }
                    // All replicas together within the limit, as one buffer would be.
                    if (n as u64).saturating_mul(bytes) > limit {
                        return Err(too_big((n as u64).saturating_mul(bytes), false));
                    }
                    (0..n).map(|_| buffer(bytes)).collect::<Result<_, _>>()?
                } else {
                    v.split('/').map(hex_bytes).collect::<Result<_, _>>()?
                };
                if reps.is_empty() || reps.len() > crate::exec::MAX_DEVICES {
                    return Err(bad("device count (1..=8)", v));
                }
                if reps.iter().any(|r| r.len() != reps[0].len()) {
                    return Err(bad("replicas of one size", v));
                }
                let n = reps.len();
                Ok((Arg::Multicast(reps), Spec::Replicas(n)))
            }
            "uc" => {
                let (a, d) = v.split_once('.').ok_or_else(|| bad("ARG.DEVICE", v))?;
                Ok((
                    Arg::Unicast {
                        arg: a.parse().map_err(|_| bad("argument index", v))?,
                        device: d.parse().map_err(|_| bad("device", v))?,
                    },
                    Spec::Scalar,
                ))
            }
            "iota32" => {
                let n: u32 = v.parse().map_err(|_| bad("count", v))?;
                let mut b = buffer(4 * n as u64)?;
                for (i, w) in b.chunks_exact_mut(4).enumerate() {
                    w.copy_from_slice(&(i as u32).to_le_bytes());
                }
                Ok((Arg::Buffer(b), Spec::Input))
            }
            "f32" => scalar(4, parse_float_bits(v, 32)?),
            "f64" => scalar(8, parse_float_bits(v, 64)?),
            "u8" | "s8" | "b8" => scalar(1, parse_int(v)? as u64),
            "u16" | "s16" | "b16" => scalar(2, parse_int(v)? as u64),
            "u32" | "s32" | "b32" => scalar(4, parse_int(v)? as u64),
            "u64" | "s64" | "b64" => scalar(8, parse_int(v)? as u64),
            _ => Err(SpecError::UnknownType(kind.to_string())),
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

/// The result of a launch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The contents of each [`Arg::Buffer`] after the run, in argument order (a
    /// [`Arg::Multicast`] gives one per replica, in device order).
    pub buffers: Vec<Vec<u8>>,
    /// Counters.
    pub stats: Stats,
    /// With [`Contraction::Report`]: the fused operations whose result differed from the
    /// unfused reading in some lane, in program order.
    pub contraction: Vec<ContractionDiff>,
    /// The threads the clusters ran on (1: serially; 0 for a launch that failed before any
    /// ran).
    pub threads: u32,
    /// Why a launch given more than one thread ([`Launch::threads`]) ran serially.
    pub serial: Option<String>,
    /// What the launch's checks found ([`Launch::checks`]), in the order found.
    pub findings: Vec<crate::check::Finding>,
    /// Findings not listed: past [`crate::check::MAX_FINDINGS`] distinct ones.
    pub findings_dropped: u64,
}

/// A fused `mul`+`add` whose result differed from the one-by-one reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractionDiff {
    /// The function.
    pub function: String,
    /// Index of the `add`/`sub` in the flattened body.
    pub index: u32,
    /// Index of the `mul`.
    pub mul_index: u32,
    /// The `add`/`sub`, printed.
    pub inst: String,
    /// Thread executions of it whose result differed.
    pub lanes: u64,
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
    stack: u32,
    mem_limit: u64,
    args: Vec<Arg>,
    contraction: Contraction,
    progress: Option<std::sync::Arc<crate::progress::Progress>>,
    threads: u32,
    checks: crate::check::Checks,
    uninit: Vec<usize>,
    binds: Vec<(String, Arg)>,
}

impl Program {
    /// Compiles a module. Problems that make a function unrunnable (undeclared registers,
    /// unknown labels, bad initialisers, operands other than its handler reads) are errors
    /// naming the function and instruction.
    pub fn load(m: &ptx_ir_core::Module) -> Result<Program, Error> {
        let mut p = Program::compile(m, semantics::arity_of)?;
        // From the finished code: the forms copy its immediates, extern shared addresses
        // patched.
        for f in &mut p.funcs {
            f.lanewise = f.code.iter().map(semantics::lanewise_of).collect();
        }
        Ok(p)
    }

    /// How many instructions run in a warp-wide form chosen at load rather than through their
    /// handlers (for tests and measurements).
    #[doc(hidden)]
    pub fn lanewise_forms(&self) -> usize {
        self.funcs
            .iter()
            .map(|f| f.lanewise.iter().flatten().count())
            .sum()
    }

    /// Drops the warp-wide forms, so that every instruction runs through its handler: the
    /// reference the forms are tested against.
    #[doc(hidden)]
    pub fn handlers_only(mut self) -> Program {
        for f in &mut self.funcs {
            f.lanewise.iter_mut().for_each(|k| *k = None);
        }
        self
    }

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
            stack: mem::DEFAULT_STACK,
            mem_limit: mem::DEFAULT_MEM_LIMIT,
            args: Vec::new(),
            contraction: Contraction::Ptxas,
            progress: None,
            threads: 1,
            checks: crate::check::Checks::default(),
            uninit: Vec::new(),
            binds: Vec::new(),
        }
    }
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

    /// How `mul`/`add` pairs without rounding modifiers execute (default: as ptxas fuses
    /// them).
    pub fn contraction(mut self, c: Contraction) -> Self {
        self.contraction = c;
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

    /// Per-thread stack in bytes (default [`mem::DEFAULT_STACK`], at most [`mem::STACK_MAX`]):
    /// module `.local` variables, the frames of the active calls (each
    /// [`mem::CALL_FRAME_COST`] plus the callee's `.local` and `.param` frame) and live
    /// `alloca` memory. A call graph with a static bound gets at least that bound, as the CUDA
    /// driver grows the stack for such kernels; recursion and `alloca` are limited by this.
    pub fn stack(mut self, bytes: u32) -> Self {
        self.stack = bytes;
        self
    }

    /// Host-memory budget in bytes (default [`mem::DEFAULT_MEM_LIMIT`]): global buffers, module
    /// variables, the kernel parameters, and the shared memory, registers and local memory of
    /// the resident CTAs. A launch that needs more fails with [`Error::MemoryLimit`].
    pub fn mem_limit(mut self, bytes: u64) -> Self {
        self.mem_limit = bytes;
        self
    }

    /// Counters the launch updates as it runs (CTAs done, thread-instructions), to be read from
    /// another thread: a progress bar for long runs.
    pub fn progress(mut self, p: std::sync::Arc<crate::progress::Progress>) -> Self {
        self.progress = Some(p);
        self
    }

    /// Runs the clusters on up to `n` threads of the rayon pool (default 1: serially, in launch
    /// order). A launch runs in parallel only where that cannot change its result
    /// (`parallel::hazard` names what keeps it serial: global atomics, strong accesses or fences
    /// at GPU or system scope, cluster launch control); each worker then sees global memory as
    /// the launch started plus its own writes, and the writes are put together at the end. A
    /// launch whose workers report an error, or wrote different values to one byte (a race
    /// between CTAs), runs again serially, so that its result and error are exactly those of
    /// `threads(1)`. [`Outcome::threads`] and [`Outcome::serial`] tell how it ran.
    pub fn threads(mut self, n: u32) -> Self {
        self.threads = n.max(1);
        self
    }

    /// The checks to run ([`crate::check`]); their findings are in [`Outcome::findings`]. A
    /// launch with checks runs serially.
    pub fn checks(mut self, c: crate::check::Checks) -> Self {
        self.checks = c;
        self
    }

    /// Marks buffer argument `arg` as uninitialised device memory (`cudaMalloc` without a
    /// copy): with the `init` check, reading a byte of it that the kernel did not write first
    /// is a finding. Its contents are still the buffer's (zeros for `uninit:BYTES`).
    pub fn uninitialized(mut self, arg: usize) -> Self {
        self.uninit.push(arg);
        self
    }

    /// Binds the module-scope `.texref` or `.surfref` variable `name` (PTX ISA 5.3) to a
    /// texture ([`Arg::Texture`]) or surface ([`Arg::Surface`]) object over one of the launch's
    /// buffer arguments, as `cudaBindTexture`/`cudaBindSurfaceToArray` did: `tex`, `tld4`,
    /// `txq`, `suld`, `sust`, `sured` and `suq` on the variable (or on its address, taken with
    /// `mov`) then use that object. A `.samplerref` is not bound: its initialiser describes it.
    /// The launch fails if the module has no such variable, the variable's type does not take
    /// the object, or the object's buffer is not an argument holding every texel; an
    /// instruction on a reference left unbound is undefined behaviour naming the variable.
    pub fn bind(mut self, name: &str, a: Arg) -> Self {
        self.binds.push((name.to_string(), a));
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
        let mut p = match self.prepare()? {
            Start::Done(o) => return Ok(o),
            Start::Run(p) => p,
        };
        let mut why = None;
        if self.threads > 1 && self.checks.any() {
            why = Some("the launch runs checks".into());
        } else if self.threads > 1 {
            let m = &p.m;
            let clusters = (0..3).map(|i| (m.grid[i] / m.cluster[i]) as u64).product();
            why = parallel::hazard(m.prog, p.entry, clusters);
            if why.is_none() {
                let progress = self.progress.as_deref();
                match parallel::run(&mut p.m, p.entry, self.threads, progress) {
                    Ok(n) => return self.finish(p, Ok(()), n, None),
                    Err(rerun) => {
                        // The workers took the machine's global memory: set it up again.
                        p = match self.prepare()? {
                            Start::Done(o) => return Ok(o),
                            Start::Run(p) => p,
                        };
                        why = Some(rerun);
                    }
                }
            }
        }
        self.serial(p, why)
    }

    /// Runs a prepared launch on this thread.
    fn serial(
        &self,
        mut p: Box<Prepared<'p>>,
        why: Option<String>,
    ) -> Result<Outcome, Box<Failure>> {
        let res = schedule::run_grid(&mut p.m, p.entry, self.progress.as_deref());
        self.finish(p, res, 1, why)
    }

    /// Checks the launch and sets up its machine: global memory, kernel parameters, limits.
    fn prepare(&self) -> Result<Start<'p>, Box<Failure>> {
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
        check_dims(self.grid, self.block).map_err(|e| fail(Error::Launch(e)))?;
        let smem = ef.shared_dynamic_offset as u64 + self.dyn_smem as u64;
        if smem > MAX_SHARED {
            return Err(fail(Error::Launch(format!(
                "shared memory per CTA of {smem} bytes ({} static, {} dynamic) exceeds the GPU's limit {MAX_SHARED}",
                ef.shared_dynamic_offset, self.dyn_smem
            ))));
        }
        if self.stack > mem::STACK_MAX {
            return Err(fail(Error::Launch(format!(
                "per-thread stack of {} bytes exceeds the interpreter's limit {}",
                self.stack,
                mem::STACK_MAX
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
        // Every thread of a CTA that starts executes the kernel's first instruction, so a grid of
        // more threads than the fuel cannot finish: say so now rather than after setting up
        // billions of CTAs (about 1 µs a warp). CTAs that `clusterlaunchcontrol.try_cancel` may
        // cancel before they start are the exception. A kernel without instructions does nothing
        // whatever the grid.
        let threads = self
            .grid
            .iter()
            .chain(&self.block)
            .map(|&d| d as u128)
            .product::<u128>();
        if ef.code.is_empty() {
            let buffers = self
                .args
                .iter()
                .filter_map(|a| match a {
                    Arg::Buffer(b) => Some(b.clone()),
                    _ => None,
                })
                .collect();
            return Ok(Start::Done(Outcome {
                buffers,
                threads: 1,
                ..Outcome::default()
            }));
        }
        let cancels = prog.funcs.iter().any(|f| {
            f.code
                .iter()
                .any(|d| d.op == ptx_ir_core::Opcode::ClusterlaunchcontrolTryCancel)
        });
        if threads > self.fuel as u128 && !cancels {
            return Err(fail(Error::Launch(format!(
                "the grid's {threads} threads each execute at least one instruction, more than the \
                 fuel of {} thread-instructions (raise it with --fuel)",
                self.fuel
            ))));
        }
        tmem::check_cta_group(prog, entry).map_err(fail)?;
        let mut budget = Budget::new(self.mem_limit);
        let mut global = Global::new();
        let gbytes: u64 = prog.globals.iter().map(|(_, b)| b.len() as u64).sum();
        budget
            .charge(gbytes, || "the module's .global variables".into())
            .map_err(fail)?;
        for (align, bytes) in &prog.globals {
            global.alloc(bytes.clone(), *align);
        }
        budget
            .charge(prog.consts.len() as u64, || {
                "the module's .const variables".into()
            })
            .map_err(fail)?;
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
        if let Some(&i) = self
            .uninit
            .iter()
            .find(|&&i| !matches!(self.args.get(i), Some(Arg::Buffer(_))))
        {
            return Err(fail(Error::Launch(format!(
                "argument {i} is marked uninitialised but is not a buffer"
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
        budget
            .charge(ksize as u64, || "the kernel parameters".into())
            .map_err(fail)?;
        let mut kparams = vec![0u8; ksize as usize];
        let mut buffer_ids = Vec::new();
        // Buffers first, so that tensor maps can name any of them.
        let mut addrs: Vec<Option<u64>> = Vec::new();
        let mut multicasts: Vec<state::Multicast> = Vec::new();
        let mut devices: Option<usize> = None;
        for (i, a) in self.args.iter().enumerate() {
            addrs.push(match a {
                Arg::Buffer(b) => {
                    budget
                        .charge(b.len() as u64, || format!("buffer argument {i}"))
                        .map_err(fail)?;
                    let mut copy = Vec::new();
                    copy.try_reserve_exact(b.len()).map_err(|_| {
                        fail(Error::MemoryLimit {
                            what: format!("buffer argument {i} (the host is out of memory)"),
                            bytes: b.len() as u64,
                            used: budget.used(),
                            limit: budget.limit(),
                        })
                    })?;
                    copy.extend_from_slice(b);
                    let addr = global.alloc(copy, 256);
                    buffer_ids.push(global.allocs.len() - 1);
                    if self.checks.init && self.uninit.contains(&i) {
                        let cost = crate::check::Shadow::cost(b.len() as u64);
                        budget
                            .charge(cost, || format!("the init shadow of buffer argument {i}"))
                            .map_err(fail)?;
                        if let Some(a) = global.allocs.last_mut() {
                            a.init = Some(crate::check::Shadow::new(b.len()));
                        }
                    }
                    Some(addr)
                }
                Arg::Multicast(reps) => {
                    if let Some(n) = devices.filter(|&n| n != reps.len()) {
                        return Err(fail(Error::Launch(format!(
                            "multicast argument {i} spans {} devices, an earlier one {n} (one launch, one set of devices)",
                            reps.len()
                        ))));
                    }
                    devices = Some(reps.len());
                    let mut bases = Vec::with_capacity(reps.len());
                    for r in reps {
                        budget
                            .charge(r.len() as u64, || format!("multicast argument {i}"))
                            .map_err(fail)?;
                        bases.push(global.alloc(r.clone(), 256));
                        buffer_ids.push(global.allocs.len() - 1);
                    }
                    let base = MC_BASE + ((multicasts.len() as u64) << 40);
                    multicasts.push(state::Multicast {
                        base,
                        len: reps.first().map_or(0, |r| r.len() as u64),
                        replicas: bases,
                    });
                    Some(base)
                }
                _ => None,
            });
        }
        let mut images = Vec::new();
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
                Arg::Texture(_) | Arg::Surface(_) => {
                    let who = format!("argument {i}");
                    let handle = image(&self.args, &addrs, &mut images, a, &who).map_err(&fail)?;
                    if p.size != 8 {
                        let what = if matches!(a, Arg::Surface(_)) {
                            "surface"
                        } else {
                            "texture"
                        };
                        return Err(fail(Error::Launch(format!(
                            "{what} argument {i} for a {}-byte parameter (handles take 8)",
                            p.size
                        ))));
                    }
                    handle.to_le_bytes().to_vec()
                }
                Arg::Multicast(_) | Arg::Unicast { .. } => {
                    let addr = match a {
                        Arg::Unicast { arg, device } => {
                            // The object whose multimem address argument `arg` received.
                            let base = addrs.get(*arg).copied().flatten();
                            let mc = multicasts.iter().find(|m| Some(m.base) == base);
                            match mc.and_then(|m| m.replicas.get(*device)) {
                                Some(&r) => r,
                                _ => {
                                    return Err(fail(Error::Launch(format!(
                                        "unicast argument {i} names device {device} of argument {arg}, which is not a multicast object with that device"
                                    ))))
                                }
                            }
                        }
                        _ => addrs[i].unwrap_or(0),
                    };
                    if p.size != 8 {
                        return Err(fail(Error::Launch(format!(
                            "multicast argument {i} for a {}-byte parameter (addresses take 8)",
                            p.size
                        ))));
                    }
                    addr.to_le_bytes().to_vec()
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
        // Bound references hold their object's handle, where `tex` and the others find it.
        for (k, (name, a)) in self.binds.iter().enumerate() {
            if self.binds[..k].iter().any(|(n, _)| n == name) {
                return Err(fail(Error::Launch(format!("`{name}` is bound twice"))));
            }
            let var = prog
                .opaque
                .iter()
                .find(|v| v.name == *name)
                .ok_or_else(|| {
                    fail(Error::Launch(format!(
                        "binding `{name}`: the module has no .global .texref or .surfref `{name}`"
                    )))
                })?;
            let (want, what) = match a {
                Arg::Texture(_) => (ptx_ir_core::Type::Texref, "a texture"),
                Arg::Surface(_) => (ptx_ir_core::Type::Surfref, "a surface"),
                _ => {
                    return Err(fail(Error::Launch(format!(
                        "binding `{name}`: only texture and surface objects bind to references"
                    ))))
                }
            };
            if var.ty != want {
                return Err(fail(Error::Launch(format!(
                    "binding `{name}`: `{name}` is a .{}, and {what} binds to a .{}{}",
                    var.ty.as_str(),
                    want.as_str(),
                    if var.ty == ptx_ir_core::Type::Samplerref {
                        " (a .samplerref is described by its initialiser, not bound)"
                    } else {
                        ""
                    }
                ))));
            }
            let who = format!("binding `{name}`");
            let handle = image(&self.args, &addrs, &mut images, a, &who).map_err(&fail)?;
            match global
                .allocs
                .get_mut(var.global)
                .and_then(|g| g.data.get_mut(..8))
            {
                Some(slot) => slot.copy_from_slice(&handle.to_le_bytes()),
                None => {
                    return Err(fail(Error::Launch(format!(
                        "binding `{name}`: the variable has no storage for a handle"
                    ))))
                }
            }
        }
        let stack_limit = static_stack(prog, entry)
            .unwrap_or(prog.local_static as u64 + ef.stack_bytes as u64)
            .max(self.stack as u64)
            .min(mem::STACK_MAX as u64) as u32;
        let m = Machine {
            prog,
            images: std::sync::Arc::new(images),
            multicasts: std::sync::Arc::new(multicasts),
            global,
            consts: prog.consts.clone(),
            kparams,
            grid: self.grid,
            block: self.block,
            cluster: cdims,
            explicit_cluster: cluster.is_some(),
            dyn_smem: self.dyn_smem,
            dyn_smem_offset: ef.shared_dynamic_offset,
            fuel: self.fuel,
            fuel_pool: None,
            stats: Stats::default(),
            events: 0,
            next_op: 0,
            gwatch: state::inflight::GlobalWatch::default(),
            queue: ClusterQueue::new([1, 1, 1]),
            cancelled: 0,
            resident: self.resident,
            try_timeout: false,
            stack_limit,
            mem: budget,
            maxnreg: ef.max_nreg,
            proxy_watch: proxy::needed(prog),
            gproxy: state::proxy::GlobalWrites::default(),
            stalls: 0,
            stall_events: 0,
            contraction: self.contraction,
            contraction_diffs: Default::default(),
            checks: self.checks,
            findings: Default::default(),
            global_init: self.checks.init && !self.uninit.is_empty(),
            pending_local: Default::default(),
            reg_io: if self.checks.reg {
                regcheck::table(prog)
            } else {
                Vec::new()
            },
            grace: self.checks.race.then(|| Box::new(race::Grid::new(prog))),
        };
        Ok(Start::Run(Box::new(Prepared {
            m,
            entry,
            buffer_ids,
        })))
    }

    /// The outcome of a launch that ran on `threads` threads and ended with `res`.
    fn finish(
        &self,
        p: Box<Prepared<'p>>,
        res: Result<(), Error>,
        threads: u32,
        serial: Option<String>,
    ) -> Result<Outcome, Box<Failure>> {
        let Prepared {
            mut m, buffer_ids, ..
        } = *p;
        let prog = self.prog;
        flush_local(&mut m);
        let contraction = m
            .contraction_diffs
            .iter()
            .map(|(&(f, index), &lanes)| {
                let func = &prog.funcs[f as usize];
                let mul_index = match func.code[index as usize].lower.as_deref() {
                    Some(crate::code::Lowering::Fused(fu)) => fu.mul,
                    _ => index,
                };
                ContractionDiff {
                    function: func.name.clone(),
                    index,
                    mul_index,
                    inst: crate::fmt::inst(&prog.names, &func.insts[index as usize]),
                    lanes,
                }
            })
            .collect();
        if self.checks.sync {
            if let Err(e) = &res {
                if let Some((fid, pc, f)) = crate::check::sync_error(prog, e) {
                    m.findings.add(f.class, fid, pc, || f);
                }
            }
        }
        let outcome = Outcome {
            buffers: buffer_ids
                .iter()
                .map(|&i| std::mem::take(&mut m.global.allocs[i].data))
                .collect(),
            stats: m.stats,
            contraction,
            threads,
            serial,
            findings: std::mem::take(&mut m.findings.list),
            findings_dropped: m.findings.dropped,
        };
        match res {
            Ok(()) => Ok(outcome),
            Err(error) => Err(Box::new(Failure { error, outcome })),
        }
    }
}

/// Makes texture or surface object `a` (over buffer argument `layout.buffer` of `args`, at
/// `addrs`) one of the launch's `images` and gives its handle; `who` names it in errors
/// ("argument 3", "binding `t`").
fn image(
    args: &[Arg],
    addrs: &[Option<u64>],
    images: &mut Vec<state::Image>,
    a: &Arg,
    who: &str,
) -> Result<u64, Error> {
    let (layout, surface) = match a {
        Arg::Texture(t) => (&t.layout, false),
        Arg::Surface(s) => (&s.layout, true),
        _ => {
            return Err(Error::Launch(format!(
                "{who} is not a texture or surface object"
            )))
        }
    };
    let what = if surface { "surface" } else { "texture" };
    let base = addrs.get(layout.buffer).copied().flatten().ok_or_else(|| {
        Error::Launch(format!(
            "{what} {who} names argument {}, which is not a buffer",
            layout.buffer
        ))
    })?;
    let have = match args.get(layout.buffer) {
        Some(Arg::Buffer(b)) => b.len() as u64,
        _ => 0,
    };
    if have < layout.bytes() {
        return Err(Error::Launch(format!(
            "{what} {who} needs {} bytes of texels; argument {} has {have}",
            layout.bytes(),
            layout.buffer
        )));
    }
    let handle = crate::texture::HANDLE_TAG
        | if surface {
            crate::texture::SURFACE_BIT
        } else {
            0
        }
        | images.len() as u64;
    images.push(state::Image {
        base,
        arg: a.clone(),
    });
    Ok(handle)
}

/// What [`Launch::prepare`] gives: the launch's outcome, where nothing needs to run, or its
/// machine.
enum Start<'p> {
    Done(Outcome),
    Run(Box<Prepared<'p>>),
}

/// A launch ready to run.
struct Prepared<'p> {
    m: Machine<'p>,
    entry: FuncId,
    buffer_ids: Vec<usize>,
}

/// Checks launch dimensions against the GPU's limits ([`MAX_GRID`], [`MAX_BLOCK`],
/// [`MAX_THREADS`]).
fn check_dims(grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
    const AXES: [&str; 3] = ["x", "y", "z"];
    for i in 0..3 {
        if grid[i] == 0 || block[i] == 0 {
            return Err(format!(
                "bad launch dimensions grid {grid:?} block {block:?} (every dimension must be at least 1)"
            ));
        }
        if grid[i] > MAX_GRID[i] {
            return Err(format!(
                "grid {} {} exceeds the GPU's limit {}",
                AXES[i], grid[i], MAX_GRID[i]
            ));
        }
        if block[i] > MAX_BLOCK[i] {
            return Err(format!(
                "block {} {} exceeds the GPU's limit {}",
                AXES[i], block[i], MAX_BLOCK[i]
            ));
        }
    }
    let n: u64 = block.iter().map(|&x| x as u64).product();
    if n > MAX_THREADS {
        return Err(format!(
            "block {block:?} has {n} threads, over the GPU's limit {MAX_THREADS}"
        ));
    }
    Ok(())
}

/// The stack a thread of kernel `entry` can need at most, when its call graph bounds it: no
/// recursion, no `alloca`, no indirect call without a target list. The CUDA driver sizes the
/// stack to at least this for such kernels. Iterative depth-first search, linear in the code
/// of the reachable functions.
fn static_stack(prog: &Program, entry: FuncId) -> Option<u64> {
    use ptx_ir_core::Opcode;
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = prog.funcs.len();
    let mut state = vec![NEW; n];
    // Bytes from a function's frame base to the deepest point below it.
    let mut need = vec![0u64; n];
    // (function, next instruction, next callee of that instruction, deepest callee so far)
    let mut work: Vec<(FuncId, usize, usize, u64)> = vec![(entry, 0, 0, 0)];
    *state.get_mut(entry as usize)? = OPEN;
    while let Some(&mut (fid, ref mut i, ref mut j, ref mut deepest)) = work.last_mut() {
        let f = prog.funcs.get(fid as usize)?;
        let mut push = None;
        while let Some(d) = f.code.get(*i) {
            let callees: &[FuncId] = match d.op {
                Opcode::Alloca => return None,
                Opcode::Call => match (d.opnds.get(1), d.opnds.get(3)) {
                    (Some(Opnd::Func(c)), _) => std::slice::from_ref(c),
                    (_, Some(Opnd::CallList(k))) => match f.call_lists.get(*k as usize)? {
                        load::CallList::Targets(ts) => ts,
                        load::CallList::Proto { .. } => return None,
                    },
                    _ => return None,
                },
                _ => &[],
            };
            if let Some(&c) = callees.get(*j) {
                match *state.get(c as usize)? {
                    OPEN => return None,
                    DONE => {
                        *deepest = (*deepest).max(mem::CALL_FRAME_COST as u64 + need[c as usize]);
                        *j += 1;
                    }
                    _ => {
                        push = Some(c);
                        break;
                    }
                }
            } else {
                *i += 1;
                *j = 0;
            }
        }
        match push {
            Some(c) => {
                state[c as usize] = OPEN;
                work.push((c, 0, 0, 0));
            }
            None => {
                need[fid as usize] = f.stack_bytes as u64 + *deepest;
                state[fid as usize] = DONE;
                work.pop();
            }
        }
    }
    Some(prog.local_static as u64 + need[entry as usize])
}

/// The reads of unwritten local memory that no write took back: findings.
fn flush_local(m: &mut state::Machine<'_>) {
    let mut all: Vec<state::PendingLocal> = m.pending_local.drain().flat_map(|(_, v)| v).collect();
    // In a fixed order: by instruction, then thread.
    all.sort_by_key(|p| (p.fid, p.pc, p.thread.ctaid, p.thread.tid));
    let prog = m.prog;
    for p in all {
        let (fid, pc) = (p.fid, p.pc);
        m.findings.add(crate::check::Class::Init, fid, pc, || {
            let size = p.hi - p.lo;
            crate::check::Finding {
                class: crate::check::Class::Init,
                what: format!(
                    "read of {size} bytes of local memory, of which byte {:#x} was never written",
                    p.first
                ),
                site: crate::error::Site {
                    function: prog
                        .funcs
                        .get(fid as usize)
                        .map(|f| f.name.clone())
                        .unwrap_or_default(),
                    index: pc,
                    inst: prog.inst_text(fid, pc),
                },
                threads: vec![p.thread],
                space: Some("local".into()),
                addr: Some(p.first),
                count: 1,
            }
        });
    }
}
