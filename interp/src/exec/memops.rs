//! Data movement: `mov`, `ld`, `st`, atomics, address conversion.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::direct;
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::{Error, FaultKind};
use crate::float::{self, BinOp, Fmt, Mode};
use crate::int::{mask, sext};
use crate::mem::{self, Region};
use ptx_ir_core::{Flag, Op, Space, Type};

fn elem_bytes(t: Type) -> usize {
    (t.bits() as usize).div_ceil(8).max(1)
}

fn vec_n(x: &Ctx<'_, '_>) -> usize {
    match x.d.vector {
        None => 1,
        Some(ptx_ir_core::Vector::V2) => 2,
        Some(ptx_ir_core::Vector::V4) => 4,
        Some(ptx_ir_core::Vector::V8) => 8,
    }
}

/// `mov`, including packing `{a, b}` into a wider register and unpacking.
pub fn mov(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = x.d.ty.unwrap_or(Type::B32);
    let e = x.emask;
    let [d, s] = x.ops();
    let w = t.bits().min(128);
    match (d, s) {
        (Opnd::Vec(parts), src) => {
            let n = parts.len().max(1) as u32;
            let ew = w / n;
            for l in lanes(e) {
                let lo = x.get(src, l)?;
                let hi = x.get_hi(src, l);
                for (i, p) in parts.iter().enumerate() {
                    let sh = ew * i as u32;
                    let v = if sh >= 64 {
                        hi.checked_shr(sh - 64).unwrap_or(0)
                    } else if sh + ew > 64 && sh < 64 {
                        (lo >> sh) | hi.checked_shl(64 - sh).unwrap_or(0)
                    } else {
                        lo >> sh
                    };
                    x.set(p, l, v & mask(ew.min(64)))?;
                }
            }
        }
        (dst, Opnd::Vec(parts)) => {
            let n = parts.len().max(1) as u32;
            let ew = w / n;
            for l in lanes(e) {
                let (mut lo, mut hi) = (0u64, 0u64);
                for (i, p) in parts.iter().enumerate() {
                    let v = x.get(p, l)? & mask(ew.min(64));
                    let sh = ew * i as u32;
                    if sh >= 64 {
                        hi |= v.checked_shl(sh - 64).unwrap_or(0);
                    } else {
                        lo |= v << sh;
                        if sh + ew > 64 {
                            hi |= v.checked_shr(64 - sh).unwrap_or(0);
                        }
                    }
                }
                x.set128(dst, l, lo, hi)?;
            }
        }
        (dst, src) => {
            if w > 64 {
                for l in lanes(e) {
                    let lo = x.get(src, l)?;
                    let hi = x.get_hi(src, l);
                    x.set128(dst, l, lo, hi)?;
                }
            } else {
                let v = x.read(src, e)?;
                x.write(dst, &v, e)?;
            }
        }
    }
    Ok(Flow::Next)
}

fn space(x: &Ctx<'_, '_>) -> AddrSpace {
    AddrSpace::of(x.d.space)
}

/// `ld`, `ldu`
pub fn ld(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = x.d.ty.ok_or_else(|| x.unsupported("ld without a type"))?;
    let sp = space(x);
    let n = vec_n(x);
    let es = elem_bytes(t);
    let signed = t.is_signed();
    let [d, a] = x.ops();
    let dests: &[Opnd] = match d {
        Opnd::Vec(v) => v,
        o => std::slice::from_ref(o),
    };
    let total = es * n;
    if total > 64 {
        return Err(x.unsupported("access wider than 64 bytes"));
    }
    let mut bytes = [0u8; 64];
    if es <= 8 && dests.iter().take(n).all(lane_array_dest) {
        // Each destination's lanes are gathered and written once, as `write` does for
        // arithmetic; registers are not observable after a fault, so an error part-way leaves
        // nothing that differs from writing lane by lane.
        let mut vals = [[0u64; 32]; 8];
        let mask = x.emask;
        let k = n.min(dests.len());
        if direct::load(x, sp, a, (es, n, k, signed), &mut vals) {
            for (dst, v) in dests.iter().zip(&vals).take(n) {
                x.write(dst, v, mask)?;
            }
            return Ok(Flow::Next);
        }
        for l in lanes(mask) {
            let addr = x.addr(a, l)?;
            x.access(sp, addr, total, total, l, false, |b| {
                bytes[..total].copy_from_slice(b)
            })?;
            for (i, v) in vals.iter_mut().enumerate().take(k) {
                let mut e = mem::get_le(&bytes[i * es..(i + 1) * es]);
                if signed {
                    e = sext(e, es as u32 * 8) as u64;
                }
                v[l] = e;
            }
        }
        for (dst, v) in dests.iter().zip(&vals).take(n) {
            x.write(dst, v, mask)?;
        }
        return Ok(Flow::Next);
    }
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        x.access(sp, addr, total, total, l, false, |b| {
            bytes[..total].copy_from_slice(b)
        })?;
        for (i, dst) in dests.iter().enumerate().take(n) {
            let chunk = &bytes[i * es..(i + 1) * es];
            if es > 8 {
                let lo = mem::get_le(&chunk[..8]);
                let hi = mem::get_le(&chunk[8..]);
                x.set128(dst, l, lo, hi)?;
            } else {
                let mut v = mem::get_le(chunk);
                if signed {
                    v = sext(v, es as u32 * 8) as u64;
                }
                x.set(dst, l, v)?;
            }
        }
    }
    Ok(Flow::Next)
}

