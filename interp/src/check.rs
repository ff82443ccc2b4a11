//! The checks a launch can run besides executing (`ptx run --check`, [`crate::Launch::checks`]):
//! what compute-sanitizer's tools report, found deterministically in the interpreter's fixed
//! order of execution, each finding located at its instruction and thread.
//!
//! - **mem**: out-of-bounds and misaligned accesses and the other memory faults. They stop the
//!   launch as errors whether or not the check is on ([`crate::Error::Memory`]); the check
//!   reports that error as a finding too, so that one list holds every class.
//! - **init**: reads of shared memory, and of global buffers the launch marked uninitialised
//!   ([`crate::Launch::uninitialized`], `uninit:BYTES`: `cudaMalloc` without a copy), at
//!   bytes nothing wrote before: thread loads and the read side of atomics, after writes by
//!   threads and by asynchronous copies (`cp.async`, bulk and tensor copies) are counted.
//!   Module variables and the other buffers are initialised (by the module's initialisers, or
//!   by the host). Local memory too: a thread's `.local` variables, frames and `alloca` memory
//!   are uninitialised when the thread starts, the callee's frame at each call and `alloca`
//!   memory when it is allocated (compute-sanitizer's initcheck tracks global memory only).
//!   Only reads of which no byte was written count, reported when the launch ends unless the
//!   thread first writes the same bytes (a bit-field store's read-modify-write), and not in
//!   `.target debug` modules (whole objects copied through local memory).
//! - **reg**: an instruction reading a register in a thread where no instruction has written
//!   it since its function was entered (the guard predicate, sources, address bases; a call's
//!   parameters count as written). A warning of a class of its own, not in `all`: the value
//!   read is what the register file held, zero here and anything on the GPU, and compilers'
//!   code does it without a bug (Triton lets lanes compute on values they never loaded and
//!   drops the results).
//! - **race**: data races on shared memory between warps that no barrier, mbarrier or
//!   atomic orders (vector clocks), and on global memory between warps of a cluster (the
//!   same, global atomics, strong accesses and GPU-scope fences ordering too) and between
//!   clusters (an access after its cluster's last global synchronising operation, or before
//!   its cluster's first, against a conflicting one of another cluster); `exec/race.rs` says
//!   what orders and what is not checked.
//! - **sync**: CTA barriers for all threads completed without every thread of the CTA (some
//!   exited instead; PTX lets exiting threads release the barrier, CUDA's `__syncthreads`
//!   does not allow it), aligned barriers at which the threads wait at different
//!   instructions, warp collectives whose members give different membermasks, and at a
//!   deadlock the warp collectives and barriers that wait for threads never coming; the
//!   undefined behaviour that stops a launch at a synchronisation instruction ([`sync_opcode`]:
//!   membermasks, mbarrier misuse, tensor memory allocation and leaks) is a finding too, as
//!   memory faults are with `mem`.
//!
//! The launch goes on after a finding: a read returns the bytes memory holds (zeros, or what
//! an earlier CTA left there), a barrier completes as it does without the check.

use crate::error::{Site, Thread};

/// Which checks a launch runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Memory faults as findings.
    pub mem: bool,
    /// Data races on shared and global memory (`exec/race.rs`).
    pub race: bool,
    /// Reads of memory never written.
    pub init: bool,
    /// Synchronisation misuse.
    pub sync: bool,
    /// Registers read before any write.
    pub reg: bool,
}

impl Checks {
    /// What `all` names: every check but `reg`, whose warnings real compilers' code has (a
    /// lane computing on a register it never loaded and dropping the result).
    pub fn all() -> Checks {
        Checks {
            mem: true,
            race: true,
            init: true,
            sync: true,
            reg: false,
        }
    }

    /// Whether any check is on.
    pub fn any(self) -> bool {
        self.mem || self.race || self.init || self.sync || self.reg
    }

    /// Parses a comma-separated list of `mem`, `race`, `init`, `sync`, `reg` and `all` (every
    /// check but `reg`).
    pub fn parse(s: &str) -> Result<Checks, String> {
        let mut c = Checks::default();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "mem" => c.mem = true,
                "race" => c.race = true,
                "init" => c.init = true,
                "sync" => c.sync = true,
                "reg" => c.reg = true,
                "all" => {
                    c = Checks {
                        reg: c.reg,
                        ..Checks::all()
                    }
                }
                _ => {
                    return Err(format!(
                        "unknown check `{w}` (mem, race, init, sync, reg or all)"
                    ))
                }
            }
        }
        if !c.any() {
            return Err("no check named (mem, race, init, sync, reg or all)".into());
        }
        Ok(c)
    }
}

