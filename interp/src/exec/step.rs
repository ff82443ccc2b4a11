//! One warp-instruction: pick the group, evaluate the guard, dispatch on the opcode, move the
//! group on.
//!
//! The dispatch is one exhaustive `match` on [`Opcode`] with no wildcard arm: a new line in the
//! instruction table stops this crate compiling until its semantics (or an explicit
//! `Unsupported`) are written here.

use super::ctx::Ctx;
use super::flow::Flow;
use super::state::{Cluster, Machine};
use super::warp::{Group, Wait, Warp};
use super::{
    arith, async_copy, bulk, cluster, control, matrix, mbarrier, memops, mma, stack, tensor, tmem,
    warpgroup, warpops, wgmma,
};
use crate::error::Error;
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

/// Runs one instruction of warp `w`.
pub fn step(m: &mut Machine<'_>, cl: &mut Cluster, w: &mut Warp) -> Result<Progress, Error> {
    let Some(gi) = w.next_ready() else {
        return Ok(Progress::Blocked);
    };
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
    let emask = match d.guard {
        None => mask,
        Some((slot, neg)) => {
            let s = slot as usize * 32;
            let regs = &w.regs[depth][s..s + 32];
            // All 32 lanes without branches (the compiler vectorises it), then the group's.
            let mut e = 0u32;
            for (l, r) in regs.iter().enumerate() {
                e |= ((*r & 1) as u32 ^ neg as u32) << l;
            }
            e & mask
        }
    };
    let lanes = mask.count_ones() as u64;
    if m.fuel < lanes {
        return Err(Error::FuelExhausted(m.stats.thread_instructions));
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
        d,
        depth,
        base,
        sbase,
        gmask: mask,
        emask,
        yield_warp: false,
    };
    if let Some(s) = &x.w.wg {
        if !s.busy.is_empty() && super::wgmma::busy_slot(s, d, depth).is_some() {
            let lane = emask.trailing_zeros() as usize & 31;
            return Err(x.undefined(lane, "the instruction accesses an accumulator or A register of a wgmma.mma_async that no wgmma.wait_group has waited for (PTX ISA 9.7.15.7.3: undefined)"));
        }
    }
    let flow = dispatch(&mut x, gi)?;
    let yielded = x.yield_warp;
    if let Flow::Retry = flow {
        m.fuel += lanes;
        m.stats.thread_instructions -= lanes;
        m.stats.warp_instructions -= 1;
        return Ok(Progress::Retry);
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
                g.pc += 1;
            }
            w.insert(g);
        }
    }
    Ok(Progress::Ran(ev))
}

/// Splits off the lanes whose guard is false (they go on to the next instruction) so that the
/// group holds exactly the executing lanes; for barrier-like instructions.
fn split_guard(x: &mut Ctx<'_, '_>, gi: usize) {
    let off = x.gmask & !x.emask;
    if off != 0 {
        let mut h = x.w.groups[gi].clone();
        h.mask = off;
        h.pc += 1;
        x.w.groups[gi].mask = x.emask;
        x.gmask = x.emask;
        // Sorts after the group itself (same chain, later pc), so `gi` stays valid.
        x.w.insert(h);
    }
}

