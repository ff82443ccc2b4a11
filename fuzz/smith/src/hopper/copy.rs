//! `cp.async` (non-bulk): `.ca`/`.cg` copies of 4, 8 and 16 bytes from global to shared memory
//! with `src-size` (zero fill) or `ignore-src`, completed by `cp.async.commit_group` /
//! `wait_group N` / `wait_all` or by `cp.async.mbarrier.arrive{.noinc}` and an mbarrier wait.
//!
//! Each thread copies into its own 64-byte region of shared memory, so threads never race.
//! The builder tracks which copies are still in flight (PTX ISA 9.7.9.25.3: a copy's
//! destination may be read, or written again, only after a wait covers it) and inserts a
//! `cp.async.wait_all` where a drawn step would touch a pending destination, so every step list
//! — including the shrinker's — is well defined.
//!
//! The trace is the copies and the recorded loads in program order (the reference applies them
//! in that order: two copies in flight never overlap, so no wait matters to the values).

use super::kernel::{kernel, vector, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::{CacheOp, Cmp, Flag, Space, Type, Vector};

/// Bytes of shared memory per thread.
pub const REGION: u32 = 64;
/// Bytes of the input buffer (a power of two: source offsets are masked).
pub const IN: u32 = 4096;
/// Loads recorded per thread (4 bytes each): the output holds them per thread, then every
/// thread's region.
pub const LOADS: u32 = 8;

/// How a copy's source bytes are limited.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fill {
    /// All `cp-size` bytes.
    Full,
    /// An immediate `src-size` (at most `cp-size`).
    Imm(u32),
    /// `src-size` in a register: `(tid * mul + add) % (cp-size + 1)`.
    Reg(u32, u32),
    /// `ignore-src` predicate: true where `tid % m == 0`.
    Ignore(u32),
}

