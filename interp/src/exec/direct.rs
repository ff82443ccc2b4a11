//! Loads and stores of `.shared` and `.global` memory, loads of kernel parameters and the
//! constant bank (and generic addresses into them) that skip the general access path
//! ([`Ctx::access`]) when it has nothing to check beyond bounds and alignment: no asynchronous
//! operation or mbarrier is watched and, for a store, no proxy fence is tracked.
//!
//! Every lane's address is resolved and checked before any is used; a lane that would fault
//! (or an address in another space) sends the whole instruction down the general path, which
//! then reports the first faulting lane exactly as it would have. A store's bytes are written
//! in lane order, so a later lane's bytes win at a shared address as they do on the general
//! path.

use super::ctx::{lanes, AddrSpace, Ctx};
use crate::code::{MemBase, Opnd};
use crate::int::sext;
use crate::mem::{self, Region};

/// The widest access taken here (`ld.v4.f32`, `ld.v2.f64`).
pub const MAX_BYTES: usize = 16;

/// Where a lane's bytes are.
#[derive(Clone, Copy)]
enum At {
    /// Shared memory of the CTA of this cluster rank, at this offset.
    Shared(u32, u32),
    /// Global allocation `i`, at this offset.
    Global(u32, usize),
    /// The kernel parameter buffer, at this offset (read-only).
    KParam(usize),
    /// The constant bank, at this offset (read-only).
    Const(usize),
}

/// Each lane's address of `a`, for the address forms read without the frame.
fn addresses(x: &Ctx<'_, '_>, a: &Opnd) -> Option<[u64; 32]> {
    let Opnd::Mem(b, off) = a else {
        return None;
    };
    let off = *off as u64;
    Some(match b {
        MemBase::Reg(s) => {
            let r = x.w.regs[x.depth].lanes(*s)?;
            std::array::from_fn(|l| r[l].wrapping_add(off))
        }
        MemBase::Static(v) => [v.wrapping_add(off); 32],
        MemBase::None => [off; 32],
        MemBase::Frame(_) => return None,
    })
}

/// Where `addr` lands, as [`Ctx::access`] resolves it: shared memory of a CTA (rank and
/// offset), global memory, the kernel parameters or the constant bank (region and offset);
/// `None` for local memory.
#[inline]
fn place(x: &Ctx<'_, '_>, sp: AddrSpace, addr: u64) -> Option<(Region, u64)> {
    let (region, a) = match sp {
        AddrSpace::Generic => mem::decode_generic(addr),
        AddrSpace::Global => (Region::Global, addr),
        AddrSpace::Shared | AddrSpace::SharedCluster => {
            (Region::Shared(u32::MAX), addr & 0xffff_ffff)
        }
        AddrSpace::Param if addr >= mem::KPARAM_BASE => (Region::KParam, addr - mem::KPARAM_BASE),
        AddrSpace::Const => (Region::Const, addr),
        AddrSpace::Param | AddrSpace::Local => return None,
    };
    match region {
        Region::Shared(_) => {
            let (rank, off) = mem::split_cluster(a);
            Some((Region::Shared(rank.unwrap_or(x.w.cta)), off))
        }
        Region::Local => None,
        r => Some((r, a)),
    }
}

