//! Warp-wide forms of the commonest instructions, chosen once at load.
//!
//! An instruction whose operands are plain registers and immediates and whose qualifiers ask
//! for nothing the general handler must look at on each step (`add.u32`, `setp.lt.s32`,
//! `fma.rn.f32`, `selp.b32`, ...) gets a [`Lanewise`] form: its operation with the qualifiers
//! already decoded, its register slots and immediates. A step then runs the operation over all
//! 32 lanes as straight loops on lane arrays, which the compiler turns into vector code, and
//! merges the result under the executing mask without branches.
//!
//! Each form computes exactly what the instruction's handler in the interpreter's table
//! (`exec/semantics.rs`) computes: the handler stays the definition, and the forms are chosen
//! only where they are known to agree (`tests/lanewise.rs` runs every form both ways on
//! random lanes and masks). Which instructions have forms is written in that table: an arm
//! names the function here ([`Form`]) that picks its operation from the qualifiers. An
//! instruction whose arm names none, or that carries a ptxas lowering mark ([`crate::lower`]),
//! runs through its handler.

use crate::code::{DInst, Opnd};
use crate::float::{self, BinOp, Fmt};
use crate::int::{mask, sext};
use crate::regs::{is_wide, Regs, Word};
use ptx_ir_core::{Cmp, Compare, Flag, Opcode, Rounding, Type};

/// A source operand: a register slot or an immediate's bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// Register slot.
    Reg(u32),
    /// Immediate bits.
    Imm(u64),
}

/// The operation of a [`Lanewise`] form, with its qualifiers decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lop {
    /// `a + b`, masked to the width.
    Add(u64),
    /// `a - b`, masked.
    Sub(u64),
    /// Low half of `a * b`, masked.
    Mul(u64),
    /// Low half of `a * b + c`, masked.
    Mad(u64),
    /// `mul.wide` of width `w`.
    MulWide(u32, bool),
    /// `mad.wide` of width `w`.
    MadWide(u32, bool),
    /// `mul.hi` of width `w`.
    MulHi(u32, bool),
    /// `mad.hi` of width `w`.
    MadHi(u32, bool),
    /// `a & b`, masked.
    And(u64),
    /// `a | b`, masked.
    Or(u64),
    /// `a ^ b`, masked.
    Xor(u64),
    /// `!a`, masked.
    Not(u64),
    /// `a == 0`.
    Cnot(u64),
    /// `shl` of width `w` by a register.
    Shl(u32),
    /// `shr` of width `w` and signedness by a register.
    Shr(u32, bool),
    /// `shl` by a constant amount below the width, masked.
    ShlBy(u32, u64),
    /// Unsigned `shr` by a constant amount below the width, of a width mask.
    ShrBy(u32, u64),
    /// Signed `shr` of width `w` by a constant amount below it.
    SarBy(u32, u32),
    /// Integer `min` (`false`) or `max` (`true`) of width `w` and signedness.
    MinMax(bool, u32, bool),
    /// Integer `abs` of width `w` (`neg` when `false`).
    AbsNeg(bool, u32, bool),
    /// Integer `setp`: which of less, equal, greater make it true (bits 0-2), width,
    /// signedness.
    SetpInt(u8, u32, bool),
    /// `setp.f32`: which of less, equal, greater, unordered make it true; `.ftz`.
    SetpF32(u8, bool),
    /// `setp.f64`.
    SetpF64(u8),
    /// `selp`
    Selp,
    /// `mov` of a register or an immediate.
    Mov,
    /// Round-to-nearest `f32` add, sub, mul (a NaN result is the canonical NaN).
    F32(BinOp),
    /// Round-to-nearest `f32` fused multiply-add.
    Fma32,
    /// Round-to-nearest `f64` add, sub, mul.
    F64(BinOp),
    /// Round-to-nearest `f64` fused multiply-add.
    Fma64,
    /// `cvt` with one source, as the handler converts it.
    Cvt(Type, Type, crate::cvt::Opts),
}

/// An instruction in its warp-wide form: `d = op(s...)` for the executing lanes, the result
/// masked to the destination register's width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanewise {
    /// The operation.
    pub op: Lop,
    /// Destination slot.
    pub d: u32,
    /// The destination register's width mask.
    pub dmask: u64,
    /// Sources (unused ones are `Imm(0)`).
    pub s: [Src; 3],
    /// Whether the register sources are in the 64-bit file (`selp`'s predicate aside: it is
    /// always narrow).
    pub swide: bool,
}

