//! Operand types (PTX ISA 9.4, "Type Information for Instructions and Operands"), immediates and
//! vector widths.
//!
//! Each checked opcode maps its operand positions to an expected type: the instruction type
//! (its first type modifier), one of the other type modifiers, `.pred`, or a fixed type (shift
//! amounts are `.u32`). Register operands are then checked by the ISA's rules: bit-size types
//! agree with any type of the same size, integer types of the same size agree, floating-point
//! types match exactly; `ld`, `st` and `cvt` use the relaxed rules of 9.4.1 (Tables 27 and 28),
//! where a register may be wider than the instruction type. Opcodes not listed here are not
//! type-checked.

use super::cx::{Cx, FnCx};
use super::diag::Rule;
use super::env::vec_len;
use super::scope;
use crate::form::Form;
use crate::inst::Instruction;
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::{CacheOp, Flag, Space, Type};

/// What an operand position expects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Exp {
    /// The ISA's ordinary rule for this type.
    Strict(Type),
    /// The relaxed rule of `ld`/`st`/`cvt`: registers may be wider.
    Relaxed(Type),
    /// Not checked.
    Skip,
}

use Exp::{Relaxed, Skip, Strict};

fn is_int(t: Type) -> bool {
    t.is_signed() || t.is_unsigned()
}

/// The ISA's Table 26: may a register of type `o` be an operand of an instruction of type `i`?
pub(crate) fn strict_ok(i: Type, o: Type) -> bool {
    if i == o {
        return true;
    }
    if i == Type::Pred || o == Type::Pred || i.bits() != o.bits() {
        return false;
    }
    i.is_bits() || o.is_bits() || (is_int(i) && is_int(o))
}

/// Tables 27 and 28: the relaxed rules of `ld`, `st` and `cvt` (source and destination agree).
pub(crate) fn relaxed_ok(i: Type, o: Type) -> bool {
    if i == o {
        return true;
    }
    if i == Type::Pred || o == Type::Pred || i == Type::B128 {
        return false;
    }
    if o.is_bits() {
        o.bits() >= i.bits()
    } else if is_int(o) {
        (i.is_bits() || is_int(i)) && o.bits() >= i.bits()
    } else if o.is_float() {
        i.is_bits() && o.bits() >= i.bits()
    } else {
        false
    }
}

fn wide(t: Type) -> Option<Type> {
    Some(match t {
        Type::U16 => Type::U32,
        Type::U32 => Type::U64,
        Type::S16 => Type::S32,
        Type::S32 => Type::S64,
        _ => return None,
    })
}

fn bits_type(bits: u32) -> Option<Type> {
    Some(match bits {
        8 => Type::B8,
        16 => Type::B16,
        32 => Type::B32,
        64 => Type::B64,
        128 => Type::B128,
        _ => return None,
    })
}

