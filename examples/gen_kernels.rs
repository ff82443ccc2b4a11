//! A kernel generator: builds kernels with the IR builder (no PTX text written by hand), checks
//! that each prints and reads back as itself, runs each in the reference interpreter against a
//! Rust reference, and prints the PTX or writes one file per kernel.
//!
//! ```sh
//! cargo run --release --example gen_kernels                # check, print to stdout
//! cargo run --release --example gen_kernels -- --out DIR   # check, write DIR/<kernel>.ptx
//! ```
//!
//! The kernels: `saxpy` (fused multiply-add), `horner_d7` (a polynomial whose coefficients are
//! baked in at generation time), `reduce_u32` (shared-memory tree reduction with a loop,
//! barriers and an atomic), `dispatch` (`brx.idx` through a `.branchtargets` list, and a call
//! to a device function), `mixed` (most of the other helpers, checked element by element).

use ptx_ir::interp::{Arg, Program};
use ptx_ir::ir::build::{args, BuildError, FunctionBuilder, ModuleBuilder, Reg, Sreg};
use ptx_ir::ir::cfg::Cfg;
use ptx_ir::ir::{Cmp, Flag, Module, Op, Rounding, Space, SpecialReg, Target, Type, Version};
use ptx_ir::text;
use std::process::ExitCode;

fn new_module() -> ModuleBuilder {
    // PTX 8.0 for sm_80: accepted by every ptxas since CUDA 12.0.
    ModuleBuilder::new(Version::new(8, 0), Target::sm(80))
}

/// `i = %ctaid.x * %ntid.x + %tid.x`
fn global_index(f: &mut FunctionBuilder) -> Result<Reg, BuildError> {
    let [tid, ntid, ctaid, i] = f.regs(Type::U32)?;
    f.special(tid, Sreg::axis(SpecialReg::Tid, 0))?;
    f.special(ntid, Sreg::axis(SpecialReg::Ntid, 0))?;
    f.special(ctaid, Sreg::axis(SpecialReg::Ctaid, 0))?;
    f.mad((Flag::Lo, Type::U32), (i, ctaid, ntid, tid))?;
    Ok(i)
}

/// The global address of element `i` (of `bytes` bytes) of the array whose pointer is in
/// parameter `p`.
fn element(
    f: &mut FunctionBuilder,
    p: ptx_ir::ir::build::Var,
    i: Reg,
    bytes: u32,
) -> Result<Reg, BuildError> {
    let [base, off] = f.regs(Type::U64)?;
    f.ld((Space::Param, Type::U64), (base, p.at(0)))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (base, base))?;
    f.mul((Flag::Wide, Type::U32), (off, i, bytes))?;
    f.add(Type::U64, (base, base, off))?;
    Ok(base)
}

/// `y[i] = a * x[i] + y[i]` for `i < n`.
fn saxpy() -> Result<Module, BuildError> {
    let mut mb = new_module();
    let mut f = mb.entry("saxpy")?;
    let (px, py, pa, pn) = (
        f.param(Type::U64, "x")?,
        f.param(Type::U64, "y")?,
        f.param(Type::F32, "a")?,
        f.param(Type::U32, "n")?,
    );
    let i = global_index(&mut f)?;
    let n = f.reg(Type::U32)?;
    let out = f.reg(Type::Pred)?;
    let done = f.fresh_label();
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    f.setp((Cmp::Ge, Type::U32), (out, i, n))?;
    f.guard(out).bra((), done)?;
    let xa = element(&mut f, px, i, 4)?;
    let ya = element(&mut f, py, i, 4)?;
    let [a, x, y] = f.regs(Type::F32)?;
    f.ld((Space::Param, Type::F32), (a, pa.at(0)))?;
    f.ld((Space::Global, Type::F32), (x, xa.at(0)))?;
    f.ld((Space::Global, Type::F32), (y, ya.at(0)))?;
    f.fma((Rounding::Rn, Type::F32), (y, a, x, y))?;
    f.st((Space::Global, Type::F32), (ya.at(0), y))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(mb.finish())
}

