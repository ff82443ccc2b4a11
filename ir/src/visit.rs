//! Walking every name of a module in print order, and renumbering names into that order.
//!
//! The reader interns names in source order, so a parsed module's interner lists names in the
//! order the printer writes them. IR built in memory (by a compiler, a fuzzer or a rewrite) can
//! intern names in any order and hold names no longer used; [`renumber_names`] rebuilds the
//! interner in print order so that such a module equals the result of printing and re-reading
//! it.

use crate::body::{Body, PlainShape, Stmt};
use crate::module::Module;
use crate::names::{Interner, Name};

/// One definition of the walk, instantiated for shared and for mutable access so the two can
/// never disagree on the order.
macro_rules! walker {
    ($modname:ident, [$($m:ident)?], $iter_expr:ident, $iter_inst:ident, $body_fn:ident) => {
        mod $modname {
            use crate::module::{DataValue, Declarator, Function, Init, Item, Module, Param, SectionEntry, Statement, VarDecl};
            use crate::names::Name;

            pub fn module(m: &$($m)? Module, f: &mut impl FnMut(&$($m)? Name)) {
                items(&$($m)? m.items, f);
            }

            pub fn items(items: &$($m)? [Item], f: &mut impl FnMut(&$($m)? Name)) {
                for item in items {
                    match item {
                        Item::Function(func) => function(func, f),
                        Item::Variable(v) => decl(v, f),
                        Item::File(_) | Item::Pragma(_) => {}
                        Item::Section(s) => {
                            for e in &$($m)? s.entries {
                                match e {
                                    SectionEntry::Label(n) => f(n),
                                    SectionEntry::Bytes(_) | SectionEntry::ByteColumn(_) => {}
                                    SectionEntry::Data { values, .. } => {
                                        for v in values {
                                            v.$iter_expr(&mut *f);
                                        }
                                    }
                                    SectionEntry::Value { value, .. } => {
                                        if let DataValue::Sym(n) = value {
                                            f(n);
                                        }
                                    }
                                }
                            }
                        }
                        Item::Alias { alias, aliasee } => {
                            f(alias);
                            f(aliasee);
                        }
                    }
                }
            }

            pub fn params(ps: &$($m)? [Param], f: &mut impl FnMut(&$($m)? Name)) {
                for p in ps {
                    f(&$($m)? p.name);
                }
            }

            pub fn function(func: &$($m)? Function, f: &mut impl FnMut(&$($m)? Name)) {
                if let Some(r) = &$($m)? func.returns {
                    params(r, f);
                }
                f(&$($m)? func.name);
                if let Some(p) = &$($m)? func.params {
                    params(p, f);
                }
                if let Some(body) = &$($m)? func.body {
                    super::$body_fn(body, f);
                }
            }

            pub fn decl(v: &$($m)? VarDecl, f: &mut impl FnMut(&$($m)? Name)) {
                for d in &$($m)? v.names {
                    declarator(d, f);
                }
            }

            fn declarator(d: &$($m)? Declarator, f: &mut impl FnMut(&$($m)? Name)) {
                f(&$($m)? d.name);
                if let Some(i) = &$($m)? d.init {
                    init(i, f);
                }
            }

            fn init(i: &$($m)? Init, f: &mut impl FnMut(&$($m)? Name)) {
                match i {
                    Init::Expr(e) => e.$iter_expr(&mut *f),
                    Init::List(items) => {
                        for i in items {
                            init(i, f);
                        }
                    }
                    Init::Packed(_) => {}
                }
            }

            pub fn statements(body: &$($m)? [Statement], f: &mut impl FnMut(&$($m)? Name)) {
                for s in body {
                    match s {
                        Statement::Inst(i) => i.$iter_inst(&mut *f),
                        Statement::Label(n) => f(n),
                        Statement::Decl(d) => decl(d, f),
                        Statement::Loc(l) => {
                            if let Some(i) = &$($m)? l.inlined {
                                f(&$($m)? i.function_name);
                            }
                        }
                        Statement::Pragma(_) => {}
                        Statement::Block(b) => statements(b, f),
                        Statement::BranchTargets { label, targets } | Statement::CallTargets { label, targets } => {
                            f(label);
                            for t in targets {
                                f(t);
                            }
                        }
                        Statement::CallPrototype { label, proto } => {
                            f(label);
                            if let Some(r) = &$($m)? proto.returns {
                                params(r, f);
                            }
                            if let Some(p) = &$($m)? proto.params {
                                params(p, f);
                            }
                        }
                    }
                }
            }
        }
    };
}

walker!(shared, [], for_each_name_ref, for_each_name_ref, body_names);
walker!(exclusive, [mut], for_each_name_mut, for_each_name_mut, body_names_mut);

// Bodies are walked in the printer's order: a compact body entry by entry (building its
// statement tree would cost more than the walk), a tree body through its tree.
fn body_names(body: &Body, f: &mut impl FnMut(&Name)) {
    if !body.compact_names(f) {
        shared::statements(body.statements(), f);
    }
}

/// The names of a declaration in print order (for [`Body::compact_names`]).
pub(crate) fn decl_names(d: &crate::module::VarDecl, f: &mut impl FnMut(&Name)) {
    shared::decl(d, f);
}

/// The names of a call prototype's parameters in print order (for [`Body::compact_names`]).
pub(crate) fn prototype_names(p: &crate::module::Prototype, f: &mut impl FnMut(&Name)) {
    if let Some(r) = &p.returns {
        shared::params(r, f);
    }
    if let Some(ps) = &p.params {
        shared::params(ps, f);
    }
}