/// Expected types by operand index, for the opcodes whose operand typing the verifier models.
pub(crate) fn expectations(inst: &Instruction) -> Option<Vec<Exp>> {
    use Opcode as O;
    if inst.opcode == O::Elect {
        // `elect.sync d|p, membermask`: `d` and `membermask` are `.u32`, `p` is `.pred`.
        let mut v = vec![Strict(Type::U32); inst.operands.len()];
        v.truncate(2);
        return Some(v);
    }
    let types = inst.types();
    let t = *types.first()?;
    let n = inst.operands.len();
    let all = |e: Exp| vec![e; n];
    let pred = Strict(Type::Pred);
    let u32_ = Strict(Type::U32);
    let mut v = match inst.opcode {
        O::Add | O::Sub | O::Fma if types.len() > 1 => return None,
        O::Mul | O::Mad if inst.has(Flag::Wide) => {
            let w = Strict(wide(t)?);
            let mut v = all(Strict(t));
            v[0] = w;
            if n == 4 {
                v[3] = w;
            }
            v
        }
        O::Add
        | O::Sub
        | O::Mul
        | O::Mad
        | O::Div
        | O::Rem
        | O::Abs
        | O::Neg
        | O::Min
        | O::Max
        | O::And
        | O::Or
        | O::Xor
        | O::Not
        | O::Cnot
        | O::Copysign
        | O::Fma
        | O::Rcp
        | O::Sqrt
        | O::Rsqrt
        | O::Sin
        | O::Cos
        | O::Lg2
        | O::Ex2
        | O::Tanh
        | O::Mul24
        | O::Mad24
        | O::Sad
        | O::Addc
        | O::Subc
        | O::Madc
        | O::Brev
        | O::Fns
        | O::Prmt
        | O::Redux => {
            let mut v = all(Strict(t));
            if inst.opcode == O::Redux && n == 3 {
                v[2] = u32_;
            }
            v
        }
        O::Testp => vec![pred, Strict(t)],
        O::Popc | O::Clz | O::Bfind => vec![u32_, Strict(t)],
        O::Bfe => vec![Strict(t), Strict(t), u32_, u32_],
        O::Bfi => vec![Strict(t), Strict(t), Strict(t), u32_, u32_],
        O::Shl | O::Shr | O::Szext => vec![Strict(t), Strict(t), u32_],
        O::Shf => vec![Strict(t), Strict(t), Strict(t), u32_],
        O::Bmsk => vec![Strict(t), u32_, u32_],
        O::Dp4a | O::Dp2a => all(u32_),
        O::Setp => {
            let mut v = all(Strict(t));
            v[0] = pred;
            if n == 4 {
                v[3] = pred;
            }
            v
        }
        O::Set => {
            let s = *types.get(1)?;
            let mut v = all(Strict(s));
            v[0] = Strict(t);
            if n == 4 {
                v[3] = pred;
            }
            v
        }
        O::Selp => vec![Strict(t), Strict(t), Strict(t), pred],
        O::Slct => vec![Strict(t), Strict(t), Strict(t), Strict(*types.get(1)?)],
        O::Lop3 => {
            let mut v = all(Strict(Type::B32));
            v[4] = Skip;
            if n == 6 {
                v[5] = pred;
            }
            v
        }
        O::Mov => vec![Strict(t), Strict(t)],
        O::Cvt if n == 2 && types.len() == 2 && cvt_scalar(t) && cvt_scalar(types[1]) => {
            vec![Relaxed(t), Relaxed(types[1])]
        }
        O::Ld | O::Ldu => {
            let mut v = all(Skip);
            v[0] = Relaxed(t);
            v
        }
        O::St => {
            let mut v = all(Skip);
            if n >= 2 {
                v[1] = Relaxed(t);
            }
            v
        }
        O::Atom if inst.vector().is_none() => {
            let mut v = all(Strict(t));
            v[1] = Skip;
            v
        }
        O::Red if inst.vector().is_none() => {
            let mut v = all(Skip);
            v[1] = Strict(t);
            v
        }
        O::Shfl => {
            let mut v = all(u32_);
            v[0] = Strict(Type::B32);
            v[1] = Strict(Type::B32);
            v
        }
        O::Vote => {
            let mut v = all(u32_);
            v[0] = Strict(t);
            v[1] = pred;
            v
        }
        O::Activemask => vec![Strict(Type::B32)],
        O::Match => {
            let mut v = all(u32_);
            v[0] = Strict(Type::B32);
            v[1] = Strict(t);
            v
        }
        O::Cvta => vec![Strict(t), Strict(t)],
        O::Mapa => vec![Strict(t), Strict(t), u32_],
        // The type is the address's size: ptxas rejects seed 003's own example
        // (`getctarank.shared::cluster.u32 rank, remAddr` with a 64-bit `remAddr`, "Arguments
        // mismatch for instruction 'getctarank'"; corpus/spec/003).
        O::Getctarank => vec![u32_, Strict(t)],
        O::MbarrierTestWait | O::MbarrierTryWait => {
            let mut v = all(Skip);
            v[0] = pred;
            v
        }
        O::MbarrierArrive | O::MbarrierArriveDrop => {
            let mut v = all(Skip);
            v[0] = Strict(Type::B64);
            if n == 3 {
                v[2] = u32_;
            }
            v
        }
        O::Nanosleep => vec![u32_],
        // Seed 004: `nCols` is an unsigned 32-bit operand; `taddr` a `.b32` address.
        O::Tcgen05Alloc => vec![Skip, u32_],
        O::Tcgen05Dealloc => vec![Strict(Type::B32), u32_],
        _ => return None,
    };
    v.truncate(n);
    Some(v)
}

/// The scalar types `cvt` converts between (packed and narrow float forms are not modelled).
fn cvt_scalar(t: Type) -> bool {
    use Type::*;
    matches!(
        t,
        U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 | F16 | Bf16 | F32 | F64
    )
}

