//! `wgmma.mma_async.sync.aligned` with one warpgroup (128 threads): `m64n8`/`m64n16` `k16`
//! f16/bf16 into `f32` or `f16`, `k8` tf32 into `f32`, and `k32` e4m3/e5m2 (mixed) into
//! `f32` or `f16`. A kernel chains one to three `mma_async` on one accumulator (the first
//! with a random `scale-d`, each with random `imm-scale-a/b` of ±1), B always and A mostly
//! from shared-memory descriptors without swizzle (K-major, in one of two arrangements of the
//! core matrices, or for f16/bf16 MN-major with `imm-trans-a/b` 1), A otherwise from
//! registers; between `wgmma.fence` and one `commit_group` + `wait_group 0`.
//!
//! The kernel runs the drawn chain whole: its trace is empty, the reference reads the chain
//! from the [`Spec`].

use super::kernel::{kernel, shape, vector, Head, K};
use super::values::{Draw, Fmt};
use super::{Launch, Protocol};
use arbitrary::Unstructured;
use ptx_ir_core::build::Reg;
use ptx_ir_core::{Cmp, Flag, Modifier, Space, Type};

/// One `mma_async` of the chain.
#[derive(Clone, Debug)]
pub struct Step {
    /// How its operands are drawn.
    pub draw: Draw,
    /// A from registers.
    pub a_regs: bool,
    /// `imm-scale-a` is -1.
    pub neg_a: bool,
    /// `imm-scale-b` is -1.
    pub neg_b: bool,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec {
    /// N: 8 or 16.
    pub n: u32,
    /// A's element type.
    pub a: Fmt,
    /// B's element type.
    pub b: Fmt,
    /// The accumulator's type.
    pub acc: Fmt,
    /// The core-matrix arrangement: K-adjacent core matrices contiguous (LBO = 128) or
    /// row-adjacent ones (SBO = 128).
    pub k_inner: bool,
    /// A and B MN-major (`imm-trans-a/b` 1; f16/bf16 only).
    pub mn_major: (bool, bool),
    /// `scale-d` of the first step.
    pub scale_d: bool,
    /// How the accumulator's initial values are drawn.
    pub c_draw: Draw,
    /// The chain.
    pub steps: Vec<Step>,
}

/// Bytes of one K-row of an operand (K elements).
pub const ROW: u32 = 32;

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
                draw: Draw::arbitrary(u)?,
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
            c_draw: Draw::arbitrary(u)?,
            steps,
        })
    }

    /// K.
    pub fn k(&self) -> u32 {
        ROW * 8 / self.a.width()
    }

    /// D registers per thread.
    pub fn nd(&self) -> u32 {
        if self.acc == Fmt::F16 {
            self.n / 4
        } else {
            self.n / 2
        }
    }

    /// Shared bytes of one step's A (64 rows) and B (N rows).
    pub fn sizes(&self) -> (u32, u32) {
        (64 * ROW, self.n * ROW)
    }

    /// (LBO, SBO) of an operand of `rows` rows.
    pub fn lbo_sbo(&self, rows: u32, mn: bool) -> (u32, u32) {
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

    /// Shared bytes in all, and the input offsets of the accumulator words and of the A
    /// registers (the input starts with the shared-memory image).
    pub fn layout(&self) -> (u32, u32, u32) {
        let (sa, sb) = self.sizes();
        let sh = self.steps.len() as u32 * (sa + sb);
        (sh, sh, sh + 128 * self.nd() * 4)
    }

    /// The input: per step A's and B's shared-memory images, the accumulator's initial words,
    /// then per step A's registers.
    pub fn input(&self) -> Vec<u8> {
        let (sa, sb) = self.sizes();
        let mut v = Vec::new();
        let pack = |d: &Draw, f: Fmt, bytes: u32, salt: u64| -> Vec<u8> {
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
}

impl Protocol for Spec {
    /// Nothing: the chain runs as drawn.
    type Trace = ();

    fn build(&self) -> (Launch, ()) {
        let input = self.input();
        let (sa, sb) = self.sizes();
        let (sh, c_at, ar_at) = self.layout();
        let nd = self.nd();
        let text = kernel(Head::hopper(), |k| {
            let sm = k.shared("sm", 128, Type::B8, Some(sh))?;
            let d = k.range(Type::B32, "%d", nd)?;
            k.prologue()?;
            let (r1, r2, r3, r4, r5) = (k.r(1), k.r(2), k.r(3), k.r(4), k.r(5));
            let (rd2, rd3, rd4, p1, p2) = (k.rd(2), k.rd(3), k.rd(4), k.p(1), k.p(2));
            // Fill shared memory from the input, word tx + 128 i by thread tx.
            k.f.mov(Type::U32, (r1, sm))?;
            k.f.shl(Type::B32, (r2, k.tx, 2))?;
            k.f.add(Type::U32, (r3, r1, r2))?;
            k.f.cvt((Type::U64, Type::U32), (rd2, r2))?;
            k.f.add(Type::S64, (rd2, k.rin, rd2))?;
            for w in (0..sh / 4).step_by(128) {
                let off = i64::from(w * 4);
                if sh / 4 - w < 128 {
                    k.f.setp((Cmp::Lt, Type::U32), (p2, k.tx, sh / 4 - w))?;
                    k.f.guard(p2)
                        .ld((Space::Global, Type::U32), (r4, rd2.at(off)))?;
                    k.f.guard(p2)
                        .st((Space::Shared, Type::U32), (r3.at(off), r4))?;
                } else {
                    k.f.ld((Space::Global, Type::U32), (r4, rd2.at(off)))?;
                    k.f.st((Space::Shared, Type::U32), (r3.at(off), r4))?;
                }
            }
            k.f.fence((Flag::Proxy, Flag::Async, Space::SharedCta), ())?;
            k.f.bar(Flag::Sync, 0)?;
            k.f.mul((Flag::Wide, Type::U32), (rd3, k.tx, nd * 4))?;
            k.f.add(Type::S64, (rd3, k.rin, rd3))?;
            for (i, &di) in d.iter().enumerate() {
                let at = c_at + 4 * i as u32;
                k.f.ld((Space::Global, Type::U32), (di, rd3.at(at.into())))?;
            }
            k.f.setp((Cmp::Ne, Type::U32), (p1, self.scale_d as u32, 0))?;
            let desc = |k: &mut K, reg: Reg, off: u32, rows: u32, mn: bool| {
                let (lbo, sbo) = self.lbo_sbo(rows, mn);
                let con = ((lbo as u64 >> 4) << 16) | ((sbo as u64 >> 4) << 32);
                k.f.add(Type::U32, (r5, r1, off))?;
                k.f.shr(Type::U32, (r5, r5, 4))?;
                k.f.and(Type::B32, (r5, r5, 16383))?;
                k.f.cvt((Type::U64, Type::U32), (reg, r5))?;
                k.f.or(Type::B64, (reg, reg, con))
            };
            for (s, st) in self.steps.iter().enumerate() {
                let s = s as u32;
                let base = s * (sa + sb);
                if st.a_regs {
                    k.f.mul((Flag::Wide, Type::U32), (rd4, k.tx, 16))?;
                    k.f.add(Type::S64, (rd4, k.rin, rd4))?;
                    for j in 0..4 {
                        let at = ar_at + s * 128 * 16 + 4 * j;
                        k.f.ld(
                            (Space::Global, Type::U32),
                            (k.r(10 + 4 * s + j), rd4.at(at.into())),
                        )?;
                    }
                } else {
                    desc(k, k.rd(10 + s), base, 64, self.mn_major.0)?;
                }
                desc(k, k.rd(20 + s), base + sa, self.n, self.mn_major.1)?;
            }
            k.f.wgmma_fence((Flag::Sync, Flag::Aligned), ())?;
            let half = matches!(self.a, Fmt::F16 | Fmt::Bf16);
            let kind = [self.acc, self.a, self.b].map(|t| Modifier::from(t.ty()));
            for (s, st) in self.steps.iter().enumerate() {
                let s = s as u32;
                let adesc = if st.a_regs {
                    vector((10 + 4 * s..14 + 4 * s).map(|i| k.r(i)))
                } else {
                    k.rd(10 + s).into()
                };
                let sc = |n: bool| if n { -1 } else { 1 };
                let mut ops = vec![
                    vector(d.iter().copied()),
                    adesc,
                    k.rd(20 + s).into(),
                    if s == 0 { p1.into() } else { 1.into() },
                    sc(st.neg_a).into(),
                    sc(st.neg_b).into(),
                ];
                if half {
                    let (ta, tb) = (self.mn_major.0 as u32, self.mn_major.1 as u32);
                    if !st.a_regs {
                        ops.push(ta.into());
                    }
                    ops.push(tb.into());
                }
                let mods = (
                    Flag::Sync,
                    Flag::Aligned,
                    shape(64, self.n, self.k())?,
                    kind,
                );
                k.f.wgmma_mma_async(mods, ops)?;
            }
            k.f.wgmma_commit_group((Flag::Sync, Flag::Aligned), ())?;
            k.f.wgmma_wait_group((Flag::Sync, Flag::Aligned), 0)?;
            for (i, &di) in d.iter().enumerate() {
                k.slot(di, nd * 4, 4 * i as u32)?;
            }
            Ok(())
        });
        let out_len = 128 * nd as usize * 4;
        (Launch::new(text, 1, 128, input, out_len), ())
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
