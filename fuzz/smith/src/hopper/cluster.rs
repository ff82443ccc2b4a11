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

use super::asm::Asm;
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::{Op, Type};

/// Bytes of the input buffer.
pub const IN: u32 = 1024;
/// Result slots per thread (4 bytes each): the cluster special registers, then the loads,
/// ranks and elections.
pub const SLOTS: u32 = 16;
/// The cluster special registers the kernel records first, in slot order.
pub const SREGS: [&str; 7] = [
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%clusterid.x",
    "%nclusterid.x",
    "%cluster_ctaid.x",
    "%cluster_nctaid.x",
    "%is_explicit_cluster",
];
/// Atomic counters per CTA.
pub const COUNTERS: u32 = 8;

/// The commutative atomic operations on the `u32` counters the generator draws, in draw order.
pub const COUNTER_OPS: [Op; 6] = [Op::Add, Op::And, Op::Or, Op::Xor, Op::Min, Op::Max];

/// The operation and type of an atomic update of a counter (`add.u32`, `and.b32`, ...).
fn counter_op(op: Op) -> String {
    let ty = match op {
        Op::And | Op::Or | Op::Xor => Type::B32,
        _ => Type::U32,
    };
    format!("{}{ty}", op.as_str())
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
        let mut a = Asm::new(
            &format!(".reqnctapercluster {c}, 1, 1"),
            &[
                format!(".shared .align 16 .b32 data[{words}];"),
                format!(".shared .align 16 .b32 cnt[{COUNTERS}];"),
            ],
        );
        let barrier = |a: &mut Asm, n: usize| {
            // Vary the spellings; all are full cluster barriers for converged CTAs.
            if n % 2 == 0 {
                a.i("barrier.cluster.arrive;");
                a.i("barrier.cluster.wait;");
            } else {
                a.i("barrier.cluster.arrive.release.aligned;");
                a.i("barrier.cluster.wait.acquire.aligned;");
            }
        };
        a.i("mov.u32 %r4, data;");
        a.i("mov.u32 %r5, cnt;");
        a.i("mov.u32 %r6, %cluster_ctarank;");
        a.i("shl.b32 %r8, %tx, 2;");
        a.i("add.u32 %r9, %r4, %r8;");
        a.i("mov.u32 %r10, 0;");
        a.i("st.shared.u32 [%r9], %r10;");
        a.i(format!("st.shared.u32 [%r9+{}], %r10;", block * 4));
        a.i(format!("setp.lt.u32 %p1, %tx, {COUNTERS};"));
        a.i("add.u32 %r11, %r5, %r8;");
        a.i("@%p1 st.shared.u32 [%r11], %r10;");
        barrier(&mut a, 0);
        // The cluster registers.
        for (k, s) in SREGS.iter().enumerate() {
            if *s == "%is_explicit_cluster" {
                a.i(format!("mov.pred %p2, {s};"));
                a.i("selp.u32 %r12, 1, 0, %p2;");
            } else {
                a.i(format!("mov.u32 %r12, {s};"));
            }
            a.slot("%r12", SLOTS * 4, k as u32 * 4);
        }
        let mut next = SREGS.len();
        let mut trace = Vec::new();
        let nin = IN / 4;
        // %r13: target rank; %r14 / %rd14: the target's address of the word in %r15 (a
        // shared::cta address).
        let target = |a: &mut Asm, d: u32, gen: bool| {
            a.i(format!("add.u32 %r13, %r6, {d};"));
            a.i(format!("rem.u32 %r13, %r13, {c};"));
            if gen {
                a.i("cvt.u64.u32 %rd14, %r15;");
                a.i("cvta.shared.u64 %rd14, %rd14;");
                a.i("mapa.u64 %rd14, %rd14, %r13;");
            } else {
                a.i("mapa.shared::cluster.u32 %r14, %r15, %r13;");
            }
        };
        let word = |a: &mut Asm, k: u32| {
            a.i(format!("add.u32 %r15, %tx, {k};"));
            a.i(format!("rem.u32 %r15, %r15, {words};"));
            a.i("shl.b32 %r15, %r15, 2;");
            a.i("add.u32 %r15, %r4, %r15;");
        };
        for (n, step) in self.steps.iter().enumerate() {
            if next == SLOTS as usize
                && matches!(step, Step::Load { .. } | Step::Rank { .. } | Step::Elect(_))
            {
                continue;
            }
            trace.push(step.clone());
            match *step {
                Step::Store { d, k, gen } => {
                    a.i("mul.lo.u32 %r16, %gtid, 5;");
                    a.i(format!("add.u32 %r16, %r16, {k};"));
                    a.i(format!("rem.u32 %r16, %r16, {nin};"));
                    a.i("mul.wide.u32 %rd16, %r16, 4;");
                    a.i("add.s64 %rd16, %rin, %rd16;");
                    a.i("ld.global.u32 %r17, [%rd16];");
                    word(&mut a, k);
                    target(&mut a, d, gen);
                    if gen {
                        a.i("st.u32 [%rd14], %r17;");
                    } else {
                        a.i("st.shared::cluster.u32 [%r14], %r17;");
                    }
                }
                Step::Load { d, k, gen } => {
                    word(&mut a, k);
                    target(&mut a, d, gen);
                    if gen {
                        a.i("ld.u32 %r18, [%rd14];");
                    } else {
                        a.i("ld.shared::cluster.u32 %r18, [%r14];");
                    }
                    a.slot("%r18", SLOTS * 4, next as u32 * 4);
                    next += 1;
                }
                Step::Atom { d, cell, op, red } => {
                    a.i("mul.lo.u32 %r16, %gtid, 5;");
                    a.i(format!("add.u32 %r16, %r16, {cell};"));
                    a.i(format!("rem.u32 %r16, %r16, {nin};"));
                    a.i("mul.wide.u32 %rd16, %r16, 4;");
                    a.i("add.s64 %rd16, %rin, %rd16;");
                    a.i("ld.global.u32 %r17, [%rd16];");
                    a.i(format!("add.u32 %r15, %r5, {};", cell * 4));
                    target(&mut a, d, false);
                    if red {
                        a.i(format!(
                            "red.shared::cluster.{} [%r14], %r17;",
                            counter_op(op)
                        ));
                    } else {
                        a.i(format!(
                            "atom.shared::cluster.{} %r19, [%r14], %r17;",
                            counter_op(op)
                        ));
                    }
                }
                Step::Rank { d, gen } => {
                    a.i("mov.u32 %r15, %r4;");
                    target(&mut a, d, gen);
                    if gen {
                        a.i("getctarank.u64 %r18, %rd14;");
                    } else {
                        a.i("getctarank.shared::cluster.u32 %r18, %r14;");
                    }
                    a.slot("%r18", SLOTS * 4, next as u32 * 4);
                    next += 1;
                }
                Step::Elect(mask) => {
                    a.i("mov.u32 %r20, %laneid;");
                    a.i("shl.b32 %r21, 1, %r20;");
                    a.i(format!("and.b32 %r21, %r21, {mask};"));
                    a.i("setp.ne.u32 %p4, %r21, 0;");
                    a.i("mov.u32 %r22, 0;");
                    a.i(format!("@%p4 elect.sync %r22|%p5, {mask};"));
                    a.i("@%p4 selp.u32 %r23, 100, 0, %p5;");
                    a.i("@%p4 add.u32 %r22, %r22, %r23;");
                    a.slot("%r22", SLOTS * 4, next as u32 * 4);
                    next += 1;
                }
            }
            barrier(&mut a, n + 1);
        }
        a.dump_shared("%r4", words * 4, block, data_at as u64);
        a.dump_shared("%r5", COUNTERS * 4, block, cnt_at as u64);
        // No CTA leaves while another may still read its shared memory.
        barrier(&mut a, 0);
        let launch = Launch::new(a.finish(), grid, block, self.input.clone(), out_len);
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