/// Whether `ld` may gather a destination's lanes and write them with [`Ctx::write`]: a
/// register of at most 64 bits (a wider one keeps its high half as [`Ctx::set`] leaves it) or
/// `_`.
fn lane_array_dest(d: &Opnd) -> bool {
    matches!(d, Opnd::Reg { bits, .. } if *bits <= 64) || matches!(d, Opnd::Sink)
}

/// `st`
pub fn st(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = x.d.ty.ok_or_else(|| x.unsupported("st without a type"))?;
    let sp = space(x);
    let n = vec_n(x);
    let es = elem_bytes(t);
    let [a, s] = x.ops();
    let srcs: &[Opnd] = match s {
        Opnd::Vec(v) => v,
        o => std::slice::from_ref(o),
    };
    if es * n > 64 {
        return Err(x.unsupported("access wider than 64 bytes"));
    }
    let mut store = [0u8; 64];
    let buf = &mut store[..es * n];
    if es <= 8
        && srcs
            .iter()
            .take(n)
            .all(|s| matches!(s, Opnd::Reg { .. } | Opnd::Imm(_)))
    {
        // Registers and immediates are read for the whole warp at once (such a read cannot
        // fail, so the first error is still the first lane's).
        let mask = x.emask;
        let mut vals = [[0u64; 32]; 8];
        for (v, src) in vals.iter_mut().zip(srcs).take(n) {
            *v = x.read(src, mask)?;
        }
        let total = es * n;
        let k = n.min(srcs.len());
        if direct::store(x, sp, a, (es, n, k), &vals) {
            return Ok(Flow::Next);
        }
        for l in lanes(mask) {
            let addr = x.addr(a, l)?;
            for (i, v) in vals.iter().enumerate().take(k) {
                mem::put_le(&mut buf[i * es..(i + 1) * es], v[l]);
            }
            x.access(sp, addr, total, total, l, true, |b| b.copy_from_slice(buf))?;
        }
        return Ok(Flow::Next);
    }
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        for (i, src) in srcs.iter().enumerate().take(n) {
            let chunk = &mut buf[i * es..(i + 1) * es];
            let v = x.get(src, l)?;
            if es > 8 {
                mem::put_le(&mut chunk[..8], v);
                mem::put_le(&mut chunk[8..], x.get_hi(src, l));
            } else {
                mem::put_le(chunk, v);
            }
        }
        let total = es * n;
        x.access(sp, addr, total, total, l, true, |b| b.copy_from_slice(buf))?;
    }
    Ok(Flow::Next)
}

