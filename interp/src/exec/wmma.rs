//! `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA 9.7.14.4): warp-level matrix operations
//! on fragments.
//!
//! The ISA leaves the distribution of a fragment over the warp to the target. These are the
//! H100's (sm_90), recorded by `tools/hwvectors/wmma_cases.py` (`corpus/vectors/wmma.jsonl.xz`):
//! ptxas builds every shape from the `mma.m16n8k16` fragments (and `m16n8k8` for `.tf32`), the
//! `m8n32k16` shape from the transposed ones, and the `.f16` multiplicands hold their elements
//! more than once (16 to a thread where 8, or 4, are distinct). The logical position of an
//! element does not depend on the memory layout (`.row`/`.col` only say how the matrix is
//! stored), and the multiply reads the first copy of a repeated element.
//!
//! Each thread loads and stores its own elements from its own address and stride, as the
//! lowering to ordinary loads and stores does; the start of every row (column) must be aligned
//! to the size of the thread's fragment, or of a row at the default stride where that is
//! smaller (ISA 9.7.14.4.2), or the access is reported misaligned.
//! The multiply-accumulate follows the instructions ptxas emits: one `HMMA.16816` per `k16`
//! (the [`crate::tc`] model), two `k4` steps for `.tf32` `m16n16k8`, an `.f32` sum rounded to
//! `.f16` for an `.f16` result with an `.f32` accumulator, exact integer sums and `DMMA` for
//! `.f64`.

use super::ctx::{AddrSpace, Ctx};
use super::flow::Flow;
use super::matrix::{full_warp, regs};
use super::mma::{bits_of, popc_mma, sync_compute};
use crate::code::Opnd;
use crate::error::{Error, FaultKind};
use crate::float::{self, Fmt};
use crate::int::mask;
use ptx_ir_core::{Flag, Layout, Op, Rounding, Type};

/// Which matrix a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mat {
    /// Multiplicand A (M x K).
    A,
    /// Multiplicand B (K x N).
    B,
    /// Accumulator C or result D (M x N).
    C,
}

type Shape = (u16, u16, u16);

/// Registers in a fragment of `mat` with `t` elements, where the form exists.
fn fragment_regs(mat: Mat, (m, n, k): Shape, t: Type) -> Option<usize> {
    let big = |mk: usize, nk: usize, sq: usize| match (m, n) {
        (16, 16) => Some(sq),
        (32, 8) => Some(mk),
        (8, 32) => Some(nk),
        _ => None,
    };
    let shape = (m, n, k);
    match (mat, t) {
        (Mat::A | Mat::B, Type::F16) => big(8, 8, 8),
        (Mat::A, Type::Bf16) => big(8, 2, 4),
        (Mat::B, Type::Bf16) => big(2, 8, 4),
        (Mat::A, Type::S8 | Type::U8) => big(4, 1, 2),
        (Mat::B, Type::S8 | Type::U8) => big(1, 4, 2),
        (Mat::A | Mat::B, Type::Tf32) if shape == (16, 16, 8) => Some(4),
        (Mat::A | Mat::B, Type::F64) if shape == (8, 8, 4) => Some(1),
        (Mat::A | Mat::B, Type::S4 | Type::U4) if shape == (8, 8, 32) => Some(1),
        (Mat::A | Mat::B, Type::B1) if shape == (8, 8, 128) => Some(1),
        (Mat::C, Type::F16) if k == 16 => big(4, 4, 4),
        (Mat::C, Type::S32) if k == 16 => big(8, 8, 8),
        (Mat::C, Type::F32) if k == 16 || shape == (16, 16, 8) => Some(8),
        (Mat::C, Type::S32) if shape == (8, 8, 32) || shape == (8, 8, 128) => Some(2),
        (Mat::C, Type::F64) if shape == (8, 8, 4) => Some(2),
        _ => None,
    }
}

