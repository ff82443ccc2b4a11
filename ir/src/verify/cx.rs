//! The verifier's state while it walks a module ([`Cx`]) and a function ([`FnCx`]), and how
//! a finding is reported. The passes take these; the walk that drives them is in the parent.

use super::diag::{Diagnostic, Location, Rule};
use super::env::{Env, Scopes};
use super::render::render_instruction;
use super::target;
use crate::inst::Instruction;
use crate::module::{Function, Module};
use crate::names::Name;

/// Verifier state while walking a module.
pub(crate) struct Cx<'m> {
    pub(crate) m: &'m Module,
    pub(crate) env: Env<'m>,
    pub(crate) out: Vec<Diagnostic>,
    pub(crate) tc: target::TargetCx,
    pub(crate) item: Option<usize>,
    pub(crate) func: Option<&'m Function>,
    pub(crate) stmt: Option<usize>,
    /// Every function body's `.cta_group` and direct callees.
    pub(crate) calls: Vec<CallNode>,
}

/// A defined function in the call graph of the `.cta_group` rule.
pub(crate) struct CallNode {
    pub(crate) name: Name,
    pub(crate) item: Option<usize>,
    pub(crate) entry: bool,
    pub(crate) group: Option<crate::vocab::Flag>,
    pub(crate) callees: Vec<Name>,
}

/// Per-function state: scopes, labels, and the lists declared so far.
pub(crate) struct FnCx<'m> {
    pub(crate) func: &'m Function,
    pub(crate) scopes: Scopes,
    /// Every label of the function (including those naming target lists).
    pub(crate) labels: rustc_hash::FxHashSet<Name>,
    /// `.branchtargets` lists seen so far, by label.
    pub(crate) branch_targets: rustc_hash::FxHashSet<Name>,
    /// `.calltargets` lists seen so far, by label.
    pub(crate) call_targets: rustc_hash::FxHashMap<Name, &'m [Name]>,
    /// `.callprototype`s seen so far, by label.
    pub(crate) prototypes: rustc_hash::FxHashMap<Name, &'m crate::module::Prototype>,
    /// The `.cta_group` of the function's first tcgen05 instruction that names one.
    pub(crate) cta_group: Option<crate::vocab::Flag>,
    /// `.param` variables that a call so far received its return value in.
    pub(crate) call_returns: rustc_hash::FxHashSet<Name>,
    /// Functions called directly, for the `.cta_group` rule across calls.
    pub(crate) callees: Vec<Name>,
}

impl<'m> Cx<'m> {
    pub(crate) fn name(&self, n: Name) -> &'m str {
        self.m.names.try_get(n).unwrap_or("<bad name>")
    }

    pub(crate) fn location(&self) -> Location {
        Location {
            item: self.item,
            function: self.func.map(|f| self.name(f.name).to_string()),
            stmt: self.stmt,
        }
    }

    /// Reports a finding about the current statement.
    pub(crate) fn report(&mut self, rule: Rule, inst: Option<&Instruction>, message: String) {
        let inst = inst.map(|i| render_instruction(self.m, i));
        let location = self.location();
        self.out.push(Diagnostic {
            rule,
            location,
            inst,
            message,
        });
    }
}
