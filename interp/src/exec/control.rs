//! Control flow: branches, calls, returns, barriers.

use super::ctx::{lanes, Ctx};
use super::flow::Flow;
use super::state::{own_stack, Cluster, Machine};
use super::warp::{Frame, Group, SpFrame, Wait, Warp};
use crate::code::Opnd;
use crate::error::Error;
use crate::load::{CallList, FParam, ParamLoc, Program};
use crate::mem;
use ptx_ir_core::Flag;
use smallvec::SmallVec;

/// The first lane of the executing group that its guard leaves out, if any: for the
/// instructions whose threads must agree on the guard (`.uni` forms, `.aligned` barriers).
fn guarded_out(x: &Ctx<'_, '_>) -> Option<usize> {
    let off = x.gmask & !x.emask;
    (x.emask != 0 && off != 0).then(|| off.trailing_zeros() as usize)
}

/// A `.uni` instruction whose guard differs between the active threads: undefined.
fn uni_guard(x: &Ctx<'_, '_>, what: &str) -> Result<(), Error> {
    match guarded_out(x) {
        Some(lane) if x.has(Flag::Uni) => Err(x.undefined(
            lane,
            format!("{what}.uni executed with a divergent guard predicate (PTX ISA 9.7.12: all active threads must have identical values for the guard predicate)"),
        )),
        _ => Ok(()),
    }
}

/// `bra`
pub fn bra(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [t] = x.ops();
    let target = match t {
        Opnd::Label(pc) => *pc,
        _ => return Err(x.unsupported("branch target is not a label")),
    };
    uni_guard(x, "bra")?;
    Ok(Flow::Jump {
        taken: x.emask,
        target,
    })
}

/// `brx.idx`
pub fn brx(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [i, t] = x.ops();
    let idx = x.read(i, x.emask)?;
    let table = match t {
        Opnd::Targets(t) => x.f.branch_tables.get(*t as usize),
        _ => None,
    }
    .ok_or_else(|| x.unsupported("brx.idx target is not a .branchtargets list"))?;
    uni_guard(x, "brx.idx")?;
    let mut parts: SmallVec<[(u32, u32); 4]> = SmallVec::new();
    let mut first: Option<u64> = None;
    for l in lanes(x.emask) {
        let i = idx[l] & 0xffff_ffff;
        let Some(&pc) = table.get(i as usize) else {
            return Err(x.undefined(l, format!("brx.idx index {i} >= {} targets", table.len())));
        };
        if x.has(Flag::Uni) {
            if let Some(f) = first {
                if f != i {
                    return Err(x.undefined(l, "brx.idx.uni with a divergent index"));
                }
            }
            first = Some(i);
        }
        match parts.iter_mut().find(|(_, p)| *p == pc) {
            Some((m, _)) => *m |= 1 << l,
            None => parts.push((1 << l, pc)),
        }
    }
    Ok(Flow::Split(parts))
}

fn read_bytes(w: &Warp, lane: usize, at: u32, n: u32) -> Option<Vec<u8>> {
    w.stacks
        .get(lane)?
        .get(at as usize..(at as usize).saturating_add(n as usize))
        .map(|b| b.to_vec())
}

fn write_bytes(w: &mut Warp, lane: usize, at: u32, b: &[u8]) -> bool {
    match w
        .stacks
        .get_mut(lane)
        .and_then(|s| s.get_mut(at as usize..(at as usize).saturating_add(b.len())))
    {
        Some(d) => {
            d.copy_from_slice(b);
            if let Some(s) = w.local_init.get_mut(lane) {
                s.mark(at as usize, b.len());
            }
            true
        }
        None => false,
    }
}

/// Bytes of a formal's value from an actual operand in the caller.
fn actual_bytes(x: &Ctx<'_, '_>, a: &Opnd, lane: usize, p: &FParam) -> Result<Vec<u8>, Error> {
    match a {
        Opnd::Frame(off) => read_bytes(x.w, lane, x.base.saturating_add(*off), p.size)
            .ok_or_else(|| x.undefined(lane, "call argument outside the caller's frame")),
        _ => {
            let v = x.get(a, lane)?;
            let mut b = vec![0u8; p.size as usize];
            mem::put_le(&mut b, v);
            Ok(b)
        }
    }
}

fn set_reg(w: &mut Warp, depth: usize, slot: u32, lane: usize, v: u64, size: u32) {
    let m = if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    };
    if let Some(r) = w.regs.get_mut(depth) {
        r.try_set(slot, lane, v & m);
    }
    if let Some(m) = w
        .reg_written
        .get_mut(depth)
        .and_then(|r| r.get_mut(crate::regs::dense(slot) as usize))
    {
        *m |= 1 << lane;
    }
}