/// The warp-wide form of `d`, whose table arm picks its operation with `form`, if its
/// operands are registers and immediates, its destination a register of at most 64 bits and
/// it carries no ptxas lowering mark.
pub fn select(d: &DInst, form: Form) -> Option<Lanewise> {
    if d.lower.is_some() {
        return None;
    }
    let (dst, srcs) = d.opnds.split_first()?;
    let (dslot, dmask) = match dst {
        Opnd::Reg { slot, bits } if *bits <= 64 => (*slot, mask(u32::from(*bits))),
        _ => return None,
    };
    let mut s = [Src::Imm(0); 3];
    if srcs.len() > 3 {
        return None;
    }
    for (v, o) in s.iter_mut().zip(srcs) {
        *v = match o {
            Opnd::Reg { slot, bits } if *bits <= 64 => Src::Reg(*slot),
            Opnd::Imm(v) => Src::Imm(*v),
            _ => return None,
        };
    }
    let op = form(d, srcs.len(), &s)?;
    // The lane loops read every register source from one file; `selp`'s predicate from the
    // narrow one.
    let data = if op == Lop::Selp { &s[..2] } else { &s[..] };
    let wide = |v: &Src| matches!(v, Src::Reg(k) if is_wide(*k));
    let narrow = |v: &Src| matches!(v, Src::Reg(k) if !is_wide(*k));
    let swide = data.iter().any(wide);
    if swide && data.iter().any(narrow) || op == Lop::Selp && wide(&s[2]) {
        return None;
    }
    Some(Lanewise {
        op,
        d: dslot,
        dmask,
        s,
        swide,
    })
}

/// Integer width and signedness of a type, as the handlers read it.
pub fn ity(t: Type) -> (u32, bool) {
    let w = match t {
        Type::Pred => 1,
        _ => t.bits().clamp(8, 64),
    };
    (w, t.is_signed())
}

/// Round to nearest even without `.ftz`, `.sat` or `.relu` and with one type: the host's IEEE
/// operations.
fn plain_rn(d: &DInst) -> bool {
    d.rnd.is_none_or(|r| r == Rounding::Rn)
        && !d.flags.has(Flag::Ftz)
        && !d.flags.has(Flag::Sat)
        && !d.flags.has(Flag::Relu)
        && d.types.len() < 2
}

/// The float operation of `d` for type `t` (`f32`, `f64`) with `n` sources, if plain.
fn float_op(d: &DInst, t: Type, n: usize, op: BinOp) -> Option<Lop> {
    if !plain_rn(d) {
        return None;
    }
    match (t, n) {
        (Type::F32, 2) => Some(Lop::F32(op)),
        (Type::F64, 2) => Some(Lop::F64(op)),
        (Type::F32, 3) => Some(Lop::Fma32),
        (Type::F64, 3) => Some(Lop::Fma64),
        _ => None,
    }
}

/// Scalar float format and element count of a float type.
pub fn fshape(t: Type) -> Option<(Fmt, u32)> {
    Some(match t {
        Type::F16 => (Fmt::F16, 1),
        Type::F16x2 => (Fmt::F16, 2),
        Type::Bf16 => (Fmt::Bf16, 1),
        Type::Bf16x2 => (Fmt::Bf16, 2),
        Type::F32 => (Fmt::F32, 1),
        Type::F32x2 => (Fmt::F32, 2),
        Type::F64 => (Fmt::F64, 1),
        _ => return None,
    })
}

/// Which outcomes (bit 0 less, 1 equal, 2 greater, 3 unordered) make a comparison true.
pub fn outcomes(c: Compare) -> u8 {
    match c {
        Compare::Cmp(Cmp::Eq) => 0b0010,
        Compare::Cmp(Cmp::Ne) => 0b0101,
        Compare::Cmp(Cmp::Lt) | Compare::Lo => 0b0001,
        Compare::Cmp(Cmp::Le) | Compare::Cmp(Cmp::Ls) => 0b0011,
        Compare::Cmp(Cmp::Gt) | Compare::Hi => 0b0100,
        Compare::Cmp(Cmp::Ge) | Compare::Cmp(Cmp::Hs) => 0b0110,
        Compare::Cmp(Cmp::Equ) => 0b1010,
        Compare::Cmp(Cmp::Neu) => 0b1101,
        Compare::Cmp(Cmp::Ltu) => 0b1001,
        Compare::Cmp(Cmp::Leu) => 0b1011,
        Compare::Cmp(Cmp::Gtu) => 0b1100,
        Compare::Cmp(Cmp::Geu) => 0b1110,
        Compare::Cmp(Cmp::Num) => 0b0111,
        Compare::Cmp(Cmp::Nan) => 0b1000,
    }
}

