//! Definitions and uses: which names an instruction writes and which it reads, derived from the
//! operand kinds of the instruction table, and a def-use index over a function body.
//!
//! The operands of an instruction are aligned with the positions of the form that accepts it
//! (as [`crate::check::check`] finds it). Then:
//!
//! * `d` positions are definitions: a register, each register of a vector destination
//!   (`ld.v4 {a, b, c, d}`), both halves of a pair (`setp ... p|q`); `_` defines nothing.
//! * The leading `v` operand of the matrix instructions that produce fragments (`mma`,
//!   `wmma.mma`, `wmma.load`, `ldmatrix`, `tcgen05.ld`) is a definition; `wgmma.mma_async`'s
//!   accumulator is read and written ([`Role::UseDef`]).
//! * `call`'s argument list before the callee holds the return parameters: definitions. The
//!   list after it holds the arguments: uses.
//! * `l` positions name labels, functions, `.branchtargets` or `.callprototype` lists:
//!   [`Role::Target`], neither definition nor use.
//! * Everything else is read: sources, predicates, the base register of an address
//!   (`st [%rd1], %r2` defines nothing and uses both), tuples, the guard.
//!
//! Definitions of a guarded instruction may not happen; the index records them like any other
//! definition. Names are recorded whatever they denote: the uses of a variable's name (`ld.param
//! [p]`, `mov.u64 %rd1, arr`) appear next to register uses; [`registers`] gives the set of
//! declared registers to tell them apart. Implicit state (the carry flag of `add.cc`) is not a
//! name and is not tracked.

use crate::form::{Form, OperandKind};
use crate::inst::Instruction;
use crate::module::{Function, Statement};
use crate::names::{Interner, Name};
use crate::table::Opcode;
use crate::vocab::Space;
use crate::walk::{instructions, statements, Path};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// What an instruction does with one of its operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The operand's names are written.
    Def,
    /// The operand's names are read (literals have no names).
    Use,
    /// The operand's names are read, then written (an accumulator).
    UseDef,
    /// The operand names a label, function or list: neither read nor written as a value.
    Target,
}

/// Opcodes whose leading vector operand is a fragment they produce.
const VECTOR_DEFS: &[Opcode] = &[
    Opcode::Mma,
    Opcode::WmmaMma,
    Opcode::WmmaLoad,
    Opcode::Ldmatrix,
    Opcode::Tcgen05Ld,
];

/// The form whose operand positions describe `inst`'s operands: the form the checker accepts;
/// for an instruction no form accepts, the first whose operands fit, then the first with as
/// many positions, then the first.
fn form_of(inst: &Instruction) -> &'static Form {
    let forms = inst.opcode.forms();
    forms
        .iter()
        .find(|f| f.match_mods(&inst.mods).is_ok() && f.match_operands(&inst.operands))
        .or_else(|| forms.iter().find(|f| f.match_operands(&inst.operands)))
        .or_else(|| {
            forms
                .iter()
                .find(|f| f.operands.len() == inst.operands.len())
        })
        .unwrap_or(&forms[0])
}

/// The operand kind of each operand of `inst`, aligned as the form matcher aligns them
/// (optional positions that do not fit are skipped). Operands past the form's positions count
/// as sources.
pub fn operand_kinds(inst: &Instruction) -> SmallVec<[OperandKind; 4]> {
    let form = form_of(inst);
    let ops = &inst.operands;
    let mut out = SmallVec::new();
    let mut i = 0;
    for spec in &form.operands {
        match ops.get(i) {
            Some(o) if spec.kind.accepts(o) => {
                out.push(spec.kind);
                i += 1;
            }
            _ if spec.optional => {}
            _ => break,
        }
    }
    out.resize(ops.len(), OperandKind::Src);
    out
}

/// The role of each operand of `inst`, in order.
pub fn roles(inst: &Instruction) -> SmallVec<[Role; 4]> {
    let kinds = operand_kinds(inst);
    let mut seen_label = false;
    kinds
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            OperandKind::Dst => Role::Def,
            OperandKind::Label => {
                seen_label = true;
                Role::Target
            }
            OperandKind::Args if inst.opcode == Opcode::Call && !seen_label => Role::Def,
            OperandKind::Vector if i == 0 && inst.opcode == Opcode::WgmmaMmaAsync => Role::UseDef,
            OperandKind::Vector if i == 0 && VECTOR_DEFS.contains(&inst.opcode) => Role::Def,
            _ => Role::Use,
        })
        .collect()
}

/// Calls `f` on every name `inst` writes, in operand order.
pub fn for_each_def(inst: &Instruction, mut f: impl FnMut(Name)) {
    for (o, r) in inst.operands.iter().zip(roles(inst)) {
        if matches!(r, Role::Def | Role::UseDef) {
            o.for_each_name(&mut f);
        }
    }
}

/// Calls `f` on every name `inst` reads: the guard, then the operands in order. A name read
/// twice is reported twice.
pub fn for_each_use(inst: &Instruction, mut f: impl FnMut(Name)) {
    if let Some(g) = inst.guard {
        f(g.pred);
    }
    for (o, r) in inst.operands.iter().zip(roles(inst)) {
        if matches!(r, Role::Use | Role::UseDef) {
            o.for_each_name(&mut f);
        }
    }
}

/// The names `inst` writes.
pub fn defs(inst: &Instruction) -> SmallVec<[Name; 2]> {
    let mut v = SmallVec::new();
    for_each_def(inst, |n| v.push(n));
    v
}

