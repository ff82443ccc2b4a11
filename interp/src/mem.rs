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
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

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
/// here first, so that an oversized request is an error naming it instead of an abort. Clones
/// share one count, so that the workers of a parallel launch draw on one budget.
#[derive(Clone, Debug)]
pub struct Budget {
    used: Arc<AtomicU64>,
    limit: u64,
}

impl Budget {
    /// An empty budget of `limit` bytes.
    pub fn new(limit: u64) -> Budget {
        Budget {
            used: Arc::new(AtomicU64::new(0)),
            limit,
        }
    }

    /// Bytes charged and not released.
    pub fn used(&self) -> u64 {
        self.used.load(Relaxed)
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Charges `bytes` for `what` (called only on failure, for the message).
    pub fn charge(&mut self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), Error> {
        let limit = self.limit;
        match self.used.fetch_update(Relaxed, Relaxed, |u| {
            u.checked_add(bytes).filter(|&t| t <= limit)
        }) {
            Ok(_) => Ok(()),
            Err(used) => Err(Error::MemoryLimit {
                what: what(),
                bytes,
                used,
                limit,
            }),
        }
    }

    /// Gives back bytes charged earlier.
    pub fn release(&mut self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Relaxed, Relaxed, |u| Some(u.saturating_sub(bytes)));
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
    /// With the `init` check, for an allocation the launch left uninitialised: which bytes
    /// were written ([`crate::check`]).
    pub init: Option<crate::check::Shadow>,
}

/// Global memory: sorted, disjoint allocations.
///
/// Either the memory itself, or (for one worker of a parallel launch, `Global::overlay`) a
/// private view of memory shared by every worker: reads see the shared contents until the
/// worker first writes an allocation, which then gets a private copy whose written bytes are
/// marked, so that `merge` can put every worker's writes together at the end.
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// The allocations, by base address (in a view: the private copies, empty until written).
    pub allocs: Vec<Alloc>,
    last: usize,
    next: u64,
    overlay: Option<Box<Overlay>>,
}

/// What a view adds to its allocations.
#[derive(Clone, Debug)]
struct Overlay {
    /// The shared contents.
    base: Arc<Vec<Alloc>>,
    /// Per allocation: whether `allocs[i].data` holds the private copy.
    copied: Vec<bool>,
    /// Per copied allocation: one bit per byte written.
    dirty: Vec<Vec<u64>>,
    /// Bytes read from the shared contents, for [`Global::view`].
    scratch: Vec<u8>,
    /// The launch's budget, charged for the private copies.
    budget: Budget,
    /// A private copy did not fit the budget (the access reported out of bounds).
    over_budget: bool,
}

impl Global {
    /// Empty global memory.
    pub fn new() -> Global {
        Global {
            allocs: Vec::new(),
            last: 0,
            next: GLOBAL_BASE,
            overlay: None,
        }
    }

    /// A private view of `base` for one worker of a parallel launch, whose private copies are
    /// charged to `budget`.
    pub(crate) fn overlay(base: Arc<Vec<Alloc>>, budget: Budget) -> Global {
        let n = base.len();
        Global {
            allocs: base
                .iter()
                .map(|a| Alloc {
                    base: a.base,
                    data: Vec::new(),
                    init: None,
                })
                .collect(),
            last: 0,
            next: u64::MAX,
            overlay: Some(Box::new(Overlay {
                base,
                copied: vec![false; n],
                dirty: vec![Vec::new(); n],
                scratch: Vec::new(),
                budget,
                over_budget: false,
            })),
        }
    }

    /// Adds an allocation with the given contents and alignment; returns its address.
    pub fn alloc(&mut self, data: Vec<u8>, align: u64) -> u64 {
        let align = align.max(256);
        let base = self.next.div_ceil(align).wrapping_mul(align);
        let len = data.len() as u64;
        self.next = base + len.max(1) + 256;
        self.allocs.push(Alloc {
            base,
            data,
            init: None,
        });
        base
    }

