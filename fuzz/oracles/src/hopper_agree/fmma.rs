//! Floating-point `mma.sync.aligned.m16n8kK.row.col`: f16/bf16 `k8`/`k16` into `f32` or `f16`,
//! tf32 `k4`/`k8` into `f32`, FP8 (e4m3/e5m2, mixed) `k16`/`k32` into `f32` and `k32` into
//! `f16`. One warp runs one to three of them, each on its own operands from the input buffer
//! (drawn by [`tcref::Draw`]: random, moderate, special or cancelling values), and stores its
//! `D` registers.
//!
//! Reference: the fragment layouts of the PTX ISA's figures (9.7.14.5.7-8, 9.7.14.5.10-11)
//! as index formulas — `groupID = lane / 4`, `threadID_in_group = lane % 4`; A's register `j`
//! holds row `groupID + 8 (j % 2)`, B's register `j` and C's element `i` likewise per shape —
//! and the tensor-core arithmetic of [`tcref`].

use super::tcref::{self, Fmt, V};
use super::{le32, Asm, Kernel, Protocol};
use arbitrary::Unstructured;

/// One `mma.sync` shape and types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// K.
    pub k: u32,
    /// A's element type.
    pub a: Fmt,
    /// B's element type.
    pub b: Fmt,
    /// The accumulator (`F32` or `F16`).
    pub acc: Fmt,
}

/// Every shape generated.
pub const SHAPES: [Shape; 14] = {
    const fn s(k: u32, a: Fmt, b: Fmt, acc: Fmt) -> Shape {
        Shape { k, a, b, acc }
    }
    use Fmt::*;
    [
        s(8, F16, F16, F32),
        s(16, F16, F16, F32),
        s(8, Bf16, Bf16, F32),
        s(16, Bf16, Bf16, F32),
        s(8, F16, F16, F16),
        s(16, F16, F16, F16),
        s(4, Tf32, Tf32, F32),
        s(8, Tf32, Tf32, F32),
        s(16, E4m3, E4m3, F32),
        s(16, E5m2, E4m3, F32),
        s(32, E4m3, E5m2, F32),
        s(32, E5m2, E5m2, F32),
        s(32, E4m3, E4m3, F16),
        s(32, E5m2, E4m3, F16),
    ]
};

impl Shape {
    /// Elements of A/B per 32-bit register.
    fn per(f: Fmt) -> u32 {
        32 / f.width()
    }

    /// Registers of A, B, C/D per lane.
    pub fn regs(&self) -> (u32, u32, u32) {
        let na = 16 * self.k / 32 / Self::per(self.a);
        let nb = 8 * self.k / 32 / Self::per(self.b);
        let nc = if self.acc == Fmt::F16 { 2 } else { 4 };
        (na, nb, nc)
    }

    /// (row, k) of A's element `h` of register `j` in lane `l`.
    pub fn a_at(&self, l: u32, j: u32, h: u32) -> (u32, u32) {
        let (g, t) = (l / 4, l % 4);
        let p = Self::per(self.a);
        (g + 8 * (j % 2), t * p + h + self.k / 2 * (j / 2))
    }

    /// (k, column) of B's element `h` of register `j` in lane `l`.
    pub fn b_at(&self, l: u32, j: u32, h: u32) -> (u32, u32) {
        let (g, t) = (l / 4, l % 4);
        let p = Self::per(self.b);
        (t * p + h + self.k / 2 * j, g)
    }

    /// (row, column) of C/D's element `i` (0..4) in lane `l`.
    pub fn c_at(l: u32, i: u32) -> (u32, u32) {
        let (g, t) = (l / 4, l % 4);
        (g + 8 * (i / 2), 2 * t + i % 2)
    }
}

/// Element `h` (of `w` bits) of a register.
fn elem(x: u32, h: u32, w: u32) -> u32 {
    if w == 32 {
        x
    } else {
        (x >> (h * w)) & ((1 << w) - 1)
    }
}

