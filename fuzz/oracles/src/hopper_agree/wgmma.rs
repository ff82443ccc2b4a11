//! `wgmma.mma_async.sync.aligned` with one warpgroup (128 threads): `m64n8`/`m64n16` `k16`
//! f16/bf16 into `f32` or `f16`, `k8` tf32 into `f32`, and `k32` e4m3/e5m2 (mixed) into
//! `f32` or `f16`. A kernel chains one to three `mma_async` on one accumulator (the first
//! with a random `scale-d`, each with random `imm-scale-a/b` of ±1), B always and A mostly
//! from shared-memory descriptors without swizzle (K-major, in one of two arrangements of the
//! core matrices, or for f16/bf16 MN-major with `imm-trans-a/b` 1), A otherwise from
//! registers; between `wgmma.fence` and one `commit_group` + `wait_group 0`.
//!
//! Reference: the PTX ISA's canonical K-major layout without swizzle (9.7.15.5.1.2: an 8-row
//! by 16-byte core matrix is 128 contiguous bytes; element `(row, k)` is at
//! `start + (row / 8) · SBO + (16-byte chunk of k) · LBO + (row % 8) · 16 + byte in chunk`;
//! MN-major, a core matrix is 8 K-rows of 16 bytes of MN, element `(mn, k)` at
//! `start + (16-byte chunk of mn) · SBO + (k / 8) · LBO + (k % 8) · 16 + byte in chunk`),
//! the descriptor fields of 9.7.15.5.1.2 (start, LBO, SBO >> 4 at bits 0, 16, 32), the
//! register fragments of 9.7.15.5.1 (warp `w` holds rows `16 w ..`, as `mma.m16n8`: `D`
//! element `i` at row `16 w + groupID + 8 ((i / 2) % 2)`, column `8 (i / 4) + 2
//! threadID_in_group + i % 2`) and the arithmetic of [`tcref`].

use super::tcref::{self, Fmt, V};
use super::{le32, Asm, Kernel, Protocol};
use arbitrary::Unstructured;

/// One `mma_async` of the chain.
#[derive(Clone, Debug)]
pub struct Step {
    draw: tcref::Draw,
    /// A from registers.
    a_regs: bool,
    /// `imm-scale-a`, `imm-scale-b` are -1.
    neg_a: bool,
    neg_b: bool,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    n: u32,
    a: Fmt,
    b: Fmt,
    acc: Fmt,
    /// The core-matrix arrangement: K-adjacent core matrices contiguous (LBO = 128) or
    /// row-adjacent ones (SBO = 128).
    k_inner: bool,
    /// A and B MN-major (`imm-trans-a/b` 1; f16/bf16 only).
    mn_major: (bool, bool),
    /// `scale-d` of the first step.
    scale_d: bool,
    c_draw: tcref::Draw,
    steps: Vec<Step>,
}

