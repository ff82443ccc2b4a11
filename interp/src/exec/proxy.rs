//! Cross-proxy fences (seed 002, "Asynchronous proxy"; PTX ISA 8.6 / 9.7.9.25.4): bulk and
//! tensor copies (`cp{.reduce}.async.bulk{.tensor}`) access memory through the *async proxy*,
//! ordinary loads and stores through the *generic proxy*, and "accessing the same memory
//! location across multiple proxies needs a cross-proxy fence; for the async proxy,
//! `fence.proxy.async`".
//!
//! What is checked is the case that is certainly wrong: an async-proxy read (the source of a
//! bulk or tensor copy) of bytes written through the generic proxy when no `fence.proxy.async`
//! (nor `membar.proxy.async`, nor `fence.proxy.async::generic.release`) has been executed, by any
//! thread, since the write. A fence of any thread clears every earlier write of its state space
//! (`.shared::cta`/`.shared::cluster`: shared memory; `.global`: global memory; no space: both),
//! so a program that fences in one thread and copies in another after a barrier is never
//! reported. The tensor map itself is read through the tensormap proxy, not checked here. The
//! implicit generic-async fence at the completion of a bulk copy orders the copy's own writes
//! (the interpreter writes them at completion, outside the generic proxy), so they are never
//! marked.
//!
//! Only launches whose program contains a bulk or tensor copy track writes
//! ([`Machine::proxy_watch`]): a bitmap of 4-byte words per CTA of shared memory (bulk sources
//! are 16-byte aligned multiples of 16 bytes, so words are exact) and merged global ranges.

use super::ctx::Ctx;
use super::inflight::Src;
use super::{Cluster, Machine};
use crate::error::Error;
use crate::load::Program;
use ptx_ir_core::Opcode;
use std::collections::BTreeMap;

/// Generic-proxy writes to shared memory not yet followed by a proxy fence, per CTA of a
/// cluster.
#[derive(Clone, Debug, Default)]
pub struct SharedWrites {
    /// One bit per 4-byte word, per CTA rank (empty until written).
    bits: Vec<Vec<u64>>,
    /// Whether any bit is set.
    dirty: bool,
}

/// Generic-proxy writes to global memory not yet followed by a proxy fence: `[lo, hi)` by
/// `lo`, disjoint and not adjacent.
#[derive(Clone, Debug, Default)]
pub struct GlobalWrites {
    ranges: BTreeMap<u64, u64>,
}

/// Whether a launch of `prog` must track generic writes: it contains an async-proxy copy.
pub fn needed(prog: &Program) -> bool {
    prog.funcs.iter().any(|f| {
        f.code.iter().any(|d| {
            matches!(
                d.op,
                Opcode::CpAsyncBulk
                    | Opcode::CpReduceAsyncBulk
                    | Opcode::CpAsyncBulkTensor
                    | Opcode::CpReduceAsyncBulkTensor
            )
        })
    })
}

impl SharedWrites {
    /// Marks `[off, off + len)` of CTA `rank`, whose shared memory has `size` bytes.
    pub fn mark(&mut self, rank: u32, off: u64, len: usize, size: usize) {
        let r = rank as usize;
        if self.bits.len() <= r {
            self.bits.resize(r + 1, Vec::new());
        }
        let b = &mut self.bits[r];
        if b.is_empty() {
            b.resize(size.div_ceil(4).div_ceil(64), 0);
        }
        let lo = off as usize / 4;
        let hi = (off as usize).saturating_add(len).div_ceil(4);
        for w in lo..hi {
            if let Some(x) = b.get_mut(w / 64) {
                *x |= 1 << (w % 64);
            }
        }
        self.dirty = true;
    }

    /// The first marked byte offset in `[off, off + len)` of CTA `rank`.
    pub fn first(&self, rank: u32, off: u32, len: u32) -> Option<u32> {
        if !self.dirty {
            return None;
        }
        let b = self.bits.get(rank as usize)?;
        let lo = off as usize / 4;
        let hi = (off as usize + len as usize).div_ceil(4);
        (lo..hi)
            .find(|&w| b.get(w / 64).is_some_and(|x| x >> (w % 64) & 1 != 0))
            .map(|w| (w * 4).max(off as usize) as u32)
    }

    /// A proxy fence: forgets every write.
    pub fn clear(&mut self) {
        if self.dirty {
            for b in &mut self.bits {
                b.iter_mut().for_each(|x| *x = 0);
            }
            self.dirty = false;
        }
    }
}

impl GlobalWrites {
    /// Marks `[a, a + n)`.
    pub fn mark(&mut self, a: u64, n: u64) {
        let (mut lo, mut hi) = (a, a.saturating_add(n));
        // Merge with every range that overlaps or touches [lo, hi).
        if let Some((&l, &h)) = self.ranges.range(..=lo).next_back() {
            if h >= lo {
                lo = l;
                hi = hi.max(h);
                self.ranges.remove(&l);
            }
        }
        while let Some((&l, &h)) = self.ranges.range(lo..=hi).next() {
            hi = hi.max(h);
            self.ranges.remove(&l);
        }
        self.ranges.insert(lo, hi);
    }

    /// The first marked address in `[a, a + n)`.
    pub fn first(&self, a: u64, n: u64) -> Option<u64> {
        let end = a.saturating_add(n);
        if let Some((_, &h)) = self.ranges.range(..=a).next_back() {
            if h > a {
                return Some(a);
            }
        }
        self.ranges.range(a..end).next().map(|(&l, _)| l)
    }

    /// A proxy fence: forgets every write.
    pub fn clear(&mut self) {
        self.ranges.clear();
    }
}

/// A proxy fence (`fence.proxy.async{.space}`, `membar.proxy.async{.space}`,
/// `fence.proxy.async::generic.release...`): forgets the generic writes of its spaces.
pub fn fence(m: &mut Machine<'_>, cl: &mut Cluster, shared: bool, global: bool) {
    if shared {
        cl.proxy.clear();
    }
    if global {
        m.gproxy.clear();
    }
}

/// Checks that the async-proxy reads `srcs` of lane `l`'s copy read no generic write that no
/// proxy fence has followed.
pub fn check_reads(x: &Ctx<'_, '_>, l: usize, srcs: &[Src]) -> Result<(), Error> {
    if !x.m.proxy_watch {
        return Ok(());
    }
    let what = x.d.op.name();
    for s in srcs {
        let hit = match *s {
            Src::Shared { rank, off, len } => {
                x.cl.proxy
                    .first(rank, off, len)
                    .map(|o| format!("shared memory {o:#x} (CTA rank {rank})"))
            }
            Src::Global { addr, len } => {
                x.m.gproxy
                    .first(addr, len)
                    .map(|a| format!("global memory {a:#x}"))
            }
        };
        if let Some(at) = hit {
            return Err(x.undefined(
                l,
                format!("{what} reads {at} through the async proxy, written through the generic proxy with no fence.proxy.async since (seed 002: accessing the same memory location across multiple proxies needs a cross-proxy fence; for the async proxy, fence.proxy.async)"),
            ));
        }
    }
    Ok(())
}