/// How an instruction table arm picks its instruction's warp-wide operation: from the decoded
/// instruction, its source count and its sources; `None` where the qualifiers or operands ask
/// for the handler. Each arm of the interpreter's table (`exec/semantics.rs`) that has forms
/// names one of the functions below.
pub type Form = fn(&DInst, usize, &[Src; 3]) -> Option<Lop>;

fn int(t: Option<Type>) -> Option<Type> {
    t.filter(|t| fshape(*t).is_none())
}

fn flt(t: Option<Type>) -> Option<Type> {
    t.filter(|t| matches!(t, Type::F32 | Type::F64))
}

/// `add`, `sub`
pub fn add_sub(d: &DInst, n: usize, _: &[Src; 3]) -> Option<Lop> {
    let sub = d.op == Opcode::Sub;
    if n != 2 {
        return None;
    }
    if let Some(t) = flt(d.ty) {
        return float_op(d, t, 2, if sub { BinOp::Sub } else { BinOp::Add });
    }
    let t = int(d.ty)?;
    if matches!(t, Type::U16x2 | Type::S16x2) || d.flags.has(Flag::Sat) || d.flags.has(Flag::Cc) {
        return None;
    }
    let m = mask(ity(t).0);
    Some(if sub { Lop::Sub(m) } else { Lop::Add(m) })
}

/// `mul`
pub fn mul(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    if let Some(t) = flt(d.ty) {
        return float_op(d, t, 2, BinOp::Mul);
    }
    let (w, sg) = ity(int(d.ty)?);
    Some(if d.flags.has(Flag::Wide) {
        Lop::MulWide(w, sg)
    } else if d.flags.has(Flag::Hi) {
        Lop::MulHi(w, sg)
    } else {
        Lop::Mul(mask(w))
    })
}

/// `mad`
pub fn mad(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    if let Some(t) = flt(d.ty) {
        // `mad.f32` without a rounding qualifier rounds to nearest, as `fma.rn`.
        return float_op(d, t, 3, BinOp::Add);
    }
    let (w, sg) = ity(int(d.ty)?);
    if d.flags.has(Flag::Sat) || d.flags.has(Flag::Cc) {
        return None;
    }
    Some(if d.flags.has(Flag::Wide) {
        Lop::MadWide(w, sg)
    } else if d.flags.has(Flag::Hi) {
        Lop::MadHi(w, sg)
    } else {
        Lop::Mad(mask(w))
    })
}

/// `fma`
pub fn fma(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    if d.flags.has(Flag::Oob) {
        return None;
    }
    float_op(d, flt(d.ty)?, 3, BinOp::Add)
}

/// Two-source integer `min`, `max` (not packed, not `.relu`)
pub fn min_max(d: &DInst, n: usize, _: &[Src; 3]) -> Option<Lop> {
    let t = int(d.ty)?;
    if n != 2 || matches!(t, Type::U16x2 | Type::S16x2) || d.flags.has(Flag::Relu) {
        return None;
    }
    let (w, sg) = ity(t);
    Some(Lop::MinMax(d.op == Opcode::Max, w, sg))
}

/// Integer `abs`, `neg`
pub fn abs_neg(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    let (w, sg) = ity(int(d.ty)?);
    Some(Lop::AbsNeg(d.op == Opcode::Abs, w, sg))
}

/// `and`, `or`, `xor`, `not`, `cnot`
pub fn logic(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    let m = mask(ity(d.ty?).0);
    Some(match d.op {
        Opcode::And => Lop::And(m),
        Opcode::Or => Lop::Or(m),
        Opcode::Xor => Lop::Xor(m),
        Opcode::Not => Lop::Not(m),
        Opcode::Cnot => Lop::Cnot(m),
        _ => return None,
    })
}

/// `shl`, `shr`
pub fn shift(d: &DInst, _: usize, s: &[Src; 3]) -> Option<Lop> {
    let (w, sg) = ity(d.ty?);
    let shl = d.op == Opcode::Shl;
    Some(match s[1] {
        Src::Imm(k) if (k & 0xffff_ffff) < u64::from(w) => {
            let k = k as u32;
            if shl {
                Lop::ShlBy(k, mask(w))
            } else if sg {
                Lop::SarBy(k, w)
            } else {
                Lop::ShrBy(k, mask(w))
            }
        }
        _ if shl => Lop::Shl(w),
        _ => Lop::Shr(w, sg),
    })
}

/// `setp` with one predicate result and no boolean combination
pub fn setp(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    let (t, c) = (d.ty?, d.cmp?);
    let table = outcomes(c);
    Some(match t {
        Type::F32 => Lop::SetpF32(table, d.flags.has(Flag::Ftz)),
        Type::F64 => Lop::SetpF64(table),
        _ => {
            let (w, sg) = ity(int(Some(t))?);
            let unsigned_cmp = matches!(c, Compare::Lo | Compare::Hi)
                || matches!(c, Compare::Cmp(Cmp::Ls | Cmp::Hs));
            Lop::SetpInt(table & 0b111, w, sg && !unsigned_cmp)
        }
    })
}

