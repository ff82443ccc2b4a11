//! Arithmetic, comparison, logic and conversion instructions, applied lane by lane.

use super::ctx::{lanes, Ctx, Lanes};
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::Error;
use crate::float::{self, approx, BinOp, Fmt, MinMax, Mode};
use crate::int::{self, mask, sext};
pub use crate::lanewise::{fshape, ity};
use ptx_ir_core::{Cmp, Compare, Flag, Op, Opcode, Type};

/// Applies `f` to each element of packed values.
#[inline]
fn packed(fmt: Fmt, n: u32, ins: &[u64], f: impl Fn(&[u64]) -> u64) -> u64 {
    if n == 1 {
        return f(ins) & fmt.mask();
    }
    let w = fmt.bits();
    let mut out = 0u64;
    let mut buf = [0u64; 3];
    for i in 0..n {
        for (k, v) in ins.iter().enumerate().take(3) {
            buf[k] = (v >> (w * i)) & fmt.mask();
        }
        out |= (f(&buf[..ins.len().min(3)]) & fmt.mask()) << (w * i);
    }
    out
}

/// The sign bits of the elements of `v` that are NaNs.
fn nan_lanes(fmt: Fmt, n: u32, v: u64) -> u64 {
    let w = fmt.bits();
    (0..n)
        .filter(|i| float::is_nan((v >> (w * i)) & fmt.mask(), fmt))
        .fold(0, |m, i| m | (fmt.sign() << (w * i)))
}

fn mode(x: &Ctx<'_, '_>) -> Mode {
    Mode {
        rnd: x.d.rnd,
        ftz: x.has(Flag::Ftz),
        sat: x.has(Flag::Sat),
        relu: x.has(Flag::Relu),
    }
}

fn ty(x: &Ctx<'_, '_>) -> Result<Type, Error> {
    x.d.ty.ok_or_else(|| x.unsupported("missing type"))
}

/// The last type modifier (the source type of mixed-precision forms).
fn ty2(x: &Ctx<'_, '_>) -> Option<Type> {
    let ts = x.types();
    if ts.len() >= 2 {
        ts.last().copied()
    } else {
        None
    }
}