/// The names `inst` reads (guard first; repeated names repeated).
pub fn uses(inst: &Instruction) -> SmallVec<[Name; 4]> {
    let mut v = SmallVec::new();
    for_each_use(inst, |n| v.push(n));
    v
}

/// Where each name of a body is defined and used, by instruction path, in source order. A name
/// read twice by one instruction has that path twice among its uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DefUse {
    defs: FxHashMap<Name, Vec<Path>>,
    uses: FxHashMap<Name, Vec<Path>>,
}

impl DefUse {
    /// The index of `body` (nested blocks included).
    pub fn new(body: &[Statement]) -> DefUse {
        let mut du = DefUse::default();
        for (p, inst) in instructions(body) {
            for_each_def(inst, |n| du.defs.entry(n).or_default().push(p.clone()));
            for_each_use(inst, |n| du.uses.entry(n).or_default().push(p.clone()));
        }
        du
    }

    /// The index of a function's body (empty for a declaration).
    pub fn of_function(f: &Function) -> DefUse {
        f.statements().map(DefUse::new).unwrap_or_default()
    }

    /// The instructions that write `n`.
    pub fn defs(&self, n: Name) -> &[Path] {
        self.defs.get(&n).map_or(&[], Vec::as_slice)
    }

    /// The instructions that read `n`, once per reading operand.
    pub fn uses(&self, n: Name) -> &[Path] {
        self.uses.get(&n).map_or(&[], Vec::as_slice)
    }

    /// The one instruction that writes `n`, if exactly one does.
    pub fn single_def(&self, n: Name) -> Option<&Path> {
        match self.defs(n) {
            [p] => Some(p),
            _ => None,
        }
    }

    /// The one reading operand of `n`, if exactly one reads it.
    pub fn single_use(&self, n: Name) -> Option<&Path> {
        match self.uses(n) {
            [p] => Some(p),
            _ => None,
        }
    }

    /// Every name written or read, sorted.
    pub fn names(&self) -> Vec<Name> {
        let mut v: Vec<Name> = self.defs.keys().chain(self.uses.keys()).copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The registers of function `f`: names declared `.reg` in its body (at any depth, each name of
/// a range `%r<N>` that `names` holds) and its `.reg` parameters.
pub fn registers(names: &Interner, f: &Function) -> FxHashSet<Name> {
    let mut set = FxHashSet::default();
    let mut ranges: FxHashMap<&str, u32> = FxHashMap::default();
    for p in f.returns.iter().chain(&f.params).flatten() {
        if p.space == Space::Reg {
            set.insert(p.name);
        }
    }
    for (_, s) in statements(f.statements().unwrap_or(&[])) {
        let Statement::Decl(d) = s else { continue };
        if d.space != Space::Reg {
            continue;
        }
        for decl in &d.names {
            match decl.range {
                Some(n) => {
                    if let Some(s) = names.try_get(decl.name) {
                        let e = ranges.entry(s).or_default();
                        *e = (*e).max(n);
                    }
                }
                None => {
                    set.insert(decl.name);
                }
            }
        }
    }
    if !ranges.is_empty() {
        for (n, s) in names.iter() {
            let stem = s.trim_end_matches(|c: char| c.is_ascii_digit());
            let digits = &s[stem.len()..];
            // `%r01` is not a member of `%r<N>`: members are spelled without leading zeros.
            if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
                continue;
            }
            if let (Some(&max), Ok(k)) = (ranges.get(stem), digits.parse::<u64>()) {
                if k < u64::from(max) {
                    set.insert(n);
                }
            }
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::Operand;

    #[test]
    fn every_leading_vector_is_classified() {
        // Opcodes whose forms start with a `v` operand either produce it (VECTOR_DEFS,
        // wgmma) or only read it; a new one must be looked at.
        let readers: &[Opcode] = &[];
        for &op in Opcode::ALL {
            for f in op.forms() {
                if f.operands.first().map(|o| o.kind) == Some(OperandKind::Vector) {
                    assert!(
                        VECTOR_DEFS.contains(&op)
                            || op == Opcode::WgmmaMmaAsync
                            || readers.contains(&op),
                        "{}: leading vector operand not classified",
                        op.name()
                    );
                }
            }
        }
    }

    #[test]
    fn roles_follow_the_table() {
        let n = |i| Name::from_index(i);
        let r = |i| Operand::reg(n(i));
        let add = Instruction::new(
            Opcode::Add,
            [crate::vocab::Type::U32.into()],
            [r(0), r(1), Operand::Int(1)],
        );
        assert_eq!(&roles(&add)[..], [Role::Def, Role::Use, Role::Use]);
        assert_eq!(&defs(&add)[..], [n(0)]);
        assert_eq!(&uses(&add)[..], [n(1)]);
        let st = Instruction::new(
            Opcode::St,
            [Space::Global.into(), crate::vocab::Type::U32.into()],
            [Operand::addr(n(0), 4), r(1)],
        );
        assert!(defs(&st).is_empty());
        assert_eq!(&uses(&st)[..], [n(0), n(1)]);
        let call = Instruction::new(
            Opcode::Call,
            [],
            [
                Operand::Args(Box::new([r(0)].into_iter().collect())),
                r(1),
                Operand::Args(Box::new([r(2), r(2)].into_iter().collect())),
            ],
        );
        assert_eq!(&roles(&call)[..], [Role::Def, Role::Target, Role::Use]);
        assert_eq!(&uses(&call)[..], [n(2), n(2)]);
    }
}
