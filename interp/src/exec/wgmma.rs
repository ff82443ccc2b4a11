//! Warpgroup MMA (PTX ISA 9.7.15, sm_90a): `wgmma.fence`, `wgmma.mma_async`,
//! `wgmma.commit_group`, `wgmma.wait_group`.
//!
//! A warpgroup is four consecutive warps of a CTA; warp `w % 4` of it owns rows
//! `16 (w % 4) .. 16 (w % 4) + 16` of the 64-row A and D, so each warp computes its part when it
//! executes the instruction. D's fragment: element `e` of a thread (`e = 2 * register + half`
//! for `.f16`) is at row `groupID + 8 ((e % 4) / 2)` and column `8 (e / 4) + 2 threadID_in_group +
//! e % 2` of the warp's rows; A in registers uses the `mma.m16n8kK` A fragment of the warp's rows.
//!
//! Matrices in shared memory are read through 64-bit descriptors (9.7.15.5.1.2.2: start address,
//! leading and stride byte offsets, base offset, swizzle mode) in the canonical layouts of
//! 9.7.15.5.1.2.1.3. With `T = 16 / sizeof(element)` and swizzle width `W` bytes, element
//! (`mn`, `k`) is at:
//!
//! - K-major, no swizzle: `start + (mn % 8) * 16 + (mn / 8) * SBO + (k % T) * size + (k / T) *
//!   LBO`;
//! - K-major, swizzled: `start + (mn % 8) * W + (mn / 8) * SBO + k * size`;
//! - MN-major (`imm-trans` = 1, f16/bf16 only), no swizzle: `start + (mn % T) * size + (mn / T)
//!   * SBO + (k % 8) * 16 + (k / 8) * LBO`;
//! - MN-major, swizzled: `start + (mn % (W / size)) * size + (mn / (W / size)) * LBO + (k % 8) *
//!   W + (k / 8) * SBO`.
//!
//! The swizzle then maps the 16-byte chunk at address `a` to `a ^ (((a >> 7) - base) & m) << 4`
//! (`m` = 7, 3, 1 for 128, 64, 32 bytes; `base` the descriptor's matrix base offset, bits
//! 49-51): with base offset 0 the pattern TMA writes, whatever the start address; a base offset
//! moves the pattern's phase back by that many 128-byte rows (measured on an H200 for starts
//! 0, 128, 256 and 384 bytes past a 1024-byte boundary, `corpus/vectors/wgmmabase.jsonl.xz`).
//!
//! The products are computed when the instruction issues (see [`crate::tc`] for the arithmetic,
//! `imm-scale` -1 negates, `.tf32` inputs lose their low 13 bits). Until a `wgmma.wait_group`
//! covers it, an issued `wgmma.mma_async` keeps its accumulator and A registers busy (any other
//! instruction that names one is reported, 9.7.15.7.3) and its shared-memory operands as pending
//! reads (writing them is reported). `wgmma.fence` must precede the first `wgmma.mma_async` of a
//! warp, and an accumulator or A register written after the last fence (other than by a
//! `wgmma.mma_async`) makes the next `wgmma.mma_async` that uses it undefined (9.7.15.7.1).
//! Each warp's fence and pending operations are in [`super::state::wgmma`].
//!
//! `wgmma.mma_async.sp`: A holds `k / 2` columns (from a descriptor in the same canonical
//! layouts, or from registers as the `mma` fragment of `m16n8k(k/2)`), which each warp places
//! with its metadata register and the sparsity selector exactly as `mma.sp` of `k` does for the
//! warp's 16 rows ([`mma::SparseMeta`]); FP8 is one dense multiply (12 of 12 H200 cases,
//! `corpus/vectors/wgmmasp.jsonl.xz`).

use super::async_copy::issuer;
use super::ctx::Ctx;
use super::flow::Flow;
use super::inflight;
use super::matrix::full_warp;
use super::mma::{self, Which};
use super::state::inflight::{Op, Src};
use super::state::wgmma::{Pend, WgState};
use crate::code::{DInst, MemBase, Opnd};
use crate::error::Error;
use crate::mem;
use ptx_ir_core::{Flag, Opcode, Type};

