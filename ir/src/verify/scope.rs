//! Declarations and scoping: module variables and functions, parameters, `{ }` scopes with
//! `.reg` ranges (`%r<100>` declares `%r0` .. `%r99`), labels, and uniqueness.

use super::cx::{Cx, FnCx};
use super::diag::Rule;
use super::env::{vec_len, Found, Var};
use crate::form::{Form, OperandKind};
use crate::inst::Instruction;
use crate::module::{Linkage, Statement, VarDecl};
use crate::names::{split_range, Name};
use crate::operand::Operand;
use rustc_hash::FxHashMap;

/// Bytes of one element of `d` (its type times its vector length).
fn elem_bytes(d: &VarDecl) -> u64 {
    u64::from(d.ty.bits()).div_ceil(8) * u64::from(vec_len(d.vector))
}

/// The size in bytes of `decl` of `d`, `None` if it does not fit in 64 bits. A `[]` dimension
/// counts the elements of the initialiser where there is one (a one-dimensional array), else 0.
fn declared_bytes(d: &VarDecl, decl: &crate::module::Declarator) -> Option<u64> {
    use crate::module::Init;
    let elem = elem_bytes(d);
    let mut n = 1u64;
    for dim in &decl.dims {
        let k = match (dim, &decl.init, decl.dims.len()) {
            (Some(k), _, _) => *k,
            (None, Some(Init::List(items)), 1) => items.len() as u64,
            (None, Some(Init::Packed(bytes)), 1) => {
                return Some(bytes.len() as u64);
            }
            (None, _, _) => 0,
        };
        n = n.checked_mul(k)?;
    }
    n.checked_mul(elem)
}

/// An array must be at most 2^64-1 bytes: ptxas takes any size up to that (its allocation
/// fails later, or not at all for an unused array) and refuses a larger one with "Constant
/// overflow". A single literal over 64 bits does not read; this catches dimensions whose
/// product is too large.
pub(crate) fn check_decl_size(cx: &mut Cx<'_>, d: &VarDecl) {
    for decl in &d.names {
        if decl.dims.is_empty() || declared_bytes(d, decl).is_some() {
            continue;
        }
        let dims: Vec<String> = decl
            .dims
            .iter()
            .map(|k| k.map_or_else(String::new, |k| k.to_string()))
            .collect();
        let msg = format!(
            "array `{}[{}]` of {}-byte elements is larger than 2^64-1 bytes (ptxas: \
             Constant overflow)",
            cx.name(decl.name),
            dims.join("]["),
            elem_bytes(d)
        );
        cx.report(Rule::ArraySize, None, msg);
    }
}

/// The `.const` bank of a module: 64 KiB.
pub(crate) const CONST_BANK_BYTES: u64 = 65_536;

/// The `.const` data a module defines so far, reported once when it passes the bank's size.
#[derive(Default)]
pub(crate) struct ConstBytes {
    total: u64,
    reported: bool,
}

impl ConstBytes {
    /// Adds module variable `d` (an `.extern` one is defined elsewhere and takes no room).
    pub(crate) fn add(&mut self, cx: &mut Cx<'_>, d: &VarDecl) {
        if d.space != crate::vocab::Space::Const || d.linkage == Some(Linkage::Extern) {
            return;
        }
        for decl in &d.names {
            let bytes = declared_bytes(d, decl).unwrap_or(u64::MAX);
            self.total = self.total.saturating_add(bytes);
        }
        if self.total > CONST_BANK_BYTES && !self.reported {
            self.reported = true;
            let msg = format!(
                "the module's `.const` data reaches {} bytes here, more than the {} bytes of \
                 the constant bank (ptxas: File uses too much global constant data)",
                if self.total == u64::MAX {
                    "2^64".to_string()
                } else {
                    self.total.to_string()
                },
                CONST_BANK_BYTES
            );
            cx.report(Rule::ConstSize, None, msg);
        }
    }
}

/// Resolves a name in the function's scopes, then at module scope.
pub(crate) fn resolve<'m>(cx: &Cx<'m>, fx: &FnCx<'m>, n: Name) -> Option<Found<'m>> {
    let s = cx.name(n);
    if let Some(v) = fx.scopes.lookup(n, s) {
        return Some(Found::Var(v));
    }
    if let Some(v) = cx.env.vars.get(&n) {
        return Some(Found::Var(*v));
    }
    cx.env.funcs.get(&n).map(|&(_, f)| Found::Func(f))
}

/// The declared variable or register `n`, if any.
pub(crate) fn var<'m>(cx: &Cx<'m>, fx: &FnCx<'m>, n: Name) -> Option<Var> {
    match resolve(cx, fx, n) {
        Some(Found::Var(v)) => Some(v),
        _ => None,
    }
}

/// Pushes the parameter scope of a function.
pub(crate) fn enter_function<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>) {
    fx.scopes.push();
    let f = fx.func;
    let mut seen: FxHashMap<Name, ()> = FxHashMap::default();
    for p in f.returns.iter().chain(f.params.iter()).flatten() {
        if cx.name(p.name) == "_" {
            continue;
        }
        if seen.insert(p.name, ()).is_some() && f.body.is_some() {
            let msg = format!("parameter `{}` is declared twice", cx.name(p.name));
            cx.report(Rule::DuplicateDeclaration, None, msg);
        }
        fx.scopes.top().names.insert(p.name, Var::of_param(p));
    }
}

