//! Tensor Memory data movement (PTX ISA 9.7.16.8-9, 9.7.16.12): `tcgen05.ld`, `tcgen05.st`,
//! `tcgen05.ld.red`, `tcgen05.wait::ld`, `tcgen05.wait::st`, `tcgen05.cp`, `tcgen05.shift`,
//! `tcgen05.commit`. ISA-derived, not hardware-checked (no Blackwell GPU here): the ISA draws
//! the fragment layouts only in figures, so they are the ones CUTLASS's copy traits encode (the
//! same as Triton's).
//!
//! A CTA's tensor memory is 128 lanes by 512 columns of 32-bit cells; an address is
//! `lane << 16 | column`. Warp `w` reaches lanes `32 (w % 4) .. + 32` only. With the address
//! `(L, C)`, lane `t` of the warp and register `r` of `.xN`:
//!
//! | shape | cell of register `r` of lane `t` |
//! | --- | --- |
//! | `32x32b` | `(L + t, C + r)` |
//! | `16x64b` | `(L + t/4 + 8 (t % 2), C + 2r + (t/2) % 2)` |
//! | `16x128b` | `(L + t/4 + 8 (r % 2), C + 4 (r/2) + t % 4)` |
//! | `16x256b` | `(L + t/4 + 8 ((r/2) % 2), C + 8 (r/4) + 2 (t % 4) + r % 2)` |
//! | `16x32bx2`, offset `o` | `(L + t % 16, C + (t/16) o + r)` |
//!
//! With `.pack::16b` a register's column `c` stands for the two physical columns `2c`, `2c + 1`,
//! whose low halves it holds (`.unpack::16b` stores them back, the upper halves zero). Every
//! operation runs when issued, so `wait::ld`/`wait::st` have nothing left to wait for,
//! `tcgen05.commit` arrives on its mbarrier at once (once per executing thread, on each CTA of
//! `ctaMask` with `.multicast::cluster`), and `tcgen05.shift.down` moves rows `L..L+31` down by
//! one over 8 columns (the last row's old contents are lost, the first keeps its own). An access
//! to a column no live allocation covers, or to lanes outside the warp's quarter, is undefined.

use super::async_copy::issuer;
use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::matrix::{full_warp, regs};
use super::state::mbarrier::arrive_on;
use super::state::tmem::{COLUMNS, LANES};
use super::warpops::Fold;
use crate::code::Opnd;
use crate::error::Error;
use ptx_ir_core::{Flag, Opcode, Type};

const RULE: &str = "PTX ISA 9.7.16.8";

/// Registers per thread of a shape and count.
fn regs_per(shape: (u16, u16, u16), n: u32) -> u32 {
    match (shape.0, shape.1) {
        (16, 128) => 2 * n,
        (16, 256) => 4 * n,
        _ => n,
    }
}

/// The (lane, column) of register `r` of lane `t`, relative to the address, in logical 32-bit
/// columns.
fn cell(shape: (u16, u16, u16), t: u32, r: u32, off: u32) -> (u32, u32) {
    match (shape.0, shape.1) {
        (32, 32) => (t, r),
        (16, 64) => ((t >> 2) + 8 * (t & 1), 2 * r + ((t >> 1) & 1)),
        (16, 128) => ((t >> 2) + 8 * (r & 1), 4 * (r >> 1) + (t & 3)),
        (16, 256) => (
            (t >> 2) + 8 * ((r >> 1) & 1),
            8 * (r >> 2) + 2 * (t & 3) + (r & 1),
        ),
        // 16x32bx2
        _ => (t & 15, (t >> 4) * off + r),
    }
}

/// Checks that the warp may access tensor-memory lane `lane` and that `col` is allocated.
fn check(x: &Ctx<'_, '_>, lane: u32, col: u32, l: usize) -> Result<(), Error> {
    let quarter = 32 * (x.w.index % 4);
    if lane < quarter || lane >= quarter + 32 || lane >= LANES {
        return Err(x.undefined(
            l,
            format!(
                "{} of tensor-memory lane {lane}: warp {} reaches lanes {quarter}..{} only ({RULE})",
                x.d.op.name(),
                x.w.index,
                quarter + 31
            ),
        ));
    }
    let t = &x.cl.tmem[x.w.cta as usize];
    if col >= COLUMNS || !t.allocated(col) {
        return Err(x.undefined(
            l,
            format!(
                "{} of tensor-memory column {col}, which no live tcgen05.alloc covers ({RULE})",
                x.d.op.name()
            ),
        ));
    }
    Ok(())
}