/// `out[i] = c[0] + x (c[1] + x (c[2] + ...))` by Horner's rule with one `fma` per
/// coefficient; the coefficients become `0f` literals of the generated code.
fn horner(coeffs: &[f32]) -> Result<Module, BuildError> {
    let mut mb = new_module();
    let name = format!("horner_d{}", coeffs.len() - 1);
    let mut f = mb.entry(&name)?;
    let (pin, pout, pn) = (
        f.param(Type::U64, "in")?,
        f.param(Type::U64, "out")?,
        f.param(Type::U32, "n")?,
    );
    let i = global_index(&mut f)?;
    let n = f.reg(Type::U32)?;
    let out = f.reg(Type::Pred)?;
    let done = f.fresh_label();
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    f.setp((Cmp::Ge, Type::U32), (out, i, n))?;
    f.guard(out).bra((), done)?;
    let xa = element(&mut f, pin, i, 4)?;
    let ya = element(&mut f, pout, i, 4)?;
    let [x, y] = f.regs(Type::F32)?;
    f.ld((Space::Global, Type::F32), (x, xa.at(0)))?;
    let (&last, rest) = coeffs.split_last().expect("at least one coefficient");
    f.mov(Type::F32, (y, last))?;
    for &c in rest.iter().rev() {
        f.fma((Rounding::Rn, Type::F32), (y, y, x, c))?;
    }
    f.st((Space::Global, Type::F32), (ya.at(0), y))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(mb.finish())
}

const BLOCK: u32 = 128;

/// `*out += sum(in[0..n])`: each CTA reduces `BLOCK` elements in shared memory (a loop halving
/// the stride, with a barrier per step), then thread 0 adds the CTA's sum atomically.
fn reduce() -> Result<Module, BuildError> {
    let mut mb = new_module();
    let sdata = mb.array(Space::Shared, Type::U32, "sdata", BLOCK.into(), None)?;
    let mut f = mb.entry("reduce_u32")?;
    let (pin, pout, pn) = (
        f.param(Type::U64, "in")?,
        f.param(Type::U64, "out")?,
        f.param(Type::U32, "n")?,
    );
    let i = global_index(&mut f)?;
    let [tid, n, v, w, stride] = f.regs(Type::U32)?;
    let [inside, busy, more, lead] = f.regs(Type::Pred)?;
    let [mine, other, off] = f.regs(Type::U64)?;
    let (top, skip, done) = (f.label("STEP")?, f.label("SKIP")?, f.label("DONE")?);
    f.special(tid, Sreg::axis(SpecialReg::Tid, 0))?;
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    // v = i < n ? in[i] : 0
    f.mov(Type::U32, (v, 0))?;
    f.setp((Cmp::Lt, Type::U32), (inside, i, n))?;
    let xa = element(&mut f, pin, i, 4)?;
    f.guard(inside)
        .ld((Space::Global, Type::U32), (v, xa.at(0)))?;
    // sdata[tid] = v
    f.mov(Type::U64, (mine, sdata))?;
    f.mul((Flag::Wide, Type::U32), (off, tid, 4))?;
    f.add(Type::U64, (mine, mine, off))?;
    f.st((Space::Shared, Type::U32), (mine.at(0), v))?;
    f.bar(Flag::Sync, 0)?;
    f.mov(Type::U32, (stride, BLOCK / 2))?;
    f.place(top)?;
    f.setp((Cmp::Ge, Type::U32), (busy, tid, stride))?;
    f.guard(busy).bra((), skip)?;
    f.mul((Flag::Wide, Type::U32), (off, stride, 4))?;
    f.add(Type::U64, (other, mine, off))?;
    f.ld((Space::Shared, Type::U32), (v, mine.at(0)))?;
    f.ld((Space::Shared, Type::U32), (w, other.at(0)))?;
    f.add(Type::U32, (v, v, w))?;
    f.st((Space::Shared, Type::U32), (mine.at(0), v))?;
    f.place(skip)?;
    f.bar(Flag::Sync, 0)?;
    f.shr(Type::U32, (stride, stride, 1))?;
    f.setp((Cmp::Ne, Type::U32), (more, stride, 0))?;
    f.guard(more).bra((), top)?;
    f.setp((Cmp::Ne, Type::U32), (lead, tid, 0))?;
    f.guard(lead).bra((), done)?;
    f.ld((Space::Shared, Type::U32), (v, mine.at(0)))?;
    let [dst] = f.regs(Type::U64)?;
    f.ld((Space::Param, Type::U64), (dst, pout.at(0)))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (dst, dst))?;
    f.red((Space::Global, Op::Add, Type::U32), (dst.at(0), v))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(mb.finish())
}