/// `atom`, `red`: scalar, vector (`.v2`/`.v4`/`.v8`: element by element on consecutive
/// memory, the vector read and written as one access) and 128-bit `.exch`/`.cas`.
pub fn atom(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t =
        x.d.ty
            .ok_or_else(|| x.unsupported("atomic without a type"))?;
    let is_red = matches!(
        x.d.op,
        ptx_ir_core::Opcode::Red | ptx_ir_core::Opcode::RedAsync
    );
    let op =
        x.d.oper
            .ok_or_else(|| x.unsupported("atomic without an operation"))?;
    let sp = match x.d.space {
        None => AddrSpace::Generic,
        s => AddrSpace::of(s),
    };
    // `red [a], b{, c}`, `atom d, [a], b{, c}`
    let (d, a, bo, co) = if is_red {
        let [a, b] = x.ops();
        (None, a, b, x.opt(2))
    } else {
        let [d, a, b] = x.ops();
        (Some(d), a, b, x.opt(3))
    };
    let size = elem_bytes(t);
    if size > 8 {
        return atom128(x, sp, t, op, (d, a, bo, co));
    }
    // A vector's elements: its registers, one each.
    let n = vec_n(x);
    fn elems(o: &Opnd) -> &[Opnd] {
        match o {
            Opnd::Vec(v) => v,
            o => std::slice::from_ref(o),
        }
    }
    let (bs, ds) = (elems(bo), d.map(elems).unwrap_or_default());
    if bs.len() != n || (!is_red && ds.len() != n) || (n > 1 && co.is_some() && !x.d.l2_hint) {
        return Err(x.unsupported("atomic vector operands that do not match its vector size"));
    }
    let w = (size * 8) as u32;
    let total = size * n;
    let mut bytes = [0u8; 64];
    let mut out = [[0u64; 32]; 8];
    if total > bytes.len() || n > out.len() {
        return Err(x.unsupported("atomic wider than 64 bytes"));
    }
    let fmt = Fmt::of(t);
    let noftz = x.has(Flag::NoFtz);
    if x.cl.race.is_some() && matches!(x.d.lower.as_deref(), Some(crate::code::Lowering::RemoteRmw))
    {
        lost_in_warp(x, sp, a, size)?;
    }
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        let c = match co {
            Some(o) if op == Op::Cas => x.get(o, l)?,
            _ => 0,
        };
        x.access(sp, addr, total, total, l, false, |m| {
            bytes[..total].copy_from_slice(m)
        })?;
        for (i, bo) in bs.iter().enumerate() {
            let b = x.get(bo, l)?;
            let chunk = &mut bytes[i * size..(i + 1) * size];
            let old = mem::get_le(chunk);
            let new = element(t, op, fmt, noftz, w, (old, b, c)).map_err(|e| x.unsupported(e))?;
            mem::put_le(chunk, new);
            out[i][l] = if t.is_signed() {
                sext(old, w) as u64
            } else {
                old
            };
        }
        x.access(sp, addr, total, total, l, true, |m| {
            m.copy_from_slice(&bytes[..total])
        })?;
    }
    for (dst, v) in ds.iter().zip(&out) {
        x.write(dst, v, x.emask)?;
    }
    Ok(Flow::Next)
}

/// The `race` check of an atomic that ptxas makes a plain read-modify-write on another CTA's
/// shared memory ([`crate::lower::remote_rmw`]) within the warp: two lanes that update one word
/// of another CTA load the same old value, and one store is lost (the checks between warps
/// are the race detector's, `Ctx::race_check`).
fn lost_in_warp(x: &mut Ctx<'_, '_>, sp: AddrSpace, a: &Opnd, size: usize) -> Result<(), Error> {
    use crate::check::{Class, Finding};
    let own = x.w.cta;
    let mut words: smallvec::SmallVec<[(u32, u32, usize); 32]> = smallvec::SmallVec::new();
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        if let Some(Ok((rank, off))) = x.locate(sp, addr) {
            if rank != own {
                words.push((rank, off / size as u32, l));
            }
        }
    }
    words.sort_unstable();
    let Some(p) = words
        .windows(2)
        .find(|p| (p[0].0, p[0].1) == (p[1].0, p[1].1))
    else {
        return Ok(());
    };
    let ((rank, word, first), second) = (p[0], p[1].2);
    let (fid, pc) = (x.fid, x.pc);
    let finding = Finding {
        class: Class::Race,
        what: format!(
            "lanes {first} and {second} of one warp update the same word of CTA rank {rank}'s shared memory at once{}",
            super::ctx::REMOTE_RMW_NOTE
        ),
        site: x.site(),
        threads: vec![x.thread(first), x.thread(second)],
        space: Some("shared".into()),
        addr: Some(u64::from(word) * size as u64),
        count: 1,
    };
    x.m.findings.add(Class::Race, fid, pc, || finding);
    Ok(())
}

