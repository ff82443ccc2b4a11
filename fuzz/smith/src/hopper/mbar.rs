//! mbarrier phase sequences: `init`, `arrive` (with a count, `.noComplete`, `.expect_tx`),
//! `arrive_drop`, `expect_tx`, `complete_tx`, `test_wait`/`try_wait` on a state or a
//! `.parity`, `pending_count`, `inval`.
//!
//! One mbarrier per CTA; the kernel is a list of steps, each executed by a subset of the
//! threads (one thread, `tid < k`, or `tid % m == r`) and followed by `bar.sync 0`, so that the
//! barrier's state between steps does not depend on how the warps interleave. The builder keeps
//! every step legal (PTX ISA 9.7.13.15): arrivals never exceed the pending count, `.noComplete`
//! never completes a phase, the expected count stays at least 1, the tx-count stays in range
//! and never goes negative, and every completed phase is observed by a wait before the next
//! step (an arrive-on in a phase whose predecessor no wait has observed is undefined). A step
//! that would break a rule is left out.
//!
//! The builder tracks the barrier's counts to keep every step legal; the trace is the steps it
//! kept, with `Rest` resolved into the `complete_tx` and the `arrive` it emits.

use super::kernel::{kernel, Head, K};
use super::{Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::BuildError;
use ptx_ir_core::{Cmp, Flag, Modifier, Scope, Sem, Space, Type};

/// Result slots per thread (4 bytes each).
pub const SLOTS: u32 = 16;
/// The largest tx-count an mbarrier holds.
const TX_MAX: u32 = (1 << 20) - 1;

/// Which threads of the CTA execute a step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// One thread.
    One(u32),
    /// `tid < k`.
    Below(u32),
    /// `tid % m == r`.
    Mod(u32, u32),
}

impl Who {
    /// Whether thread `t` is one of them.
    pub fn has(self, t: u32) -> bool {
        match self {
            Who::One(k) => t == k,
            Who::Below(k) => t < k,
            Who::Mod(m, r) => t % m == r,
        }
    }

    /// Sets `%p3` to membership.
    fn emit(self, k: &mut K) -> Result<(), BuildError> {
        let (p3, tx) = (k.p(3), k.tx);
        match self {
            Who::One(t) => k.f.setp((Cmp::Eq, Type::U32), (p3, tx, t)),
            Who::Below(t) => k.f.setp((Cmp::Lt, Type::U32), (p3, tx, t)),
            Who::Mod(m, r) => {
                let r20 = k.r(20);
                k.f.rem(Type::U32, (r20, tx, m))?;
                k.f.setp((Cmp::Eq, Type::U32), (p3, r20, r))
            }
        }
    }
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `mbarrier.arrive{.noComplete}` with a count; records `pending_count` of a `.noComplete`
    /// state when one thread arrives.
    Arrive {
        /// Arriving threads.
        who: Who,
        /// Arrival count.
        count: u32,
        /// `.noComplete`.
        nc: bool,
        /// `.release.cta` and `.shared::cta` spellings.
        sem: bool,
    },
    /// `mbarrier.arrive.expect_tx`.
    ArriveTx {
        /// Arriving threads.
        who: Who,
        /// Transaction bytes per thread.
        bytes: u32,
    },
    /// `mbarrier.arrive_drop` with a count.
    Drop {
        /// Dropping threads.
        who: Who,
        /// Count.
        count: u32,
    },
    /// `mbarrier.expect_tx`.
    Expect {
        /// Executing threads.
        who: Who,
        /// Bytes per thread.
        bytes: u32,
    },
    /// `mbarrier.complete_tx`.
    Complete {
        /// Executing threads.
        who: Who,
        /// Bytes per thread.
        bytes: u32,
    },
    /// Completes the phase: one thread completes the remaining transactions, and
    /// `tid < n` arrive with a count `c` such that `n * c` is the pending count.
    Rest,
    /// `test_wait.parity` (or `try_wait.parity` where the answer is true) by every thread.
    Parity {
        /// The parity asked about.
        parity: u32,
        /// `try_wait` if the phase is complete.
        try_: bool,
    },
    /// `test_wait`/`try_wait` on the thread's last state token.
    State {
        /// Executing threads.
        who: Who,
        /// `try_wait` if the phase is complete.
        try_: bool,
    },
}

