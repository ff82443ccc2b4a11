//! Bulk copies: `cp.async.bulk` global -> shared (`.mbarrier::complete_tx::bytes`), shared ->
//! global (`.bulk_group`), `cp.reduce.async.bulk` shared -> global (`.add .min .max .inc .dec
//! .and .or .xor` on the integer types of PTX ISA 9.7.9.25.4.2), with
//! `cp.async.bulk.commit_group` / `wait_group{.read} N`, and generic-proxy stores to shared
//! memory between them (ordered by `fence.proxy.async`).
//!
//! Thread 0 of each CTA issues the copies; every thread waits on the mbarrier of a
//! global -> shared batch and stores to shared memory. The builder keeps the kernel well
//! defined (9.7.9.25.1): no two operations in flight write the same bytes, no shared source is
//! written while a bulk read of it is pending, and a batch's destinations never overlap each
//! other; where a drawn step would break a rule it first inserts a commit and a wait.
//!
//! The trace is the steps that move data, in program order (the completion order of any two
//! operations on the same bytes), with each batch's copies as the builder kept them.

use super::kernel::{kernel, vector, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::sink;
use ptx_ir_core::{Cache, Cmp, Flag, Op, Scope, Sem, Space, Type, Vector};

/// Bytes of shared memory per CTA (dumped to the output after the scratch areas).
pub const SMEM: u32 = 2048;
/// Bytes of each CTA's scratch area of the output (the global destination of stores and
/// reductions).
pub const SCRATCH: u32 = 1024;
/// Bytes of the input buffer.
pub const IN: u32 = 4096;

/// A reduction operation with its type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Red {
    /// The operation (`.add`, `.min`, ...).
    pub op: Op,
    /// The type (`.u32`, `.s64`, ...).
    pub ty: Type,
}

/// The valid operation/type pairs generated, in draw order.
pub const REDS: [Red; 15] = [
    Red {
        op: Op::Add,
        ty: Type::U32,
    },
    Red {
        op: Op::Add,
        ty: Type::S32,
    },
    Red {
        op: Op::Add,
        ty: Type::U64,
    },
    Red {
        op: Op::Min,
        ty: Type::U32,
    },
    Red {
        op: Op::Min,
        ty: Type::S32,
    },
    Red {
        op: Op::Min,
        ty: Type::U64,
    },
    Red {
        op: Op::Min,
        ty: Type::S64,
    },
    Red {
        op: Op::Max,
        ty: Type::U32,
    },
    Red {
        op: Op::Max,
        ty: Type::S64,
    },
    Red {
        op: Op::Inc,
        ty: Type::U32,
    },
    Red {
        op: Op::Dec,
        ty: Type::U32,
    },
    Red {
        op: Op::And,
        ty: Type::B32,
    },
    Red {
        op: Op::Or,
        ty: Type::B64,
    },
    Red {
        op: Op::Xor,
        ty: Type::B32,
    },
    Red {
        op: Op::Xor,
        ty: Type::B64,
    },
];

impl Red {
    /// Bytes per element.
    pub fn width(self) -> usize {
        (self.ty.bits() / 8) as usize
    }
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A batch of global -> shared copies `(dst, src, size)` on the mbarrier, then a wait.
    Load {
        /// The copies.
        parts: Vec<(u32, u32, u32)>,
        /// One `arrive.expect_tx` of the total (else `expect_tx` per copy and an `arrive`).
        total: bool,
        /// `.shared::cluster` destination spelling (else `.shared::cta`).
        cluster: bool,
    },
    /// Shared -> global copy `(dst in scratch, src in shared, size)`.
    Store(u32, u32, u32),
    /// Reduction `(dst in scratch, src in shared, size)`.
    Reduce(Red, u32, u32, u32),
    /// `cp.async.bulk.commit_group`.
    Commit,
    /// `cp.async.bulk.wait_group{.read} n`.
    Wait(u32, bool),
    /// Every thread stores an input word to shared word `(tid * 4 + k) % (SMEM / 4)`.
    Poke(u32),
    /// `cp.async.bulk.prefetch.L2.global [in + src], size` (no effect on values).
    Prefetch(u32, u32),
}

/// A generated bulk-copy kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs.
    pub grid: u32,
    /// Threads per CTA.
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The steps.
    pub steps: Vec<Step>,
}