/// `selp`
pub fn selp(_: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    Some(Lop::Selp)
}

/// `mov` of a register or an immediate of at most 64 bits
pub fn mov(d: &DInst, _: usize, _: &[Src; 3]) -> Option<Lop> {
    (d.ty.unwrap_or(Type::B32).bits() <= 64).then_some(Lop::Mov)
}

/// One-source `cvt` of the pairs the conversion code takes
pub fn cvt(d: &DInst, n: usize, _: &[Src; 3]) -> Option<Lop> {
    let (&dt, &st) = (d.types.first()?, d.types.get(1)?);
    if n != 1 || !crate::cvt::supported(dt, st, 1) {
        return None;
    }
    let has = |f: Flag| d.flags.has(f);
    Some(Lop::Cvt(
        dt,
        st,
        crate::cvt::Opts {
            rnd: d.rnd,
            ftz: has(Flag::Ftz),
            sat: has(Flag::Sat),
            satfinite: has(Flag::SatFinite),
            relu: has(Flag::Relu),
        },
    ))
}

/// A source's value in lane `l`: a register's lane array (of either file), or an immediate in
/// every lane. The lane loops are generic over it, so that an immediate stays a scalar operand
/// of the vector code instead of an array filled and read back.
trait Lane: Copy {
    fn at(self, l: usize) -> u64;
}

impl<W: Word> Lane for &[W; 32] {
    #[inline(always)]
    fn at(self, l: usize) -> u64 {
        self[l].into()
    }
}

impl Lane for u64 {
    #[inline(always)]
    fn at(self, _: usize) -> u64 {
        self
    }
}

/// Calls `$body` with `$a` bound to source `$s`'s [`Lane`] (a register's lanes in the file of
/// `$w`, or an immediate).
macro_rules! with_lane {
    ($regs:expr, $w:ty, $s:expr, $a:ident => $body:expr) => {
        match $s {
            Src::Reg(k) => {
                let $a = <$w>::lanes($regs, k);
                $body
            }
            Src::Imm(v) => {
                let $a = v;
                $body
            }
        }
    };
}

// The lane functions are written on 64-bit values; on a narrow file's lanes the compiler
// narrows the widening, the operation and the cut back to 32-bit vector code.

#[inline(always)]
fn each1<O: Word>(a: impl Lane, f: impl Fn(u64) -> u64) -> [O; 32] {
    let mut out = [O::default(); 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = O::of(f(a.at(l)));
    }
    out
}

#[inline(always)]
fn each2<O: Word>(a: impl Lane, b: impl Lane, f: impl Fn(u64, u64) -> u64) -> [O; 32] {
    let mut out = [O::default(); 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = O::of(f(a.at(l), b.at(l)));
    }
    out
}

#[inline(always)]
fn each3<O: Word>(
    a: impl Lane,
    b: impl Lane,
    c: impl Lane,
    f: impl Fn(u64, u64, u64) -> u64,
) -> [O; 32] {
    let mut out = [O::default(); 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = O::of(f(a.at(l), b.at(l), c.at(l)));
    }
    out
}

#[inline(always)]
fn map1<O: Word, S: Word>(regs: &Regs, s: &[Src; 3], f: impl Fn(u64) -> u64) -> [O; 32] {
    with_lane!(regs, S, s[0], a => each1(a, &f))
}

#[inline(always)]
fn map2<O: Word, S: Word>(regs: &Regs, s: &[Src; 3], f: impl Fn(u64, u64) -> u64) -> [O; 32] {
    with_lane!(regs, S, s[0], a => with_lane!(regs, S, s[1], b => each2(a, b, &f)))
}

#[inline(always)]
fn map3<O: Word, S: Word>(regs: &Regs, s: &[Src; 3], f: impl Fn(u64, u64, u64) -> u64) -> [O; 32] {
    with_lane!(regs, S, s[0], a => with_lane!(regs, S, s[1], b => with_lane!(regs, S, s[2], c => each3(a, b, c, &f))))
}

/// The low `w` (at most 32) bits of `v` sign-extended to 32 bits: comparisons of up to 32 bits
/// are made on 32-bit values, which the baseline vector instructions compare (they have no
/// 64-bit comparison).
#[inline(always)]
fn sext32(v: u64, w: u32) -> i32 {
    let k = 32 - w;
    ((v as u32) << k) as i32 >> k
}

