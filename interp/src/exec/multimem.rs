//! `multimem.ld_reduce`, `multimem.st`, `multimem.red` (PTX ISA 9.7.9.14) on the launch's
//! multicast objects ([`crate::Arg::Multicast`]): one replica per simulated device, the launch
//! running on device 0.
//!
//! A multimem address is `base + offset` of an object; each instruction touches the bytes at
//! `offset` of every replica. `ld_reduce` reduces the replicas' values in device order, each step
//! rounded in the accumulation precision (the type's own, or `f32` with `.acc::f32` for 16-bit
//! floats, `f16` with `.acc::f16` for FP8) and the result rounded to the type; the ISA leaves
//! the order of the devices open, which a float sum can show. `st` writes every replica; `red`
//! reduces its operand into every replica. Integer steps are `atom`'s ([`super::memops`]),
//! float `min`/`max` `min`/`max`'s ([`float::min_max`]: a NaN gives the other operand). ISA-derived, not hardware-checked: multicast objects need NVLink SHARP, which the
//! single GPU here lacks.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::Error;
use crate::float::{self, BinOp, Fmt, Mode};
use crate::narrow;
use ptx_ir_core::{Kind, Op, Opcode, Rounding, Type, Vector};

/// The index of the multicast object holding `[a, a + n)`, and the offset of `a` in it.
fn locate(x: &Ctx<'_, '_>, a: u64, n: u64, l: usize) -> Result<(usize, u64), Error> {
    for (i, m) in x.m.multicasts.iter().enumerate() {
        if a >= m.base && a.wrapping_sub(m.base).saturating_add(n) <= m.len {
            return Ok((i, a - m.base));
        }
    }
    Err(x.undefined(
        l,
        format!("{a:#x} is not a multimem address of this launch (the address operand of multimem must be one, PTX ISA 9.7.9.14; pass a multicast object with an `mc:` argument)"),
    ))
}

/// The element format of a type and the number of elements one value packs.
fn elems(t: Type) -> (Option<Fmt>, u32, u32) {
    // (float format or None for integers, element bits, elements per value)
    match t {
        Type::F16 => (Some(Fmt::F16), 16, 1),
        Type::F16x2 => (Some(Fmt::F16), 16, 2),
        Type::Bf16 => (Some(Fmt::Bf16), 16, 1),
        Type::Bf16x2 => (Some(Fmt::Bf16), 16, 2),
        Type::F32 => (Some(Fmt::F32), 32, 1),
        Type::F64 => (Some(Fmt::F64), 64, 1),
        Type::E4m3 => (Some(Fmt::E4m3), 8, 1),
        Type::E4m3x2 => (Some(Fmt::E4m3), 8, 2),
        Type::E4m3x4 => (Some(Fmt::E4m3), 8, 4),
        Type::E5m2 => (Some(Fmt::E5m2), 8, 1),
        Type::E5m2x2 => (Some(Fmt::E5m2), 8, 2),
        Type::E5m2x4 => (Some(Fmt::E5m2), 8, 4),
        t => (None, t.bits(), 1),
    }
}

fn rn() -> Mode {
    Mode {
        rnd: Some(Rounding::Rn),
        ftz: false,
        sat: false,
        relu: false,
    }
}

/// `a op b` for one float element in format `f` (bits), the sum rounded in `f`.
fn float_op(op: Op, f: Fmt, a: u64, b: u64) -> u64 {
    match op {
        Op::Add => {
            if matches!(f, Fmt::E4m3 | Fmt::E5m2) {
                // The exact sum (in f32) rounded to the FP8 format, saturating.
                let s = float::bin(
                    BinOp::Add,
                    Fmt::F32,
                    float::convert_bits(a, f, Fmt::F32, Rounding::Rn),
                    float::convert_bits(b, f, Fmt::F32, Rounding::Rn),
                    rn(),
                );
                let m = if f == Fmt::E4m3 {
                    narrow::E4M3
                } else {
                    narrow::E5M2
                };
                m.encode(s as u32, narrow::Round::Nearest, true, false)
            } else {
                float::bin(BinOp::Add, f, a, b, rn())
            }
        }
        Op::Min | Op::Max => float::min_max(
            f,
            a,
            b,
            float::MinMax {
                max: op == Op::Max,
                ..Default::default()
            },
        ),
        _ => a,
    }
}

/// Element `i` of a packed value.
fn part(v: u64, bits: u32, i: u32) -> u64 {
    (v >> (bits * i))
        & if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        }
}