/// Where each executing lane's `total` bytes at `a` lie (into `at`), all checked; `None` when
/// some lane needs the general path (a fault, another region, a watch).
fn resolve(
    x: &mut Ctx<'_, '_>,
    sp: AddrSpace,
    a: &Opnd,
    total: usize,
    write: bool,
    at: &mut [At; 32],
) -> Option<()> {
    let watched = x.cl.inflight.watch || !x.m.gwatch.is_empty() || (write && x.m.proxy_watch);
    // The checks look at shared memory, and at global memory where a buffer is uninitialised
    // or races are checked: other accesses keep this path.
    let shared_checked = x.m.checks.init || x.m.checks.race;
    let global_init = x.m.checks.init && x.m.global_init;
    let global_checked = global_init || x.m.checks.race;
    if watched || total > MAX_BYTES || !total.is_power_of_two() {
        return None;
    }
    let addrs = addresses(x, a)?;
    // The last allocation hit (index, base, length): the lanes of one access mostly share it.
    let mut seg: Option<(usize, u64, usize)> = None;
    let e = x.emask;
    // The common spaces get a loop of their own (the region is known), the rest decode each
    // address.
    match sp {
        AddrSpace::Global => {
            if global_init {
                return None;
            }
            for l in lanes(e) {
                let addr = aligned(addrs[l], total)?;
                at[l] = global_at(x, addr, total, &mut seg)?;
            }
            if x.m.checks.race && x.cl.race.is_some() {
                // Every lane resolved: the race check sees the warp's access here, at once.
                let mut checked = [(0u8, 0u64); 32];
                let mut n = 0;
                for (c, l) in checked.iter_mut().zip(lanes(e)) {
                    *c = (l as u8, addrs[l]);
                    n += 1;
                }
                x.race_global_lanes(&checked[..n], total, write);
            }
        }
        AddrSpace::Shared | AddrSpace::SharedCluster => {
            for l in lanes(e) {
                let addr = aligned(addrs[l], total)?;
                let (rank, off) = mem::split_cluster(addr & 0xffff_ffff);
                at[l] = shared_at(x, rank.unwrap_or(x.w.cta), off, total)?;
            }
        }
        _ => {
            for l in lanes(e) {
                let addr = aligned(addrs[l], total)?;
                let within = |a: u64, len: usize| {
                    a.checked_add(total as u64).is_some_and(|e| e <= len as u64)
                };
                at[l] = match place(x, sp, addr)? {
                    (Region::Global, _) if global_checked => return None,
                    (Region::Shared(rank), off) => shared_at(x, rank, off, total)?,
                    (Region::Global, g) => global_at(x, g, total, &mut seg)?,
                    // Read-only: a store there is the general path's fault to report.
                    (Region::KParam, off) if !write && within(off, x.m.kparams.len()) => {
                        At::KParam(off as usize)
                    }
                    (Region::Const, off) if !write && within(off, x.m.consts.len()) => {
                        At::Const(off as usize)
                    }
                    _ => return None,
                };
            }
        }
    }
    if shared_checked {
        // Every lane resolved: the access happens here, so the checks see it here.
        let mut checked = [(0u8, 0u32, 0u32); 32];
        let mut n = 0;
        for l in lanes(e) {
            if let At::Shared(rank, off) = at[l] {
                checked[n] = (l as u8, rank, off);
                n += 1;
            }
        }
        if n > 0 {
            x.check_shared_lanes(&checked[..n], total, write);
        }
    }
    Some(())
}

/// `addr`, if aligned to `total` (a power of two).
#[inline(always)]
fn aligned(addr: u64, total: usize) -> Option<u64> {
    (addr & (total as u64 - 1) == 0).then_some(addr)
}

/// `total` bytes at offset `off` of the shared memory of the CTA of cluster rank `rank`.
#[inline(always)]
fn shared_at(x: &Ctx<'_, '_>, rank: u32, off: u64, total: usize) -> Option<At> {
    let len = x.cl.shared.get(rank as usize)?.len() as u64;
    (off.checked_add(total as u64)? <= len).then_some(At::Shared(rank, off as u32))
}

/// `total` bytes at global address `g`; `seg` is the allocation the previous lane hit.
#[inline(always)]
fn global_at(
    x: &mut Ctx<'_, '_>,
    g: u64,
    total: usize,
    seg: &mut Option<(usize, u64, usize)>,
) -> Option<At> {
    let (i, base, len) = match *seg {
        Some((i, base, len)) if g.wrapping_sub(base) < len as u64 => (i, base, len),
        _ => {
            let (i, base, d) = x.m.global.segment(g)?;
            *seg = Some((i, base, d.len()));
            (i, base, d.len())
        }
    };
    let off = (g - base) as usize;
    (off + total <= len).then_some(At::Global(i as u32, off))
}

/// `ld` of `n` elements of `es` bytes at `a`, the first `k` into `vals[i][lane]`
/// (sign-extended if `signed`);
/// `false` when the instruction needs the general path (which then starts again: what was
/// put in `vals` is to be overwritten).
pub fn load(
    x: &mut Ctx<'_, '_>,
    sp: AddrSpace,
    a: &Opnd,
    (es, n, k, signed): (usize, usize, usize, bool),
    vals: &mut [[u64; 32]; 8],
) -> bool {
    let total = es * n;
    let mut at = [At::Shared(0, 0); 32];
    if resolve(x, sp, a, total, false, &mut at).is_none() {
        return false;
    }
    match es {
        1 => gather::<1>(x, &at, total, k, signed, vals),
        2 => gather::<2>(x, &at, total, k, signed, vals),
        4 => gather::<4>(x, &at, total, k, signed, vals),
        8 => gather::<8>(x, &at, total, k, signed, vals),
        _ => false,
    }
}

