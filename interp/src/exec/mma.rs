//! `mma.sync.aligned` (PTX ISA 9.7.14.5.14): warp-level matrix multiply-accumulate.
//!
//! Supported: `.m16n8k16` and `.m16n8k8` with `.f16`/`.bf16` inputs and `.f32` (or `.f16` for
//! f16) accumulators, `.m16n8k8`/`.m16n8k4` `.tf32`, `.m16n8k16`/`.m16n8k32` `.e4m3`/`.e5m2`
//! (sm_89+), `.m8n8k16`/`.m16n8k16`/`.m16n8k32` `.s8`/`.u8`, `.m8n8k32`/`.m16n8k32` `.s4`/`.u4`
//! (with and without `.satfinite`), `.m16n8k{4,8,16}` `.f64` with its rounding modifiers, and
//! the single-bit `.m8n8k128`/`.m16n8k128`/`.m16n8k256` `.b1` with `.and.popc`/`.xor.popc`,
//! `.m8n8k4` `.f64`, the quad-pair `.m8n8k4` with `.f16` inputs ([`quad_pair`]), and the
//! sparse `.sp`/`.sp::ordered_metadata` `.m16n8k16`/`.m16n8k32` with `.f16`/`.bf16` inputs
//! ([`sparse`]).
//! The fragment layouts are those of PTX ISA 9.7.14.5.1-10 (row/column formulas in terms of
//! `groupID = laneid >> 2` and `threadID_in_group = laneid % 4`). The floating-point sums follow
//! [`crate::tc`]; `.tf32` inputs lose their low 13 bits. The sm_120 `.kind::*` forms are in
//! [`super::mma_kind`].

use super::ctx::Ctx;
use super::flow::Flow;
use super::matrix::{full_warp, regs};
use crate::code::Opnd;
use crate::error::Error;
use crate::float::{self, Fmt, Mode};
use crate::int::mask;
use crate::tc;
use ptx_ir_core::{Flag, Op, Type};

/// Which matrix of the instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Which {
    /// Multiplicand A (M x K).
    A,
    /// Multiplicand B (K x N).
    B,
    /// Accumulator C or result D (M x N).
    C,
}