/// `data[i] = [mix(v, 3), v ^ 0x55, v >> 1][i % 3](data[i])`, through `brx.idx`;
/// `mix(x, k) = x * k + 1` is a device function.
fn dispatch() -> Result<Module, BuildError> {
    let mut mb = new_module();
    let mut g = mb.func("mix")?;
    let r = g.ret_param(Type::B32, "r")?;
    let (px, pk) = (g.param(Type::B32, "x")?, g.param(Type::B32, "k")?);
    let [x, k] = g.regs(Type::U32)?;
    g.ld((Space::Param, Type::B32), (x, px.at(0)))?;
    g.ld((Space::Param, Type::B32), (k, pk.at(0)))?;
    g.mad((Flag::Lo, Type::U32), (x, x, k, 1))?;
    g.st((Space::Param, Type::B32), (r.at(0), x))?;
    g.ret((), ())?;
    let mix = g.finish()?;

    let mut f = mb.entry("dispatch")?;
    let (pdata, pn) = (f.param(Type::U64, "data")?, f.param(Type::U32, "n")?);
    let i = global_index(&mut f)?;
    let [n, v, sel] = f.regs(Type::U32)?;
    let out = f.reg(Type::Pred)?;
    let cases = [f.fresh_label(), f.fresh_label(), f.fresh_label()];
    let (store, done) = (f.fresh_label(), f.fresh_label());
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    f.setp((Cmp::Ge, Type::U32), (out, i, n))?;
    f.guard(out).bra((), done)?;
    let a = element(&mut f, pdata, i, 4)?;
    f.ld((Space::Global, Type::U32), (v, a.at(0)))?;
    f.rem(Type::U32, (sel, i, 3))?;
    let table = f.branch_targets("cases", &cases)?;
    f.brx_idx((), (sel, table))?;
    f.place(cases[0])?;
    f.block(|f| {
        let (ax, ak, ar) = (
            f.local(Space::Param, Type::B32, "arg_x")?,
            f.local(Space::Param, Type::B32, "arg_k")?,
            f.local(Space::Param, Type::B32, "ret_v")?,
        );
        f.st((Space::Param, Type::B32), (ax.at(0), v))?;
        f.st((Space::Param, Type::B32), (ak.at(0), 3))?;
        f.call(Flag::Uni, (args(&[ar]), mix, args(&[ax, ak])))?;
        f.ld((Space::Param, Type::B32), (v, ar.at(0)))
    })?;
    f.bra((), store)?;
    f.place(cases[1])?;
    f.xor(Type::B32, (v, v, 0x55))?;
    f.bra((), store)?;
    f.place(cases[2])?;
    f.shr(Type::U32, (v, v, 1))?;
    f.place(store)?;
    f.st((Space::Global, Type::U32), (a.at(0), v))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(mb.finish())
}

