//! Warp-level matrix movement (PTX ISA 9.7.14.5.15-17): `ldmatrix`, `stmatrix`, `movmatrix`
//! for 8x8 matrices of 16-bit elements.
//!
//! For matrix `i` of an instruction, the addresses of its rows 0..8 come from lanes
//! `8i..8i+8`; each row is 16 bytes (eight `.b16` elements) and must be 16-byte aligned. In the
//! fragment, lane `t` holds the two elements of row `t / 4` at columns `2 (t % 4)` and
//! `2 (t % 4) + 1` (the lower column in the low half); with `.trans` it holds row
//! `2 (t % 4)` and `2 (t % 4) + 1` of column `t / 4`, i.e. the fragment of the transpose. All 32
//! threads must execute the instruction (`.sync.aligned`); a warp with an exited or absent thread
//! is reported. The 8-bit and sub-byte shapes of sm_100 (`.m16n16`, `.m8n16`, `stmatrix.m16n8`)
//! are not modelled.

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

fn num(x: &Ctx<'_, '_>) -> usize {
    match x.d.count {
        Some(Count::X1) => 1,
        Some(Count::X2) => 2,
        Some(Count::X4) => 4,
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
    let shape_ok = x.d.shape == Some((8, 8, 0));
    if !shape_ok || x.d.ty != Some(Type::B16) {
        return Err(x.unsupported(
            "only the .m8n8 shape with .b16 elements is modelled (the sm_100 8-bit shapes are not)",
        ));
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