fn push_slots(o: &Opnd, out: &mut Vec<u32>) {
    match o {
        Opnd::Reg { slot, bits } => {
            out.push(*slot);
            if *bits > 64 {
                out.push(*slot + 1);
            }
        }
        Opnd::Not(s) => out.push(*s),
        Opnd::Mem(MemBase::Reg(s), _) => out.push(*s),
        Opnd::Vec(v) | Opnd::Args(v) | Opnd::Tuple(v) => v.iter().for_each(|x| push_slots(x, out)),
        Opnd::Pair(p) => p.iter().for_each(|x| push_slots(x, out)),
        Opnd::Neg(o) => push_slots(o, out),
        _ => {}
    }
}

/// The first busy register an instruction names, if any (checked while wgmma operations are
/// pending; the wgmma instructions themselves are exempt).
pub fn busy_slot(s: &WgState, d: &DInst, depth: usize) -> Option<u32> {
    if matches!(
        d.op,
        Opcode::WgmmaMmaAsync
            | Opcode::WgmmaCommitGroup
            | Opcode::WgmmaWaitGroup
            | Opcode::WgmmaFence
    ) {
        return None;
    }
    let mut slots = Vec::new();
    if let Some((g, _)) = d.guard {
        slots.push(g);
    }
    d.opnds.iter().for_each(|o| push_slots(o, &mut slots));
    slots
        .into_iter()
        .find(|slot| s.busy.binary_search(&(depth, *slot)).is_ok())
}

fn elem_bytes(t: Type) -> usize {
    match t {
        Type::F16 | Type::Bf16 => 2,
        Type::Tf32 | Type::F32 | Type::S32 => 4,
        _ => 1,
    }
}

/// Byte address (in the CTA's shared memory) of element (`mn`, `k`) of a descriptor's matrix.
pub(super) fn desc_addr(desc: u64, mn_major: bool, mn: usize, k: usize, size: usize) -> u64 {
    let start = (desc & 0x3fff) << 4;
    let lbo = ((desc >> 16) & 0x3fff) << 4;
    let sbo = ((desc >> 32) & 0x3fff) << 4;
    let base = (desc >> 49) & 7;
    let w: u64 = match desc >> 62 {
        0 => 0,
        1 => 128,
        2 => 64,
        _ => 32,
    };

    let (mn, k, sz) = (mn as u64, k as u64, size as u64);
    let t = 16 / sz;
    let a = match (mn_major, w) {
        (false, 0) => start + (mn % 8) * 16 + (mn / 8) * sbo + (k % t) * sz + (k / t) * lbo,
        (false, w) => start + (mn % 8) * w + (mn / 8) * sbo + k * sz,
        (true, 0) => start + (mn % t) * sz + (mn / t) * sbo + (k % 8) * 16 + (k / 8) * lbo,
        (true, w) => {
            let per = w / sz;
            start + (mn % per) * sz + (mn / per) * lbo + (k % 8) * w + (k / 8) * sbo
        }
    };
    match w {
        0 => a,
        w => {
            let m = match w {
                128 => 7,
                64 => 3,
                _ => 1,
            };
            // The base offset moves the pattern's phase back (an H200, wgmmabase.jsonl.xz).
            a ^ ((((a >> 7).wrapping_sub(base)) & m) << 4)
        }
    }
}

fn state<'a>(x: &'a mut Ctx<'_, '_>) -> &'a mut WgState {
    x.w.wg.get_or_insert_with(Default::default).as_mut()
}

fn slots_of(o: &Opnd) -> Vec<u32> {
    let mut v = Vec::new();
    push_slots(o, &mut v);
    v
}

/// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`, `wgmma.mma_async`
pub fn wgmma(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    let [bx, by, bz] = x.m.block;
    let nwarps = (bx * by * bz).div_ceil(32);
    let wg = x.w.index / 4;
    if nwarps < 4 * wg + 4 {
        return Err(x.undefined(0, format!("{} in warpgroup {wg}, which the CTA's {nwarps} warps do not complete (all four warps of a warpgroup execute wgmma, PTX ISA 9.7.15.1)", x.d.op.name())));
    }
    match x.d.op {
        Opcode::WgmmaFence => {
            let s = state(x);
            s.fenced = true;
            s.dirty.clear();
            Ok(Flow::Next)
        }
        Opcode::WgmmaCommitGroup => {
            let s = state(x);
            let g = std::mem::take(&mut s.uncommitted);
            s.groups.push_back(g);
            Ok(Flow::Next)
        }
        Opcode::WgmmaWaitGroup => {
            let [n] = x.ops();
            let n = x.get(n, 0)? as usize;
            let mut done = Vec::new();
            {
                let s = state(x);
                while s.groups.len() > n {
                    if let Some(g) = s.groups.pop_front() {
                        done.extend(g.into_iter().filter_map(|p| p.op));
                    }
                }
                s.recompute_busy();
            }
            for id in done {
                inflight::complete(x.m, x.cl, id)?;
            }
            inflight::acquire(x.cl, [x.w.cta, x.w.index]);
            Ok(Flow::Next)
        }
        _ => mma_async(x),
    }
}