/// `call`
pub fn call(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let g = x.w.groups[x.gi].clone();
    call_from(x, &g)
}

/// `call` by group `g`.
fn call_from(x: &mut Ctx<'_, '_>, g: &Group) -> Result<Flow, Error> {
    let prog: &Program = x.m.prog;
    // As loaded: `(returns), target, (params), list-or-_`.
    let [rets, target, args, list] = x.ops();
    let args: &[Opnd] = match args {
        Opnd::Args(a) => a,
        _ => &[],
    };
    let rets: &[Opnd] = match rets {
        Opnd::Args(a) => a,
        _ => &[],
    };
    let uni = x.has(Flag::Uni);
    uni_guard(x, "call")?;
    // Callee per lane.
    let mut by_callee: SmallVec<[(u32, u32); 2]> = SmallVec::new();
    match target {
        Opnd::Func(fid) => by_callee.push((*fid, x.emask)),
        o => {
            let list = match list {
                Opnd::CallList(i) => x.f.call_lists.get(*i as usize),
                _ => None,
            };
            for l in lanes(x.emask) {
                let a = x.get(o, l)?;
                let Some(fid) = prog.func_at(a) else {
                    return Err(x.undefined(
                        l,
                        format!("indirect call to {a:#x}, which is not a function"),
                    ));
                };
                let callee = &prog.funcs[fid as usize];
                match list {
                    Some(CallList::Targets(ts)) if !ts.contains(&fid) => {
                        return Err(x.undefined(
                            l,
                            format!(
                                "indirect call to `{}`, which is not in the call table or `.calltargets` list (PTX ISA 9.7.12.5: fptr must hold the address of a function listed there)",
                                callee.name
                            ),
                        ));
                    }
                    Some(CallList::Proto { params, returns }) => {
                        let fits = |want: &[crate::load::ProtoParam], have: &[FParam]| {
                            want.len() == have.len()
                                && want.iter().zip(have).all(|(w, h)| w.matches(h))
                        };
                        if !fits(params, &callee.params) || !fits(returns, &callee.returns) {
                            return Err(x.undefined(
                                l,
                                format!(
                                    "indirect call to `{}`, which does not match the `.callprototype` (PTX ISA 9.7.12.5: calling a function that doesn't match the prototype is undefined)",
                                    callee.name
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
                match by_callee.iter_mut().find(|(f, _)| *f == fid) {
                    Some((_, m)) => *m |= 1 << l,
                    None => by_callee.push((fid, 1 << l)),
                }
            }
        }
    }
    if uni && by_callee.len() > 1 {
        let lane = by_callee[1].1.trailing_zeros() as usize;
        return Err(x.undefined(
            lane,
            "call.uni executed with a divergent call target (PTX ISA 9.7.12.5: all active threads must have identical values for the guard predicate and call target)",
        ));
    }
    let mut out: SmallVec<[Group; 2]> = SmallVec::new();
    let rest = x.gmask & !x.emask;
    if rest != 0 {
        let mut h = g.clone();
        h.mask = rest;
        h.pc += 1;
        out.push(h);
    }
    let depth = x.depth;
    for (fid, mask) in by_callee {
        let callee = &prog.funcs[fid as usize];
        if !callee.defined {
            return Err(x.unsupported(format!(
                "call to `{}`, which is declared but not defined",
                callee.name
            )));
        }
        if args.len() != callee.params.len() || rets.len() != callee.returns.len() {
            return Err(x.undefined(
                mask.trailing_zeros() as usize,
                format!(
                    "`{}` takes {} parameters and {} return values, the call passes {} and {}",
                    callee.name,
                    callee.params.len(),
                    callee.returns.len(),
                    args.len(),
                    rets.len()
                ),
            ));
        }
        let base = x
            .base
            .saturating_add(x.f.frame_size)
            .div_ceil(16)
            .saturating_mul(16);
        let end = base.saturating_add(callee.frame_size);
        // On the GPU the call saves registers in the 16 bytes at the top of the callee's frame
        // first; its `.local` variables lie below and fault only when accessed past the limit
        // (measured: `tools/hostile/results/stack.txt`), which `Ctx::access` checks.
        let sbase = x.sbase.saturating_add(own_stack(x.f, depth));
        let save = sbase as u64 + mem::CALL_FRAME_COST as u64;
        let frame = save + callee.stack_bytes as u64;
        if let Err((lane, alloca)) = ensure_stack(x.m, x.cl, x.w, mask, end, save)? {
            return Err(Error::StackOverflow {
                site: x.site(),
                thread: x.thread(lane),
                depth: depth as u64 + 1,
                bytes: frame + alloca,
                limit: x.m.stack_limit as u64,
            });
        }
        if x.w.regs.len() <= depth + 1 {
            // The level's bookkeeping: its register vector's header and the caller frame node
            // with the allocator's overhead (the registers themselves are charged below).
            let bytes = std::mem::size_of::<crate::regs::Regs>() as u64 + 64;
            x.m.mem.charge(bytes, || "the call stack".into())?;
            x.cl.charged += bytes;
            x.w.regs.resize(depth + 2, Default::default());
        }
        // The callee's `alloca`s start at each lane's current stack pointer, below the caller's
        // live ones; its return gives back whatever it allocated.
        if x.w.sp_frames.len() <= depth + 1 {
            let bytes = std::mem::size_of::<[SpFrame; 32]>() as u64;
            x.m.mem.charge(bytes, || "the call stack".into())?;
            x.cl.charged += bytes;
            x.w.sp_frames
                .resize(depth + 2, [SpFrame::at(mem::DYN_TOP); 32]);
        }
        for l in lanes(mask) {
            x.w.sp_frames[depth + 1][l] = SpFrame::at(x.w.sp[l]);
        }
        let bytes = x.w.regs[depth + 1].growth(callee.slots);
        if bytes > 0 {
            x.m.mem
                .charge(bytes, || format!("the registers of `{}`", callee.name))?;
            x.cl.charged += bytes;
        }
        x.w.regs[depth + 1].reset(callee.slots, mask);
        // The checks: the callee's frame and registers are unwritten at each call.
        if !x.w.local_init.is_empty() {
            for l in lanes(mask) {
                let s = &mut x.w.local_init[l];
                s.grow(end as usize);
                s.clear(base as usize, callee.frame_size as usize);
            }
        }
        if x.m.checks.reg {
            if x.w.reg_written.len() <= depth + 1 {
                x.w.reg_written.resize(depth + 2, Vec::new());
            }
            let n = super::regcheck::len(callee);
            let r = &mut x.w.reg_written[depth + 1];
            if r.len() < n {
                r.resize(n, 0);
            }
            for m in r.iter_mut() {
                *m &= !mask;
            }
        }
        for l in lanes(mask) {
            for (p, a) in callee.params.iter().zip(args) {
                let bytes = actual_bytes(x, a, l, p)?;
                match p.loc {
                    ParamLoc::Reg(slot) => {
                        set_reg(x.w, depth + 1, slot, l, mem::get_le(&bytes), p.size)
                    }
                    ParamLoc::Mem(off) => {
                        if !write_bytes(x.w, l, base.saturating_add(off), &bytes) {
                            return Err(x.undefined(l, "call argument outside the callee's frame"));
                        }
                    }
                }
            }
        }
        let callers = g.callers.push(Frame {
            func: g.func,
            pc: g.pc,
            base: g.base,
            sbase: g.sbase,
        });
        out.push(Group {
            mask,
            func: fid,
            pc: 0,
            base,
            sbase,
            callers,
            wait: Wait::Ready,
        });
    }
    Ok(Flow::Groups(out))
}

/// Returns `lanes` of group `g` to its caller, copying return values.
fn do_ret(prog: &Program, w: &mut Warp, g: &Group, lanes_mask: u32) -> Result<Group, String> {
    let depth = g.depth();
    let Some(frame) = g.callers.last() else {
        return Err("return from the kernel handled as exit".into());
    };
    let callee = &prog.funcs[g.func as usize];
    let caller = &prog.funcs[frame.func as usize];
    let rets: &[Opnd] = match caller
        .code
        .get(frame.pc as usize)
        .and_then(|d| d.opnds.first())
    {
        Some(Opnd::Args(a)) => a,
        _ => &[],
    };
    for l in lanes(lanes_mask) {
        for (p, r) in callee.returns.iter().zip(rets) {
            let bytes: Vec<u8> = match p.loc {
                ParamLoc::Reg(slot) => {
                    let v = w
                        .regs
                        .get(depth)
                        .and_then(|r| r.try_get(slot, l))
                        .unwrap_or(0);
                    let mut b = vec![0u8; p.size as usize];
                    mem::put_le(&mut b, v);
                    b
                }
                ParamLoc::Mem(off) => read_bytes(w, l, g.base.saturating_add(off), p.size)
                    .ok_or("return value outside the callee's frame")?,
            };
            match r {
                Opnd::Reg { slot, .. } => {
                    set_reg(w, depth - 1, *slot, l, mem::get_le(&bytes), p.size)
                }
                Opnd::Frame(off) if !write_bytes(w, l, frame.base.saturating_add(*off), &bytes) => {
                    return Err("return value outside the caller's frame".into());
                }
                _ => {}
            }
        }
    }
    // Returning releases the callee's `alloca` memory (PTX ISA 9.7.17.3).
    if let Some(f) = w.sp_frames.get(depth) {
        let f = *f;
        for l in lanes(lanes_mask) {
            w.sp[l] = f[l].entry;
        }
    }
    let callers = g.callers.pop();
    Ok(Group {
        mask: lanes_mask,
        func: frame.func,
        pc: frame.pc + 1,
        base: frame.base,
        sbase: frame.sbase,
        callers,
        wait: Wait::Ready,
    })
}

/// `ret`
pub fn ret(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let g = x.w.groups[x.gi].clone();
    ret_from(x, &g)
}

/// `ret` by group `g`.
fn ret_from(x: &mut Ctx<'_, '_>, g: &Group) -> Result<Flow, Error> {
    if x.has(Flag::Uni) && x.emask != 0 {
        // Non-divergent: every thread of the warp in this activation returns together, so none
        // is held back by the guard or waits elsewhere in the function.
        let elsewhere =
            x.w.groups
                .iter()
                .filter(|h| h.func == g.func && h.callers == g.callers && !h.same_place(g))
                .fold(0u32, |m, h| m | h.mask);
        let held = (x.gmask & !x.emask) | elsewhere;
        if held != 0 {
            return Err(x.undefined(
                held.trailing_zeros() as usize,
                "ret.uni executed by only part of the warp's threads of the function (PTX ISA 9.7.12.6: .uni guarantees that the return is non-divergent)",
            ));
        }
    }
    if g.depth() == 0 {
        return Ok(Flow::Exit(x.emask));
    }
    let mut out: SmallVec<[Group; 2]> = SmallVec::new();
    let rest = x.gmask & !x.emask;
    if rest != 0 {
        let mut h = g.clone();
        h.mask = rest;
        h.pc += 1;
        out.push(h);
    }
    if x.emask != 0 {
        let lane = x.emask.trailing_zeros() as usize;
        let r = do_ret(x.m.prog, x.w, g, x.emask).map_err(|e| x.undefined(lane, e))?;
        out.push(r);
    }
    Ok(Flow::Groups(out))
}

/// Running past the end of a body returns (or exits the kernel).
pub fn fall_off(m: &Machine<'_>, w: &mut Warp, g: &Group) -> Result<Flow, Error> {
    if g.depth() == 0 {
        return Ok(Flow::Exit(g.mask));
    }
    let r = do_ret(m.prog, w, g, g.mask).map_err(|e| Error::Deadlock(e.to_string()))?;
    Ok(Flow::Groups(smallvec::smallvec![r]))
}

/// `bar`, `barrier`: undefined under a guard that splits the warp where the barrier is aligned;
/// otherwise the executing lanes arrive (or wait) as a group of their own.
pub fn bar(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    aligned_whole_warp(x)?;
    x.split_guard();
    barrier(x)
}

/// `brkpt`, `trap`: the launch stops with an error at the first executing lane.
pub fn trap(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let lane = x.emask.trailing_zeros() as usize;
    Err(Error::Trap {
        site: x.site(),
        thread: x.thread(lane),
    })
}

fn barrier(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let red = x.has(Flag::Red);
    let arrive = x.has(Flag::Arrive);
    // `a{, b}`; `bar.red`: `d, a{, b}, p`
    let (id_o, count_o, pred_o) = if red {
        let [_, a, b_or_p] = x.ops();
        match x.opt(3) {
            Some(p) => (a, Some(b_or_p), Some(p)),
            None => (a, None, Some(b_or_p)),
        }
    } else {
        let [a] = x.ops();
        (a, x.opt(1), None)
    };
    let uniform = |o: &Opnd| -> Result<u64, Error> {
        if let Opnd::Imm(v) = o {
            return Ok(*v);
        }
        let mut v: Option<u64> = None;
        for l in lanes(x.emask) {
            let a = x.get(o, l)?;
            if let Some(b) = v {
                if a != b {
                    return Err(
                        x.undefined(l, "barrier id or count differs between threads of a warp")
                    );
                }
            }
            v = Some(a);
        }
        Ok(v.unwrap_or(0))
    };
    let id = uniform(id_o)? & 0xffff_ffff;
    if id > 15 {
        let l = x.emask.trailing_zeros() as usize;
        return Err(x.undefined(l, format!("barrier id {id} is not in 0..15")));
    }
    let count = match count_o {
        Some(o) => {
            let c = (uniform(o)? & 0xffff_ffff) as u32;
            if c == 0 || c % 32 != 0 {
                let l = x.emask.trailing_zeros() as usize;
                return Err(x.undefined(
                    l,
                    format!("barrier thread count {c} is not a positive multiple of 32"),
                ));
            }
            Some(c)
        }
        None => None,
    };
    let mut preds = 0u32;
    if let Some(c) = pred_o {
        for l in lanes(x.emask) {
            if x.get(c, l)? & 1 != 0 {
                preds |= 1 << l;
            }
        }
    }
    Ok(Flow::Barrier {
        id: id as u8,
        count,
        arrive,
        preds,
    })
}

/// `bar{.cta}.*` is `barrier{.cta}.*.aligned` (PTX ISA 9.7.13.1): every thread of the warp that
/// has not exited executes it, or the behaviour is undefined. An H200 shows why this is no
/// formality: `@p bar.sync 0` with a guard true in 24 lanes of each warp completes the barrier
/// as if whole warps had arrived, with the guard true in lanes 0..15 of the second warp it
/// hangs, and `@p bar.red.popc` hangs too (`tools/hwvectors/probes/bar_guard.sh`).
///
/// What is checked is the guard: lanes of the executing group whose guard is false. A group
/// that is only part of its warp because the warp diverged earlier is not reported, since the
/// interpreter does not model where ptxas makes a warp reconverge (a spin lock before a
/// `bar.sync` leaves its lanes in separate groups that the GPU has joined again).
fn aligned_whole_warp(x: &Ctx<'_, '_>) -> Result<(), Error> {
    let aligned = x.d.op == ptx_ir_core::Opcode::Bar || x.has(Flag::Aligned);
    if let Some(l) = guarded_out(x).filter(|_| aligned) {
        let form = if x.d.op == ptx_ir_core::Opcode::Bar {
            "bar (barrier.aligned)"
        } else {
            "barrier.aligned"
        };
        return Err(x.undefined(
            l,
            format!("{form} executed under a guard that is false in some threads of the warp: all threads of the warp must execute it (PTX ISA 9.7.13.1)"),
        ));
    }
    Ok(())
}

/// `barrier.cluster.arrive` / `.wait`
pub fn barrier_cluster(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let live = x.w.valid & !x.w.exited;
    if x.has(Flag::Aligned) && x.emask != live {
        let l = (live & !x.emask).trailing_zeros() as usize & 31;
        return Err(x.undefined(
            l,
            "barrier.cluster.aligned executed by only part of the warp (PTX ISA 9.7.13.3: all threads in the warp must execute it)",
        ));
    }
    if x.has(Flag::Arrive) {
        if let Some(l) = lanes(x.emask).find(|&l| x.w.cluster_arrived[l] == x.cl.cbar_phase) {
            return Err(x.undefined(
                l,
                "barrier.cluster.arrive twice before the barrier completed (PTX ISA 9.7.13.3: each thread must arrive only once before the barrier completes)",
            ));
        }
        Ok(Flow::ClusterArrive)
    } else {
        Ok(Flow::ClusterWait)
    }
}

/// Makes room for a callee's frame ending at `end` in the interpreter's layout for the lanes
/// of `lanes_mask`, after checking the GPU stack: `need` bytes plus each lane's live `alloca`
/// memory must fit the per-thread limit. `Ok(Err((lane, alloca)))` names the first lane that
/// does not fit, with its `alloca` bytes.
fn ensure_stack(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    w: &mut Warp,
    lanes_mask: u32,
    end: u32,
    need: u64,
) -> Result<Result<(), (usize, u64)>, Error> {
    for l in lanes(lanes_mask) {
        let alloca = (mem::DYN_TOP - w.sp[l]) as u64;
        // The interpreter's frames must stay below the `alloca` area's addresses too (its
        // frames hold `.param` variables, which the GPU keeps in registers).
        if need + alloca > m.stack_limit as u64 || end >= mem::STACK_MAX {
            return Ok(Err((l, alloca)));
        }
    }
    for l in lanes(lanes_mask) {
        let s = &mut w.stacks[l];
        if s.len() < end as usize {
            let grow = (end as usize - s.len()) as u64;
            m.mem
                .charge(grow, || "local memory (stack frames)".into())?;
            cl.charged += grow;
            s.resize(end as usize, 0);
        }
    }
    Ok(Ok(()))
}