/// One element of an atomic: the value `op` stores given the old value, `b` and `c`.
pub(super) fn element(
    t: Type,
    op: Op,
    fmt: Option<Fmt>,
    noftz: bool,
    w: u32,
    (old, b, c): (u64, u64, u64),
) -> Result<u64, &'static str> {
    // A packed pair (`f16x2`, `bf16x2`) is two elements, each on its own.
    let n = if t == Type::F16x2 || t == Type::Bf16x2 {
        2
    } else {
        1
    };
    let new = match (op, fmt) {
        (Op::Add, Some(f)) => {
            let m = Mode {
                ftz: f == Fmt::F32 && !noftz,
                ..Mode::default()
            };
            let mut r = 0u64;
            for i in 0..n {
                let sh = f.bits() * i;
                let (p, q) = ((old >> sh) & f.mask(), (b >> sh) & f.mask());
                if f == Fmt::F64 && (float::is_nan(p, f) || float::is_nan(q, f)) {
                    // The f64 atomic adder passes a NaN through unchanged, signalling ones
                    // included, the operand's before memory's (measured on sm_90).
                    r |= if float::is_nan(q, f) { q } else { p } << sh;
                    continue;
                }
                r |= float::bin(BinOp::Add, f, p, q, m) << sh;
            }
            r
        }
        (Op::Min | Op::Max, Some(f)) => {
            let mut r = 0u64;
            for i in 0..n {
                let sh = f.bits() * i;
                let (p, q) = ((old >> sh) & f.mask(), (b >> sh) & f.mask());
                let mm = float::MinMax {
                    max: op == Op::Max,
                    ..Default::default()
                };
                r |= float::min_max(f, p, q, mm) << sh;
            }
            r
        }
        (_, Some(_)) => return Err("this floating-point atomic"),
        (Op::And, None) => old & b,
        (Op::Or, None) => old | b,
        (Op::Xor, None) => old ^ b,
        (Op::Exch, None) => b,
        (Op::Cas, None) => {
            if old & mask(w) == b & mask(w) {
                c
            } else {
                old
            }
        }
        (Op::Add, None) => old.wrapping_add(b),
        (Op::Inc, None) => crate::int::atomic_inc(old, b, w),
        (Op::Dec, None) => crate::int::atomic_dec(old, b, w),
        (Op::Min | Op::Max, None) => crate::int::min_max(old, b, w, t.is_signed(), op == Op::Min),
        (Op::Popc, None) => return Err("atomic popc"),
    } & mask(w);
    Ok(new)
}

/// 128-bit `atom.exch.b128` and `atom.cas.b128` (sm_90): the old value into `d`.
fn atom128(
    x: &mut Ctx<'_, '_>,
    sp: AddrSpace,
    t: Type,
    op: Op,
    (d, a, bo, co): (Option<&Opnd>, &Opnd, &Opnd, Option<&Opnd>),
) -> Result<Flow, Error> {
    if elem_bytes(t) != 16 || !matches!(op, Op::Exch | Op::Cas) || x.d.vector.is_some() {
        return Err(x.unsupported("128-bit atomics other than .exch and .cas on .b128"));
    }
    let wide = |x: &Ctx<'_, '_>, o: &Opnd, l: usize| -> Result<u128, Error> {
        Ok(u128::from(x.get(o, l)?) | u128::from(x.get_hi(o, l)) << 64)
    };
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        let b = wide(x, bo, l)?;
        let c = match co {
            Some(o) if op == Op::Cas => Some(wide(x, o, l)?),
            _ => None,
        };
        let mut old = [0u8; 16];
        x.access(sp, addr, 16, 16, l, false, |m| old.copy_from_slice(m))?;
        let oldv = u128::from_le_bytes(old);
        let new = match c {
            Some(c) if oldv == b => c,
            Some(_) => oldv,
            None => b,
        };
        x.access(sp, addr, 16, 16, l, true, |m| {
            m.copy_from_slice(&new.to_le_bytes())
        })?;
        if let Some(d) = d {
            x.set128(d, l, oldv as u64, (oldv >> 64) as u64)?;
        }
    }
    Ok(Flow::Next)
}

