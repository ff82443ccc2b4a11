//! The sm_120 `mma` kinds (PTX ISA 9.7.14.5.14, 9.7.14.3, 9.7.14.6.3): `.kind::f8f6f4`
//! (`m16n8k32`, FP8/FP6/FP4 inputs in 8-bit containers, `f32` or `f16` accumulators) and the
//! block-scaled `.kind::mxf8f6f4` (`m16n8k32`, `.scale_vec::1X`), `.kind::mxf4` and
//! `.kind::mxf4nvf4` (`m16n8k64`, packed `e2m1`, `.scale_vec::2X`/`4X`), and their sparse
//! `mma.sp::ordered_metadata` forms (`k64`, `k128`). ISA-derived, not hardware-checked.
//!
//! - Fragments: 8-bit containers follow the `m16n8k32` 8-bit fragments, packed `e2m1` the
//!   `m16n8k64` 4-bit ones ([`super::mma::layout`]; the ISA gives both as formulas); sparse A
//!   holds the half-width fragment and its metadata follows `mma.sp`'s 8-bit (2:4) and 4-bit
//!   (pair-wise 4:8) rules ([`SparseMeta`]); the sparsity selector must be 0.
//! - Scale factors: with `S` factors a row (1X, 2X, 4X) each covers `K / S` consecutive k
//!   (logical k for the sparse forms). Row `m` of A takes byte `byte-id-a + c` of
//!   `scale-a-data` in lane `4 (m % 8) + 2 thread-id-a + m / 8`, column `n` of B byte
//!   `byte-id-b + c` of `scale-b-data` in lane `4 n + thread-id-b`, for factor `c`. The ISA
//!   states the thread pair and byte selection (Table 37 gives the valid selectors, others are
//!   undefined); which lane of a pair holds rows `m` and `m + 8` is drawn only in figures and
//!   is CUTLASS's (`SM120_16x8x64_TN_VS` scale-factor layouts).
//! - `D = sum_k (A[m][k] sa) (B[k][n] sb) + C` with [`crate::mx::model`].

use super::ctx::Ctx;
use super::flow::Flow;
use super::matrix::regs;
use super::mma::{gather, layout, scatter, SparseMeta, Which};
use crate::code::Opnd;
use crate::error::Error;
use crate::float::Fmt;
use crate::int::mask;
use crate::mx;
use crate::tc::{self, Input};
use ptx_ir_core::{Flag, Kind, Type};

const RULE: &str = "PTX ISA 9.7.14.3";

/// Scale factors per row (or column) of a block-scaled MMA (`mma` and `tcgen05.mma`): 1, 2 or
/// 4, from `.scale_vec`, its aliases `.block16` (4X) and `.block32` (1X for `.kind::mxf8f6f4`,
/// 2X for the FP4 kinds), or the kind's default; a size the kind does not take (Table 36:
/// `.kind::mxf8f6f4` 1X, `.kind::mxf4` 2X, `.kind::mxf4nvf4` 2X or 4X) is reported.
pub fn scale_count(x: &Ctx<'_, '_>) -> Result<usize, Error> {
    let k = x.d.kinds;
    let s = if k.has(Kind::ScaleVec4X) || k.has(Kind::Block16) {
        4
    } else if k.has(Kind::ScaleVec2X)
        || k.has(Kind::Mxf4)
        || (k.has(Kind::Block32) && !k.has(Kind::Mxf8f6f4))
    {
        2
    } else if k.has(Kind::ScaleVec1X) || k.has(Kind::Mxf8f6f4) {
        1
    } else {
        return Err(x.unsupported("a block-scaled mma without .scale_vec"));
    };
    let legal = if k.has(Kind::Mxf8f6f4) {
        s == 1
    } else if k.has(Kind::Mxf4) {
        s == 2
    } else {
        s != 1
    };
    if !legal {
        return Err(x.undefined(
            0,
            format!("{s} scale factors a row are not a size of this kind (Table 36, {RULE})"),
        ));
    }
    Ok(s)
}

/// Reads the scale factors of the operands from `at`: `scale-a-data, {byte-id-a,
/// thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}`; returns SFA (16 x `s`) and SFB
/// (8 x `s`).
fn scales(
    x: &Ctx<'_, '_>,
    at: usize,
    st: Type,
    s: usize,
) -> Result<(Vec<Input>, Vec<Input>), Error> {
    let ops = &x.d.opnds;
    let get = |i: usize| {
        ops.get(at + i)
            .ok_or_else(|| x.unsupported("mma .block_scale without its scale operands"))
    };
    let pair = |o: &Opnd| -> Result<(u64, u64), Error> {
        match o {
            Opnd::Vec(v) if v.len() == 2 => {
                Ok((x.get(&v[0], 0)? & 0xffff, x.get(&v[1], 0)? & 0xffff))
            }
            _ => Err(x.unsupported("a scale selector that is not {byte-id, thread-id}")),
        }
    };
    let (sa, (bid_a, tid_a), sb, (bid_b, tid_b)) = (
        x.read(get(0)?, u32::MAX)?,
        pair(get(1)?)?,
        x.read(get(2)?, u32::MAX)?,
        pair(get(3)?)?,
    );
    // Table 37: the selectors each scale-vector size allows.
    let byte_ok = |b: u64| match s {
        1 => b < 4,
        2 => b == 0 || b == 2,
        _ => b == 0,
    };
    if !byte_ok(bid_a) || !byte_ok(bid_b) || tid_a > 1 || tid_b > 3 {
        return Err(x.undefined(
            0,
            format!("scale selectors {{{bid_a}, {tid_a}}} and {{{bid_b}, {tid_b}}} are not valid for .scale_vec::{s}X (Table 37, {RULE})"),
        ));
    }
    let byte = |w: u64, i: u64| (w >> (8 * i)) as u8;
    let mut sfa = Vec::with_capacity(16 * s);
    for m in 0..16u64 {
        let lane = (4 * (m % 8) + 2 * tid_a + m / 8) as usize;
        for c in 0..s as u64 {
            sfa.push(mx::scale(st, byte(sa[lane], bid_a + c)).map_err(|e| x.undefined(lane, e))?);
        }
    }
    let mut sfb = Vec::with_capacity(8 * s);
    for n in 0..8u64 {
        let lane = (4 * n + tid_b) as usize;
        for c in 0..s as u64 {
            sfb.push(mx::scale(st, byte(sb[lane], bid_b + c)).map_err(|e| x.undefined(lane, e))?);
        }
    }
    Ok((sfa, sfb))
}