/// Elements per lane and (row, column) of element `i` held by `lane`, for an
/// `m x n x k` warp MMA with `bits`-wide elements of this matrix; `None` if not modelled.
pub fn layout(
    w: Which,
    (m, n, k): (u32, u32, u32),
    bits: u32,
    lane: usize,
    i: usize,
) -> Option<(usize, usize)> {
    let g = lane >> 2;
    let tg = lane & 3;
    Some(match (w, m, n, k, bits) {
        (Which::C, 16, 8, _, _) => (g + 8 * (i >> 1), 2 * tg + (i & 1)),
        (Which::C, 8, 8, _, _) => (g, 2 * tg + i),
        (Which::A, 16, 8, 16, 16) => (g + 8 * ((i >> 1) & 1), 2 * tg + (i & 1) + 8 * (i >> 2)),
        (Which::A, 16, 8, 8, 16) => (g + 8 * (i >> 1), 2 * tg + (i & 1)),
        (Which::A, 16, 8, 8, 32) | (Which::A, 16, 8, 8, 64) | (Which::A, 16, 8, 16, 64) => {
            (g + 8 * (i & 1), tg + 4 * (i >> 1))
        }
        (Which::A, 16, 8, 4, _) => (g + 8 * i, tg),
        (Which::A, 8, 8, 4, 64) => (g, tg),
        (Which::B, 8, 8, 4, 64) => (tg, g),
        (Which::A, 16, 8, 16, 8) => (g + 8 * (i >> 2), 4 * tg + (i & 3)),
        (Which::A, 16, 8, 32, 8) => (g + 8 * ((i >> 2) & 1), 4 * tg + (i & 3) + 16 * (i >> 3)),
        (Which::A, 8, 8, 16, 8) => (g, 4 * tg + i),
        (Which::A, 8, 8, 32, 4) => (g, 8 * tg + i),
        (Which::A, 16, 8, 32, 4) => (g + 8 * (i >> 3), 8 * tg + (i & 7)),
        (Which::A, 16, 8, 64, 4) => (g + 8 * ((i >> 3) & 1), 8 * tg + (i & 7) + 32 * (i >> 4)),
        (Which::B, 16, 8, 16, 16) | (Which::B, 16, 8, 32, 16) => {
            (2 * tg + (i & 1) + 8 * (i >> 1), g)
        }
        (Which::B, 16, 8, 8, 16) => (2 * tg + i, g),
        (Which::B, 16, 8, 8, 32)
        | (Which::B, 16, 8, 16, 32)
        | (Which::B, 16, 8, 8, 64)
        | (Which::B, 16, 8, 16, 64) => (tg + 4 * i, g),
        (Which::B, 16, 8, 4, _) => (tg, g),
        (Which::B, 16, 8, 16, 8) | (Which::B, 8, 8, 16, 8) => (4 * tg + i, g),
        (Which::B, 16, 8, 32, 8) | (Which::B, 16, 8, 64, 8) => {
            (4 * tg + (i & 3) + 16 * (i >> 2), g)
        }
        (Which::B, 8, 8, 32, 4) | (Which::B, 16, 8, 32, 4) => (8 * tg + i, g),
        (Which::B, 16, 8, 64, 4) | (Which::B, 16, 8, 128, 4) => {
            (8 * tg + (i & 7) + 32 * (i >> 3), g)
        }
        // Single-bit operands: 32 elements a register, laid out as the 4-bit and 8-bit ones.
        (Which::A, 8, 8, 128, 1) => (g, 32 * tg + i),
        (Which::A, 16, 8, 128, 1) => (g + 8 * (i >> 5), 32 * tg + (i & 31)),
        (Which::A, 16, 8, 256, 1) => (g + 8 * ((i >> 5) & 1), 32 * tg + (i & 31) + 128 * (i >> 6)),
        (Which::B, 8, 8, 128, 1) | (Which::B, 16, 8, 128, 1) => (32 * tg + i, g),
        (Which::B, 16, 8, 256, 1) => (32 * tg + (i & 31) + 128 * (i >> 5), g),
        _ => return None,
    })
}

/// Bits of one element of a matrix of type `t` (0 for a type no MMA takes).
pub fn bits_of(t: Type) -> u32 {
    match t {
        Type::F16 | Type::Bf16 => 16,
        Type::Tf32 | Type::F32 | Type::S32 => 32,
        Type::E4m3 | Type::E5m2 | Type::S8 | Type::U8 => 8,
        Type::S4 | Type::U4 => 4,
        Type::B1 => 1,
        Type::F64 => 64,
        _ => 0,
    }
}

/// Reads a matrix (`rows x cols`, row-major) from the fragments in `regs` of all 32 lanes.
pub fn gather(
    x: &Ctx<'_, '_>,
    regs: &[Opnd],
    w: Which,
    shape: (u32, u32, u32),
    bits: u32,
    cols: usize,
    out: &mut [u64],
) -> Result<(), Error> {
    let per = if bits >= 32 { 1 } else { (32 / bits) as usize };
    let n = regs.len() * per;
    for lane in 0..32 {
        for i in 0..n {
            let (r, c) = layout(w, shape, bits, lane, i)
                .ok_or_else(|| x.unsupported("this mma shape and type"))?;
            let v = x.get(&regs[i / per], lane)?;
            let e = if bits >= 64 {
                v
            } else {
                (v >> (bits as usize * (i % per))) & mask(bits)
            };
            if let Some(slot) = out.get_mut(r * cols + c) {
                *slot = e;
            }
        }
    }
    Ok(())
}