/// Reads sources 1..=n, maps lanes with `f`, writes operand 0.
#[inline]
fn map<const N: usize>(
    x: &mut Ctx<'_, '_>,
    mut f: impl FnMut(&mut Ctx<'_, '_>, usize, [u64; N]) -> Result<u64, Error>,
) -> Result<Flow, Error> {
    let e = x.emask;
    let (d, s) = x.dst_src::<N>();
    let mut srcs: [Lanes; N] = [[0; 32]; N];
    for (v, o) in srcs.iter_mut().zip(s) {
        *v = x.read(o, e)?;
    }
    let mut out = [0u64; 32];
    for l in lanes(e) {
        let mut a = [0u64; N];
        for k in 0..N {
            a[k] = srcs[k][l];
        }
        out[l] = f(x, l, a)?;
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// Like [`map`] for infallible lane functions: a full warp runs a straight loop.
#[inline]
fn mapf<const N: usize>(x: &mut Ctx<'_, '_>, f: impl Fn([u64; N]) -> u64) -> Result<Flow, Error> {
    let (d, s) = x.dst_src::<N>();
    let e = x.emask;
    let mut srcs: [Lanes; N] = [[0; 32]; N];
    for (v, o) in srcs.iter_mut().zip(s) {
        *v = x.read(o, e)?;
    }
    let mut out = [0u64; 32];
    let get = |l: usize| -> [u64; N] { std::array::from_fn(|k| srcs[k][l]) };
    if e == u32::MAX {
        for (l, o) in out.iter_mut().enumerate() {
            *o = f(get(l));
        }
    } else {
        for l in lanes(e) {
            out[l] = f(get(l));
        }
    }
    x.write(d, &out, e)?;
    Ok(Flow::Next)
}

/// Widens half-precision sources of mixed forms (`add.f32.f16`) to the destination format.
fn widen(v: u64, from: Option<Type>, to: Fmt) -> u64 {
    match from.and_then(Fmt::of) {
        Some(f) if f != to => {
            float::convert_round(v, f, to, rustc_apfloat::Round::NearestTiesToEven)
        }
        _ => v,
    }
}

fn plain_rn(m: Mode) -> bool {
    m.rnd.is_none_or(|r| r == ptx_ir_core::Rounding::Rn) && !m.ftz && !m.sat && !m.relu
}

/// Two-operand float arithmetic; round-to-nearest single and double without `.ftz`/`.sat` take
/// the host's IEEE operations directly.
fn float2(
    x: &mut Ctx<'_, '_>,
    fmt: Fmt,
    n: u32,
    src: Option<Type>,
    m: Mode,
    op: BinOp,
) -> Result<Flow, Error> {
    if n == 1 && src.is_none() && plain_rn(m) {
        match fmt {
            Fmt::F32 => return mapf::<2>(x, move |[a, b]| crate::lanewise::f32_bin(op, a, b)),
            Fmt::F64 => return mapf::<2>(x, move |[a, b]| crate::lanewise::f64_bin(op, a, b)),
            _ => {}
        }
    }
    mapf::<2>(x, move |[a, b]| {
        let (a, b) = (widen(a, src, fmt), widen(b, src, fmt));
        packed(fmt, n, &[a, b], |v| float::bin(op, fmt, v[0], v[1], m))
    })
}

/// Fused multiply-add, with the same fast path as [`float2`].
fn float3(
    x: &mut Ctx<'_, '_>,
    fmt: Fmt,
    n: u32,
    src: Option<Type>,
    m: Mode,
) -> Result<Flow, Error> {
    if n == 1 && src.is_none() && plain_rn(m) {
        match fmt {
            Fmt::F32 => {
                return mapf::<3>(x, move |[a, b, c]| {
                    let r = f32::from_bits(a as u32)
                        .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
                    if r.is_nan() {
                        0x7fff_ffff
                    } else {
                        r.to_bits() as u64
                    }
                })
            }
            Fmt::F64 => {
                return mapf::<3>(x, move |[a, b, c]| {
                    let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
                    if r.is_nan() {
                        float::nan_result(Fmt::F64, &float::nan_order3(a, b, c))
                    } else {
                        r.to_bits()
                    }
                })
            }
            _ => {}
        }
    }
    mapf::<3>(x, move |[a, b, c]| {
        let (a, b, c) = (widen(a, src, fmt), widen(b, src, fmt), widen(c, src, fmt));
        packed(fmt, n, &[a, b, c], |v| float::fma(fmt, v[0], v[1], v[2], m))
    })
}

/// `add`, `sub`, `addc`, `subc`
pub fn add_sub(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let sub = matches!(x.d.op, Opcode::Sub | Opcode::Subc);
    if let Some((fmt, n)) = fshape(t) {
        let m = mode(x);
        let src = ty2(x);
        let op = if sub { BinOp::Sub } else { BinOp::Add };
        return float2(x, fmt, n, src, m, op);
    }
    if matches!(t, Type::U16x2 | Type::S16x2) {
        // Two independent 16-bit halves; a carry out of the low half does not reach the high one.
        return mapf::<2>(x, move |[a, b]| {
            let mut r = 0u64;
            for i in 0..2 {
                let (p, q) = ((a >> (16 * i)) & 0xffff, (b >> (16 * i)) & 0xffff);
                let v = if sub {
                    p.wrapping_sub(q)
                } else {
                    p.wrapping_add(q)
                };
                r |= (v & 0xffff) << (16 * i);
            }
            r
        });
    }
    let (w, signed) = ity(t);
    let sat = x.has(Flag::Sat);
    let cc_out = x.has(Flag::Cc);
    let cc_in = matches!(x.d.op, Opcode::Addc | Opcode::Subc);
    if !sat && !cc_in && !cc_out {
        let m = mask(w);
        if sub {
            return mapf::<2>(x, move |[a, b]| a.wrapping_sub(b) & m);
        }
        return mapf::<2>(x, move |[a, b]| a.wrapping_add(b) & m);
    }
    map::<2>(x, |x, l, [a, b]| {
        let m = mask(w);
        let cin = if cc_in { x.cc(l) } else { 0 };
        if sat {
            let (p, q) = (int::wide(a, w, signed), int::wide(b, w, signed));
            let v = if sub { p - q } else { p + q };
            return Ok(int::saturate(v, w, signed));
        }
        let (a, b) = (a & m, b & m);
        // The flag is the adder's carry out. Subtraction is `a + !b + 1` (`sub.cc`) or
        // `a + !b + CF` (`subc`), so after a subtraction CF = 1 means "no borrow" and `subc`
        // subtracts `1 - CF`. Measured on sm_90 (`sub.cc` then `addc`, `add.cc` then `subc`,
        // `sub.cc`/`subc.cc`/`addc` chains); the ISA text writes `subc` as `a - (b + CC.CF)`
        // with CF a borrow, which the hardware does not do.
        let (b, cin) = if sub {
            (!b & m, if cc_in { cin } else { 1 })
        } else {
            (b, cin)
        };
        let full = a as u128 + b as u128 + cin as u128;
        let (v, carry) = (full as u64 & m, (full >> w) & 1 == 1);
        if cc_out {
            x.set_cc(l, carry);
        }
        Ok(v)
    })
}

/// `mul`
pub fn mul(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    if let Some((fmt, n)) = fshape(t) {
        let m = mode(x);
        return float2(x, fmt, n, None, m, BinOp::Mul);
    }
    let (w, s) = ity(t);
    let hi = x.has(Flag::Hi);
    let wide = x.has(Flag::Wide);
    if wide {
        return mapf::<2>(x, move |[a, b]| {
            (int::mul_full(a, b, w, s) as u64) & mask(2 * w)
        });
    }
    if hi {
        return mapf::<2>(x, move |[a, b]| int::mul_hi(a, b, w, s));
    }
    mapf::<2>(x, move |[a, b]| a.wrapping_mul(b) & mask(w))
}

/// `mad`, `madc`
pub fn mad(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    if let Some((fmt, n)) = fshape(t) {
        let mut m = mode(x);
        if m.rnd.is_none() {
            m.rnd = Some(ptx_ir_core::Rounding::Rn);
        }
        return float3(x, fmt, n, None, m);
    }
    let (w, s) = ity(t);
    let hi = x.has(Flag::Hi);
    let wide = x.has(Flag::Wide);
    let sat = x.has(Flag::Sat);
    let cc_out = x.has(Flag::Cc);
    let cc_in = x.d.op == Opcode::Madc;
    if !sat && !cc_in && !cc_out {
        if wide {
            return mapf::<3>(x, move |[a, b, c]| {
                let p = int::mul_full(a, b, w, s) as u128;
                (p.wrapping_add(c as u128) as u64) & mask(2 * w)
            });
        }
        if hi {
            return mapf::<3>(x, move |[a, b, c]| {
                int::mul_hi(a, b, w, s).wrapping_add(c) & mask(w)
            });
        }
        return mapf::<3>(x, move |[a, b, c]| {
            a.wrapping_mul(b).wrapping_add(c) & mask(w)
        });
    }
    map::<3>(x, |x, l, [a, b, c]| {
        let cin = if cc_in { x.cc(l) as u128 } else { 0 };
        if wide {
            let p = int::mul_full(a, b, w, s) as u128;
            return Ok((p.wrapping_add(c as u128) as u64) & mask(2 * w));
        }
        let prod = if hi {
            int::mul_hi(a, b, w, s)
        } else {
            a.wrapping_mul(b) & mask(w)
        };
        if sat {
            // mad.hi.sat.s32
            let v = sext(prod, w) as i128 + sext(c, w) as i128;
            return Ok(int::saturate(v, w, true));
        }
        let full = (prod & mask(w)) as u128 + (c & mask(w)) as u128 + cin;
        if cc_out {
            x.set_cc(l, (full >> w) & 1 == 1);
        }
        Ok(full as u64 & mask(w))
    })
}

/// `mul24`, `mad24`
pub fn mul24(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let s = t.is_signed();
    let hi = x.has(Flag::Hi);
    let sat = x.has(Flag::Sat);
    let mad = x.d.op == Opcode::Mad24;
    let f = move |a: u64, b: u64, c: u64| -> u64 {
        let (p, q) = if s {
            (sext(a, 24) as i128, sext(b, 24) as i128)
        } else {
            ((a & 0xff_ffff) as i128, (b & 0xff_ffff) as i128)
        };
        let prod = p * q;
        let part = if hi { (prod >> 16) as u64 } else { prod as u64 } & 0xffff_ffff;
        if !mad {
            return part;
        }
        if sat {
            let v = sext(part, 32) as i128 + sext(c, 32) as i128;
            return int::saturate(v, 32, true);
        }
        part.wrapping_add(c) & 0xffff_ffff
    };
    if mad {
        mapf::<3>(x, |[a, b, c]| f(a, b, c))
    } else {
        mapf::<2>(x, |[a, b]| f(a, b, 0))
    }
}

/// `sad`
pub fn sad(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, s) = ity(ty(x)?);
    map::<3>(x, |_, _, [a, b, c]| {
        let d = (int::wide(a, w, s) - int::wide(b, w, s)).unsigned_abs() as u64;
        Ok(c.wrapping_add(d) & mask(w))
    })
}

/// `div`
pub fn div(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    if let Some((fmt, _)) = fshape(t) {
        let m = mode(x);
        if x.has(Flag::Approx) {
            return map::<2>(x, |_, _, [a, b]| Ok(approx::div_approx_f32(a, b, m.ftz)));
        }
        if x.has(Flag::Full) {
            return map::<2>(x, |_, _, [a, b]| Ok(approx::div_full_f32(a, b, m.ftz)));
        }
        return map::<2>(x, |_, _, [a, b]| Ok(float::bin(BinOp::Div, fmt, a, b, m)));
    }
    let (w, s) = ity(t);
    mapf::<2>(x, |[a, b]| int::div(a, b, w, s))
}

/// `rem`
pub fn rem(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, s) = ity(ty(x)?);
    mapf::<2>(x, |[a, b]| int::rem(a, b, w, s))
}

