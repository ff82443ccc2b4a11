//! Bulk asynchronous copies (PTX ISA 9.7.9.25.4, 9.7.9.27.2): `cp.async.bulk`,
//! `cp.reduce.async.bulk`, `cp.async.bulk.prefetch`, `cp.async.bulk.commit_group` and
//! `cp.async.bulk.wait_group{.read}`.
//!
//! Sizes must be multiples of 16 and both addresses 16-byte aligned, the ranges must lie in
//! their spaces, a `.shared::cta` destination must be the executing CTA's and a
//! `.shared::cluster` destination of the shared-to-shared form another CTA's (each breach is
//! reported as undefined). Completion: the complete-tx of `size` bytes on the mbarrier (in the
//! destination's CTA; with `.multicast::cluster` in every CTA of `ctaMask`, at the same offsets)
//! or the bulk async-group; see [`super::inflight`]. `.cp_mask` writes only the bytes whose
//! bit is set in `byteMask`. Reductions act element-wise on the destination when the operation
//! completes, with the rules of `atom`/`red` except that `.add.f32` keeps subnormals (measured;
//! see `inflight::reduce_elem`); f16/bf16 need `.noftz`.

use super::async_copy::{issuer, key};
use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::state::inflight::{Loc, Op, Part, Reduce, Src, Track};
use crate::error::{Error, FaultKind};
use ptx_ir_core::{Flag, Op as RedOp, Opcode, Space, Type};

/// The destination and mbarrier of a copy into shared memory, per destination CTA.
pub struct SharedDest {
    /// (rank, offset) of each destination.
    pub dests: Vec<(u32, u32)>,
    /// (rank, offset) of the mbarrier of each destination.
    pub mbars: Vec<(u32, u32)>,
}

/// Resolves `[dst]`, `[mbar]` and the optional `ctaMask` of a copy into shared memory.
/// `cluster` is `.shared::cluster` as the destination space; `remote_only` is the
/// shared-to-shared form.
#[allow(clippy::too_many_arguments)]
pub fn shared_dest(
    x: &Ctx<'_, '_>,
    l: usize,
    dst: u64,
    mbar: u64,
    size: u32,
    cluster: bool,
    remote_only: bool,
    cta_mask: Option<u64>,
) -> Result<SharedDest, Error> {
    let sp = if cluster {
        AddrSpace::SharedCluster
    } else {
        AddrSpace::Shared
    };
    let (drank, doff) = x.shared_loc(sp, dst, size as usize, l, !cluster)?;
    let (mrank, moff) = x.shared_loc(sp, mbar, 8, l, !cluster)?;
    if moff % 8 != 0 {
        return Err(x.fault(FaultKind::Misaligned, sp, mbar, 8, l));
    }
    if remote_only && drank == x.w.cta {
        return Err(x.undefined(l, "cp.async.bulk.shared::cluster.shared::cta copies to the executing CTA's own shared memory; the destination must be another CTA's (PTX ISA 9.7.9.25.4.1)"));
    }
    match cta_mask {
        None => {
            if mrank != drank {
                return Err(x.undefined(l, format!("the mbarrier (CTA rank {mrank}) is not in the destination's CTA (rank {drank}) (PTX ISA 9.7.9.25.4.1)")));
            }
            Ok(SharedDest {
                dests: vec![(drank, doff)],
                mbars: vec![(mrank, moff)],
            })
        }
        Some(mask) => {
            let n = x.cl.shared.len() as u32;
            let mask = mask & 0xffff;
            if mask == 0 {
                return Err(x.undefined(l, "ctaMask names no CTA"));
            }
            let mut d = SharedDest {
                dests: Vec::new(),
                mbars: Vec::new(),
            };
            for r in 0..16u32 {
                if mask >> r & 1 == 0 {
                    continue;
                }
                if r >= n {
                    return Err(x.undefined(
                        l,
                        format!("ctaMask {mask:#06x} names CTA rank {r} of a {n}-CTA cluster"),
                    ));
                }
                let len = x.cl.shared[r as usize].len() as u64;
                if doff as u64 + size as u64 > len || moff as u64 + 8 > len {
                    return Err(x.fault(FaultKind::OutOfBounds, sp, dst, size as usize, l));
                }
                d.dests.push((r, doff));
                d.mbars.push((r, moff));
            }
            Ok(d)
        }
    }
}

fn check_size(x: &Ctx<'_, '_>, l: usize, size: u64, a: u64, b: u64) -> Result<(), Error> {
    if size % 16 != 0 {
        return Err(x.undefined(
            l,
            format!("bulk copy size {size} is not a multiple of 16 (PTX ISA 9.7.9.25.4.1)"),
        ));
    }
    if a % 16 != 0 || b % 16 != 0 {
        let bad = if a % 16 != 0 { a } else { b };
        return Err(x.undefined(
            l,
            format!("bulk copy address {bad:#x} is not 16-byte aligned (PTX ISA 9.7.9.25.4.1)"),
        ));
    }
    Ok(())
}

