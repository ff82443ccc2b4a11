//! Tensor copies (PTX ISA 9.7.9.27.1, 5.5): `cp.async.bulk.tensor` in tile mode, 1D to 5D,
//! global to shared (with `.multicast::cluster`) and shared to global,
//! `cp.reduce.async.bulk.tensor` (tile) and `cp.async.bulk.prefetch.tensor`.
//!
//! The tensor map is read from its generic address (kernel parameter, `.const` or global
//! memory) in the interpreter's encoding ([`crate::tmap`]). A load transfers the box: in each
//! dimension `ceil(boxDim / elementStride)` elements starting at the (signed) coordinates and
//! stepping by the traversal stride; elements outside the tensor read as zero (or the canonical
//! NaN with NaN fill). The box is laid out densely in shared memory, dimension 0 innermost, and
//! then swizzled: with a swizzle span of 32, 64 or 128 bytes, the 16-byte chunk at shared address
//! `a` is stored at `a ^ ((a >> 7) & m) << 4` with `m` = 1, 3, 7 (the patterns of PTX ISA 5.5.7,
//! whose base offset is `(a / 128) % 8` for 128-byte swizzle). The transaction count is the
//! whole box. A store reads the box from shared memory the same way and writes only the
//! in-bounds elements; its coordinates must be non-negative (9.7.9.27.1.1). `.im2col*`,
//! `.tile::gather4/scatter4` and interleaved maps are not modelled (explicit `Unsupported`).

use super::async_copy::{issuer, key};
use super::bulk::shared_dest;
use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::state::inflight::{Loc, Op, Part, Reduce, Src};
use crate::code::Opnd;
use crate::error::Error;
use crate::mem;
use crate::tmap::{ElemType, TensorMap};
use ptx_ir_core::{Dim, Flag, Opcode, Space, Type};

fn dim_of(x: &Ctx<'_, '_>) -> Result<usize, Error> {
    Ok(match x.d.dim {
        Some(Dim::D1) => 1,
        Some(Dim::D2) => 2,
        Some(Dim::D3) => 3,
        Some(Dim::D4) => 4,
        Some(Dim::D5) => 5,
        Some(_) => return Err(x.unsupported("tensor dimension")),
        None => return Err(x.unsupported("tensor copy without .dim")),
    })
}

fn check_mode(x: &Ctx<'_, '_>) -> Result<(), Error> {
    for f in [
        Flag::Im2col,
        Flag::Im2colW,
        Flag::Im2colW128,
        Flag::Im2colNoOffs,
        Flag::TileGather4,
        Flag::TileScatter4,
    ] {
        if x.has(f) {
            return Err(x.unsupported(format!(
                "tensor load mode .{} is not modelled (tile mode only)",
                f.as_str()
            )));
        }
    }
    Ok(())
}

/// The start of a tile-mode box in the innermost dimension must be 16-byte aligned: the H100
/// stops the kernel with an illegal-instruction error otherwise (measured with
/// `tools/hwvectors/hopper_probe.py`, probes `tmap.*`: loads and stores alike, in bounds or not;
/// `cuTensorMapEncodeTiled` cannot check it, the coordinates being run-time values).
fn check_inner_alignment(
    x: &Ctx<'_, '_>,
    t: &TensorMap,
    start: &[i64; 5],
    l: usize,
) -> Result<(), Error> {
    let off = start[0] * i64::from(t.elem.bytes());
    if off % 16 != 0 {
        return Err(x.undefined(
            l,
            format!(
                "the box starts {off} bytes into the innermost dimension (coordinate {} of {}-byte elements), not a multiple of 16 bytes; the GPU stops with an illegal instruction",
                start[0],
                t.elem.bytes()
            ),
        ));
    }
    Ok(())
}