/// A generated mbarrier kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Threads of the one CTA.
    pub block: u32,
    /// The mbarrier's initial expected count.
    pub count: u32,
    /// The steps.
    pub steps: Vec<Step>,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let block = 32 * u.int_in_range(1..=3)?;
        let count = u.int_in_range(1..=2 * block)?;
        let n = u.int_in_range(1..=30)?;
        let mut steps = Vec::new();
        for _ in 0..n {
            let who = match u.int_in_range(0..=2)? {
                0 => Who::One(u.int_in_range(0..=block - 1)?),
                1 => Who::Below(u.int_in_range(1..=block)?),
                _ => {
                    let m = u.int_in_range(1..=8)?;
                    Who::Mod(m, u.int_in_range(0..=m - 1)?)
                }
            };
            let bytes = *u.choose(&[1, 16, 128, 1000, 4096])?;
            steps.push(match u.int_in_range(0..=11)? {
                10 | 11 => Step::Rest,
                0..=2 => Step::Arrive {
                    who,
                    count: u.int_in_range(1..=4)?,
                    nc: u.ratio(1, 4)?,
                    sem: u.arbitrary()?,
                },
                3 => Step::ArriveTx { who, bytes },
                4 => Step::Drop {
                    who,
                    count: u.int_in_range(1..=2)?,
                },
                5 => Step::Expect { who, bytes },
                6 => Step::Complete { who, bytes },
                7 => Step::Parity {
                    parity: u.int_in_range(0..=1)?,
                    try_: u.arbitrary()?,
                },
                _ => Step::State {
                    who,
                    try_: u.arbitrary()?,
                },
            });
        }
        Ok(Spec {
            block,
            count,
            steps,
        })
    }
}

/// The mbarrier's state machine as the ISA describes it (PTX ISA 9.7.13.15): expected count,
/// pending count, tx-count and phase. A phase completes when the pending count and the
/// tx-count are both zero; the pending count is then reloaded from the expected count (which
/// `arrive_drop` lowers). The builder tracks it to keep every step legal, and the reference
/// semantics (`ptx_ir_refsem::hopper::mbar`) runs the kept steps on it. The callers keep the
/// counts in range (the builder leaves out a step that would not).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mbarrier {
    /// Arrivals each phase expects.
    pub expected: u32,
    /// Arrivals the current phase still waits for.
    pub pending: u32,
    /// Transaction bytes the current phase still waits for.
    pub tx: u32,
    /// Phases completed.
    pub phase: u32,
}

impl Mbarrier {
    /// `mbarrier.init` with `count`.
    pub fn new(count: u32) -> Mbarrier {
        Mbarrier {
            expected: count,
            pending: count,
            tx: 0,
            phase: 0,
        }
    }

    /// `n` arrivals (`arrive` of `n` threads with a count, or the sum of them).
    pub fn arrive(&mut self, n: u32) {
        self.pending -= n;
        self.settle();
    }

    /// `arrive.expect_tx` by `n` threads adding `bytes` in all: each thread adds its bytes
    /// before it arrives, so the phase cannot complete before the bytes are counted.
    pub fn arrive_tx(&mut self, n: u32, bytes: u32) {
        self.tx += bytes;
        self.arrive(n);
    }

    /// `arrive_drop` of `n` arrivals: this phase's and the following phases' counts drop.
    pub fn drop_arrivals(&mut self, n: u32) {
        self.expected -= n;
        self.arrive(n);
    }

    /// `expect_tx` of `bytes` in all.
    pub fn expect_tx(&mut self, bytes: u32) {
        self.tx += bytes;
    }

    /// `complete_tx` of `bytes` in all.
    pub fn complete_tx(&mut self, bytes: u32) {
        self.tx -= bytes;
        self.settle();
    }

    /// Whether a wait on `parity` succeeds: it is true for the immediately preceding phase
    /// (for a new barrier, the phase "before" it: parity 1).
    pub fn parity_done(&self, parity: u32) -> bool {
        parity != self.phase & 1
    }

    /// Completes the phase if both counts are zero.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
    }
}