/// Writes matrix D (`rows x cols`, row-major) to the fragments in `regs` of all 32 lanes.
pub fn scatter(
    x: &mut Ctx<'_, '_>,
    regs: &[Opnd],
    shape: (u32, u32, u32),
    bits: u32,
    cols: usize,
    d: &[u64],
) -> Result<(), Error> {
    let per = if bits >= 32 { 1 } else { (32 / bits) as usize };
    let mut vals = vec![[0u64; 32]; regs.len()];
    for (lane, _) in (0..32).enumerate() {
        for i in 0..regs.len() * per {
            let (r, c) = layout(Which::C, shape, bits, lane, i)
                .ok_or_else(|| x.unsupported("this mma shape and type"))?;
            let e = d.get(r * cols + c).copied().unwrap_or(0);
            let sh = if bits >= 64 {
                0
            } else {
                bits as usize * (i % per)
            };
            vals[i / per][lane] |= (e & mask(bits.min(64))) << sh;
        }
    }
    for (reg, v) in regs.iter().zip(&vals) {
        x.write(reg, v, u32::MAX)?;
    }
    Ok(())
}

fn fmt_of(t: Type) -> Option<Fmt> {
    Some(match t {
        Type::F16 => Fmt::F16,
        Type::Bf16 => Fmt::Bf16,
        Type::Tf32 | Type::F32 => Fmt::F32,
        Type::E4m3 => Fmt::E4m3,
        Type::E5m2 => Fmt::E5m2,
        Type::F64 => Fmt::F64,
        _ => return None,
    })
}

/// The multiply-accumulate of row-major `a` (M x K), `b` (K x N), `c` (M x N) into `d`.
#[allow(clippy::too_many_arguments)]
pub fn compute(
    (m, n, k): (usize, usize, usize),
    at: Type,
    bt: Type,
    ct: Type,
    dt: Type,
    a: &[u64],
    b: &[u64],
    c: &[u64],
    satfinite: bool,
    rnd: Option<ptx_ir_core::Rounding>,
    wgmma: bool,
) -> Result<Vec<u64>, String> {
    let mut d = vec![0u64; m * n];
    match (fmt_of(at), fmt_of(bt)) {
        (Some(Fmt::F64), Some(Fmt::F64)) => {
            let mode = Mode {
                rnd,
                ..Mode::default()
            };
            for i in 0..m {
                for j in 0..n {
                    let mut acc = c[i * n + j];
                    for kk in 0..k {
                        acc = float::fma(Fmt::F64, a[i * k + kk], b[kk * n + j], acc, mode);
                    }
                    d[i * n + j] = acc;
                }
            }
        }
        (Some(af), Some(bf)) => {
            let (cf, df) = match (fmt_of(ct), fmt_of(dt)) {
                (Some(cf), Some(df)) => (cf, df),
                _ => return Err("accumulator type".into()),
            };
            let model = tc::model(af, df, k, wgmma);
            // tf32 operands are f32 registers whose low 13 bits the tensor cores ignore.
            let keep = if at == Type::Tf32 { !0x1fff } else { u64::MAX };
            let ai: Vec<tc::Input> = a[..m * k]
                .iter()
                .map(|&v| tc::input(v & keep, af))
                .collect();
            // B by columns, so that each product's operands are two slices.
            let mut bi = Vec::with_capacity(k * n);
            for j in 0..n {
                bi.extend((0..k).map(|kk| tc::input(b[kk * n + j] & keep, bf)));
            }
            for i in 0..m {
                let row = &ai[i * k..(i + 1) * k];
                for j in 0..n {
                    let col = &bi[j * k..(j + 1) * k];
                    let cv = c[i * n + j];
                    // A C of another format than D (f16 C with f32 D does not exist on the
                    // MMAs modelled) is converted exactly.
                    let cv = if cf == df {
                        cv
                    } else {
                        float::convert_bits(cv, cf, df, ptx_ir_core::Rounding::Rn)
                    };
                    d[i * n + j] = tc::dot_inputs(model, row, col, cv, df);
                }
            }
        }
        (None, None) => {
            let (sa, sb) = (at.is_signed(), bt.is_signed());
            let (wa, wb) = (bits_of(at), bits_of(bt));
            for i in 0..m {
                for j in 0..n {
                    let mut acc = crate::int::wide(c[i * n + j], 32, true);
                    for kk in 0..k {
                        acc += crate::int::wide(a[i * k + kk], wa, sa)
                            * crate::int::wide(b[kk * n + j], wb, sb);
                    }
                    d[i * n + j] = if satfinite {
                        crate::int::saturate(acc, 32, true)
                    } else {
                        acc as u64 & 0xffff_ffff
                    };
                }
            }
        }
        _ => return Err("mixed integer and floating-point inputs".into()),
    }
    Ok(d)
}