pub(crate) fn check<'m>(cx: &mut Cx<'m>, fx: &FnCx<'m>, inst: &'m Instruction, _form: &Form) {
    immediates(cx, inst);
    vectors(cx, fx, inst);
    half_rules(cx, inst);
    tensor_rules(cx, fx, inst);
    if let Some(g) = inst.guard {
        if let Some(v) = scope::var(cx, fx, g.pred) {
            if v.is_reg() && v.ty != Type::Pred {
                let msg = format!(
                    "guard `{}` has type `.{}`; a guard must be `.pred`",
                    cx.name(g.pred),
                    v.ty.as_str()
                );
                cx.report(Rule::OperandType, Some(inst), msg);
            }
        }
    }
    let Some(exps) = expectations(inst) else {
        return;
    };
    let vec_elem = matches!(inst.opcode, Opcode::Ld | Opcode::Ldu | Opcode::St);
    for (k, (o, e)) in inst.operands.iter().zip(exps).enumerate() {
        match o {
            Operand::Vector(items) => {
                let elem = match (inst.opcode, e) {
                    (_, Relaxed(t)) if vec_elem => Relaxed(t),
                    (Opcode::Mov, Strict(t)) if !items.is_empty() => {
                        match bits_type(t.bits() / items.len() as u32) {
                            Some(b) if t.bits() % items.len() as u32 == 0 => Strict(b),
                            _ => {
                                let msg = format!(
                                    "a vector of {} elements cannot pack `.{}`",
                                    items.len(),
                                    t.as_str()
                                );
                                cx.report(Rule::VectorWidth, Some(inst), msg);
                                continue;
                            }
                        }
                    }
                    _ => continue,
                };
                for it in items.iter() {
                    operand(cx, fx, inst, k, it, elem);
                }
            }
            Operand::Pair(p) => {
                // `d|p`: a value and a predicate (setp: two predicates).
                let second = Strict(Type::Pred);
                operand(cx, fx, inst, k, &p[0], e);
                operand(cx, fx, inst, k, &p[1], second);
            }
            _ => operand(cx, fx, inst, k, o, e),
        }
    }
}

fn operand<'m>(
    cx: &mut Cx<'m>,
    fx: &FnCx<'m>,
    inst: &'m Instruction,
    k: usize,
    o: &Operand,
    e: Exp,
) {
    let (want, relaxed) = match e {
        Strict(t) => (t, false),
        Relaxed(t) => (t, true),
        Skip => return,
    };
    match o {
        Operand::Reg { name, sel } if sel.is_none() => {
            let Some(v) = scope::var(cx, fx, *name) else {
                return;
            };
            if !v.is_reg() || v.vector.is_some() {
                return;
            }
            let ok = if relaxed {
                relaxed_ok(want, v.ty)
            } else {
                strict_ok(want, v.ty)
            };
            if !ok {
                let msg = format!(
                    "operand {} `{}` is `.{}`, not compatible with `.{}`{}",
                    k + 1,
                    cx.name(*name),
                    v.ty.as_str(),
                    want.as_str(),
                    if relaxed {
                        " (relaxed ld/st/cvt rules)"
                    } else {
                        ""
                    }
                );
                cx.report(Rule::OperandType, Some(inst), msg);
            }
        }
        Operand::Not(name) => {
            if let Some(v) = scope::var(cx, fx, *name) {
                if v.is_reg() && v.ty != Type::Pred {
                    let msg = format!("`!{}` negates a non-predicate", cx.name(*name));
                    cx.report(Rule::OperandType, Some(inst), msg);
                }
            }
        }
        Operand::Int(_) | Operand::Uint(_) => {
            let Some(val) = o.as_int() else { return };
            // ptxas refuses an integer literal where a floating-point operand is expected
            // ("Arguments mismatch": `setp.eq.f32 p, y, 0` as seed 001 writes it, `add.f32`,
            // `mov.f32`, `st.global.f32 [a], 0`, ...; tools/seedspec/probes/int_literals.sh).
            if want.is_float() {
                let msg = format!(
                    "integer literal {val} where a `.{}` operand is expected (operand {}): write \
                     a floating-point literal such as `0f00000000`",
                    want.as_str(),
                    k + 1
                );
                cx.report(Rule::OperandType, Some(inst), msg);
                return;
            }
            let bits = want.bits();
            if (want.is_bits() || is_int(want)) && bits < 64 {
                let lo = -(1i128 << (bits - 1));
                let hi = (1i128 << bits) - 1;
                if val < lo || val > hi {
                    let msg = format!(
                        "literal {val} does not fit `.{}` (operand {})",
                        want.as_str(),
                        k + 1
                    );
                    cx.report(Rule::ImmediateWidth, Some(inst), msg);
                }
            }
        }
        _ => {}
    }
}