    /// The allocation holding `[addr, addr + size)` and the offset in it; `len` gives an
    /// allocation's length (its data's, or in a view the shared contents').
    #[inline]
    fn find_by(
        &mut self,
        addr: u64,
        size: u64,
        len: impl Fn(&Global, usize) -> u64,
    ) -> Option<(usize, usize)> {
        let hit = |g: &Global, i: usize| {
            let a = &g.allocs[i];
            addr >= a.base && addr.wrapping_sub(a.base).saturating_add(size) <= len(g, i)
        };
        if self.last < self.allocs.len() && hit(self, self.last) {
            return Some((self.last, (addr - self.allocs[self.last].base) as usize));
        }
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let i = i.checked_sub(1)?;
        if hit(self, i) {
            self.last = i;
            Some((i, (addr - self.allocs[i].base) as usize))
        } else {
            None
        }
    }

    #[inline]
    fn find(&mut self, addr: u64, size: u64) -> Option<(usize, usize)> {
        match &self.overlay {
            None => self.find_by(addr, size, |g, i| g.allocs[i].data.len() as u64),
            Some(_) => self.find_by(addr, size, |g, i| match &g.overlay {
                Some(o) => o.base[i].data.len() as u64,
                None => 0,
            }),
        }
    }

    /// The allocation holding `addr` (to read): its index, base address and contents (in a
    /// view, the shared contents until the view wrote to it).
    pub(crate) fn segment(&mut self, addr: u64) -> Option<(usize, u64, &[u8])> {
        let (i, _) = self.find(addr, 1)?;
        let data = match &self.overlay {
            Some(o) if !o.copied[i] => &o.base[i].data,
            _ => &self.allocs[i].data,
        };
        Some((i, self.allocs[i].base, data))
    }

    /// Allocation `i`'s contents to read (in a view, the shared contents until the view wrote
    /// to it).
    pub(crate) fn data(&self, i: usize) -> Option<&[u8]> {
        match &self.overlay {
            Some(o) if !*o.copied.get(i)? => o.base.get(i).map(|a| a.data.as_slice()),
            _ => self.allocs.get(i).map(|a| a.data.as_slice()),
        }
    }

    /// The `size` bytes at offset `off` of allocation `i`, to write: in place, or in a view
    /// as [`Global::write`] gives them (the allocation copied at its first write, the bytes
    /// marked; `None` also when the copy is over the memory budget).
    pub(crate) fn write_at(&mut self, i: usize, off: usize, size: usize) -> Option<&mut [u8]> {
        if self.overlay.is_some() {
            let a = self.allocs.get(i)?.base.checked_add(off as u64)?;
            return self.view_write(a, size).ok();
        }
        let a = self.allocs.get_mut(i)?;
        if let Some(s) = &mut a.init {
            s.mark(off, size);
        }
        a.data.get_mut(off..off.checked_add(size)?)
    }

    /// Checks that `[addr, addr + size)` lies in one allocation.
    pub(crate) fn check(&mut self, addr: u64, size: usize) -> Result<(), FaultKind> {
        self.find(addr, size as u64)
            .map(|_| ())
            .ok_or(FaultKind::OutOfBounds)
    }

    /// The bytes `[addr, addr + size)`, to read.
    pub(crate) fn read(&mut self, addr: u64, size: usize) -> Result<&[u8], FaultKind> {
        let (i, off) = self.find(addr, size as u64).ok_or(FaultKind::OutOfBounds)?;
        let data = match &self.overlay {
            Some(o) if !o.copied[i] => &o.base[i].data,
            _ => &self.allocs[i].data,
        };
        data.get(off..off + size).ok_or(FaultKind::OutOfBounds)
    }

    /// The bytes `[addr, addr + size)`, to write (in a view: the private copy, whose bytes are
    /// marked as written).
    #[inline]
    pub(crate) fn write(&mut self, addr: u64, size: usize) -> Result<&mut [u8], FaultKind> {
        if self.overlay.is_some() {
            return self.view_write(addr, size);
        }
        let (i, off) = self
            .find_by(addr, size as u64, |g, i| g.allocs[i].data.len() as u64)
            .ok_or(FaultKind::OutOfBounds)?;
        let a = &mut self.allocs[i];
        if let Some(s) = &mut a.init {
            s.mark(off, size);
        }
        a.data
            .get_mut(off..off + size)
            .ok_or(FaultKind::OutOfBounds)
    }

    /// With the `init` check: the first byte of `[addr, addr + size)` in an uninitialised
    /// allocation that nothing has written.
    pub(crate) fn uninit_at(&mut self, addr: u64, size: usize) -> Option<u64> {
        let (i, off) = self.find(addr, size as u64)?;
        let a = &self.allocs[i];
        let b = a.init.as_ref()?.first_unset(off, size)?;
        Some(a.base + b as u64)
    }