/// Whether the comparison whose outcome table is `table` holds for the outcome `lt`, `eq`,
/// `gt` (none of them: unordered), without branches.
#[inline(always)]
fn pick(table: u8, lt: bool, eq: bool, gt: bool) -> u64 {
    let t = u64::from(table);
    let un = !(lt | eq | gt);
    (u64::from(lt) & t)
        | (u64::from(eq) & t >> 1)
        | (u64::from(gt) & t >> 2)
        | (u64::from(un) & t >> 3)
}

/// The `f32` result bits, NaN made canonical.
#[inline(always)]
fn f32_bits(r: f32) -> u64 {
    if r.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(r.to_bits())
    }
}

/// `fma.rn.f32` by the host's correctly rounded fused multiply-add (a NaN result canonical):
/// the reference [`fma32_vector`] is tested against.
#[cfg(test)]
fn fma32_exact(a: u64, b: u64, c: u64) -> u64 {
    f32_bits(f32_of(a).mul_add(f32_of(b), f32_of(c)))
}

/// `fma.rn.f32` in double precision, branch-free so that the compiler vectorises it (the
/// baseline x86-64 instructions have no fused multiply-add). The product of two `f32`s is
/// exact in `f64`; the sum is rounded to odd (rounded to nearest, then, when inexact with an
/// even last bit, moved one unit toward the exact value, which Knuth's two-sum gives); and a
/// value rounded to odd with at least two more bits than the target rounds to nearest as the
/// exact value does (Boldo and Melquiond, "When double rounding is odd", 2005), subnormal
/// results included.
#[inline(always)]
fn fma32_vector(a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (
        f64::from(f32_of(a)),
        f64::from(f32_of(b)),
        f64::from(f32_of(c)),
    );
    let xy = x * y;
    let s = xy + z;
    // The rounding error of `s` (exact: nothing overflows in `f64` but an infinite operand,
    // whose sums are left alone below).
    let bb = s - xy;
    let err = (xy - (s - bb)) + (z - bb);
    let sb = s.to_bits();
    let finite = sb & 0x7ff0_0000_0000_0000 != 0x7ff0_0000_0000_0000;
    let odd = (err != 0.0) & (sb & 1 == 0) & finite;
    // An inexact sum is not zero, so its sign says which way the exact value lies.
    let away = (err > 0.0) == (s > 0.0);
    let step = if away { 1 } else { u64::MAX };
    let f = f64::from_bits(if odd { sb.wrapping_add(step) } else { sb }) as f32;
    let fb = f.to_bits();
    u64::from(if fb & 0x7fff_ffff > 0x7f80_0000 {
        0x7fff_ffff
    } else {
        fb
    })
}

/// `fma.rn.f32` rounded twice to nearest (exact product, sum in `f64`, then to `f32`), and
/// whether that may differ from rounding once: only when the sum in `f64` is exactly halfway
/// between two `f32`s (a value strictly between the exact sum and its nearest `f64` would be
/// nearer to the exact sum), for which the test below is exact for normal results; results
/// below the smallest normal `f32` are always sent to [`fma32_vector`].
#[inline(always)]
fn fma32_fast(a: u64, b: u64, c: u64) -> (u64, bool) {
    let (x, y, z) = (
        f64::from(f32_of(a)),
        f64::from(f32_of(b)),
        f64::from(f32_of(c)),
    );
    let s = x * y + z;
    let sb = s.to_bits();
    // The 29 bits below an `f32`'s last significand bit: one followed by zeros is a midpoint.
    let halfway = sb & 0x1fff_ffff == 0x1000_0000;
    let tiny = sb & 0x7ff0_0000_0000_0000 < (1023 - 126) << 52;
    (f32_bits(s as f32), halfway | tiny)
}

/// `fma.rn.f32` of every lane: rounded twice where no lane's sum lands where that may be wrong
/// ([`fma32_fast`]), else by [`fma32_vector`].
#[inline(always)]
fn fma32_lanes<O: Word>(a: impl Lane, b: impl Lane, c: impl Lane) -> [O; 32] {
    let mut out = [O::default(); 32];
    let mut care = false;
    for (l, o) in out.iter_mut().enumerate() {
        let (v, k) = fma32_fast(a.at(l), b.at(l), c.at(l));
        *o = O::of(v);
        care |= k;
    }
    if care {
        for (l, o) in out.iter_mut().enumerate() {
            *o = O::of(fma32_vector(a.at(l), b.at(l), c.at(l)));
        }
    }
    out
}

#[inline(always)]
fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline(always)]
fn f32_ftz(v: u64, ftz: bool) -> f32 {
    let p = f32_of(v);
    if ftz && p.is_subnormal() {
        0.0
    } else {
        p
    }
}