/// `abs`, `neg`
pub fn abs_neg(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let is_abs = x.d.op == Opcode::Abs;
    if let Some((fmt, n)) = fshape(t) {
        let ftz = x.has(Flag::Ftz);
        return map::<1>(x, |_, _, [a]| {
            Ok(packed(fmt, n, &[a], |v| {
                let mut b = v[0];
                if float::is_nan(b, fmt) {
                    // f64 `abs`/`neg` run on the double-precision adder, which returns a NaN
                    // operand quieted and with its own sign (measured); the others give the
                    // canonical NaN.
                    return if fmt == Fmt::F64 {
                        float::quiet(b, fmt)
                    } else {
                        fmt.canonical_nan()
                    };
                }
                if ftz {
                    b = float::flush(b, fmt);
                }
                if is_abs {
                    b & !fmt.sign()
                } else {
                    b ^ fmt.sign()
                }
            }))
        });
    }
    let (w, s) = ity(t);
    map::<1>(x, |_, _, [a]| {
        let v = sext(a, w);
        Ok(if is_abs && s {
            v.wrapping_abs() as u64
        } else if is_abs {
            a
        } else {
            v.wrapping_neg() as u64
        } & mask(w))
    })
}

/// `min`, `max`
pub fn min_max(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let is_max = x.d.op == Opcode::Max;
    if let Some((fmt, n)) = fshape(t) {
        let o = MinMax {
            max: is_max,
            nan: x.has(Flag::NaN),
            xorsign: x.has(Flag::XorSign),
            abs: x.has(Flag::Abs) && !x.has(Flag::XorSign),
            ftz: x.has(Flag::Ftz),
        };
        if x.d.opnds.len() == 4 {
            return map::<3>(x, |_, _, [a, b, c]| {
                let ab = float::min_max(fmt, a, b, o);
                Ok(float::min_max(fmt, ab, c, o))
            });
        }
        return map::<2>(x, |_, _, [a, b]| {
            Ok(packed(fmt, n, &[a, b], |v| {
                float::min_max(fmt, v[0], v[1], o)
            }))
        });
    }
    let relu = x.has(Flag::Relu);
    let (lanes_n, w, s) = match t {
        Type::U16x2 => (2, 16, false),
        Type::S16x2 => (2, 16, true),
        _ => {
            let (w, s) = ity(t);
            (1, w, s)
        }
    };
    map::<2>(x, |_, _, [a, b]| {
        let mut r = 0u64;
        for i in 0..lanes_n {
            let (p, q) = ((a >> (w * i)) & mask(w), (b >> (w * i)) & mask(w));
            let (pp, qq) = (int::wide(p, w, s), int::wide(q, w, s));
            let mut v = if (pp < qq) != is_max { pp } else { qq };
            if relu && v < 0 {
                v = 0;
            }
            r |= ((v as u64) & mask(w)) << (w * i);
        }
        Ok(r)
    })
}