/// The class of a finding.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A memory fault (`mem`).
    Mem,
    /// A read of memory never written (`init`).
    Init,
    /// Synchronisation misuse (`sync`).
    Sync,
    /// A data race (`race`).
    Race,
    /// A register read before any write (`reg`).
    Reg,
}

impl Class {
    /// The check's name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Mem => "mem",
            Class::Init => "init",
            Class::Sync => "sync",
            Class::Race => "race",
            Class::Reg => "reg",
        }
    }
}

/// One thing a check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The check that found it.
    pub class: Class,
    /// What is wrong, in words.
    pub what: String,
    /// The instruction.
    pub site: Site,
    /// The thread (for a hazard between two threads, both).
    pub threads: Vec<Thread>,
    /// The state space of the address, when there is one.
    pub space: Option<String>,
    /// The first address concerned.
    pub addr: Option<u64>,
    /// How many thread executions of the instruction had this finding (the first is
    /// described).
    pub count: u64,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} at {}", self.class.name(), self.what, self.site)?;
        for t in &self.threads {
            write!(f, ", {t}")?;
        }
        if let (Some(s), Some(a)) = (&self.space, self.addr) {
            write!(f, ", {s} address {a:#x}")?;
        }
        if self.count > 1 {
            write!(f, " ({} thread executions)", self.count)?;
        }
        Ok(())
    }
}

/// At most this many distinct findings are kept (each counts its repeats); more are counted in
/// [`Findings::dropped`].
pub const MAX_FINDINGS: usize = 1000;

/// A launch's findings, one per (class, function, instruction): repeats at the same
/// instruction are counted, not listed.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// In the order found.
    pub list: Vec<Finding>,
    index: rustc_hash::FxHashMap<(Class, u32, u32), usize>,
    /// Findings past [`MAX_FINDINGS`] distinct ones.
    pub dropped: u64,
}

impl Findings {
    /// Records a finding of `class` at instruction `pc` of function `fid`, made by `make` the
    /// first time only.
    pub(crate) fn add(&mut self, class: Class, fid: u32, pc: u32, make: impl FnOnce() -> Finding) {
        if self.repeat(class, fid, pc) {
            return;
        }
        self.index.insert((class, fid, pc), self.list.len());
        self.list.push(make());
    }

    /// Counts a finding of `class` at instruction `pc` of function `fid` that is already listed
    /// (or past the limit) and says so; `false` when it is new, to be described and
    /// [`Findings::add`]ed (callers that cannot build it inside `add`'s closure ask first, so
    /// that a repeat costs no formatting).
    pub(crate) fn repeat(&mut self, class: Class, fid: u32, pc: u32) -> bool {
        if let Some(&i) = self.index.get(&(class, fid, pc)) {
            self.list[i].count += 1;
            return true;
        }
        if self.list.len() >= MAX_FINDINGS {
            self.dropped += 1;
            return true;
        }
        false
    }
}

/// Whether `op` is a synchronisation instruction whose undefined uses the `sync` check reports:
/// CTA, cluster and warp barriers, the warp collectives with a membermask, the mbarrier
/// operations, and tensor-memory allocation.
pub fn sync_opcode(op: ptx_ir_core::Opcode) -> bool {
    use ptx_ir_core::Opcode::*;
    matches!(
        op,
        Bar | Barrier
            | BarWarpSync
            | BarrierCluster
            | Shfl
            | Vote
            | Match
            | Redux
            | Elect
            | MbarrierInit
            | MbarrierInval
            | MbarrierExpectTx
            | MbarrierCompleteTx
            | MbarrierArrive
            | MbarrierArriveDrop
            | MbarrierTestWait
            | MbarrierTryWait
            | MbarrierPendingCount
            | CpAsyncMbarrierArrive
            | Tcgen05Alloc
            | Tcgen05Dealloc
            | Tcgen05RelinquishAllocPermit
            | Tcgen05Commit
    )
}

