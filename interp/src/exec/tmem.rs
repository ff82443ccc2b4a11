//! Tensor memory allocation (seed 004, PTX ISA 9.7.16.7.1): `tcgen05.alloc`,
//! `tcgen05.dealloc`, `tcgen05.relinquish_alloc_permit`.
//!
//! Each CTA has 512 columns of tensor memory. An allocation of `nCols` columns takes the lowest
//! free range aligned to `nCols` and writes its address (lane 0 in bits 31..16, the first
//! column in bits 15..0) to shared memory at `[dst]`; with no such range it blocks until a
//! deallocation frees one (a deadlock when none can). With `.cta_group::2` one warp of each CTA
//! of the peer pair (cluster ranks 2k and 2k+1) must issue the matching instruction: the first
//! waits for the second, and both CTAs get the same columns.
//!
//! Each rule of the seed is checked and reported as undefined behaviour citing it: `nCols` a
//! power of two in 32..=512, the same in every thread of the warp, all threads of the warp
//! executing (`.sync.aligned`, none exited), `nCols` not increasing between two allocations of
//! a CTA, no allocation after `relinquish_alloc_permit`, `dealloc` of exactly a previous
//! allocation, everything deallocated before the CTA exits, and one `.cta_group` for all
//! `tcgen05` instructions of a kernel (checked at launch over the functions the kernel can
//! reach). The allocations and pending pair requests are in [`super::state::tmem`].

use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::state::tmem::{Alloc, CtaTmem, PairReq, COLUMNS};
use crate::code::{FuncId, Opnd};
use crate::error::{Error, Site, Thread};
use crate::load::Program;
use ptx_ir_core::{Flag, Opcode};

const SEED: &str = "seed 004 / PTX ISA 9.7.16.7.1";

fn free_range(t: &CtaTmem, ncols: u32) -> impl Iterator<Item = u32> + '_ {
    (0..COLUMNS / ncols)
        .map(move |k| k * ncols)
        .filter(move |&c| {
            t.allocs
                .iter()
                .all(|a| c + ncols <= a.col || a.col + a.ncols <= c)
        })
}

fn warp_uniform(x: &Ctx<'_, '_>, o: &Opnd, what: &str) -> Result<u64, Error> {
    let mut v: Option<u64> = None;
    for l in lanes(x.emask) {
        let a = x.get(o, l)? & 0xffff_ffff;
        if let Some(b) = v {
            if a != b {
                return Err(x.undefined(
                    l,
                    format!("threads of the warp give different {what} ({b} and {a}) ({SEED}: undefined)"),
                ));
            }
        }
        v = Some(a);
    }
    Ok(v.unwrap_or(0))
}

fn aligned(x: &Ctx<'_, '_>) -> Result<(), Error> {
    if x.w.exited != 0 || x.emask != x.w.valid {
        let l = (x.w.valid & !x.emask).trailing_zeros() as usize & 31;
        return Err(x.undefined(l, format!(
            "{} is .sync.aligned: every thread of the warp must execute it and none may have exited ({SEED})",
            x.d.op.name()
        )));
    }
    Ok(())
}