/// Reads and decodes the tensor map of a `[tensorMap, {coords}]` operand for one lane; returns
/// the map, the coordinates and the map's global address when it lives in global memory.
fn map_and_coords(
    x: &mut Ctx<'_, '_>,
    o: &Opnd,
    dim: usize,
    l: usize,
) -> Result<(TensorMap, [i64; 5], Option<u64>), Error> {
    let Opnd::Tuple(t) = o else {
        return Err(x.unsupported("tensor operand is not `[tensorMap, {coordinates}]`"));
    };
    let (head, coords) = match &t[..] {
        [h, Opnd::Vec(c)] => (h, c),
        _ => return Err(x.unsupported("tensor operand is not `[tensorMap, {coordinates}]`")),
    };
    let a = x.get(head, l)?;
    let mut b = [0u8; 128];
    x.access(AddrSpace::Generic, a, 128, 64, l, false, |m| {
        b.copy_from_slice(m)
    })?;
    let map = TensorMap::decode(&b).map_err(|e| x.undefined(l, e.to_string()))?;
    if map.rank as usize != dim {
        return Err(x.undefined(
            l,
            format!(
                "the instruction is .{dim}d but the tensor map has rank {}",
                map.rank
            ),
        ));
    }
    if coords.len() != dim {
        return Err(x.undefined(
            l,
            format!("{} tensor coordinates for a .{dim}d copy", coords.len()),
        ));
    }
    let mut c = [0i64; 5];
    for (i, co) in coords.iter().enumerate() {
        c[i] = x.get(co, l)? as u32 as i32 as i64;
    }
    let global = matches!(mem::decode_generic(a).0, mem::Region::Global).then_some(a);
    Ok((map, c, global))
}

fn swizzle(a: u64, span: u32) -> u64 {
    let m = match span {
        32 => 1,
        64 => 3,
        128 => 7,
        _ => return a,
    };
    a ^ (((a >> 7) & m) << 4)
}

/// Visits the box: for each run of elements contiguous in the box's dimension 0, calls `f` with
/// the byte offset in the (unswizzled) box, the element count, and the global byte offset of
/// the run's first element or `None` if the run is out of bounds. Runs are single elements when
/// the traversal stride of dimension 0 is not 1.
fn for_runs(t: &TensorMap, start: &[i64; 5], f: impl FnMut(u64, u64, Option<u64>)) {
    for_runs_bound(t, start, t.dims[0] as u64, f)
}

/// As [`for_runs`] for a store or reduction: the H100 writes a row's last 16-byte chunk whole,
/// so elements past the end of dimension 0 inside it are written too (measured with generated
/// tensor stores: a `u16` row of 14 elements also got elements 14 and 15; 10 of 17 differing
/// kernels of a batch agree with this rule and no recorded vector disagrees). Loads fill those
/// elements as usual (`tensor.2d.f16.padded`).
fn for_store_runs(t: &TensorMap, start: &[i64; 5], f: impl FnMut(u64, u64, Option<u64>)) {
    let es = t.elem.bytes() as u64;
    for_runs_bound(t, start, (t.dims[0] as u64 * es).div_ceil(16) * 16 / es, f)
}

fn for_runs_bound(
    t: &TensorMap,
    start: &[i64; 5],
    dim0: u64,
    mut f: impl FnMut(u64, u64, Option<u64>),
) {
    let r = t.rank as usize;
    let be: Vec<u64> = (0..5)
        .map(|i| if i < r { t.box_elems(i) as u64 } else { 1 })
        .collect();
    let es = t.elem.bytes() as u64;
    let mut idx = [0u64; 5];
    let mut boff = 0u64;
    loop {
        // Outer coordinates of this row.
        let mut outer = [0u64; 5];
        let mut inb = true;
        for i in 1..r {
            let c = start[i] + (idx[i] * t.estrides[i] as u64) as i64;
            if c < 0 || c >= t.dims[i] as i64 {
                inb = false;
            }
            outer[i] = c.max(0) as u64;
        }
        let n0 = be[0];
        if !inb {
            f(boff, n0, None);
        } else if t.estrides[0] == 1 {
            // Split the row into out-of-bounds / in-bounds / out-of-bounds runs.
            let s0 = start[0];
            let lo = (-s0).clamp(0, n0 as i64) as u64;
            let hi = (dim0 as i64 - s0).clamp(0, n0 as i64) as u64;
            let hi = hi.max(lo);
            if lo > 0 {
                f(boff, lo, None);
            }
            if hi > lo {
                let mut c = outer;
                c[0] = (s0 + lo as i64) as u64;
                f(boff + lo * es, hi - lo, Some(t.offset(&c)));
            }
            if n0 > hi {
                f(boff + hi * es, n0 - hi, None);
            }
        } else {
            for i0 in 0..n0 {
                let c0 = start[0] + (i0 * t.estrides[0] as u64) as i64;
                if c0 < 0 || c0 >= dim0 as i64 {
                    f(boff + i0 * es, 1, None);
                } else {
                    let mut c = outer;
                    c[0] = c0 as u64;
                    f(boff + i0 * es, 1, Some(t.offset(&c)));
                }
            }
        }
        boff += n0 * es;
        // Next row.
        let mut i = 1;
        loop {
            if i >= 5 {
                return;
            }
            idx[i] += 1;
            if idx[i] < be[i] {
                break;
            }
            idx[i] = 0;
            i += 1;
        }
    }
}