/// `popc`, `clz`, `brev`
pub fn bit_unary(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let w = ty(x)?.bits().min(64);
    let op = x.d.op;
    map::<1>(x, |_, _, [a]| {
        Ok(match op {
            Opcode::Popc => int::popc(a, w),
            Opcode::Clz => int::clz(a, w),
            _ => int::brev(a, w),
        })
    })
}

/// `bfind`
pub fn bfind(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, s) = ity(ty(x)?);
    let sh = x.has(Flag::ShiftAmt);
    mapf::<1>(x, |[a]| int::bfind(a, w, s, sh))
}

/// `fns`
pub fn fns(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    mapf::<3>(x, |[a, b, c]| int::fns(a, b, c))
}

/// `bfe`
pub fn bfe(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, s) = ity(ty(x)?);
    mapf::<3>(x, |[a, b, c]| int::bfe(a, b, c, w, s))
}

/// `bfi`
pub fn bfi(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let w = ty(x)?.bits().min(64);
    mapf::<4>(x, |[a, b, c, d]| int::bfi(a, b, c, d, w))
}

/// `szext`
pub fn szext(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let s = ty(x)?.is_signed();
    let clamp = x.has(Flag::Clamp);
    mapf::<2>(x, |[a, b]| int::szext(a, b, clamp, s))
}

/// `bmsk`
pub fn bmsk(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let clamp = x.has(Flag::Clamp);
    mapf::<2>(x, |[a, b]| int::bmsk(a, b, clamp))
}

/// `dp4a`, `dp2a`
pub fn dot(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let ts = x.types();
    let sa = ts.first().is_some_and(|t| t.is_signed());
    let sb = ts.get(1).is_some_and(|t| t.is_signed());
    let four = x.d.op == Opcode::Dp4a;
    let hi = x.has(Flag::Hi);
    map::<3>(x, |_, _, [a, b, c]| {
        Ok(if four {
            int::dp4a(a, b, c, sa, sb)
        } else {
            int::dp2a(a, b, c, sa, sb, hi)
        })
    })
}

/// `testp`
pub fn testp(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (fmt, _) = fshape(ty(x)?).ok_or_else(|| x.unsupported("testp type"))?;
    let c = if x.has(Flag::Finite) {
        float::Class::Finite
    } else if x.has(Flag::Infinite) {
        float::Class::Infinite
    } else if x.has(Flag::Number) {
        float::Class::Number
    } else if x.has(Flag::NotANumber) {
        float::Class::NotANumber
    } else if x.has(Flag::Normal) {
        float::Class::Normal
    } else {
        float::Class::Subnormal
    };
    mapf::<1>(x, |[a]| float::test_class(a, fmt, c) as u64)
}

/// `copysign`: `b` with the sign of `a`.
pub fn copysign(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (fmt, _) = fshape(ty(x)?).ok_or_else(|| x.unsupported("copysign type"))?;
    mapf::<2>(x, |[a, b]| (b & !fmt.sign()) | (a & fmt.sign()))
}

/// The half-word an `f16`/`bf16` multiplicand of `fma.oob` must be, sign aside, to make its
/// element's result zero: the NaN that tensor loads fill out-of-bounds elements with
/// (measured on an H100: `0x7ff7` and `0xfff7`, in either multiplicand; not in the addend, and
/// no other NaN).
const OOB_NAN: u64 = 0x7ff7;

/// `fma`
pub fn fma(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let (fmt, n) = fshape(t).ok_or_else(|| x.unsupported("fma type"))?;
    let m = mode(x);
    let src = ty2(x);
    if !x.has(Flag::Oob) {
        return float3(x, fmt, n, src, m);
    }
    if !matches!(fmt, Fmt::F16 | Fmt::Bf16) {
        return Err(x.unsupported("fma.oob of a type other than f16/bf16 (x2)"));
    }
    // The multiplicands are read before the result may overwrite them.
    let e = x.emask;
    let [d, a, b, _] = x.ops();
    let (av, bv) = (x.read(a, e)?, x.read(b, e)?);
    let flow = float3(x, fmt, n, src, m)?;
    let mut dv = x.read(d, e)?;
    for l in lanes(e) {
        for k in 0..n {
            let at = |v: u64| (v >> (16 * k)) & 0x7fff == OOB_NAN;
            if at(av[l]) || at(bv[l]) {
                dv[l] &= !(0xffff << (16 * k));
            }
        }
    }
    x.write(d, &dv, e)?;
    Ok(flow)
}