/// Round-to-nearest `f32` arithmetic on the host (a NaN result is the canonical NaN, as the GPU
/// gives).
#[inline(always)]
pub(crate) fn f32_bin(op: BinOp, a: u64, b: u64) -> u64 {
    let (p, q) = (f32_of(a), f32_of(b));
    f32_bits(match op {
        BinOp::Add => p + q,
        BinOp::Sub => p - q,
        BinOp::Mul => p * q,
        BinOp::Div => p / q,
    })
}

/// Round-to-nearest `f64` arithmetic on the host (a NaN result as the ISA's NaN rules give it).
#[inline(always)]
pub(crate) fn f64_bin(op: BinOp, a: u64, b: u64) -> u64 {
    let (p, q) = (f64::from_bits(a), f64::from_bits(b));
    let r = match op {
        BinOp::Add => p + q,
        BinOp::Sub => p - q,
        BinOp::Mul => p * q,
        BinOp::Div => p / q,
    };
    if r.is_nan() {
        float::nan_result(Fmt::F64, &float::nan_order2(op, a, b))
    } else {
        r.to_bits()
    }
}

impl Lanewise {
    /// Runs the form for the lanes of `emask` over one call depth's registers.
    #[inline]
    pub fn run(&self, regs: &mut Regs, emask: u32) {
        match (is_wide(self.d), self.swide) {
            (false, false) => self.exec::<u32, u32>(regs, emask),
            (false, true) => self.exec::<u32, u64>(regs, emask),
            (true, false) => self.exec::<u64, u32>(regs, emask),
            (true, true) => self.exec::<u64, u64>(regs, emask),
        }
    }

    /// [`Lanewise::run`] with the destination's file `O` and the sources' file `S`.
    #[inline(always)]
    fn exec<O: Word, S: Word>(&self, regs: &mut Regs, emask: u32) {
        let out = self.compute::<O, S>(regs);
        let dst = O::lanes_mut(regs, self.d);
        let m: u64 = self.dmask;
        if emask == u32::MAX {
            for (r, v) in dst.iter_mut().zip(out) {
                *r = O::of(v.into() & m);
            }
        } else {
            for (l, (r, v)) in dst.iter_mut().zip(out).enumerate() {
                let keep = 0u64.wrapping_sub(u64::from(emask >> l & 1));
                *r = O::of((v.into() & m & keep) | ((*r).into() & !keep));
            }
        }
    }

