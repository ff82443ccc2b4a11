//! State spaces, their address windows and checked storage.
//!
//! Addresses are 64-bit. Each state space has its own addresses starting near 0, and the generic
//! address space maps them through fixed windows (documented in `docs/INTERP.md`):
//!
//! | generic range | state space |
//! | --- | --- |
//! | `SHARED_WINDOW + a` | `.shared::cluster` address `a` (own CTA: `a < 2^24`) |
//! | `LOCAL_WINDOW + a` | `.local` address `a` of the executing thread |
//! | `PARAM_WINDOW + a` | `.param` address `a` (kernel parameters at `KPARAM_BASE`) |
//! | `CONST_WINDOW + a` | `.const` address `a` |
//! | anything else | `.global` (identity) |
//!
//! Global allocations (module variables, then launch buffers) start at [`GLOBAL_BASE`], each
//! aligned to 256 bytes with a 256-byte unmapped gap after it, so running off the end of a buffer
//! faults instead of reading its neighbour.

use crate::error::{Error, FaultKind};

/// First global address handed out.
pub const GLOBAL_BASE: u64 = 0x0000_0001_0000_0000;
/// Generic window of `.shared` (and `.shared::cluster`).
pub const SHARED_WINDOW: u64 = 0x0000_7000_0000_0000;
/// Generic window of `.local`.
pub const LOCAL_WINDOW: u64 = 0x0000_7100_0000_0000;
/// Generic window of `.param`.
pub const PARAM_WINDOW: u64 = 0x0000_7200_0000_0000;
/// Generic window of `.const`.
pub const CONST_WINDOW: u64 = 0x0000_7300_0000_0000;
/// Size of every window.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Addresses of functions (`mov.u64 %rd, f;`, call tables): `FUNC_BASE + 16 * index`.
pub const FUNC_BASE: u64 = 0x0000_7400_0000_0000;
/// `.param` address of the kernel parameter buffer; lower `.param` addresses are the executing
/// thread's function frames.
pub const KPARAM_BASE: u64 = 0x4000_0000;
/// `.shared::cluster` addresses of CTA rank `r` start at `(r + 1) << CLUSTER_SHIFT`; addresses
/// below `1 << CLUSTER_SHIFT` are the executing CTA's own.
pub const CLUSTER_SHIFT: u32 = 24;
/// The largest per-thread stack (local memory) a launch may give a thread
/// ([`crate::Launch::stack`]): module `.local` variables, the frames of the active call chain
/// and the live `alloca` memory together. It fixes the `.local` layout: frames use
/// `[0, STACK_MAX)`.
pub const STACK_MAX: u32 = 1 << 30;
/// `.local` address just above each thread's dynamic (`alloca`) area, which grows down from here
/// (as the PTX stack does: `alloca` returns the lowest address of its block). Frames use
/// `[0, STACK_MAX)` and grow up, so the two never share an address: frame bases stay the same
/// for every lane of a group whatever each lane allocated, and the `alloca` area occupies
/// `[DYN_TOP - STACK_MAX, DYN_TOP)` at most. A multiple of every alignment the area can honour.
pub const DYN_TOP: u32 = 2 * STACK_MAX;
/// Default per-thread stack in bytes: the GPU's default `cudaLimitStackSize` (1024 bytes on
/// sm_90). As the CUDA driver does, a launch whose call graph has a static bound (no recursion,
/// no `alloca`, no indirect call without `.calltargets`) gets at least that bound, so only
/// recursion and dynamic allocation can overflow it.
pub const DEFAULT_STACK: u32 = 1024;
/// Stack bytes each active call costs besides the callee's `.local` variables: the registers
/// the call saves at the top of the callee's frame (ptxas reports a 16-byte frame for a recursive
/// function without `.local` variables; `tools/hostile/results/stack.txt`).
pub const CALL_FRAME_COST: u32 = 16;
/// Default host-memory budget of a launch (bytes): global buffers and module variables, shared
/// memory of the resident CTAs, registers and local memory of their threads. 4 GiB holds any
/// realistic test kernel's data several times over and leaves room on a 24 GB machine for the
/// arguments' own copies and several runs at once.
pub const DEFAULT_MEM_LIMIT: u64 = 4 << 30;

/// A launch's host-memory budget: every allocation whose size the input controls is charged
/// here first, so that an oversized request is an error naming it instead of an abort.
#[derive(Clone, Debug)]
pub struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    /// An empty budget of `limit` bytes.
    pub fn new(limit: u64) -> Budget {
        Budget { used: 0, limit }
    }

    /// Bytes charged and not released.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Charges `bytes` for `what` (called only on failure, for the message).
    pub fn charge(&mut self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), Error> {
        match self.used.checked_add(bytes) {
            Some(t) if t <= self.limit => {
                self.used = t;
                Ok(())
            }
            _ => Err(Error::MemoryLimit {
                what: what(),
                bytes,
                used: self.used,
                limit: self.limit,
            }),
        }
    }

    /// Gives back bytes charged earlier.
    pub fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }
}