/// `st.async`, `red.async`: a store or reduction into a CTA's shared memory of the cluster that
/// then performs a complete-tx of its size on the mbarrier `[mbar]` of that CTA (PTX ISA
/// 9.7.9.12, 9.7.13.7). The interpreter performs both at once, one of the orders the
/// asynchronous proxy allows: the receiving CTA observes the data when its mbarrier phase
/// completes, as it must wait for. The `.release.(gpu|sys)` forms without an mbarrier are a
/// store or reduction with release semantics, which sequential execution gives.
pub fn store_async(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let red = x.d.op == ptx_ir_core::Opcode::RedAsync;
    if red {
        atom(x)?;
    } else {
        st(x)?;
    }
    let Some(mb) = x.opt(2) else {
        return Ok(Flow::Next);
    };
    let t =
        x.d.ty
            .ok_or_else(|| x.unsupported("st.async without a type"))?;
    let size = elem_bytes(t) * if red { 1 } else { vec_n(x) };
    let sp = match x.d.space {
        None => AddrSpace::Generic,
        s => AddrSpace::of(s),
    };
    let [a] = x.ops();
    for l in lanes(x.emask) {
        let (dst, bar) = (x.addr(a, l)?, x.addr(mb, l)?);
        let (drank, _) = x.shared_loc(sp, dst, size, l, false)?;
        let (mrank, moff) = x.shared_loc(sp, bar, 8, l, false)?;
        if moff % 8 != 0 {
            return Err(x.fault(crate::error::FaultKind::Misaligned, sp, bar, 8, l));
        }
        if mrank != drank {
            return Err(x.undefined(
                l,
                format!("the mbarrier (CTA rank {mrank}) is not in the CTA of the destination (rank {drank}): both must be in the same CTA (PTX ISA 9.7.9.12)"),
            ));
        }
        super::state::mbarrier::complete_tx(&mut x.cl.mbars, (mrank, moff), size as i64)
            .map_err(|e| x.undefined(l, e))?;
    }
    Ok(Flow::Next)
}

fn window(s: Option<Space>) -> Option<u64> {
    Some(match s? {
        Space::Global => 0,
        Space::Shared | Space::SharedCta | Space::SharedCluster => mem::SHARED_WINDOW,
        Space::Local => mem::LOCAL_WINDOW,
        Space::Const => mem::CONST_WINDOW,
        Space::Param | Space::ParamEntry | Space::ParamFunc => mem::PARAM_WINDOW,
        _ => return None,
    })
}

