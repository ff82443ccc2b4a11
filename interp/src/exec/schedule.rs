//! The scheduler: clusters taken from a queue, at most [`Machine::resident`] running at once;
//! within them the CTAs' warps round-robin, [`SLICE`] warp-instructions at a time; CTA and
//! cluster barriers; the deadlock report. A launch's serial run and each worker of a parallel
//! one (`parallel.rs`) run clusters through [`run_clusters`].

use super::state::{self, Bar, Cluster, ClusterQueue, Machine};
use super::step::{self, Event, Progress};
use super::warp::{self, Chain, Group, Wait, Warp};
use super::{ctx, inflight, tmem};
use crate::code::FuncId;
use crate::error::Error;
use crate::mem;
use rustc_hash::FxHashMap;

/// Warp-instructions a warp runs before the scheduler moves to the next warp.
pub const SLICE: u32 = 256;

pub(super) fn run_grid(
    m: &mut Machine<'_>,
    entry: FuncId,
    progress: Option<&crate::progress::Progress>,
) -> Result<(), Error> {
    let c = m.cluster;
    m.queue = ClusterQueue::new([m.grid[0] / c[0], m.grid[1] / c[1], m.grid[2] / c[2]]);
    if let Some(p) = progress {
        p.start(m.grid.iter().map(|&d| d as u64).product());
    }
    run_clusters(
        m,
        entry,
        progress,
        |m| m.queue.pop_front(),
        &std::sync::atomic::AtomicBool::new(false),
    )
}

/// Runs clusters taken from `next` until it has none left, at most [`Machine::resident`] at a
/// time, or until `stop` is set (another worker failed).
pub(super) fn run_clusters(
    m: &mut Machine<'_>,
    entry: FuncId,
    progress: Option<&crate::progress::Progress>,
    mut next: impl FnMut(&mut Machine<'_>) -> Option<[u32; 3]>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), Error> {
    let cluster_ctas = m.cluster.iter().map(|&d| d as u64).product::<u64>();
    let mut reported = m.stats.thread_instructions;
    let mut active: Vec<Active> = Vec::new();
    let mut spare = Spare::default();
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        while active.len() < m.resident as usize {
            match next(m) {
                Some(cid) => active.push(start_cluster(m, entry, cid, &mut spare)?),
                None => break,
            }
        }
        if active.is_empty() {
            return Ok(());
        }
        let mut progressed = false;
        let mut retried = false;
        let mut i = 0;
        while i < active.len() {
            let (p, r) = round(m, &mut active[i])?;
            progressed |= p;
            retried |= r;
            if active[i].warps.iter().all(|ws| ws.iter().all(|w| w.done())) {
                let mut a = active.remove(i);
                inflight::drain(m, &mut a.cl)?;
                merge_global_race(m, &a.cl);
                // The cluster's state goes with it: memory is bounded by the resident clusters.
                m.mem.release(a.cl.charged);
                spare.keep(a, m.resident);
                progressed = true;
                if let Some(p) = progress {
                    p.ctas_finished(cluster_ctas);
                }
            } else {
                i += 1;
            }
        }
        if let Some(p) = progress {
            p.executed(m.stats.thread_instructions - reported);
            reported = m.stats.thread_instructions;
        }
        if progressed {
            m.try_timeout = false;
            continue;
        }
        if retried {
            // Only suspended instructions are left: let `try_wait` time out, and give up when
            // that changes nothing for a while.
            if m.events != m.stall_events {
                m.stall_events = m.events;
                m.stalls = 0;
            }
            m.stalls += 1;
            if m.stalls <= STALL_LIMIT {
                m.try_timeout = true;
                continue;
            }
        }
        if m.checks.sync {
            for a in &active {
                deadlock_findings(m, &a.cl, &a.warps);
            }
        }
        let text: Vec<String> = active
            .iter()
            .map(|a| describe_deadlock(m, &a.cl, &a.warps))
            .collect();
        return Err(Error::Deadlock(text.join("; ")));
    }
}