/// One step of every thread.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `cp.async` to region offset `dst` from input offset `(src + gtid * stride) % IN`
    /// (aligned down to the size).
    Copy {
        /// Region offset (aligned to `size`).
        dst: u32,
        /// 4, 8 or 16.
        size: u32,
        /// `.cg` (16 bytes only) rather than `.ca`.
        cg: bool,
        /// Source offset base.
        src: u32,
        /// Source stride per thread.
        stride: u32,
        /// Source size.
        fill: Fill,
        /// `.shared::cta` rather than `.shared`.
        cta: bool,
    },
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group n`.
    Wait(u32),
    /// `cp.async.wait_all`.
    WaitAll,
    /// Load of a region word into the next result slot.
    Load(u32),
    /// `cp.async.mbarrier.arrive{.noinc}` (plus an `mbarrier.arrive` without `.noinc`) and a
    /// wait for the phase.
    Mbar {
        /// `.noinc`.
        noinc: bool,
    },
}

/// A generated `cp.async` kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// CTAs.
    pub grid: u32,
    /// Threads per CTA.
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The steps.
    pub ops: Vec<Step>,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let grid = u.int_in_range(1..=2)?;
        let block = 32 * u.int_in_range(1..=3)?;
        let n = u.int_in_range(1..=24)?;
        let mut ops = Vec::new();
        for _ in 0..n {
            let op = match u.int_in_range(0..=9)? {
                0..=3 => {
                    let size = *u.choose(&[4, 8, 16])?;
                    let fill = match u.int_in_range(0..=5)? {
                        0 | 1 => Fill::Full,
                        2 => Fill::Imm(u.int_in_range(0..=size)?),
                        3 | 4 => Fill::Reg(u.int_in_range(0..=7)?, u.int_in_range(0..=16)?),
                        _ => Fill::Ignore(u.int_in_range(1..=3)?),
                    };
                    Step::Copy {
                        dst: u.int_in_range(0..=REGION / size - 1)? * size,
                        size,
                        cg: size == 16 && u.arbitrary()?,
                        src: u.int_in_range(0..=IN - 1)?,
                        stride: *u.choose(&[0, 4, 8, 16, 20, 64])?,
                        fill,
                        cta: u.arbitrary()?,
                    }
                }
                4 => Step::Commit,
                5 => Step::Wait(u.int_in_range(0..=2)?),
                6 => Step::WaitAll,
                7 | 8 => Step::Load(u.int_in_range(0..=REGION / 4 - 1)? * 4),
                _ => Step::Mbar {
                    noinc: u.arbitrary()?,
                },
            };
            ops.push(op);
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            grid,
            block,
            input,
            ops,
        })
    }
}

/// A copy in flight: its destination range in the region and its group (None: not committed).
struct Pending {
    lo: u32,
    hi: u32,
    group: Option<u32>,
}

impl Protocol for Spec {
    /// The copies ([`Step::Copy`]) and the recorded loads ([`Step::Load`]), in program order.
    type Trace = Vec<Step>;

    fn build(&self) -> (Launch, Vec<Step>) {
        let threads = self.grid * self.block;
        let slots = threads * LOADS * 4;
        let smem = self.block * REGION;
        let out_len = (slots + self.grid * smem) as usize;
        let mut trace = Vec::new();
        let text = kernel(Head::hopper(), |k| {
            let sm = k.shared("sm", 16, Type::B8, Some(smem))?;
            let mb = k.shared("mb", 8, Type::B64, None)?;
            k.prologue()?;
            let (r4, r5, r6, r7) = (k.r(4), k.r(5), k.r(6), k.r(7));
            let (r10, r11, r12, r13, rd10) = (k.r(10), k.r(11), k.r(12), k.r(13), k.rd(10));
            let (p0, p1) = (k.p(0), k.p(1));
            // %r5: this thread's region; the region is zeroed first (shared memory starts
            // undefined).
            k.f.mov(Type::U32, (r4, sm))?;
            k.f.mad((Flag::Lo, Type::U32), (r5, k.tx, REGION, r4))?;
            k.f.mov(Type::U32, (r6, 0))?;
            for w in (0..REGION).step_by(16) {
                k.f.st(
                    (Space::Shared, Vector::V4, Type::U32),
                    (r5.at(w.into()), vector([r6; 4])),
                )?;
            }
            k.f.mov(Type::U32, (r7, mb))?;
            k.f.setp((Cmp::Eq, Type::U32), (p0, k.tx, 0))?;
            k.f.guard(p0)
                .mbarrier_init((Space::SharedCta, Type::B64), (r7.at(0), self.block))?;
            k.f.bar(Flag::Sync, 0)?;

            let mut pending: Vec<Pending> = Vec::new();
            let (mut groups, mut phase) = (0u32, 0u32);
            let mut nload = 0;
            let wait_all = |k: &mut K, pending: &mut Vec<Pending>, groups: &mut u32| {
                if pending.iter().any(|p| p.group.is_none()) {
                    *groups += 1;
                }
                pending.clear();
                k.f.cp_async_wait_all((), ())
            };
            for op in &self.ops {
                match *op {
                    Step::Copy {
                        dst,
                        size,
                        cg,
                        src,
                        stride,
                        fill,
                        cta,
                    } => {
                        if pending.iter().any(|p| p.lo < dst + size && dst < p.hi) {
                            wait_all(k, &mut pending, &mut groups)?;
                        }
                        let mask = (IN - 1) & !(size - 1);
                        k.f.mad((Flag::Lo, Type::U32), (r10, k.gtid, stride, src))?;
                        k.f.and(Type::B32, (r10, r10, mask))?;
                        k.f.cvt((Type::U64, Type::U32), (rd10, r10))?;
                        k.f.add(Type::S64, (rd10, k.rin, rd10))?;
                        let mut ops = vec![r5.at(dst.into()), rd10.at(0), size.into()];
                        match fill {
                            Fill::Full => {}
                            Fill::Imm(n) => ops.push(n.into()),
                            Fill::Reg(m, a) => {
                                k.f.mad((Flag::Lo, Type::U32), (r11, k.tx, m, a))?;
                                k.f.rem(Type::U32, (r11, r11, size + 1))?;
                                ops.push(r11.into());
                            }
                            Fill::Ignore(m) => {
                                k.f.rem(Type::U32, (r12, k.tx, m))?;
                                k.f.setp((Cmp::Eq, Type::U32), (p1, r12, 0))?;
                                ops.push(p1.into());
                            }
                        }
                        let (cache, shared) = (
                            if cg { CacheOp::Cg } else { CacheOp::Ca },
                            if cta { Space::SharedCta } else { Space::Shared },
                        );
                        k.f.cp_async((cache, shared, Space::Global), ops)?;
                        trace.push(*op);
                        pending.push(Pending {
                            lo: dst,
                            hi: dst + size,
                            group: None,
                        });
                    }
                    Step::Commit => {
                        k.f.cp_async_commit_group((), ())?;
                        for p in pending.iter_mut().filter(|p| p.group.is_none()) {
                            p.group = Some(groups);
                        }
                        groups += 1;
                    }
                    Step::Wait(n) => {
                        k.f.cp_async_wait_group((), n)?;
                        // Groups older than the newest n are complete; uncommitted copies are
                        // not.
                        pending.retain(|p| p.group.is_none_or(|g| g + n >= groups));
                    }
                    Step::WaitAll => wait_all(k, &mut pending, &mut groups)?,
                    Step::Load(off) => {
                        if nload == LOADS {
                            continue;
                        }
                        if pending.iter().any(|p| p.lo < off + 4 && off < p.hi) {
                            wait_all(k, &mut pending, &mut groups)?;
                        }
                        k.f.ld((Space::Shared, Type::U32), (r13, r5.at(off.into())))?;
                        k.slot(r13, LOADS * 4, nload * 4)?;
                        trace.push(*op);
                        nload += 1;
                    }
                    Step::Mbar { noinc } => {
                        if noinc {
                            k.f.cp_async_mbarrier_arrive(
                                (Flag::NoInc, Space::SharedCta, Type::B64),
                                r7.at(0),
                            )?;
                        } else {
                            k.f.cp_async_mbarrier_arrive((Space::Shared, Type::B64), r7.at(0))?;
                            k.f.mbarrier_arrive(
                                (Space::SharedCta, Type::B64),
                                (k.rd(11), r7.at(0)),
                            )?;
                        }
                        k.wait_phase(phase)?;
                        phase += 1;
                        // The mbarrier tracks every earlier cp.async of the thread.
                        pending.clear();
                    }
                }
            }
            k.f.cp_async_wait_all((), ())?;
            k.f.bar(Flag::Sync, 0)?;
            k.dump_shared(r4, smem, self.block, slots.into())
        });
        let launch = Launch::new(text, self.grid, self.block, self.input.clone(), out_len);
        (launch, trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        let mut v = Vec::new();
        if self.grid > 1 || self.block > 32 {
            v.push(Spec {
                grid: 1,
                block: 32,
                ..self.clone()
            });
        }
        for k in 0..self.ops.len() {
            let mut s = self.clone();
            s.ops.remove(k);
            v.push(s);
        }
        v
    }
}