/// The tensor-memory address `[taddr]`, the same in every executing thread (`.sync.aligned`).
fn warp_taddr(x: &Ctx<'_, '_>, o: &Opnd) -> Result<u32, Error> {
    let mut v = None;
    for l in lanes(x.emask) {
        let a = x.addr(o, l)? as u32;
        if v.is_some_and(|b| b != a) {
            return Err(x.undefined(
                l,
                format!(
                    "threads of the warp give different tensor-memory addresses to {} (.sync.aligned)",
                    x.d.op.name()
                ),
            ));
        }
        v = Some(a);
    }
    Ok(v.unwrap_or(0))
}

/// `tcgen05.ld` and `tcgen05.st`.
pub fn ld_st(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    let load = x.d.op == Opcode::Tcgen05Ld;
    // `.red`: `r, redval, [taddr]{, off}`; the reduction runs over each thread's loaded
    // columns (PTX ISA 9.7.16.8.3).
    let red = if x.has(Flag::Red) {
        let op =
            x.d.oper
                .ok_or_else(|| x.unsupported("tcgen05.ld.red without .min or .max"))?;
        Some(Fold {
            ty: x.d.ty.unwrap_or(Type::F32),
            op,
            nan: x.has(Flag::NaN),
            abs: x.has(Flag::Abs),
        })
    } else {
        None
    };
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("tcgen05 without a shape"))?;
    let n = super::matrix::count(x.d.count);
    let pack = x.has(Flag::Pack16b) || x.has(Flag::Unpack16b);
    let ops = &x.d.opnds;
    // `v, [taddr]{, off}` / `v, redval, [taddr]{, off}` / `[taddr]{, off}, v`
    let (vo, ao, off_o) = if red.is_some() {
        (&ops[0], &ops[2], ops.get(3))
    } else if load {
        (&ops[0], &ops[1], ops.get(2))
    } else if ops.len() == 3 {
        (&ops[2], &ops[0], ops.get(1))
    } else {
        (&ops[1], &ops[0], None)
    };
    let off = match off_o {
        Some(o) => x.get(o, 0)? as u32,
        None => 0,
    };
    let rs: Vec<Opnd> = regs(vo).to_vec();
    let want = regs_per(shape, n);
    if rs.len() as u32 != want {
        return Err(x.undefined(
            0,
            format!(
                "tcgen05.{} .x{n} of this shape moves {want} registers per thread, not {} ({RULE})",
                if load { "ld" } else { "st" },
                rs.len()
            ),
        ));
    }
    let taddr = warp_taddr(x, ao)?;
    let (l0, c0) = (taddr >> 16, taddr & 0xffff);
    let rank = x.w.cta as usize;
    let width = if pack { 2 } else { 1 };
    let mut vals = vec![[0u64; 32]; rs.len()];
    if !load {
        for (r, reg) in rs.iter().enumerate() {
            vals[r] = x.read(reg, u32::MAX)?;
        }
    }
    for t in 0..32u32 {
        for r in 0..rs.len() as u32 {
            let (dl, dc) = cell(shape, t, r, off);
            let lane = l0 + dl;
            for h in 0..width {
                let col = c0 + width * dc + h;
                check(x, lane, col, t as usize)?;
            }
            let base = (lane * COLUMNS) as usize;
            let cells = x.cl.tmem[rank].cells();
            let c = (c0 + width * dc) as usize;
            if load {
                vals[r as usize][t as usize] = if pack {
                    (cells[base + c] & 0xffff) as u64
                        | ((cells[base + c + 1] & 0xffff) as u64) << 16
                } else {
                    cells[base + c] as u64
                };
            } else {
                let v = vals[r as usize][t as usize];
                if pack {
                    cells[base + c] = (v & 0xffff) as u32;
                    cells[base + c + 1] = ((v >> 16) & 0xffff) as u32;
                } else {
                    cells[base + c] = v as u32;
                }
            }
        }
    }
    if load {
        for (r, reg) in rs.iter().enumerate() {
            x.write(reg, &vals[r], u32::MAX)?;
        }
    }
    if let Some(f) = red {
        if rs.len() < 2 {
            return Err(x.undefined(
                0,
                format!("tcgen05.ld.red needs .num of at least .x2 ({RULE})"),
            ));
        }
        let mut out = [0u64; 32];
        for (t, o) in out.iter_mut().enumerate() {
            *o = f
                .apply(vals.iter().map(|v| v[t]))
                .ok_or_else(|| x.unsupported("tcgen05.ld.red operation"))?;
        }
        let rv = x.d.opnds[1].clone();
        x.write(&rv, &out, u32::MAX)?;
    }
    Ok(Flow::Next)
}