/// Splits `bytes` destined for shared offset `base` (swizzled with `span`) into contiguous
/// (offset, bytes) pieces.
fn swizzled_pieces(base: u32, bytes: &[u8], span: u32) -> Vec<(u32, Vec<u8>)> {
    if span == 0 {
        return vec![(base, bytes.to_vec())];
    }
    let mut chunks: Vec<(u64, &[u8])> = bytes
        .chunks(16)
        .enumerate()
        .map(|(i, c)| (swizzle(base as u64 + 16 * i as u64, span), c))
        .collect();
    chunks.sort_by_key(|c| c.0);
    let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
    for (a, c) in chunks {
        match out.last_mut() {
            Some((o, v)) if *o as u64 + v.len() as u64 == a => v.extend_from_slice(c),
            _ => out.push((a as u32, c.to_vec())),
        }
    }
    out
}

fn reduce_type(e: ElemType) -> Option<Type> {
    Some(match e {
        ElemType::U32 => Type::U32,
        ElemType::S32 => Type::S32,
        ElemType::U64 => Type::U64,
        ElemType::S64 => Type::S64,
        ElemType::F16 => Type::F16,
        ElemType::Bf16 => Type::Bf16,
        ElemType::F32 | ElemType::F32Ftz => Type::F32,
        ElemType::F64 => Type::F64,
        _ => return None,
    })
}

/// `cp.async.bulk.tensor` and `cp.reduce.async.bulk.tensor`
pub fn tensor(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    check_mode(x)?;
    let dim = dim_of(x)?;
    let to_global = x.d.space == Some(Space::Global);
    if to_global {
        return store(x, dim);
    }
    let cluster = x.d.space == Some(Space::SharedCluster);
    let multicast = x.has(Flag::MulticastCluster);
    let pair = x.has(Flag::CtaGroup2);
    // `[dst], [tensorMap, coords], [mbar]{, ctaMask}{, cache-policy}` (the arity of the
    // direction and `.multicast::cluster`)
    let [dst, to, mbar] = x.ops();
    for l in lanes(x.emask) {
        let da = x.addr(dst, l)?;
        let (t, start, gmap) = map_and_coords(x, to, dim, l)?;
        check_inner_alignment(x, &t, &start, l)?;
        let ma = x.addr(mbar, l)?;
        let mask = if multicast {
            let [.., cta_mask] = x.ops::<4>();
            Some(x.get(cta_mask, l)?)
        } else {
            None
        };
        let total = t.box_bytes();
        if da % 16 != 0 {
            return Err(x.undefined(
                l,
                format!("tensor copy destination {da:#x} is not 16-byte aligned (PTX ISA 5.5.3.1)"),
            ));
        }
        if t.swizzle != 0 && da % 128 != 0 {
            return Err(x.unsupported(format!("a swizzled tensor copy to shared address {da:#x}, which is not 128-byte aligned (the swizzle base offset is modelled for 128-byte aligned boxes only)")));
        }
        // With cta_group::2 the mbarrier may be in the destination's peer CTA.
        let sd = match shared_dest(x, l, da, ma, total as u32, cluster, false, mask) {
            Err(Error::Undefined { .. }) if pair && mask.is_none() => {
                let sp = if cluster {
                    AddrSpace::SharedCluster
                } else {
                    AddrSpace::Shared
                };
                let (dr, doff) = x.shared_loc(sp, da, total as usize, l, !cluster)?;
                let (mr, moff) = x.shared_loc(sp, ma, 8, l, false)?;
                if mr != dr ^ 1 {
                    return Err(x.undefined(l, "with .cta_group::2 the mbarrier must be in the destination CTA or its peer (PTX ISA 9.7.9.27.1.2)"));
                }
                super::bulk::SharedDest {
                    dests: vec![(dr, doff)],
                    mbars: vec![(mr, moff)],
                }
            }
            r => r?,
        };
        // Gather the box.
        let es = t.elem.bytes() as usize;
        let mut boxb = vec![0u8; total as usize];
        let mut srcs: Vec<Src> = Vec::new();
        let mut fault = None;
        {
            let global = &mut x.m.global;
            for_runs(&t, &start, |boff, n, g| {
                let dst = &mut boxb[boff as usize..(boff as usize + n as usize * es)];
                match g {
                    Some(go) => {
                        let a = t.addr.wrapping_add(go);
                        let len = n as usize * es;
                        match global.read(a, len) {
                            Ok(s) => dst.copy_from_slice(s),
                            Err(_) => {
                                fault.get_or_insert(a);
                            }
                        }
                        match srcs.last_mut() {
                            Some(Src::Global { addr, len: sl }) if *addr + *sl == a => {
                                *sl += len as u64
                            }
                            _ => srcs.push(Src::Global {
                                addr: a,
                                len: len as u64,
                            }),
                        }
                    }
                    None => {
                        if t.nan_fill {
                            let v = t.elem.nan_fill();
                            for e in dst.chunks_mut(es) {
                                mem::put_le(e, v);
                            }
                        }
                    }
                }
            });
        }
        if let Some(a) = fault {
            return Err(x.undefined(
                l,
                format!(
                    "the tensor map describes global memory at {a:#x}, outside every allocation"
                ),
            ));
        }
        super::proxy::check_reads(x, l, &srcs)?;
        if let Some(g) = gmap {
            srcs.push(Src::Global { addr: g, len: 128 });
        }
        let mut parts = Vec::new();
        for (&(rank, off), &mb) in sd.dests.iter().zip(&sd.mbars) {
            let pieces = swizzled_pieces(off, &boxb, t.swizzle);
            for (k, (o, data)) in pieces.into_iter().enumerate() {
                parts.push(Part {
                    dest: Loc::Shared { rank, off: o },
                    data,
                    byte_mask: None,
                    reduce: None,
                    mbar: (k == 0).then_some(mb),
                    tx: if k == 0 { total as u32 } else { 0 },
                });
            }
        }
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs,
        };
        inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
    }
    Ok(Flow::Next)
}

