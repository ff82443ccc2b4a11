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

use super::asm::Asm;
use super::values::{Draw, Fmt};
use super::{Launch, Protocol};
use arbitrary::Unstructured;

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
        let out_len = 128 * nd as usize * 4;
        (Launch::new(a.finish(), 1, 128, input, out_len), ())
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