/// (row, column) of element `i` of `lane`'s fragment of `mat` with `bits`-wide elements.
fn position(
    mat: Mat,
    (m, n, k): Shape,
    bits: u32,
    lane: usize,
    i: usize,
) -> Option<(usize, usize)> {
    let g = lane >> 2;
    let t = lane & 3;
    // The `mma.m16n8k16` fragments the lowering builds on: A and B of 16-bit and 8-bit
    // elements, and the accumulator.
    let a16 = |i: usize| (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2));
    let b16 = |i: usize| (2 * t + (i & 1) + 8 * (i >> 1), g);
    let a8 = |i: usize| (g + 8 * (i >> 2), 4 * t + (i & 3));
    let b8 = |i: usize| (4 * t + i, g);
    let c16 = |i: usize| (g + 8 * (i >> 1), 2 * t + (i & 1));
    let tr = |(r, c): (usize, usize)| (c, r);
    let down = |(r, c): (usize, usize), dr: usize, dc: usize| (r + dr, c + dc);
    Some(match (mat, bits, m, n, k) {
        (Mat::A, 16, 16, 16, 16) => a16(i % 8),
        (Mat::A, 16, 32, 8, 16) => down(a16(i % 8), 16 * (i / 8), 0),
        (Mat::A, 16, 8, 32, 16) => tr(b16(i % 4)),
        (Mat::B, 16, 16, 16, 16) => down(b16(i % 4), 0, 8 * ((i / 4) % 2)),
        (Mat::B, 16, 32, 8, 16) => b16(i % 4),
        (Mat::B, 16, 8, 32, 16) => down(tr(a16(i % 8)), 0, 16 * (i / 8)),
        (Mat::A, 8, 16, 16, 16) => a8(i),
        (Mat::A, 8, 32, 8, 16) => down(a8(i % 8), 16 * (i / 8), 0),
        (Mat::A, 8, 8, 32, 16) => tr(b8(i)),
        (Mat::B, 8, 16, 16, 16) | (Mat::B, 8, 8, 32, 16) => down(b8(i % 4), 0, 8 * (i / 4)),
        (Mat::B, 8, 32, 8, 16) => b8(i),
        (Mat::A, 32, 16, 16, 8) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        (Mat::B, 32, 16, 16, 8) => (t + 4 * (i & 1), g + 8 * (i >> 1)),
        (Mat::A, 64, 8, 8, 4) => (g, t),
        (Mat::B, 64, 8, 8, 4) => (t, g),
        (Mat::A, 4, 8, 8, 32) => (g, 8 * t + i),
        (Mat::B, 4, 8, 8, 32) => (8 * t + i, g),
        (Mat::A, 1, 8, 8, 128) => (g, 32 * t + i),
        (Mat::B, 1, 8, 8, 128) => (32 * t + i, g),
        (Mat::C, _, 16, 16, _) => a16(i),
        (Mat::C, _, 32, 8, 16) => down(c16(i % 4), 16 * (i / 4), 0),
        (Mat::C, _, 8, 32, 16) => down(tr(c16(i % 4)), 0, 16 * (i / 4)),
        (Mat::C, _, 8, 8, _) => (g, 2 * t + i),
        _ => return None,
    })
}

/// Rows and columns of `mat`.
fn dims(mat: Mat, (m, n, k): Shape) -> (usize, usize) {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    match mat {
        Mat::A => (m, k),
        Mat::B => (k, n),
        Mat::C => (m, n),
    }
}

/// One fragment operand: its matrix, element width and registers.
struct Frag<'a> {
    mat: Mat,
    bits: u32,
    regs: &'a [Opnd],
}

impl Frag<'_> {
    /// Elements per register.
    fn per(&self) -> usize {
        if self.bits >= 32 {
            1
        } else {
            (32 / self.bits) as usize
        }
    }

    /// Bytes of one thread's fragment.
    fn bytes(&self) -> u64 {
        self.regs
            .iter()
            .map(|r| match r {
                Opnd::Reg { bits: 64, .. } => 8,
                _ => 4,
            })
            .sum()
    }
}

/// The fragment of operand `o` for `mat` of type `t`, with its register count checked.
fn fragment<'a>(x: &Ctx<'_, '_>, o: &'a Opnd, mat: Mat, t: Type) -> Result<Frag<'a>, Error> {
    let shape = x.d.shape.unwrap_or_default();
    let want = fragment_regs(mat, shape, t)
        .ok_or_else(|| x.unsupported(format!("wmma {mat:?} fragment of .{}", t.as_str())))?;
    let regs = regs(o);
    if regs.len() != want {
        return Err(x.undefined(
            0,
            format!(
                "a wmma {mat:?} fragment of .{} for this shape is {want} registers, not {}",
                t.as_str(),
                regs.len()
            ),
        ));
    }
    Ok(Frag {
        mat,
        bits: bits_of(t),
        regs,
    })
}

