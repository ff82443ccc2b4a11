//! Warp-wide matrix instructions: `ldmatrix`/`stmatrix` `.m8n8.x1/.x2/.x4{.trans}.shared.b16`,
//! `movmatrix.m8n8.trans.b16`, and integer `mma.sync.aligned` `.m16n8k16`/`.m16n8k32`
//! `.row.col` on `s8`/`u8` with an `s32` accumulator, wrapping or `.satfinite`.
//!
//! Each warp works on its own 1 KiB of shared memory, filled from the input; `stmatrix` steps
//! whose rows would overlap are left out (the order of the overlapping writes would not be
//! defined).
//!
//! Reference: the fragment layouts of the PTX ISA's figures written as index formulas
//! (9.7.14.5: for `m8n8` matrices lane `l` holds row `l / 4`, columns `2 (l % 4)` and
//! `2 (l % 4) + 1`, transposed with `.trans`; for `mma`, `groupID = l / 4`,
//! `threadID_in_group = l % 4` and the per-shape row/column rules of the integer fragments),
//! and the matrix product in `i64` arithmetic, then wrapped or saturated to `s32`.

use super::{input, le32, Asm, Kernel, Protocol};
use arbitrary::Unstructured;

const REGION: u32 = 1024;
const IN: u32 = 4096;
const SLOTS: u32 = 16;

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
    warps: u32,
    input: Vec<u8>,
    steps: Vec<Step>,
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

/// The `u16` element at shared offset `at` of a warp's region.
fn get16(m: &[u8], at: u32) -> u32 {
    u16::from_le_bytes([m[at as usize], m[at as usize + 1]]) as u32
}

/// Lane `l`'s register of an `m8n8` fragment of matrix `e(row, col)` (PTX ISA 9.7.14.5.15 and
/// the `ldmatrix` description): row `l / 4`, columns `2 (l % 4)` (low half) and `+1` (high).
fn frag(l: u32, e: impl Fn(u32, u32) -> u32) -> u32 {
    let (r, c) = (l / 4, 2 * (l % 4));
    e(r, c) | e(r, c + 1) << 16
}

impl Protocol for Spec {
    fn build(&self) -> Kernel {
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
        let mut mem: Vec<Vec<u8>> = (0..self.warps as usize)
            .map(|w| self.input[w * REGION as usize..(w + 1) * REGION as usize].to_vec())
            .collect();
        let mut slots = vec![vec![0u32; SLOTS as usize]; block as usize];
        let mut next = 0u32;
        // Input words of the register operands: thread t's word j is word (t * 8 + j + k) of
        // the input's upper half.
        let nw = IN / 8;
        let word = |l: u32, j: u32, k: u32| {
            le32(&self.input, (IN / 2 + ((l * 8 + j + k) % nw) * 4) as usize)
        };
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
                    for w in 0..self.warps {
                        let m = &mem[w as usize];
                        for l in 0..32 {
                            for i in 0..num {
                                let e = |r: u32, c: u32| {
                                    let (r, c) = if trans { (c, r) } else { (r, c) };
                                    get16(m, base[i as usize] + r * stride + 2 * c)
                                };
                                slots[(w * 32 + l) as usize][(next - num + i) as usize] =
                                    frag(l, e);
                            }
                        }
                    }
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
                    for w in 0..self.warps {
                        let m = &mut mem[w as usize];
                        for l in 0..32 {
                            for i in 0..num {
                                let v = word(w * 32 + l, i, k);
                                let (r, c) = (l / 4, 2 * (l % 4));
                                for (h, c) in [c, c + 1].into_iter().enumerate() {
                                    let (r, c) = if trans { (c, r) } else { (r, c) };
                                    let at = (base[i as usize] + r * stride + 2 * c) as usize;
                                    let half = (v >> (16 * h)) as u16;
                                    m[at..at + 2].copy_from_slice(&half.to_le_bytes());
                                }
                            }
                        }
                    }
                }
                Step::Mov(k) => {
                    load_regs(&mut a, 40, 1, k);
                    a.i("movmatrix.sync.aligned.m8n8.trans.b16 %r44, %r40;");
                    record(&mut a, &mut next, 44, 1);
                    for w in 0..self.warps {
                        // Element (r, c) of the source is in lane 4r + c/2, half c % 2.
                        let src = |r: u32, c: u32| {
                            word(w * 32 + 4 * r + c / 2, 0, k) >> (16 * (c % 2)) & 0xffff
                        };
                        for l in 0..32 {
                            slots[(w * 32 + l) as usize][next as usize - 1] =
                                frag(l, |r, c| src(c, r));
                        }
                    }
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
                    for w in 0..self.warps {
                        let lane = |l: u32| w * 32 + l;
                        let byte = |v: u32, b: u32, s: bool| {
                            let x = (v >> (8 * b)) & 0xff;
                            if s {
                                x as u8 as i8 as i64
                            } else {
                                x as i64
                            }
                        };
                        // A (16 x k) and B (k x 8) from the fragments.
                        let mut am = vec![vec![0i64; k as usize]; 16];
                        let mut bm = vec![vec![0i64; 8]; k as usize];
                        let mut cm = vec![vec![0i64; 8]; 16];
                        for l in 0..32 {
                            let (g, t) = (l / 4, l % 4);
                            for i in 0..4 * na {
                                let row = if (i / 4) % 2 == 0 { g } else { g + 8 };
                                let col = t * 4 + i % 4 + if i >= 8 { 16 } else { 0 };
                                am[row as usize][col as usize] =
                                    byte(word(lane(l), i / 4, shift), i % 4, sa);
                            }
                            for i in 0..4 * nb {
                                let row = t * 4 + i % 4 + if i >= 4 { 16 } else { 0 };
                                bm[row as usize][g as usize] =
                                    byte(word(lane(l), i / 4, shift + 4), i % 4, sb);
                            }
                            for i in 0..4 {
                                let row = if i < 2 { g } else { g + 8 };
                                cm[row as usize][(t * 2 + i % 2) as usize] =
                                    word(lane(l), i, shift + 6) as i32 as i64;
                            }
                        }
                        for l in 0..32 {
                            let (g, t) = (l / 4, l % 4);
                            for i in 0..4 {
                                let (row, col) = (if i < 2 { g } else { g + 8 }, t * 2 + i % 2);
                                let dot: i64 = (0..k as usize)
                                    .map(|x| am[row as usize][x] * bm[x][col as usize])
                                    .sum::<i64>()
                                    + cm[row as usize][col as usize];
                                let d = if sat {
                                    dot.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                                } else {
                                    dot as i32
                                };
                                slots[lane(l) as usize][(next - 4 + i) as usize] = d as u32;
                            }
                        }
                    }
                }
            }
        }
        a.i("bar.sync 0;");
        a.i("mov.u32 %r17, sm;");
        a.dump_shared("%r17", self.warps * REGION, block, slot_bytes as u64);
        let text = a.finish();
        let mut expected = vec![0u8; out_len];
        for (g, s) in slots.iter().enumerate() {
            for (j, v) in s.iter().enumerate() {
                let at = (g * SLOTS as usize + j) * 4;
                expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        for (w, m) in mem.iter().enumerate() {
            let at = slot_bytes as usize + w * REGION as usize;
            expected[at..at + REGION as usize].copy_from_slice(m);
        }
        Kernel::known(text, 1, block, self.input.clone(), expected)
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
