//! Labels, `brx.idx` and `.branchtargets`, calls with `.calltargets` / `.callprototype` / call
//! tables, and call signatures.

use super::cx::{Cx, FnCx};
use super::diag::Rule;
use super::env::{Found, Var};
use super::scope;
use crate::inst::Instruction;
use crate::module::{Param, VarDecl};
use crate::names::Name;
use crate::operand::Operand;
use crate::table::Opcode;
use crate::vocab::{Space, Type};

pub(crate) fn check<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, inst: &'m Instruction) {
    match inst.opcode {
        Opcode::Bra => {
            if let Some(l) = inst.operands.first().and_then(Operand::as_name) {
                label_target(cx, fx, inst, l);
            }
        }
        Opcode::BrxIdx => {
            // PTX ISA 9.7.12.4: "The index operand is a .u32 register": ptxas 13.0 rejects a
            // 16- or 64-bit register but takes an immediate index (corpus/spec/001).
            if let Some(n) = inst.operands.first().and_then(Operand::as_name) {
                if let Some(v) = scope::var(cx, fx, n).filter(Var::is_reg) {
                    if !super::types::strict_ok(Type::U32, v.ty) || v.vector.is_some() {
                        let msg = format!(
                            "index `{}` has type `.{}`; the `brx.idx` index is a `.u32` register",
                            cx.name(n),
                            v.ty.as_str()
                        );
                        cx.report(Rule::OperandType, Some(inst), msg);
                    }
                }
            }
            if let Some(l) = inst.operands.get(1).and_then(Operand::as_name) {
                if !fx.branch_targets.contains(&l) {
                    let what = if fx.labels.contains(&l) {
                        "is not a `.branchtargets` list declared before this instruction"
                    } else {
                        "is not a label of this function"
                    };
                    let msg = format!("`{}` {what}", cx.name(l));
                    cx.report(Rule::BranchTargets, Some(inst), msg);
                }
            }
        }
        Opcode::Call => call(cx, fx, inst),
        Opcode::Ld if inst.guard.is_some() && inst.space() == Some(Space::Param) => {
            // Found by running generated kernels through ptxas: a call's return value must be
            // loaded unconditionally (branch around the call sequence instead).
            if let Some(Operand::Addr { base: Some(b), .. }) = inst.operands.get(1) {
                if fx.call_returns.contains(b) {
                    let msg = format!(
                        "`{}` receives a call's return value; ptxas does not allow a predicated `ld.param` of it",
                        cx.name(*b)
                    );
                    cx.report(Rule::PredicatedParamLoad, Some(inst), msg);
                }
            }
        }
        _ => {}
    }
}

fn label_target<'m>(cx: &mut Cx<'m>, fx: &FnCx<'m>, inst: &'m Instruction, l: Name) {
    if fx.labels.contains(&l) {
        return;
    }
    let elsewhere =
        cx.m.functions()
            .any(|f| f.name != fx.func.name && f.statements().is_some_and(|b| has_label(b, l)));
    let msg = if elsewhere {
        format!("label `{}` belongs to another function", cx.name(l))
    } else {
        format!("label `{}` is not defined in this function", cx.name(l))
    };
    cx.report(Rule::UndeclaredLabel, Some(inst), msg);
}

fn has_label(body: &[crate::module::Statement], l: Name) -> bool {
    use crate::module::Statement as S;
    body.iter().any(|s| match s {
        S::Label(x) => *x == l,
        S::Block(b) => has_label(b, l),
        _ => false,
    })
}

/// `label: .branchtargets L1, L2, ...`: every target a label of this function.
pub(crate) fn branch_targets<'m>(
    cx: &mut Cx<'m>,
    fx: &mut FnCx<'m>,
    label: Name,
    targets: &'m [Name],
) {
    for &t in targets {
        if !fx.labels.contains(&t) {
            let msg = format!(
                "`.branchtargets` entry `{}` is not a label of this function",
                cx.name(t)
            );
            cx.report(Rule::UndeclaredLabel, None, msg);
        }
    }
    fx.branch_targets.insert(label);
}

/// `label: .calltargets f1, f2, ...`: every entry a function declared before this one.
pub(crate) fn call_targets<'m>(
    cx: &mut Cx<'m>,
    fx: &mut FnCx<'m>,
    label: Name,
    targets: &'m [Name],
) {
    let here = cx.location().item.unwrap_or(usize::MAX);
    for &t in targets {
        match cx.env.funcs.get(&t) {
            Some(&(first, _)) if first <= here => {}
            Some(_) => {
                let msg = format!(
                    "`.calltargets` entry `{}` is declared after its use",
                    cx.name(t)
                );
                cx.report(Rule::CallTargets, None, msg);
            }
            None => {
                let msg = format!("`.calltargets` entry `{}` is not a function", cx.name(t));
                cx.report(Rule::CallTargets, None, msg);
            }
        }
    }
    fx.call_targets.insert(label, targets);
}