/// Where each lane's elements of `f` are: (lane, element) to the byte address and the bit
/// offset in it, after checking the alignment of each lane's rows (columns).
fn addresses(
    x: &Ctx<'_, '_>,
    f: &Frag<'_>,
    mem: &Opnd,
    stride: Option<&Opnd>,
    sp: AddrSpace,
) -> Result<Vec<[(u64, u32); 32]>, Error> {
    let shape = x.d.shape.unwrap_or_default();
    let (rows, cols) = dims(f.mat, shape);
    let col_major = x.d.layouts[0] == Some(Layout::Col);
    let n = f.regs.len() * f.per();
    let bits = u64::from(f.bits);
    // The ISA asks each row (column) to start aligned to the thread's fragment size; a
    // fragment larger than a row at the default stride (the replicated `.f16` ones) asks only
    // the row's size, or the default stride itself would break the rule.
    let line = if col_major { rows } else { cols } as u64 * bits / 8;
    let fb = f.bytes().min(line.max(1));
    let mut out = vec![[(0u64, 0u32); 32]; n];
    for lane in 0..32 {
        let base = x.addr(mem, lane)?;
        let ld = match stride {
            Some(s) => x.get(s, lane)? & 0xffff_ffff,
            None if col_major => rows as u64,
            None => cols as u64,
        };
        let line_bits = ld.wrapping_mul(bits);
        if base % fb != 0 || line_bits % (8 * fb) != 0 {
            let at = if base % fb != 0 {
                base
            } else {
                base.wrapping_add(line_bits / 8)
            };
            return Err(x.fault(FaultKind::Misaligned, sp, at, fb as usize, lane));
        }
        for (i, slot) in out.iter_mut().enumerate() {
            let (r, c) = position(f.mat, shape, f.bits, lane, i)
                .ok_or_else(|| x.unsupported("this wmma shape and type"))?;
            let (line, along) = if col_major { (c, r) } else { (r, c) };
            let bit = (line as u64)
                .wrapping_mul(line_bits)
                .wrapping_add(along as u64 * bits);
            slot[lane] = (base.wrapping_add(bit / 8), (bit % 8) as u32);
        }
    }
    Ok(out)
}

fn mat_of(x: &Ctx<'_, '_>) -> Result<Mat, Error> {
    if x.has(Flag::A) {
        Ok(Mat::A)
    } else if x.has(Flag::B) {
        Ok(Mat::B)
    } else if x.has(Flag::C) || x.has(Flag::D) {
        Ok(Mat::C)
    } else {
        Err(x.unsupported("wmma.load/store without its matrix"))
    }
}

/// `wmma.load.{a,b,c}`
pub fn load(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    let t =
        x.d.ty
            .ok_or_else(|| x.unsupported("wmma.load without a type"))?;
    let mat = mat_of(x)?;
    let ops = &x.d.opnds;
    let f = fragment(x, &ops[0], mat, t)?;
    let sp = AddrSpace::of(x.d.space);
    let at = addresses(x, &f, &ops[1], ops.get(2), sp)?;
    let per = f.per();
    let size = (f.bits as usize).div_ceil(8);
    let mut vals = vec![[0u64; 32]; f.regs.len()];
    for (i, lanes) in at.iter().enumerate() {
        for (lane, &(a, bit)) in lanes.iter().enumerate() {
            let v = x.access(sp, a, size, size, lane, false, |b| crate::mem::get_le(b))?;
            let e = (v >> bit) & mask(f.bits.min(64));
            let sh = if f.bits >= 32 {
                0
            } else {
                f.bits as usize * (i % per)
            };
            vals[i / per][lane] |= e << sh;
        }
    }
    for (r, v) in f.regs.iter().zip(&vals) {
        x.write(r, v, u32::MAX)?;
    }
    Ok(Flow::Next)
}

/// `wmma.store.d`
pub fn store(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    let t =
        x.d.ty
            .ok_or_else(|| x.unsupported("wmma.store without a type"))?;
    let ops = &x.d.opnds;
    let f = fragment(x, &ops[1], Mat::C, t)?;
    let sp = AddrSpace::of(x.d.space);
    let at = addresses(x, &f, &ops[0], ops.get(2), sp)?;
    let per = f.per();
    let size = (f.bits as usize) / 8;
    let vals = f
        .regs
        .iter()
        .map(|r| x.read(r, u32::MAX))
        .collect::<Result<Vec<_>, Error>>()?;
    for (i, lanes) in at.iter().enumerate() {
        for (lane, &(a, _)) in lanes.iter().enumerate() {
            let sh = if f.bits >= 32 {
                0
            } else {
                f.bits as usize * (i % per)
            };
            let e = (vals[i / per][lane] >> sh) & mask(f.bits);
            x.access(sp, a, size, size, lane, true, |b| crate::mem::put_le(b, e))?;
        }
    }
    Ok(Flow::Next)
}

/// Reads matrix `f.mat` (row-major, `cols` wide) from the warp's fragments; a repeated
/// element is taken from its first copy.
fn gather(x: &Ctx<'_, '_>, f: &Frag<'_>, cols: usize, out: &mut [u64]) -> Result<(), Error> {
    let shape = x.d.shape.unwrap_or_default();
    let per = f.per();
    let mut seen = vec![false; out.len()];
    for (ri, reg) in f.regs.iter().enumerate() {
        let v = x.read(reg, u32::MAX)?;
        for (lane, &word) in v.iter().enumerate() {
            for j in 0..per {
                let i = ri * per + j;
                let (r, c) = position(f.mat, shape, f.bits, lane, i)
                    .ok_or_else(|| x.unsupported("this wmma shape and type"))?;
                let idx = r * cols + c;
                if idx < out.len() && !seen[idx] {
                    seen[idx] = true;
                    let sh = if f.bits >= 32 { 0 } else { f.bits as usize * j };
                    out[idx] = (word >> sh) & mask(f.bits.min(64));
                }
            }
        }
    }
    Ok(())
}

