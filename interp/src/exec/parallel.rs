//! Running a launch's clusters on several threads ([`crate::Launch::threads`]).
//!
//! Clusters run whole on one worker each: worker `k` of `n` runs clusters `k`, `k + n`, ... in
//! launch order, a fixed assignment, so that what a launch does on `n` workers does not depend
//! on how the host schedules its threads (even for a racy program). Each worker
//! has its own [`Machine`] (counters, fuel drawn from the launch's pool, the state of its
//! clusters) and its own view of global memory ([`Global::overlay`]): the contents at the start
//! of the launch plus its own writes. At the end the writes are merged ([`mem::merge`]).
//!
//! That gives the serial result exactly when no cluster reads what another cluster writes
//! during the launch. A program can only rely on such communication through morally strong
//! operations at GPU or system scope (atomics, `.relaxed`/`.acquire`/`.release`/`.volatile`
//! accesses, fences) — without them it is a data race, whose result the PTX memory model leaves
//! undefined — so a program containing any of those ([`hazard`]) runs serially. What is left is
//! a racy program that wrote different values to one byte from two workers: the merge finds it
//! and the launch runs again serially, as it does when a worker reports an error, so that the
//! error (and the memory at that point) is exactly the serial one.

use super::schedule::run_clusters;
use super::state::{ClusterQueue, Machine};
use crate::code::FuncId;
use crate::error::Error;
use crate::load::Program;
use crate::mem::{self, Global};
use ptx_ir_core::{Modifier, Opcode, Scope, Sem, Space};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Why a launch of kernel `entry` of `prog` with `clusters` clusters must run serially, if it
/// must: what in the functions the kernel can reach may order its CTAs.
pub fn hazard(prog: &Program, entry: FuncId, clusters: u64) -> Option<String> {
    if clusters < 2 {
        return Some("the grid is one cluster".into());
    }
    for f in prog.reachable(entry) {
        let f = &prog.funcs[f as usize];
        for (d, i) in f.code.iter().zip(&f.insts) {
            let shared = matches!(
                d.space,
                Some(Space::Shared | Space::SharedCta | Space::SharedCluster)
            );
            let why = match d.op {
                Opcode::Atom | Opcode::Red if !shared => "an atomic operation on global memory",
                Opcode::CpReduceAsyncBulk | Opcode::CpReduceAsyncBulkTensor
                    if d.space == Some(Space::Global) =>
                {
                    "a bulk reduction into global memory"
                }
                Opcode::ClusterlaunchcontrolTryCancel => "cluster launch control",
                Opcode::Sured => "a surface reduction",
                Opcode::MultimemLdReduce | Opcode::MultimemSt | Opcode::MultimemRed => {
                    "a multimem operation"
                }
                _ if i
                    .mods
                    .iter()
                    .any(|m| matches!(m, Modifier::Scope(Scope::Gpu | Scope::Sys | Scope::Gl))) =>
                {
                    "an access or fence at GPU or system scope"
                }
                _ if !shared
                    && matches!(d.sem, Some(Sem::Volatile | Sem::Mmio))
                    && !matches!(d.space, Some(Space::Local | Space::Param)) =>
                {
                    "a volatile access to global memory"
                }
                _ => continue,
            };
            return Some(format!(
                "{why} (`{}` in `{}`) may order CTAs",
                crate::fmt::inst(&prog.names, i),
                f.name
            ));
        }
    }
    None
}

/// Runs the grid of `m` on up to `threads` workers and merges their writes into `m`'s global
/// memory: the number of workers that ran, or why the launch must run again serially.
pub fn run(
    m: &mut Machine<'_>,
    entry: FuncId,
    threads: u32,
    progress: Option<&crate::progress::Progress>,
) -> Result<u32, String> {
    let c = m.cluster;
    let dims = [m.grid[0] / c[0], m.grid[1] / c[1], m.grid[2] / c[2]];
    let clusters: u64 = dims.iter().map(|&d| d as u64).product();
    let n = (threads as usize)
        .min(rayon::current_num_threads().max(1))
        .min(clusters.try_into().unwrap_or(usize::MAX))
        .max(1);
    if let Some(p) = progress {
        p.start(m.grid.iter().map(|&d| d as u64).product());
    }
    let stop = AtomicBool::new(false);
    let pool = Arc::new(AtomicU64::new(m.fuel));
    let base = Arc::new(std::mem::take(&mut m.global.allocs));
    let mut workers: Vec<(Machine<'_>, Result<(), Error>)> =
        (0..n).map(|_| (worker(m, &base, &pool), Ok(()))).collect();
    rayon::scope(|s| {
        for (k, (w, res)) in workers.iter_mut().enumerate() {
            let stop = &stop;
            s.spawn(move |_| {
                let mut queue = ClusterQueue::every(dims, k as u64, n as u64);
                let next = move |_: &mut Machine<'_>| queue.pop_front();
                *res = run_clusters(w, entry, progress, next, stop);
                if res.is_err() {
                    stop.store(true, Relaxed);
                }
            });
        }
    });
    let mut views = Vec::with_capacity(n);
    for (w, res) in workers {
        let writes = w.global.into_writes();
        if writes.1 {
            return Err("the workers' copies of global memory did not fit the memory limit".into());
        }
        if let Err(e) = res {
            return Err(format!("a worker stopped with an error ({e})"));
        }
        m.stats.thread_instructions += w.stats.thread_instructions;
        m.stats.warp_instructions += w.stats.warp_instructions;
        for (k, lanes) in w.contraction_diffs {
            *m.contraction_diffs.entry(k).or_default() += lanes;
        }
        views.push(writes);
    }
    let mut allocs =
        Arc::try_unwrap(base).map_err(|_| "a worker kept global memory".to_string())?;
    mem::merge(&mut allocs, views).map_err(|c| {
        format!(
            "two CTAs wrote different values to global address {:#x} (a race)",
            c.addr
        )
    })?;
    m.global.allocs = allocs;
    Ok(n as u32)
}

/// A worker's machine: `m`'s launch, its own counters and state, a view of global memory and
/// the launch's fuel pool.
fn worker<'p>(m: &Machine<'p>, base: &Arc<Vec<mem::Alloc>>, pool: &Arc<AtomicU64>) -> Machine<'p> {
    Machine {
        prog: m.prog,
        images: m.images.clone(),
        multicasts: m.multicasts.clone(),
        global: Global::overlay(base.clone(), m.mem.clone()),
        consts: m.consts.clone(),
        kparams: m.kparams.clone(),
        grid: m.grid,
        block: m.block,
        cluster: m.cluster,
        explicit_cluster: m.explicit_cluster,
        dyn_smem: m.dyn_smem,
        dyn_smem_offset: m.dyn_smem_offset,
        fuel: 0,
        fuel_pool: Some(pool.clone()),
        stats: Default::default(),
        contraction: m.contraction,
        contraction_diffs: Default::default(),
        events: 0,
        next_op: 0,
        gwatch: Default::default(),
        queue: ClusterQueue::new([0, 0, 0]),
        cancelled: 0,
        resident: 1,
        try_timeout: false,
        stack_limit: m.stack_limit,
        mem: m.mem.clone(),
        maxnreg: m.maxnreg,
        proxy_watch: m.proxy_watch,
        gproxy: Default::default(),
        stalls: 0,
        stall_events: 0,
        checks: m.checks,
        findings: Default::default(),
        global_init: m.global_init,
        pending_local: Default::default(),
        reg_io: Vec::new(),
        grace: None,
    }
}
