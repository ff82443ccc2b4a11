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

use super::asm::Asm;
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;

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
        let mut a = Asm::new(
            "",
            &[
                format!(".shared .align 16 .b8 sm[{smem}];"),
                ".shared .align 8 .b64 mb;".to_string(),
            ],
        );
        // %r5: this thread's region; the region is zeroed first (shared memory starts
        // undefined).
        a.i("mov.u32 %r4, sm;");
        a.i(format!("mad.lo.u32 %r5, %tx, {REGION}, %r4;"));
        a.i("mov.u32 %r6, 0;");
        for w in (0..REGION).step_by(16) {
            a.i(format!(
                "st.shared.v4.u32 [%r5+{w}], {{%r6, %r6, %r6, %r6}};"
            ));
        }
        a.i("mov.u32 %r7, mb;");
        a.i("setp.eq.u32 %p0, %tx, 0;");
        a.i(format!(
            "@%p0 mbarrier.init.shared::cta.b64 [%r7], {};",
            self.block
        ));
        a.i("bar.sync 0;");

        let mut trace = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        let (mut groups, mut phase) = (0u32, 0u32);
        let mut nload = 0;
        let wait_all = |a: &mut Asm, pending: &mut Vec<Pending>, groups: &mut u32| {
            a.i("cp.async.wait_all;");
            if pending.iter().any(|p| p.group.is_none()) {
                *groups += 1;
            }
            pending.clear();
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
                        wait_all(&mut a, &mut pending, &mut groups);
                    }
                    let mask = (IN - 1) & !(size - 1);
                    a.i(format!("mad.lo.u32 %r10, %gtid, {stride}, {src};"));
                    a.i(format!("and.b32 %r10, %r10, {mask};"));
                    a.i("cvt.u64.u32 %rd10, %r10;");
                    a.i("add.s64 %rd10, %rin, %rd10;");
                    let extra = match fill {
                        Fill::Full => String::new(),
                        Fill::Imm(n) => format!(", {n}"),
                        Fill::Reg(m, k) => {
                            a.i(format!("mad.lo.u32 %r11, %tx, {m}, {k};"));
                            a.i(format!("rem.u32 %r11, %r11, {};", size + 1));
                            ", %r11".to_string()
                        }
                        Fill::Ignore(m) => {
                            a.i(format!("rem.u32 %r12, %tx, {m};"));
                            a.i("setp.eq.u32 %p1, %r12, 0;");
                            ", %p1".to_string()
                        }
                    };
                    a.i(format!(
                        "cp.async.{}.shared{}.global [%r5+{dst}], [%rd10], {size}{extra};",
                        if cg { "cg" } else { "ca" },
                        if cta { "::cta" } else { "" }
                    ));
                    trace.push(*op);
                    pending.push(Pending {
                        lo: dst,
                        hi: dst + size,
                        group: None,
                    });
                }
                Step::Commit => {
                    a.i("cp.async.commit_group;");
                    for p in pending.iter_mut().filter(|p| p.group.is_none()) {
                        p.group = Some(groups);
                    }
                    groups += 1;
                }
                Step::Wait(n) => {
                    a.i(format!("cp.async.wait_group {n};"));
                    // Groups older than the newest n are complete; uncommitted copies are not.
                    pending.retain(|p| p.group.is_none_or(|g| g + n >= groups));
                }
                Step::WaitAll => wait_all(&mut a, &mut pending, &mut groups),
                Step::Load(off) => {
                    if nload == LOADS {
                        continue;
                    }
                    if pending.iter().any(|p| p.lo < off + 4 && off < p.hi) {
                        wait_all(&mut a, &mut pending, &mut groups);
                    }
                    a.i(format!("ld.shared.u32 %r13, [%r5+{off}];"));
                    a.slot("%r13", LOADS * 4, nload * 4);
                    trace.push(*op);
                    nload += 1;
                }
                Step::Mbar { noinc } => {
                    if noinc {
                        a.i("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r7];");
                    } else {
                        a.i("cp.async.mbarrier.arrive.shared.b64 [%r7];");
                        a.i("mbarrier.arrive.shared::cta.b64 %rd11, [%r7];");
                    }
                    a.wait_phase(phase);
                    phase += 1;
                    // The mbarrier tracks every earlier cp.async of the thread.
                    pending.clear();
                }
            }
        }
        a.i("cp.async.wait_all;");
        a.i("bar.sync 0;");
        a.dump_shared("%r4", smem, self.block, slots as u64);
        let launch = Launch::new(
            a.finish(),
            self.grid,
            self.block,
            self.input.clone(),
            out_len,
        );
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
