//! What the lowering and the reference need to know about an operation besides its
//! semantics: its operand classes ([`signature`]) and which module-level resources it uses.

use super::op::Operation;
use super::reg::Class;
use super::types::*;

/// The operand classes of an operation.
pub struct Sig {
    /// Destination class.
    pub dst: Class,
    /// Class of a possible second destination.
    pub dst2: Option<Class>,
    /// Source classes.
    pub srcs: Vec<Class>,
    /// Sources that must be registers.
    pub no_imm: Vec<usize>,
    /// Whether the last source is a predicate that may be negated.
    pub pred_src: bool,
}

fn sig(dst: Class, srcs: &[Class]) -> Sig {
    Sig {
        dst,
        dst2: None,
        srcs: srcs.to_vec(),
        no_imm: Vec::new(),
        pred_src: false,
    }
}

/// The operand classes of `op`.
pub fn signature(op: &Operation) -> Sig {
    use Class::*;
    let ic = |t: &It| Class::int(t.bits);
    match op {
        Operation::Add(t)
        | Operation::Sub(t)
        | Operation::MulLo(t)
        | Operation::MulHi(t)
        | Operation::Div(t)
        | Operation::Rem(t) => {
            let c = ic(t);
            let mut s = sig(c, &[c, c]);
            if matches!(op, Operation::Div(_) | Operation::Rem(_)) {
                // The guard sequence compares the divisor: keep it a register.
                s.no_imm = vec![1];
            }
            s
        }
        Operation::Min(t) | Operation::Max(t) => sig(ic(t), &[ic(t), ic(t)]),
        Operation::AddSat(_) => sig(R, &[R, R]),
        Operation::Relu { .. } => sig(R, &[R, R]),
        Operation::MulWide(t) => {
            let c = ic(t);
            sig(Class::int(t.bits * 2), &[c, c])
        }
        Operation::MadLo(t) | Operation::MadHi(t) | Operation::Sad(t) => {
            let c = ic(t);
            sig(c, &[c, c, c])
        }
        Operation::MadWide(t) => {
            let c = ic(t);
            let w = Class::int(t.bits * 2);
            sig(w, &[c, c, w])
        }
        Operation::MadHiSat => sig(R, &[R, R, R]),
        Operation::Mul24 { .. } => sig(R, &[R, R]),
        Operation::Mad24 { .. } => sig(R, &[R, R, R]),
        Operation::Abs(t) | Operation::Neg(t) => sig(ic(t), &[ic(t)]),
        Operation::Popc(w) | Operation::Clz(w) => sig(R, &[Class::int(*w)]),
        Operation::Brev(w) => sig(Class::int(*w), &[Class::int(*w)]),
        Operation::Bfind { t, .. } => sig(R, &[ic(t)]),
        Operation::Bfe(t) => sig(ic(t), &[ic(t), R, R]),
        Operation::Bfi(w) => {
            let c = Class::int(*w);
            sig(c, &[c, c, R, R])
        }
        Operation::Dp4a { .. } | Operation::Dp2a { .. } => sig(R, &[R, R, R]),
        Operation::Prmt(_) | Operation::Fns => sig(R, &[R, R, R]),
        Operation::Bmsk { .. } | Operation::Szext { .. } => sig(R, &[R, R]),
        Operation::AddCc { t, .. } => sig(ic(t), &[ic(t), ic(t)]),
        Operation::MadCc { t, .. } => sig(ic(t), &[ic(t), ic(t), ic(t)]),
        Operation::And(c) | Operation::Or(c) | Operation::Xor(c) => sig(*c, &[*c, *c]),
        Operation::Not(c) | Operation::Cnot(c) => sig(*c, &[*c]),
        Operation::Lop3(_) => sig(R, &[R, R, R]),
        Operation::Shf { .. } => sig(R, &[R, R, R]),
        Operation::Shl(c) => sig(*c, &[*c, R]),
        Operation::Shr(t) => sig(ic(t), &[ic(t), R]),
        Operation::Setp { t, bop, .. } => {
            let c = cmp_class(t);
            let mut s = sig(P, &[c, c]);
            s.dst2 = Some(P);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Operation::Set { t, d, bop, .. } => {
            let c = cmp_class(t);
            let dc = if *d == ptx_ir_core::Type::F32 { F } else { R };
            let mut s = sig(dc, &[c, c]);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Operation::Selp(c) => sig(*c, &[*c, *c, P]),
        Operation::Slct(c) => sig(*c, &[*c, *c, R]),
        Operation::Fbin { ft, .. } => sig(float_class(*ft), &[float_class(*ft), float_class(*ft)]),
        Operation::Fma { ft, .. } => sig(
            float_class(*ft),
            &[float_class(*ft), float_class(*ft), float_class(*ft)],
        ),
        Operation::Rcp { ft, .. }
        | Operation::Sqrt { ft, .. }
        | Operation::Fabs { ft, .. }
        | Operation::Fneg { ft, .. } => sig(float_class(*ft), &[float_class(*ft)]),
        Operation::Fminmax { ft, .. } | Operation::Copysign(ft) => {
            sig(float_class(*ft), &[float_class(*ft), float_class(*ft)])
        }
        Operation::Testp { ft, .. } => sig(P, &[float_class(*ft)]),
        Operation::Approx { kind, .. } => match kind {
            Approx::Div | Approx::DivFull => sig(F, &[F, F]),
            _ => sig(F, &[F]),
        },
        Operation::Cvt { d, s, .. } => sig(d.class(), &[s.class()]),
        Operation::Hbin { x2, .. } | Operation::Hminmax { x2, .. } => half_sig(*x2, 2),
        Operation::Hfma { x2, .. } => half_sig(*x2, 3),
        Operation::Hsign { x2, .. } => half_sig(*x2, 1),
        Operation::Hsetp { x2, bop, .. } => {
            let mut s = half_sig(*x2, 2);
            s.dst = P;
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Operation::CvtToHalf { .. } => sig(H, &[F]),
        Operation::CvtHalfX { peer, to_half, .. } => {
            let pc = match peer {
                HPeer::Int(b, _) => Class::int(*b),
                HPeer::F64 => Fd,
                HPeer::Half => H,
            };
            // Half operands are registers only.
            if *to_half {
                let mut s = sig(H, &[pc]);
                if *peer == HPeer::Half {
                    s.no_imm = vec![0];
                }
                s
            } else {
                let mut s = sig(pc, &[H]);
                s.no_imm = vec![0];
                s
            }
        }
        Operation::Hset { x2, d, bop, .. } => {
            let mut s = half_sig(*x2, 2);
            s.dst = match d {
                HSetD::U32 | HSetD::S32 => R,
                _ if *x2 => R,
                _ => H,
            };
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Operation::CvtFromHalf { .. } => {
            let mut s = sig(F, &[H]);
            s.no_imm = vec![0];
            s
        }
        Operation::CvtPack { .. } => sig(R, &[F, F]),
        Operation::Ld { class, .. } => sig(*class, &[]),
        Operation::Isspacep { .. } => sig(P, &[]),
        Operation::CvtaRound { .. } => sig(D, &[D]),
        Operation::Call { n, params, ret, .. } => sig(*ret, &params[..*n as usize]),
        Operation::Rec { .. } => {
            let mut s = sig(R, &[R, R]);
            s.no_imm = vec![1];
            s
        }
        Operation::St { class, .. } => {
            // Vector sources are consecutive registers: the first is a register.
            let mut s = sig(*class, &[*class]);
            s.no_imm = vec![0];
            s
        }
        Operation::Atom { op, t, .. } => {
            let c = t.class();
            let mut s = if *op == ptx_ir_core::Op::Cas {
                sig(c, &[c, c])
            } else {
                sig(c, &[c])
            };
            if matches!(t, AtomT::Half(..)) {
                // ptxas takes no immediate for a half or packed-half atomic ("Arguments
                // mismatch for instruction 'atom'", GPU batch).
                s.no_imm = (0..s.srcs.len()).collect();
            }
            s
        }
        Operation::Mov(c) => sig(*c, &[*c]),
        Operation::Shfl { .. } => {
            let mut s = sig(R, &[R, R]);
            s.dst2 = Some(P);
            s.no_imm = vec![0];
            s
        }
        Operation::Vote { mode, .. } => {
            let d = if *mode == ptx_ir_core::Flag::Ballot {
                R
            } else {
                P
            };
            let mut s = sig(d, &[P]);
            s.pred_src = true;
            s
        }
        Operation::Redux { .. } => {
            let mut s = sig(R, &[R]);
            s.no_imm = vec![0];
            s
        }
        Operation::Activemask => sig(R, &[]),
        Operation::PackSat(t) => {
            let mut s = if pack_takes_c(*t) {
                sig(R, &[R, R, R])
            } else {
                sig(R, &[R, R])
            };
            // `c` is `.b32` while `a` and `b` are `.s32`: immediates of one signedness only.
            s.no_imm = if pack_takes_c(*t) { vec![2] } else { vec![] };
            s
        }
        Operation::LdIn { class, .. } => sig(*class, &[]),
        Operation::Hint(_) | Operation::Alloca { .. } | Operation::WarpSync => sig(R, &[R]),
        Operation::Match { wide, all } => {
            let mut s = sig(R, &[if *wide { D } else { R }]);
            // Only `match.all` has the `d|p` form.
            s.dst2 = all.then_some(P);
            s.no_imm = vec![0];
            s
        }
    }
}

/// Half-precision operands are registers only (the ISA takes no immediates of the `.f16`,
/// `.bf16` or packed types).
fn half_sig(x2: bool, n: usize) -> Sig {
    let c = if x2 { Class::R } else { Class::H };
    let mut s = sig(c, &vec![c; n]);
    s.no_imm = (0..n).collect();
    s
}

fn cmp_class(t: &CmpT) -> Class {
    match t {
        CmpT::Int(it) => Class::int(it.bits),
        CmpT::Bits(b) => Class::int(*b),
        CmpT::F(f) => float_class(*f),
    }
}

/// Whether `op` makes a generic address from the memory prologue's registers (`isspacep`,
/// `cvta`), so that the kernel needs the prologue.
pub fn is_generic(op: &Operation) -> bool {
    matches!(op, Operation::Isspacep { .. } | Operation::CvtaRound { .. })
}

/// Whether `op` uses the module's `.const` array.
pub fn uses_const(op: &Operation) -> bool {
    matches!(
        op,
        Operation::CvtaRound { space: Win::Const }
            | Operation::Isspacep {
                ptr: Win::Const,
                ..
            }
    )
}

/// Whether `op` uses the module's `.global` array `dsc` (the target of `discard`).
pub fn uses_discard(op: &Operation) -> bool {
    matches!(op, Operation::Hint(HintOp::Discard))
}

/// Whether `op` is a `setmaxnreg` (the kernel is then for `sm_90a`, with 128 threads).
pub fn is_setmaxnreg(op: &Operation) -> bool {
    matches!(op, Operation::Hint(HintOp::Setmaxnreg { .. }))
}

/// Whether `op` uses the kernel's `.local` array.
pub fn uses_local(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Isspacep {
            ptr: Win::Local,
            ..
        } | Operation::CvtaRound { space: Win::Local }
    )
}

/// Whether `op` accesses memory (a load, store or atomic of the shared-slot protocol).
pub fn is_mem(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Ld { .. } | Operation::St { .. } | Operation::Atom { .. }
    )
}