/// `mma` with `.kind::f8f6f4`, `.kind::mxf8f6f4`, `.kind::mxf4` or `.kind::mxf4nvf4`.
pub fn mma_kind(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("mma without a shape"))?;
    let ts = x.types();
    let scaled = x.has(Flag::BlockScale);
    let (dt, at, bt, ct, st) = match (ts, scaled) {
        (&[d, a, b, c], false) => (d, a, b, c, None),
        (&[d, a, b, c, s], true) => (d, a, b, c, Some(s)),
        _ => return Err(x.unsupported("mma .kind without its types")),
    };
    let packed = x.d.kinds.has(Kind::Mxf4) || x.d.kinds.has(Kind::Mxf4nvf4);
    let sparse = x.has(Flag::Sp) || x.has(Flag::SpOrderedMetadata);
    let bits = if packed { 4 } else { 8 };
    let k = shape.2 as usize;
    let want_k = if packed { 64 } else { 32 } * if sparse { 2 } else { 1 };
    if (shape.0, shape.1, k) != (16, 8, want_k) {
        return Err(x.unsupported("this mma .kind shape"));
    }
    let (m, n) = (16usize, 8usize);
    let ops = &x.d.opnds;
    let (vd, va, vb, vc) = (regs(&ops[0]), regs(&ops[1]), regs(&ops[2]), regs(&ops[3]));
    let shp = (16u32, 8u32, k as u32);
    // A's raw codes, decompressed for the sparse forms.
    let mut a = vec![0u64; m * k];
    if sparse {
        let (Some(eo), Some(fo)) = (ops.get(4), ops.get(5)) else {
            return Err(x.unsupported("mma.sp without its metadata and sparsity selector"));
        };
        let sel = x.get(fo, 0)? as usize;
        if sel != 0 {
            return Err(x.undefined(0, format!("sparsity selector {sel}: the .kind forms of mma.sp take 0 only (PTX ISA 9.7.14.6.1)")));
        }
        let sm = SparseMeta::narrow(packed, k, 0, x.read(eo, u32::MAX)?)
            .map_err(|e| x.unsupported(e))?;
        let half = (16u32, 8u32, (k / 2) as u32);
        let per = (32 / bits) as usize;
        let words = va
            .iter()
            .map(|r| x.read(r, u32::MAX))
            .collect::<Result<Vec<_>, Error>>()?;
        for lane in 0..32 {
            for i in 0..words.len() * per {
                let (row, cc) = layout(Which::A, half, bits, lane, i)
                    .ok_or_else(|| x.unsupported("this sparse mma .kind shape"))?;
                let e = (words[i / per][lane] >> (bits as usize * (i % per))) & mask(bits);
                let col = sm
                    .column(row, cc)
                    .map_err(|(src, why)| x.undefined(src, format!("mma.sp {why}")))?;
                a[row * k + col] = e;
            }
        }
    } else {
        gather(x, va, Which::A, shp, bits, k, &mut a)?;
    }
    let mut b = vec![0u64; k * n];
    gather(x, vb, Which::B, shp, bits, n, &mut b)?;
    let cf = match (ct, dt) {
        (Type::F32, Type::F32) => Fmt::F32,
        (Type::F16, Type::F16) if !scaled => Fmt::F16,
        _ => return Err(x.unsupported("this mma .kind accumulator type")),
    };
    let cbits = cf.bits();
    let mut c = vec![0u64; m * n];
    gather(x, vc, Which::C, shp, cbits, n, &mut c)?;
    let container = !packed;
    let decode = |t: Type, raw: u64| {
        mx::element(t, mx::code(t, raw, container))
            .ok_or_else(|| x.unsupported(format!("mma .kind input type .{}", t.as_str())))
    };
    let mut ai = a
        .iter()
        .map(|&v| decode(at, v))
        .collect::<Result<Vec<_>, Error>>()?;
    // B by columns.
    let mut bi = Vec::with_capacity(k * n);
    for j in 0..n {
        for kk in 0..k {
            bi.push(decode(bt, b[kk * n + j])?);
        }
    }
    if let Some(st) = st {
        let s = scale_count(x)?;
        let at_op = if sparse { 6 } else { 4 };
        let (sfa, sfb) = scales(x, at_op, st, s)?;
        let vs = k / s;
        for (i, v) in ai.iter_mut().enumerate() {
            *v = tc::scaled(*v, sfa[(i / k) * s + (i % k) / vs]);
        }
        for (i, v) in bi.iter_mut().enumerate() {
            *v = tc::scaled(*v, sfb[(i / k) * s + (i % k) / vs]);
        }
    }
    let model = mx::model(k);
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        for j in 0..n {
            d[i * n + j] = tc::dot_inputs(
                model,
                &ai[i * k..(i + 1) * k],
                &bi[j * k..(j + 1) * k],
                c[i * n + j],
                cf,
            );
        }
    }
    scatter(x, vd, shp, cbits, n, &d)?;
    Ok(Flow::Next)
}
