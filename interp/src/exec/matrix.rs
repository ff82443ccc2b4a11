//! Warp-level matrix movement (PTX ISA 9.7.14.5.15-17): `ldmatrix`, `stmatrix`, `movmatrix`
//! for 8x8 matrices of 16-bit elements.
//!
//! For matrix `i` of an instruction, the addresses of its rows 0..8 come from lanes
//! `8i..8i+8`; each row is 16 bytes (eight `.b16` elements) and must be 16-byte aligned. In the
//! fragment, lane `t` holds the two elements of row `t / 4` at columns `2 (t % 4)` and
//! `2 (t % 4) + 1` (the lower column in the low half); with `.trans` it holds row
//! `2 (t % 4)` and `2 (t % 4) + 1` of column `t / 4`, i.e. the fragment of the transpose. All 32
//! threads must execute the instruction (`.sync.aligned`); a warp with an exited or absent thread
//! is reported.
//!
//! The 8-bit shapes of sm_100 (ISA-derived, not hardware-checked: the ISA draws their layouts
//! only in figures; these are the layouts CUTLASS's `copy_traits_sm100.hpp` encodes). Every
//! memory row is 16 bytes, 16-byte aligned; with `g = t / 4`, `q = t % 4`:
//! - `ldmatrix.m16n16.xN.trans` (`.b8`, or `.b8x16` of packed 6- or 4-bit elements): lanes
//!   `16j..16j+16` give the rows of matrix `j`; register `m`, byte `c` of lane `t` holds element
//!   `g + 8 (m % 2)` of the row of lane `16 (m / 2) + 4q + c`;
//! - `ldmatrix.m8n16.xN` (`.b8x16` packed): lanes `8j..8j+8` give matrix `j`; register `j`,
//!   byte `c` holds element `4q + c` of the row of lane `8j + g`;
//! - `stmatrix.m16n8.xN.trans.b8`: byte `c` of register `j` goes to byte `g + 8 (c / 2)` of the
//!   row of lane `8j + 2q + c % 2`.
//!
//! Packed rows hold 16 elements of 6 or 4 bits from bit 0 up (12 or 8 bytes, then padding);
//! each is loaded into the low bits of its byte, the rest zero.

use super::ctx::{AddrSpace, Ctx};
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::Error;
use crate::mem;
use ptx_ir_core::{Count, Flag, Opcode, Type};

/// Checks that all 32 threads of the warp execute the instruction.
pub fn full_warp(x: &Ctx<'_, '_>) -> Result<(), Error> {
    if x.emask != u32::MAX || x.w.exited != 0 {
        let l = (!x.emask | x.w.exited).trailing_zeros() as usize & 31;
        return Err(x.undefined(
            l,
            format!(
                "{} is .sync.aligned: all 32 threads of the warp must execute it, and none may have exited",
                x.d.op.name()
            ),
        ));
    }
    Ok(())
}

/// The number a `.num` count qualifier (`.x1` ... `.x128`) names; 0 without one.
pub fn count(c: Option<Count>) -> u32 {
    match c {
        Some(Count::X1) => 1,
        Some(Count::X2) => 2,
        Some(Count::X4) => 4,
        Some(Count::X8) => 8,
        Some(Count::X16) => 16,
        Some(Count::X32) => 32,
        Some(Count::X64) => 64,
        Some(Count::X128) => 128,
        None => 0,
    }
}

/// The matrices of `ldmatrix`/`stmatrix` (`.x1`, `.x2`, `.x4`; 0 for anything else).
fn num(x: &Ctx<'_, '_>) -> usize {
    match count(x.d.count) {
        n @ (1 | 2 | 4) => n as usize,
        _ => 0,
    }
}

/// The registers of a vector operand (or the operand itself).
pub fn regs(o: &Opnd) -> &[Opnd] {
    match o {
        Opnd::Vec(v) => v,
        o => std::slice::from_ref(o),
    }
}

