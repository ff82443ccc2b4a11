//! The structured body: branches (`if`/`else` with a ballot of each arm's lanes), `brx.idx`
//! switches through a `.branchtargets` list, bounded loops, CTA barriers, and each instruction
//! handed to the lowering of its family ([`inst`]) with its guard, destination and sources.

use super::emit::*;
use super::{approx, barrier, bits, call, carry, cmp, cvt, float, generic, half, hint, int};
use super::{logic, mem, warp};
use crate::model::*;
use ptx_ir_core::build::Label;
use ptx_ir_core::{Cmp, Flag, Guard, Modifier, Name, Opcode, Operand, SpecialReg, Type};

/// The predicate (and its negation) that holds where `cond` does, computed into `%q<depth>`
/// unless `cond` names a predicate register.
pub(super) fn cond_pred(b: &mut B, cond: Cond, depth: u32) -> (Name, bool) {
    use Opcode::*;
    let q = b.r(&format!("%q{depth}"));
    let qn = b.name(&format!("%q{depth}"));
    match cond {
        Cond::Pred(p, neg) => (b.name(&format!("%p{p}")), neg),
        Cond::LaneBelow(k) => {
            let t7 = lane_to_t7(b);
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Lt), t(Type::U32)],
                vec![q, t7, Operand::Int(k as i64)],
            );
            (qn, false)
        }
        Cond::Consumer => {
            let t0 = b.r("%t0");
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Ge), t(Type::U32)],
                vec![q, t0, Operand::Int(32)],
            );
            (qn, false)
        }
        Cond::LaneBit(k) => {
            let t7 = lane_to_t7(b);
            b.e(
                And,
                vec![t(Type::B32)],
                vec![t7.clone(), t7.clone(), Operand::Int(1 << k)],
            );
            b.e(
                Setp,
                vec![Modifier::Cmp(Cmp::Ne), t(Type::U32)],
                vec![q, t7, Operand::Int(0)],
            );
            (qn, false)
        }
    }
}

pub(super) fn nodes(b: &mut B, ns: &[Node], depth: u32) {
    use Opcode::*;
    for n in ns {
        match n {
            Node::Inst(i) => inst(b, i, depth),
            Node::Barrier(k) => barrier::barrier(b, *k),
            Node::Switch { sel, arms } => {
                // The arm index into %t7; each arm's mask (a ballot while the region is still
                // converged) into %ms<4 * depth + arm>; then `brx.idx` through a target list.
                let t7 = b.r("%t7");
                let src = match *sel {
                    Sel::Lane => lane_to_t7(b),
                    Sel::Reg(r) => b.reg(Reg {
                        class: Class::R,
                        idx: r,
                    }),
                };
                b.e(
                    Rem,
                    vec![t(Type::U32)],
                    vec![t7.clone(), src, Operand::Int(arms.len() as i64)],
                );
                let q = b.r(&format!("%q{depth}"));
                let mo = mask_reg(b, depth);
                for k in 0..arms.len() {
                    let ms = b.r(&format!("%ms{}", 4 * depth as usize + k));
                    b.e(
                        Setp,
                        vec![Modifier::Cmp(Cmp::Eq), t(Type::U32)],
                        vec![q.clone(), t7.clone(), Operand::Int(k as i64)],
                    );
                    b.e(
                        Vote,
                        vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                        vec![ms, q.clone(), mo.clone()],
                    );
                }
                let targets: Vec<Name> = (0..arms.len()).map(|_| b.label("arm")).collect();
                let list = b.label_name("targets");
                let end_l = b.label("end");
                let arms_l: Vec<Label> = targets.iter().map(|&l| Label(l)).collect();
                let list = built(b.f.branch_targets(&list, &arms_l)).0;
                b.e(BrxIdx, vec![], vec![t7, Operand::reg(list)]);
                for (k, (arm, &lab)) in arms.iter().zip(&targets).enumerate() {
                    b.place(lab);
                    let mi = mask_reg(b, depth + 1);
                    let ms = b.r(&format!("%ms{}", 4 * depth as usize + k));
                    b.e(Mov, vec![t(Type::B32)], vec![mi, ms]);
                    nodes(b, arm, depth + 1);
                    b.e(Bra, vec![], vec![Operand::reg(end_l)]);
                }
                b.place(end_l);
            }
            Node::If { cond, then, els } => {
                let (pred, neg) = cond_pred(b, *cond, depth);
                let (mo, mi) = (mask_reg(b, depth), mask_reg(b, depth + 1));
                let c = if neg {
                    Operand::Not(pred)
                } else {
                    Operand::reg(pred)
                };
                b.e(
                    Vote,
                    vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                    vec![mi.clone(), c, mo.clone()],
                );
                let else_l = b.label("else");
                let end_l = b.label("end");
                b.emit(
                    Some(Guard {
                        pred,
                        negated: !neg,
                    }),
                    Bra,
                    vec![],
                    vec![Operand::reg(else_l)],
                );
                nodes(b, then, depth + 1);
                b.e(Bra, vec![], vec![Operand::reg(end_l)]);
                b.place(else_l);
                b.e(Not, vec![t(Type::B32)], vec![mi.clone(), mi.clone()]);
                b.e(And, vec![t(Type::B32)], vec![mi.clone(), mi, mo]);
                nodes(b, els, depth + 1);
                b.place(end_l);
            }
            Node::Loop { trips, body } => {
                let c = b.r(&format!("%c{depth}"));
                match *trips {
                    Trips::Const(k) => b.e(
                        Mov,
                        vec![t(Type::U32)],
                        vec![c.clone(), Operand::Int(k as i64)],
                    ),
                    Trips::Reg(r, k) => {
                        let src = b.reg(Reg {
                            class: Class::R,
                            idx: r,
                        });
                        b.e(
                            And,
                            vec![t(Type::B32)],
                            vec![c.clone(), src, Operand::Int(3)],
                        );
                        b.e(
                            Add,
                            vec![t(Type::U32)],
                            vec![c.clone(), c.clone(), Operand::Int(k as i64)],
                        );
                    }
                    Trips::Lane(k) => {
                        b.e(
                            Mov,
                            vec![t(Type::U32)],
                            vec![c.clone(), special(SpecialReg::Laneid, false)],
                        );
                        b.e(
                            And,
                            vec![t(Type::B32)],
                            vec![c.clone(), c.clone(), Operand::Int(3)],
                        );
                        b.e(
                            Add,
                            vec![t(Type::U32)],
                            vec![c.clone(), c.clone(), Operand::Int(k as i64)],
                        );
                    }
                }
                let uni = matches!(trips, Trips::Const(_));
                let (mo, mi) = (mask_reg(b, depth), mask_reg(b, depth + 1));
                b.e(Mov, vec![t(Type::B32)], vec![mi.clone(), mo]);
                let head = b.label("head");
                let done = b.label("done");
                b.place(head);
                let qn = b.name(&format!("%q{depth}"));
                let q = Operand::reg(qn);
                b.e(
                    Setp,
                    vec![Modifier::Cmp(Cmp::Ne), t(Type::U32)],
                    vec![q.clone(), c.clone(), Operand::Int(0)],
                );
                b.e(
                    Vote,
                    vec![f(Flag::Sync), f(Flag::Ballot), t(Type::B32)],
                    vec![mi.clone(), q, mi.clone()],
                );
                let uni_mods = if uni { vec![f(Flag::Uni)] } else { vec![] };
                b.emit(
                    Some(Guard {
                        pred: qn,
                        negated: true,
                    }),
                    Bra,
                    uni_mods.clone(),
                    vec![Operand::reg(done)],
                );
                nodes(b, body, depth + 1);
                b.e(Sub, vec![t(Type::U32)], vec![c.clone(), c, Operand::Int(1)]);
                b.e(Bra, uni_mods, vec![Operand::reg(head)]);
                b.place(done);
            }
        }
    }
}

