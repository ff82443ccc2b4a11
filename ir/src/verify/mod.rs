//! The verifier: checks a module against PTX's static rules — declarations and scoping, operand
//! types, immediates, vector widths, labels and call targets, state spaces, and the target and
//! PTX ISA version each instruction needs ([`crate::avail`]).
//!
//! The result is a list of [`Diagnostic`]s, each naming its rule by a stable id
//! ([`Rule::id`]), the instruction in its printed form and where it is: the function and the
//! statement's pre-order index in the body (a `{ }` block counts before the statements inside
//! it). The IR carries no source spans; a reader that records statement offsets
//! (`ptx_ir_text::parse_with_spans`) maps that index to a line and column.
//!
//! The checks are conservative: where the verifier cannot tell (a generic address, an operand
//! type rule it does not model) it says nothing, so that every module `ptxas` accepts verifies
//! clean.

mod control;
mod cx;
mod diag;
mod env;
mod render;
mod scope;
mod space;
pub mod target;
mod types;

use cx::{CallNode, Cx, FnCx};
pub use diag::{Diagnostic, Location, Options, Rule, Severity};
use env::{Env, Scopes};

pub(crate) use render::render_instruction;
pub use target::{requirements, Requirements};

use crate::inst::Instruction;
use crate::module::{Function, Item, Module, Statement};
use crate::names::Name;

/// Verifies `m` against its own target and version.
pub fn verify(m: &Module) -> Vec<Diagnostic> {
    verify_with(m, &Options::default())
}

/// Verifies `m` with `opts`.
pub fn verify_with(m: &Module, opts: &Options) -> Vec<Diagnostic> {
    let mut cx = Cx {
        m,
        env: Env::new(m),
        out: Vec::new(),
        tc: target::TargetCx::new(m, opts),
        item: None,
        func: None,
        stmt: None,
        calls: Vec::new(),
    };
    cx.env.module_duplicates(m, &mut cx.out);
    cx.tc.check_header(m, &mut cx.out);
    let mut const_bytes = scope::ConstBytes::default();
    for (idx, item) in m.items.iter().enumerate() {
        cx.item = Some(idx);
        match item {
            Item::Function(f) => cx.function(f),
            Item::Variable(v) => {
                cx.func = None;
                cx.stmt = None;
                scope::check_decl_align(&mut cx, v);
                scope::check_decl_size(&mut cx, v);
                control::table_init(&mut cx, v);
                const_bytes.add(&mut cx, v);
                cx.tc.check_decl(
                    v,
                    &mut cx.out,
                    &Location {
                        item: Some(idx),
                        ..Default::default()
                    },
                );
            }
            _ => {}
        }
    }
    cta_group_across_calls(&mut cx);
    cx.out
}

/// `.cta_group` across calls: "All tcgen05 instructions within a kernel must specify the same
/// value" (seed 004), and ptxas rejects a kernel whose callees give another one than it does.
/// Each function's set of groups reachable through direct calls (two bits, each with the
/// function that gives it) is propagated from callees to callers over a worklist: a set grows
/// at most twice, so the work is linear in the number of functions and calls, whatever the
/// depth of the call graph.
fn cta_group_across_calls(cx: &mut Cx<'_>) {
    use crate::vocab::Flag;
    let nodes = std::mem::take(&mut cx.calls);
    if !nodes.iter().any(|n| n.group.is_some()) {
        return;
    }
    let index: rustc_hash::FxHashMap<Name, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.name, i)).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in &n.callees {
            if let Some(&j) = index.get(c) {
                callers[j].push(i);
            }
        }
    }
    let bit = |g: Flag| usize::from(g == Flag::CtaGroup2);
    // witness[f][b]: a function reachable from f whose tcgen05 instructions give group b.
    let mut witness: Vec<[Option<usize>; 2]> = vec![[None; 2]; nodes.len()];
    let mut work = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(g) = n.group {
            witness[i][bit(g)] = Some(i);
            work.push(i);
        }
    }
    while let Some(f) = work.pop() {
        for &c in &callers[f] {
            let from = witness[f];
            let mut grew = false;
            for (to, w) in witness[c].iter_mut().zip(from) {
                if to.is_none() && w.is_some() {
                    *to = w;
                    grew = true;
                }
            }
            if grew {
                work.push(c);
            }
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        let (Some(one), Some(two)) = (witness[i][0], witness[i][1]) else {
            continue;
        };
        if !n.entry {
            continue;
        }
        let name = cx.name(n.name).to_string();
        let msg = format!(
            "kernel `{name}` reaches `.cta_group::1` tcgen05 instructions in `{}` and \
             `.cta_group::2` ones in `{}`: all tcgen05 instructions within a kernel must give \
             the same `.cta_group`",
            cx.name(nodes[one].name),
            cx.name(nodes[two].name),
        );
        cx.out.push(Diagnostic {
            rule: Rule::CtaGroupMismatch,
            location: Location {
                item: n.item,
                function: Some(name),
                stmt: None,
            },
            inst: None,
            message: msg,
        });
    }
}