    /// The operation's result in every lane.
    #[inline(always)]
    fn compute<O: Word, S: Word>(&self, regs: &Regs) -> [O; 32] {
        let s = &self.s;
        match self.op {
            Lop::Add(m) => map2::<O, S>(regs, s, |a, b| a.wrapping_add(b) & m),
            Lop::Sub(m) => map2::<O, S>(regs, s, |a, b| a.wrapping_sub(b) & m),
            Lop::Mul(m) => map2::<O, S>(regs, s, |a, b| a.wrapping_mul(b) & m),
            Lop::Mad(m) => map3::<O, S>(regs, s, |a, b, c| a.wrapping_mul(b).wrapping_add(c) & m),
            Lop::MulWide(w, sg) => map2::<O, S>(regs, s, |a, b| {
                (crate::int::mul_full(a, b, w, sg) as u64) & mask(2 * w)
            }),
            Lop::MadWide(w, sg) => map3::<O, S>(regs, s, |a, b, c| {
                let p = crate::int::mul_full(a, b, w, sg) as u128;
                (p.wrapping_add(u128::from(c)) as u64) & mask(2 * w)
            }),
            Lop::MulHi(w, sg) => map2::<O, S>(regs, s, |a, b| crate::int::mul_hi(a, b, w, sg)),
            Lop::MadHi(w, sg) => map3::<O, S>(regs, s, |a, b, c| {
                crate::int::mul_hi(a, b, w, sg).wrapping_add(c) & mask(w)
            }),
            Lop::And(m) => map2::<O, S>(regs, s, |a, b| a & b & m),
            Lop::Or(m) => map2::<O, S>(regs, s, |a, b| (a | b) & m),
            Lop::Xor(m) => map2::<O, S>(regs, s, |a, b| (a ^ b) & m),
            Lop::Not(m) => map1::<O, S>(regs, s, |a| !a & m),
            Lop::Cnot(m) => map1::<O, S>(regs, s, |a| u64::from(a & m == 0)),
            Lop::Shl(w) => map2::<O, S>(regs, s, |a, b| crate::int::shl(a, b, w)),
            Lop::Shr(w, sg) => map2::<O, S>(regs, s, |a, b| crate::int::shr(a, b, w, sg)),
            Lop::ShlBy(k, m) => map1::<O, S>(regs, s, |a| (a << k) & m),
            Lop::ShrBy(k, m) => map1::<O, S>(regs, s, |a| (a & m) >> k),
            Lop::SarBy(k, w) => map1::<O, S>(regs, s, |a| ((sext(a, w) >> k) as u64) & mask(w)),
            Lop::SetpInt(table, w, true) if w <= 32 => map2::<O, S>(regs, s, |a, b| {
                let (p, q) = (sext32(a, w), sext32(b, w));
                pick(table, p < q, p == q, p > q)
            }),
            Lop::SetpInt(table, w, false) if w <= 32 => {
                let m = mask(w) as u32;
                map2::<O, S>(regs, s, |a, b| {
                    let (p, q) = (a as u32 & m, b as u32 & m);
                    pick(table, p < q, p == q, p > q)
                })
            }
            Lop::SetpInt(table, w, true) => map2::<O, S>(regs, s, |a, b| {
                let (p, q) = (sext(a, w), sext(b, w));
                pick(table, p < q, p == q, p > q)
            }),
            Lop::SetpInt(table, w, false) => {
                let m = mask(w);
                map2::<O, S>(regs, s, |a, b| {
                    let (p, q) = (a & m, b & m);
                    pick(table, p < q, p == q, p > q)
                })
            }
            Lop::SetpF32(table, ftz) => map2::<O, S>(regs, s, |a, b| {
                let (p, q) = (f32_ftz(a, ftz), f32_ftz(b, ftz));
                pick(table, p < q, p == q, p > q)
            }),
            Lop::SetpF64(table) => map2::<O, S>(regs, s, |a, b| {
                let (p, q) = (f64::from_bits(a), f64::from_bits(b));
                pick(table, p < q, p == q, p > q)
            }),
            Lop::MinMax(max, w, true) => map2::<O, S>(regs, s, |a, b| {
                let (p, q) = (sext(a, w), sext(b, w));
                (if (p < q) != max { p } else { q }) as u64 & mask(w)
            }),
            Lop::MinMax(max, w, false) => {
                let m = mask(w);
                map2::<O, S>(regs, s, |a, b| {
                    let (p, q) = (a & m, b & m);
                    if (p < q) != max {
                        p
                    } else {
                        q
                    }
                })
            }
            Lop::AbsNeg(abs, w, sg) => map1::<O, S>(regs, s, |a| {
                let v = sext(a, w);
                (if abs && sg {
                    v.wrapping_abs() as u64
                } else if abs {
                    a
                } else {
                    v.wrapping_neg() as u64
                }) & mask(w)
            }),
            Lop::Selp => {
                with_lane!(regs, S, s[0], a => with_lane!(regs, S, s[1], b => with_lane!(regs, u32, s[2], c => {
                    each3(a, b, c, |a, b, c| if c & 1 != 0 { a } else { b })
                })))
            }
            Lop::Mov => map1::<O, S>(regs, s, |a| a),
            // One loop per operation: a `match` inside the lane loop would keep it scalar.
            Lop::F32(op) => match op {
                BinOp::Add => map2::<O, S>(regs, s, |a, b| f32_bin(BinOp::Add, a, b)),
                BinOp::Sub => map2::<O, S>(regs, s, |a, b| f32_bin(BinOp::Sub, a, b)),
                BinOp::Mul => map2::<O, S>(regs, s, |a, b| f32_bin(BinOp::Mul, a, b)),
                BinOp::Div => map2::<O, S>(regs, s, |a, b| f32_bin(BinOp::Div, a, b)),
            },
            Lop::Fma32 => {
                with_lane!(regs, S, s[0], a => with_lane!(regs, S, s[1], b => with_lane!(regs, S, s[2], c => fma32_lanes(a, b, c))))
            }
            Lop::F64(op) => match op {
                BinOp::Add => map2::<O, S>(regs, s, |a, b| f64_bin(BinOp::Add, a, b)),
                BinOp::Sub => map2::<O, S>(regs, s, |a, b| f64_bin(BinOp::Sub, a, b)),
                BinOp::Mul => map2::<O, S>(regs, s, |a, b| f64_bin(BinOp::Mul, a, b)),
                BinOp::Div => map2::<O, S>(regs, s, |a, b| f64_bin(BinOp::Div, a, b)),
            },
            Lop::Fma64 => map3::<O, S>(regs, s, |a, b, c| {
                let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
                if r.is_nan() {
                    float::nan_result(Fmt::F64, &float::nan_order3(a, b, c))
                } else {
                    r.to_bits()
                }
            }),
            Lop::Cvt(dt, st, opts) => {
                map1::<O, S>(regs, s, |a| crate::cvt::cvt(dt, st, a, 0, opts))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fma32_exact, fma32_fast, fma32_vector};

    /// The vector `fma.rn.f32` equals the correctly rounded one on random operands of every
    /// exponent spread, on special values, and on operands built so that the double-precision
    /// sum rounded to nearest lands exactly on an `f32` midpoint it is not (where rounding
    /// twice to nearest would be wrong), up to the overflow boundary.
    #[test]
    fn vector_fma_is_correctly_rounded() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let special = [
            0u32,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3400_0000,
            0x3380_0000,
        ];
        let mut midpoints = 0;
        let mut check = |a: u32, b: u32, c: u32| {
            let (a64, b64, c64) = (u64::from(a), u64::from(b), u64::from(c));
            let (x, y, z) = (
                f64::from(f32::from_bits(a)),
                f64::from(f32::from_bits(b)),
                f64::from(f32::from_bits(c)),
            );
            // Rounding the nearest double to nearest again would be wrong here.
            let twice = super::f32_bits((x * y + z) as f32);
            let want_here = fma32_exact(a64, b64, c64);
            midpoints += u32::from(twice != want_here);
            let got = fma32_vector(a64, b64, c64);
            let want = fma32_exact(u64::from(a), u64::from(b), u64::from(c));
            assert_eq!(got, want, "fma({a:#010x}, {b:#010x}, {c:#010x})");
            let (fast, care) = fma32_fast(a64, b64, c64);
            assert!(
                care || fast == want,
                "fast fma({a:#010x}, {b:#010x}, {c:#010x})"
            );
            let lanes: [u32; 32] = super::fma32_lanes(a64, b64, c64);
            assert_eq!(u64::from(lanes[0]), want);
        };
        for &a in &special {
            for &b in &special {
                for &c in &special {
                    check(a, b, c);
                }
            }
        }
        // Random significands, exponents within a spread that makes the terms overlap,
        // cancel, overflow or fall to subnormals.
        for spread in [2u64, 8, 30, 60, 255] {
            for _ in 0..400_000 {
                let r = next();
                let e = |k: u64| {
                    ((127 + (k % (2 * spread + 1)) as i64 - spread as i64).clamp(0, 255) as u32)
                        << 23
                };
                let mut m = || (next() as u32) & 0x807f_ffff;
                check(m() | e(r), m() | e(r >> 9), m() | e(r >> 18));
            }
        }
        // Midpoints: z + 2^(e_z - 24) - 2^(e_z - 70) (and its mirror), from x = 2^i (1 + 2^-23)
        // and y = 2^j (1 - 2^-23), whose product is 2^(i+j) (1 - 2^-46).
        for _ in 0..200_000 {
            let r = next();
            // The biased exponent of z; at the top one, often the largest finite significand,
            // whose midpoint above is where the second rounding overflows.
            let ez = (r % 235) as i32 + 20;
            let mant = if ez == 254 && r & 0x100 != 0 {
                0x7f_ffff
            } else {
                (r >> 8) as u32 & 0x7f_ffff
            };
            let zc = mant | ((ez as u32) << 23) | ((r >> 40) as u32 & 1) << 31;
            let k = ez - 24; // biased exponent of x*y
            let i = k / 2 + 32;
            let j = k - i + 126;
            if !(1..=254).contains(&i) || !(1..=254).contains(&j) {
                continue;
            }
            let xs = ((r >> 41) as u32 & 1) << 31;
            let ys = ((r >> 42) as u32 & 1) << 31;
            let xv = xs | (i as u32) << 23 | 1;
            let yv = ys | (j as u32) << 23 | 0x7f_fffe;
            check(xv, yv, zc);
            check(yv, xv, zc ^ 0x8000_0000);
        }
        // Subnormal midpoints: z = k 2^-149 plus 2^-150 (1 - 2^-46), whose sum in `f64` is the
        // midpoint (2k + 1) 2^-150, from x = 2^-75 (1 + 2^-23) and y = 2^-75 (1 - 2^-23).
        for _ in 0..100_000 {
            let r = next();
            let k = (r as u32) & 0x7f_ffff;
            let sign = ((r >> 32) as u32 & 1) << 31;
            let (xv, yv) = (52 << 23 | 1, 51 << 23 | 0x7f_fffe);
            check(xv | sign, yv | sign, k);
            check(yv, xv, k | sign);
        }
        assert!(
            midpoints > 1000,
            "only {midpoints} cases where rounding twice to nearest is wrong"
        );
    }
}