/// The `race` check between clusters: the global accesses of the finished cluster `cl` against
/// those of the clusters that finished before it (`exec/race.rs`, [`super::race::Grid`]).
fn merge_global_race(m: &mut Machine<'_>, cl: &Cluster) {
    let (Some(g), Some(rc)) = (m.grace.as_deref_mut(), cl.race.as_deref()) else {
        return;
    };
    let prog = m.prog;
    let (grid, block) = (m.grid, m.block);
    let site = |f: u32, pc: u32| prog.site(f, pc);
    let unlinear = |l: u32, d: [u32; 3]| {
        let (x, y) = (d[0].max(1), d[1].max(1));
        [l % x, (l / x) % y, l / (x * y)]
    };
    let thread = |r: &super::race::Rep| crate::error::Thread {
        ctaid: unlinear(r.cta, grid),
        tid: unlinear(r.tid() as u32, block),
        lane: r.tid() as u32 % 32,
    };
    let mem = &mut m.mem;
    // The table lives as long as the launch: what it takes is not given back.
    let charge = |bytes: u64| {
        mem.charge(bytes, || "the race-check table of global memory".into())
            .is_ok()
    };
    g.merge(rc, &mut m.findings, site, thread, charge);
}

/// Rounds of nothing but suspended instructions (and polls) without any state change after
/// which a launch counts as deadlocked.
const STALL_LIMIT: u32 = 64;

/// The buffers of finished clusters, for the next ones to start with: a grid of many short
/// CTAs would otherwise spend much of its time allocating and freeing them.
#[derive(Default)]
struct Spare {
    warps: Vec<Warp>,
    shared: Vec<Vec<u8>>,
    race: Vec<super::race::Race>,
}

impl Spare {
    /// Keeps `a`'s warps and shared memory, up to what `resident` clusters of its size hold
    /// (their memory was charged while they ran; what is kept is never more).
    fn keep(&mut self, a: Active, resident: u32) {
        let resident = resident as usize;
        let per = a.warps.iter().map(Vec::len).sum::<usize>();
        if self.warps.len() + per <= per * resident {
            self.warps.extend(a.warps.into_iter().flatten());
        }
        let ncta = a.cl.shared.len();
        if self.shared.len() + ncta <= ncta * resident {
            self.shared.extend(a.cl.shared);
        }
        if let Some(r) = a.cl.race {
            if self.race.len() < resident {
                self.race.push(*r);
            }
        }
    }

    /// A zeroed shared memory of `len` bytes from a finished cluster, if one has that size.
    fn shared(&mut self, len: u64) -> Option<Vec<u8>> {
        let mut v = self.shared.pop()?;
        if v.len() as u64 != len {
            return None;
        }
        v.fill(0);
        Some(v)
    }
}

/// A running cluster.
struct Active {
    cl: Cluster,
    warps: Vec<Vec<Warp>>,
}