fn dispatch(x: &mut Ctx<'_, '_>, gi: usize) -> Result<Flow, Error> {
    use Opcode::*;
    if x.emask == 0 && !matches!(x.d.op, Bra | BrxIdx | Call | Ret | Exit) {
        return Ok(Flow::Next);
    }
    if let Some(l) = &x.d.lower {
        if let Some(flow) = arith::lowered(x, l)? {
            return Ok(flow);
        }
    }
    match x.d.op {
        // integer arithmetic
        Add | Sub => arith::add_sub(x),
        Mul => arith::mul(x),
        Mad => arith::mad(x),
        Mul24 | Mad24 => arith::mul24(x),
        Sad => arith::sad(x),
        Div => arith::div(x),
        Rem => arith::rem(x),
        Abs | Neg => arith::abs_neg(x),
        Min | Max => arith::min_max(x),
        Popc | Clz | Brev => arith::bit_unary(x),
        Bfind => arith::bfind(x),
        Fns => arith::fns(x),
        Bfe => arith::bfe(x),
        Bfi => arith::bfi(x),
        Szext => arith::szext(x),
        Bmsk => arith::bmsk(x),
        Dp4a | Dp2a => arith::dot(x),
        Addc | Subc => arith::add_sub(x),
        Madc => arith::mad(x),
        // floating point
        Testp => arith::testp(x),
        Copysign => arith::copysign(x),
        Fma => arith::fma(x),
        Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => arith::float_unary(x),
        // comparison and selection
        Set | Setp => arith::setp(x),
        Selp => arith::selp(x),
        Slct => arith::slct(x),
        // logic and shift
        And | Or | Xor | Not | Cnot => arith::logic(x),
        Lop3 => arith::lop3(x),
        Shf => arith::shf(x),
        Shl | Shr => arith::shift(x),
        // data movement
        Mov => memops::mov(x),
        Shfl => {
            split_guard(x, gi);
            warpops::shfl(x)
        }
        Prmt => arith::prmt(x),
        Ld | Ldu => memops::ld(x),
        St => memops::st(x),
        Prefetch | Prefetchu | Applypriority | Discard => Ok(Flow::Next),
        Createpolicy => memops::createpolicy(x),
        Isspacep => memops::isspacep(x),
        Cvta => memops::cvta(x),
        Cvt => arith::cvt(x),
        CvtPack => arith::cvt_pack(x),
        Mapa => memops::mapa(x),
        Getctarank => memops::getctarank(x),
        StAsync | RedAsync => memops::store_async(x),
        StBulk | MultimemLdReduce | MultimemSt | MultimemRed => {
            Err(x.unsupported("multimem and st.bulk are not modelled"))
        }
        // asynchronous copies
        CpAsync => async_copy::cp_async(x),
        CpAsyncCommitGroup | CpAsyncWaitGroup | CpAsyncWaitAll => async_copy::group(x),
        CpAsyncBulk | CpReduceAsyncBulk => bulk::bulk(x),
        CpAsyncBulkPrefetch => bulk::prefetch(x),
        CpAsyncBulkCommitGroup | CpAsyncBulkWaitGroup => bulk::group(x),
        CpAsyncBulkTensor | CpReduceAsyncBulkTensor => tensor::tensor(x),
        CpAsyncBulkPrefetchTensor => tensor::prefetch(x),
        TensormapReplace => Err(x.unsupported(
            "tensormap.replace is not modelled (tensor maps come from launch arguments)",
        )),
        // texture and surface
        Tex | Tld4 | Txq | Istypep | Suld | Sust | Sured | Suq => {
            Err(x.unsupported("textures and surfaces are not modelled"))
        }
        // control flow
        Bra => control::bra(x),
        BrxIdx => control::brx(x),
        Call => {
            let g = x.w.groups[gi].clone();
            control::call(x, &g)
        }
        Ret => {
            let g = x.w.groups[gi].clone();
            control::ret(x, &g)
        }
        Exit => Ok(Flow::Exit(x.emask)),
        // synchronization
        Bar | Barrier => {
            control::aligned_whole_warp(x)?;
            split_guard(x, gi);
            control::barrier(x)
        }
        BarWarpSync => {
            split_guard(x, gi);
            warpops::bar_warp_sync(x)
        }
        BarrierCluster => {
            split_guard(x, gi);
            control::barrier_cluster(x)
        }
        // One instruction at a time in program order is sequentially consistent across proxies
        // too, and a dependent grid never runs concurrently with this one.
        // Proxy fences between the generic and the async proxy are recorded (`proxy`).
        Membar | Fence | Griddepcontrol => {
            proxy_fence(x);
            Ok(Flow::Next)
        }
        Atom | Red => memops::atom(x),
        Vote => {
            split_guard(x, gi);
            warpops::vote(x)
        }
        Match => {
            split_guard(x, gi);
            warpops::match_sync(x)
        }
        Activemask => warpops::activemask(x),
        Redux => {
            split_guard(x, gi);
            warpops::redux(x)
        }
        Elect => {
            split_guard(x, gi);
            warpops::elect(x)
        }
        MbarrierInit | MbarrierInval | MbarrierExpectTx | MbarrierCompleteTx | MbarrierArrive
        | MbarrierArriveDrop | MbarrierTestWait | MbarrierTryWait | MbarrierPendingCount => {
            mbarrier::mbarrier(x)
        }
        CpAsyncMbarrierArrive => async_copy::mbarrier_arrive(x),
        TensormapCpFenceproxy => Err(x.unsupported("tensormap.cp_fenceproxy is not modelled")),
        ClusterlaunchcontrolTryCancel => cluster::try_cancel(x),
        ClusterlaunchcontrolQueryCancel => cluster::query_cancel(x),
        // matrix instructions
        WmmaLoad | WmmaStore | WmmaMma => Err(x.unsupported("wmma is not modelled")),
        Mma => {
            split_guard(x, gi);
            mma::mma(x)
        }
        Ldmatrix | Stmatrix | Movmatrix => {
            split_guard(x, gi);
            matrix::matrix(x)
        }
        WgmmaMmaAsync | WgmmaFence | WgmmaCommitGroup | WgmmaWaitGroup => {
            split_guard(x, gi);
            wgmma::wgmma(x)
        }
        Tcgen05Alloc | Tcgen05Dealloc | Tcgen05RelinquishAllocPermit => {
            split_guard(x, gi);
            tmem::tmem(x)
        }
        Tcgen05FenceBeforeThreadSync | Tcgen05FenceAfterThreadSync => Ok(Flow::Next),
        Tcgen05Ld | Tcgen05St | Tcgen05WaitLd | Tcgen05WaitSt | Tcgen05Cp | Tcgen05Shift
        | Tcgen05Mma | Tcgen05Commit => {
            Err(x.unsupported("tcgen05 data movement and MMA are not modelled (allocation is)"))
        }
        // stack
        Stacksave => stack::stacksave(x),
        Stackrestore => stack::stackrestore(x),
        Alloca => stack::alloca(x),
        // video
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset | Vadd2 | Vsub2
        | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4
        | Vmin4 | Vmax4 | Vset4 => Err(x.unsupported("video instructions are not modelled")),
        // miscellaneous
        Brkpt | Trap => {
            let lane = x.emask.trailing_zeros() as usize;
            Err(Error::Trap {
                site: x.site(),
                thread: x.thread(lane),
            })
        }
        Nanosleep | Pmevent => Ok(Flow::Next),
        Setmaxnreg => {
            split_guard(x, gi);
            warpgroup::setmaxnreg(x)
        }
    }
}

/// `fence.proxy.async{.space}`, `membar.proxy.async{.space}` and
/// `fence.proxy.async::generic.release...` order generic-proxy writes before async-proxy accesses.
fn proxy_fence(x: &mut Ctx<'_, '_>) {
    use ptx_ir_core::{Flag, Space};
    if !x.m.proxy_watch || !x.has(Flag::Proxy) {
        return;
    }
    let async_generic = x.has(Flag::AsyncGeneric);
    if !(x.has(Flag::Async) || async_generic && x.d.sem == Some(ptx_ir_core::Sem::Release)) {
        return;
    }
    let (shared, global) = match x.d.space {
        None if async_generic => (true, false),
        None => (true, true),
        Some(Space::Global) => (false, true),
        Some(_) => (true, false),
    };
    super::proxy::fence(x.m, x.cl, shared, global);
}