/// A mix of integer, logic, comparison, conversion, float and atomic helpers per element, so
/// that `ptxas` and the interpreter see most of the builder's helpers; `stats[0]` counts the
/// threads (`red`), `stats[1]` is the maximum input (`atom.max`).
fn mixed() -> Result<Module, BuildError> {
    let mut mb = new_module();
    let mut f = mb.entry("mixed")?;
    let (pin, pout, pstats, pn) = (
        f.param(Type::U64, "in")?,
        f.param(Type::U64, "out")?,
        f.param(Type::U64, "stats")?,
        f.param(Type::U32, "n")?,
    );
    let i = global_index(&mut f)?;
    let [n, x, a, b, c, d, e, g, h, q, acc, lane] = f.regs(Type::U32)?;
    let [out_of_range, neg, nonneg] = f.regs(Type::Pred)?;
    let low = f.reg(Type::Pred)?;
    let [y, w] = f.regs(Type::F32)?;
    let dd = f.reg(Type::F64)?;
    let [stats, generic] = f.regs(Type::U64)?;
    let done = f.fresh_label();
    f.special(lane, Sreg::from(SpecialReg::Laneid))?;
    f.ld((Space::Param, Type::U32), (n, pn.at(0)))?;
    f.setp((Cmp::Ge, Type::U32), (out_of_range, i, n))?;
    f.guard(out_of_range).bra((), done)?;
    let xa = element(&mut f, pin, i, 4)?;
    let oa = element(&mut f, pout, i, 4)?;
    // Generic addressing: the global address made generic again.
    f.cvta((Space::Global, Type::U64), (generic, xa))?;
    f.ld(Type::U32, (x, generic.at(0)))?;
    f.mad((Flag::Lo, Type::U32), (a, x, 3, 7))?;
    f.mul((Flag::Hi, Type::U32), (b, x, 0x9E37_79B9u32))?;
    f.min(Type::S32, (c, a, b))?;
    f.max(Type::U32, (d, a, b))?;
    f.shr(Type::U32, (e, d, 3))?;
    f.shl(Type::B32, (g, c, 2))?;
    f.and(Type::B32, (g, g, 0xffff))?;
    f.xor(Type::B32, (e, e, g))?;
    f.or(Type::B32, (e, e, 1))?;
    f.not(Type::B32, (e, e))?;
    f.rem(Type::U32, (q, x, 7))?;
    f.div(Type::U32, (h, x, 7))?;
    f.add(Type::U32, (acc, e, q))?;
    f.sub(Type::U32, (acc, acc, h))?;
    f.abs(Type::S32, (g, c))?;
    f.neg(Type::S32, (h, g))?;
    f.xor(Type::B32, (acc, acc, h))?;
    f.setp(
        (Cmp::Lt, Type::S32),
        (ptx_ir::ir::build::pair(neg, nonneg), c, 0),
    )?;
    f.selp(Type::U32, (g, a, b, neg))?;
    f.selp(Type::U32, (h, 0, lane, neg))?;
    f.add(Type::U32, (acc, acc, g))?;
    f.add(Type::U32, (acc, acc, h))?;
    // `setp.lt.and.u32 low, x, 1000, !nonneg`: `!p` where the ISA allows it (`{!}c`).
    f.inst(
        ptx_ir::ir::Opcode::Setp,
        [Cmp::Lt.into(), Op::And.into(), Type::U32.into()],
        [low.into(), x.into(), 1000.into(), !nonneg],
    )?;
    f.selp(Type::U32, (g, 1000, 0, low))?;
    f.add(Type::U32, (acc, acc, g))?;
    // Floating point: sqrt, fma, through f64 and back to an integer.
    f.cvt((Rounding::Rn, Type::F32, Type::U32), (y, x))?;
    f.sqrt((Rounding::Rn, Type::F32), (y, y))?;
    f.fma((Rounding::Rn, Type::F32), (w, y, 0.5f32, 1.0f32))?;
    f.cvt((Type::F64, Type::F32), (dd, w))?;
    f.mul(Type::F64, (dd, dd, dd))?;
    f.cvt((Rounding::Rn, Type::F32, Type::F64), (w, dd))?;
    f.cvt((Rounding::Rzi, Type::U32, Type::F32), (g, w))?;
    f.add(Type::U32, (acc, acc, g))?;
    f.st(Type::U32, (generic.at(0), x))?;
    f.st((Space::Global, Type::U32), (oa.at(0), acc))?;
    f.ld((Space::Param, Type::U64), (stats, pstats.at(0)))?;
    f.cvta((Flag::To, Space::Global, Type::U64), (stats, stats))?;
    f.red((Space::Global, Op::Add, Type::U32), (stats.at(0), 1))?;
    f.atom((Space::Global, Op::Max, Type::U32), (g, stats.at(4), x))?;
    f.place(done)?;
    f.ret((), ())?;
    f.finish()?;
    Ok(mb.finish())
}