fn start_cluster(
    m: &mut Machine<'_>,
    entry: FuncId,
    cid: [u32; 3],
    spare: &mut Spare,
) -> Result<Active, Error> {
    let c = m.cluster;
    let mut ctaid = Vec::new();
    for z in 0..c[2] {
        for y in 0..c[1] {
            for x in 0..c[0] {
                ctaid.push([cid[0] * c[0] + x, cid[1] * c[1] + y, cid[2] * c[2] + z]);
            }
        }
    }
    let ncta = ctaid.len();
    let smem = m.dyn_smem_offset as u64 + m.dyn_smem as u64;
    let mut charged = 0;
    let mut shared = Vec::new();
    for _ in 0..ncta {
        m.mem.charge(smem, || {
            format!(
                "shared memory of a CTA ({} bytes static, {} dynamic)",
                m.dyn_smem_offset, m.dyn_smem
            )
        })?;
        charged += smem;
        if let Some(v) = spare.shared(smem) {
            shared.push(v);
            continue;
        }
        shared.push(mem::try_zeroed(smem).ok_or_else(|| Error::MemoryLimit {
            what: "shared memory of a CTA (the host is out of memory)".into(),
            bytes: smem,
            used: m.mem.used(),
            limit: m.mem.limit(),
        })?);
    }
    let mut warps = Vec::with_capacity(ncta);
    for r in 0..ncta as u32 {
        let (ws, bytes) = new_warps(m, entry, r, &mut spare.warps)?;
        charged += bytes;
        warps.push(ws);
    }
    let mut shared_init = Vec::new();
    if m.checks.init {
        let cost = crate::check::Shadow::cost(smem) * ncta as u64;
        m.mem.charge(cost, || {
            "the init shadow of the cluster's shared memory".into()
        })?;
        charged += cost;
        shared_init = (0..ncta)
            .map(|_| crate::check::Shadow::new(smem as usize))
            .collect();
    }
    let mut race = None;
    if m.checks.race {
        let wpc = warps.first().map_or(0, Vec::len) as u32;
        let proxies = m.grace.as_deref().is_some_and(|g| g.proxies);
        let cost = super::race::Race::cost(ncta, wpc, smem, proxies);
        m.mem
            .charge(cost, || "the race-check state of the cluster".into())?;
        charged += cost;
        let reused = spare.race.pop().and_then(|mut r| {
            r.reuse(ncta, wpc, smem, ctaid.clone(), proxies)
                .then(|| Box::new(r))
        });
        race = Some(reused.unwrap_or_else(|| {
            Box::new(super::race::Race::new(
                ncta,
                wpc,
                smem,
                ctaid.clone(),
                proxies,
            ))
        }));
    }
    let cl = Cluster {
        id: cid,
        ctaid,
        shared,
        shared_init,
        race,
        bars: vec![[Bar::default(); 16]; ncta],
        cbar_arrived: 0,
        cbar_phase: 0,
        inflight: state::inflight::Inflight::default(),
        mbars: FxHashMap::default(),
        mbars_invalidated: FxHashMap::default(),
        tmem: vec![state::tmem::CtaTmem::default(); ncta],
        tmem_pair: Vec::new(),
        clc_failed: vec![false; ncta],
        cta_done: vec![false; ncta],
        setmaxnreg: FxHashMap::default(),
        proxy: state::proxy::SharedWrites::default(),
        charged,
    };
    Ok(Active { cl, warps })
}

/// One pass over every warp of a running cluster: (some instruction ran, some instruction was
/// suspended).
fn round(m: &mut Machine<'_>, a: &mut Active) -> Result<(bool, bool), Error> {
    let Active { cl, warps } = a;
    let ncta = warps.len();
    let mut progressed = false;
    let mut retried = false;
    for r in 0..ncta {
        for wi in 0..warps[r].len() {
            if warps[r][wi].done() {
                continue;
            }
            let mut ran = 0;
            while ran < SLICE {
                let (p, n) = step::step(m, cl, &mut warps[r][wi], SLICE - ran)?;
                ran += n;
                match p {
                    Progress::Blocked => break,
                    Progress::Retry => {
                        retried = true;
                        break;
                    }
                    Progress::Ran(ev) => {
                        progressed = true;
                        let mut yielded = false;
                        match ev {
                            Event::None => {}
                            Event::Yield => yielded = true,
                            Event::Bar {
                                id,
                                count,
                                lanes,
                                preds,
                            } => {
                                m.events += 1;
                                if let Some(rc) = &mut cl.race {
                                    let w = rc.warp_id(r as u32, warps[r][wi].index);
                                    rc.bar_arrive(w, r as u32, id);
                                }
                                bar_arrive(m, cl, &mut warps[r], r, id, count, lanes, preds)?;
                            }
                            Event::Exited(lanes) => {
                                m.events += 1;
                                let w = &warps[r][wi];
                                let (cta, base) = (w.cta, w.index * 32);
                                for l in ctx::lanes(lanes) {
                                    inflight::thread_exit(m, cl, (cta, base + l as u32))?;
                                }
                                recheck_bars(m, cl, &mut warps[r], r)?;
                                cluster_check(cl, warps);
                                if !cl.cta_done[r] && warps[r].iter().all(|w| w.done()) {
                                    cl.cta_done[r] = true;
                                    tmem::cta_exit(m.prog, &cl.tmem[r])?;
                                }
                            }
                            Event::ClusterArrive(lanes) => {
                                m.events += 1;
                                if let Some(rc) = &mut cl.race {
                                    let w = rc.warp_id(r as u32, warps[r][wi].index);
                                    rc.cluster_arrive(w);
                                }
                                cl.cbar_arrived += lanes.count_ones();
                                cluster_check(cl, warps);
                            }
                        }
                        if yielded || warps[r][wi].done() {
                            break;
                        }
                    }
                }
            }
        }
    }
    Ok((progressed, retried))
}