/// [`load`] of `ES`-byte elements from the checked places `at`.
fn gather<const ES: usize>(
    x: &Ctx<'_, '_>,
    at: &[At; 32],
    total: usize,
    k: usize,
    signed: bool,
    vals: &mut [[u64; 32]; 8],
) -> bool {
    // The last global allocation read: the lanes of one access mostly share it.
    let mut cur: Option<(u32, &[u8])> = None;
    for l in lanes(x.emask) {
        let (bytes, off) = match at[l] {
            At::Shared(r, off) => (x.cl.shared.get(r as usize).map(|s| &s[..]), off as usize),
            At::KParam(off) => (Some(&x.m.kparams[..]), off),
            At::Const(off) => (Some(&x.m.consts[..]), off),
            At::Global(i, off) => match cur {
                Some((j, d)) if j == i => (Some(d), off),
                _ => {
                    let d = x.m.global.data(i as usize);
                    cur = d.map(|d| (i, d));
                    (d, off)
                }
            },
        };
        let Some(b) = bytes.and_then(|s| s.get(off..off + total)) else {
            return false;
        };
        for (v, c) in vals.iter_mut().zip(b.chunks_exact(ES)).take(k) {
            let mut w = [0u8; 8];
            w[..ES].copy_from_slice(c);
            let e = u64::from_le_bytes(w);
            v[l] = if signed {
                sext(e, ES as u32 * 8) as u64
            } else {
                e
            };
        }
    }
    true
}

/// `st` of the first `k` of `n` elements of `es` bytes (`vals[i][lane]`, the rest zero) at `a`;
/// `false` when the instruction needs the general path (nothing has been written then, or
/// bytes a general-path rerun writes again with the same values).
pub fn store(
    x: &mut Ctx<'_, '_>,
    sp: AddrSpace,
    a: &Opnd,
    (es, n, k): (usize, usize, usize),
    vals: &[[u64; 32]; 8],
) -> bool {
    if !matches!(es, 1 | 2 | 4 | 8) {
        return false;
    }
    let total = es * n;
    let mut at = [At::Shared(0, 0); 32];
    if resolve(x, sp, a, total, true, &mut at).is_none() {
        return false;
    }
    for l in lanes(x.emask) {
        let b = match es {
            1 => lane_bytes::<1>(vals, k, l),
            2 => lane_bytes::<2>(vals, k, l),
            4 => lane_bytes::<4>(vals, k, l),
            _ => lane_bytes::<8>(vals, k, l),
        };
        let dst = match at[l] {
            At::Shared(r, off) => {
                let off = off as usize;
                x.cl.shared
                    .get_mut(r as usize)
                    .and_then(|s| s.get_mut(off..off + total))
            }
            At::KParam(_) | At::Const(_) => None,
            // In a view of global memory the first write to an allocation copies it, which
            // may exceed the memory budget: the general path then reports that.
            At::Global(i, off) => x.m.global.write_at(i as usize, off, total),
        };
        let Some(dst) = dst else {
            return false;
        };
        put(dst, &b);
    }
    x.m.events += u64::from(x.emask.count_ones());
    true
}

/// Lane `l`'s bytes of the first `k` elements of `ES` bytes (`vals[i][l]`), the rest zero.
#[inline(always)]
fn lane_bytes<const ES: usize>(vals: &[[u64; 32]; 8], k: usize, l: usize) -> [u8; MAX_BYTES] {
    let mut b = [0u8; MAX_BYTES];
    for (c, v) in b.chunks_exact_mut(ES).zip(vals).take(k) {
        c.copy_from_slice(&v[l].to_le_bytes()[..ES]);
    }
    b
}

/// Copies the first `dst.len()` bytes of `b` (the access sizes as fixed-size moves).
#[inline(always)]
fn put(dst: &mut [u8], b: &[u8; MAX_BYTES]) {
    match dst.len() {
        1 => dst[0] = b[0],
        2 => dst.copy_from_slice(&b[..2]),
        4 => dst.copy_from_slice(&b[..4]),
        8 => dst.copy_from_slice(&b[..8]),
        n => dst.copy_from_slice(&b[..n.min(MAX_BYTES)]),
    }
}