/// `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`
pub fn float_unary(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let t = ty(x)?;
    let (fmt, n) = fshape(t).ok_or_else(|| x.unsupported("float type"))?;
    let m = mode(x);
    let is_approx = x.has(Flag::Approx);
    let op = x.d.op;
    let ftz = m.ftz;
    match (op, fmt, is_approx) {
        (Opcode::Rcp, _, false) => map::<1>(x, move |_, _, [a]| {
            Ok(float::bin(BinOp::Div, fmt, float::one(fmt), a, m))
        }),
        (Opcode::Sqrt, _, false) => map::<1>(x, move |_, _, [a]| {
            let a = if ftz { float::flush(a, fmt) } else { a };
            let r = float::sqrt::ieee_sqrt(a, fmt, float::round(m.rnd));
            Ok(float::finish(fmt, r, &[a], m))
        }),
        (Opcode::Rcp, Fmt::F32, true) => mapf::<1>(x, move |[a]| approx::rcp_f32(a, ftz)),
        (Opcode::Rcp, Fmt::F64, true) => mapf::<1>(x, move |[a]| approx::rcp_f64(a)),
        (Opcode::Sqrt, Fmt::F32, true) => mapf::<1>(x, move |[a]| approx::sqrt_f32(a, ftz)),
        (Opcode::Rsqrt, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::rsqrt_f32(a, ftz)),
        (Opcode::Rsqrt, Fmt::F64, _) => mapf::<1>(x, move |[a]| approx::rsqrt_f64(a, ftz)),
        (Opcode::Sin, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::sincos_f32(a, ftz, false)),
        (Opcode::Cos, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::sincos_f32(a, ftz, true)),
        (Opcode::Lg2, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::lg2_f32(a, ftz)),
        (Opcode::Ex2, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::ex2_f32(a, ftz)),
        (Opcode::Ex2, Fmt::F16 | Fmt::Bf16, _) => map::<1>(x, move |_, _, [a]| {
            Ok(packed(fmt, n, &[a], |v| approx::ex2_half(v[0], fmt, ftz)))
        }),
        (Opcode::Tanh, Fmt::F32, _) => mapf::<1>(x, move |[a]| approx::tanh_f32(a)),
        (Opcode::Tanh, Fmt::F16 | Fmt::Bf16, _) => map::<1>(x, move |_, _, [a]| {
            Ok(packed(fmt, n, &[a], |v| approx::tanh_half(v[0], fmt)))
        }),
        _ => Err(x.unsupported("this form")),
    }
}

fn cmp_int(c: Compare, a: u64, b: u64, w: u32, s: bool) -> bool {
    let (p, q) = (int::wide(a, w, s), int::wide(b, w, s));
    let (ua, ub) = (a & mask(w), b & mask(w));
    match c {
        Compare::Cmp(Cmp::Eq) | Compare::Cmp(Cmp::Equ) => ua == ub,
        Compare::Cmp(Cmp::Ne) | Compare::Cmp(Cmp::Neu) => ua != ub,
        Compare::Cmp(Cmp::Lt) | Compare::Cmp(Cmp::Ltu) => p < q,
        Compare::Cmp(Cmp::Le) | Compare::Cmp(Cmp::Leu) => p <= q,
        Compare::Cmp(Cmp::Gt) | Compare::Cmp(Cmp::Gtu) => p > q,
        Compare::Cmp(Cmp::Ge) | Compare::Cmp(Cmp::Geu) => p >= q,
        Compare::Lo => ua < ub,
        Compare::Cmp(Cmp::Ls) => ua <= ub,
        Compare::Hi => ua > ub,
        Compare::Cmp(Cmp::Hs) => ua >= ub,
        Compare::Cmp(Cmp::Num) | Compare::Cmp(Cmp::Nan) => false,
    }
}

/// Float comparison per PTX (ordered unless the `u` forms; `ne` is ordered).
pub fn cmp_float(c: Compare, a: u64, b: u64, f: Fmt, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (float::flush(a, f), float::flush(b, f))
    } else {
        (a, b)
    };
    let nan = float::is_nan(a, f) || float::is_nan(b, f);
    use std::cmp::Ordering::*;
    let o = if nan { None } else { Some(float::cmp(a, b, f)) };
    let Compare::Cmp(c) = c else {
        return false;
    };
    match c {
        Cmp::Num => !nan,
        Cmp::Nan => nan,
        Cmp::Eq => o == Some(Equal),
        Cmp::Ne => matches!(o, Some(Less | Greater)),
        Cmp::Lt => o == Some(Less),
        Cmp::Le => matches!(o, Some(Less | Equal)),
        Cmp::Gt => o == Some(Greater),
        Cmp::Ge => matches!(o, Some(Greater | Equal)),
        Cmp::Equ => nan || o == Some(Equal),
        Cmp::Neu => nan || matches!(o, Some(Less | Greater)),
        Cmp::Ltu => nan || o == Some(Less),
        Cmp::Leu => nan || matches!(o, Some(Less | Equal)),
        Cmp::Gtu => nan || o == Some(Greater),
        Cmp::Geu => nan || matches!(o, Some(Greater | Equal)),
        Cmp::Ls | Cmp::Hs => false,
    }
}