impl<'m> Cx<'m> {
    fn function(&mut self, f: &'m Function) {
        self.func = Some(f);
        self.stmt = None;
        let loc = self.location();
        self.tc.check_function(f, self.m, &mut self.out, &loc);
        function_directives(self, f);
        let mut fx = FnCx {
            func: f,
            scopes: Scopes::default(),
            labels: Default::default(),
            branch_targets: Default::default(),
            call_targets: Default::default(),
            prototypes: Default::default(),
            cta_group: None,
            call_returns: Default::default(),
            callees: Vec::new(),
        };
        scope::enter_function(self, &mut fx);
        if let Some(body) = f.statements() {
            scope::collect_labels(self, &mut fx, body);
            let mut counter = 0usize;
            self.block(&mut fx, body, &mut counter);
            self.calls.push(CallNode {
                name: f.name,
                item: self.item,
                entry: f.kind == crate::module::FunctionKind::Entry,
                group: fx.cta_group,
                callees: std::mem::take(&mut fx.callees),
            });
        }
        self.stmt = None;
    }

    fn block(&mut self, fx: &mut FnCx<'m>, body: &'m [Statement], counter: &mut usize) {
        fx.scopes.push();
        for s in body {
            self.stmt = Some(*counter);
            *counter += 1;
            match s {
                Statement::Inst(i) => self.instruction(fx, i),
                Statement::Decl(d) => {
                    scope::declare(self, fx, d);
                    scope::check_decl_align(self, d);
                    scope::check_decl_size(self, d);
                    control::table_init(self, d);
                    let loc = self.location();
                    self.tc.check_decl(d, &mut self.out, &loc);
                }
                Statement::Block(b) => self.block(fx, b, counter),
                Statement::BranchTargets { label, targets } => {
                    control::branch_targets(self, fx, *label, targets)
                }
                Statement::CallTargets { label, targets } => {
                    control::call_targets(self, fx, *label, targets)
                }
                Statement::CallPrototype { label, proto } => {
                    fx.prototypes.insert(*label, proto);
                }
                Statement::Label(_) | Statement::Loc(_) | Statement::Pragma(_) => {}
            }
        }
        fx.scopes.pop();
    }

    fn instruction(&mut self, fx: &mut FnCx<'m>, inst: &'m Instruction) {
        let form = match crate::check::check(inst.opcode, &inst.mods, &inst.operands) {
            Ok(f) => f,
            Err(e) => {
                self.report(Rule::BadForm, Some(inst), e.to_string());
                return;
            }
        };
        scope::names(self, fx, inst, form);
        types::check(self, fx, inst, form);
        control::check(self, fx, inst);
        space::check(self, fx, inst);
        cta_group(self, fx, inst);
        setmaxnreg_dec(self, fx, inst);
        let loc = self.location();
        let before = self.out.len();
        self.tc.check_instruction(inst, &mut self.out, &loc);
        if self.out.len() > before {
            let rendered = render_instruction(self.m, inst);
            for d in &mut self.out[before..] {
                d.inst = Some(rendered.clone());
            }
        }
    }
}