/// A call table (a variable initialised with function names): every function it names must be
/// declared before it (PTX ISA 9.7.12.5: "All functions must be declared prior to being
/// referenced in a call table initializer or .calltargets directive").
pub(crate) fn table_init(cx: &mut Cx<'_>, v: &VarDecl) {
    let here = cx.location().item.unwrap_or(usize::MAX);
    for d in &v.names {
        let Some(init) = &d.init else { continue };
        let mut names = Vec::new();
        init.for_each_name(&mut |n| names.push(n));
        for n in names {
            if let Some(&(first, _)) = cx.env.funcs.get(&n) {
                if first > here {
                    let msg = format!(
                        "call table `{}` names function `{}`, which is declared after it",
                        cx.name(d.name),
                        cx.name(n)
                    );
                    cx.report(Rule::CallTargets, None, msg);
                }
            }
        }
    }
}

fn call<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, inst: &'m Instruction) {
    // call{.uni} (rets)?, target, (args)?, list?
    let ops = &inst.operands;
    let mut i = 0;
    let rets = match ops.first() {
        Some(Operand::Args(a)) => {
            i = 1;
            Some(&a[..])
        }
        _ => None,
    };
    fx.call_returns
        .extend(rets.into_iter().flatten().filter_map(Operand::as_name));
    let Some(target) = ops.get(i).and_then(Operand::as_name) else {
        return;
    };
    i += 1;
    let args = match ops.get(i) {
        Some(Operand::Args(a)) => {
            i += 1;
            Some(&a[..])
        }
        _ => None,
    };
    let list = ops.get(i).and_then(Operand::as_name);
    match scope::resolve(cx, fx, target) {
        Some(Found::Func(f)) => {
            fx.callees.push(f.name);
            if list.is_some() {
                let msg = format!(
                    "a direct call of `{}` takes no call-target list",
                    cx.name(target)
                );
                cx.report(Rule::CallTargets, Some(inst), msg);
            }
            signature(
                cx,
                fx,
                inst,
                f.returns.as_deref(),
                f.params.as_deref(),
                rets,
                args,
            );
        }
        Some(Found::Var(v)) if v.is_reg() => {
            let Some(list) = list else {
                let msg = "an indirect call needs a `.calltargets`, `.callprototype` or call table"
                    .to_string();
                cx.report(Rule::CallTargets, Some(inst), msg);
                return;
            };
            if let Some(p) = fx.prototypes.get(&list).copied() {
                signature(
                    cx,
                    fx,
                    inst,
                    p.returns.as_deref(),
                    p.params.as_deref(),
                    rets,
                    args,
                );
            } else if let Some(targets) = fx.call_targets.get(&list).copied() {
                if let Some(&(_, f)) = targets.first().and_then(|t| cx.env.funcs.get(t)) {
                    signature(
                        cx,
                        fx,
                        inst,
                        f.returns.as_deref(),
                        f.params.as_deref(),
                        rets,
                        args,
                    );
                }
            } else if matches!(
                scope::var(cx, fx, list),
                Some(Var {
                    space: Space::Global | Space::Const,
                    ..
                })
            ) {
                // A call table: an array initialised with function names.
            } else {
                let msg = format!(
                    "`{}` is not a `.calltargets` list, `.callprototype` or call table declared before this call",
                    cx.name(list)
                );
                cx.report(Rule::CallTargets, Some(inst), msg);
            }
        }
        Some(Found::Var(_)) => {
            let msg = format!("`{}` is not a function or a register", cx.name(target));
            cx.report(Rule::UndeclaredFunction, Some(inst), msg);
        }
        None => {
            let msg = format!("function `{}` is not declared", cx.name(target));
            cx.report(Rule::UndeclaredFunction, Some(inst), msg);
        }
    }
}

fn signature<'m>(
    cx: &mut Cx<'m>,
    fx: &FnCx<'m>,
    inst: &'m Instruction,
    want_rets: Option<&[Param]>,
    want_args: Option<&[Param]>,
    rets: Option<&[Operand]>,
    args: Option<&[Operand]>,
) {
    for (what, want, got) in [
        ("return values", want_rets, rets),
        ("arguments", want_args, args),
    ] {
        let want = want.unwrap_or(&[]);
        let got = got.unwrap_or(&[]);
        if want.len() != got.len() {
            let msg = format!(
                "the callee takes {} {what}; {} given",
                want.len(),
                got.len()
            );
            cx.report(Rule::CallSignature, Some(inst), msg);
            continue;
        }
        for (k, (p, o)) in want.iter().zip(got).enumerate() {
            let Some(n) = o.as_name() else { continue };
            let Some(actual) = scope::var(cx, fx, n) else {
                continue;
            };
            // PTX ISA 9.7.12.5: "Arguments may be registers, immediate constants, or variables
            // in .param space."
            if !matches!(actual.space, Space::Reg | Space::Param) {
                let msg = format!(
                    "{} {} `{}` is a `.{}` variable; call operands are registers, immediates or `.param` variables",
                    what.trim_end_matches('s'),
                    k + 1,
                    cx.name(n),
                    actual.space.as_str()
                );
                cx.report(Rule::CallSignature, Some(inst), msg);
                continue;
            }
            let formal = Var::of_param(p);
            if formal.bits() != 0 && actual.bits() != 0 && formal.bits() != actual.bits() {
                let msg = format!(
                    "{} {} `{}` has {} bits; the parameter has {}",
                    what.trim_end_matches('s'),
                    k + 1,
                    cx.name(n),
                    actual.bits(),
                    formal.bits()
                );
                cx.report(Rule::CallSignature, Some(inst), msg);
            }
        }
    }
}
