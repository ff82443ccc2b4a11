//! Warp-wide matrix instructions: `ldmatrix`/`stmatrix` `.m8n8.x1/.x2/.x4{.trans}.shared.b16`,
//! `movmatrix.m8n8.trans.b16`, and integer `mma.sync.aligned` `.m16n8k16`/`.m16n8k32`
//! `.row.col` on `s8`/`u8` with an `s32` accumulator, wrapping or `.satfinite`.
//!
//! Each warp works on its own 1 KiB of shared memory, filled from the input; `stmatrix` steps
//! whose rows would overlap are left out (the order of the overlapping writes would not be
//! defined).
//!
//! The trace is the steps kept (a step that finds too few result slots is left out too).

use super::kernel::{kernel, shape, vector, Head, K};
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::{Cmp, Count, Flag, Layout, Space, Type, Vector};

/// Bytes of shared memory per warp (filled from the input, dumped to the output after the
/// slots).
pub const REGION: u32 = 1024;
/// Bytes of the input buffer: the first half fills shared memory, register operands come from
/// the second.
pub const IN: u32 = 4096;
/// Result slots per thread (4 bytes each).
pub const SLOTS: u32 = 16;

/// One warp-wide step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `ldmatrix` of `num` matrices with rows at `base[i] + r * stride`.
    Ld {
        /// 1, 2 or 4.
        num: u32,
        /// `.trans`.
        trans: bool,
        /// Row 0 of each matrix.
        base: [u32; 4],
        /// Row stride.
        stride: u32,
    },
    /// `stmatrix` of `num` matrices of input words (shift `k`).
    St {
        /// 1, 2 or 4.
        num: u32,
        /// `.trans`.
        trans: bool,
        /// Row 0 of each matrix.
        base: [u32; 4],
        /// Row stride.
        stride: u32,
        /// Which input words.
        k: u32,
    },
    /// `movmatrix` of an input word (shift `k`).
    Mov(u32),
    /// Integer `mma.sync`.
    Mma {
        /// K: 16 or 32.
        k: u32,
        /// A is signed.
        sa: bool,
        /// B is signed.
        sb: bool,
        /// `.satfinite`.
        sat: bool,
        /// Which input words.
        shift: u32,
    },
}

/// A generated matrix kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Warps of the one CTA.
    pub warps: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The steps.
    pub steps: Vec<Step>,
}

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let warps = u.int_in_range(1..=2)?;
        let mut steps = Vec::new();
        for _ in 0..u.int_in_range(1..=8)? {
            let num = *u.choose(&[1, 2, 4])?;
            let trans = u.arbitrary()?;
            let stride = 16 * u.int_in_range(1..=4)?;
            let mut base = [0; 4];
            for b in &mut base {
                *b = 16 * u.int_in_range(0..=(REGION - 7 * stride - 16) / 16)?;
            }
            let k = u.int_in_range(0..=255)?;
            steps.push(match u.int_in_range(0..=6)? {
                0 | 1 => Step::Ld {
                    num,
                    trans,
                    base,
                    stride,
                },
                2 | 3 => Step::St {
                    num,
                    trans,
                    base,
                    stride,
                    k,
                },
                4 => Step::Mov(k),
                _ => Step::Mma {
                    k: *u.choose(&[16, 32])?,
                    sa: u.arbitrary()?,
                    sb: u.arbitrary()?,
                    sat: u.arbitrary()?,
                    shift: k,
                },
            });
        }
        let input = input(u, IN as usize)?;
        Ok(Spec {
            warps,
            input,
            steps,
        })
    }
}

impl Protocol for Spec {
    /// The steps kept, in order.
    type Trace = Vec<Step>;