/// Half-precision restrictions that ptxas enforces beyond the forms (found by running generated
/// kernels through ptxas): no `.sat` on a conversion to or from `.bf16`, no immediate operand of a
/// half or packed-half `atom`/`red`.
fn half_rules(cx: &mut Cx<'_>, inst: &Instruction) {
    let types = inst.types();
    match inst.opcode {
        Opcode::Cvt if inst.has(crate::vocab::Flag::Sat) && types.contains(&Type::Bf16) => {
            let msg = "`.sat` is not allowed on a conversion to or from `.bf16`".to_string();
            cx.report(Rule::ModifierType, Some(inst), msg);
        }
        Opcode::Atom | Opcode::Red
            if types
                .iter()
                .any(|t| matches!(t, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2))
                && inst.operands.iter().any(Operand::is_immediate) =>
        {
            let msg = format!(
                "`.{}` atomics take register operands only, not immediates",
                types[0].as_str()
            );
            cx.report(Rule::OperandType, Some(inst), msg);
        }
        _ => {}
    }
}

/// Tensor and bulk copies: `.im2col` modes need a 3d or larger tensor (PTX ISA 9.7.9.27.1.2),
/// and the `ctaMask` of `.multicast::cluster` is a 16-bit operand (a `.b16` or `.b32` register is
/// taken; a 64-bit or predicate register is not).
fn tensor_rules<'m>(cx: &mut Cx<'m>, fx: &FnCx<'m>, inst: &'m Instruction) {
    use crate::vocab::Dim;
    let tensor = matches!(
        inst.opcode,
        Opcode::CpAsyncBulkTensor
            | Opcode::CpAsyncBulkPrefetchTensor
            | Opcode::CpReduceAsyncBulkTensor
    );
    if tensor && (inst.has(Dim::D1) || inst.has(Dim::D2)) {
        let im2col = [
            Flag::Im2col,
            Flag::Im2colW,
            Flag::Im2colW128,
            Flag::Im2colNoOffs,
        ]
        .into_iter()
        .find(|&f| inst.has(f));
        if let Some(f) = im2col {
            let d = if inst.has(Dim::D1) { "1d" } else { "2d" };
            let msg = format!("`.{}` needs a 3d or larger tensor, not `.{d}`", f.as_str());
            cx.report(Rule::ModifierType, Some(inst), msg);
        }
    }
    if !inst.has(Flag::MulticastCluster) {
        return;
    }
    let mask = match inst.opcode {
        Opcode::CpAsyncBulk => inst.operands.get(4),
        Opcode::CpAsyncBulkTensor => inst
            .operands
            .iter()
            .skip(3)
            .find(|o| !matches!(o, Operand::Vector(_))),
        _ => None,
    };
    let Some(Operand::Reg { name, sel }) = mask else {
        return;
    };
    if !sel.is_none() {
        return;
    }
    let Some(v) = scope::var(cx, fx, *name) else {
        return;
    };
    if v.is_reg() && v.vector.is_none() && (!matches!(v.ty.bits(), 16 | 32) || v.ty.is_float()) {
        let msg = format!(
            "ctaMask `{}` is `.{}`; it is a 16-bit operand",
            cx.name(*name),
            v.ty.as_str()
        );
        cx.report(Rule::OperandType, Some(inst), msg);
    }
}