/// Collects the function's labels (every nesting level: labels are function-wide) and reports
/// duplicates.
pub(crate) fn collect_labels<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, body: &'m [Statement]) {
    fn walk<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, body: &'m [Statement], counter: &mut usize) {
        for s in body {
            let here = *counter;
            *counter += 1;
            let label = match s {
                Statement::Label(l)
                | Statement::BranchTargets { label: l, .. }
                | Statement::CallTargets { label: l, .. }
                | Statement::CallPrototype { label: l, .. } => Some(*l),
                Statement::Block(b) => {
                    walk(cx, fx, b, counter);
                    None
                }
                _ => None,
            };
            if let Some(l) = label {
                if !fx.labels.insert(l) {
                    let saved = cx.stmt;
                    cx.stmt = Some(here);
                    let msg = format!("label `{}` is defined twice", cx.name(l));
                    cx.report(Rule::DuplicateLabel, None, msg);
                    cx.stmt = saved;
                }
            }
        }
    }
    let mut counter = 0;
    walk(cx, fx, body, &mut counter);
}

/// Declares the names of a body declaration in the innermost scope.
pub(crate) fn declare<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, d: &'m VarDecl) {
    for decl in &d.names {
        let v = Var::of_decl(d, &decl.dims);
        let spelled = cx.name(decl.name);
        let dup = match decl.range {
            Some(count) => {
                let top = fx.scopes.top();
                let clash = top.ranges.contains_key(spelled)
                    || top.least.get(spelled).is_some_and(|&i| i < count as u64);
                top.ranges.insert(spelled.into(), (count, v));
                clash
            }
            None => {
                let top = fx.scopes.top();
                let split = split_range(spelled);
                let in_range = split
                    .is_some_and(|(p, i)| top.ranges.get(p).is_some_and(|(c, _)| i < *c as u64));
                if let Some((p, i)) = split {
                    match top.least.get_mut(p) {
                        Some(least) => *least = (*least).min(i),
                        None => {
                            top.least.insert(p.into(), i);
                        }
                    }
                }
                top.names.insert(decl.name, v).is_some() || in_range
            }
        };
        if dup {
            let what = match decl.range {
                Some(n) => format!("`{spelled}<{n}>`"),
                None => format!("`{spelled}`"),
            };
            cx.report(
                Rule::DuplicateDeclaration,
                None,
                format!("{what} is declared twice in the same scope"),
            );
        }
    }
}

/// `.align N` must be a power of two.
pub(crate) fn check_decl_align(cx: &mut Cx<'_>, d: &VarDecl) {
    if let Some(a) = d.align {
        if !a.is_power_of_two() {
            cx.report(
                Rule::Alignment,
                None,
                format!("`.align {a}` is not a power of two"),
            );
        }
    }
}

/// Every name an instruction uses outside its label operands must be declared in scope.
pub(crate) fn names<'m>(cx: &mut Cx<'m>, fx: &FnCx<'m>, inst: &'m Instruction, form: &Form) {
    let mut missing: Vec<(Name, bool)> = Vec::new();
    if let Some(g) = inst.guard {
        if resolve(cx, fx, g.pred).is_none() {
            missing.push((g.pred, true));
        }
    }
    let mut i = 0;
    for spec in &form.operands {
        let Some(o) = inst.operands.get(i) else { break };
        if !spec.kind.accepts(o) {
            if spec.optional {
                continue;
            }
            break;
        }
        i += 1;
        if spec.kind == OperandKind::Label {
            continue;
        }
        operand_names(cx, fx, o, &mut missing);
    }
    for (n, reg) in missing {
        let s = cx.name(n);
        let rule = if reg || s.starts_with('%') {
            Rule::UndeclaredRegister
        } else {
            Rule::UndeclaredSymbol
        };
        let what = if rule == Rule::UndeclaredRegister {
            "register"
        } else {
            "symbol"
        };
        cx.report(
            rule,
            Some(inst),
            format!("{what} `{s}` is not declared in scope"),
        );
    }
}

fn operand_names<'m>(cx: &Cx<'m>, fx: &FnCx<'m>, o: &Operand, missing: &mut Vec<(Name, bool)>) {
    let mut check = |n: Name, reg: bool| {
        if resolve(cx, fx, n).is_none() && !missing.iter().any(|(m, _)| *m == n) {
            missing.push((n, reg));
        }
    };
    match o {
        Operand::Reg { name, .. } | Operand::Not(name) => check(*name, false),
        Operand::Sym { name, .. } => check(*name, false),
        Operand::Addr { base: Some(b), .. } => check(*b, false),
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            for x in v.iter() {
                operand_names(cx, fx, x, missing);
            }
        }
        Operand::Pair(p) => {
            for x in p.iter() {
                operand_names(cx, fx, x, missing);
            }
        }
        Operand::Neg(x) => operand_names(cx, fx, x, missing),
        _ => {}
    }
}
