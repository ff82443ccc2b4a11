//! One warp-instruction: pick the group, evaluate the guard, run the instruction's handler
//! (found in the interpreter's table, `semantics.rs`), move the group on.

use super::ctx::Ctx;
use super::flow::Flow;
use super::state::{Cluster, Machine};
use super::warp::{Group, Wait, Warp};
use super::{control, semantics};
use crate::code::Opnd;
use crate::error::Error;
use crate::regs::Regs;
use ptx_ir_core::Opcode;

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

/// The lanes of `mask` whose guard of `d` holds, in the registers `regs` of their depth.
#[inline(always)]
fn executing(d: &crate::code::DInst, regs: &Regs, mask: u32) -> u32 {
    match d.guard {
        None => mask,
        Some((slot, neg)) => {
            let mut e = 0u32;
            if crate::regs::is_wide(slot) {
                for l in super::ctx::lanes(mask) {
                    e |= ((regs.get(slot, l) & 1) as u32 ^ neg as u32) << l;
                }
                return e & mask;
            }
            let s = slot as usize * 32;
            let Some(regs) = regs.narrow.get(s..s + 32) else {
                return 0;
            };
            // All 32 lanes as one vector comparison gathered into a mask, then the group's.
            for (l, r) in regs.iter().enumerate() {
                e |= u32::from(*r & 1 != 0) << l;
            }
            (e ^ 0u32.wrapping_sub(u32::from(neg))) & mask
        }
    }
}

/// Runs up to `budget` instructions of group `gi` of warp `w` in a row while they have
/// warp-wide forms ([`crate::lanewise`]) or are branches the lone group takes whole or not at
/// all, and the group stays the one [`Warp::next_ready`] picks: exactly the steps [`step`]
/// would take one after the other, without the context, the handler table or the scheduler's
/// bookkeeping between them. Returns how many ran (at least one when the group's next
/// instruction has such a form).
#[inline(never)]
fn run_lanewise(m: &mut Machine<'_>, w: &mut Warp, gi: usize, budget: u32) -> Result<u32, Error> {
    let prog = m.prog;
    let (func, mask, depth, start) = {
        let g = &w.groups[gi];
        (g.func, g.mask, g.depth(), g.pc)
    };
    let f = &prog.funcs[func as usize];
    let lanes = u64::from(mask.count_ones());
    let mut pc = start;
    let mut n = 0;
    // A direct branch the whole group takes, or none of it, when the group is the warp's only
    // one and no group is avoided: `finish` would only move the pc (and, backwards, reset the
    // spin count), so the run goes on through it.
    let lone = w.groups.len() == 1 && w.avoid.is_none();
    while n < budget {
        let Some(d) = f.code.get(pc as usize) else {
            break;
        };
        let form = match f.lanewise.get(pc as usize) {
            Some(Some(k)) => Some(k),
            _ if lone && d.op == Opcode::Bra && d.lower.is_none() => None,
            _ => break,
        };
        let Some(regs) = w.regs.get_mut(depth) else {
            break;
        };
        let emask = executing(d, regs, mask);
        // The `reg` check: an instruction reading an unwritten register is left to `one`,
        // which reports it.
        if m.checks.reg && !super::regcheck::clean(&m.reg_io, d, w, (func, pc, depth), mask, emask)
        {
            break;
        }
        let Some(regs) = w.regs.get_mut(depth) else {
            break;
        };
        let next = match (form, &d.opnds[..]) {
            (Some(_), _) => pc + 1,
            (None, [Opnd::Label(target)]) if emask == mask => *target,
            (None, [Opnd::Label(_)]) if emask == 0 => pc + 1,
            (None, _) => break,
        };
        if m.fuel < lanes {
            m.refuel(lanes)?;
        }
        m.fuel -= lanes;
        m.stats.thread_instructions += lanes;
        m.stats.warp_instructions += 1;
        match form {
            Some(k) if emask != 0 => k.run(regs, emask),
            Some(_) => {}
            None if emask != 0 && next <= pc => w.spins = 0,
            None => {}
        }
        pc = next;
        n += 1;
        // As in `step`: a group that caught up with or passed the next one is re-sorted, and
        // which group runs next is then the scheduler's choice again.
        if gi + 1 < w.groups.len() {
            w.groups[gi].pc = pc;
            if w.groups[gi].order(&w.groups[gi + 1]) != std::cmp::Ordering::Less {
                let g = w.groups.remove(gi);
                w.insert(g);
                return Ok(n);
            }
        }
    }
    if let Some(g) = w.groups.get_mut(gi) {
        g.pc = pc;
    }
    Ok(n)
}