/// Element (row, col) of an 8x8 matrix held by lane `t` at half `h`.
fn frag_pos(t: usize, h: usize, trans: bool) -> (usize, usize) {
    if trans {
        (2 * (t % 4) + h, t / 4)
    } else {
        (t / 4, 2 * (t % 4) + h)
    }
}

/// `ldmatrix`, `stmatrix`, `movmatrix`
pub fn matrix(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    if x.d.op != Opcode::Movmatrix && x.d.shape != Some((8, 8, 0)) {
        return bytes8(x);
    }
    if x.d.ty != Some(Type::B16) {
        return Err(x.unsupported("an .m8n8 matrix of other than .b16 elements"));
    }
    let trans = x.has(Flag::Trans);
    if x.d.op == Opcode::Movmatrix {
        let [d, s] = x.ops();
        let src = x.read(s, u32::MAX)?;
        let mut m = [[0u16; 8]; 8];
        for (t, v) in src.iter().enumerate() {
            for h in 0..2 {
                let (r, c) = frag_pos(t, h, false);
                m[r][c] = (v >> (16 * h)) as u16;
            }
        }
        let mut out = [0u64; 32];
        for (t, o) in out.iter_mut().enumerate() {
            for h in 0..2 {
                let (r, c) = frag_pos(t, h, true);
                *o |= (m[r][c] as u64) << (16 * h);
            }
        }
        x.write(d, &out, u32::MAX)?;
        return Ok(Flow::Next);
    }
    let n = num(x);
    if n == 0 {
        return Err(x.unsupported("matrix count"));
    }
    let sp = AddrSpace::of(x.d.space);
    let load = x.d.op == Opcode::Ldmatrix;
    // `ldmatrix d, [a]`, `stmatrix [a], s`
    let (r, ao) = match x.ops() {
        [r, a] if load => (r, a),
        [a, r] => (r, a),
    };
    let rs: Vec<Opnd> = regs(r).to_vec();
    if rs.len() != n {
        return Err(x.unsupported(format!("{} registers for .x{n}", rs.len())));
    }
    // All row addresses first: a destination register may also hold an address.
    let mut all = [[0u64; 8]; 4];
    for (i, addrs) in all.iter_mut().enumerate().take(n) {
        for (r, a) in addrs.iter_mut().enumerate() {
            let lane = 8 * i + r;
            *a = x.addr(ao, lane)?;
            if sp == AddrSpace::Generic || sp == AddrSpace::Shared {
                x.shared_loc(sp, *a, 16, lane, true)?;
            }
        }
    }
    for (i, reg) in rs.iter().enumerate() {
        let mut m = [[0u16; 8]; 8];
        let addrs = all[i];
        if load {
            for (r, &a) in addrs.iter().enumerate() {
                let lane = 8 * i + r;
                let mut b = [0u8; 16];
                x.access(sp, a, 16, 16, lane, false, |s| b.copy_from_slice(s))?;
                for c in 0..8 {
                    m[r][c] = mem::get_le(&b[2 * c..2 * c + 2]) as u16;
                }
            }
            let mut out = [0u64; 32];
            for (t, o) in out.iter_mut().enumerate() {
                for h in 0..2 {
                    let (r, c) = frag_pos(t, h, trans);
                    *o |= (m[r][c] as u64) << (16 * h);
                }
            }
            x.write(reg, &out, u32::MAX)?;
        } else {
            let v = x.read(reg, u32::MAX)?;
            for (t, val) in v.iter().enumerate() {
                for h in 0..2 {
                    let (r, c) = frag_pos(t, h, trans);
                    m[r][c] = (val >> (16 * h)) as u16;
                }
            }
            for (r, &a) in addrs.iter().enumerate() {
                let lane = 8 * i + r;
                let mut b = [0u8; 16];
                for c in 0..8 {
                    mem::put_le(&mut b[2 * c..2 * c + 2], m[r][c] as u64);
                }
                x.access(sp, a, 16, 16, lane, true, |s| s.copy_from_slice(&b))?;
            }
        }
    }
    Ok(Flow::Next)
}