/// The warps of CTA `cta` and the host bytes charged for them, made from the buffers of
/// `spare` warps while there are any.
fn new_warps(
    m: &mut Machine<'_>,
    entry: FuncId,
    cta: u32,
    spare: &mut Vec<Warp>,
) -> Result<(Vec<Warp>, u64), Error> {
    let prog = m.prog;
    let f = &prog.funcs[entry as usize];
    let [bx, by, bz] = m.block;
    let n = bx * by * bz;
    let nwarps = n.div_ceil(32);
    let gpu = prog.local_static.saturating_add(f.stack_bytes) as u64;
    if gpu > m.stack_limit as u64 {
        return Err(Error::Launch(format!(
            "the kernel's local memory ({gpu} bytes per thread) exceeds the per-thread stack limit of {} bytes",
            m.stack_limit
        )));
    }
    let stack_size = prog.local_static.saturating_add(f.frame_size) as u64;
    let stack_size = stack_size as usize;
    // Registers, local memory and the fixed per-warp state.
    let per_warp = f.slots.bytes()
        + 32 * stack_size as u64
        + std::mem::size_of::<Warp>() as u64
        + 64 * std::mem::size_of::<Vec<u8>>() as u64;
    let bytes = per_warp * nwarps as u64;
    m.mem.charge(bytes, || {
        format!("the registers and local memory of a CTA's {nwarps} warps")
    })?;
    let ws = (0..nwarps)
        .map(|wi| {
            let mut tid = [[0u32; 3]; 32];
            let mut valid = 0u32;
            for (l, t) in tid.iter_mut().enumerate() {
                let lin = wi * 32 + l as u32;
                if lin < n {
                    valid |= 1 << l;
                    *t = [lin % bx, (lin / bx) % by, lin / (bx * by)];
                }
            }
            let (mut groups, mut regs, mut stacks, mut dyn_stacks, mut sp_frames, mut reg_written) =
                match spare.pop() {
                    Some(w) => (
                        w.groups,
                        w.regs,
                        w.stacks,
                        w.dyn_stacks,
                        w.sp_frames,
                        w.reg_written,
                    ),
                    None => Default::default(),
                };
            groups.clear();
            groups.push(Group {
                mask: valid,
                func: entry,
                pc: 0,
                base: prog.local_static,
                sbase: prog.local_static,
                callers: Chain::default(),
                wait: Wait::Ready,
            });
            regs.truncate(1);
            match regs.first_mut() {
                Some(r) => r.reset(f.slots, u32::MAX),
                None => regs.push(crate::regs::Regs::new(f.slots)),
            }
            stacks.resize_with(32, Vec::new);
            for s in &mut stacks {
                s.clear();
                s.resize(stack_size, 0);
            }
            dyn_stacks.resize_with(32, Vec::new);
            for d in &mut dyn_stacks {
                // `alloca` memory is charged as it grows: none is kept.
                *d = Vec::new();
            }
            sp_frames.clear();
            sp_frames.push([warp::SpFrame::at(mem::DYN_TOP); 32]);
            // The checks' state: nothing written yet.
            let (local_init, alloca_init) = if m.checks.init {
                (
                    vec![crate::check::Shadow::new(stack_size); 32],
                    vec![crate::check::Shadow::default(); 32],
                )
            } else {
                (Vec::new(), Vec::new())
            };
            reg_written.truncate(1);
            if m.checks.reg {
                let n = super::regcheck::len(f);
                match reg_written.first_mut() {
                    Some(r) => {
                        r.clear();
                        r.resize(n, 0);
                    }
                    None => reg_written.push(vec![0; n]),
                }
            } else {
                reg_written.clear();
            }
            Warp {
                cta,
                index: wi,
                valid,
                exited: 0,
                groups,
                regs,
                stacks,
                dyn_stacks,
                sp: [mem::DYN_TOP; 32],
                sp_frames,
                tid,
                cluster_arrived: [u64::MAX; 32],
                spins: 0,
                avoid: None,
                wg: None,
                local_init,
                alloca_init,
                reg_written,
            }
        })
        .collect();
    Ok((ws, bytes))
}