/// `cvta`, `cvta.to`
pub fn cvta(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let to = x.has(Flag::To);
    let base = window(x.d.space).ok_or_else(|| x.unsupported("cvta space"))?;
    let w = x.types().last().map(|t| t.bits()).unwrap_or(64).min(64);
    let e = x.emask;
    let [d, a] = x.ops();
    let a = x.read(a, e)?;
    let mut out = [0u64; 32];
    for l in lanes(e) {
        out[l] = if to {
            a[l].wrapping_sub(base)
        } else {
            a[l].wrapping_add(base)
        } & mask(w);
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `isspacep`
pub fn isspacep(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let s = x.d.space;
    let e = x.emask;
    let [d, a] = x.ops();
    let a = x.read(a, e)?;
    let inw = |v: u64, b: u64| v >= b && v - b < mem::WINDOW_SIZE;
    let mut out = [0u64; 32];
    for l in lanes(e) {
        let v = a[l];
        out[l] = match s {
            Some(Space::Shared | Space::SharedCta) => {
                inw(v, mem::SHARED_WINDOW) && mem::split_cluster(v - mem::SHARED_WINDOW).0.is_none()
            }
            Some(Space::SharedCluster) => inw(v, mem::SHARED_WINDOW),
            Some(Space::Local) => inw(v, mem::LOCAL_WINDOW),
            Some(Space::Const) => inw(v, mem::CONST_WINDOW),
            Some(Space::Param | Space::ParamEntry) => inw(v, mem::PARAM_WINDOW),
            // The ISA: "isspacep.global returns 1 for Kernel Function Parameters as .param
            // window is contained within the .global window" (and so does an H100).
            Some(Space::Global) => {
                !inw(v, mem::SHARED_WINDOW)
                    && !inw(v, mem::LOCAL_WINDOW)
                    && !inw(v, mem::CONST_WINDOW)
            }
            _ => false,
        } as u64;
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `createpolicy`: an opaque cache policy; the interpreter has no caches.
pub fn createpolicy(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d] = x.ops();
    x.write(d, &[0u64; 32], x.emask)?;
    Ok(Flow::Next)
}

/// Whether lane value `a` of a `mapa`/`getctarank` address is generic: always without a state
/// space, and with `.shared::cluster` when it lies in the generic shared window (a
/// `.shared::cluster` address never does). An H100 maps a generic address under
/// `mapa.shared::cluster.u64` to the generic address of the target, as `mapa.u64` does (seed
/// 003's DSMEM example relies on it; `tools/seedspec/probes/mapa_generic.ptx`).
fn generic_shared(space_given: bool, a: u64) -> bool {
    !space_given || a.wrapping_sub(mem::SHARED_WINDOW) < mem::WINDOW_SIZE
}

/// `mapa`: the address of the same shared variable in CTA `b` of the cluster.
pub fn mapa(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let space_given = x.d.space.is_some();
    let e = x.emask;
    let [d, a, b] = x.ops();
    let a = x.read(a, e)?;
    let b = x.read(b, e)?;
    let ncta = x.cl.shared.len() as u64;
    let mut out = [0u64; 32];
    for l in lanes(e) {
        let generic = generic_shared(space_given, a[l]);
        let sa = if generic {
            a[l].wrapping_sub(mem::SHARED_WINDOW)
        } else {
            a[l]
        };
        let (_, off) = mem::split_cluster(sa);
        let rank = b[l] & 0xffff_ffff;
        if rank >= ncta {
            return Err(x.undefined(
                l,
                format!("mapa to CTA rank {rank} of a {ncta}-CTA cluster"),
            ));
        }
        let r = ((rank + 1) << mem::CLUSTER_SHIFT) | off;
        out[l] = if generic { r + mem::SHARED_WINDOW } else { r };
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `getctarank`
pub fn getctarank(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let space_given = x.d.space.is_some();
    let e = x.emask;
    let [d, a] = x.ops();
    let a = x.read(a, e)?;
    let own = x.w.cta as u64;
    let mut out = [0u64; 32];
    for l in lanes(e) {
        let sa = if generic_shared(space_given, a[l]) {
            a[l].wrapping_sub(mem::SHARED_WINDOW)
        } else {
            a[l]
        };
        out[l] = mem::split_cluster(sa).0.map(|r| r as u64).unwrap_or(own);
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// `st.bulk{.weak}{.shared::cta} [a], size, initval` (sm_100; derived from the PTX ISA, not
/// checked on hardware: no Blackwell GPU was available): sets `size` bytes of the executing
/// CTA's shared memory at `a` to zero. The ISA requires `initval` to be zero, `size` to be a
/// multiple of 8 and `a` 8-byte aligned and in the `.shared::cta` window (generic addressing
/// when no state space is given); anything else is undefined and reported.
pub fn st_bulk(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [a, size, init] = x.ops();
    for l in lanes(x.emask) {
        let addr = x.addr(a, l)?;
        let n = x.get(size, l)?;
        if x.get(init, l)? != 0 {
            return Err(x.undefined(
                l,
                "st.bulk with an initval other than 0 (PTX ISA: initval must be zero)",
            ));
        }
        if n % 8 != 0 {
            return Err(x.undefined(
                l,
                format!("st.bulk of {n} bytes (PTX ISA: size must be a multiple of 8)"),
            ));
        }
        let off = match x.d.space {
            Some(_) => addr,
            None => match mem::decode_generic(addr) {
                (Region::Shared(_), off) => off,
                _ => {
                    return Err(x.undefined(
                        l,
                        format!(
                            "st.bulk at generic address {addr:#x}, outside the .shared::cta window"
                        ),
                    ))
                }
            },
        };
        if let (Some(rank), _) = mem::split_cluster(off & 0xffff_ffff) {
            if rank != x.w.cta {
                return Err(x.undefined(l, format!("st.bulk at {off:#x}, in the shared memory of the cluster's CTA {rank}, not the executing CTA's (.shared::cta)")));
            }
        }
        // Bounded here, before the access: its bookkeeping walks the range.
        let len = usize::try_from(n).unwrap_or(usize::MAX);
        let shared = x.cl.shared.get(x.w.cta as usize).map_or(0, Vec::len) as u64;
        if off.checked_add(n).is_none_or(|end| end > shared) {
            return Err(x.fault(FaultKind::OutOfBounds, AddrSpace::Shared, off, len, l));
        }
        if len > 0 {
            x.access(AddrSpace::Shared, off, len, 8, l, true, |m| m.fill(0))?;
        } else if off % 8 != 0 {
            return Err(x.fault(FaultKind::Misaligned, AddrSpace::Shared, off, 0, l));
        }
    }
    Ok(Flow::Next)
}