/// A zeroed buffer of `n` bytes, or `None` where the host cannot provide it (instead of the
/// abort of `vec!`).
pub fn try_zeroed(n: u64) -> Option<Vec<u8>> {
    let n = usize::try_from(n).ok()?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, 0);
    Some(v)
}

/// A concrete state space after generic decoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// Global memory.
    Global,
    /// Shared memory of the CTA with this cluster rank.
    Shared(u32),
    /// The executing thread's local memory (stack).
    Local,
    /// The kernel parameter buffer.
    KParam,
    /// Constant memory.
    Const,
}

/// One global allocation.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// First address.
    pub base: u64,
    /// Contents.
    pub data: Vec<u8>,
}

/// Global memory: sorted, disjoint allocations.
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// The allocations, by base address.
    pub allocs: Vec<Alloc>,
    last: usize,
    next: u64,
}

impl Global {
    /// Empty global memory.
    pub fn new() -> Global {
        Global {
            allocs: Vec::new(),
            last: 0,
            next: GLOBAL_BASE,
        }
    }

    /// Adds an allocation with the given contents and alignment; returns its address.
    pub fn alloc(&mut self, data: Vec<u8>, align: u64) -> u64 {
        let align = align.max(256);
        let base = self.next.div_ceil(align).wrapping_mul(align);
        let len = data.len() as u64;
        self.next = base + len.max(1) + 256;
        self.allocs.push(Alloc { base, data });
        base
    }

    fn find(&mut self, addr: u64, size: u64) -> Option<(usize, usize)> {
        let hit = |a: &Alloc| {
            addr >= a.base && addr.wrapping_sub(a.base).saturating_add(size) <= a.data.len() as u64
        };
        if let Some(a) = self.allocs.get(self.last) {
            if hit(a) {
                return Some((self.last, (addr - a.base) as usize));
            }
        }
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let i = i.checked_sub(1)?;
        let a = &self.allocs[i];
        if hit(a) {
            self.last = i;
            Some((i, (addr - a.base) as usize))
        } else {
            None
        }
    }

    /// The bytes `[addr, addr + size)`, mutably.
    pub fn slice_mut(&mut self, addr: u64, size: usize) -> Result<&mut [u8], FaultKind> {
        let (i, off) = self.find(addr, size as u64).ok_or(FaultKind::OutOfBounds)?;
        self.allocs[i]
            .data
            .get_mut(off..off + size)
            .ok_or(FaultKind::OutOfBounds)
    }
}

/// Decodes a generic address into a region and the address within it.
pub fn decode_generic(addr: u64) -> (Region, u64) {
    let win = |base: u64| addr >= base && addr - base < WINDOW_SIZE;
    if win(SHARED_WINDOW) {
        let a = addr - SHARED_WINDOW;
        (Region::Shared(u32::MAX), a)
    } else if win(LOCAL_WINDOW) {
        (Region::Local, addr - LOCAL_WINDOW)
    } else if win(PARAM_WINDOW) {
        let a = addr - PARAM_WINDOW;
        if a >= KPARAM_BASE {
            (Region::KParam, a - KPARAM_BASE)
        } else {
            (Region::Local, a)
        }
    } else if win(CONST_WINDOW) {
        (Region::Const, addr - CONST_WINDOW)
    } else {
        (Region::Global, addr)
    }
}

/// Splits a `.shared::cluster` address into (cluster rank or `None` for the executing CTA,
/// offset).
pub fn split_cluster(a: u64) -> (Option<u32>, u64) {
    let hi = a >> CLUSTER_SHIFT;
    if hi == 0 {
        (None, a)
    } else {
        (Some((hi - 1) as u32), a & ((1 << CLUSTER_SHIFT) - 1))
    }
}

/// Checked sub-slice of a flat memory.
pub fn flat(mem: &mut [u8], addr: u64, size: usize) -> Result<&mut [u8], FaultKind> {
    let start = usize::try_from(addr).map_err(|_| FaultKind::OutOfBounds)?;
    let end = start.checked_add(size).ok_or(FaultKind::OutOfBounds)?;
    mem.get_mut(start..end).ok_or(FaultKind::OutOfBounds)
}

/// Little-endian value of up to 8 bytes.
#[inline]
pub fn get_le(b: &[u8]) -> u64 {
    let mut v = 0u64;
    for (i, &x) in b.iter().enumerate().take(8) {
        v |= (x as u64) << (8 * i);
    }
    v
}

/// Stores the low `b.len()` bytes of `v` little-endian.
#[inline]
pub fn put_le(b: &mut [u8], v: u64) {
    for (i, x) in b.iter_mut().enumerate().take(8) {
        *x = (v >> (8 * i)) as u8;
    }
}