/// Bytes of one K-row of an operand (K elements).
const ROW: u32 = 32;

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        use Fmt::*;
        let (a, b, acc) = *u.choose(&[
            (F16, F16, F32),
            (F16, F16, F16),
            (Bf16, Bf16, F32),
            (Tf32, Tf32, F32),
            (E4m3, E4m3, F32),
            (E5m2, E4m3, F32),
            (E4m3, E5m2, F16),
            (E5m2, E5m2, F16),
        ])?;
        let n = *u.choose(&[8, 16])?;
        let mut steps = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            steps.push(Step {
                draw: tcref::Draw::arbitrary(u)?,
                a_regs: u.int_in_range(0..=3)? == 0,
                neg_a: u.int_in_range(0..=3)? == 0,
                neg_b: u.int_in_range(0..=3)? == 0,
            });
        }
        Ok(Spec {
            n,
            a,
            b,
            acc,
            k_inner: u.arbitrary()?,
            mn_major: if matches!(a, F16 | Bf16) {
                (u.arbitrary()?, u.arbitrary()?)
            } else {
                (false, false)
            },
            scale_d: u.int_in_range(0..=3)? != 0,
            c_draw: tcref::Draw::arbitrary(u)?,
            steps,
        })
    }

    fn k(&self) -> u32 {
        ROW * 8 / self.a.width()
    }

    /// D registers per thread.
    fn nd(&self) -> u32 {
        if self.acc == Fmt::F16 {
            self.n / 4
        } else {
            self.n / 2
        }
    }

    /// Shared bytes of one step's A (64 rows) and B (N rows).
    fn sizes(&self) -> (u32, u32) {
        (64 * ROW, self.n * ROW)
    }

    /// (LBO, SBO) of an operand of `rows` rows.
    fn lbo_sbo(&self, rows: u32, mn: bool) -> (u32, u32) {
        if mn {
            // MN-major: core matrices of 8 K-rows by 16 bytes of MN, MN-adjacent ones
            // contiguous (SBO 128), K-adjacent ones LBO apart.
            (rows / 8 * 128, 128)
        } else if self.k_inner {
            (128, ROW / 16 * 128)
        } else {
            (rows / 8 * 128, 128)
        }
    }

    /// Byte of element `(row, k)` of an operand of `rows` rows and `esize`-byte elements.
    fn at(&self, rows: u32, row: u32, k: u32, ebits: u32, mn: bool) -> u32 {
        let (lbo, sbo) = self.lbo_sbo(rows, mn);
        if mn {
            let rb = row * ebits / 8;
            let kper = 8;
            return rb / 16 * sbo + k / kper * lbo + k % kper * 16 + rb % 16;
        }
        let kb = k * ebits / 8;
        row / 8 * sbo + kb / 16 * lbo + row % 8 * 16 + kb % 16
    }

    /// Shared bytes in all, the offset of the accumulator words and of the A registers.
    fn layout(&self) -> (u32, u32, u32) {
        let (sa, sb) = self.sizes();
        let sh = self.steps.len() as u32 * (sa + sb);
        (sh, sh, sh + 128 * self.nd() * 4)
    }

    fn input(&self) -> Vec<u8> {
        let (sa, sb) = self.sizes();
        let mut v = Vec::new();
        let pack = |d: &tcref::Draw, f: Fmt, bytes: u32, salt: u64| -> Vec<u8> {
            let w = f.width();
            d.values(f, (bytes * 8 / w) as usize, salt)
                .into_iter()
                .flat_map(|x| x.to_le_bytes()[..(w / 8) as usize].to_vec())
                .collect()
        };
        for s in &self.steps {
            v.extend(pack(&s.draw, self.a, sa, 1));
            v.extend(pack(&s.draw, self.b, sb, 2));
        }
        v.extend(pack(&self.c_draw, self.acc, 128 * self.nd() * 4, 3));
        for s in &self.steps {
            v.extend(pack(&s.draw, self.a, 128 * 16, 4));
        }
        v
    }

    /// The reference: per thread, its D registers.
    fn reference(&self, input: &[u8]) -> Vec<Vec<u32>> {
        let (sa, sb) = self.sizes();
        let (_, c_at, ar_at) = self.layout();
        let (k, n, nd) = (self.k() as usize, self.n as usize, self.nd());
        let (wa, wb) = (self.a.width(), self.b.width());
        let elem = |at: u32, w: u32| -> u32 {
            let at = at as usize;
            match w {
                8 => input[at] as u32,
                16 => u16::from_le_bytes([input[at], input[at + 1]]) as u32,
                _ => le32(input, at),
            }
        };
        // D element i of thread t: (row, column).
        let d_at = |t: u32, i: u32| {
            let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
            (16 * w + g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * q + i % 2)
        };
        let per_c = if self.acc == Fmt::F16 { 2 } else { 1 };
        let mut d = vec![vec![0u32; n]; 64];
        for t in 0..128 {
            for i in 0..self.n / 2 {
                let (r, c) = d_at(t, i);
                let word = le32(input, (c_at + (t * nd + i / per_c) * 4) as usize);
                d[r as usize][c as usize] = if per_c == 2 {
                    word >> (16 * (i % 2)) & 0xffff
                } else {
                    word
                };
            }
        }
        for (s, st) in self.steps.iter().enumerate() {
            let base = s as u32 * (sa + sb);
            let mut am = vec![vec![V::zero(false); k]; 64];
            if st.a_regs {
                let p = 32 / wa;
                for t in 0..128 {
                    let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
                    for j in 0..4 {
                        let x = le32(input, (ar_at + ((s as u32 * 128 + t) * 4 + j) * 4) as usize);
                        for h in 0..p {
                            let r = 16 * w + g + 8 * (j % 2);
                            let c = q * p + h + self.k() / 2 * (j / 2);
                            let e = if wa == 32 {
                                x
                            } else {
                                x >> (h * wa) & ((1 << wa) - 1)
                            };
                            am[r as usize][c as usize] = tcref::decode(e, self.a);
                        }
                    }
                }
            } else {
                for (r, row) in am.iter_mut().enumerate() {
                    for (x, v) in row.iter_mut().enumerate() {
                        let at = base + self.at(64, r as u32, x as u32, wa, self.mn_major.0);
                        *v = tcref::decode(elem(at, wa), self.a);
                    }
                }
            }
            let mut bm = vec![vec![V::zero(false); k]; n];
            for (r, row) in bm.iter_mut().enumerate() {
                for (x, v) in row.iter_mut().enumerate() {
                    let at = base + sa + self.at(self.n, r as u32, x as u32, wb, self.mn_major.1);
                    *v = tcref::decode(elem(at, wb), self.b);
                }
            }
            let keep = s > 0 || self.scale_d;
            for r in 0..64 {
                for c in 0..n {
                    let terms: Vec<(V, V)> = (0..k)
                        .map(|x| {
                            let (a, b) = (am[r][x], bm[c][x]);
                            (
                                if st.neg_a { a.negated() } else { a },
                                if st.neg_b { b.negated() } else { b },
                            )
                        })
                        .collect();
                    let acc = if keep {
                        tcref::decode(d[r][c], self.acc)
                    } else {
                        V::zero(false)
                    };
                    d[r][c] = if wa == 8 {
                        tcref::fp8_wgmma(&terms, acc, self.acc)
                    } else {
                        tcref::mma_block(&terms, acc, self.acc)
                    };
                }
            }
        }
        (0..128)
            .map(|t| {
                let mut regs = vec![0u32; nd as usize];
                for i in 0..self.n / 2 {
                    let (r, c) = d_at(t, i);
                    let x = d[r as usize][c as usize];
                    regs[(i / per_c) as usize] |= if per_c == 2 { x << (16 * (i % 2)) } else { x };
                }
                regs
            })
            .collect()
    }
}