fn live_threads(warps: &[Warp]) -> u32 {
    warps
        .iter()
        .map(|w| (w.valid & !w.exited).count_ones())
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn bar_arrive(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
    id: u8,
    count: Option<u32>,
    lanes: u32,
    preds: u32,
) -> Result<(), Error> {
    let b = &mut cl.bars[cta][id as usize & 15];
    if b.arrived == 0 {
        b.all = true;
        b.any = false;
        b.popc = 0;
        b.expected = None;
    }
    b.arrived += lanes.count_ones();
    b.popc += preds.count_ones();
    b.all &= preds == lanes;
    b.any |= preds != 0;
    if count.is_some() {
        b.expected = count;
    }
    try_release(m, cl, warps, cta, id as usize & 15)
}

fn recheck_bars(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
) -> Result<(), Error> {
    for id in 0..16 {
        if cl.bars[cta][id].arrived > 0 {
            try_release(m, cl, warps, cta, id)?;
        }
    }
    Ok(())
}

fn try_release(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    warps: &mut [Warp],
    cta: usize,
    id: usize,
) -> Result<(), Error> {
    let b = cl.bars[cta][id];
    let live = live_threads(warps);
    let expected = b.expected.unwrap_or(live).min(live.max(1));
    if b.arrived < expected && b.arrived < live {
        return Ok(());
    }
    if m.checks.sync {
        sync_check(m, cl, warps, cta, id, b);
    }
    if let Some(rc) = &mut cl.race {
        let waiters: Vec<u32> = warps
            .iter()
            .filter(|w| w.groups.iter().any(|g| g.wait == Wait::Barrier(id as u8)))
            .map(|w| rc.warp_id(cta as u32, w.index))
            .collect();
        rc.bar_complete(cta as u32, id as u8, &waiters);
    }
    cl.bars[cta][id] = Bar::default();
    for w in warps.iter_mut() {
        let mut changed = false;
        for gi in 0..w.groups.len() {
            if w.groups[gi].wait != Wait::Barrier(id as u8) {
                continue;
            }
            let (func, pc, mask, depth) = {
                let g = &w.groups[gi];
                (g.func, g.pc, g.mask, g.depth())
            };
            let f = &m.prog.funcs[func as usize];
            if let Some(d) = f.code.get(pc as usize) {
                if d.flags.has(ptx_ir_core::Flag::Red) {
                    let v = if d.oper == Some(ptx_ir_core::Op::Popc) {
                        b.popc as u64
                    } else if d.oper == Some(ptx_ir_core::Op::And) {
                        b.all as u64
                    } else {
                        b.any as u64
                    };
                    if let Some(crate::code::Opnd::Reg { slot, bits }) = d.opnds.first() {
                        let mk = if *bits >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << bits) - 1
                        };
                        for l in ctx::lanes(mask) {
                            w.regs[depth].set(*slot, l, v & mk);
                        }
                    }
                }
            }
            let g = &mut w.groups[gi];
            g.wait = Wait::Ready;
            g.pc += 1;
            changed = true;
        }
        if changed {
            w.normalize();
        }
    }
    Ok(())
}