/// `tcgen05.wait::ld`, `tcgen05.wait::st`: every load and store completed when it issued.
pub fn wait(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    Ok(Flow::Next)
}

/// `tcgen05.shift.down [taddr]`
pub fn shift(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [ao] = x.ops();
    let lane0 = x.emask.trailing_zeros() as usize;
    let taddr = x.addr(ao, lane0)? as u32;
    let (l0, c0) = (taddr >> 16, taddr & 0xffff);
    if l0 % 32 != 0 {
        return Err(x.undefined(
            lane0,
            format!("tcgen05.shift lane {l0}: the address's lane must be aligned to 32 (PTX ISA 9.7.16.9.3)"),
        ));
    }
    let ranks = if x.has(Flag::CtaGroup2) {
        vec![x.w.cta, x.w.cta ^ 1]
    } else {
        vec![x.w.cta]
    };
    for rank in ranks {
        let Some(t) = x.cl.tmem.get(rank as usize) else {
            return Err(x.undefined(lane0, "tcgen05.shift .cta_group::2 without a peer CTA"));
        };
        for col in c0..c0 + 8 {
            if col >= COLUMNS || !t.allocated(col) {
                return Err(x.undefined(
                    lane0,
                    format!("tcgen05.shift of tensor-memory column {col}, which no live tcgen05.alloc covers ({RULE})"),
                ));
            }
        }
        if l0 + 32 > LANES {
            return Err(x.undefined(
                lane0,
                format!("tcgen05.shift lane {l0} is past the 128 lanes"),
            ));
        }
        let cells = x.cl.tmem[rank as usize].cells();
        for i in (0..31).rev() {
            for col in c0..c0 + 8 {
                let from = ((l0 + i) * COLUMNS + col) as usize;
                let to = ((l0 + i + 1) * COLUMNS + col) as usize;
                cells[to] = cells[from];
            }
        }
    }
    Ok(Flow::Next)
}

/// `tcgen05.commit...mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{,
/// ctaMask}`: the operations it tracks are complete, so it arrives at once.
pub fn commit(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let mo = &x.d.opnds[0];
    let mask_o = x.d.opnds.get(1);
    for l in lanes(x.emask) {
        let sp = AddrSpace::of(x.d.space);
        let addr = x.addr(mo, l)?;
        let (rank, off) = x.shared_loc(sp, addr, 8, l, false)?;
        let targets: Vec<u32> = match mask_o {
            Some(m) if x.has(Flag::MulticastCluster) => {
                let mask = x.get(m, l)? as u32 & 0xffff;
                (0..16).filter(|r| mask >> r & 1 == 1).collect()
            }
            _ => vec![rank],
        };
        for r in targets {
            let key = (r, off);
            // What the warp's MMAs and copies read is now read: a wait on this phase orders
            // a later overwrite after it.
            inflight::release_warp(x.cl, [x.w.cta, x.w.index], key);
            let Some(b) = x.cl.mbars.get_mut(&key) else {
                return Err(x.undefined(
                    l,
                    format!("tcgen05.commit arrives on CTA {r}'s shared offset {off:#x}, which holds no initialised mbarrier object (PTX ISA 9.7.16.12.1)"),
                ));
            };
            arrive_on(b, 1, false).map_err(|e| x.undefined(l, e))?;
        }
        x.m.events += 1;
    }
    Ok(Flow::Next)
}

/// Byte `k` of row `r` of a `tcgen05.cp` source: a K-major matrix in shared memory through a
/// descriptor (PTX ISA 9.7.16.4.1: start, leading and stride byte offsets, base offset, and the
/// swizzle code in bits 61-63), as a CTA shared-memory offset.
fn cp_src(desc: u64, r: u64, k: u64) -> Result<u64, String> {
    if desc >> 52 & 1 == 1 {
        return Err("absolute leading-byte-offset descriptors (sm_103a) are not modelled".into());
    }
    // Byte k of row r is element (r, k) of a K-major matrix of bytes.
    super::umma::desc_addr(desc, false, r as usize, k as usize, 1)
}