/// Runs one instruction of warp `w`, or (a run of instructions with warp-wide forms, up to
/// `budget`) several in a row; returns what the scheduler learns and how many ran. A warp with
/// wgmma state takes one instruction at a time, whose register rules are checked here.
pub fn step(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    w: &mut Warp,
    budget: u32,
) -> Result<(Progress, u32), Error> {
    let Some(gi) = w.next_ready() else {
        return Ok((Progress::Blocked, 0));
    };
    let g = &w.groups[gi];
    let warp_wide = matches!(
        m.prog.funcs[g.func as usize].lanewise.get(g.pc as usize),
        Some(Some(_))
    );
    if warp_wide && w.wg.is_none() {
        let n = run_lanewise(m, w, gi, budget)?;
        // None ran when the `reg` check has a finding to report: `one` reports it.
        if n > 0 {
            return Ok((Progress::Ran(Event::None), n));
        }
    }
    Ok((one(m, cl, w, gi)?, 1))
}

/// Runs the instruction of group `gi` of warp `w`.
fn one(m: &mut Machine<'_>, cl: &mut Cluster, w: &mut Warp, gi: usize) -> Result<Progress, Error> {
    let prog = m.prog;
    let (func, pc, mask, base, sbase, depth) = {
        let g = &w.groups[gi];
        (g.func, g.pc, g.mask, g.base, g.sbase, g.depth())
    };
    let f = &prog.funcs[func as usize];
    let Some(d) = f.code.get(pc as usize) else {
        // Falling off the end of a body is a return.
        let g = w.groups.remove(gi);
        let flow = control::fall_off(m, w, &g);
        return finish(cl, w, g, flow?);
    };
    let emask = executing(d, &w.regs[depth], mask);
    let lanes = mask.count_ones() as u64;
    if m.fuel < lanes {
        m.refuel(lanes)?;
    }
    m.fuel -= lanes;
    m.stats.thread_instructions += lanes;
    m.stats.warp_instructions += 1;
    let mut x = Ctx {
        m,
        cl,
        w,
        f,
        fid: func,
        pc,
        gi,
        d,
        depth,
        base,
        sbase,
        gmask: mask,
        emask,
        yield_warp: false,
    };
    if x.m.checks.reg {
        super::regcheck::check(&mut x);
    }
    if let Some(s) = &x.w.wg {
        if !s.busy.is_empty() && super::wgmma::busy_slot(s, d, depth).is_some() {
            let lane = emask.trailing_zeros() as usize & 31;
            return Err(x.undefined(lane, "the instruction accesses an accumulator or A register of a wgmma.mma_async that no wgmma.wait_group has waited for (PTX ISA 9.7.15.7.3: undefined)"));
        }
    }
    let flow = match f.lanewise.get(pc as usize) {
        Some(Some(k)) => {
            if emask != 0 {
                if let Some(s) = &mut x.w.wg {
                    if s.fenced {
                        s.mark(depth, k.d, 1);
                    }
                }
                k.run(&mut x.w.regs[depth], emask);
            }
            Flow::Next
        }
        _ => semantics::run(&mut x)?,
    };
    let yielded = x.yield_warp;
    if let Flow::Retry = flow {
        m.fuel += lanes;
        m.stats.thread_instructions -= lanes;
        m.stats.warp_instructions -= 1;
        return Ok(Progress::Retry);
    }
    // The `race` check: a global synchronising operation (an atomic, a strong access, a
    // GPU-scope fence), or an operation ordering the warp's lanes, that some lane executed.
    if emask != 0 {
        if let (Some(g), Some(rc)) = (m.grace.as_deref_mut(), cl.race.as_deref_mut()) {
            let flags = g.is_sync(func, pc);
            let id = rc.warp_id(w.cta, w.index);
            if flags & super::race::SYNC_GLOBAL != 0 {
                let index = g.sync_op();
                rc.global_sync(id, index);
            } else if flags & super::race::SYNC_LANES != 0 {
                rc.warp_order(id);
            }
        }
    }
    if let Flow::Next = flow {
        // The common case: move on in place, re-sorting only if the group caught up with or
        // passed the next one.
        w.groups[gi].pc += 1;
        if gi + 1 < w.groups.len()
            && w.groups[gi].order(&w.groups[gi + 1]) != std::cmp::Ordering::Less
        {
            let g = w.groups.remove(gi);
            w.insert(g);
        }
        return Ok(Progress::Ran(if yielded {
            Event::Yield
        } else {
            Event::None
        }));
    }
    let g = w.groups.remove(gi);
    finish(cl, w, g, flow)
}

