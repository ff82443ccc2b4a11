//! Asynchronous operations in flight: `cp.async`, the bulk and tensor copies, cluster launch
//! control responses.
//!
//! An asynchronous operation reads its source when it is issued and writes its destination only
//! when it *completes*. It completes as late as the PTX completion mechanism that tracks it
//! allows, so that a program which looks at the destination too early is caught:
//!
//! - async-group tracked operations (`cp.async` with `commit_group`/`wait_group`, bulk copies
//!   with `.bulk_group`) complete at the `wait_group` that covers their group, or when the
//!   issuing thread exits;
//! - mbarrier tracked operations (`.mbarrier::complete_tx::bytes`, `cp.async.mbarrier.arrive`)
//!   complete when some thread tests that mbarrier (`test_wait`/`try_wait`), which is the
//!   earliest moment a program may rely on them; their complete-tx (or arrive-on) happens then;
//! - whatever is left when the cluster finishes completes then (global writes land).
//!
//! While an operation is in flight its destination bytes are marked *pending write* and its
//! source bytes *pending read* (shared memory: a counter per 4-byte word of each CTA; global
//! memory: a list of ranges). A generic-proxy access that reads or writes a pending-write byte,
//! or writes a pending-read byte, is undefined (PTX ISA 9.7.9.25.1: "modifying the source memory
//! location or tensor descriptor or reading from the destination memory location before the
//! asynchronous operation completes, exhibits undefined behavior") and reported with the
//! operation that is still in flight. Two operations in flight that write the same byte are
//! reported too (no ordering exists between them). Initialised mbarrier objects are marked in
//! the same shadow: any non-mbarrier access to one is undefined (PTX ISA 9.7.13.15).
//!
//! The records (operations, async-groups, shadow, global ranges) are in
//! [`super::state::inflight`]; this module issues and completes operations.

use super::state::inflight::{
    describe, issuer_site, Conflict, Issuer, Loc, Op, OpId, Part, Reduce, Src,
};
use super::state::{mbarrier, Cluster, Machine};
use crate::error::Error;
use crate::float::{self, BinOp, Fmt, MinMax, Mode};
use crate::int::mask;
use crate::mem;
use ptx_ir_core::Op as RedOp;