fn bool_op(op: Option<Op>, t: bool, c: bool) -> bool {
    match op {
        Some(Op::And) => t && c,
        Some(Op::Or) => t || c,
        Some(Op::Xor) => t ^ c,
        _ => t,
    }
}

/// `setp`, `set`
pub fn setp(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    // Plain `setp` on registers and immediates runs its warp-wide form (`lanewise::setp`);
    // this is the definition that form is tested against.
    let [d, a, b] = x.ops();
    let ts = x.types();
    let is_set = x.d.op == Opcode::Set;
    let (dty, sty) = if is_set {
        (ts.first().copied(), ts.get(1).copied())
    } else {
        (None, ts.first().copied())
    };
    let sty = sty.ok_or_else(|| x.unsupported("missing type"))?;
    let c = x.d.cmp.ok_or_else(|| x.unsupported("missing comparison"))?;
    let bop = x.d.oper.filter(|o| matches!(o, Op::And | Op::Or | Op::Xor));
    let ftz = x.has(Flag::Ftz);
    let e = x.emask;
    let a = x.read(a, e)?;
    let b = x.read(b, e)?;
    // The combination's predicate (the arity of an instruction with an operation qualifier).
    let cpred = if bop.is_some() {
        let [.., c] = x.ops::<4>();
        Some(x.read(c, e)?)
    } else {
        None
    };
    let (elems, fmt) = match fshape(sty) {
        Some((f, n)) => (n, Some(f)),
        None => (1, None),
    };
    let (w, s) = ity(sty);
    let test = |a: u64, b: u64| -> bool {
        match fmt {
            Some(f) => cmp_float(c, a, b, f, ftz),
            None => cmp_int(c, a, b, w, s),
        }
    };
    let mut out_p = [0u64; 32];
    let mut out_q = [0u64; 32];
    for l in lanes(e) {
        let cv = cpred.map(|p| p[l] & 1 != 0).unwrap_or(false);
        if is_set {
            let dty = dty.unwrap_or(Type::U32);
            let mut r = 0u64;
            for i in 0..elems {
                let ew = fmt.map(|f| f.bits()).unwrap_or(64);
                let sh = if elems > 1 { ew * i } else { 0 };
                let m = if elems > 1 { mask(ew) } else { u64::MAX };
                let t = bool_op(bop, test((a[l] >> sh) & m, (b[l] >> sh) & m), cv);
                let v = match dty {
                    Type::F32 => {
                        if t {
                            0x3f80_0000
                        } else {
                            0
                        }
                    }
                    Type::F16 | Type::F16x2 => {
                        if t {
                            0x3c00
                        } else {
                            0
                        }
                    }
                    Type::Bf16 | Type::Bf16x2 => {
                        if t {
                            0x3f80
                        } else {
                            0
                        }
                    }
                    _ => {
                        if t {
                            if elems > 1 {
                                0xffff
                            } else {
                                0xffff_ffff
                            }
                        } else {
                            0
                        }
                    }
                };
                r |= v << (16 * i * (elems > 1) as u32);
            }
            out_p[l] = r;
        } else if elems == 2 {
            let f = fmt.unwrap_or(Fmt::F16);
            let lo = test(a[l] & 0xffff, b[l] & 0xffff);
            let hi = test((a[l] >> 16) & 0xffff, (b[l] >> 16) & 0xffff);
            let _ = f;
            out_p[l] = bool_op(bop, lo, cv) as u64;
            out_q[l] = bool_op(bop, hi, cv) as u64;
        } else {
            let t = test(a[l], b[l]);
            out_p[l] = bool_op(bop, t, cv) as u64;
            out_q[l] = bool_op(bop, !t, cv) as u64;
        }
    }
    match d {
        Opnd::Pair(p) => {
            x.write(&p[0], &out_p, e)?;
            x.write(&p[1], &out_q, e)?;
        }
        _ => x.write(d, &out_p, e)?,
    }
    Ok(Flow::Next)
}

/// `selp`
pub fn selp(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    mapf::<3>(x, |[a, b, c]| if c & 1 != 0 { a } else { b })
}

/// `slct`
pub fn slct(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let ts = x.types();
    let cty = ts.get(1).copied().unwrap_or(Type::S32);
    let ftz = x.has(Flag::Ftz);
    map::<3>(x, |_, _, [a, b, c]| {
        let ge = if cty == Type::F32 {
            let c = if ftz { float::flush(c, Fmt::F32) } else { c };
            !float::is_nan(c, Fmt::F32) && (float::is_zero(c, Fmt::F32) || !float::neg(c, Fmt::F32))
        } else {
            sext(c, 32) >= 0
        };
        Ok(if ge { a } else { b })
    })
}

/// `and`, `or`, `xor`, `not`, `cnot`
pub fn logic(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, _) = ity(ty(x)?);
    let m = mask(w);
    match x.d.op {
        Opcode::And => mapf::<2>(x, move |[a, b]| a & b & m),
        Opcode::Or => mapf::<2>(x, move |[a, b]| (a | b) & m),
        Opcode::Xor => mapf::<2>(x, move |[a, b]| (a ^ b) & m),
        Opcode::Not => mapf::<1>(x, move |[a]| !a & m),
        _ => mapf::<1>(x, move |[a]| (a & m == 0) as u64),
    }
}

