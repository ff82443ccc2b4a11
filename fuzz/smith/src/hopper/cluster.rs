//! Clusters and distributed shared memory: launches with `.reqnctapercluster`, the cluster
//! special registers, `mapa` (`.shared::cluster` and generic), `getctarank`, `ld`/`st`/`atom`
//! on other CTAs' shared memory separated by `barrier.cluster.arrive`/`wait`, and `elect.sync`
//! with partial membermasks.
//!
//! Each step is followed by a cluster barrier, so a step's remote stores are visible to the
//! next step's loads and nothing races: in a store step CTA `r` writes only into CTA
//! `(r + d) % C`, thread `t` only word `(t + k) % W`; an atomic step applies one commutative
//! operation per counter (its returned values, which depend on the order, are not recorded).
//!
//! The trace is the steps kept (a step that finds no result slot is left out).

use super::kernel::{kernel, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::{pair, Sreg};
use ptx_ir_core::{Cmp, Flag, Op, Sem, Space, SpecialReg, Type};

/// Bytes of the input buffer.
pub const IN: u32 = 1024;
/// Result slots per thread (4 bytes each): the cluster special registers, then the loads,
/// ranks and elections.
pub const SLOTS: u32 = 16;
/// The cluster special registers the kernel records first, in slot order (component `.x` of
/// the vector ones).
pub const SREGS: [SpecialReg; 7] = [
    SpecialReg::ClusterCtarank,
    SpecialReg::ClusterNctarank,
    SpecialReg::Clusterid,
    SpecialReg::Nclusterid,
    SpecialReg::ClusterCtaid,
    SpecialReg::ClusterNctaid,
    SpecialReg::IsExplicitCluster,
];
/// Atomic counters per CTA.
pub const COUNTERS: u32 = 8;

/// The commutative atomic operations on the `u32` counters the generator draws, in draw order.
pub const COUNTER_OPS: [Op; 6] = [Op::Add, Op::And, Op::Or, Op::Xor, Op::Min, Op::Max];

/// The type of an atomic update of a counter with `op` (`add.u32`, `and.b32`, ...).
fn counter_type(op: Op) -> Type {
    match op {
        Op::And | Op::Or | Op::Xor => Type::B32,
        _ => Type::U32,
    }
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Store an input word to word `(t + k) % W` of CTA `rank + d` (generic address if `gen`).
    Store {
        /// Rank distance.
        d: u32,
        /// Word shift.
        k: u32,
        /// Through a generic address.
        gen: bool,
    },
    /// Load word `(t + k) % W` of CTA `rank + d` into a slot.
    Load {
        /// Rank distance.
        d: u32,
        /// Word shift.
        k: u32,
        /// Through a generic address.
        gen: bool,
    },
    /// Every thread applies `op` with an input word to counter `cell` of CTA `rank + d`
    /// (`red` if `red`, else `atom`).
    Atom {
        /// Rank distance.
        d: u32,
        /// Counter.
        cell: u32,
        /// Operation.
        op: Op,
        /// `red` rather than `atom`.
        red: bool,
    },
    /// `getctarank` of the `mapa` of CTA `rank + d`'s shared memory into a slot.
    Rank {
        /// Rank distance.
        d: u32,
        /// Generic address.
        gen: bool,
    },
    /// `elect.sync` by the lanes of `mask` (every warp); the leader's lane plus 100 if this
    /// thread is the leader, into a slot.
    Elect(u32),
}

/// A generated cluster kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs per cluster.
    pub csize: u32,
    /// Clusters in the grid.
    pub clusters: u32,
    /// Threads per CTA.
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The steps.
    pub steps: Vec<Step>,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let csize = *u.choose(&[1, 2, 3, 4])?;
        let clusters = u.int_in_range(1..=2)?;
        let block = 32 * u.int_in_range(1..=2)?;
        let mut steps = Vec::new();
        for _ in 0..u.int_in_range(1..=12)? {
            let d = u.int_in_range(0..=csize - 1)?;
            let k = u.int_in_range(0..=4 * block)?;
            steps.push(match u.int_in_range(0..=7)? {
                0 | 1 => Step::Store {
                    d,
                    k,
                    gen: u.arbitrary()?,
                },
                2 | 3 => Step::Load {
                    d,
                    k,
                    gen: u.arbitrary()?,
                },
                4 | 5 => Step::Atom {
                    d,
                    cell: u.int_in_range(0..=COUNTERS - 1)?,
                    op: *u.choose(&COUNTER_OPS)?,
                    red: u.arbitrary()?,
                },
                6 => Step::Rank {
                    d,
                    gen: u.arbitrary()?,
                },
                _ => Step::Elect(u.arbitrary::<u32>()? | 1 << u.int_in_range(0..=31)?),
            });
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            csize,
            clusters,
            block,
            input,
            steps,
        })
    }
}