/// Starts an operation: checks its ranges against those in flight, marks them, and records it.
/// `Err` is the rule it breaks.
pub fn issue(m: &mut Machine<'_>, cl: &mut Cluster, mut op: Op) -> Result<OpId, String> {
    let sizes: Vec<usize> = cl.shared.iter().map(|s| s.len()).collect();
    cl.inflight.ensure_shadow(&sizes);
    // Sources must not be pending writes of another operation in flight.
    for s in &op.srcs {
        match *s {
            Src::Shared { rank, off, len } => {
                if cl.inflight.pending_w(rank, off, len) {
                    let other = cl
                        .inflight
                        .op_at(rank, off, len, false)
                        .map(|o| describe(m.prog, o))
                        .unwrap_or_default();
                    return Err(format!(
                        "the source (shared memory {off:#x}, {len} bytes) is still being written by the asynchronous operation {other}, which has not completed (PTX ISA 9.7.9.25.1)"
                    ));
                }
            }
            Src::Global { addr, len } => {
                if let Some((_, id)) = m.gwatch.check(addr, len, false) {
                    return Err(format!(
                        "the source (global memory {addr:#x}, {len} bytes) is still being written by asynchronous operation #{id}, which has not completed (PTX ISA 9.7.9.25.1)"
                    ));
                }
            }
        }
    }
    for p in &op.parts {
        let len = p.data.len() as u32;
        match p.dest {
            Loc::Shared { rank, off } => {
                if let Some(c) = cl.inflight.check_shared(rank, off, len, true) {
                    let what = match c {
                        Conflict::Mbarrier => {
                            "holds an initialised mbarrier object (PTX ISA 9.7.13.15)".to_string()
                        }
                        Conflict::PendingWrite | Conflict::PendingRead => format!(
                            "is also accessed by the asynchronous operation {}, which has not completed; operations in flight are unordered (PTX ISA 9.7.9.25.3.2)",
                            cl.inflight
                                .op_at(rank, off, len, true)
                                .map(|o| describe(m.prog, o))
                                .unwrap_or_default()
                        ),
                    };
                    return Err(format!(
                        "the destination (shared memory of CTA rank {rank} at {off:#x}, {len} bytes) {what}"
                    ));
                }
            }
            Loc::Global(a) => {
                if let Some((_, id)) = m.gwatch.check(a, len as u64, true) {
                    return Err(format!(
                        "the destination (global memory {a:#x}, {len} bytes) is also accessed by asynchronous operation #{id}, which has not completed"
                    ));
                }
            }
        }
    }
    m.next_op += 1;
    op.id = m.next_op;
    let id = op.id;
    for p in &op.parts {
        let len = p.data.len() as u32;
        match p.dest {
            Loc::Shared { rank, off } => cl.inflight.mark(rank, off, len, true, true),
            Loc::Global(a) => m.gwatch.writes.push((a, a + len as u64, id)),
        }
    }
    for s in &op.srcs {
        match *s {
            Src::Shared { rank, off, len } => cl.inflight.mark(rank, off, len, false, true),
            Src::Global { addr, len } => m.gwatch.reads.push((addr, addr + len, id)),
        }
    }
    for s in &op.srcs {
        match *s {
            Src::Shared { rank, off, len } => race(m, cl, &op.issuer, rank, off, len, false),
            Src::Global { addr, len } => race_global(m, cl, &op.issuer, addr, len, false, id),
        }
    }
    cl.inflight.ops.insert(id, op);
    m.events += 1;
    Ok(id)
}

/// The `race` check of an access of operation `issuer`'s asynchronous proxy to `len` bytes
/// of CTA `rank`'s shared memory at `off` ([`super::race::Race::async_access`]).
fn race(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    issuer: &Issuer,
    rank: u32,
    off: u32,
    len: u32,
    write: bool,
) {
    let Some(rc) = cl.race.as_mut() else {
        return;
    };
    let (prog, block) = (m.prog, m.block);
    let wpc = (block[0] * block[1] * block[2]).div_ceil(32);
    let w = rc.warp_id(issuer.warp[0], issuer.warp[1]);
    rc.async_access(
        &mut m.findings,
        |f, pc| prog.site(f, pc),
        issuer.thread,
        w,
        &issuer.race,
        issuer.func,
        issuer.pc,
        rank,
        off,
        len,
        write,
        |w, lane| super::ctx::tid_in_block(block, wpc, w, lane),
    );
}

/// The `race` check of an access of operation `id`'s asynchronous proxy (issued by `issuer`)
/// to `len` bytes of global memory at `addr` ([`super::race::Race::async_global`]).
fn race_global(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    issuer: &Issuer,
    addr: u64,
    len: u64,
    write: bool,
    id: OpId,
) {
    let (Some(g), Some(rc)) = (m.grace.as_deref(), cl.race.as_mut()) else {
        return;
    };
    let (prog, block, grid) = (m.prog, m.block, m.grid);
    // `cp.async` reads its source as a weak access of the issuing thread (PTX ISA
    // 9.7.9.25.3), which the generic path already checked; only its write is the proxy's.
    let op = prog
        .funcs
        .get(issuer.func as usize)
        .and_then(|f| f.code.get(issuer.pc as usize))
        .map(|d| d.op);
    if !write && op == Some(ptx_ir_core::Opcode::CpAsync) {
        return;
    }
    let linear = super::ctx::linear;
    let t = issuer.thread;
    let at = super::race::Rep::new(
        g.epoch(),
        g.site(issuer.func, issuer.pc),
        linear(t.ctaid, grid) as u32,
    );
    let wpc = (block[0] * block[1] * block[2]).div_ceil(32);
    let w = rc.warp_id(issuer.warp[0], issuer.warp[1]);
    let charge = super::ctx::shadow_charge(&mut m.mem, &mut cl.charged);
    rc.async_global(
        &mut m.findings,
        |f, pc| prog.site(f, pc),
        t,
        linear(t.tid, block) as u16,
        w,
        &issuer.race,
        issuer.func,
        issuer.pc,
        addr,
        len,
        write,
        id,
        |w, lane| super::ctx::tid_in_block(block, wpc, w, lane),
        at,
        charge,
    );
}