/// The reference of `mixed` for one element at global index `i`.
fn mixed_ref(x: u32, i: u32) -> u32 {
    let a = x.wrapping_mul(3).wrapping_add(7);
    let b = ((u64::from(x) * 0x9E37_79B9) >> 32) as u32;
    let c = (a as i32).min(b as i32);
    let d = a.max(b);
    let g = ((c as u32) << 2) & 0xffff;
    let e = !(((d >> 3) ^ g) | 1);
    let (q, h) = (x % 7, x / 7);
    let mut acc = e.wrapping_add(q).wrapping_sub(h);
    acc ^= c.wrapping_abs().wrapping_neg() as u32;
    acc = acc.wrapping_add(if c < 0 { a } else { b });
    acc = acc.wrapping_add(if c < 0 { 0 } else { i % 32 });
    acc = acc.wrapping_add(if x < 1000 && c < 0 { 1000 } else { 0 });
    let w = (x as f32).sqrt().mul_add(0.5, 1.0);
    let dd = f64::from(w) * f64::from(w);
    acc.wrapping_add(dd as f32 as u32)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn grid(n: u32, block: u32) -> [u32; 3] {
    [n.div_ceil(block).max(1), 1, 1]
}

/// Runs a kernel in the interpreter and compares with the Rust reference.
fn run_check(name: &str, m: &Module) -> Result<String, String> {
    let prog = Program::load(m).map_err(|e| e.to_string())?;
    let fail = |e: Box<ptx_ir::interp::Failure>| e.to_string();
    let n: u32 = 300;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 - 150.0) / 37.0).collect();
    match name {
        "saxpy" => {
            let ys: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
            let a = 1.75f32;
            let o = prog
                .launch(name)
                .grid(grid(n, 64))
                .block([64, 1, 1])
                .args([
                    Arg::Buffer(f32_bytes(&xs)),
                    Arg::Buffer(f32_bytes(&ys)),
                    Arg::f32(a),
                    Arg::u32(n),
                ])
                .run()
                .map_err(fail)?;
            let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a.mul_add(*x, *y)).collect();
            (f32s(&o.buffers[1]) == want)
                .then(|| format!("{n} elements bit-identical to f32::mul_add"))
                .ok_or_else(|| "saxpy differs from the reference".into())
        }
        _ if name.starts_with("horner") => {
            let o = prog
                .launch(name)
                .grid(grid(n, 64))
                .block([64, 1, 1])
                .args([
                    Arg::Buffer(f32_bytes(&xs)),
                    Arg::Buffer(vec![0; 4 * n as usize]),
                    Arg::u32(n),
                ])
                .run()
                .map_err(fail)?;
            let want: Vec<f32> = xs
                .iter()
                .map(|&x| COEFFS.iter().rev().fold(0.0f32, |y, &c| y.mul_add(x, c)))
                .collect();
            (f32s(&o.buffers[1]) == want)
                .then(|| format!("{n} elements bit-identical to Horner with f32::mul_add"))
                .ok_or_else(|| "horner differs from the reference".into())
        }
        "reduce_u32" => {
            let n = 1000u32;
            let data: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect();
            let o = prog
                .launch(name)
                .grid(grid(n, BLOCK))
                .block([BLOCK, 1, 1])
                .args([
                    Arg::Buffer(u32_bytes(&data)),
                    Arg::Buffer(vec![0; 4]),
                    Arg::u32(n),
                ])
                .run()
                .map_err(fail)?;
            let want = data.iter().fold(0u32, |s, &x| s.wrapping_add(x));
            let got = u32s(&o.buffers[1])[0];
            (got == want)
                .then(|| {
                    format!(
                        "sum of {n} elements over {} CTAs = {got}",
                        grid(n, BLOCK)[0]
                    )
                })
                .ok_or_else(|| format!("reduce: got {got}, want {want}"))
        }
        "mixed" => {
            let data: Vec<u32> = (0..n)
                .map(|i| i.wrapping_mul(2_654_435_761) ^ (i << 3))
                .collect();
            let o = prog
                .launch(name)
                .grid(grid(n, 64))
                .block([64, 1, 1])
                .args([
                    Arg::Buffer(u32_bytes(&data)),
                    Arg::Buffer(vec![0; 4 * n as usize]),
                    Arg::Buffer(vec![0; 8]),
                    Arg::u32(n),
                ])
                .run()
                .map_err(fail)?;
            let want: Vec<u32> = data
                .iter()
                .zip(0..)
                .map(|(&x, i)| mixed_ref(x, i))
                .collect();
            let stats = u32s(&o.buffers[2]);
            let max = data.iter().copied().max().unwrap_or(0);
            if u32s(&o.buffers[0]) != data {
                return Err("mixed: the generic store changed the input".into());
            }
            (u32s(&o.buffers[1]) == want && stats == [n, max])
                .then(|| {
                    format!("{n} elements match the Rust reference; red/atom statistics {stats:?}")
                })
                .ok_or_else(|| format!("mixed differs from the reference (stats {stats:?})"))
        }
        "dispatch" => {
            let data: Vec<u32> = (0..n).map(|i| i * 7 + 1).collect();
            let o = prog
                .launch(name)
                .grid(grid(n, 32))
                .block([32, 1, 1])
                .args([Arg::Buffer(u32_bytes(&data)), Arg::u32(n)])
                .run()
                .map_err(fail)?;
            let want: Vec<u32> = data
                .iter()
                .enumerate()
                .map(|(i, &v)| match i % 3 {
                    0 => v.wrapping_mul(3).wrapping_add(1),
                    1 => v ^ 0x55,
                    _ => v >> 1,
                })
                .collect();
            (u32s(&o.buffers[0]) == want)
                .then(|| format!("{n} elements through 3 branch targets and a call"))
                .ok_or_else(|| "dispatch differs from the reference".into())
        }
        _ => Err(format!("no reference for {name}")),
    }
}

