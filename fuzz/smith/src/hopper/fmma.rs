//! Floating-point `mma.sync.aligned.m16n8kK.row.col`: f16/bf16 `k8`/`k16` into `f32` or `f16`,
//! tf32 `k4`/`k8` into `f32`, FP8 (e4m3/e5m2, mixed) `k16`/`k32` into `f32` and `k32` into
//! `f16`. One warp runs one to three of them, each on its own operands from the input buffer
//! (drawn by [`Draw`]: random, moderate, special or cancelling values), and stores its
//! `D` registers.
//!
//! The trace is the operations' shapes, in order (the reference reads their operands from the
//! input buffer).

use super::kernel::{kernel, shape, vector, Head, K};
use super::values::{Draw, Fmt};
use super::{Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::{Flag, Layout, Modifier, Space, Type};

/// One `mma.sync` shape and types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MmaShape {
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
pub const SHAPES: [MmaShape; 14] = {
    const fn s(k: u32, a: Fmt, b: Fmt, acc: Fmt) -> MmaShape {
        MmaShape { k, a, b, acc }
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

impl MmaShape {
    /// Elements of A/B per 32-bit register.
    pub fn per(f: Fmt) -> u32 {
        32 / f.width()
    }

    /// Registers of A, B, C/D per lane.
    pub fn regs(&self) -> (u32, u32, u32) {
        let na = 16 * self.k / 32 / Self::per(self.a);
        let nb = 8 * self.k / 32 / Self::per(self.b);
        let nc = if self.acc == Fmt::F16 { 2 } else { 4 };
        (na, nb, nc)
    }
}

/// One `mma.sync`: its shape and how its operands are drawn.
#[derive(Clone, Debug)]
pub struct Mma {
    /// The shape and types.
    pub shape: MmaShape,
    /// How its operands are drawn.
    pub draw: Draw,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The operations, each on its own operands.
    pub ops: Vec<Mma>,
}

/// Words per lane of one operation's operands (A, B, C at most 4 + 2 + 4): the input holds,
/// per operation and lane, A's, B's and C's registers in `PER` words.
pub const PER: u32 = 10;

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(u: &mut Unstructured) -> arbitrary::Result<Spec> {
        let mut ops = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            ops.push(Mma {
                shape: *u.choose(&SHAPES)?,
                draw: Draw::arbitrary(u)?,
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

impl Protocol for Spec {
    /// The operations' shapes, in order.
    type Trace = Vec<MmaShape>;

    fn build(&self) -> (Launch, Vec<MmaShape>) {
        let input = self.input();
        let out_per = 4 * self.ops.len() as u32;
        let text = kernel(Head::hopper(), |k| {
            k.prologue()?;
            let rd1 = k.rd(1);
            let regs = |k: &K, first: u32, n: u32| vector((first..first + n).map(|i| k.r(i)));
            for (s, op) in self.ops.iter().enumerate() {
                let sh = op.shape;
                let (na, nb, nc) = sh.regs();
                let base = s as u32 * 32 * PER * 4;
                k.f.mul((Flag::Wide, Type::U32), (rd1, k.tx, PER * 4))?;
                k.f.add(Type::S64, (rd1, k.rin, rd1))?;
                for j in 0..na + nb + nc {
                    let d = k.r(20 + j);
                    k.f.ld(
                        (Space::Global, Type::U32),
                        (d, rd1.at((base + 4 * j).into())),
                    )?;
                }
                let mods = (
                    Flag::Sync,
                    Flag::Aligned,
                    shape(16, 8, sh.k)?,
                    Layout::Row,
                    Layout::Col,
                    [sh.acc, sh.a, sh.b, sh.acc].map(|t| Modifier::from(t.ty())),
                );
                let ops = (
                    regs(k, 40, nc),
                    regs(k, 20, na),
                    regs(k, 20 + na, nb),
                    regs(k, 20 + na + nb, nc),
                );
                k.f.mma(mods, ops)?;
                for j in 0..nc {
                    k.slot(k.r(40 + j), out_per * 4, (4 * s as u32 + j) * 4)?;
                }
            }
            Ok(())
        });
        let shapes = self.ops.iter().map(|op| op.shape).collect();
        let out_len = 32 * out_per as usize * 4;
        (Launch::new(text, 1, 32, input, out_len), shapes)
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