/// The `sync` finding of error `e` that stopped a launch: undefined behaviour at a
/// synchronisation instruction ([`sync_opcode`]: a thread outside its own membermask, mbarrier
/// misuse, tensor memory allocated after `relinquish_alloc_permit`, freed twice or left
/// allocated when the CTA exits, ...) stays an error, and with the check on is reported as a
/// finding too, as the `mem` check reports memory faults.
pub(crate) fn sync_error(prog: &crate::Program, e: &crate::Error) -> Option<(u32, u32, Finding)> {
    let crate::Error::Undefined { site, thread, rule } = e else {
        return None;
    };
    let &fid = prog.by_name.get(&site.function)?;
    let op = prog
        .funcs
        .get(fid as usize)?
        .code
        .get(site.index as usize)?
        .op;
    sync_opcode(op).then(|| {
        (
            fid,
            site.index,
            Finding {
                class: Class::Sync,
                what: rule.clone(),
                site: site.clone(),
                threads: vec![*thread],
                space: None,
                addr: None,
                count: 1,
            },
        )
    })
}

/// One bit per byte: which bytes of a memory have been written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shadow(Vec<u64>);

impl Shadow {
    /// `n` bytes, none written.
    pub fn new(n: usize) -> Shadow {
        Shadow(vec![0; n.div_ceil(64)])
    }

    /// Bytes of host memory a shadow of `n` bytes takes.
    pub fn cost(n: u64) -> u64 {
        n.div_ceil(64) * 8
    }

    /// Grows to at least `n` bytes, the new ones not written.
    pub fn grow(&mut self, n: usize) {
        let w = n.div_ceil(64);
        if self.0.len() < w {
            self.0.resize(w, 0);
        }
    }

    /// Marks `[off, off + size)` not written (bytes past the end are ignored).
    pub fn clear(&mut self, off: usize, size: usize) {
        let end = off.saturating_add(size).min(self.0.len() * 64);
        let mut b = off;
        while b < end {
            let lo = b % 64;
            let n = (64 - lo).min(end - b);
            let m = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << lo
            };
            self.0[b / 64] &= !m;
            b += n;
        }
    }

    /// Whether some byte of `[off, off + size)` has been written.
    pub fn any_set(&self, off: usize, size: usize) -> bool {
        let end = off.saturating_add(size).min(self.0.len() * 64);
        (off..end).any(|b| self.0[b / 64] >> (b % 64) & 1 != 0)
    }

    /// Marks nothing written.
    pub fn clear_all(&mut self) {
        self.0.fill(0);
    }

    /// Marks `[off, off + size)` written (bytes past the end are ignored).
    pub fn mark(&mut self, off: usize, size: usize) {
        crate::mem::mark(&mut self.0, off, size);
    }

    /// The first byte of `[off, off + size)` not written, if any (bytes past the end count
    /// as written: bounds are checked elsewhere).
    pub fn first_unset(&self, off: usize, size: usize) -> Option<usize> {
        let end = off.saturating_add(size).min(self.0.len() * 64);
        if end <= off {
            return None;
        }
        // The common access lies in one word of the map: one test.
        if off / 64 == (end - 1) / 64 && end - off < 64 {
            let m = ((1u64 << (end - off)) - 1) << (off % 64);
            if self.0[off / 64] & m == m {
                return None;
            }
        }
        (off..end).find(|&b| self.0[b / 64] >> (b % 64) & 1 == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_shadow() {
        assert_eq!(Checks::parse("all").unwrap(), Checks::all());
        let c = Checks::parse("init, mem").unwrap();
        assert!(c.init && c.mem && !c.race && !c.sync && !c.reg);
        assert!(Checks::parse("reg").unwrap().reg);
        assert!(!Checks::all().reg);
        assert!(Checks::parse("reg,all").unwrap().reg);
        assert!(Checks::parse("all,reg").unwrap().init);
        assert!(Checks::parse("").is_err());
        assert!(Checks::parse("init,races").is_err());
        let mut s = Shadow::new(200);
        assert_eq!(s.first_unset(0, 4), Some(0));
        s.mark(3, 70);
        assert_eq!(s.first_unset(3, 70), None);
        assert_eq!(s.first_unset(2, 4), Some(2));
        assert_eq!(s.first_unset(60, 20), Some(73));
        s.mark(190, 100);
        assert_eq!(s.first_unset(190, 100), None);
        s.clear(10, 60);
        assert_eq!(s.first_unset(3, 70), Some(10));
        assert_eq!(s.first_unset(70, 3), None);
        s.grow(300);
        assert_eq!(s.first_unset(190, 100), Some(256));
    }
}