/// Columns `k0..k0 + kk` of `a` (`m x k`) and rows `k0..k0 + kk` of `b` (`k x n`).
fn k_slice(
    a: &[u64],
    b: &[u64],
    (m, n, k): (usize, usize, usize),
    k0: usize,
    kk: usize,
) -> (Vec<u64>, Vec<u64>) {
    let sa = (0..m)
        .flat_map(|i| a[i * k + k0..i * k + k0 + kk].iter().copied())
        .collect();
    let sb = b[k0 * n..(k0 + kk) * n].to_vec();
    (sa, sb)
}

/// `wmma.mma`
pub fn mma(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    full_warp(x)?;
    let shape =
        x.d.shape
            .ok_or_else(|| x.unsupported("wmma.mma without a shape"))?;
    // `.dtype.ctype` for f16 multiplicands, else `.dtype.atype.btype.ctype`.
    let (dt, at, bt, ct) = match *x.types() {
        [d, c] => (d, Type::F16, Type::F16, c),
        [d, a, b, c] => (d, a, b, c),
        _ => return Err(x.unsupported("wmma.mma without its types")),
    };
    let ops = &x.d.opnds;
    let [fd, fa, fb, fc] = [
        (0, Mat::C, dt),
        (1, Mat::A, at),
        (2, Mat::B, bt),
        (3, Mat::C, ct),
    ]
    .map(|(o, m, t)| fragment(x, &ops[o], m, t));
    let (fd, fa, fb, fc) = (fd?, fa?, fb?, fc?);
    let (m, n, k) = (shape.0 as usize, shape.1 as usize, shape.2 as usize);
    let mut a = vec![0u64; m * k];
    let mut b = vec![0u64; k * n];
    let mut c = vec![0u64; m * n];
    gather(x, &fa, k, &mut a)?;
    gather(x, &fb, n, &mut b)?;
    gather(x, &fc, n, &mut c)?;
    let d = if at == Type::B1 {
        let and = match x.d.oper {
            Some(Op::And) => true,
            Some(Op::Xor) => false,
            _ => return Err(x.unsupported("single-bit wmma.mma without .and or .xor")),
        };
        popc_mma((m, n, k), &a, &b, &c, and)
    } else if at == Type::Tf32 {
        // Two `HMMA.1684` steps, the second accumulating onto the first.
        let (a0, b0) = k_slice(&a, &b, (m, n, k), 0, 4);
        let (a1, b1) = k_slice(&a, &b, (m, n, k), 4, 4);
        let d0 = sync_compute(x, (m, n, 4), [dt, at, bt, ct], &a0, &b0, &c)?;
        sync_compute(x, (m, n, 4), [dt, at, bt, dt], &a1, &b1, &d0)?
    } else if dt == Type::F16 && ct == Type::F32 {
        // Summed in f32, then rounded to f16 (`F2FP.F16.F32`).
        sync_compute(x, (m, n, k), [Type::F32, at, bt, ct], &a, &b, &c)?
            .iter()
            .map(|&v| float::convert_bits(v, Fmt::F32, Fmt::F16, Rounding::Rn))
            .collect()
    } else {
        sync_compute(x, (m, n, k), [dt, at, bt, ct], &a, &b, &c)?
    };
    scatter(x, &fd, n, &d)?;
    Ok(Flow::Next)
}

/// Writes matrix D (row-major, `cols` wide) to the fragments of `f`.
fn scatter(x: &mut Ctx<'_, '_>, f: &Frag<'_>, cols: usize, d: &[u64]) -> Result<(), Error> {
    let shape = x.d.shape.unwrap_or_default();
    let per = f.per();
    let mut vals = vec![[0u64; 32]; f.regs.len()];
    for (ri, v) in vals.iter_mut().enumerate() {
        for (lane, word) in v.iter_mut().enumerate() {
            for j in 0..per {
                let (r, c) = position(Mat::C, shape, f.bits, lane, ri * per + j)
                    .ok_or_else(|| x.unsupported("this wmma shape and type"))?;
                let e = d.get(r * cols + c).copied().unwrap_or(0) & mask(f.bits.min(64));
                let sh = if f.bits >= 32 { 0 } else { f.bits as usize * j };
                *word |= e << sh;
            }
        }
    }
    for (r, v) in f.regs.iter().zip(&vals) {
        x.write(r, v, u32::MAX)?;
    }
    Ok(())
}