fn range(u: &mut Unstructured, limit: u32) -> arbitrary::Result<(u32, u32)> {
    let size = 16 * u.int_in_range(1..=16)?;
    let at = 16 * u.int_in_range(0..=(limit - size) / 16)?;
    Ok((at, size))
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let grid = u.int_in_range(1..=2)?;
        let block = 32 * u.int_in_range(1..=2)?;
        let n = u.int_in_range(1..=16)?;
        let mut steps = Vec::new();
        for _ in 0..n {
            steps.push(match u.int_in_range(0..=10)? {
                0..=2 => {
                    let mut parts = Vec::new();
                    for _ in 0..u.int_in_range(1..=3)? {
                        let (dst, size) = range(u, SMEM)?;
                        parts.push((dst, 16 * u.int_in_range(0..=(IN - size) / 16)?, size));
                    }
                    Step::Load {
                        parts,
                        total: u.arbitrary()?,
                        cluster: u.arbitrary()?,
                    }
                }
                3 | 4 => {
                    let (dst, size) = range(u, SCRATCH)?;
                    Step::Store(dst, 16 * u.int_in_range(0..=(SMEM - size) / 16)?, size)
                }
                5 | 6 => {
                    let (dst, size) = range(u, SCRATCH)?;
                    let red = *u.choose(&REDS)?;
                    Step::Reduce(red, dst, 16 * u.int_in_range(0..=(SMEM - size) / 16)?, size)
                }
                7 => Step::Commit,
                8 => Step::Wait(u.int_in_range(0..=1)?, u.arbitrary()?),
                9 => Step::Poke(u.int_in_range(0..=SMEM / 4 - 1)?),
                _ => {
                    let (src, size) = range(u, IN)?;
                    Step::Prefetch(src, size)
                }
            });
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            grid,
            block,
            input,
            steps,
        })
    }
}

/// A bulk operation in flight: shared bytes it reads, global bytes it writes, its group.
struct Pending {
    read: (u32, u32),
    write: (u32, u32),
    group: Option<u32>,
    /// Reads already finished (a `.read` wait covered it).
    read_done: bool,
}

fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

impl Protocol for Spec {
    /// The loads (their copies as kept: no two of a batch overlap), stores, reductions and
    /// pokes, in program order.
    type Trace = Vec<Step>;