/// Lowers one instruction: its guard, destination and sources here, the opcode and qualifiers
/// (and any rewritten operands) in the file of its family.
pub(super) fn inst(b: &mut B, i: &Inst, depth: u32) {
    let guard = i.guard.map(|(p, neg)| Guard {
        pred: b.name(&format!("%p{p}")),
        negated: neg,
    });
    let sig = signature(&i.op);
    let signed = op_signed(&i.op);
    // `%laneid` goes through a register.
    if i.srcs.contains(&Src::Lane) {
        lane_to_t7(b);
    }
    let mut srcs: Vec<Operand> = Vec::with_capacity(i.srcs.len() + 2);
    for (k, (&s, &c)) in i.srcs.iter().zip(&sig.srcs).enumerate() {
        // Shift amounts and bit positions are unsigned whatever the operation's type.
        let sgn = signed && !(matches!(i.op, Operation::Shr(_) | Operation::Bfe(_)) && k > 0);
        let o = match s {
            Src::Lane => b.r("%t7"),
            s => b.src(s, c, sgn),
        };
        srcs.push(o);
    }
    if sig.pred_src && i.neg_pred {
        if let Some(Operand::Reg { name, .. }) = srcs.last().cloned() {
            *srcs.last_mut().expect("a predicate source") = Operand::Not(name);
        }
    }
    let d = b.reg(i.dst);
    let dst = match i.dst2 {
        Some(d2) => {
            let q = b.reg(d2);
            Operand::Pair(Box::new([d, q]))
        }
        None => d,
    };
    if let Operation::Call {
        f: k,
        n,
        params,
        ret,
        via,
    } = i.op
    {
        call::skip_unless(b, guard, |b| {
            call::call(b, k, &params[..n as usize], ret, via, srcs, dst)
        });
        return;
    }
    if let Operation::Rec { reg } = i.op {
        call::skip_unless(b, guard, |b| call::rec_call(b, reg, srcs, dst));
        return;
    }
    let mut cx = Parts {
        guard,
        ops: vec![dst],
        srcs,
        depth,
    };
    let (op, mods): (Opcode, Vec<Modifier>) = match i.op {
        Operation::Add(_)
        | Operation::Sub(_)
        | Operation::AddSat(_)
        | Operation::MulLo(_)
        | Operation::MulHi(_)
        | Operation::MulWide(_)
        | Operation::MadLo(_)
        | Operation::MadHi(_)
        | Operation::MadWide(_)
        | Operation::MadHiSat
        | Operation::Mul24 { .. }
        | Operation::Mad24 { .. }
        | Operation::Sad(_)
        | Operation::Div(_)
        | Operation::Rem(_)
        | Operation::Abs(_)
        | Operation::Neg(_)
        | Operation::Min(_)
        | Operation::Max(_)
        | Operation::Relu { .. } => int::lower(b, i, &mut cx),
        Operation::Popc(_)
        | Operation::Clz(_)
        | Operation::Brev(_)
        | Operation::Bfind { .. }
        | Operation::Bfe(_)
        | Operation::Bfi(_)
        | Operation::Dp4a { .. }
        | Operation::Dp2a { .. }
        | Operation::Prmt(_)
        | Operation::Bmsk { .. }
        | Operation::Szext { .. }
        | Operation::Fns => bits::lower(i.op),
        Operation::AddCc { .. } | Operation::MadCc { .. } => carry::lower(i.op),
        Operation::And(_)
        | Operation::Or(_)
        | Operation::Xor(_)
        | Operation::Not(_)
        | Operation::Cnot(_)
        | Operation::Lop3(_)
        | Operation::Shf { .. }
        | Operation::Shl(_)
        | Operation::Shr(_) => logic::lower(i.op, &mut cx),
        Operation::Setp { .. }
        | Operation::Set { .. }
        | Operation::Selp(_)
        | Operation::Slct(_) => cmp::lower(i.op),
        Operation::Fbin { .. }
        | Operation::Fma { .. }
        | Operation::Rcp { .. }
        | Operation::Sqrt { .. }
        | Operation::Fabs { .. }
        | Operation::Fneg { .. }
        | Operation::Fminmax { .. }
        | Operation::Copysign(_)
        | Operation::Testp { .. } => float::lower(i.op),
        Operation::Approx { .. } => approx::lower(i.op),
        Operation::Cvt { .. } | Operation::Mov(_) => cvt::lower(i.op),
        Operation::Isspacep { .. } | Operation::CvtaRound { .. } => generic::lower(b, i, &mut cx),
        Operation::Ld { .. } | Operation::St { .. } | Operation::Atom { .. } => {
            mem::lower(b, i, &mut cx)
        }
        Operation::Hbin { .. }
        | Operation::Hfma { .. }
        | Operation::Hsetp { .. }
        | Operation::Hset { .. }
        | Operation::CvtHalfX { .. }
        | Operation::Hsign { .. }
        | Operation::Hminmax { .. }
        | Operation::CvtToHalf { .. }
        | Operation::CvtFromHalf { .. }
        | Operation::CvtPack { .. } => half::lower(i.op),
        Operation::Shfl { .. }
        | Operation::Vote { .. }
        | Operation::Redux { .. }
        | Operation::Activemask
        | Operation::WarpSync
        | Operation::Match { .. } => warp::lower(b, i, &mut cx),
        Operation::PackSat(_)
        | Operation::LdIn { .. }
        | Operation::Hint(_)
        | Operation::Alloca { .. } => hint::lower(b, i, &mut cx),
        Operation::Call { .. } | Operation::Rec { .. } => unreachable!("calls are lowered above"),
    };
    cx.ops.extend(cx.srcs);
    b.emit(cx.guard, op, mods, cx.ops);
}