/// `tcgen05.alloc`, `tcgen05.dealloc`, `tcgen05.relinquish_alloc_permit`
pub fn tmem(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    aligned(x)?;
    let pair = x.has(Flag::CtaGroup2);
    let own = x.w.cta;
    let lane0 = x.emask.trailing_zeros() as usize;
    if pair && x.cl.shared.len() < 2 {
        return Err(x.undefined(
            lane0,
            format!(
                "{} with .cta_group::2 in a cluster without a peer CTA ({SEED})",
                x.d.op.name()
            ),
        ));
    }
    match x.d.op {
        Opcode::Tcgen05RelinquishAllocPermit => {
            let ranks = if pair { vec![own, own ^ 1] } else { vec![own] };
            for r in ranks {
                if let Some(t) = x.cl.tmem.get_mut(r as usize) {
                    t.relinquished = true;
                }
            }
            Ok(Flow::Next)
        }
        Opcode::Tcgen05Alloc => {
            let [dst, ncols] = x.ops();
            let ncols = warp_uniform(x, ncols, "nCols")? as u32;
            if !(32..=512).contains(&ncols) || !ncols.is_power_of_two() {
                return Err(x.undefined(lane0, format!("tcgen05.alloc of {ncols} columns: nCols must be a power of 2 in [32, 512] ({SEED})")));
            }
            let col = if pair {
                match pair_step(x, ncols, None)? {
                    Some(c) => c,
                    None => return Ok(Flow::Retry),
                }
            } else {
                check_alloc(x, own, ncols, lane0)?;
                let t = &x.cl.tmem[own as usize];
                let Some(c) = free_range(t, ncols).next() else {
                    return Ok(Flow::Retry);
                };
                record(x, own, c, ncols, lane0);
                c
            };
            // Every thread's [dst] receives the address (a weak store).
            let sp = AddrSpace::of(x.d.space);
            for l in lanes(x.emask) {
                let a = x.addr(dst, l)?;
                x.shared_loc(sp, a, 4, l, true)?;
                x.store(sp, a, 4, l, col as u64)?;
            }
            Ok(Flow::Next)
        }
        Opcode::Tcgen05Dealloc => {
            let [taddr, ncols] = x.ops();
            let taddr = warp_uniform(x, taddr, "taddr")? as u32;
            let ncols = warp_uniform(x, ncols, "nCols")? as u32;
            if !(32..=512).contains(&ncols) || !ncols.is_power_of_two() {
                return Err(x.undefined(lane0, format!("tcgen05.dealloc of {ncols} columns: nCols must be a power of 2 in [32, 512] ({SEED})")));
            }
            if taddr >> 16 != 0 {
                return Err(x.undefined(lane0, format!("tcgen05.dealloc of address {taddr:#x}, which is not the lane-0 address of an allocation ({SEED})")));
            }
            let col = taddr & 0xffff;
            if pair {
                return match pair_step(x, ncols, Some(col))? {
                    Some(_) => Ok(Flow::Next),
                    None => Ok(Flow::Retry),
                };
            }
            free(x, own, col, ncols, lane0)?;
            Ok(Flow::Next)
        }
        _ => Err(x.unsupported("tcgen05 form")),
    }
}

fn check_alloc(x: &Ctx<'_, '_>, rank: u32, ncols: u32, lane: usize) -> Result<(), Error> {
    let t = &x.cl.tmem[rank as usize];
    if t.relinquished {
        return Err(x.undefined(lane, format!("tcgen05.alloc after a thread of the CTA executed tcgen05.relinquish_alloc_permit ({SEED}: illegal)")));
    }
    if let Some(last) = t.last {
        if ncols > last {
            return Err(x.undefined(lane, format!("tcgen05.alloc of {ncols} columns after an allocation of {last}: the number of columns allocated must not increase between two allocations of a CTA ({SEED})")));
        }
    }
    Ok(())
}

fn record(x: &mut Ctx<'_, '_>, rank: u32, col: u32, ncols: u32, lane: usize) {
    let site = (x.fid, x.pc, x.thread(lane));
    let t = &mut x.cl.tmem[rank as usize];
    t.allocs.push(Alloc { col, ncols, site });
    t.last = Some(ncols);
    x.m.events += 1;
}

fn free(x: &mut Ctx<'_, '_>, rank: u32, col: u32, ncols: u32, lane: usize) -> Result<(), Error> {
    let t = &mut x.cl.tmem[rank as usize];
    match t.allocs.iter().position(|a| a.col == col && a.ncols == ncols) {
        Some(i) => {
            t.allocs.remove(i);
            x.m.events += 1;
            Ok(())
        }
        None => Err(x.undefined(lane, format!("tcgen05.dealloc of columns {col}..{} in CTA rank {rank}, which is not a previous allocation (taddr must point to a previous tensor memory allocation, {SEED})", col + ncols))),
    }
}