fn body_names_mut(body: &mut Body, f: &mut impl FnMut(&mut Name)) {
    let Some((stmts, mut cells)) = body.compact_mut() else {
        exclusive::statements(body.statements_mut(), f);
        // Renaming leaves the shape alone, so the body fits its compact form again.
        let _ = body.compact();
        return;
    };
    // In place, entry by entry: instructions take their operand cells in order.
    let mut pos = 0;
    for s in stmts {
        match s {
            Stmt::Inst(inst) => {
                if let Some(g) = inst.guard_mut() {
                    f(g);
                }
                let n = inst.operand_cells();
                if !cells.names_mut(pos, n, f) {
                    return;
                }
                pos += n;
            }
            Stmt::Label(n) => f(n),
            Stmt::Decl(d) => exclusive::decl(d, f),
            Stmt::PlainDecl(p) => {
                f(&mut p.name);
                if let PlainShape::Pair(n) = &mut p.shape {
                    f(n);
                }
            }
            Stmt::Loc(l) => {
                if let Some(i) = &mut l.inlined {
                    f(&mut i.function_name);
                }
            }
            Stmt::Pragma(_) | Stmt::Block { .. } | Stmt::LineLoc { .. } => {}
            Stmt::BranchTargets(t) | Stmt::CallTargets(t) => {
                f(&mut t.label);
                t.targets.iter_mut().for_each(&mut *f);
            }
            Stmt::CallPrototype(p) => {
                let (label, proto) = &mut **p;
                f(label);
                if let Some(r) = &mut proto.returns {
                    exclusive::params(r, f);
                }
                if let Some(ps) = &mut proto.params {
                    exclusive::params(ps, f);
                }
            }
        }
    }
}

/// Calls `f` on every name of `m`, in the order the printer writes them.
pub fn for_each_name(m: &Module, f: &mut impl FnMut(Name)) {
    shared::module(m, &mut |n: &Name| f(*n));
}

/// Calls `f` on every name of `m` mutably, in the order the printer writes them.
pub fn for_each_name_mut(m: &mut Module, f: &mut impl FnMut(&mut Name)) {
    exclusive::module(m, f);
}

/// Rebuilds `m.names` so that names appear in print order and unused names are dropped.
///
/// Returns `Err` with the offending index if a name does not belong to the module's interner
/// (the module is then left with the names that could be mapped).
pub fn renumber_names(m: &mut Module) -> Result<(), usize> {
    let old = std::mem::take(&mut m.names);
    let mut new = Interner::new();
    let mut map: Vec<Option<Name>> = vec![None; old.len()];
    let mut bad = None;
    exclusive::module(m, &mut |n: &mut Name| {
        let i = n.index();
        match map.get_mut(i) {
            Some(slot) => {
                *n = *slot.get_or_insert_with(|| new.intern(old.get(Name::from_index(i))))
            }
            None => {
                bad.get_or_insert(i);
            }
        }
    });
    m.names = new;
    bad.map_or(Ok(()), Err)
}

// The generator is behind the `arbitrary` feature (on in workspace test runs).
#[cfg(all(test, feature = "arbitrary"))]
mod tests {
    use super::{for_each_name, for_each_name_mut};
    use arbitrary::Unstructured;

    /// Compact bodies are renamed in place, without their statement tree: the names must come
    /// in the order the tree walk (the printer's) gives, and renaming must change only names.
    #[test]
    fn compact_bodies_are_walked_in_print_order() {
        let mut bodies = 0;
        for seed in 0..300u32 {
            let bytes: Vec<u8> = (0..4096u32)
                .map(|k| {
                    (k.wrapping_mul(2654435761)
                        .wrapping_add(seed.wrapping_mul(40503))
                        >> 13) as u8
                })
                .collect();
            let Ok(mut m) = crate::generate::module(&mut Unstructured::new(&bytes)) else {
                continue;
            };
            // Each compact body's entry-by-entry walk (what `for_each_name` makes) against
            // the walk of its statement tree.
            for b in m.functions().filter_map(|f| f.body.as_ref()) {
                let (mut compact, mut tree) = (Vec::new(), Vec::new());
                if b.compact_names(&mut |n: &crate::Name| compact.push(*n)) {
                    super::shared::statements(b.statements(), &mut |n: &crate::Name| tree.push(*n));
                    assert_eq!(compact, tree, "seed {seed}");
                }
            }
            let mut tree_order = Vec::new();
            for_each_name(&m, &mut |n| tree_order.push(n));
            bodies += m
                .functions()
                .filter(|f| f.body.as_ref().is_some_and(|b| b.is_compact()))
                .count();
            let before = m.clone();
            let mut mut_order = Vec::new();
            for_each_name_mut(&mut m, &mut |n| mut_order.push(*n));
            assert_eq!(tree_order, mut_order, "seed {seed}");
            assert!(m == before, "seed {seed}: walking changed the module");
            // A renaming and its inverse give the module back.
            let len = m.names.len();
            let flip = |n: &mut crate::Name| *n = crate::Name::from_index(len - 1 - n.index());
            for_each_name_mut(&mut m, &mut |n| flip(n));
            if !tree_order.is_empty() {
                let mut flipped = Vec::new();
                for_each_name(&m, &mut |n| flipped.push(n));
                let want: Vec<_> = tree_order
                    .iter()
                    .map(|n| crate::Name::from_index(len - 1 - n.index()))
                    .collect();
                assert_eq!(flipped, want, "seed {seed}");
            }
            for_each_name_mut(&mut m, &mut |n| flip(n));
            assert!(
                m == before,
                "seed {seed}: renaming twice is not the identity"
            );
        }
        assert!(bodies > 100, "only {bodies} compact bodies generated");
    }
}