/// [`compute`] for a warp-level MMA (not `wgmma`) with the instruction's `.satfinite` and
/// rounding; `types` are D, A, B, C.
pub fn sync_compute(
    x: &Ctx<'_, '_>,
    shape: (usize, usize, usize),
    [dt, at, bt, ct]: [Type; 4],
    a: &[u64],
    b: &[u64],
    c: &[u64],
) -> Result<Vec<u64>, Error> {
    let sat = x.has(Flag::SatFinite);
    compute(shape, at, bt, ct, dt, a, b, c, sat, x.d.rnd, false).map_err(|e| x.unsupported(e))
}

/// The single-bit multiply-accumulate (`.and.popc` / `.xor.popc`) of row-major `a` (M x K),
/// `b` (K x N) and `c` (M x N), one bit an element: each element of D adds to C the number of
/// ones in the row of A combined bit by bit with the column of B (wrapping 32-bit sums).
pub fn popc_mma(
    (m, n, k): (usize, usize, usize),
    a: &[u64],
    b: &[u64],
    c: &[u64],
    and: bool,
) -> Vec<u64> {
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        for j in 0..n {
            let ones = (0..k)
                .filter(|&kk| {
                    let (p, q) = (a[i * k + kk] & 1, b[kk * n + j] & 1);
                    if and {
                        p & q != 0
                    } else {
                        p ^ q != 0
                    }
                })
                .count() as u32;
            d[i * n + j] = u64::from((c[i * n + j] as u32).wrapping_add(ones));
        }
    }
    d
}

/// `mma.sync.aligned`
pub fn mma(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    if x.d.kinds.any() {
        return super::mma_kind::mma_kind(x);
    }
    if x.has(Flag::Sp) || x.has(Flag::SpOrderedMetadata) {
        return sparse(x);
    }
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("mma without a shape"))?;
    let (m, n, k) = (shape.0 as u32, shape.1 as u32, shape.2 as u32);
    let ts = x.types();
    let &[dt, at, bt, ct] = ts else {
        return Err(x.unsupported("mma without its four types"));
    };
    if (m, n, k) == (8, 8, 4) && at == Type::F16 {
        return quad_pair(x, dt, ct);
    }
    let (ab, bb) = (bits_of(at), bits_of(bt));
    if ab == 0 || bb == 0 || (ab != bb) {
        return Err(x.unsupported("this mma type combination"));
    }
    let shp = (m, n, k);
    let vecs: [&[Opnd]; 4] = x.ops::<4>().map(regs);
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let mut a = vec![0u64; mu * ku];
    let mut b = vec![0u64; ku * nu];
    let mut c = vec![0u64; mu * nu];
    gather(x, vecs[1], Which::A, shp, ab, ku, &mut a)?;
    gather(x, vecs[2], Which::B, shp, bb, nu, &mut b)?;
    let cb = bits_of(ct);
    gather(x, vecs[3], Which::C, shp, cb, nu, &mut c)?;
    if at == Type::B1 {
        let and = match x.d.oper {
            Some(Op::And) => true,
            Some(Op::Xor) => false,
            _ => return Err(x.unsupported("single-bit mma without .and or .xor")),
        };
        let d = popc_mma((mu, nu, ku), &a, &b, &c, and);
        scatter(x, vecs[0], shp, bits_of(dt), nu, &d)?;
        return Ok(Flow::Next);
    }
    let d = sync_compute(x, (mu, nu, ku), [dt, at, bt, ct], &a, &b, &c)?;
    scatter(x, vecs[0], shp, bits_of(dt), nu, &d)?;
    Ok(Flow::Next)
}