/// The `sync` check of a CTA barrier that completes ([`crate::check`]): every thread of the
/// CTA must arrive at a barrier for all of them (threads that exited release it, PTX ISA
/// `exit`, but CUDA's `__syncthreads` and synccheck require every thread of the block), and
/// the threads waiting at an aligned barrier must wait at one instruction.
fn sync_check(m: &mut Machine<'_>, cl: &Cluster, warps: &[Warp], cta: usize, id: usize, b: Bar) {
    use crate::check::{Class, Finding};
    let mut waiting = warps
        .iter()
        .flat_map(|w| w.groups.iter().map(move |g| (w, g)))
        .filter(|(_, g)| g.wait == Wait::Barrier(id as u8));
    let Some((w0, g0)) = waiting.next() else {
        return;
    };
    let prog = m.prog;
    let thread = |w: &Warp, g: &Group| {
        let lane = g.mask.trailing_zeros() as usize & 31;
        crate::error::Thread {
            ctaid: cl.ctaid.get(cta).copied().unwrap_or_default(),
            tid: w.tid[lane],
            lane: lane as u32,
        }
    };
    let site = |g: &Group| crate::error::Site {
        function: prog.funcs[g.func as usize].name.clone(),
        index: g.pc,
        inst: prog.inst_text(g.func, g.pc),
    };
    let all: u32 = warps.iter().map(|w| w.valid.count_ones()).sum();
    if b.expected.is_none() && b.arrived < all {
        let exited = all - b.arrived;
        // Built only the first time (a barrier in a loop completes again and again).
        m.findings.add(Class::Sync, g0.func, g0.pc, || Finding {
            class: Class::Sync,
            what: format!(
                "barrier {id} completed with {} of the CTA's {all} threads: {exited} exited without arriving (a barrier for all threads of the CTA must be reached by every thread; CUDA's __syncthreads in divergent code)",
                b.arrived
            ),
            site: site(g0),
            threads: vec![thread(w0, g0)],
            space: None,
            addr: None,
            count: 1,
        });
    }
    let aligned = |g: &Group| {
        prog.funcs[g.func as usize]
            .code
            .get(g.pc as usize)
            .is_some_and(|d| {
                d.op == ptx_ir_core::Opcode::Bar || d.flags.has(ptx_ir_core::Flag::Aligned)
            })
    };
    if let Some((w1, g1)) =
        waiting.find(|(_, g)| (g.func, g.pc) != (g0.func, g0.pc) && (aligned(g) || aligned(g0)))
    {
        m.findings.add(Class::Sync, g1.func, g1.pc, || Finding {
            class: Class::Sync,
            what: format!(
                "threads of the CTA wait for barrier {id} at different instructions (#{} and #{}); an aligned barrier must be executed by all threads at the same instruction (PTX ISA 9.7.13.1)",
                g0.pc, g1.pc
            ),
            site: site(g1),
            threads: vec![thread(w0, g0), thread(w1, g1)],
            space: None,
            addr: None,
            count: 1,
        });
    }
}

fn cluster_check(cl: &mut Cluster, warps: &mut [Vec<Warp>]) {
    let live: u32 = warps.iter().map(|ws| live_threads(ws)).sum();
    if cl.cbar_arrived > 0 && cl.cbar_arrived >= live {
        cl.cbar_arrived = 0;
        cl.cbar_phase += 1;
        if let Some(rc) = &mut cl.race {
            rc.cluster_complete();
        }
        for (r, ws) in warps.iter_mut().enumerate() {
            for w in ws.iter_mut() {
                let mut woke = false;
                for g in w.groups.iter_mut() {
                    if g.wait == Wait::Cluster {
                        g.wait = Wait::Ready;
                        woke = true;
                    }
                }
                if let (true, Some(rc)) = (woke, &mut cl.race) {
                    let id = rc.warp_id(r as u32, w.index);
                    rc.cluster_wait(id);
                }
            }
        }
    }
}

