//! Non-bulk asynchronous copies (PTX ISA 9.7.9.25.3): `cp.async`, `cp.async.commit_group`,
//! `cp.async.wait_group`, `cp.async.wait_all` and `cp.async.mbarrier.arrive`.
//!
//! A `cp.async` reads its global source at issue (only `src-size` bytes; none with `ignore-src`
//! or `src-size` 0, so a masked-off lane's address is never touched), and its shared destination
//! (zero-filled beyond `src-size`) becomes visible when its cp.async-group is waited for, when
//! an mbarrier tracking it through `cp.async.mbarrier.arrive` is tested, or when the thread
//! exits; see [`super::inflight`] for what happens to an early read. Cache operators, cache
//! hints and prefetch sizes are performance hints and are accepted.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::mbarrier;
use super::state::inflight::{AsyncArrive, Issuer, Loc, Op, Part, Src};
use crate::code::Opnd;
use crate::error::Error;
use ptx_ir_core::{CacheOp, Flag, Opcode};

/// The issuing thread of lane `l`, for operation records.
pub fn issuer(x: &Ctx<'_, '_>, l: usize) -> Issuer {
    let race =
        x.cl.race
            .as_ref()
            .map(|rc| rc.snapshot(rc.warp_id(x.w.cta, x.w.index)))
            .unwrap_or_default();
    Issuer {
        func: x.fid,
        pc: x.pc,
        thread: x.thread(l),
        warp: [x.w.cta, x.w.index],
        race,
    }
}

/// The async-group key of lane `l`.
pub fn key(x: &Ctx<'_, '_>, l: usize) -> (u32, u32) {
    (x.w.cta, x.w.index * 32 + l as u32)
}

/// Whether operand `o` is a predicate (the `ignore-src` form).
fn is_pred(o: &Opnd) -> bool {
    matches!(o, Opnd::Reg { bits: 1, .. } | Opnd::Not(_))
}

/// `cp.async`
pub fn cp_async(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, src, size_o] = x.ops();
    // Operands after cp-size: {src-size | ignore-src}{, cache-policy}; the cache policy is the
    // last one when `.L2::cache_hint` is present.
    let hint = x.d.l2_hint;
    let n = x.d.opnds.len();
    let extra = n.saturating_sub(3) - usize::from(hint && n > 3);
    let fourth = x.opt(3).filter(|_| extra >= 1);
    let cg = x.d.cache_op == Some(CacheOp::Cg);
    for l in lanes(x.emask) {
        let n = x.get(size_o, l)? as usize;
        if !matches!(n, 4 | 8 | 16) {
            return Err(x.undefined(l, format!("cp.async cp-size {n} is not 4, 8 or 16")));
        }
        if cg && n != 16 {
            return Err(x.undefined(
                l,
                format!("cp.async.cg with cp-size {n}: .cg takes only 16 (PTX ISA 9.7.9.25.3.1)"),
            ));
        }
        let sn = match fourth {
            Some(o) if is_pred(o) => {
                if x.get(o, l)? & 1 != 0 {
                    0
                } else {
                    n
                }
            }
            Some(o) => {
                let s = (x.get(o, l)? & 0xffff_ffff) as usize;
                if s > n {
                    return Err(x.undefined(l, format!("cp.async src-size {s} is larger than cp-size {n} (PTX ISA 9.7.9.25.3.1: undefined)")));
                }
                s
            }
            None => n,
        };
        let da = x.addr(dst, l)?;
        let sa = x.addr(src, l)?;
        let dsp = AddrSpace::of(x.d.space);
        if da % n as u64 != 0 {
            return Err(x.fault(crate::error::FaultKind::Misaligned, dsp, da, n, l));
        }
        let (rank, off) = x.shared_loc(dsp, da, n, l, true)?;
        let mut data = vec![0u8; n];
        let mut srcs = Vec::new();
        if sn > 0 {
            if sa % n as u64 != 0 {
                return Err(x.fault(
                    crate::error::FaultKind::Misaligned,
                    AddrSpace::Global,
                    sa,
                    n,
                    l,
                ));
            }
            let got = x.access(AddrSpace::Global, sa, sn, 1, l, false, |b| b.to_vec())?;
            data[..sn].copy_from_slice(&got);
            srcs.push(Src::Global {
                addr: sa,
                len: sn as u64,
            });
        }
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts: vec![Part {
                dest: Loc::Shared { rank, off },
                data,
                byte_mask: None,
                reduce: None,
                mbar: None,
                tx: 0,
            }],
            srcs,
        };
        let id = inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
        let k = key(x, l);
        x.cl.inflight.groups(false, k).uncommitted.push(id);
    }
    Ok(Flow::Next)
}

/// `cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`
pub fn group(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let op = x.d.op;
    let n = match op {
        Opcode::CpAsyncWaitGroup => {
            let [n] = x.ops();
            x.get(n, 0)? as usize
        }
        _ => 0,
    };
    for l in lanes(x.emask) {
        let k = key(x, l);
        match op {
            Opcode::CpAsyncCommitGroup => inflight::commit(x.cl, false, k),
            Opcode::CpAsyncWaitAll => {
                inflight::commit(x.cl, false, k);
                inflight::wait_groups(x.m, x.cl, false, k, 0, false)?;
            }
            _ => inflight::wait_groups(x.m, x.cl, false, k, n, false)?,
        }
    }
    Ok(Flow::Next)
}

/// `cp.async.mbarrier.arrive{.noinc}`: an arrive-on once all prior `cp.async` of the thread
/// are done.
pub fn mbarrier_arrive(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let noinc = x.has(Flag::NoInc);
    let [ao] = x.ops();
    for l in lanes(x.emask) {
        let key = mbarrier::locate(x, ao, l, true)?;
        let k = self::key(x, l);
        let ops: Vec<u64> = match x.cl.inflight.cp.get(&k) {
            Some(g) => g
                .uncommitted
                .iter()
                .chain(g.groups.iter().flatten())
                .copied()
                .collect(),
            None => Vec::new(),
        };
        if !noinc {
            super::state::mbarrier::async_arrive_inc(&mut x.cl.mbars, key)
                .map_err(|r| x.undefined(l, r))?;
        } else if !x.cl.mbars.contains_key(&key) {
            return Err(x.undefined(
                l,
                "cp.async.mbarrier.arrive on memory that holds no initialised mbarrier object (PTX ISA 9.7.13.15)",
            ));
        }
        x.cl.inflight.arrives.push(AsyncArrive {
            mbar: key,
            ops,
            issuer: issuer(x, l),
        });
        x.m.events += 1;
    }
    Ok(Flow::Next)
}