/// `lop3`, with the optional predicate output.
pub fn lop3(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let e = x.emask;
    let [dst, a, b, c, lut] = x.ops();
    let a = x.read(a, e)?;
    let b = x.read(b, e)?;
    let c = x.read(c, e)?;
    let lut = x.read(lut, e)?;
    let mut d = [0u64; 32];
    for l in lanes(e) {
        d[l] = int::lop3(a[l], b[l], c[l], lut[l] & 0xff);
    }
    match dst {
        Opnd::Pair(p) => {
            let q = x
                .opt(5)
                .ok_or_else(|| x.unsupported("lop3 with a predicate output but no predicate q"))?;
            let q = x.read(q, e)?;
            let bop = x.d.oper.filter(|o| matches!(o, Op::And | Op::Or));
            let mut pv = [0u64; 32];
            for l in lanes(e) {
                pv[l] = bool_op(bop, d[l] != 0, q[l] & 1 != 0) as u64;
            }
            x.write(&p[0], &d, e)?;
            x.write(&p[1], &pv, e)?;
        }
        o => x.write(o, &d, e)?,
    }
    Ok(Flow::Next)
}

/// `shf`
pub fn shf(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let left = x.has(Flag::L);
    let clamp = x.has(Flag::Clamp);
    mapf::<3>(x, |[a, b, c]| int::shf(a, b, c, left, clamp))
}

/// `shl`, `shr`
pub fn shift(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (w, s) = ity(ty(x)?);
    if x.d.op == Opcode::Shl {
        mapf::<2>(x, |[a, b]| int::shl(a, b, w))
    } else {
        mapf::<2>(x, |[a, b]| int::shr(a, b, w, s))
    }
}

/// `prmt`
pub fn prmt(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    use int::PrmtMode::*;
    let mode = [
        (Flag::F4e, F4e),
        (Flag::B4e, B4e),
        (Flag::Rc8, Rc8),
        (Flag::Ecl, Ecl),
        (Flag::Ecr, Ecr),
        (Flag::Rc16, Rc16),
    ]
    .into_iter()
    .find(|(f, _)| x.has(*f))
    .map(|(_, m)| m);
    mapf::<3>(x, |[a, b, c]| int::prmt(a, b, c, mode))
}

/// `cvt`
pub fn cvt(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let ts = x.types();
    let (Some(&dt), Some(&st)) = (ts.first(), ts.get(1)) else {
        return Err(x.unsupported("cvt needs two types"));
    };
    let o = crate::cvt::Opts {
        rnd: x.d.rnd,
        ftz: x.has(Flag::Ftz),
        sat: x.has(Flag::Sat),
        satfinite: x.has(Flag::SatFinite),
        relu: x.has(Flag::Relu),
    };
    let nsrc = x.d.opnds.len().saturating_sub(1);
    if matches!(
        dt,
        Type::E4m3x4 | Type::E5m2x4 | Type::E2m3x4 | Type::E3m2x4 | Type::E2m1x4
    ) {
        // `d, {a, b, e, f}, rbits`
        let [d, v, r] = x.ops();
        let Opnd::Vec(items) = v else {
            return Err(x.unsupported("cvt x4 without a vector of four sources"));
        };
        if items.len() != 4 {
            return Err(x.unsupported("cvt x4 without a vector of four sources"));
        }
        for l in lanes(x.emask) {
            let mut vals = [0u64; 4];
            for (k, it) in items.iter().enumerate() {
                vals[k] = x.get(it, l)?;
            }
            let rbits = x.get(r, l)?;
            x.set(d, l, crate::cvt::cvt_rs_x4(dt, vals, rbits, o.relu))?;
        }
        return Ok(Flow::Next);
    }
    if !crate::cvt::supported(dt, st, nsrc) {
        return Err(x.unsupported(format!("cvt .{} .{}", dt.as_str(), st.as_str())));
    }
    match nsrc {
        1 => mapf::<1>(x, |[a]| crate::cvt::cvt(dt, st, a, 0, o)),
        2 => mapf::<2>(x, |[a, b]| crate::cvt::cvt(dt, st, a, b, o)),
        _ => mapf::<3>(x, |[a, b, r]| crate::cvt::cvt_rs_pair(dt, a, b, r, o)),
    }
}

/// `cvt.pack`
pub fn cvt_pack(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let ts = x.types();
    let dt = ts.first().copied().unwrap_or(Type::S16);
    let (w, s) = match dt {
        Type::U16 => (16, false),
        Type::S16 => (16, true),
        Type::U8 => (8, false),
        Type::S8 => (8, true),
        Type::U4 => (4, false),
        Type::S4 => (4, true),
        Type::U2 => (2, false),
        Type::S2 => (2, true),
        _ => return Err(x.unsupported("cvt.pack type")),
    };
    if x.d.opnds.len() == 3 {
        // d = {sat(a), sat(b)}: a in the upper half.
        return map::<2>(x, move |_, _, [a, b]| {
            let pa = int::saturate(sext(a, 32) as i128, w, s);
            let pb = int::saturate(sext(b, 32) as i128, w, s);
            Ok((pa << w) | pb)
        });
    }
    map::<3>(x, move |_, _, [a, b, c]| {
        let pa = int::saturate(sext(a, 32) as i128, w, s);
        let pb = int::saturate(sext(b, 32) as i128, w, s);
        let v = ((c << (2 * w)) | (pa << w) | pb) & 0xffff_ffff;
        Ok(v)
    })
}