/// Warp `warp` (its CTA's rank and its index) waited for its asynchronous operations and
/// they completed: for the race check, it acquires what they did.
pub fn acquire(cl: &mut Cluster, warp: [u32; 2]) {
    if let Some(rc) = cl.race.as_mut() {
        rc.proxy_acquire(rc.warp_id(warp[0], warp[1]));
    }
}

/// For the race check: the asynchronous operations of the warp that issued `issuer` signal
/// the mbarrier at `key` (a release into its current phase).
fn release(cl: &mut Cluster, issuer: &Issuer, key: (u32, u32)) {
    release_warp(cl, issuer.warp, key);
}

/// For the race check: the asynchronous operations issued by warp `warp` (its CTA's rank and
/// its index) signal the mbarrier at `key` (a release into its current phase), as
/// `tcgen05.commit`'s arrive does once they are complete.
pub fn release_warp(cl: &mut Cluster, warp: [u32; 2], key: (u32, u32)) {
    if let (Some(rc), Some(b)) = (cl.race.as_mut(), cl.mbars.get(&key)) {
        rc.proxy_release(rc.warp_id(warp[0], warp[1]), key, b.phase);
    }
}

/// The `race` check of an operation that completes when issued but reads CTA `rank`'s shared
/// memory through the issuing warp's asynchronous proxy (`tcgen05.mma`'s and `tcgen05.cp`'s
/// matrices): `chunks` are the 16-byte chunks it read, in any order and repeated, checked as
/// reads at the issue in runs of consecutive chunks; their completion is released by the
/// warp's `tcgen05.commit` ([`release_warp`]).
pub fn race_reads(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    issuer: &Issuer,
    rank: u32,
    chunks: &mut Vec<u64>,
) {
    if cl.race.is_none() {
        return;
    }
    chunks.sort_unstable();
    chunks.dedup();
    // Runs of consecutive chunks, (first, past the last).
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &c in chunks.iter() {
        match runs.last_mut() {
            Some((_, end)) if *end == c => *end = c + 1,
            _ => runs.push((c, c + 1)),
        }
    }
    for (start, end) in runs {
        let (off, len) = ((start * 16) as u32, ((end - start) * 16) as u32);
        race(m, cl, issuer, rank, off, len, false);
    }
}

fn release_reads(m: &mut Machine<'_>, cl: &mut Cluster, id: OpId) {
    let Some(op) = cl.inflight.ops.get_mut(&id) else {
        return;
    };
    let srcs = std::mem::take(&mut op.srcs);
    for s in srcs {
        if let Src::Shared { rank, off, len } = s {
            cl.inflight.mark(rank, off, len, false, false);
        }
    }
    m.gwatch.remove(id, true);
}

/// Finishes reading the sources of operation `id` (`cp.async.bulk.wait_group.read`).
pub fn complete_reads(m: &mut Machine<'_>, cl: &mut Cluster, id: OpId) {
    release_reads(m, cl, id);
}