/// `tcgen05.cp.cta_group.shape{.multicast}{.b8x16.b6x16_p32|.b4x16_p64} [taddr], s-desc`: copies
/// the source rows into tensor memory when issued (see the module documentation for the cells).
pub fn cp(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [to, so] = x.ops();
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("tcgen05.cp without a shape"))?;
    let ts = x.types();
    let unpack = if ts.contains(&ptx_ir_core::Type::B6x16P32) {
        6
    } else if ts.contains(&ptx_ir_core::Type::B4x16P64) {
        4
    } else {
        0
    };
    // (source rows, bytes per row, each row's destination lanes relative to the address)
    let (rows, bytes): (u64, u64) = (shape.0 as u64, shape.1 as u64 / 8);
    let (warpx4, pairs_02_13) = (x.has(Flag::Warpx4), x.has(Flag::Warpx2_02_13));
    let dests = move |i: u64| -> Vec<u64> {
        match (shape.0, warpx4, pairs_02_13) {
            (4, ..) => vec![32 * i],
            (32, true, _) => vec![i, i + 32, i + 64, i + 96],
            (64, _, true) => vec![i, i + 64],
            (64, _, false) => {
                let (h, j) = (i / 32, i % 32);
                vec![64 * h + j, 64 * h + 32 + j]
            }
            _ => vec![i],
        }
    };
    let ranks = if x.has(Flag::CtaGroup2) {
        vec![x.w.cta, x.w.cta ^ 1]
    } else {
        vec![x.w.cta]
    };
    for l in lanes(x.emask) {
        let taddr = x.addr(to, l)? as u32;
        let desc = x.get(so, l)?;
        let (l0, c0) = ((taddr >> 16) as u64, (taddr & 0xffff) as u64);
        for &rank in &ranks {
            // Each CTA copies from its own shared memory at the descriptor's offsets.
            let Some(sh) = x.cl.shared.get(rank as usize) else {
                return Err(x.undefined(l, "tcgen05.cp .cta_group::2 without a peer CTA"));
            };
            let mut data = vec![0u8; (rows * bytes) as usize];
            // The 16-byte chunks read, for the race check.
            let track = x.cl.race.is_some();
            let mut seen = Vec::new();
            for r in 0..rows {
                for k in 0..bytes {
                    let off = cp_src(desc, r, k)
                        .map_err(|e| x.undefined(l, format!("tcgen05.cp: {e}")))?;
                    if track {
                        seen.push(off / 16);
                    }
                    let b = *sh.get(off as usize).ok_or_else(|| {
                        x.undefined(
                            l,
                            format!(
                                "tcgen05.cp reads shared offset {off:#x}, past the CTA's {} bytes",
                                sh.len()
                            ),
                        )
                    })?;
                    data[(r * bytes + k) as usize] = b;
                }
            }
            if track {
                let who = issuer(x, l);
                inflight::race_reads(x.m, x.cl, &who, rank, &mut seen);
            }
            if unpack != 0 {
                // 16-byte chunks of 16 packed elements (then padding) become 16 bytes; 4-bit
                // values sit in bits 5..2 as the f8f6f4 MMA reads them, 6-bit ones in 5..0.
                for chunk in data.chunks_mut(16) {
                    let mut v = 0u128;
                    for (i, b) in chunk.iter().enumerate() {
                        v |= (*b as u128) << (8 * i);
                    }
                    for (i, b) in chunk.iter_mut().enumerate() {
                        let e = (v >> (unpack * i)) as u8 & ((1u16 << unpack) - 1) as u8;
                        *b = if unpack == 4 { e << 2 } else { e };
                    }
                }
            }
            let t = &x.cl.tmem[rank as usize];
            for r in 0..rows {
                for lane in dests(r) {
                    let lane = l0 + lane;
                    for c in 0..bytes / 4 {
                        let col = (c0 + c) as u32;
                        if lane >= LANES as u64 || col >= COLUMNS || !t.allocated(col) {
                            return Err(x.undefined(
                                l,
                                format!("tcgen05.cp into tensor-memory lane {lane}, column {col}, which no live tcgen05.alloc covers ({RULE})"),
                            ));
                        }
                    }
                }
            }
            let cells = x.cl.tmem[rank as usize].cells();
            for r in 0..rows {
                for lane in dests(r) {
                    for c in 0..bytes / 4 {
                        let at = ((l0 + lane) * COLUMNS as u64 + c0 + c) as usize;
                        let o = (r * bytes + 4 * c) as usize;
                        cells[at] =
                            u32::from_le_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
                    }
                }
            }
        }
    }
    Ok(Flow::Next)
}