/// Reduces the replicas' values `vals` (device order) of type `t` with `op`, accumulating in
/// `acc` (None: the type's precision).
fn reduce(op: Op, t: Type, acc: Option<Fmt>, vals: &[u64]) -> u64 {
    let (f, bits, n) = elems(t);
    let mut out = 0u64;
    for i in 0..n {
        let es: Vec<u64> = vals.iter().map(|&v| part(v, bits, i)).collect();
        let r = match f {
            None => es[1..].iter().fold(es[0], |a, &b| {
                // The atomic step of `atom`/`red` (`.and`/`.or`/`.xor`/`.add`/`.min`/`.max` of
                // integers, which are all the ISA's table allows here).
                super::memops::element(t, op, None, false, bits, (a, b, 0)).unwrap_or(a)
            }),
            Some(f) => match acc.filter(|_| op == Op::Add) {
                Some(af) => {
                    let wide: Vec<u64> = es
                        .iter()
                        .map(|&e| float::convert_bits(e, f, af, Rounding::Rn))
                        .collect();
                    let s = wide[1..]
                        .iter()
                        .fold(wide[0], |a, &b| float::bin(BinOp::Add, af, a, b, rn()));
                    narrow_to(af, f, s)
                }
                None => es[1..].iter().fold(es[0], |a, &b| float_op(op, f, a, b)),
            },
        };
        out |= r << (bits * i);
    }
    out
}

/// An accumulator value of format `af` rounded to the element format `f`.
fn narrow_to(af: Fmt, f: Fmt, v: u64) -> u64 {
    match f {
        Fmt::E4m3 | Fmt::E5m2 => {
            let x = float::convert_bits(v, af, Fmt::F32, Rounding::Rn) as u32;
            let m = if f == Fmt::E4m3 {
                narrow::E4M3
            } else {
                narrow::E5M2
            };
            m.encode(x, narrow::Round::Nearest, true, false)
        }
        _ => float::convert_bits(v, af, f, Rounding::Rn),
    }
}

/// `multimem.ld_reduce`, `multimem.st`, `multimem.red`
pub fn multimem(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = *x
        .types()
        .last()
        .ok_or_else(|| x.unsupported("multimem without a type"))?;
    let n = match x.d.vector {
        Some(Vector::V2) => 2,
        Some(Vector::V4) => 4,
        Some(Vector::V8) => 8,
        None => 1,
    };
    let size = (t.bits() / 8).max(1) as u64;
    let total = size * n;
    let acc = if x.d.kinds.has(Kind::AccF32) {
        Some(Fmt::F32)
    } else if x.d.kinds.has(Kind::AccF16) {
        Some(Fmt::F16)
    } else {
        None
    };
    let op = x.d.oper;
    let (addr_o, val_o) = match x.d.op {
        Opcode::MultimemLdReduce => (&x.d.opnds[1], &x.d.opnds[0]),
        _ => (&x.d.opnds[0], &x.d.opnds[1]),
    };
    let regs: Vec<&Opnd> = match val_o {
        Opnd::Vec(items) => items.iter().collect(),
        o => vec![o],
    };
    for l in lanes(x.emask) {
        let a = x.addr(addr_o, l)?;
        if a % total != 0 {
            return Err(x.undefined(
                l,
                format!("multimem address {a:#x} is not aligned to the access size {total}"),
            ));
        }
        let (i, off) = locate(x, a, total, l)?;
        let mcs = x.m.multicasts.clone(); // the launch's objects, shared: no copy per access
        let mc = &mcs[i];
        for (k, r) in regs.iter().enumerate() {
            let o = off + k as u64 * size;
            let mut vals = Vec::with_capacity(mc.replicas.len());
            for &base in &mc.replicas {
                let mut v = 0u64;
                x.access(
                    AddrSpace::Global,
                    base + o,
                    size as usize,
                    1,
                    l,
                    false,
                    |m| v = crate::mem::get_le(m),
                )?;
                vals.push(v);
            }
            match x.d.op {
                Opcode::MultimemLdReduce => {
                    let op = op.ok_or_else(|| x.unsupported("ld_reduce without an operation"))?;
                    x.set(r, l, reduce(op, t, acc, &vals))?;
                }
                Opcode::MultimemSt => {
                    let v = x.get(r, l)?;
                    for &base in &mc.replicas {
                        x.store(AddrSpace::Global, base + o, size as usize, l, v)?;
                    }
                }
                _ => {
                    let op = op.unwrap_or(Op::Add);
                    let v = x.get(r, l)?;
                    for (d, &base) in mc.replicas.iter().enumerate() {
                        let new = reduce(op, t, None, &[vals[d], v]);
                        x.access(
                            AddrSpace::Global,
                            base + o,
                            size as usize,
                            1,
                            l,
                            true,
                            |m| crate::mem::put_le(m, new),
                        )?;
                    }
                }
            }
        }
    }
    Ok(Flow::Next)
}