fn reduce_elem(r: Reduce, old: u64, src: u64) -> u64 {
    let w = r.ty.bits();
    let f = Fmt::of(r.ty);
    let v = match (r.op, f) {
        (RedOp::Add, Some(f)) => {
            // Unlike `atom.add.f32`, the bulk reductions keep subnormal inputs and results
            // (measured on an H200: `cp.reduce.async.bulk.global.add.f32` of 0x2a and 0x03
            // gives 0x2d; NaN operands give the canonical NaN); f16/bf16 take `.noftz`.
            float::bin(BinOp::Add, f, old, src, Mode::default())
        }
        (RedOp::Min | RedOp::Max, Some(f)) => float::min_max(
            f,
            old,
            src,
            MinMax {
                max: r.op == RedOp::Max,
                ..Default::default()
            },
        ),
        (_, Some(_)) => old,
        (RedOp::Add, None) => old.wrapping_add(src),
        (RedOp::And, None) => old & src,
        (RedOp::Or, None) => old | src,
        (RedOp::Xor, None) => old ^ src,
        (RedOp::Inc, None) => crate::int::atomic_inc(old, src, w),
        (RedOp::Dec, None) => crate::int::atomic_dec(old, src, w),
        (RedOp::Min | RedOp::Max, None) => {
            crate::int::min_max(old, src, w, r.ty.is_signed(), r.op == RedOp::Min)
        }
        (_, None) => old,
    };
    v & mask(w)
}

fn apply(dst: &mut [u8], p: &Part) {
    match p.reduce {
        Some(r) => {
            let eb = (r.ty.bits() / 8).max(1) as usize;
            for (d, s) in dst.chunks_mut(eb).zip(p.data.chunks(eb)) {
                let v = reduce_elem(r, mem::get_le(d), mem::get_le(s));
                mem::put_le(d, v);
            }
        }
        None => match p.byte_mask {
            Some(bm) => {
                for (i, (d, s)) in dst.iter_mut().zip(&p.data).enumerate() {
                    if bm >> (i % 16) & 1 != 0 {
                        *d = *s;
                    }
                }
            }
            None => dst.copy_from_slice(&p.data),
        },
    }
}

/// Completes operation `id`: writes its destinations, signals its mbarriers, releases its
/// ranges. Completing an operation that already completed does nothing.
pub fn complete(m: &mut Machine<'_>, cl: &mut Cluster, id: OpId) -> Result<(), Error> {
    release_reads(m, cl, id);
    let Some(op) = cl.inflight.ops.remove(&id) else {
        return Ok(());
    };
    m.gwatch.remove(id, false);
    m.events += 1;
    let fail = |m: &Machine<'_>, rule: String| Error::Undefined {
        site: issuer_site(m.prog, &op.issuer),
        thread: op.issuer.thread,
        rule,
    };
    for p in &op.parts {
        let len = p.data.len();
        match p.dest {
            Loc::Shared { rank, off } => {
                race(m, cl, &op.issuer, rank, off, len as u32, true);
                cl.inflight.mark(rank, off, len as u32, true, false);
                if let Some(s) = cl.shared_init.get_mut(rank as usize) {
                    s.mark(off as usize, len);
                }
                if let Some(sh) = cl.shared.get_mut(rank as usize) {
                    if let Ok(d) = mem::flat(sh, off as u64, len) {
                        apply(d, p);
                    }
                }
            }
            Loc::Global(a) => {
                race_global(m, cl, &op.issuer, a, len as u64, true, id);
                match m.global.write(a, len) {
                    Ok(d) => apply(d, p),
                    Err(_) => {
                        return Err(fail(
                            m,
                            format!("asynchronous write to global memory {a:#x} out of bounds"),
                        ))
                    }
                }
            }
        }
    }
    // Every part's writes are released into the mbarriers' phases before any complete-tx
    // can complete a phase (the first part carries an operation's whole transaction count).
    for key in op.parts.iter().filter_map(|p| p.mbar) {
        release(cl, &op.issuer, key);
    }
    for p in &op.parts {
        if let Some(key) = p.mbar {
            mbarrier::complete_tx(&mut cl.mbars, key, p.tx as i64).map_err(|r| fail(m, r))?;
        }
    }
    Ok(())
}