fn mma_async(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let sp = x.has(Flag::Sp);
    if !x.w.wg.as_ref().is_some_and(|s| s.fenced) {
        return Err(x.undefined(0, "wgmma.mma_async before any wgmma.fence of the warp (PTX ISA 9.7.15.7.1: wgmma.fence must be issued before the first wgmma.mma_async)"));
    }
    let (_, n, k) =
        x.d.shape
            .ok_or_else(|| x.unsupported("wgmma without a shape"))?;
    let (n, k) = (n as usize, k as usize);
    let ts = x.types();
    if ts.len() != 3 {
        return Err(x.unsupported("wgmma without its three types"));
    }
    let (dt, at, bt) = (ts[0], ts[1], ts[2]);
    // Single-bit: K-major rows of `k` bits, addressed as rows of `k / 8` one-byte elements,
    // element `k` in bit `k % 8` of its byte; `d = c + popc(row of A & column of B)`.
    let b1 = at == Type::B1;
    if b1 && x.d.oper != Some(ptx_ir_core::Op::And) {
        return Err(x.unsupported("single-bit wgmma without .and.popc"));
    }
    let float = !matches!(at, Type::S8 | Type::U8 | Type::B1);
    let half = matches!(at, Type::F16 | Type::Bf16);
    // `d, a-desc-or-regs, b-desc{, sp-meta, sp-sel}, scale-d{, imm-scale-a, imm-scale-b{,
    // imm-trans...}}`
    let [d_o, a_o, b_o] = x.ops();
    let first = if sp { 5 } else { 3 };
    let scale_d_o = x.opt(first).unwrap_or(&crate::code::MISSING);
    let dv: Vec<Opnd> = match d_o {
        Opnd::Vec(v) => v.to_vec(),
        _ => return Err(x.unsupported("wgmma accumulator is not a vector")),
    };
    let dbits = if dt == Type::F16 { 16 } else { 32 };
    let want = if dbits == 16 { n / 4 } else { n / 2 };
    if dv.len() != want {
        return Err(x.undefined(
            0,
            format!(
                "the accumulator of a .{} wgmma with n = {n} is {want} registers, not {} (PTX ISA 9.7.15.5.1)",
                dt.as_str(),
                dv.len()
            ),
        ));
    }
    let a_regs: Option<Vec<Opnd>> = match a_o {
        Opnd::Vec(v) => Some(v.to_vec()),
        _ => None,
    };
    // Operands after b-desc: scale-d, then (floating point) imm-scale-a, imm-scale-b, then
    // (f16/bf16) imm-trans-a (descriptor A only), imm-trans-b.
    let rest: Vec<u64> =
        x.d.opnds
            .get(first..)
            .unwrap_or_default()
            .iter()
            .map(|o| x.get(o, 0))
            .collect::<Result<_, _>>()?;
    let imm = |i: usize| rest.get(i).copied().unwrap_or(0);
    let scale = |i: usize| -> Result<bool, Error> {
        match imm(i) as i64 as i32 {
            1 => Ok(false),
            -1 => Ok(true),
            v => Err(x.undefined(
                0,
                format!("imm-scale {v} is neither 1 nor -1 (PTX ISA 9.7.15.5.2)"),
            )),
        }
    };
    let (neg_a, neg_b) = if float {
        (scale(1)?, scale(2)?)
    } else {
        (false, false)
    };
    let (trans_a, trans_b) = if half {
        if a_regs.is_some() {
            (false, imm(3) & 1 != 0)
        } else {
            (imm(3) & 1 != 0, imm(4) & 1 != 0)
        }
    } else {
        (false, false)
    };
    // Registers written since the fence.
    let depth = x.depth;
    let mut used: Vec<u32> = dv.iter().flat_map(slots_of).collect();
    if let Some(r) = &a_regs {
        used.extend(r.iter().flat_map(slots_of));
    }
    if let Some(s) = &x.w.wg {
        if used.iter().any(|&sl| s.is_dirty(depth, sl)) {
            return Err(x.undefined(0, "an accumulator or A register of this wgmma.mma_async was written after the last wgmma.fence (PTX ISA 9.7.15.7.1: wgmma.fence must order register accesses before wgmma.mma_async)"));
        }
    }
    let wq = (x.w.index % 4) as usize;
    let (esz_a, esz_b) = if b1 {
        (1, 1)
    } else {
        (elem_bytes(at), elem_bytes(bt))
    };
    // (address column, bit) of element `kk` of a row.
    let kpos = |kk: usize| {
        if b1 {
            (kk / 8, Some(kk % 8))
        } else {
            (kk, None)
        }
    };
    let pick = |v: u64, bit: Option<usize>| bit.map_or(v, |b| (v >> b) & 1);
    let abits = (esz_a * 8) as u32;
    let own = x.w.cta;
    let sh_len = x.cl.shared.get(own as usize).map(|s| s.len()).unwrap_or(0) as u64;
    let mut chunks: Vec<u64> = Vec::new();
    let read = |x: &Ctx<'_, '_>, a: u64, sz: usize, chunks: &mut Vec<u64>| -> Result<u64, Error> {
        if a + sz as u64 > sh_len {
            return Err(x.undefined(0, format!("wgmma matrix descriptor addresses shared memory {a:#x}, beyond the CTA's {sh_len} bytes")));
        }
        chunks.push(a / 16);
        Ok(mem::get_le(
            &x.cl.shared[own as usize][a as usize..a as usize + sz],
        ))
    };
    // A: this warp's 16 rows; a sparse A holds k / 2 columns, which its metadata places.
    let ka = if sp { k / 2 } else { k };
    let mut a = vec![0u64; 16 * ka];
    match &a_regs {
        Some(r) => mma::gather(x, r, Which::A, (16, 8, ka as u32), abits, ka, &mut a)?,
        None => {
            let desc = x.get(a_o, 0)?;
            for r in 0..16 {
                for kk in 0..ka {
                    let (kc, bit) = kpos(kk);
                    let ad = desc_addr(desc, trans_a, 16 * wq + r, kc, esz_a);
                    a[r * ka + kk] = pick(read(x, ad, esz_a, &mut chunks)?, bit);
                }
            }
        }
    }
    if sp {
        let (meta_o, sel_o) = (&x.d.opnds[3], &x.d.opnds[4]);
        let sel = x.get(sel_o, 0)? as usize;
        let meta = x.read(meta_o, u32::MAX)?;
        let sm = mma::SparseMeta::new(at, k, sel, meta).map_err(|e| {
            if e.starts_with("sparsity selector") {
                x.undefined(0, format!("wgmma.mma_async.sp {e}"))
            } else {
                x.unsupported(e)
            }
        })?;
        let mut dense = vec![0u64; 16 * k];
        for r in 0..16 {
            for cc in 0..ka {
                let col = sm
                    .column(r, cc)
                    .map_err(|(src, why)| x.undefined(src, format!("wgmma.mma_async.sp {why}")))?;
                dense[r * k + col] = a[r * ka + cc];
            }
        }
        a = dense;
    }
    let bdesc = x.get(b_o, 0)?;
    let mut b = vec![0u64; k * n];
    for kk in 0..k {
        let (kc, bit) = kpos(kk);
        for j in 0..n {
            let ad = desc_addr(bdesc, trans_b, j, kc, esz_b);
            b[kk * n + j] = pick(read(x, ad, esz_b, &mut chunks)?, bit);
        }
    }
    if neg_a || neg_b {
        let sign = |sz: usize| 1u64 << (8 * sz - 1);
        if neg_a {
            a.iter_mut().for_each(|v| *v ^= sign(esz_a));
        }
        if neg_b {
            b.iter_mut().for_each(|v| *v ^= sign(esz_b));
        }
    }
    // C: the accumulator (if scale-d) as a 16 x n matrix.
    let scale_d = x.get(scale_d_o, 0)? & 1 != 0;
    let mut c = vec![0u64; 16 * n];
    if scale_d {
        read_d(x, &dv, dbits, n, &mut c)?;
    }
    let d = if b1 {
        mma::popc_mma((16, n, k), &a, &b, &c, true)
    } else {
        mma::compute(
            (16, n, k),
            at,
            bt,
            dt,
            dt,
            &a,
            &b,
            &c,
            x.has(Flag::SatFinite),
            None,
            true,
        )
        .map_err(|e| x.unsupported(e))?
    };
    // Write D without marking the registers dirty (chained wgmmas are ordered).
    let saved = x.w.wg.take();
    let r = write_d(x, &dv, dbits, n, &d);
    x.w.wg = saved;
    r?;
    // Pending shared-memory reads.
    chunks.sort_unstable();
    chunks.dedup();
    let mut srcs: Vec<Src> = Vec::new();
    for ch in chunks {
        match srcs.last_mut() {
            Some(Src::Shared { off, len, .. }) if (*off as u64 + *len as u64) == ch * 16 => {
                *len += 16
            }
            _ => srcs.push(Src::Shared {
                rank: own,
                off: (ch * 16) as u32,
                len: 16,
            }),
        }
    }
    let op = Op {
        id: 0,
        issuer: issuer(x, 0),
        parts: Vec::new(),
        srcs,
    };
    let id = inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(0, r))?;
    let s = state(x);
    s.uncommitted.push(Pend {
        slots: used.into_iter().map(|sl| (depth, sl)).collect(),
        op: Some(id),
    });
    s.recompute_busy();
    Ok(Flow::Next)
}