/// The `sync` check of a deadlock ([`crate::check`]): each warp collective whose membermask
/// names lanes that never execute it (they wait at another instruction, PTX ISA `shfl.sync`,
/// `bar.warp.sync` and alike: "all non-exited threads corresponding to membermask" must
/// execute it), and each CTA barrier that cannot complete, is a finding at the waiting
/// instruction; the deadlock stays an error.
fn deadlock_findings(m: &mut Machine<'_>, cl: &Cluster, warps: &[Vec<Warp>]) {
    use crate::check::{Class, Finding};
    let prog = m.prog;
    for (r, ws) in warps.iter().enumerate() {
        let ctaid = cl.ctaid.get(r).copied().unwrap_or_default();
        for w in ws {
            let thread = |g: &Group| {
                let lane = g.mask.trailing_zeros() as usize & 31;
                crate::error::Thread {
                    ctaid,
                    tid: w.tid[lane],
                    lane: lane as u32,
                }
            };
            for g in &w.groups {
                let what = match g.wait {
                    Wait::WarpSync(_) => {
                        let others: Vec<&Group> = w
                            .groups
                            .iter()
                            .filter(|h| h.mask != g.mask || h.pc != g.pc)
                            .collect();
                        let Some(h0) = others.first() else { continue };
                        let at: Vec<String> = others
                            .iter()
                            .take(3)
                            .map(|h| {
                                format!(
                                    "lanes {:#010x} at #{} `{}`",
                                    h.mask,
                                    h.pc,
                                    prog.inst_text(h.func, h.pc)
                                )
                            })
                            .collect();
                        (
                            format!(
                                "lanes {:#010x} wait for members of their membermask that never execute this instruction ({}); all non-exited threads of the membermask must execute it (PTX ISA, {}; the launch deadlocks)",
                                g.mask,
                                at.join(", "),
                                prog.funcs[g.func as usize]
                                    .code
                                    .get(g.pc as usize)
                                    .map_or("warp collectives".into(), |d| {
                                        super::warpops::sync_name(d.op)
                                    })
                            ),
                            vec![thread(g), thread(h0)],
                        )
                    }
                    Wait::Barrier(id) => {
                        let b = &cl.bars[r][id as usize];
                        (
                            format!(
                                "barrier {id} never completes: {} of {} threads arrived and the others wait elsewhere or cannot arrive (the launch deadlocks)",
                                b.arrived,
                                b.expected.unwrap_or_else(|| live_threads(ws))
                            ),
                            vec![thread(g)],
                        )
                    }
                    _ => continue,
                };
                m.findings.add(Class::Sync, g.func, g.pc, || Finding {
                    class: Class::Sync,
                    what: what.0,
                    site: crate::error::Site {
                        function: prog.funcs[g.func as usize].name.clone(),
                        index: g.pc,
                        inst: prog.inst_text(g.func, g.pc),
                    },
                    threads: what.1,
                    space: None,
                    addr: None,
                    count: 1,
                });
            }
        }
    }
}

fn describe_deadlock(m: &Machine<'_>, cl: &Cluster, warps: &[Vec<Warp>]) -> String {
    let mut parts = Vec::new();
    for (r, ws) in warps.iter().enumerate() {
        for w in ws {
            for g in &w.groups {
                let what = match g.wait {
                    Wait::Ready => "cannot complete this instruction (it waits for something no thread can bring about)".to_string(),
                    Wait::Barrier(id) => format!(
                        "waits at barrier {id} ({} of {} threads arrived)",
                        cl.bars[r][id as usize].arrived,
                        cl.bars[r][id as usize]
                            .expected
                            .unwrap_or_else(|| live_threads(ws))
                    ),
                    Wait::WarpSync(_) => "waits for lanes of its membermask".to_string(),
                    Wait::Cluster => "waits at the cluster barrier".to_string(),
                };
                parts.push(format!(
                    "CTA {:?} warp {} lanes {:#010x} at `{}` ({} #{}) {what}",
                    cl.ctaid.get(r).copied().unwrap_or_default(),
                    w.index,
                    g.mask,
                    m.prog.inst_text(g.func, g.pc),
                    m.prog.funcs[g.func as usize].name,
                    g.pc
                ));
            }
        }
        if parts.len() > 8 {
            parts.truncate(8);
            parts.push("...".into());
            break;
        }
    }
    parts.join("; ")
}