/// The quad-pair `mma.m8n8k4` with `.f16` inputs: four independent 8x8x4 products, the one of
/// quad pair `q` held by lanes `4q..4q+4` (rows 0-3 of A, the low half of B's or C's) and
/// `16+4q..16+4q+4` (rows 4-7), laid out as PTX ISA 9.7.14.5.1 says for the `.row`/`.col`
/// forms of A and B. sm_90 has no unit for it: ptxas (CUDA 13.0) gathers the operands with
/// `SHFL` and computes each element in `f32` from the exactly widened `f16` inputs
/// (`cuobjdump -sass`, matched on every finite element of `corpus/vectors/mmaqp.jsonl`):
/// an `.f32` result is `c + fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, +0))))`; an
/// `.f16` result is `((c + fma(a3, b3, a2 * b2)) + fma(a1, b1, a0 * b0))`, rounded to `.f16`.
fn quad_pair(x: &mut Ctx<'_, '_>, dt: Type, ct: Type) -> Result<Flow, Error> {
    let ops = x.ops::<4>();
    let fragment = |o: &Opnd, want: usize| -> Result<Vec<[u64; 32]>, Error> {
        let regs = regs(o);
        if regs.len() != want {
            return Err(x.unsupported("mma.m8n8k4 fragment size"));
        }
        regs.iter().map(|r| x.read(r, u32::MAX)).collect()
    };
    let acc_regs = |t: Type| if t == Type::F16 { 4 } else { 8 };
    let (a, b, c) = (
        fragment(ops[1], 2)?,
        fragment(ops[2], 2)?,
        fragment(ops[3], acc_regs(ct))?,
    );
    let a_col = x.d.layouts[0] == Some(ptx_ir_core::Layout::Col);
    let b_col = x.d.layouts[1] == Some(ptx_ir_core::Layout::Col);
    let half =
        |regs: &[[u64; 32]], lane: usize, i: usize| (regs[i / 2][lane] >> (16 * (i % 2))) & 0xffff;
    let widen = |h: u64| float::convert_bits(h, Fmt::F16, Fmt::F32, ptx_ir_core::Rounding::Rn);
    // (row, column) of accumulator element `i` of `lane`.
    let acc_pos = |t: Type, lane: usize, i: usize| {
        let hi = if lane >= 16 { 4 } else { 0 };
        if t == Type::F16 {
            (lane % 4 + hi, i)
        } else {
            ((lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1))
        }
    };
    let mode = Mode::default();
    let mut d = vec![[0u64; 32]; acc_regs(dt)];
    for q in 0..4 {
        let lanes = (0..4)
            .map(|j| 4 * q + j)
            .chain((0..4).map(|j| 16 + 4 * q + j));
        let (mut am, mut bm, mut cm) = ([[0u64; 4]; 8], [[0u64; 8]; 4], [[0u64; 8]; 8]);
        for lane in lanes.clone() {
            let hi = if lane >= 16 { 4 } else { 0 };
            for i in 0..4 {
                let (r, k) = if a_col {
                    (i + hi, lane % 4)
                } else {
                    (lane % 4 + hi, i)
                };
                am[r][k] = widen(half(&a, lane, i));
                let (k, col) = if b_col {
                    (i, lane % 4 + hi)
                } else {
                    (lane % 4, i + hi)
                };
                bm[k][col] = widen(half(&b, lane, i));
            }
            for i in 0..8 {
                let (r, col) = acc_pos(ct, lane, i);
                cm[r][col] = if ct == Type::F16 {
                    widen(half(&c, lane, i))
                } else {
                    c[i][lane]
                };
            }
        }
        for lane in lanes {
            for i in 0..8 {
                let (r, col) = acc_pos(dt, lane, i);
                let p = |k: usize| (am[r][k], bm[k][col]);
                let fma = |k: usize, acc: u64| {
                    let (a, b) = p(k);
                    float::fma(Fmt::F32, a, b, acc, mode)
                };
                let add = |u: u64, v: u64| float::bin(float::BinOp::Add, Fmt::F32, u, v, mode);
                if dt == Type::F16 {
                    let (a0, b0) = p(0);
                    let (a2, b2) = p(2);
                    let mul = |u: u64, v: u64| float::bin(float::BinOp::Mul, Fmt::F32, u, v, mode);
                    let s01 = fma(1, mul(a0, b0));
                    let s23 = fma(3, mul(a2, b2));
                    let v = add(add(cm[r][col], s23), s01);
                    let h = float::convert_bits(v, Fmt::F32, Fmt::F16, ptx_ir_core::Rounding::Rn);
                    d[i / 2][lane] |= h << (16 * (i % 2));
                } else {
                    let s = (0..4).fold(0, |acc, k| fma(k, acc));
                    d[i][lane] = add(cm[r][col], s);
                }
            }
        }
    }
    let dregs = regs(ops[0]);
    if dregs.len() != d.len() {
        return Err(x.unsupported("mma.m8n8k4 fragment size"));
    }
    for (r, v) in dregs.iter().zip(&d) {
        x.write(r, v, u32::MAX)?;
    }
    Ok(Flow::Next)
}