/// (row, column) of accumulator element `e` of `lane` in the warp's 16 rows.
fn d_pos(lane: usize, e: usize) -> (usize, usize) {
    let (g, tg) = (lane >> 2, lane & 3);
    let (blk, i) = (e / 4, e % 4);
    (g + 8 * (i >> 1), 8 * blk + 2 * tg + (i & 1))
}

fn read_d(x: &Ctx<'_, '_>, dv: &[Opnd], bits: u32, n: usize, c: &mut [u64]) -> Result<(), Error> {
    let per = (32 / bits) as usize;
    for lane in 0..32 {
        for e in 0..n / 2 {
            let v = x.get(&dv[e / per], lane)?;
            let (r, col) = d_pos(lane, e);
            c[r * n + col] = (v >> (bits as usize * (e % per))) & crate::int::mask(bits);
        }
    }
    Ok(())
}

fn write_d(x: &mut Ctx<'_, '_>, dv: &[Opnd], bits: u32, n: usize, d: &[u64]) -> Result<(), Error> {
    let per = (32 / bits) as usize;
    let mut vals = vec![[0u64; 32]; dv.len()];
    for e in 0..n / 2 {
        for (lane, v) in vals[e / per].iter_mut().enumerate() {
            let (r, col) = d_pos(lane, e);
            *v |= (d[r * n + col] & crate::int::mask(bits)) << (bits as usize * (e % per));
        }
    }
    for (reg, v) in dv.iter().zip(&vals) {
        x.write(reg, v, u32::MAX)?;
    }
    Ok(())
}