fn store(x: &mut Ctx<'_, '_>, dim: usize) -> Result<Flow, Error> {
    let reduce = x.d.op == Opcode::CpReduceAsyncBulkTensor;
    let red_op = if reduce {
        Some(
            x.d.oper
                .ok_or_else(|| x.unsupported("reduction without an operation"))?,
        )
    } else {
        None
    };
    // `[tensorMap, coords], [src]{, cache-policy}`
    let [to, src] = x.ops();
    for l in lanes(x.emask) {
        let (t, start, gmap) = map_and_coords(x, to, dim, l)?;
        check_inner_alignment(x, &t, &start, l)?;
        if let Some(i) = (0..dim).find(|&i| start[i] < 0) {
            return Err(x.undefined(l, format!("tensor store coordinate {i} is negative ({}); the .global.shared::cta direction needs non-negative coordinates (PTX ISA 9.7.9.27.1.1)", start[i])));
        }
        let red = match red_op {
            Some(op) => Some(Reduce {
                op,
                ty: reduce_type(t.elem).ok_or_else(|| {
                    x.unsupported(format!("tensor reduction on .{} elements", t.elem.name()))
                })?,
            }),
            None => None,
        };
        // The ISA's reduction types have `add` on `.u64` and the bitwise operations on `.b64`,
        // not on signed 64-bit elements; the H100 stops such a copy with an illegal
        // instruction (probes `tred.s64.*`: add/and/or/xor trap, min/max run).
        if let Some(r) = &red {
            use ptx_ir_core::Op as R;
            if r.ty == Type::S64 && !matches!(r.op, R::Min | R::Max) {
                return Err(x.undefined(
                    l,
                    format!(
                        "tensor reduction .{} on a tensor map of .s64 elements (only min and max take .s64; the H100 traps)",
                        r.op.as_str()
                    ),
                ));
            }
        }
        let sa = x.addr(src, l)?;
        let total = t.box_bytes();
        if sa % 16 != 0 {
            return Err(x.undefined(
                l,
                format!("tensor copy source {sa:#x} is not 16-byte aligned (PTX ISA 5.5.3.1)"),
            ));
        }
        if t.swizzle != 0 && sa % 128 != 0 {
            return Err(x.unsupported(format!(
                "a swizzled tensor copy from shared address {sa:#x}, which is not 128-byte aligned"
            )));
        }
        let (rank, off) = x.shared_loc(AddrSpace::Shared, sa, total as usize, l, true)?;
        // Read the box (unswizzling).
        let sh = &x.cl.shared[rank as usize];
        let mut boxb = vec![0u8; total as usize];
        for (i, c) in boxb.chunks_mut(16).enumerate() {
            let a = swizzle(off as u64 + 16 * i as u64, t.swizzle) as usize;
            if let Some(s) = sh.get(a..a + c.len()) {
                c.copy_from_slice(s);
            }
        }
        let es = t.elem.bytes() as usize;
        let mut parts = Vec::new();
        let mut bad = None;
        {
            let global = &mut x.m.global;
            for_store_runs(&t, &start, |boff, n, g| {
                if let Some(go) = g {
                    let a = t.addr.wrapping_add(go);
                    let len = n as usize * es;
                    if global.check(a, len).is_err() {
                        bad.get_or_insert(a);
                    }
                    parts.push(Part {
                        dest: Loc::Global(a),
                        data: boxb[boff as usize..boff as usize + len].to_vec(),
                        byte_mask: None,
                        reduce: red,
                        mbar: None,
                        tx: 0,
                    });
                }
            });
        }
        if let Some(a) = bad {
            return Err(x.undefined(
                l,
                format!(
                    "the tensor map describes global memory at {a:#x}, outside every allocation"
                ),
            ));
        }
        let mut srcs = vec![Src::Shared {
            rank,
            off,
            len: total as u32,
        }];
        super::proxy::check_reads(x, l, &srcs)?;
        if let Some(g) = gmap {
            srcs.push(Src::Global { addr: g, len: 128 });
        }
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs,
        };
        let id = inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
        let k = key(x, l);
        x.cl.inflight.groups(true, k).uncommitted.push(id);
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.prefetch.tensor`: checks the tensor map and coordinates; no cache is modelled.
pub fn prefetch(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    check_mode(x)?;
    let dim = dim_of(x)?;
    let [to] = x.ops();
    for l in lanes(x.emask) {
        map_and_coords(x, to, dim, l)?;
    }
    Ok(Flow::Next)
}

/// `tensormap.replace.tile.FIELD{.ss}.b1024.type [addr], {ord,} new_val`: rewrites one field of
/// the tensor map at `addr` ([`crate::tmap::replace`]), a weak write of the object.
pub fn replace(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    use crate::tmap::Field;
    let fields = [
        (Flag::GlobalAddress, Field::GlobalAddress),
        (Flag::Rank, Field::Rank),
        (Flag::BoxDim, Field::BoxDim),
        (Flag::GlobalDim, Field::GlobalDim),
        (Flag::GlobalStride, Field::GlobalStride),
        (Flag::ElementStride, Field::ElementStride),
        (Flag::Elemtype, Field::Elemtype),
        (Flag::InterleaveLayout, Field::InterleaveLayout),
        (Flag::SwizzleMode, Field::SwizzleMode),
        (Flag::SwizzleAtomicity, Field::SwizzleAtomicity),
        (Flag::FillMode, Field::FillMode),
    ];
    let field = fields
        .iter()
        .find(|(f, _)| x.has(*f))
        .map(|(_, f)| *f)
        .ok_or_else(|| x.unsupported("tensormap.replace without a field"))?;
    let n = x.d.opnds.len();
    let addr_o = &x.d.opnds[0];
    let space = AddrSpace::of(x.d.space);
    let wide = x.types().last() == Some(&Type::B64);
    for l in lanes(x.emask) {
        let a = x.addr(addr_o, l)?;
        let ord = if n == 3 {
            x.get(&x.d.opnds[1], l)? as u32
        } else {
            0
        };
        let mut v = x.get(&x.d.opnds[n - 1], l)?;
        if !wide {
            v &= 0xffff_ffff;
        }
        let mut b = [0u8; 128];
        x.access(space, a, 128, 64, l, false, |m| b.copy_from_slice(m))?;
        crate::tmap::replace(&mut b, field, ord, v).map_err(|e| x.undefined(l, e))?;
        x.access(space, a, 128, 64, l, true, |m| m.copy_from_slice(&b))?;
    }
    Ok(Flow::Next)
}

/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
/// [dst], [src], 128`: copies the tensor map from shared to global memory. The release fence
/// it adds orders the copy before later tensormap-proxy reads, which every access here is.
pub fn cp_fenceproxy(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, src, size] = x.ops();
    for l in lanes(x.emask) {
        let n = x.get(size, l)?;
        if n != 128 {
            return Err(x.undefined(
                l,
                format!(
                    "tensormap.cp_fenceproxy size {n}: the valid value is 128 (PTX ISA 9.7.13.16)"
                ),
            ));
        }
        let (d, s) = (x.addr(dst, l)?, x.addr(src, l)?);
        let mut b = [0u8; 128];
        x.access(AddrSpace::Shared, s, 128, 64, l, false, |m| {
            b.copy_from_slice(m)
        })?;
        x.access(AddrSpace::Global, d, 128, 64, l, true, |m| {
            m.copy_from_slice(&b)
        })?;
    }
    Ok(Flow::Next)
}