/// How a sparse A's metadata places compressed elements (PTX ISA 9.7.14.6.1; the layouts were
/// fitted on an H200, `corpus/vectors/mmasp.jsonl.xz`): shared by `mma.sp` and `wgmma.mma_async.sp`
/// (whose warps each take the `mma.sp` metadata of their 16 rows).
pub struct SparseMeta {
    chunk: usize,
    per_unit: usize,
    words: usize,
    sel: usize,
    wide: bool,
    tf32: bool,
    meta: crate::exec::ctx::Lanes,
}

impl SparseMeta {
    /// The metadata of A type `at` and dense depth `k`, with sparsity selector `sel` and each
    /// lane's metadata register; `Err` says why the type, shape or selector is not one.
    pub fn new(
        at: Type,
        k: usize,
        sel: usize,
        meta: crate::exec::ctx::Lanes,
    ) -> Result<SparseMeta, String> {
        let (chunk, per_unit) = match at {
            Type::F16 | Type::Bf16 | Type::S8 | Type::U8 | Type::E4m3 | Type::E5m2 => (4, 1),
            Type::S4 | Type::U4 => (8, 2),
            Type::Tf32 => (2, 1),
            _ => return Err(format!("sparse A of .{} is not modelled", at.as_str())),
        };
        let bits = bits_of(at);
        let wide = bits == 16 || at == Type::Tf32;
        Self::build(
            chunk,
            per_unit,
            wide,
            at == Type::Tf32,
            at.as_str(),
            k,
            sel,
            meta,
        )
    }

    /// The metadata of the sm_120 `.kind::*` forms: elements in 8-bit containers (2:4, as
    /// 8-bit types) or packed 4-bit `e2m1` (`packed`: pair-wise 4:8, as 4-bit types).
    pub fn narrow(
        packed: bool,
        k: usize,
        sel: usize,
        meta: crate::exec::ctx::Lanes,
    ) -> Result<SparseMeta, String> {
        let (chunk, per_unit) = if packed { (8, 2) } else { (4, 1) };
        Self::build(chunk, per_unit, false, false, "e2m1", k, sel, meta)
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        chunk: usize,
        per_unit: usize,
        wide: bool,
        tf32: bool,
        name: &str,
        k: usize,
        sel: usize,
        meta: crate::exec::ctx::Lanes,
    ) -> Result<SparseMeta, String> {
        if k % (4 * chunk) != 0 {
            return Err("this sparse shape".into());
        }
        let words = k / chunk / 4;
        if sel >= 4 / words {
            return Err(format!(
                "sparsity selector {sel} is out of range for .{name} k{k} (PTX ISA 9.7.14.6)"
            ));
        }
        Ok(SparseMeta {
            chunk,
            per_unit,
            words,
            sel,
            wide,
            tf32,
            meta,
        })
    }