fn finish(cl: &mut Cluster, w: &mut Warp, mut g: Group, flow: Flow) -> Result<Progress, Error> {
    let mut ev = Event::None;
    match flow {
        Flow::Next => {
            g.pc += 1;
            w.insert(g);
        }
        Flow::Jump { taken, target } => {
            if taken != 0 && target <= g.pc {
                let others = w.groups.iter().any(|h| h.wait == Wait::Ready);
                if others || taken != g.mask {
                    w.spins += 1;
                    if w.spins >= super::warp::SPIN_LIMIT {
                        w.spins = 0;
                        w.avoid = Some(taken);
                    }
                } else {
                    w.spins = 0;
                }
            }
            let rest = g.mask & !taken;
            if rest != 0 {
                let mut h = g.clone();
                h.mask = rest;
                h.pc += 1;
                w.insert(h);
            }
            if taken != 0 {
                g.mask = taken;
                g.pc = target;
                w.insert(g);
            }
        }
        Flow::Split(parts) => {
            let mut rest = g.mask;
            for (mask, pc) in parts {
                let mask = mask & rest;
                if mask == 0 {
                    continue;
                }
                rest &= !mask;
                let mut h = g.clone();
                h.mask = mask;
                h.pc = pc;
                w.insert(h);
            }
            if rest != 0 {
                g.mask = rest;
                g.pc += 1;
                w.insert(g);
            }
        }
        Flow::Groups(gs) => {
            for h in gs {
                w.insert(h);
            }
        }
        Flow::Exit(lanes) => {
            let gone = lanes & g.mask;
            w.exited |= gone;
            let rest = g.mask & !lanes;
            if rest != 0 {
                g.mask = rest;
                g.pc += 1;
                w.insert(g);
            }
            if gone != 0 {
                ev = Event::Exited(gone);
            }
        }
        Flow::Block(wait) => {
            g.wait = wait;
            w.insert(g);
        }
        Flow::Barrier {
            id,
            count,
            arrive,
            preds,
        } => {
            let lanes = g.mask;
            ev = Event::Bar {
                id,
                count,
                lanes,
                preds,
            };
            if arrive {
                g.pc += 1;
            } else {
                g.wait = Wait::Barrier(id);
            }
            w.insert(g);
        }
        Flow::Retry => {
            w.insert(g);
        }
        Flow::ClusterArrive => {
            let lanes = g.mask;
            for l in super::ctx::lanes(lanes) {
                w.cluster_arrived[l] = cl.cbar_phase;
            }
            ev = Event::ClusterArrive(lanes);
            g.pc += 1;
            w.insert(g);
        }
        Flow::ClusterWait => {
            let pending = super::ctx::lanes(g.mask).any(|l| w.cluster_arrived[l] == cl.cbar_phase);
            if pending {
                g.wait = Wait::Cluster;
            } else {
                if let Some(rc) = &mut cl.race {
                    let id = rc.warp_id(w.cta, w.index);
                    rc.cluster_wait(id);
                }
                g.pc += 1;
            }
            w.insert(g);
        }
    }
    Ok(Progress::Ran(ev))
}