/// Immediates with ranges fixed by the ISA.
fn immediates(cx: &mut Cx<'_>, inst: &Instruction) {
    let lit = |k: usize| inst.operands.get(k).and_then(Operand::as_int);
    let bad = |cx: &mut Cx<'_>, what: String| cx.report(Rule::ImmediateRange, Some(inst), what);
    match inst.opcode {
        Opcode::Lop3 => {
            if let Some(v) = lit(4) {
                if !(0..=255).contains(&v) {
                    bad(cx, format!("lookup table {v} of `lop3` is not in 0..=255"));
                }
            }
        }
        // ptxas: "value '256' out of range, expected to be in range [0..255]" (the ISA keeps
        // the low 8 bits of a register operand; an immediate must already be in range).
        Opcode::Bfe | Opcode::Bfi => {
            let first = if inst.opcode == Opcode::Bfe { 2 } else { 3 };
            for (k, what) in [(first, "position"), (first + 1, "length")] {
                if let Some(v) = lit(k).filter(|v| !(0..=255).contains(v)) {
                    let name = inst.opcode.name();
                    bad(
                        cx,
                        format!("bit-field {what} {v} of `{name}` is not in 0..=255"),
                    );
                }
            }
        }
        Opcode::Bar | Opcode::Barrier => {
            if let Some(v) = lit(0) {
                if !inst.has(crate::vocab::Flag::Red) && !(0..=15).contains(&v) {
                    bad(cx, format!("barrier {v} is not in 0..=15"));
                }
            }
        }
        Opcode::Setmaxnreg => {
            if let Some(v) = lit(0) {
                if !(24..=256).contains(&v) || v % 8 != 0 {
                    bad(
                        cx,
                        format!("register count {v} is not a multiple of 8 in 24..=256"),
                    );
                }
            }
        }
        Opcode::CpAsync => {
            if let Some(v) = lit(2) {
                let cg = inst.has(CacheOp::Cg);
                if cg && v != 16 {
                    bad(cx, format!("`cp.async.cg` copies 16 bytes, not {v}"));
                } else if !matches!(v, 4 | 8 | 16) {
                    bad(cx, format!("cp-size {v} is not 4, 8 or 16"));
                } else if let Some(s) = lit(3).filter(|&s| s > v) {
                    bad(cx, format!("src-size {s} is larger than cp-size {v}"));
                }
            }
        }
        Opcode::CpAsyncBulk | Opcode::CpReduceAsyncBulk | Opcode::CpAsyncBulkPrefetch => {
            let k = if inst.opcode == Opcode::CpAsyncBulkPrefetch {
                1
            } else {
                2
            };
            if let Some(v) = lit(k) {
                if v % 16 != 0 {
                    bad(
                        cx,
                        format!("bulk copy size {v} is not a multiple of 16 bytes"),
                    );
                }
            }
        }
        Opcode::Tcgen05Alloc | Opcode::Tcgen05Dealloc => {
            if let Some(v) = lit(1) {
                if !(32..=512).contains(&v) || v.count_ones() != 1 {
                    bad(
                        cx,
                        format!("{v} columns: nCols must be a power of 2 in 32..=512"),
                    );
                }
            }
        }
        Opcode::Alloca => {
            if let Some(v) = lit(2) {
                if !(1..=1 << 23).contains(&v) || v.count_ones() != 1 {
                    bad(
                        cx,
                        format!("alignment {v} of `alloca` is not a power of 2 up to 2^23"),
                    );
                }
            }
        }
        Opcode::Pmevent => {
            if let Some(v) = lit(0) {
                let max = if inst.has(crate::vocab::Flag::Mask) {
                    0xffff
                } else {
                    15
                };
                if !(0..=max).contains(&v) {
                    bad(cx, format!("event {v} is not in 0..={max}"));
                }
            }
        }
        _ => {}
    }
}

/// `.vN` against the vector operand of `ld`/`st`/`ldu`, and the widths the ISA allows.
fn vectors<'m>(cx: &mut Cx<'m>, _fx: &FnCx<'m>, inst: &'m Instruction) {
    let k = match inst.opcode {
        Opcode::Ld | Opcode::Ldu => 0,
        Opcode::St => 1,
        _ => return,
    };
    let Some(t) = inst.ty() else { return };
    let want = vec_len(inst.vector());
    match inst.operands.get(k) {
        Some(Operand::Vector(items)) if items.len() as u32 != want => {
            let msg = if want == 1 {
                format!(
                    "a vector of {} elements needs a `.vN` qualifier",
                    items.len()
                )
            } else {
                format!(
                    "`.v{want}` needs {want} elements; the vector has {}",
                    items.len()
                )
            };
            cx.report(Rule::VectorWidth, Some(inst), msg);
            return;
        }
        Some(Operand::Vector(_)) => {}
        Some(_) if want > 1 => {
            let msg = format!("`.v{want}` needs a vector operand `{{...}}`");
            cx.report(Rule::VectorWidth, Some(inst), msg);
            return;
        }
        _ => {}
    }
    if want > 1 {
        let total = want * t.bits();
        let generic_or_global = matches!(inst.space(), None | Some(Space::Global));
        let ok = total <= 128 && t != Type::B128 && !(want == 8 && t.bits() != 32)
            || (total == 256
                && generic_or_global
                && ((want == 8 && t.bits() == 32) || (want == 4 && t.bits() == 64)));
        if !ok {
            let msg = format!(
                "`.v{want}.{}` is not a legal vector ({total} bits)",
                t.as_str()
            );
            cx.report(Rule::VectorWidth, Some(inst), msg);
        }
    }
}