    fn build(&self) -> (Launch, Vec<Step>) {
        let block = 32 * self.warps;
        let slot_bytes = block * SLOTS * 4;
        let out_len = (slot_bytes + self.warps * REGION) as usize;
        let mut trace = Vec::new();
        let text = kernel(Head::hopper(), |k| {
            let sm = k.shared("sm", 16, Type::B8, Some(self.warps * REGION))?;
            k.prologue()?;
            let (r4, r5, r6, r7, r8, r13) = (k.r(4), k.r(5), k.r(6), k.r(7), k.r(8), k.r(13));
            let (r14, r15, r16, r17) = (k.r(14), k.r(15), k.r(16), k.r(17));
            let (rd7, rd13, p6) = (k.rd(7), k.rd(13), k.p(6));
            let regs = |k: &K, first: u32, n: u32| vector((first..first + n).map(|i| k.r(i)));
            // %r4: the warp's region; %r5: lane. Fill it from the input (32 bytes per lane).
            k.f.mov(Type::U32, (r4, sm))?;
            k.f.shr(Type::U32, (r6, k.tx, 5))?;
            k.f.mad((Flag::Lo, Type::U32), (r4, r6, REGION, r4))?;
            k.f.and(Type::B32, (r5, k.tx, 31))?;
            k.f.shl(Type::B32, (r7, k.tx, 5))?;
            k.f.cvt((Type::U64, Type::U32), (rd7, r7))?;
            k.f.add(Type::S64, (rd7, k.rin, rd7))?;
            k.f.shl(Type::B32, (r8, r5, 5))?;
            k.f.add(Type::U32, (r8, r4, r8))?;
            for w in [0, 16] {
                let v = regs(k, 9, 4);
                k.f.ld(
                    (Space::Global, Vector::V4, Type::U32),
                    (v.clone(), rd7.at(w)),
                )?;
                k.f.st((Space::Shared, Vector::V4, Type::U32), (r8.at(w), v))?;
            }
            k.f.bar_warp_sync((), -1)?;
            let mut next = 0u32;
            // Input words of the register operands: thread t's word j is word (t * 8 + j + k)
            // of the input's upper half.
            let nw = IN / 8;
            let load_regs = |k: &mut K, first: u32, n: u32, shift: u32| {
                for j in 0..n {
                    k.f.mad((Flag::Lo, Type::U32), (r13, k.tx, 8, j + shift))?;
                    k.f.rem(Type::U32, (r13, r13, nw))?;
                    k.f.mul((Flag::Wide, Type::U32), (rd13, r13, 4))?;
                    k.f.add(Type::S64, (rd13, k.rin, rd13))?;
                    let d = k.r(first + j);
                    k.f.ld((Space::Global, Type::U32), (d, rd13.at((IN / 2).into())))?;
                }
                Ok(())
            };
            // Lane address of an m8n8 step: lanes 8i..8i+8 give matrix i's rows (the others a
            // valid address too).
            let addresses = |k: &mut K, base: &[u32; 4], stride: u32, num: u32| {
                k.f.and(Type::B32, (r14, r5, 7))?;
                k.f.mul((Flag::Lo, Type::U32), (r14, r14, stride))?;
                k.f.shr(Type::U32, (r15, r5, 3))?;
                k.f.mov(Type::U32, (r16, base[0]))?;
                for (i, &b) in base.iter().enumerate().take(num as usize).skip(1) {
                    k.f.setp((Cmp::Eq, Type::U32), (p6, r15, i as u32))?;
                    k.f.guard(p6).mov(Type::U32, (r16, b))?;
                }
                k.f.add(Type::U32, (r14, r14, r16))?;
                k.f.add(Type::U32, (r14, r14, r4))
            };
            let record = |k: &mut K, next: &mut u32, first: u32, n: u32| {
                for j in 0..n {
                    k.slot(k.r(first + j), SLOTS * 4, (*next + j) * 4)?;
                }
                *next += n;
                Ok(())
            };
            let m8n8 = shape(8, 8, 0)?;
            // `.sync.aligned.m8n8.x{num}{.trans}.shared.b16`, the qualifiers of ldmatrix and
            // stmatrix alike.
            let mods = |num: u32, trans: bool| {
                let count = match num {
                    1 => Count::X1,
                    2 => Count::X2,
                    _ => Count::X4,
                };
                (
                    Flag::Sync,
                    Flag::Aligned,
                    m8n8,
                    count,
                    trans.then_some(Flag::Trans),
                    Space::Shared,
                    Type::B16,
                )
            };
            for step in &self.steps {
                let need = match step {
                    Step::Ld { num, .. } => *num,
                    Step::St { .. } => 0,
                    Step::Mov(_) => 1,
                    Step::Mma { .. } => 4,
                };
                if next + need > SLOTS {
                    continue;
                }
                match *step {
                    Step::Ld {
                        num,
                        trans,
                        ref base,
                        stride,
                    } => {
                        addresses(k, base, stride, num)?;
                        k.f.ldmatrix(mods(num, trans), (regs(k, 40, num), r14.at(0)))?;
                        record(k, &mut next, 40, num)?;
                        trace.push(step.clone());
                    }
                    Step::St {
                        num,
                        trans,
                        ref base,
                        stride,
                        k: shift,
                    } => {
                        let rows: Vec<u32> = (0..num)
                            .flat_map(|i| (0..8).map(move |r| base[i as usize] + r * stride))
                            .collect();
                        if rows
                            .iter()
                            .enumerate()
                            .any(|(x, &p)| rows[..x].iter().any(|&q| p < q + 16 && q < p + 16))
                        {
                            continue;
                        }
                        load_regs(k, 40, num, shift)?;
                        addresses(k, base, stride, num)?;
                        k.f.stmatrix(mods(num, trans), (r14.at(0), regs(k, 40, num)))?;
                        k.f.bar_warp_sync((), -1)?;
                        trace.push(step.clone());
                    }
                    Step::Mov(shift) => {
                        load_regs(k, 40, 1, shift)?;
                        k.f.movmatrix(
                            (Flag::Sync, Flag::Aligned, m8n8, Flag::Trans, Type::B16),
                            (k.r(44), k.r(40)),
                        )?;
                        record(k, &mut next, 44, 1)?;
                        trace.push(step.clone());
                    }
                    Step::Mma {
                        k: kk,
                        sa,
                        sb,
                        sat,
                        shift,
                    } => {
                        let (na, nb) = if kk == 16 { (2, 1) } else { (4, 2) };
                        load_regs(k, 40, na, shift)?;
                        load_regs(k, 44, nb, shift + 4)?;
                        load_regs(k, 46, 4, shift + 6)?;
                        let ty = |s: bool| if s { Type::S8 } else { Type::U8 };
                        let mods = (
                            Flag::Sync,
                            Flag::Aligned,
                            shape(16, 8, kk)?,
                            Layout::Row,
                            Layout::Col,
                            sat.then_some(Flag::SatFinite),
                            Type::S32,
                            [ty(sa).into(), ty(sb).into(), Type::S32.into()],
                        );
                        let ops = (
                            regs(k, 50, 4),
                            regs(k, 40, na),
                            regs(k, 44, nb),
                            regs(k, 46, 4),
                        );
                        k.f.mma(mods, ops)?;
                        record(k, &mut next, 50, 4)?;
                        trace.push(step.clone());
                    }
                }
            }
            k.f.bar(Flag::Sync, 0)?;
            k.f.mov(Type::U32, (r17, sm))?;
            k.dump_shared(r17, self.warps * REGION, block, slot_bytes.into())
        });
        let launch = Launch::new(text, 1, block, self.input.clone(), out_len);
        (launch, trace)
    }

    fn smaller(&self) -> Vec<Spec> {
        let mut v: Vec<Spec> = super::drop_each(self, self.steps.len(), |s, k| {
            s.steps.remove(k);
        });
        if self.warps > 1 {
            v.push(Spec {
                warps: 1,
                ..self.clone()
            });
        }
        v
    }
}