    /// The bytes `[addr, addr + size)` for an access that reads (`write` false: in a view, a
    /// copy of the shared bytes, whose changes are dropped) or writes them.
    #[inline]
    pub(crate) fn view(
        &mut self,
        addr: u64,
        size: usize,
        write: bool,
    ) -> Result<&mut [u8], FaultKind> {
        match (&self.overlay, write) {
            (None, _) => self.write(addr, size),
            (Some(_), true) => self.view_write(addr, size),
            (Some(_), false) => self.view_read(addr, size),
        }
    }

    /// [`Global::write`] in a view.
    #[inline(never)]
    fn view_write(&mut self, addr: u64, size: usize) -> Result<&mut [u8], FaultKind> {
        let (i, off) = self.find(addr, size as u64).ok_or(FaultKind::OutOfBounds)?;
        if let Some(o) = &mut self.overlay {
            if !o.copied[i] {
                // The copy and its written-byte map.
                let len = o.base[i].data.len() as u64;
                if o.budget.charge(len + len / 8, String::new).is_err() {
                    o.over_budget = true;
                    return Err(FaultKind::OutOfBounds);
                }
                self.allocs[i].data = o.base[i].data.clone();
                o.dirty[i] = vec![0; o.base[i].data.len().div_ceil(64)];
                o.copied[i] = true;
            }
            mark(&mut o.dirty[i], off, size);
        }
        self.allocs[i]
            .data
            .get_mut(off..off + size)
            .ok_or(FaultKind::OutOfBounds)
    }

    /// [`Global::view`] to read, in a view.
    #[inline(never)]
    fn view_read(&mut self, addr: u64, size: usize) -> Result<&mut [u8], FaultKind> {
        let (i, off) = self.find(addr, size as u64).ok_or(FaultKind::OutOfBounds)?;
        match &mut self.overlay {
            Some(o) if !o.copied[i] => {
                let src = o.base[i]
                    .data
                    .get(off..off + size)
                    .ok_or(FaultKind::OutOfBounds)?;
                o.scratch.clear();
                o.scratch.extend_from_slice(src);
                Ok(&mut o.scratch)
            }
            _ => self.allocs[i]
                .data
                .get_mut(off..off + size)
                .ok_or(FaultKind::OutOfBounds),
        }
    }

    /// A view's writes, for [`merge`]: per allocation, the private copy and its written-byte
    /// map, where the view wrote it. The view's hold on the shared contents goes with it.
    pub(crate) fn into_writes(self) -> Writes {
        let Some(o) = self.overlay else {
            return Writes(Vec::new(), false);
        };
        let over = o.over_budget;
        let charged: u64 = o
            .base
            .iter()
            .zip(&o.copied)
            .filter(|(_, &c)| c)
            .map(|(a, _)| a.data.len() as u64 * 9 / 8)
            .sum();
        let mut budget = o.budget;
        budget.release(charged);
        Writes(
            self.allocs
                .into_iter()
                .zip(o.copied)
                .zip(o.dirty)
                .map(|((a, copied), dirty)| copied.then_some((a.data, dirty)))
                .collect(),
            over,
        )
    }
}

/// Marks bytes `[off, off + size)` in a bit-per-byte map (words past its end are ignored).
pub(crate) fn mark(bits: &mut [u64], off: usize, size: usize) {
    // A word of the map at a time: an access of up to 16 bytes touches one or two.
    let (mut b, end) = (off, off + size);
    while b < end {
        let lo = b % 64;
        let n = (64 - lo).min(end - b);
        let m = if n == 64 {
            u64::MAX
        } else {
            ((1u64 << n) - 1) << lo
        };
        if let Some(w) = bits.get_mut(b / 64) {
            *w |= m;
        }
        b += n;
    }
}

/// Two workers of a parallel launch wrote different values to the same byte: the launch has a
/// race between CTAs, whose result depends on their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WriteConflict {
    /// The byte's global address.
    pub addr: u64,
}

/// What one view of global memory wrote ([`Global::into_writes`]), and whether a private copy
/// did not fit the launch's memory budget.
#[derive(Debug, Default)]
pub(crate) struct Writes(Vec<Option<(Vec<u8>, Vec<u64>)>>, pub(crate) bool);

