//! What the verifier knows of names: declared variables, registers and parameters ([`Var`]),
//! module-level names ([`Env`]) and the `{ }` scopes of a function ([`Scopes`]). A leaf of the
//! verifier's modules: the context holds these, and the passes read them.

use super::diag::{Diagnostic, Location, Rule};
use crate::module::{Function, Item, Linkage, Module, Param, VarDecl};
use crate::names::{split_range, Name};
use crate::vocab::{Space, Type, Vector};
use rustc_hash::FxHashMap;

/// What the verifier knows of a declared variable, register or parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Var {
    pub space: Space,
    pub ty: Type,
    pub vector: Option<Vector>,
    /// Number of array elements (1 for a scalar, 0 for `[]`).
    pub elems: u64,
}

impl Var {
    pub(crate) fn of_decl(v: &VarDecl, dims: &[Option<u64>]) -> Var {
        Var {
            space: v.space,
            ty: v.ty,
            vector: v.vector,
            elems: elems(dims),
        }
    }

    pub(crate) fn of_param(p: &Param) -> Var {
        Var {
            space: p.space,
            ty: p.ty,
            vector: p.vector,
            elems: elems(&p.dims),
        }
    }

    /// Size in bits of the whole variable (0 when an array dimension is unknown).
    pub fn bits(&self) -> u64 {
        (self.ty.bits() as u64 * vec_len(self.vector) as u64).saturating_mul(self.elems)
    }

    /// Whether this is a register (`.reg` variable or parameter).
    pub fn is_reg(&self) -> bool {
        self.space == Space::Reg
    }
}

pub(crate) fn vec_len(v: Option<Vector>) -> u32 {
    match v {
        None => 1,
        Some(Vector::V2) => 2,
        Some(Vector::V4) => 4,
        Some(Vector::V8) => 8,
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Found<'m> {
    /// A variable, register or parameter (local or module-level).
    Var(Var),
    /// A function.
    Func(&'m Function),
}

/// Module-level names.
pub(crate) struct Env<'m> {
    pub vars: FxHashMap<Name, Var>,
    /// Each function with the item index of its first declaration; the definition is preferred
    /// as the representative.
    pub funcs: FxHashMap<Name, (usize, &'m Function)>,
}

impl<'m> Env<'m> {
    pub(crate) fn new(m: &'m Module) -> Env<'m> {
        let mut vars = FxHashMap::default();
        let mut funcs: FxHashMap<Name, (usize, &'m Function)> = FxHashMap::default();
        for (i, item) in m.items.iter().enumerate() {
            match item {
                Item::Variable(v) => {
                    for d in &v.names {
                        vars.insert(d.name, Var::of_decl(v, &d.dims));
                    }
                }
                Item::Function(f) => {
                    let e = funcs.entry(f.name).or_insert((i, &**f));
                    if f.body.is_some() {
                        e.1 = f;
                    }
                }
                Item::Alias { alias, aliasee } => {
                    if let Some(&(_, f)) = funcs.get(aliasee) {
                        funcs.insert(*alias, (i, f));
                    }
                }
                _ => {}
            }
        }
        Env { vars, funcs }
    }

    /// Module-scope uniqueness: one definition per variable and per function.
    pub(crate) fn module_duplicates(&self, m: &Module, out: &mut Vec<Diagnostic>) {
        let mut vars: FxHashMap<Name, bool> = FxHashMap::default();
        let mut defs: FxHashMap<Name, ()> = FxHashMap::default();
        for (i, item) in m.items.iter().enumerate() {
            let dup = |n: Name, what: &str, out: &mut Vec<Diagnostic>| {
                out.push(Diagnostic {
                    rule: Rule::DuplicateDeclaration,
                    location: Location {
                        item: Some(i),
                        ..Default::default()
                    },
                    inst: None,
                    message: format!(
                        "{what} `{}` is defined twice at module scope",
                        m.names.try_get(n).unwrap_or("?")
                    ),
                });
            };
            match item {
                Item::Variable(v) if v.linkage != Some(Linkage::Extern) => {
                    for d in &v.names {
                        if vars.insert(d.name, true).is_some() {
                            dup(d.name, "variable", out);
                        }
                    }
                }
                Item::Function(f) if f.body.is_some() && defs.insert(f.name, ()).is_some() => {
                    dup(f.name, "function", out);
                }
                _ => {}
            }
        }
    }
}

/// One `{ }` scope.
#[derive(Default)]
pub(crate) struct Scope {
    pub(crate) names: FxHashMap<Name, Var>,
    /// `%r<100>`: prefix spelling -> (count, variable).
    pub(crate) ranges: FxHashMap<Box<str>, (u32, Var)>,
    /// For the names of `names` that could be members of a range (`%r12`): prefix spelling ->
    /// the least index, so that a range declared after them finds a clash in one lookup.
    pub(crate) least: FxHashMap<Box<str>, u64>,
}

/// The stack of scopes of a function.
#[derive(Default)]
pub(crate) struct Scopes {
    stack: Vec<Scope>,
}

impl Scopes {
    pub(crate) fn push(&mut self) {
        self.stack.push(Scope::default());
    }

    pub(crate) fn pop(&mut self) {
        self.stack.pop();
    }

    pub(crate) fn top(&mut self) -> &mut Scope {
        if self.stack.is_empty() {
            self.push();
        }
        self.stack.last_mut().expect("pushed above")
    }

    /// Looks `n` (spelled `s`) up from the innermost scope out.
    pub(crate) fn lookup(&self, n: Name, s: &str) -> Option<Var> {
        let split = split_range(s);
        for sc in self.stack.iter().rev() {
            if let Some(v) = sc.names.get(&n) {
                return Some(*v);
            }
            if let Some((prefix, idx)) = split {
                if let Some((count, v)) = sc.ranges.get(prefix) {
                    if idx < *count as u64 {
                        return Some(*v);
                    }
                }
            }
        }
        None
    }
}

/// The element count of `dims` (saturating: sizes beyond 64 bits are reported by
/// `scope::check_decl_size`).
pub(crate) fn elems(dims: &[Option<u64>]) -> u64 {
    dims.iter()
        .map(|d| d.unwrap_or(0))
        .fold(1, u64::saturating_mul)
}