impl Protocol for Spec {
    /// The steps kept, in order.
    type Trace = Vec<Step>;

    fn build(&self) -> (Launch, Vec<Step>) {
        let (c, block) = (self.csize, self.block);
        let grid = c * self.clusters;
        let words = 2 * block;
        let slot_bytes = grid * block * SLOTS * 4;
        let data_at = slot_bytes;
        let cnt_at = data_at + grid * words * 4;
        let out_len = (cnt_at + grid * COUNTERS * 4) as usize;
        let mut trace = Vec::new();
        let text = kernel(Head::hopper().cluster(c), |k| {
            let data = k.shared("data", 16, Type::B32, Some(words))?;
            let cnt = k.shared("cnt", 16, Type::B32, Some(COUNTERS))?;
            k.prologue()?;
            let barrier = |k: &mut K, n: usize| {
                // Vary the spellings; all are full cluster barriers for converged CTAs.
                if n % 2 == 0 {
                    k.f.barrier_cluster(Flag::Arrive, ())?;
                    k.f.barrier_cluster(Flag::Wait, ())
                } else {
                    k.f.barrier_cluster((Flag::Arrive, Sem::Release, Flag::Aligned), ())?;
                    k.f.barrier_cluster((Flag::Wait, Sem::Acquire, Flag::Aligned), ())
                }
            };
            let (r4, r5, r6, r8, r9, r10, r11, r12) = (
                k.r(4),
                k.r(5),
                k.r(6),
                k.r(8),
                k.r(9),
                k.r(10),
                k.r(11),
                k.r(12),
            );
            let (r13, r14, r15, r16, r17, r18, r19) = (
                k.r(13),
                k.r(14),
                k.r(15),
                k.r(16),
                k.r(17),
                k.r(18),
                k.r(19),
            );
            let (r20, r21, r22, r23) = (k.r(20), k.r(21), k.r(22), k.r(23));
            let (rd14, rd16) = (k.rd(14), k.rd(16));
            let (p1, p2, p4, p5) = (k.p(1), k.p(2), k.p(4), k.p(5));
            k.f.mov(Type::U32, (r4, data))?;
            k.f.mov(Type::U32, (r5, cnt))?;
            k.f.mov(Type::U32, (r6, Sreg::from(SpecialReg::ClusterCtarank)))?;
            k.f.shl(Type::B32, (r8, k.tx, 2))?;
            k.f.add(Type::U32, (r9, r4, r8))?;
            k.f.mov(Type::U32, (r10, 0))?;
            k.f.st((Space::Shared, Type::U32), (r9.at(0), r10))?;
            k.f.st((Space::Shared, Type::U32), (r9.at((block * 4).into()), r10))?;
            k.f.setp((Cmp::Lt, Type::U32), (p1, k.tx, COUNTERS))?;
            k.f.add(Type::U32, (r11, r5, r8))?;
            k.f.guard(p1)
                .st((Space::Shared, Type::U32), (r11.at(0), r10))?;
            barrier(k, 0)?;
            // The cluster registers.
            for (i, &s) in SREGS.iter().enumerate() {
                let sreg = if s.ty().1 {
                    Sreg::axis(s, 0)
                } else {
                    Sreg::from(s)
                };
                if s == SpecialReg::IsExplicitCluster {
                    k.f.mov(Type::Pred, (p2, sreg))?;
                    k.f.selp(Type::U32, (r12, 1, 0, p2))?;
                } else {
                    k.f.mov(Type::U32, (r12, sreg))?;
                }
                k.slot(r12, SLOTS * 4, i as u32 * 4)?;
            }
            let mut next = SREGS.len();
            let nin = IN / 4;
            // %r13: target rank; %r14 / %rd14: the target's address of the word in %r15 (a
            // shared::cta address).
            let target = |k: &mut K, d: u32, gen: bool| {
                k.f.add(Type::U32, (r13, r6, d))?;
                k.f.rem(Type::U32, (r13, r13, c))?;
                if gen {
                    k.f.cvt((Type::U64, Type::U32), (rd14, r15))?;
                    k.f.cvta((Space::Shared, Type::U64), (rd14, rd14))?;
                    k.f.mapa(Type::U64, (rd14, rd14, r13))
                } else {
                    k.f.mapa((Space::SharedCluster, Type::U32), (r14, r15, r13))
                }
            };
            let word = |k: &mut K, w: u32| {
                k.f.add(Type::U32, (r15, k.tx, w))?;
                k.f.rem(Type::U32, (r15, r15, words))?;
                k.f.shl(Type::B32, (r15, r15, 2))?;
                k.f.add(Type::U32, (r15, r4, r15))
            };
            // %r17: the input word `(gtid * 5 + at) % nin`.
            let input_word = |k: &mut K, at: u32| {
                k.f.mul((Flag::Lo, Type::U32), (r16, k.gtid, 5))?;
                k.f.add(Type::U32, (r16, r16, at))?;
                k.f.rem(Type::U32, (r16, r16, nin))?;
                k.f.mul((Flag::Wide, Type::U32), (rd16, r16, 4))?;
                k.f.add(Type::S64, (rd16, k.rin, rd16))?;
                k.f.ld((Space::Global, Type::U32), (r17, rd16.at(0)))
            };
            for (n, step) in self.steps.iter().enumerate() {
                if next == SLOTS as usize
                    && matches!(step, Step::Load { .. } | Step::Rank { .. } | Step::Elect(_))
                {
                    continue;
                }
                trace.push(step.clone());
                match *step {
                    Step::Store { d, k: w, gen } => {
                        input_word(k, w)?;
                        word(k, w)?;
                        target(k, d, gen)?;
                        if gen {
                            k.f.st(Type::U32, (rd14.at(0), r17))?;
                        } else {
                            k.f.st((Space::SharedCluster, Type::U32), (r14.at(0), r17))?;
                        }
                    }
                    Step::Load { d, k: w, gen } => {
                        word(k, w)?;
                        target(k, d, gen)?;
                        if gen {
                            k.f.ld(Type::U32, (r18, rd14.at(0)))?;
                        } else {
                            k.f.ld((Space::SharedCluster, Type::U32), (r18, r14.at(0)))?;
                        }
                        k.slot(r18, SLOTS * 4, next as u32 * 4)?;
                        next += 1;
                    }
                    Step::Atom { d, cell, op, red } => {
                        input_word(k, cell)?;
                        k.f.add(Type::U32, (r15, r5, cell * 4))?;
                        target(k, d, false)?;
                        let mods = (Space::SharedCluster, op, counter_type(op));
                        if red {
                            k.f.red(mods, (r14.at(0), r17))?;
                        } else {
                            k.f.atom(mods, (r19, r14.at(0), r17))?;
                        }
                    }
                    Step::Rank { d, gen } => {
                        k.f.mov(Type::U32, (r15, r4))?;
                        target(k, d, gen)?;
                        if gen {
                            k.f.getctarank(Type::U64, (r18, rd14))?;
                        } else {
                            k.f.getctarank((Space::SharedCluster, Type::U32), (r18, r14))?;
                        }
                        k.slot(r18, SLOTS * 4, next as u32 * 4)?;
                        next += 1;
                    }
                    Step::Elect(mask) => {
                        k.f.mov(Type::U32, (r20, Sreg::from(SpecialReg::Laneid)))?;
                        k.f.shl(Type::B32, (r21, 1, r20))?;
                        k.f.and(Type::B32, (r21, r21, mask))?;
                        k.f.setp((Cmp::Ne, Type::U32), (p4, r21, 0))?;
                        k.f.mov(Type::U32, (r22, 0))?;
                        k.f.guard(p4).elect(Flag::Sync, (pair(r22, p5), mask))?;
                        k.f.guard(p4).selp(Type::U32, (r23, 100, 0, p5))?;
                        k.f.guard(p4).add(Type::U32, (r22, r22, r23))?;
                        k.slot(r22, SLOTS * 4, next as u32 * 4)?;
                        next += 1;
                    }
                }
                barrier(k, n + 1)?;
            }
            k.dump_shared(r4, words * 4, block, data_at.into())?;
            k.dump_shared(r5, COUNTERS * 4, block, cnt_at.into())?;
            // No CTA leaves while another may still read its shared memory.
            barrier(k, 0)
        });
        let launch = Launch::new(text, grid, block, self.input.clone(), out_len);
        (launch, trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        let mut v: Vec<Spec> = super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        });
        if self.clusters > 1 {
            v.push(Spec {
                clusters: 1,
                ..self.clone()
            });
        }
        v
    }
}