    fn nibble(&self, row: usize, j: usize) -> (usize, u64) {
        let (g, h) = (row % 8, (row / 8) % 2);
        let (lane, q) = if self.wide {
            (4 * g + self.sel * self.words + j / 4, 4 * h + j % 4)
        } else {
            (4 * g + self.sel * self.words + h + 2 * (j / 8), j % 8)
        };
        (lane, (self.meta[lane & 31] >> (4 * q)) & 15)
    }

    /// The dense column of compressed element (`row`, `cc`) of a warp's 16 rows, or the lane
    /// whose metadata is undefined and why.
    pub fn column(&self, row: usize, cc: usize) -> Result<usize, (usize, String)> {
        if self.tf32 {
            let (src, nib) = self.nibble(row, cc);
            let [i, _] = chunk_units(nib, true)
                .map_err(|e| (src, format!("{e} for row {row}, chunk {cc}")))?;
            return Ok(self.chunk * cc + i);
        }
        let unit = cc / self.per_unit;
        let (j, slot) = (unit / 2, unit % 2);
        let (src, nib) = self.nibble(row, j);
        let idx = chunk_units(nib, false)
            .map_err(|e| (src, format!("{e} for row {row}, chunk {j}")))?[slot];
        Ok(self.chunk * j + self.per_unit * idx + cc % self.per_unit)
    }
}

/// The positions in its chunk of the two units a metadata nibble names (bits 0-1 the first,
/// 2-3 the second); a `.tf32` chunk stores one element, named by `0b0100` (the first) or
/// `0b1110` (the second). `Err` names the rule an undefined nibble breaks.
pub fn chunk_units(nib: u64, tf32: bool) -> Result<[usize; 2], String> {
    if tf32 {
        return match nib {
            0b0100 => Ok([0, 0]),
            0b1110 => Ok([1, 1]),
            _ => Err(format!(
                "sparse .tf32 metadata nibble {nib:#06b}: only 0b0100 and 0b1110 are defined (PTX ISA 9.7.14.6.1)"
            )),
        };
    }
    let (i0, i1) = ((nib & 3) as usize, ((nib >> 2) & 3) as usize);
    if i0 == i1 {
        return Err(format!(
            "sparse metadata nibble {nib:#06b}: 0b0000, 0b0101, 0b1010 and 0b1111 are undefined (PTX ISA 9.7.14.6.1)"
        ));
    }
    Ok([i0, i1])
}