/// The sign bits of every element of a value of type `t` (both halves of the packed types).
fn signs(t: Type) -> u64 {
    match fshape(t) {
        Some((fmt, 2)) => fmt.sign() | (fmt.sign() << fmt.bits()),
        Some((fmt, _)) => fmt.sign(),
        None => 0,
    }
}

/// Executes an instruction that ptxas lowers differently from its one-by-one reading
/// ([`crate::lower`]); `None` when it runs as written (after any side work).
pub fn lowered(x: &mut Ctx<'_, '_>, l: &crate::code::Lowering) -> Result<Option<Flow>, Error> {
    use crate::code::Lowering;
    let e = x.emask;
    let t = ty(x)?;
    match l {
        Lowering::Save(slots) => {
            for (j, s) in slots.iter().enumerate() {
                let Some(slot) = s else { continue };
                if let Some(o @ Opnd::Reg { bits, .. }) = x.opt(j + 1) {
                    let (slot, bits) = (*slot, *bits);
                    let v = x.read(o, e)?;
                    x.write(&Opnd::Reg { slot, bits }, &v, e)?;
                }
            }
            Ok(None)
        }
        Lowering::Fused(f) => {
            if x.m.contraction == super::state::Contraction::Never {
                return Ok(None);
            }
            let (fmt, n) = fshape(t).ok_or_else(|| x.unsupported("fused type"))?;
            let m = mode(x);
            let sg = signs(t);
            let [d, p, q] = x.ops();
            let (a, b) = (x.read(&f.a, e)?, x.read(&f.b, e)?);
            let c = x.read(if f.product_operand == 1 { q } else { p }, e)?;
            let report = x.m.contraction == super::state::Contraction::Report;
            let plain = if report {
                let (p, q) = (x.read(p, e)?, x.read(q, e)?);
                let op = if x.d.op == Opcode::Sub {
                    BinOp::Sub
                } else {
                    BinOp::Add
                };
                let mut out = [0u64; 32];
                for l in lanes(e) {
                    out[l] = packed(fmt, n, &[p[l], q[l]], |v| {
                        float::bin(op, fmt, v[0], v[1], m)
                    });
                }
                Some(out)
            } else {
                None
            };
            let mut out = [0u64; 32];
            let mut differ = 0u64;
            for l in lanes(e) {
                let (a0, b0) = match f.div {
                    Some(full) => approx::div_factors(a[l], b[l], full, m.ftz),
                    None => (a[l], b[l]),
                };
                // The FMA's negation modifiers leave a NaN operand's sign alone (an f64 NaN
                // passes through with its own sign; other formats' NaNs are canonical anyway).
                let negate = |v: u64, on: bool| {
                    if on {
                        v ^ (sg & !nan_lanes(fmt, n, v))
                    } else {
                        v
                    }
                };
                let av = negate(a0, f.neg_product);
                let cv = negate(c[l], f.neg_addend);
                out[l] = packed(fmt, n, &[av, b0, cv], |v| {
                    float::fma(fmt, v[0], v[1], v[2], m)
                });
                if plain.is_some_and(|p| p[l] != out[l]) {
                    differ += 1;
                }
            }
            if differ > 0 {
                *x.m.contraction_diffs.entry((x.fid, x.pc)).or_default() += differ;
            }
            x.write(d, &out, e)?;
            Ok(Some(Flow::Next))
        }
        Lowering::MulConst { pre, k } => {
            let m = Mode {
                rnd: None,
                ftz: x.has(Flag::Ftz),
                sat: false,
                relu: false,
            };
            let (pre, k) = (*pre, *k as u64);
            mapf::<1>(x, move |[a]| {
                let a = match pre {
                    Some(p) => float::bin(BinOp::Mul, Fmt::F32, a, p as u64, m),
                    None => a,
                };
                float::bin(BinOp::Mul, Fmt::F32, a, k, m)
            })
            .map(Some)
        }
        Lowering::SignFlip => {
            let sg = signs(t);
            let [d, a] = x.ops();
            let v = x.read(a, e)?;
            let out = v.map(|w| w ^ sg);
            x.write(d, &out, e)?;
            Ok(Some(Flow::Next))
        }
        Lowering::Copy(src) => {
            let v = x.read(src, e)?;
            let [d] = x.ops();
            x.write(d, &v, e)?;
            Ok(Some(Flow::Next))
        }
        // A mark for the race check (`memops::atom`, `Ctx::race_check`): runs as written.
        Lowering::RemoteRmw => Ok(None),
        Lowering::SelectNeg { neg_operand, src } => {
            let sg = signs(t);
            let [d, a, b, p] = x.ops();
            let flipped = x.read(src, e)?.map(|w| w ^ sg);
            let other = x.read(if *neg_operand == 1 { b } else { a }, e)?;
            let p = x.read(p, e)?;
            let mut out = [0u64; 32];
            for l in lanes(e) {
                let (first, second) = if *neg_operand == 1 {
                    (flipped[l], other[l])
                } else {
                    (other[l], flipped[l])
                };
                out[l] = if p[l] & 1 != 0 { first } else { second };
            }
            x.write(d, &out, e)?;
            Ok(Some(Flow::Next))
        }
    }
}