/// One `mma.sync`: its shape and how its operands are drawn.
#[derive(Clone, Debug)]
pub struct Op {
    shape: Shape,
    draw: tcref::Draw,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    ops: Vec<Op>,
}

/// Words per lane of one operation's operands (A, B, C at most 4 + 2 + 4).
const PER: u32 = 10;

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let mut ops = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            ops.push(Op {
                shape: *u.choose(&SHAPES)?,
                draw: tcref::Draw::arbitrary(u)?,
            });
        }
        Ok(Spec { ops })
    }

    /// The input: per operation, per lane, A's, B's and C's registers.
    fn input(&self) -> Vec<u8> {
        let mut v = Vec::new();
        for (s, op) in self.ops.iter().enumerate() {
            let sh = op.shape;
            let (na, nb, nc) = sh.regs();
            let pack = |f: Fmt, n: u32, salt: u64| -> Vec<u32> {
                let p = 32 / f.width();
                let e = op
                    .draw
                    .values(f, (32 * n * p) as usize, salt ^ (s as u64) << 8);
                e.chunks(p as usize)
                    .map(|c| {
                        c.iter()
                            .enumerate()
                            .fold(0u32, |x, (h, &y)| x | y << (h as u32 * f.width()))
                    })
                    .collect()
            };
            let a = pack(sh.a, na, 1);
            let b = pack(sh.b, nb, 2);
            let c = pack(
                if sh.acc == Fmt::F16 {
                    Fmt::F16
                } else {
                    Fmt::F32
                },
                nc,
                3,
            );
            for l in 0..32usize {
                let mut w = Vec::new();
                w.extend_from_slice(&a[l * na as usize..(l + 1) * na as usize]);
                w.extend_from_slice(&b[l * nb as usize..(l + 1) * nb as usize]);
                w.extend_from_slice(&c[l * nc as usize..(l + 1) * nc as usize]);
                w.resize(PER as usize, 0);
                for x in w {
                    v.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        v
    }
}

/// The reference's `D` (per lane, `nc` registers) of one operation on `words(lane, j)`.
pub fn reference(sh: Shape, words: impl Fn(u32, u32) -> u32) -> Vec<Vec<u32>> {
    let (na, nb, nc) = sh.regs();
    let k = sh.k as usize;
    let mut am = vec![vec![V::zero(false); k]; 16];
    let mut bm = vec![vec![V::zero(false); 8]; k];
    let mut cm = vec![vec![0u32; 8]; 16];
    for l in 0..32 {
        for j in 0..na {
            for h in 0..32 / sh.a.width() {
                let (r, c) = sh.a_at(l, j, h);
                am[r as usize][c as usize] =
                    tcref::decode(elem(words(l, j), h, sh.a.width()), sh.a);
            }
        }
        for j in 0..nb {
            for h in 0..32 / sh.b.width() {
                let (r, c) = sh.b_at(l, j, h);
                bm[r as usize][c as usize] =
                    tcref::decode(elem(words(l, na + j), h, sh.b.width()), sh.b);
            }
        }
        for i in 0..4 {
            let (r, c) = Shape::c_at(l, i);
            cm[r as usize][c as usize] = if sh.acc == Fmt::F16 {
                elem(words(l, na + nb + i / 2), i % 2, 16)
            } else {
                words(l, na + nb + i)
            };
        }
    }
    let fp8 = sh.a.width() == 8;
    (0..32)
        .map(|l| {
            let d: Vec<u32> = (0..4)
                .map(|i| {
                    let (r, c) = Shape::c_at(l, i);
                    let (r, c) = (r as usize, c as usize);
                    let row = &am[r];
                    let col: Vec<V> = (0..k).map(|x| bm[x][c]).collect();
                    if fp8 {
                        tcref::fp8_mma_sync(row, &col, cm[r][c], sh.acc)
                    } else {
                        let terms: Vec<(V, V)> = (0..k).map(|x| (row[x], col[x])).collect();
                        tcref::mma_block(&terms, tcref::decode(cm[r][c], sh.acc), sh.acc)
                    }
                })
                .collect();
            if nc == 2 {
                vec![d[0] | d[1] << 16, d[2] | d[3] << 16]
            } else {
                d
            }
        })
        .collect()
}

impl Protocol for Spec {
    fn build(&self) -> Kernel {
        let input = self.input();
        let mut a = Asm::new("", &[]);
        let mut expected = Vec::new();
        let regs = |first: u32, n: u32| {
            (first..first + n)
                .map(|r| format!("%r{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let out_per = 4 * self.ops.len() as u32;
        let mut d_lane = vec![Vec::new(); 32];
        for (s, op) in self.ops.iter().enumerate() {
            let sh = op.shape;
            let (na, nb, nc) = sh.regs();
            let base = s as u32 * 32 * PER * 4;
            a.i(format!("mul.wide.u32 %rd1, %tx, {};", PER * 4));
            a.i("add.s64 %rd1, %rin, %rd1;");
            for j in 0..na + nb + nc {
                a.i(format!(
                    "ld.global.u32 %r{}, [%rd1+{}];",
                    20 + j,
                    base + 4 * j
                ));
            }
            a.i(format!(
                "mma.sync.aligned.m16n8k{}.row.col.{}.{}.{}.{} {{{}}}, {{{}}}, {{{}}}, {{{}}};",
                sh.k,
                sh.acc.name(),
                sh.a.name(),
                sh.b.name(),
                sh.acc.name(),
                regs(40, nc),
                regs(20, na),
                regs(20 + na, nb),
                regs(20 + na + nb, nc)
            ));
            for j in 0..nc {
                a.slot(
                    &format!("%r{}", 40 + j),
                    out_per * 4,
                    (4 * s as u32 + j) * 4,
                );
            }
            let words = |l: u32, j: u32| le32(&input, (base + (l * PER + j) * 4) as usize);
            for (l, d) in reference(sh, words).into_iter().enumerate() {
                let mut d = d;
                d.resize(4, 0);
                d_lane[l].extend(d);
            }
        }
        for d in d_lane {
            for x in d {
                expected.extend_from_slice(&x.to_le_bytes());
            }
        }
        Kernel::known(a.finish(), 1, 32, input, expected)
    }

    fn smaller(&self) -> Vec<Spec> {
        (0..self.ops.len())
            .filter(|_| self.ops.len() > 1)
            .map(|k| {
                let mut s = self.clone();
                s.ops.remove(k);
                s
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference against the H100's own answers (`corpus/vectors/hopper.jsonl`, family
    /// `mma`: two warps, A, B and C registers per thread in three buffers).
    #[test]
    fn reference_matches_gpu() {
        let mut checked = 0;
        for (name, arrays) in tcref::gpu_cases("mma.m16n8k") {
            let f: Vec<&str> = name.split(['.', '#']).collect();
            let k: u32 = f[1]
                .rsplit('k')
                .next()
                .and_then(|k| k.parse().ok())
                .expect("k");
            let (Some(acc), Some(a), Some(b)) = (
                tcref::fmt_named(f[2]),
                tcref::fmt_named(f[3]),
                tcref::fmt_named(f[4]),
            ) else {
                continue;
            };
            let sh = Shape { k, a, b, acc };
            let (na, nb, nc) = sh.regs();
            for w in 0..2 {
                let words = |l: u32, j: u32| {
                    let t = (32 * w + l) as usize;
                    if j < na {
                        arrays[0][t * na as usize + j as usize]
                    } else if j < na + nb {
                        arrays[1][t * nb as usize + (j - na) as usize]
                    } else {
                        arrays[2][t * nc as usize + (j - na - nb) as usize]
                    }
                };
                for (l, d) in reference(sh, words).into_iter().enumerate() {
                    let t = 32 * w as usize + l;
                    let got = &arrays[3][t * nc as usize..(t + 1) * nc as usize];
                    assert_eq!(d, got, "{name}: thread {t}");
                }
            }
            checked += 1;
        }
        assert!(checked >= 42, "only {checked} GPU cases checked");
    }
}