    fn build(&self) -> (Launch, Vec<Step>) {
        let (grid, block) = (self.grid, self.block);
        let out_len = (grid * (SCRATCH + SMEM)) as usize;
        let mut trace = Vec::new();
        let text = kernel(Head::hopper(), |k| {
            let sm = k.shared("sm", 128, Type::B8, Some(SMEM))?;
            let mb = k.shared("mb", 8, Type::B64, None)?;
            k.prologue()?;
            let (r4, r6, r7, r8, r10, r11) = (k.r(4), k.r(6), k.r(7), k.r(8), k.r(10), k.r(11));
            let (rd5, rd10, rd11, rd12, p0) = (k.rd(5), k.rd(10), k.rd(11), k.rd(12), k.p(0));
            k.f.mov(Type::U32, (r4, sm))?;
            k.f.mov(Type::U32, (r7, mb))?;
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            // %rd5: this CTA's scratch area of the output.
            k.f.mul((Flag::Wide, Type::U32), (rd5, k.cta, SCRATCH))?;
            k.f.add(Type::S64, (rd5, k.rout, rd5))?;
            // Shared memory starts undefined: zero it.
            k.f.mov(Type::U32, (r6, 0))?;
            k.f.shl(Type::B32, (r8, k.tx, 4))?;
            k.f.add(Type::U32, (r8, r4, r8))?;
            for w in (0..SMEM).step_by(16 * block as usize) {
                k.f.st(
                    (Space::Shared, Vector::V4, Type::U32),
                    (r8.at(w.into()), vector([r6; 4])),
                )?;
            }
            k.f.guard(p0)
                .mbarrier_init((Space::SharedCta, Type::B64), (r7.at(0), 1))?;
            k.f.fence((Flag::MbarrierInit, Sem::Release, Scope::Cluster), ())?;
            k.f.fence((Flag::Proxy, Flag::Async, Space::SharedCta), ())?;
            k.f.bar(Flag::Sync, 0)?;

            let mut pending: Vec<Pending> = Vec::new();
            let (mut groups, mut phase) = (0u32, 0u32);
            // Commit and wait until every operation (or every read, if `read`) is done.
            let drain = |k: &mut K, pending: &mut Vec<Pending>, groups: &mut u32, read: bool| {
                *groups += 1;
                if read {
                    pending.iter_mut().for_each(|p| p.read_done = true);
                } else {
                    pending.clear();
                }
                k.bulk_drain(p0, read)
            };
            for step in &self.steps {
                match step {
                    Step::Load {
                        parts,
                        total,
                        cluster,
                    } => {
                        let mut kept: Vec<(u32, u32, u32)> = Vec::new();
                        for &(d, s, n) in parts {
                            if kept.iter().all(|&(d2, _, n2)| !overlap((d, n), (d2, n2))) {
                                kept.push((d, s, n));
                            }
                        }
                        if kept.iter().any(|&(d, _, n)| {
                            pending
                                .iter()
                                .any(|p| !p.read_done && overlap(p.read, (d, n)))
                        }) {
                            drain(k, &mut pending, &mut groups, true)?;
                        }
                        let sum: u32 = kept.iter().map(|p| p.2).sum();
                        if *total {
                            k.f.guard(p0).mbarrier_arrive(
                                (Flag::ExpectTx, Space::SharedCta, Type::B64),
                                (sink(), r7.at(0), sum),
                            )?;
                        }
                        let space = if *cluster {
                            Space::SharedCluster
                        } else {
                            Space::SharedCta
                        };
                        for &(d, s, n) in &kept {
                            if !*total {
                                k.f.guard(p0).mbarrier_expect_tx(
                                    (Space::SharedCta, Type::B64),
                                    (r7.at(0), n),
                                )?;
                            }
                            k.f.add(Type::S64, (rd10, k.rin, s))?;
                            k.f.guard(p0).cp_async_bulk(
                                (space, Space::Global, Flag::MbarrierCompleteTxBytes),
                                (r4.at(d.into()), rd10.at(0), n, r7.at(0)),
                            )?;
                        }
                        if !*total {
                            k.f.guard(p0)
                                .mbarrier_arrive((Space::SharedCta, Type::B64), (rd11, r7.at(0)))?;
                        }
                        k.wait_phase(phase)?;
                        // Every thread has seen the phase before thread 0 starts the next one.
                        k.f.bar(Flag::Sync, 0)?;
                        phase += 1;
                        trace.push(Step::Load {
                            parts: kept,
                            total: *total,
                            cluster: *cluster,
                        });
                    }
                    &Step::Store(d, s, n) | &Step::Reduce(_, d, s, n) => {
                        if pending.iter().any(|p| overlap(p.write, (d, n))) {
                            drain(k, &mut pending, &mut groups, false)?;
                        }
                        k.f.add(Type::S64, (rd10, rd5, d))?;
                        let ops = (rd10.at(0), r4.at(s.into()), n);
                        match step {
                            Step::Reduce(r, ..) => k.f.guard(p0).cp_reduce_async_bulk(
                                (Space::Global, Space::SharedCta, Flag::BulkGroup, r.op, r.ty),
                                ops,
                            )?,
                            _ => k.f.guard(p0).cp_async_bulk(
                                (Space::Global, Space::SharedCta, Flag::BulkGroup),
                                ops,
                            )?,
                        }
                        trace.push(step.clone());
                        pending.push(Pending {
                            read: (s, n),
                            write: (d, n),
                            group: None,
                            read_done: false,
                        });
                    }
                    Step::Commit => {
                        k.f.guard(p0).cp_async_bulk_commit_group((), ())?;
                        for p in pending.iter_mut().filter(|p| p.group.is_none()) {
                            p.group = Some(groups);
                        }
                        groups += 1;
                    }
                    &Step::Wait(n, read) => {
                        let covered = |p: &Pending| p.group.is_some_and(|g| g + n < groups);
                        if read {
                            k.f.guard(p0).cp_async_bulk_wait_group(Flag::Read, n)?;
                            for p in pending.iter_mut().filter(|p| covered(p)) {
                                p.read_done = true;
                            }
                        } else {
                            k.f.guard(p0).cp_async_bulk_wait_group((), n)?;
                            pending.retain(|p| !covered(p));
                        }
                    }
                    &Step::Prefetch(s, n) => {
                        k.f.add(Type::S64, (rd10, k.rin, s))?;
                        k.f.guard(p0)
                            .cp_async_bulk_prefetch((Cache::L2, Space::Global), (rd10.at(0), n))?;
                    }
                    &Step::Poke(w) => {
                        let words = SMEM / 4;
                        let hit = |t: u32| ((t * 4 + w) % words) * 4;
                        if (0..block).any(|t| {
                            pending
                                .iter()
                                .any(|p| !p.read_done && overlap(p.read, (hit(t), 4)))
                        }) {
                            drain(k, &mut pending, &mut groups, true)?;
                        }
                        // Thread 0's waits (here or earlier) come before the other threads'
                        // stores.
                        k.f.bar(Flag::Sync, 0)?;
                        k.f.mad((Flag::Lo, Type::U32), (r10, k.tx, 4, w))?;
                        k.f.rem(Type::U32, (r10, r10, words))?;
                        k.f.shl(Type::B32, (r10, r10, 2))?;
                        k.f.cvt((Type::U64, Type::U32), (rd12, r10))?;
                        k.f.add(Type::S64, (rd12, k.rin, rd12))?;
                        k.f.ld((Space::Global, Type::U32), (r11, rd12.at(0)))?;
                        k.f.add(Type::U32, (r10, r4, r10))?;
                        k.f.st((Space::Shared, Type::U32), (r10.at(0), r11))?;
                        // Generic-proxy writes before async-proxy reads (9.7.9.25.1).
                        k.f.fence((Flag::Proxy, Flag::Async, Space::SharedCta), ())?;
                        k.f.bar(Flag::Sync, 0)?;
                        trace.push(step.clone());
                    }
                }
            }
            k.f.guard(p0).cp_async_bulk_commit_group((), ())?;
            k.f.guard(p0).cp_async_bulk_wait_group((), 0)?;
            k.f.bar(Flag::Sync, 0)?;
            k.dump_shared(r4, SMEM, block, (grid * SCRATCH).into())
        });
        let launch = Launch::new(text, grid, block, self.input.clone(), out_len);
        (launch, trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}