/// Element `k` of a 16-byte row: a byte, or a packed 6- or 4-bit element zero-extended.
fn row_elem(row: &[u8; 16], k: usize, w: usize) -> u8 {
    if w == 8 {
        return row[k];
    }
    let bit = w * k;
    let pair = row[bit / 8] as u16 | (row.get(bit / 8 + 1).copied().unwrap_or(0) as u16) << 8;
    ((pair >> (bit % 8)) & ((1 << w) - 1)) as u8
}

/// The sm_100 8-bit shapes: `ldmatrix.m16n16`, `ldmatrix.m8n16`, `stmatrix.m16n8`.
fn bytes8(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let n = num(x);
    let load = x.d.op == Opcode::Ldmatrix;
    let shape = x.d.shape;
    let ts = x.types();
    let w = if ts.contains(&Type::B6x16P32) {
        6
    } else if ts.contains(&Type::B4x16P64) {
        4
    } else {
        8
    };
    let (providers, nregs) = match (load, shape) {
        (true, Some((16, 16, 0))) if x.has(Flag::Trans) && n <= 2 => (16 * n, 2 * n),
        (true, Some((8, 16, 0))) if w != 8 => (8 * n, n),
        (false, Some((16, 8, 0))) if x.has(Flag::Trans) && w == 8 => (8 * n, n),
        _ => {
            return Err(x.undefined(
                0,
                "this ldmatrix/stmatrix shape, count, .trans and type combination is not one the ISA defines (PTX ISA 9.7.14.5.15-16)",
            ))
        }
    };
    if n == 0 {
        return Err(x.unsupported("matrix count"));
    }
    let sp = AddrSpace::of(x.d.space);
    let (r, ao) = match x.ops() {
        [r, a] if load => (r, a),
        [a, r] => (r, a),
    };
    let rs: Vec<Opnd> = regs(r).to_vec();
    if rs.len() != nregs {
        return Err(x.unsupported(format!(
            "{} registers where the form takes {nregs}",
            rs.len()
        )));
    }
    let mut addrs = Vec::with_capacity(providers);
    for lane in 0..providers {
        let a = x.addr(ao, lane)?;
        if sp == AddrSpace::Generic || sp == AddrSpace::Shared {
            x.shared_loc(sp, a, 16, lane, true)?;
        }
        addrs.push(a);
    }
    if load {
        let mut rows = Vec::with_capacity(providers);
        for (lane, &a) in addrs.iter().enumerate() {
            let mut b = [0u8; 16];
            x.access(sp, a, 16, 16, lane, false, |s| b.copy_from_slice(s))?;
            rows.push(b);
        }
        let m16 = shape == Some((16, 16, 0));
        for (m, reg) in rs.iter().enumerate() {
            let mut out = [0u64; 32];
            for (t, o) in out.iter_mut().enumerate() {
                let (g, q) = (t / 4, t % 4);
                for c in 0..4 {
                    let (p, k) = if m16 {
                        (16 * (m / 2) + 4 * q + c, g + 8 * (m % 2))
                    } else {
                        (8 * m + g, 4 * q + c)
                    };
                    *o |= (row_elem(&rows[p], k, w) as u64) << (8 * c);
                }
            }
            x.write(reg, &out, u32::MAX)?;
        }
    } else {
        let mut rows = vec![[0u8; 16]; providers];
        for (j, reg) in rs.iter().enumerate() {
            let v = x.read(reg, u32::MAX)?;
            for (t, val) in v.iter().enumerate() {
                let (g, q) = (t / 4, t % 4);
                for c in 0..4 {
                    rows[8 * j + 2 * q + c % 2][g + 8 * (c / 2)] = (val >> (8 * c)) as u8;
                }
            }
        }
        for (lane, &a) in addrs.iter().enumerate() {
            let b = rows[lane];
            x.access(sp, a, 16, 16, lane, true, |s| s.copy_from_slice(&b))?;
        }
    }
    Ok(Flow::Next)
}
