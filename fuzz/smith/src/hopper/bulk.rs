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

use super::asm::Asm;
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::{Op, Type};

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
        let mut a = Asm::new(
            "",
            &[
                format!(".shared .align 128 .b8 sm[{SMEM}];"),
                ".shared .align 8 .b64 mb;".to_string(),
            ],
        );
        a.i("mov.u32 %r4, sm;");
        a.i("mov.u32 %r7, mb;");
        a.i("setp.eq.u32 %p0, %tx, 0;");
        // %rd5: this CTA's scratch area of the output.
        a.i(format!("mul.wide.u32 %rd5, %cta, {SCRATCH};"));
        a.i("add.s64 %rd5, %rout, %rd5;");
        // Shared memory starts undefined: zero it.
        a.i("mov.u32 %r6, 0;");
        a.i("shl.b32 %r8, %tx, 4;");
        a.i("add.u32 %r8, %r4, %r8;");
        for w in (0..SMEM).step_by(16 * block as usize) {
            a.i(format!(
                "st.shared.v4.u32 [%r8+{w}], {{%r6, %r6, %r6, %r6}};"
            ));
        }
        a.i("@%p0 mbarrier.init.shared::cta.b64 [%r7], 1;");
        a.i("fence.mbarrier_init.release.cluster;");
        a.i("fence.proxy.async.shared::cta;");
        a.i("bar.sync 0;");

        let mut trace = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        let (mut groups, mut phase) = (0u32, 0u32);
        // Commit and wait until everything matching `f` is done.
        let drain = |a: &mut Asm, pending: &mut Vec<Pending>, groups: &mut u32, read: bool| {
            a.i("@%p0 cp.async.bulk.commit_group;");
            *groups += 1;
            if read {
                a.i("@%p0 cp.async.bulk.wait_group.read 0;");
                for p in pending.iter_mut() {
                    p.read_done = true;
                }
            } else {
                a.i("@%p0 cp.async.bulk.wait_group 0;");
                pending.clear();
            }
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
                        drain(&mut a, &mut pending, &mut groups, true);
                    }
                    let sum: u32 = kept.iter().map(|p| p.2).sum();
                    if *total {
                        a.i(format!(
                            "@%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], {sum};"
                        ));
                    }
                    let space = if *cluster {
                        "shared::cluster"
                    } else {
                        "shared::cta"
                    };
                    for &(d, s, n) in &kept {
                        if !*total {
                            a.i(format!(
                                "@%p0 mbarrier.expect_tx.shared::cta.b64 [%r7], {n};"
                            ));
                        }
                        a.i(format!("add.s64 %rd10, %rin, {s};"));
                        a.i(format!(
                            "@%p0 cp.async.bulk.{space}.global.mbarrier::complete_tx::bytes [%r4+{d}], [%rd10], {n}, [%r7];"
                        ));
                    }
                    if !*total {
                        a.i("@%p0 mbarrier.arrive.shared::cta.b64 %rd11, [%r7];");
                    }
                    a.wait_phase(phase);
                    // Every thread has seen the phase before thread 0 starts the next one.
                    a.i("bar.sync 0;");
                    phase += 1;
                    trace.push(Step::Load {
                        parts: kept,
                        total: *total,
                        cluster: *cluster,
                    });
                }
                &Step::Store(d, s, n) | &Step::Reduce(_, d, s, n) => {
                    if pending.iter().any(|p| overlap(p.write, (d, n))) {
                        drain(&mut a, &mut pending, &mut groups, false);
                    }
                    a.i(format!("add.s64 %rd10, %rd5, {d};"));
                    match step {
                        Step::Reduce(r, ..) => {
                            a.i(format!(
                                "@%p0 cp.reduce.async.bulk.global.shared::cta.bulk_group.{}.{} [%rd10], [%r4+{s}], {n};",
                                r.op.as_str(), r.ty.as_str()
                            ));
                        }
                        _ => {
                            a.i(format!(
                                "@%p0 cp.async.bulk.global.shared::cta.bulk_group [%rd10], [%r4+{s}], {n};"
                            ));
                        }
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
                    a.i("@%p0 cp.async.bulk.commit_group;");
                    for p in pending.iter_mut().filter(|p| p.group.is_none()) {
                        p.group = Some(groups);
                    }
                    groups += 1;
                }
                &Step::Wait(n, read) => {
                    let covered = |p: &Pending| p.group.is_some_and(|g| g + n < groups);
                    if read {
                        a.i(format!("@%p0 cp.async.bulk.wait_group.read {n};"));
                        for p in pending.iter_mut().filter(|p| covered(p)) {
                            p.read_done = true;
                        }
                    } else {
                        a.i(format!("@%p0 cp.async.bulk.wait_group {n};"));
                        pending.retain(|p| !covered(p));
                    }
                }
                &Step::Prefetch(s, n) => {
                    a.i(format!("add.s64 %rd10, %rin, {s};"));
                    a.i(format!(
                        "@%p0 cp.async.bulk.prefetch.L2.global [%rd10], {n};"
                    ));
                }
                &Step::Poke(k) => {
                    let words = SMEM / 4;
                    let hit = |t: u32| ((t * 4 + k) % words) * 4;
                    if (0..block).any(|t| {
                        pending
                            .iter()
                            .any(|p| !p.read_done && overlap(p.read, (hit(t), 4)))
                    }) {
                        drain(&mut a, &mut pending, &mut groups, true);
                    }
                    // Thread 0's waits (here or earlier) come before the other threads' stores.
                    a.i("bar.sync 0;");
                    a.i(format!("mad.lo.u32 %r10, %tx, 4, {k};"));
                    a.i(format!("rem.u32 %r10, %r10, {words};"));
                    a.i("shl.b32 %r10, %r10, 2;");
                    a.i("cvt.u64.u32 %rd12, %r10;");
                    a.i("add.s64 %rd12, %rin, %rd12;");
                    a.i("ld.global.u32 %r11, [%rd12];");
                    a.i("add.u32 %r10, %r4, %r10;");
                    a.i("st.shared.u32 [%r10], %r11;");
                    // Generic-proxy writes before async-proxy reads (9.7.9.25.1).
                    a.i("fence.proxy.async.shared::cta;");
                    a.i("bar.sync 0;");
                    trace.push(step.clone());
                }
            }
        }
        a.i("@%p0 cp.async.bulk.commit_group;");
        a.i("@%p0 cp.async.bulk.wait_group 0;");
        a.i("bar.sync 0;");
        a.dump_shared("%r4", SMEM, block, (grid * SCRATCH) as u64);
        let launch = Launch::new(a.finish(), grid, block, self.input.clone(), out_len);
        (launch, trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}