/// Puts the writes of the workers' views of `base` together: each byte any worker wrote takes
/// that worker's value. Fails if two workers wrote different values to one byte.
pub(crate) fn merge(base: &mut [Alloc], views: Vec<Writes>) -> Result<(), WriteConflict> {
    // The bytes some view has written so far, per allocation (one bit per byte).
    let mut taken: Vec<Vec<u64>> = vec![Vec::new(); base.len()];
    for v in views {
        for (i, w) in v.0.into_iter().enumerate() {
            let (Some((data, dirty)), Some(a)) = (w, base.get_mut(i)) else {
                continue;
            };
            let dst = &mut a.data;
            let t = &mut taken[i];
            if t.is_empty() {
                *t = vec![0; dst.len().div_ceil(64)];
            }
            for (w, &d) in dirty.iter().enumerate() {
                if d == 0 {
                    continue;
                }
                let lo = w * 64;
                let hi = (lo + 64).min(dst.len());
                let both = d & t[w];
                if both != 0 {
                    if let Some(b) =
                        (lo..hi).find(|&b| both >> (b - lo) & 1 == 1 && dst[b] != data[b])
                    {
                        return Err(WriteConflict {
                            addr: a.base + b as u64,
                        });
                    }
                }
                if d == u64::MAX {
                    dst[lo..hi].copy_from_slice(&data[lo..hi]);
                } else {
                    for b in lo..hi {
                        if d >> (b - lo) & 1 == 1 {
                            dst[b] = data[b];
                        }
                    }
                }
                t[w] |= d;
            }
        }
    }
    Ok(())
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

/// Little-endian value of up to 8 bytes (the bytes past the eighth are ignored).
#[inline]
pub fn get_le(b: &[u8]) -> u64 {
    // The access sizes as single loads; other lengths byte by byte.
    match *b {
        [x] => u64::from(x),
        [x, y] => u64::from(u16::from_le_bytes([x, y])),
        [x, y, z, w] => u64::from(u32::from_le_bytes([x, y, z, w])),
        _ => match b.first_chunk::<8>() {
            Some(c) => u64::from_le_bytes(*c),
            None => b
                .iter()
                .enumerate()
                .fold(0, |v, (i, &x)| v | (x as u64) << (8 * i)),
        },
    }
}

/// Stores the low `b.len()` bytes of `v` little-endian (a longer `b` gets eight).
#[inline]
pub fn put_le(b: &mut [u8], v: u64) {
    match b.len() {
        1 => b[0] = v as u8,
        2 => b.copy_from_slice(&(v as u16).to_le_bytes()),
        4 => b.copy_from_slice(&(v as u32).to_le_bytes()),
        n if n >= 8 => b[..8].copy_from_slice(&v.to_le_bytes()),
        _ => {
            for (i, x) in b.iter_mut().enumerate() {
                *x = (v >> (8 * i)) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{get_le, mark, put_le};

    /// `get_le` and `put_le` read and write the first `min(len, 8)` bytes little-endian, for
    /// every length.
    #[test]
    fn little_endian_of_every_length() {
        let v = 0x8877_6655_4433_2211u64;
        for len in 0..=10 {
            let mut b = vec![0xeeu8; len];
            put_le(&mut b, v);
            for (i, &x) in b.iter().enumerate() {
                let want = if i < 8 { (v >> (8 * i)) as u8 } else { 0xee };
                assert_eq!(x, want, "put_le, length {len}, byte {i}");
            }
            let want = (0..len.min(8)).fold(0u64, |a, i| a | (v & (0xff << (8 * i))));
            assert_eq!(get_le(&b), want, "get_le, length {len}");
        }
    }

    /// `mark` sets exactly the bits of its bytes, within a word, across a word boundary and
    /// over whole words.
    #[test]
    fn mark_sets_exactly_the_bytes_bits() {
        for (off, size) in [
            (0, 1),
            (5, 4),
            (60, 8),
            (63, 1),
            (64, 64),
            (3, 200),
            (100, 0),
        ] {
            let mut bits = vec![0u64; 5];
            mark(&mut bits, off, size);
            for b in 0..320 {
                let set = bits[b / 64] >> (b % 64) & 1 == 1;
                assert_eq!(
                    set,
                    (off..off + size).contains(&b),
                    "byte {b} of {off}+{size}"
                );
            }
        }
    }
}