/// One step of a `.cta_group::2` rendezvous: `Some(column)` when done, `None` to wait.
fn pair_step(x: &mut Ctx<'_, '_>, ncols: u32, dealloc: Option<u32>) -> Result<Option<u32>, Error> {
    let own = x.w.cta;
    let peer = own ^ 1;
    let lane0 = x.emask.trailing_zeros() as usize;
    if peer as usize >= x.cl.shared.len() {
        return Err(x.undefined(
            lane0,
            format!("CTA rank {own} has no peer CTA for .cta_group::2 ({SEED})"),
        ));
    }
    let warp = x.w.index;
    // Our own request, already posted?
    if let Some(i) =
        x.cl.tmem_pair
            .iter()
            .position(|r| r.rank == own && r.warp == warp && r.at == (x.fid, x.pc))
    {
        return Ok(match x.cl.tmem_pair[i].done {
            Some(c) => {
                x.cl.tmem_pair.remove(i);
                Some(c)
            }
            None => None,
        });
    }
    // The peer's request?
    if let Some(i) = x.cl.tmem_pair.iter().position(|r| {
        r.rank == peer && r.done.is_none() && r.dealloc.is_some() == dealloc.is_some()
    }) {
        let r = x.cl.tmem_pair[i].clone();
        if r.ncols != ncols || r.dealloc != dealloc {
            return Err(x.undefined(lane0, format!("the peer CTA's warp gives nCols {} / taddr {:?}, this warp {ncols} / {dealloc:?}: .cta_group::2 operations are collective ({SEED})", r.ncols, r.dealloc)));
        }
        let col = match dealloc {
            Some(c) => {
                free(x, own, c, ncols, lane0)?;
                free(x, peer, c, ncols, lane0)?;
                c
            }
            None => {
                check_alloc(x, own, ncols, lane0)?;
                check_alloc(x, peer, ncols, lane0)?;
                let (a, b) = (&x.cl.tmem[own as usize], &x.cl.tmem[peer as usize]);
                let Some(c) = free_range(a, ncols).find(|c| free_range(b, ncols).any(|d| d == *c))
                else {
                    return Ok(None);
                };
                record(x, own, c, ncols, lane0);
                record(x, peer, c, ncols, lane0);
                c
            }
        };
        x.cl.tmem_pair[i].done = Some(col);
        return Ok(Some(col));
    }
    x.cl.tmem_pair.push(PairReq {
        rank: own,
        warp,
        at: (x.fid, x.pc),
        ncols,
        dealloc,
        done: None,
    });
    x.m.events += 1;
    Ok(None)
}

/// A CTA finished: all its tensor memory must have been deallocated.
pub fn cta_exit(prog: &Program, t: &CtaTmem) -> Result<(), Error> {
    match t.allocs.first() {
        None => Ok(()),
        Some(a) => Err(Error::Undefined {
            site: Site {
                function: prog.funcs.get(a.site.0 as usize).map(|f| f.name.clone()).unwrap_or_default(),
                index: a.site.1,
                inst: prog.inst_text(a.site.0, a.site.1),
            },
            thread: a.site.2,
            rule: format!(
                "tensor memory columns {}..{} allocated here were not deallocated before the CTA exited (all tensor memory allocated with tcgen05.alloc must be deallocated with tcgen05.dealloc before the kernel exits, {SEED})",
                a.col,
                a.col + a.ncols
            ),
        }),
    }
}

/// All `tcgen05` instructions of a kernel must name the same `.cta_group`.
pub fn check_cta_group(prog: &Program, entry: FuncId) -> Result<(), Error> {
    let mut first: Option<(bool, FuncId, u32)> = None;
    for f in prog.reachable(entry) {
        let func = &prog.funcs[f as usize];
        for (pc, i) in func.insts.iter().enumerate() {
            if !i.opcode.name().starts_with("tcgen05.") {
                continue;
            }
            let two = i.has(Flag::CtaGroup2);
            if !two && !i.has(Flag::CtaGroup1) {
                continue;
            }
            match first {
                None => first = Some((two, f, pc as u32)),
                Some((t, f0, pc0)) if t != two => {
                    return Err(Error::Undefined {
                        site: Site {
                            function: func.name.clone(),
                            index: pc as u32,
                            inst: prog.inst_text(f, pc as u32),
                        },
                        thread: Thread::default(),
                        rule: format!(
                            "this tcgen05 instruction and `{}` ({} #{pc0}) give different .cta_group qualifiers; all tcgen05 instructions within a kernel must specify the same value ({SEED})",
                            prog.inst_text(f0, pc0),
                            prog.funcs[f0 as usize].name
                        ),
                    })
                }
                _ => {}
            }
        }
    }
    Ok(())
}