const COEFFS: [f32; 8] = [1.0, -0.5, 0.25, 3.0, -1.125, 0.0625, 2.5, -0.75];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out_dir = match args.as_slice() {
        [] => None,
        [flag, dir] if flag == "--out" => Some(std::path::PathBuf::from(dir)),
        _ => {
            eprintln!("usage: gen_kernels [--out DIR]");
            return ExitCode::from(2);
        }
    };
    let built: Vec<(&str, Result<Module, BuildError>)> = vec![
        ("saxpy", saxpy()),
        ("horner_d7", horner(&COEFFS)),
        ("reduce_u32", reduce()),
        ("dispatch", dispatch()),
        ("mixed", mixed()),
    ];
    let mut ok = true;
    for (name, m) in built {
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{name}: build error: {e}");
                ok = false;
                continue;
            }
        };
        let printed = text::print(&m);
        let checks = (|| -> Result<String, String> {
            let back = text::parse(&printed).map_err(|e| e.to_string())?;
            if back != m {
                return Err("does not read back as the built module".into());
            }
            let f = m.function(name).ok_or("kernel missing")?;
            let cfg = Cfg::of_function(f).map_err(|e| e.to_string())?;
            let run = run_check(name, &m)?;
            Ok(format!(
                "{} instructions, {} basic blocks; {run}",
                m.instruction_count(),
                cfg.blocks().len()
            ))
        })();
        match checks {
            Ok(summary) => eprintln!("{name}: ok: {summary}"),
            Err(e) => {
                eprintln!("{name}: FAILED: {e}");
                ok = false;
            }
        }
        match &out_dir {
            Some(dir) => {
                let path = dir.join(format!("{name}.ptx"));
                if let Err(e) =
                    std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &printed))
                {
                    eprintln!("{}: {e}", path.display());
                    ok = false;
                }
            }
            None => println!("// ---- {name}\n{printed}"),
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