/// Completes everything that an mbarrier tracks (called before the mbarrier is tested): the
/// operations with a part signalling it, then its pending `cp.async.mbarrier.arrive`s.
pub fn settle(m: &mut Machine<'_>, cl: &mut Cluster, key: (u32, u32)) -> Result<(), Error> {
    let ids: Vec<OpId> = cl
        .inflight
        .ops
        .values()
        .filter(|o| o.parts.iter().any(|p| p.mbar == Some(key)))
        .map(|o| o.id)
        .collect();
    for id in ids {
        complete(m, cl, id)?;
    }
    let mut k = 0;
    while k < cl.inflight.arrives.len() {
        if cl.inflight.arrives[k].mbar != key {
            k += 1;
            continue;
        }
        let a = cl.inflight.arrives.remove(k);
        for id in &a.ops {
            complete(m, cl, *id)?;
        }
        release(cl, &a.issuer, key);
        mbarrier::async_arrive(&mut cl.mbars, key).map_err(|rule| Error::Undefined {
            site: issuer_site(m.prog, &a.issuer),
            thread: a.issuer.thread,
            rule,
        })?;
        m.events += 1;
    }
    Ok(())
}

/// Commits a thread's uncommitted operations of one kind into a new group.
pub fn commit(cl: &mut Cluster, bulk: bool, key: (u32, u32)) {
    let g = cl.inflight.groups(bulk, key);
    let ops = std::mem::take(&mut g.uncommitted);
    g.groups.push_back(ops);
}

/// Waits until at most `n` of a thread's most recent groups are pending: completes the older
/// ones (only their reads with `read_only`).
pub fn wait_groups(
    m: &mut Machine<'_>,
    cl: &mut Cluster,
    bulk: bool,
    key: (u32, u32),
    n: usize,
    read_only: bool,
) -> Result<(), Error> {
    let g = cl.inflight.groups(bulk, key);
    let mut done = Vec::new();
    let warp = [key.0, key.1 / 32];
    if read_only {
        let k = g.groups.len().saturating_sub(n);
        for grp in g.groups.iter().take(k) {
            done.extend(grp.iter().copied());
        }
        for id in done {
            complete_reads(m, cl, id);
        }
        acquire(cl, warp);
        return Ok(());
    }
    while g.groups.len() > n {
        if let Some(grp) = g.groups.pop_front() {
            done.extend(grp);
        }
    }
    for id in done {
        complete(m, cl, id)?;
    }
    acquire(cl, warp);
    Ok(())
}

/// A thread exits: operations it tracks by async-groups complete (their writes land).
pub fn thread_exit(m: &mut Machine<'_>, cl: &mut Cluster, key: (u32, u32)) -> Result<(), Error> {
    // Most kernels never start an asynchronous copy: keep exits cheap for grids of many CTAs.
    if cl.inflight.cp.is_empty() && cl.inflight.bulk.is_empty() {
        return Ok(());
    }
    let mut ids = Vec::new();
    for bulk in [false, true] {
        let map = if bulk {
            &mut cl.inflight.bulk
        } else {
            &mut cl.inflight.cp
        };
        if let Some(g) = map.remove(&key) {
            ids.extend(g.uncommitted);
            for grp in g.groups {
                ids.extend(grp);
            }
        }
    }
    // cp.async operations named by a pending cp.async.mbarrier.arrive complete with it.
    ids.retain(|id| !cl.inflight.arrives.iter().any(|a| a.ops.contains(id)));
    for id in ids {
        complete(m, cl, id)?;
    }
    Ok(())
}

/// The cluster is done: every operation still in flight completes.
pub fn drain(m: &mut Machine<'_>, cl: &mut Cluster) -> Result<(), Error> {
    while let Some(mut op) = cl.inflight.ops.first_entry() {
        let id = *op.key();
        // Nobody can observe an mbarrier any more: the data just lands.
        for p in op.get_mut().parts.iter_mut() {
            p.mbar = None;
        }
        complete(m, cl, id)?;
    }
    cl.inflight.arrives.clear();
    Ok(())
}