/// Whether integer immediates of `op` are written signed.
fn op_signed(op: &Operation) -> bool {
    match op {
        Operation::Add(t)
        | Operation::Sub(t)
        | Operation::MulLo(t)
        | Operation::MulHi(t)
        | Operation::MulWide(t)
        | Operation::MadLo(t)
        | Operation::MadHi(t)
        | Operation::MadWide(t)
        | Operation::Sad(t)
        | Operation::Div(t)
        | Operation::Rem(t)
        | Operation::Abs(t)
        | Operation::Neg(t)
        | Operation::Min(t)
        | Operation::Max(t)
        | Operation::Bfe(t)
        | Operation::Shr(t)
        | Operation::AddCc { t, .. }
        | Operation::MadCc { t, .. } => t.signed,
        // `fns`'s offset is `.s32`.
        Operation::Fns => true,
        // `a` and `b` are `.s32` (`c`, `.b32`, is a register).
        Operation::PackSat(_) => true,
        Operation::AddSat(_) | Operation::MadHiSat | Operation::Relu { .. } => true,
        Operation::Setp {
            t: CmpT::Int(x), ..
        }
        | Operation::Set {
            t: CmpT::Int(x), ..
        } => x.signed,
        Operation::Cvt {
            s: CvtT::Int(_, s), ..
        } => *s,
        Operation::CvtHalfX {
            peer: HPeer::Int(_, s),
            to_half: true,
            ..
        } => *s,
        _ => false,
    }
}
