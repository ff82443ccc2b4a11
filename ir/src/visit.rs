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
                    Init::Packed(_) | Init::Opaque(_) => {}
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
    if !compact_names(body, f) {
        shared::statements(body.statements(), f);
    }
}

/// Calls `f` on every name of a compact body in print order, entry by entry, without building
/// its statement tree; `false` (and nothing called) for a tree body.
pub(crate) fn compact_names(body: &Body, f: &mut impl FnMut(&Name)) -> bool {
    let Some(p) = body.parts() else {
        return false;
    };
    let mut rest = p.pool;
    for s in p.stmts {
        match s {
            Stmt::Inst(inst) => {
                if let Some(g) = inst.guard() {
                    f(&g.pred);
                }
                let Some((mine, after)) = rest.split(inst.operand_cells()) else {
                    return true;
                };
                mine.names(f);
                rest = after;
            }
            Stmt::Label(n) => f(n),
            Stmt::Decl(d) => shared::decl(d, f),
            Stmt::PlainDecl(p) => {
                f(&p.name);
                if let PlainShape::Pair(n) = &p.shape {
                    f(n);
                }
            }
            Stmt::Loc(l) => {
                if let Some(i) = &l.inlined {
                    f(&i.function_name);
                }
            }
            Stmt::Pragma(_) | Stmt::Block { .. } | Stmt::LineLoc { .. } => {}
            Stmt::BranchTargets(t) | Stmt::CallTargets(t) => {
                f(&t.label);
                t.targets.iter().for_each(&mut *f);
            }
            Stmt::CallPrototype(p) => {
                let (label, proto) = &**p;
                f(label);
                if let Some(r) = &proto.returns {
                    shared::params(r, f);
                }
                if let Some(ps) = &proto.params {
                    shared::params(ps, f);
                }
            }
        }
    }
    true
}

/// The names of a statement tree in print order (the walk [`compact_names`] must agree with).
#[cfg(all(test, feature = "arbitrary"))]
pub(crate) fn tree_names(stmts: &[crate::module::Statement], f: &mut impl FnMut(&Name)) {
    shared::statements(stmts, f);
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