/// Whether the verifier checks the operand types of `inst` (the opcodes whose operand typing it
/// models; the others are only checked for declarations, spaces, targets and versions).
pub fn checks_operand_types(inst: &Instruction) -> bool {
    types::expectations(inst).is_some()
}

/// Whether the diagnostics contain an error (not only warnings).
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity() == Severity::Error)
}

/// `.reqnctapercluster` is for kernel entries only and cannot be combined with `.maxclusterrank`
/// (seed 003, "Cluster Dimension Directives").
fn function_directives(cx: &mut Cx<'_>, f: &Function) {
    use crate::module::{FuncDirective as D, FunctionKind};
    let req = f
        .directives
        .iter()
        .any(|d| matches!(d, D::ReqNctaPerCluster(_)));
    if !req {
        return;
    }
    if f.kind == FunctionKind::Func {
        let msg = "`.reqnctapercluster` on a `.func`: it is allowed on kernel entries only".into();
        cx.report(Rule::FunctionDirective, None, msg);
    }
    if f.directives
        .iter()
        .any(|d| matches!(d, D::MaxClusterRank(_)))
    {
        let msg =
            "`.reqnctapercluster` and `.maxclusterrank` on one kernel: they cannot be combined"
                .into();
        cx.report(Rule::FunctionDirective, None, msg);
    }
}

/// `setmaxnreg.dec` releases registers, so its count is at most the warp's current one (seed
/// 003): in a kernel with `.maxnreg N` a `.dec` above `N` cannot hold, and ptxas rejects it
/// ("setmaxnreg.dec has register count (160) which is larger than the largest temporal register
/// count in the program (128)"). Without `.maxnreg` the count is ptxas's choice; `ptx run`
/// checks what it can know.
fn setmaxnreg_dec(cx: &mut Cx<'_>, fx: &FnCx<'_>, inst: &Instruction) {
    use crate::module::FuncDirective;
    if inst.opcode != crate::table::Opcode::Setmaxnreg || !inst.has(crate::vocab::Op::Dec) {
        return;
    }
    let Some(max) = fx.func.directives.iter().find_map(|d| match d {
        FuncDirective::MaxNreg(n) => Some(*n),
        _ => None,
    }) else {
        return;
    };
    let n = match inst.operands.first() {
        Some(crate::operand::Operand::Int(v)) => *v as u64,
        Some(crate::operand::Operand::Uint(v)) => *v,
        _ => return,
    };
    if n > u64::from(max) {
        let msg = format!(
            "`setmaxnreg.dec` to {n} registers in a kernel of `.maxnreg {max}`: `.dec` releases \
             registers, the current count must be >= imm-reg-count"
        );
        cx.report(Rule::ImmediateRange, Some(inst), msg);
    }
}

/// All tcgen05 instructions of a kernel must give the same `.cta_group` (PTX ISA 9.7.16.7.1):
/// within a function here, across the calls of a kernel in [`cta_group_across_calls`].
fn cta_group<'m>(cx: &mut Cx<'m>, fx: &mut FnCx<'m>, inst: &'m Instruction) {
    use crate::vocab::Flag;
    if inst.opcode.family() != crate::table::Family::Tcgen05 {
        return;
    }
    let g = if inst.has(Flag::CtaGroup1) {
        Flag::CtaGroup1
    } else if inst.has(Flag::CtaGroup2) {
        Flag::CtaGroup2
    } else {
        return;
    };
    match fx.cta_group {
        None => fx.cta_group = Some(g),
        Some(first) if first != g => {
            let msg = format!(
                "`.{}` here but `.{}` earlier in the function: all tcgen05 instructions of a \
                 kernel must give the same `.cta_group`",
                g.as_str(),
                first.as_str()
            );
            cx.report(Rule::CtaGroupMismatch, Some(inst), msg);
        }
        Some(_) => {}
    }
}
