//! Warp-wide matrix instructions: `ldmatrix`/`stmatrix` `.m8n8.x1/.x2/.x4{.trans}.shared.b16`,
//! `movmatrix.m8n8.trans.b16`, and integer `mma.sync.aligned` `.m16n8k16`/`.m16n8k32`
//! `.row.col` on `s8`/`u8` with an `s32` accumulator, wrapping or `.satfinite`.
//!
//! Each warp works on its own 1 KiB of shared memory, filled from the input; `stmatrix` steps
//! whose rows would overlap are left out (the order of the overlapping writes would not be
//! defined).
//!
//! The trace is the steps kept (a step that finds too few result slots is left out too).

use super::asm::Asm;
use super::{input, Launch, Protocol};
use arbitrary::Unstructured;

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
        let mut a = Asm::new(
            "",
            &[format!(
                ".shared .align 16 .b8 sm[{}];",
                self.warps * REGION
            )],
        );
        // %r4: the warp's region; %r5: lane. Fill it from the input (32 bytes per lane).
        a.i("mov.u32 %r4, sm;");
        a.i("shr.u32 %r6, %tx, 5;");
        a.i(format!("mad.lo.u32 %r4, %r6, {REGION}, %r4;"));
        a.i("and.b32 %r5, %tx, 31;");
        a.i("shl.b32 %r7, %tx, 5;");
        a.i("cvt.u64.u32 %rd7, %r7;");
        a.i("add.s64 %rd7, %rin, %rd7;");
        a.i("shl.b32 %r8, %r5, 5;");
        a.i("add.u32 %r8, %r4, %r8;");
        for w in [0, 16] {
            a.i(format!(
                "ld.global.v4.u32 {{%r9, %r10, %r11, %r12}}, [%rd7+{w}];"
            ));
            a.i(format!(
                "st.shared.v4.u32 [%r8+{w}], {{%r9, %r10, %r11, %r12}};"
            ));
        }
        a.i("bar.warp.sync -1;");
        let mut trace = Vec::new();
        let mut next = 0u32;
        // Input words of the register operands: thread t's word j is word (t * 8 + j + k) of
        // the input's upper half.
        let nw = IN / 8;
        let load_regs = |a: &mut Asm, first: u32, n: u32, k: u32| {
            for j in 0..n {
                a.i(format!("mad.lo.u32 %r13, %tx, 8, {};", j + k));
                a.i(format!("rem.u32 %r13, %r13, {nw};"));
                a.i("mul.wide.u32 %rd13, %r13, 4;");
                a.i("add.s64 %rd13, %rin, %rd13;");
                a.i(format!(
                    "ld.global.u32 %r{}, [%rd13+{}];",
                    first + j,
                    IN / 2
                ));
            }
        };
        // Lane address of an m8n8 step: lanes 8i..8i+8 give matrix i's rows (the others a
        // valid address too).
        let addresses = |a: &mut Asm, base: &[u32; 4], stride: u32, num: u32| {
            a.i("and.b32 %r14, %r5, 7;");
            a.i(format!("mul.lo.u32 %r14, %r14, {stride};"));
            a.i("shr.u32 %r15, %r5, 3;");
            a.i(format!("mov.u32 %r16, {};", base[0]));
            for (i, b) in base.iter().enumerate().take(num as usize).skip(1) {
                a.i(format!("setp.eq.u32 %p6, %r15, {i};"));
                a.i(format!("@%p6 mov.u32 %r16, {b};"));
            }
            a.i("add.u32 %r14, %r14, %r16;");
            a.i("add.u32 %r14, %r14, %r4;");
        };
        let regs = |first: u32, n: u32| {
            (first..first + n)
                .map(|r| format!("%r{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let record = |a: &mut Asm, next: &mut u32, first: u32, n: u32| {
            for j in 0..n {
                a.slot(&format!("%r{}", first + j), SLOTS * 4, (*next + j) * 4);
            }
            *next += n;
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
                    addresses(&mut a, base, stride, num);
                    a.i(format!(
                        "ldmatrix.sync.aligned.m8n8.x{num}{}.shared.b16 {{{}}}, [%r14];",
                        if trans { ".trans" } else { "" },
                        regs(40, num)
                    ));
                    record(&mut a, &mut next, 40, num);
                    trace.push(step.clone());
                }
                Step::St {
                    num,
                    trans,
                    ref base,
                    stride,
                    k,
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
                    load_regs(&mut a, 40, num, k);
                    addresses(&mut a, base, stride, num);
                    a.i(format!(
                        "stmatrix.sync.aligned.m8n8.x{num}{}.shared.b16 [%r14], {{{}}};",
                        if trans { ".trans" } else { "" },
                        regs(40, num)
                    ));
                    a.i("bar.warp.sync -1;");
                    trace.push(step.clone());
                }
                Step::Mov(k) => {
                    load_regs(&mut a, 40, 1, k);
                    a.i("movmatrix.sync.aligned.m8n8.trans.b16 %r44, %r40;");
                    record(&mut a, &mut next, 44, 1);
                    trace.push(step.clone());
                }
                Step::Mma {
                    k,
                    sa,
                    sb,
                    sat,
                    shift,
                } => {
                    let (na, nb) = if k == 16 { (2, 1) } else { (4, 2) };
                    load_regs(&mut a, 40, na, shift);
                    load_regs(&mut a, 44, nb, shift + 4);
                    load_regs(&mut a, 46, 4, shift + 6);
                    let ty = |s: bool| if s { "s8" } else { "u8" };
                    a.i(format!(
                        "mma.sync.aligned.m16n8k{k}.row.col{}.s32.{}.{}.s32 {{{}}}, {{{}}}, {{{}}}, {{{}}};",
                        if sat { ".satfinite" } else { "" },
                        ty(sa),
                        ty(sb),
                        regs(50, 4),
                        regs(40, na),
                        regs(44, nb),
                        regs(46, 4)
                    ));
                    record(&mut a, &mut next, 50, 4);
                    trace.push(step.clone());
                }
            }
        }
        a.i("bar.sync 0;");
        a.i("mov.u32 %r17, sm;");
        a.dump_shared("%r17", self.warps * REGION, block, slot_bytes as u64);
        let launch = Launch::new(a.finish(), 1, block, self.input.clone(), out_len);
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
