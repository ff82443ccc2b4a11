//! What the lowering and the reference need to know about an operation besides its
//! semantics: its operand classes ([`signature`]) and which module-level resources it uses.

use super::op::Op;
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
pub fn signature(op: &Op) -> Sig {
    use Class::*;
    let ic = |t: &It| Class::int(t.bits);
    match op {
        Op::Add(t) | Op::Sub(t) | Op::MulLo(t) | Op::MulHi(t) | Op::Div(t) | Op::Rem(t) => {
            let c = ic(t);
            let mut s = sig(c, &[c, c]);
            if matches!(op, Op::Div(_) | Op::Rem(_)) {
                // The guard sequence compares the divisor: keep it a register.
                s.no_imm = vec![1];
            }
            s
        }
        Op::Min(t) | Op::Max(t) => sig(ic(t), &[ic(t), ic(t)]),
        Op::AddSat(_) => sig(R, &[R, R]),
        Op::Relu { .. } => sig(R, &[R, R]),
        Op::MulWide(t) => {
            let c = ic(t);
            sig(Class::int(t.bits * 2), &[c, c])
        }
        Op::MadLo(t) | Op::MadHi(t) | Op::Sad(t) => {
            let c = ic(t);
            sig(c, &[c, c, c])
        }
        Op::MadWide(t) => {
            let c = ic(t);
            let w = Class::int(t.bits * 2);
            sig(w, &[c, c, w])
        }
        Op::MadHiSat => sig(R, &[R, R, R]),
        Op::Mul24 { .. } => sig(R, &[R, R]),
        Op::Mad24 { .. } => sig(R, &[R, R, R]),
        Op::Abs(t) | Op::Neg(t) => sig(ic(t), &[ic(t)]),
        Op::Popc(w) | Op::Clz(w) => sig(R, &[Class::int(*w)]),
        Op::Brev(w) => sig(Class::int(*w), &[Class::int(*w)]),
        Op::Bfind { t, .. } => sig(R, &[ic(t)]),
        Op::Bfe(t) => sig(ic(t), &[ic(t), R, R]),
        Op::Bfi(w) => {
            let c = Class::int(*w);
            sig(c, &[c, c, R, R])
        }
        Op::Dp4a { .. } | Op::Dp2a { .. } => sig(R, &[R, R, R]),
        Op::Prmt(_) | Op::Fns => sig(R, &[R, R, R]),
        Op::Bmsk { .. } | Op::Szext { .. } => sig(R, &[R, R]),
        Op::AddCc { t, .. } => sig(ic(t), &[ic(t), ic(t)]),
        Op::MadCc { t, .. } => sig(ic(t), &[ic(t), ic(t), ic(t)]),
        Op::And(c) | Op::Or(c) | Op::Xor(c) => sig(*c, &[*c, *c]),
        Op::Not(c) | Op::Cnot(c) => sig(*c, &[*c]),
        Op::Lop3(_) => sig(R, &[R, R, R]),
        Op::Shf { .. } => sig(R, &[R, R, R]),
        Op::Shl(c) => sig(*c, &[*c, R]),
        Op::Shr(t) => sig(ic(t), &[ic(t), R]),
        Op::Setp { t, bop, .. } => {
            let c = cmp_class(t);
            let mut s = sig(P, &[c, c]);
            s.dst2 = Some(P);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::Set { t, d, bop, .. } => {
            let c = cmp_class(t);
            let dc = if *d == SetD::F32 { F } else { R };
            let mut s = sig(dc, &[c, c]);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::Selp(c) => sig(*c, &[*c, *c, P]),
        Op::Slct(c) => sig(*c, &[*c, *c, R]),
        Op::Fbin { ft, .. } => sig(ft.class(), &[ft.class(), ft.class()]),
        Op::Fma { ft, .. } => sig(ft.class(), &[ft.class(), ft.class(), ft.class()]),
        Op::Rcp { ft, .. } | Op::Sqrt { ft, .. } | Op::Fabs { ft, .. } | Op::Fneg { ft, .. } => {
            sig(ft.class(), &[ft.class()])
        }
        Op::Fminmax { ft, .. } | Op::Copysign(ft) => sig(ft.class(), &[ft.class(), ft.class()]),
        Op::Testp { ft, .. } => sig(P, &[ft.class()]),
        Op::Approx { kind, .. } => match kind {
            Approx::Div | Approx::DivFull => sig(F, &[F, F]),
            _ => sig(F, &[F]),
        },
        Op::Cvt { d, s, .. } => sig(d.class(), &[s.class()]),
        Op::Hbin { x2, .. } | Op::Hminmax { x2, .. } => half_sig(*x2, 2),
        Op::Hfma { x2, .. } => half_sig(*x2, 3),
        Op::Hsign { x2, .. } => half_sig(*x2, 1),
        Op::Hsetp { x2, bop, .. } => {
            let mut s = half_sig(*x2, 2);
            s.dst = P;
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::CvtToHalf { .. } => sig(H, &[F]),
        Op::CvtHalfX { peer, to_half, .. } => {
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
        Op::Hset { x2, d, bop, .. } => {
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
        Op::CvtFromHalf { .. } => {
            let mut s = sig(F, &[H]);
            s.no_imm = vec![0];
            s
        }
        Op::CvtPack { .. } => sig(R, &[F, F]),
        Op::Ld { class, .. } => sig(*class, &[]),
        Op::Isspacep { .. } => sig(P, &[]),
        Op::CvtaRound { .. } => sig(D, &[D]),
        Op::Call { n, params, ret, .. } => sig(*ret, &params[..*n as usize]),
        Op::Rec { .. } => {
            let mut s = sig(R, &[R, R]);
            s.no_imm = vec![1];
            s
        }
        Op::St { class, .. } => {
            // Vector sources are consecutive registers: the first is a register.
            let mut s = sig(*class, &[*class]);
            s.no_imm = vec![0];
            s
        }
        Op::Atom { op, t, .. } => {
            let c = t.class();
            let mut s = if *op == AtomOp::Cas {
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
        Op::Mov(c) => sig(*c, &[*c]),
        Op::Shfl { .. } => {
            let mut s = sig(R, &[R, R]);
            s.dst2 = Some(P);
            s.no_imm = vec![0];
            s
        }
        Op::Vote { mode, .. } => {
            let d = if *mode == VoteMode::Ballot { R } else { P };
            let mut s = sig(d, &[P]);
            s.pred_src = true;
            s
        }
        Op::Redux { .. } => {
            let mut s = sig(R, &[R]);
            s.no_imm = vec![0];
            s
        }
        Op::Activemask => sig(R, &[]),
        Op::PackSat(t) => {
            let mut s = if t.with_c() {
                sig(R, &[R, R, R])
            } else {
                sig(R, &[R, R])
            };
            // `c` is `.b32` while `a` and `b` are `.s32`: immediates of one signedness only.
            s.no_imm = if t.with_c() { vec![2] } else { vec![] };
            s
        }
        Op::LdIn { class, .. } => sig(*class, &[]),
        Op::Hint(_) | Op::Alloca { .. } | Op::WarpSync => sig(R, &[R]),
        Op::Match { wide, all } => {
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
        CmpT::F(f) => f.class(),
    }
}

/// Whether `op` makes a generic address from the memory prologue's registers (`isspacep`,
/// `cvta`), so that the kernel needs the prologue.
pub fn is_generic(op: &Op) -> bool {
    matches!(op, Op::Isspacep { .. } | Op::CvtaRound { .. })
}

/// Whether `op` uses the module's `.const` array.
pub fn uses_const(op: &Op) -> bool {
    matches!(
        op,
        Op::CvtaRound { space: Win::Const }
            | Op::Isspacep {
                ptr: Win::Const,
                ..
            }
    )
}

/// Whether `op` uses the module's `.global` array `dsc` (the target of `discard`).
pub fn uses_discard(op: &Op) -> bool {
    matches!(op, Op::Hint(HintOp::Discard))
}

/// Whether `op` is a `setmaxnreg` (the kernel is then for `sm_90a`, with 128 threads).
pub fn is_setmaxnreg(op: &Op) -> bool {
    matches!(op, Op::Hint(HintOp::Setmaxnreg { .. }))
}

/// Whether `op` uses the kernel's `.local` array.
pub fn uses_local(op: &Op) -> bool {
    matches!(
        op,
        Op::Isspacep {
            ptr: Win::Local,
            ..
        } | Op::CvtaRound { space: Win::Local }
    )
}

/// Whether `op` accesses memory (a load, store or atomic of the shared-slot protocol).
pub fn is_mem(op: &Op) -> bool {
    matches!(op, Op::Ld { .. } | Op::St { .. } | Op::Atom { .. })
}