fn reduce_of(x: &Ctx<'_, '_>, global: bool) -> Result<Reduce, Error> {
    let ty =
        x.d.ty
            .ok_or_else(|| x.unsupported("reduction without a type"))?;
    let op =
        x.d.oper
            .ok_or_else(|| x.unsupported("reduction without an operation"))?;
    use RedOp::*;
    use Type::*;
    // The valid combinations (PTX ISA 9.7.9.25.4.2).
    let ok = match op {
        Add => matches!(ty, U32 | S32 | U64) || (global && matches!(ty, F32 | F64 | F16 | Bf16)),
        Min | Max => matches!(ty, U32 | S32) || (global && matches!(ty, U64 | S64 | F16 | Bf16)),
        Inc | Dec => ty == U32,
        And | Or | Xor => ty == B32 || (global && ty == B64),
        _ => false,
    };
    if !ok {
        return Err(x.unsupported(format!(
            "cp.reduce.async.bulk .{} on .{} is not a valid combination (PTX ISA 9.7.9.25.4.2)",
            op.as_str(),
            ty.as_str()
        )));
    }
    if matches!(ty, F16 | Bf16) && op == Add && !x.has(Flag::NoFtz) {
        return Err(x.unsupported(".add on f16/bf16 requires .noftz"));
    }
    Ok(Reduce { op, ty })
}

/// `cp.async.bulk` and `cp.reduce.async.bulk`
pub fn bulk(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let reduce = x.d.op == Opcode::CpReduceAsyncBulk;
    let (dsp, ssp) = (x.d.space, x.d.space2);
    let to_global = dsp == Some(Space::Global);
    let dst_cluster = dsp == Some(Space::SharedCluster);
    let src_shared = matches!(ssp, Some(Space::SharedCta | Space::Shared));
    let multicast = x.has(Flag::MulticastCluster);
    let cp_mask = x.has(Flag::CpMask);
    let red = if reduce {
        Some(reduce_of(x, to_global)?)
    } else {
        None
    };
    // `[dst], [src], size`, then to global `{, cache-policy}{, byteMask}`, to shared `[mbar]{,
    // ctaMask}{, cache-policy}` (the arity of each direction)
    let [dst, src, size_o] = x.ops();
    for l in lanes(x.emask) {
        let da = x.addr(dst, l)?;
        let sa = x.addr(src, l)?;
        let size = x.get(size_o, l)? & 0xffff_ffff;
        check_size(x, l, size, da, sa)?;
        // Source bytes.
        let (data, src) = if src_shared {
            let (rank, off) = x.shared_loc(AddrSpace::Shared, sa, size as usize, l, true)?;
            let d = x.cl.shared[rank as usize][off as usize..(off as u64 + size) as usize].to_vec();
            (
                d,
                Src::Shared {
                    rank,
                    off,
                    len: size as u32,
                },
            )
        } else {
            let d =
                x.m.global
                    .read(sa, size as usize)
                    .map(|b| b.to_vec())
                    .map_err(|k| x.fault(k, AddrSpace::Global, sa, size as usize, l))?;
            (
                d,
                Src::Global {
                    addr: sa,
                    len: size,
                },
            )
        };
        let (parts, track) = if to_global {
            if x.m.global.check(da, size as usize).is_err() {
                return Err(x.fault(
                    FaultKind::OutOfBounds,
                    AddrSpace::Global,
                    da,
                    size as usize,
                    l,
                ));
            }
            let byte_mask = match x.d.opnds.last() {
                Some(m) if cp_mask => Some((x.get(m, l)? & 0xffff) as u16),
                _ => None,
            };
            (
                vec![Part {
                    dest: Loc::Global(da),
                    data,
                    byte_mask,
                    reduce: red,
                    mbar: None,
                    tx: 0,
                }],
                Track::Bulk,
            )
        } else {
            let [.., mbar] = x.ops::<4>();
            let ma = x.addr(mbar, l)?;
            let mask = if multicast {
                let [.., cta_mask] = x.ops::<5>();
                Some(x.get(cta_mask, l)?)
            } else {
                None
            };
            let sd = shared_dest(x, l, da, ma, size as u32, dst_cluster, src_shared, mask)?;
            let parts = sd
                .dests
                .iter()
                .zip(&sd.mbars)
                .map(|(&(rank, off), &mb)| Part {
                    dest: Loc::Shared { rank, off },
                    data: data.clone(),
                    byte_mask: None,
                    reduce: red,
                    mbar: Some(mb),
                    tx: size as u32,
                })
                .collect();
            (parts, Track::Mbar)
        };
        super::proxy::check_reads(x, l, &[src])?;
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs: vec![src],
        };
        let id = inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
        if track == Track::Bulk {
            let k = key(x, l);
            x.cl.inflight.groups(true, k).uncommitted.push(id);
        }
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.prefetch.L2.global`: checks its operands; the interpreter has no cache.
pub fn prefetch(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [src, size_o] = x.ops();
    for l in lanes(x.emask) {
        let sa = x.addr(src, l)?;
        let size = x.get(size_o, l)? & 0xffff_ffff;
        check_size(x, l, size, sa, 0)?;
        if x.m.global.check(sa, size as usize).is_err() {
            return Err(x.fault(
                FaultKind::OutOfBounds,
                AddrSpace::Global,
                sa,
                size as usize,
                l,
            ));
        }
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read}`
pub fn group(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let wait = x.d.op == Opcode::CpAsyncBulkWaitGroup;
    let n = if wait {
        let [n] = x.ops();
        x.get(n, 0)? as usize
    } else {
        0
    };
    let read = x.has(Flag::Read);
    for l in lanes(x.emask) {
        let k = key(x, l);
        if wait {
            inflight::wait_groups(x.m, x.cl, true, k, n, read)?;
        } else {
            inflight::commit(x.cl, true, k);
        }
    }
    Ok(Flow::Next)
}