impl Protocol for Spec {
    fn build(&self) -> Kernel {
        let input = self.input();
        let (sa, sb) = self.sizes();
        let (sh, c_at, ar_at) = self.layout();
        let nd = self.nd();
        let mut a = Asm::new(
            "",
            &[
                format!(".shared .align 128 .b8 sm[{sh}];"),
                format!(".reg .b32 %d<{nd}>;"),
            ],
        );
        // Fill shared memory from the input, word tx + 128 i by thread tx.
        a.i("mov.u32 %r1, sm;");
        a.i("shl.b32 %r2, %tx, 2;");
        a.i("add.u32 %r3, %r1, %r2;");
        a.i("cvt.u64.u32 %rd2, %r2;");
        a.i("add.s64 %rd2, %rin, %rd2;");
        for w in (0..sh / 4).step_by(128) {
            let p = if sh / 4 - w < 128 {
                a.i(format!("setp.lt.u32 %p2, %tx, {};", sh / 4 - w));
                "@%p2 "
            } else {
                ""
            };
            a.i(format!("{p}ld.global.u32 %r4, [%rd2+{}];", w * 4));
            a.i(format!("{p}st.shared.u32 [%r3+{}], %r4;", w * 4));
        }
        a.i("fence.proxy.async.shared::cta;");
        a.i("bar.sync 0;");
        a.i(format!("mul.wide.u32 %rd3, %tx, {};", nd * 4));
        a.i("add.s64 %rd3, %rin, %rd3;");
        for i in 0..nd {
            a.i(format!("ld.global.u32 %d{i}, [%rd3+{}];", c_at + 4 * i));
        }
        a.i(format!("setp.ne.u32 %p1, {}, 0;", self.scale_d as u32));
        let d = (0..nd)
            .map(|i| format!("%d{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let desc = |a: &mut Asm, reg: &str, off: u32, rows: u32, mn: bool| {
            let (lbo, sbo) = self.lbo_sbo(rows, mn);
            let con = ((lbo as u64 >> 4) << 16) | ((sbo as u64 >> 4) << 32);
            a.i(format!("add.u32 %r5, %r1, {off};"));
            a.i("shr.u32 %r5, %r5, 4;");
            a.i("and.b32 %r5, %r5, 16383;");
            a.i(format!("cvt.u64.u32 {reg}, %r5;"));
            a.i(format!("or.b64 {reg}, {reg}, {con};"));
        };
        for (s, st) in self.steps.iter().enumerate() {
            let base = s as u32 * (sa + sb);
            if st.a_regs {
                a.i("mul.wide.u32 %rd4, %tx, 16;");
                a.i("add.s64 %rd4, %rin, %rd4;");
                for j in 0..4 {
                    a.i(format!(
                        "ld.global.u32 %r{}, [%rd4+{}];",
                        10 + 4 * s + j,
                        ar_at + s as u32 * 128 * 16 + 4 * j as u32
                    ));
                }
            } else {
                desc(&mut a, &format!("%rd{}", 10 + s), base, 64, self.mn_major.0);
            }
            desc(
                &mut a,
                &format!("%rd{}", 20 + s),
                base + sa,
                self.n,
                self.mn_major.1,
            );
        }
        a.i("wgmma.fence.sync.aligned;");
        let half = matches!(self.a, Fmt::F16 | Fmt::Bf16);
        for (s, st) in self.steps.iter().enumerate() {
            let adesc = if st.a_regs {
                format!(
                    "{{%r{}, %r{}, %r{}, %r{}}}",
                    10 + 4 * s,
                    11 + 4 * s,
                    12 + 4 * s,
                    13 + 4 * s
                )
            } else {
                format!("%rd{}", 10 + s)
            };
            let sc = |n: bool| if n { -1 } else { 1 };
            let mut imm = format!(", {}, {}", sc(st.neg_a), sc(st.neg_b));
            if half {
                let (ta, tb) = (self.mn_major.0 as u32, self.mn_major.1 as u32);
                imm += &if st.a_regs {
                    format!(", {tb}")
                } else {
                    format!(", {ta}, {tb}")
                };
            }
            a.i(format!(
                "wgmma.mma_async.sync.aligned.m64n{}k{}.{}.{}.{} {{{d}}}, {adesc}, %rd{}, {}{imm};",
                self.n,
                self.k(),
                self.acc.name(),
                self.a.name(),
                self.b.name(),
                20 + s,
                if s == 0 { "%p1" } else { "1" },
            ));
        }
        a.i("wgmma.commit_group.sync.aligned;");
        a.i("wgmma.wait_group.sync.aligned 0;");
        for i in 0..nd {
            a.slot(&format!("%d{i}"), nd * 4, 4 * i);
        }
        let mut expected = Vec::new();
        for regs in self.reference(&input) {
            for x in regs {
                expected.extend_from_slice(&x.to_le_bytes());
            }
        }
        Kernel::known(a.finish(), 1, 128, input, expected)
    }

    fn smaller(&self) -> Vec<Spec> {
        // At least one step stays.
        let n = if self.steps.len() > 1 {
            self.steps.len()
        } else {
            0
        };
        let mut v = super::drop_each(self, n, |s, k| {
            s.steps.remove(k);
        });
        if self.n > 8 {
            v.push(Spec {
                n: 8,
                ..self.clone()
            });
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference against the H100's own answers (`corpus/vectors/hopper.jsonl`, family
    /// `wgmma`): the cases with one `mma_async`, A and B K-major without swizzle (A, B and C
    /// in three buffers, LBO 128 and SBO 256 as here with `k_inner`).
    #[test]
    fn reference_matches_gpu() {
        let mut checked = 0;
        for (name, arrays) in tcref::gpu_cases("wgmma.m64n") {
            let f: Vec<&str> = name.split('.').collect();
            if f[5..9] != ["aK", "bK", "sw0", "k1"] {
                continue;
            }
            let (Some(acc), Some(a), Some(b)) = (
                tcref::fmt_named(f[2]),
                tcref::fmt_named(f[3]),
                tcref::fmt_named(f[4]),
            ) else {
                continue;
            };
            let n: u32 = f[1][4..f[1].find('k').expect("k")].parse().expect("n");
            let neg = f[9..]
                .iter()
                .find_map(|x| x.strip_prefix("neg"))
                .unwrap_or("11");
            let spec = Spec {
                n,
                a,
                b,
                acc,
                k_inner: true,
                mn_major: (false, false),
                scale_d: !f[9..].contains(&"nod"),
                c_draw: tcref::Draw::default(),
                steps: vec![Step {
                    draw: tcref::Draw::default(),
                    a_regs: false,
                    neg_a: neg.starts_with('-'),
                    neg_b: neg.ends_with("-1"),
                }],
            };
            let (sa, sb) = spec.sizes();
            let nd = spec.nd();
            let bytes = |w: &[u32], n: u32| -> Vec<u8> {
                w.iter()
                    .flat_map(|x| x.to_le_bytes())
                    .take(n as usize)
                    .collect()
            };
            let mut input = bytes(&arrays[0], sa);
            input.extend(bytes(&arrays[1], sb));
            input.extend(bytes(&arrays[2], 128 * nd * 4));
            let got: Vec<u32> = spec.reference(&input).concat();
            assert_eq!(got, arrays[3][..got.len()], "{name}");
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} GPU cases checked");
    }
}