/// Sparse `mma.sp{::ordered_metadata}` (`.m16n8k8`-`.m16n8k128` of `.f16`, `.bf16`, `.tf32`,
/// 8-bit, FP8 and 4-bit inputs): A holds half of each row, and metadata `e` says where each
/// stored element goes. Recorded on the H100 (`corpus/vectors/mmasp.jsonl.xz`: probes whose B
/// copies the decompressed A into D, then random values):
/// - A's registers are the dense fragment of the half-width matrix (`m16n8k{K/2}` of the same
///   type, [`layout`]); its compressed columns come in pairs, each pair the two stored units of
///   a chunk of four: a unit is an element for 16- and 8-bit types and two consecutive elements
///   for 4-bit ones; a `.tf32` chunk is two elements of which one is stored;
/// - a chunk's metadata is a nibble: the first unit's index in bits 0-1, the second's in bits
///   2-3 (the four with equal indices are undefined, PTX ISA 9.7.14.6.1); for `.tf32` `0b0100`
///   names the first element and `0b1110` the second (no other value is defined);
/// - with `c` chunks a row and `T = c / 4` metadata words for the eight rows of a group, row
///   `g + 8h` chunk `j` is, for 16-bit and `.tf32` types, nibble `4h + j % 4` of lane
///   `4g + sT + j / 4`, and for 8- and 4-bit types nibble `j % 8` of lane
///   `4g + sT + h + 2 (j / 8)`, `s` the sparsity selector (below `4 / T`; ptxas rejects
///   others, and the H100 traps on some);
/// - the sum is the dense one over the decompressed A.
fn sparse(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("mma.sp without a shape"))?;
    let &[dt, at, bt, ct] = x.types() else {
        return Err(x.unsupported("mma.sp without its four types"));
    };
    let k = shape.2 as usize;
    let bits = bits_of(at);
    if shape.0 != 16 || shape.1 != 8 {
        return Err(x.unsupported("this sparse mma shape"));
    }
    let ops = &x.d.opnds;
    let (va, vb, vc, vd) = (regs(&ops[1]), regs(&ops[2]), regs(&ops[3]), regs(&ops[0]));
    let (Some(eo), Some(fo)) = (ops.get(4), ops.get(5)) else {
        return Err(x.unsupported("mma.sp without its metadata and sparsity selector"));
    };
    let sel = x.get(fo, 0)? as usize;
    let meta = x.read(eo, u32::MAX)?;
    let sm = match SparseMeta::new(at, k, sel, meta) {
        Ok(m) => m,
        Err(e) if e.starts_with("sparsity selector") => {
            return Err(x.undefined(0, format!("mma.sp {e}")))
        }
        Err(e) => return Err(x.unsupported(e)),
    };
    let half_shape = (16u32, 8u32, (k / 2) as u32);
    let per = if bits >= 32 { 1 } else { (32 / bits) as usize };
    let a_regs = va
        .iter()
        .map(|r| x.read(r, u32::MAX))
        .collect::<Result<Vec<_>, Error>>()?;
    let (m, n) = (16usize, 8usize);
    let mut a = vec![0u64; m * k];
    // Which half of its register each element came from (FP8 is two f16 MMAs, one a half).
    let mut hi = vec![false; m * k];
    for lane in 0..32 {
        for i in 0..a_regs.len() * per {
            let (row, cc) = layout(Which::A, half_shape, bits, lane, i)
                .ok_or_else(|| x.unsupported("this sparse mma shape and type"))?;
            let word = a_regs[i / per][lane];
            let e = if bits >= 32 {
                word
            } else {
                (word >> (bits as usize * (i % per))) & mask(bits)
            };
            let col = sm
                .column(row, cc)
                .map_err(|(src, why)| x.undefined(src, format!("mma.sp {why}")))?;
            a[row * k + col] = e;
            hi[row * k + col] = cc % 4 >= 2;
        }
    }
    let shp = (16u32, 8u32, k as u32);
    let mut b = vec![0u64; k * n];
    let mut c = vec![0u64; m * n];
    gather(x, vb, Which::B, shp, bits_of(bt), n, &mut b)?;
    gather(x, vc, Which::C, shp, bits_of(ct), n, &mut c)?;
    let d = if let (Some(af @ (Fmt::E4m3 | Fmt::E5m2)), Some(bf), Some(df)) =
        (fmt_of(at), fmt_of(bt), fmt_of(dt))
    {
        let model = tc::model(af, df, k, false);
        let mut d = vec![0u64; m * n];
        for i in 0..m {
            let row: Vec<tc::Input> = (0..k).map(|kk| tc::input(a[i * k + kk], af)).collect();
            for j in 0..n {
                let col: Vec<tc::Input> = (0..k).map(|kk| tc::input(b[kk * n + j], bf)).collect();
                d[i * n + j] = tc::dot_inputs_split(
                    model,
                    &row,
                    &col,
                    &hi[i * k..(i + 1) * k],
                    c[i * n + j],
                    df,
                );
            }
        }
        d
    } else {
        sync_compute(x, (m, n, k), [dt, at, bt, ct], &a, &b, &c)?
    };
    scatter(x, vd, shp, bits_of(dt), n, &d)?;
    Ok(Flow::Next)
}