impl Protocol for Spec {
    /// The steps kept, in order; `Rest` becomes its `complete_tx` by thread 0 (when
    /// transactions are pending) and its `arrive` with a count.
    type Trace = Vec<Step>;

    fn build(&self) -> (Launch, Vec<Step>) {
        let block = self.block;
        let out_len = (block * SLOTS * 4) as usize;
        let mut trace = Vec::new();
        let text = kernel(Head::hopper(), |k| {
            let mb = k.shared("mb", 8, Type::B64, None)?;
            k.prologue()?;
            let (r7, r21, r22, p0, p3, p4) = (k.r(7), k.r(21), k.r(22), k.p(0), k.p(3), k.p(4));
            let (rd20, rd21) = (k.rd(20), k.rd(21));
            let bar_addr = r7.at(0);
            k.f.mov(Type::U32, (r7, mb))?;
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            k.f.guard(p0)
                .mbarrier_init((Space::Shared, Type::B64), (bar_addr.clone(), self.count))?;
            k.f.bar(Flag::Sync, 0)?;
            let mut bar = Mbarrier::new(self.count);
            // Per thread: the phase of its last arrive's state token.
            let mut token: Vec<Option<u32>> = vec![None; block as usize];
            let mut next = 0u32;
            // Records `reg` (1 + a predicate, or a count) for the threads where %p3 holds.
            let record = |k: &mut K, next: &mut u32, reg| {
                if *next < SLOTS {
                    k.slot_if(p3, reg, SLOTS * 4, *next * 4)?;
                    *next += 1;
                }
                Ok(())
            };
            let members = |w: Who| (0..block).filter(move |&t| w.has(t));
            for step in &self.steps {
                let completed_before = bar.phase;
                match *step {
                    Step::Arrive {
                        who,
                        count,
                        nc,
                        sem,
                    } => {
                        let n = members(who).count() as u32;
                        let total = n * count;
                        if n == 0 || total > bar.pending || (nc && total >= bar.pending) {
                            continue;
                        }
                        trace.push(step.clone());
                        who.emit(k)?;
                        let mut mods: Vec<Modifier> = Vec::new();
                        if nc {
                            mods.push(Flag::NoComplete.into());
                        }
                        if sem {
                            mods.extend([Modifier::from(Sem::Release), Scope::Cta.into()]);
                        }
                        mods.extend([
                            Modifier::from(if sem { Space::SharedCta } else { Space::Shared }),
                            Type::B64.into(),
                        ]);
                        let mut ops = vec![rd20.into(), bar_addr.clone()];
                        if count != 1 || nc || !sem {
                            ops.push(count.into());
                        }
                        k.f.guard(p3).mbarrier_arrive(mods, ops)?;
                        if nc && n == 1 {
                            k.f.guard(p3)
                                .mbarrier_pending_count(Type::B64, (r21, rd20))?;
                            record(k, &mut next, r21)?;
                        }
                        for t in members(who) {
                            token[t as usize] = Some(bar.phase);
                        }
                        bar.arrive(total);
                    }
                    Step::ArriveTx { who, bytes } => {
                        let n = members(who).count() as u32;
                        if n == 0 || n > bar.pending || bar.tx + n * bytes > TX_MAX {
                            continue;
                        }
                        trace.push(step.clone());
                        who.emit(k)?;
                        k.f.guard(p3).mbarrier_arrive(
                            (Flag::ExpectTx, Space::Shared, Type::B64),
                            (rd20, bar_addr.clone(), bytes),
                        )?;
                        for t in members(who) {
                            token[t as usize] = Some(bar.phase);
                        }
                        bar.arrive_tx(n, n * bytes);
                    }
                    Step::Drop { who, count } => {
                        let n = members(who).count() as u32;
                        let total = n * count;
                        if n == 0 || total > bar.pending || total >= bar.expected {
                            continue;
                        }
                        trace.push(step.clone());
                        who.emit(k)?;
                        k.f.guard(p3).mbarrier_arrive_drop(
                            (Space::Shared, Type::B64),
                            (rd21, bar_addr.clone(), count),
                        )?;
                        bar.drop_arrivals(total);
                    }
                    Step::Expect { who, bytes } => {
                        let n = members(who).count() as u32;
                        if n == 0 || bar.tx + n * bytes > TX_MAX {
                            continue;
                        }
                        trace.push(step.clone());
                        who.emit(k)?;
                        k.f.guard(p3).mbarrier_expect_tx(
                            (Sem::Relaxed, Scope::Cta, Space::SharedCta, Type::B64),
                            (bar_addr.clone(), bytes),
                        )?;
                        bar.expect_tx(n * bytes);
                    }
                    Step::Complete { who, bytes } => {
                        let n = members(who).count() as u32;
                        if n == 0 || n * bytes > bar.tx {
                            continue;
                        }
                        trace.push(step.clone());
                        who.emit(k)?;
                        k.f.guard(p3).mbarrier_complete_tx(
                            (Space::Shared, Type::B64),
                            (bar_addr.clone(), bytes),
                        )?;
                        bar.complete_tx(n * bytes);
                    }
                    Step::Rest => {
                        let pending = bar.pending;
                        let Some(c) = (1..=4).find(|&c| pending % c == 0 && pending / c <= block)
                        else {
                            continue;
                        };
                        // With every arrival in, completing the transactions completes the
                        // phase (and the arrive below is of no thread).
                        if bar.tx > 0 {
                            k.f.guard(p0).mbarrier_complete_tx(
                                (Space::SharedCta, Type::B64),
                                (bar_addr.clone(), bar.tx),
                            )?;
                            trace.push(Step::Complete {
                                who: Who::One(0),
                                bytes: bar.tx,
                            });
                            bar.complete_tx(bar.tx);
                        }
                        let who = Who::Below(pending / c);
                        trace.push(Step::Arrive {
                            who,
                            count: c,
                            nc: false,
                            sem: false,
                        });
                        who.emit(k)?;
                        k.f.guard(p3).mbarrier_arrive(
                            (Space::Shared, Type::B64),
                            (rd20, bar_addr.clone(), c),
                        )?;
                        for t in members(who) {
                            token[t as usize] = Some(bar.phase);
                        }
                        bar.arrive(pending);
                    }
                    Step::Parity { parity, try_ } => {
                        trace.push(step.clone());
                        k.f.setp((Cmp::Eq, Type::U32), (p3, k.tx, k.tx))?;
                        let mods = (Flag::Parity, Space::Shared, Type::B64);
                        let ops = (p4, bar_addr.clone(), parity);
                        if try_ && bar.parity_done(parity) {
                            k.f.mbarrier_try_wait(mods, ops)?;
                        } else {
                            k.f.mbarrier_test_wait(mods, ops)?;
                        }
                        k.f.selp(Type::U32, (r22, 2, 1, p4))?;
                        record(k, &mut next, r22)?;
                    }
                    Step::State { who, try_ } => {
                        let ph = bar.phase;
                        let ok =
                            |t: u32| matches!(token[t as usize], Some(p) if p == ph || p + 1 == ph);
                        if members(who).next().is_none() || !members(who).all(ok) {
                            continue;
                        }
                        trace.push(step.clone());
                        // try_wait only where it returns at once (every token's phase
                        // complete).
                        let all_done = members(who).all(|t| token[t as usize] != Some(ph));
                        who.emit(k)?;
                        let mods = (Space::Shared, Type::B64);
                        let ops = (p4, bar_addr.clone(), rd20);
                        if try_ && all_done {
                            k.f.guard(p3).mbarrier_try_wait(mods, ops)?;
                        } else {
                            k.f.guard(p3).mbarrier_test_wait(mods, ops)?;
                        }
                        k.f.selp(Type::U32, (r22, 2, 1, p4))?;
                        record(k, &mut next, r22)?;
                    }
                }
                k.f.bar(Flag::Sync, 0)?;
                if bar.phase != completed_before {
                    // Observe the completed phase before anything else arrives (9.7.13.15.4):
                    // every thread waits on its parity, which returns true at once.
                    let parity = (bar.phase - 1) & 1;
                    let l = k.label()?;
                    k.spin_try_wait(l, true, p4, bar_addr.clone(), parity)?;
                    k.f.bar(Flag::Sync, 0)?;
                }
            }
            k.f.guard(p0)
                .mbarrier_inval((Space::Shared, Type::B64), bar_addr)
        });
        (Launch::new(text, 1, block, vec![0; 4], out_len), trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        })
    }
}
