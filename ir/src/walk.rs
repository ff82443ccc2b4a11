//! Traversal and rewriting of function bodies: statements, instructions and operands in source
//! order, nested `{ }` blocks included.
//!
//! Three levels, from the most to the least structured:
//!
//! * [`Visit`] and [`VisitMut`]: visitor traits over a module's items, functions, statements,
//!   instructions and operands. Override the methods for what you care about; the default of
//!   each calls the matching `walk_*` function, which visits the children.
//! * [`statements`] and [`instructions`]: iterators in source order (pre-order: a block, then
//!   its contents), each item with its [`Path`]; [`for_each_statement_mut`] and
//!   [`for_each_instruction_mut`] for in-place changes.
//! * [`rewrite`]: replace or remove statements, with each statement's path as it was before the
//!   rewrite, so that analyses made beforehand ([`crate::defuse`], [`crate::cfg`]) stay valid
//!   while the edits are applied.
//!
//! ```
//! use ptx_ir_core::walk::{instructions, Visit, walk_instruction};
//! use ptx_ir_core::{Instruction, Opcode, Operand, Statement, Type};
//! use ptx_ir_core::build::ModuleBuilder;
//! # use ptx_ir_core::{Target, Version};
//!
//! # fn main() -> Result<(), ptx_ir_core::build::BuildError> {
//! # let mut mb = ModuleBuilder::new(Version::new(8, 0), Target::sm(80));
//! # let mut f = mb.entry("k")?;
//! # let [a, b] = f.regs(Type::U32)?;
//! # f.mov(Type::U32, (a, 7))?;
//! # f.add(Type::U32, (b, a, 1))?;
//! # f.block(|f| f.add(Type::U32, (a, b, 2)))?;
//! # f.ret((), ())?;
//! # f.finish()?;
//! # let m = mb.finish();
//! // Count the literal operands of a module with a visitor.
//! struct Literals(usize);
//! impl Visit for Literals {
//!     fn visit_operand(&mut self, o: &Operand) {
//!         self.0 += o.is_immediate() as usize;
//!     }
//! }
//! let mut v = Literals(0);
//! v.visit_module(&m);
//! assert_eq!(v.0, 3);
//!
//! // The adds of the first function, with their positions: statement 2 at top level (after
//! // the register declaration and the `mov`), and the first statement of the block at 3.
//! let body = m.functions().next().unwrap().statements().unwrap();
//! let adds: Vec<String> = instructions(body)
//!     .filter(|(_, i)| i.opcode == Opcode::Add)
//!     .map(|(p, _)| p.to_string())
//!     .collect();
//! assert_eq!(adds, ["2", "3.0"]);
//! # Ok(()) }
//! ```

use crate::inst::Instruction;
use crate::module::{Function, Item, Module, Statement};
use crate::operand::Operand;
use smallvec::SmallVec;
use std::fmt;

/// The position of a statement in a body: its index at top level, then its index in each
/// enclosing block. Paths order as the statements appear in the source (a block before its
/// contents).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path(SmallVec<[u32; 4]>);

impl Path {
    /// The top-level statement `i`.
    pub fn top(i: usize) -> Path {
        Path(smallvec::smallvec![i as u32])
    }

    /// A path from its indices, outermost first.
    pub fn from_indices(indices: &[u32]) -> Path {
        Path(indices.into())
    }

    /// The indices, outermost first.
    pub fn indices(&self) -> &[u32] {
        &self.0
    }

    /// The number of enclosing blocks (0 at top level).
    pub fn depth(&self) -> usize {
        self.0.len().saturating_sub(1)
    }

    /// The index within the innermost enclosing statement list.
    pub fn index(&self) -> usize {
        self.0.last().map_or(0, |&i| i as usize)
    }

    /// The statement `i` of the block at this path.
    pub fn child(&self, i: usize) -> Path {
        let mut p = self.0.clone();
        p.push(i as u32);
        Path(p)
    }

    /// The block enclosing this statement, if it is nested.
    pub fn parent(&self) -> Option<Path> {
        (self.0.len() > 1).then(|| Path(self.0[..self.0.len() - 1].into()))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, i) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(".")?;
            }
            write!(f, "{i}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Path({self})")
    }
}

/// The statement at `path`.
pub fn get<'a>(body: &'a [Statement], path: &Path) -> Option<&'a Statement> {
    let (&last, outer) = path.0.split_last()?;
    let mut list = body;
    for &i in outer {
        match list.get(i as usize)? {
            Statement::Block(b) => list = b,
            _ => return None,
        }
    }
    list.get(last as usize)
}

/// The statement at `path`, mutably.
pub fn get_mut<'a>(body: &'a mut [Statement], path: &Path) -> Option<&'a mut Statement> {
    let (&last, outer) = path.0.split_last()?;
    let mut list = body;
    for &i in outer {
        match list.get_mut(i as usize)? {
            Statement::Block(b) => list = b,
            _ => return None,
        }
    }
    list.get_mut(last as usize)
}

/// The instruction at `path`, if the statement there is one.
pub fn instruction<'a>(body: &'a [Statement], path: &Path) -> Option<&'a Instruction> {
    match get(body, path)? {
        Statement::Inst(i) => Some(i),
        _ => None,
    }
}

/// The instruction at `path`, mutably.
pub fn instruction_mut<'a>(body: &'a mut [Statement], path: &Path) -> Option<&'a mut Instruction> {
    match get_mut(body, path)? {
        Statement::Inst(i) => Some(i),
        _ => None,
    }
}

/// Iterator over the statements of a body in source order; see [`statements`].
#[derive(Clone, Debug)]
pub struct Statements<'a> {
    /// Open statement lists, each with the index of its next statement.
    stack: Vec<(&'a [Statement], usize)>,
    /// Indices of the blocks enclosing the innermost open list.
    prefix: SmallVec<[u32; 4]>,
}

impl<'a> Iterator for Statements<'a> {
    type Item = (Path, &'a Statement);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (list, next) = self.stack.last_mut()?;
            let list: &'a [Statement] = list;
            let Some(s) = list.get(*next) else {
                self.stack.pop();
                self.prefix.pop();
                continue;
            };
            let i = *next as u32;
            *next += 1;
            let mut p = self.prefix.clone();
            p.push(i);
            if let Statement::Block(b) = s {
                self.stack.push((b, 0));
                self.prefix.push(i);
            }
            return Some((Path(p), s));
        }
    }
}

/// Every statement of `body` with its path, in source order: a block is yielded before its
/// contents.
pub fn statements(body: &[Statement]) -> Statements<'_> {
    Statements {
        stack: vec![(body, 0)],
        prefix: SmallVec::new(),
    }
}

/// Every instruction of `body` with its path, in source order, nested blocks included.
pub fn instructions(body: &[Statement]) -> impl Iterator<Item = (Path, &Instruction)> {
    statements(body).filter_map(|(p, s)| match s {
        Statement::Inst(i) => Some((p, i)),
        _ => None,
    })
}

/// Calls `f` on every statement of `body` in source order. A block is visited before its
/// contents, and the contents visited are those after `f` returns.
pub fn for_each_statement_mut(body: &mut [Statement], f: &mut impl FnMut(&Path, &mut Statement)) {
    fn go(
        list: &mut [Statement],
        prefix: &mut SmallVec<[u32; 4]>,
        f: &mut impl FnMut(&Path, &mut Statement),
    ) {
        for (i, s) in list.iter_mut().enumerate() {
            prefix.push(i as u32);
            f(&Path(prefix.clone()), s);
            if let Statement::Block(b) = s {
                go(b, prefix, f);
            }
            prefix.pop();
        }
    }
    go(body, &mut SmallVec::new(), f);
}

/// Calls `f` on every instruction of `body` in source order, nested blocks included.
pub fn for_each_instruction_mut(
    body: &mut [Statement],
    f: &mut impl FnMut(&Path, &mut Instruction),
) {
    for_each_statement_mut(body, &mut |p, s| {
        if let Statement::Inst(i) = s {
            f(p, i);
        }
    });
}

/// What [`rewrite`] does with one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Keep the statement (with any change made to it in place); a kept block's contents are
    /// visited next.
    Keep,
    /// Remove the statement.
    Remove,
    /// Put these statements in its place (include it to insert around it). The replacement is
    /// not visited.
    Replace(Vec<Statement>),
}

/// Rewrites `body` in source order: `f` sees every statement with its path in the body as it
/// was before the rewrite, and says what to do with it. Removing or inserting statements does
/// not change the paths `f` sees later, so positions found by an analysis beforehand (def-use,
/// CFG) can be used directly.
pub fn rewrite(body: &mut Vec<Statement>, f: &mut impl FnMut(&Path, &mut Statement) -> Edit) {
    fn go(
        list: &mut Vec<Statement>,
        prefix: &mut SmallVec<[u32; 4]>,
        f: &mut impl FnMut(&Path, &mut Statement) -> Edit,
    ) {
        let old = std::mem::take(list);
        list.reserve(old.len());
        for (i, mut s) in old.into_iter().enumerate() {
            prefix.push(i as u32);
            match f(&Path(prefix.clone()), &mut s) {
                Edit::Keep => {
                    if let Statement::Block(b) = &mut s {
                        go(b, prefix, f);
                    }
                    list.push(s);
                }
                Edit::Remove => {}
                Edit::Replace(new) => list.extend(new),
            }
            prefix.pop();
        }
    }
    go(body, &mut SmallVec::new(), f);
}

/// A read-only visitor. Each method's default visits the children through the matching `walk_*`
/// function; an override that still wants the children calls it.
pub trait Visit {
    /// A module: its items in order.
    fn visit_module(&mut self, m: &Module) {
        walk_module(self, m)
    }

    /// A module-level item: functions are visited, other directives are not.
    fn visit_item(&mut self, item: &Item) {
        walk_item(self, item)
    }

    /// A function: its body's statements, if it has a body.
    fn visit_function(&mut self, f: &Function) {
        walk_function(self, f)
    }

    /// A statement: an instruction, or a block's statements.
    fn visit_statement(&mut self, s: &Statement) {
        walk_statement(self, s)
    }

    /// An instruction: its operands in order (the guard is not an operand).
    fn visit_instruction(&mut self, i: &Instruction) {
        walk_instruction(self, i)
    }

    /// An operand, then the operands nested in it (vector, tuple and argument items, the two
    /// halves of a pair, the operand of a negation).
    fn visit_operand(&mut self, o: &Operand) {
        walk_operand(self, o)
    }
}

/// Visits the items of `m`.
pub fn walk_module<V: Visit + ?Sized>(v: &mut V, m: &Module) {
    for item in &m.items {
        v.visit_item(item);
    }
}

/// Visits the function of an item.
pub fn walk_item<V: Visit + ?Sized>(v: &mut V, item: &Item) {
    if let Item::Function(f) = item {
        v.visit_function(f);
    }
}

/// Visits the body of `f`.
pub fn walk_function<V: Visit + ?Sized>(v: &mut V, f: &Function) {
    for s in f.statements().into_iter().flatten() {
        v.visit_statement(s);
    }
}

/// Visits the instruction or the nested statements of `s`.
pub fn walk_statement<V: Visit + ?Sized>(v: &mut V, s: &Statement) {
    match s {
        Statement::Inst(i) => v.visit_instruction(i),
        Statement::Block(b) => {
            for s in b {
                v.visit_statement(s);
            }
        }
        _ => {}
    }
}

/// Visits the operands of `i`.
pub fn walk_instruction<V: Visit + ?Sized>(v: &mut V, i: &Instruction) {
    for o in &i.operands {
        v.visit_operand(o);
    }
}

/// Visits the operands nested in `o`.
pub fn walk_operand<V: Visit + ?Sized>(v: &mut V, o: &Operand) {
    match o {
        Operand::Vector(items) | Operand::Tuple(items) | Operand::Args(items) => {
            for x in items.iter() {
                v.visit_operand(x);
            }
        }
        Operand::Pair(p) => {
            v.visit_operand(&p[0]);
            v.visit_operand(&p[1]);
        }
        Operand::Neg(x) => v.visit_operand(x),
        _ => {}
    }
}

/// A visitor that may change what it visits; the mutable twin of [`Visit`].
pub trait VisitMut {
    /// A module: its items in order.
    fn visit_module_mut(&mut self, m: &mut Module) {
        walk_module_mut(self, m)
    }

    /// A module-level item: functions are visited, other directives are not.
    fn visit_item_mut(&mut self, item: &mut Item) {
        walk_item_mut(self, item)
    }

    /// A function: its body's statements, if it has a body.
    fn visit_function_mut(&mut self, f: &mut Function) {
        walk_function_mut(self, f)
    }

    /// A statement: an instruction, or a block's statements.
    fn visit_statement_mut(&mut self, s: &mut Statement) {
        walk_statement_mut(self, s)
    }

    /// An instruction: its operands in order.
    fn visit_instruction_mut(&mut self, i: &mut Instruction) {
        walk_instruction_mut(self, i)
    }

    /// An operand, then the operands nested in it.
    fn visit_operand_mut(&mut self, o: &mut Operand) {
        walk_operand_mut(self, o)
    }
}

/// Visits the items of `m` mutably.
pub fn walk_module_mut<V: VisitMut + ?Sized>(v: &mut V, m: &mut Module) {
    for item in &mut m.items {
        v.visit_item_mut(item);
    }
}

/// Visits the function of an item mutably.
pub fn walk_item_mut<V: VisitMut + ?Sized>(v: &mut V, item: &mut Item) {
    if let Item::Function(f) = item {
        v.visit_function_mut(f);
    }
}

/// Visits the body of `f` mutably.
pub fn walk_function_mut<V: VisitMut + ?Sized>(v: &mut V, f: &mut Function) {
    for s in f.statements_mut().into_iter().flatten() {
        v.visit_statement_mut(s);
    }
}

/// Visits the instruction or the nested statements of `s` mutably.
pub fn walk_statement_mut<V: VisitMut + ?Sized>(v: &mut V, s: &mut Statement) {
    match s {
        Statement::Inst(i) => v.visit_instruction_mut(i),
        Statement::Block(b) => {
            for s in b {
                v.visit_statement_mut(s);
            }
        }
        _ => {}
    }
}

/// Visits the operands of `i` mutably.
pub fn walk_instruction_mut<V: VisitMut + ?Sized>(v: &mut V, i: &mut Instruction) {
    for o in &mut i.operands {
        v.visit_operand_mut(o);
    }
}

/// Visits the operands nested in `o` mutably.
pub fn walk_operand_mut<V: VisitMut + ?Sized>(v: &mut V, o: &mut Operand) {
    match o {
        Operand::Vector(items) | Operand::Tuple(items) | Operand::Args(items) => {
            for x in items.iter_mut() {
                v.visit_operand_mut(x);
            }
        }
        Operand::Pair(p) => {
            let [a, b] = &mut **p;
            v.visit_operand_mut(a);
            v.visit_operand_mut(b);
        }
        Operand::Neg(x) => v.visit_operand_mut(x),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::Name;
    use crate::table::Opcode;

    fn inst(op: Opcode) -> Statement {
        Statement::Inst(Instruction::new(op, [], []))
    }

    fn body() -> Vec<Statement> {
        // 0: ret; 1: { 1.0: exit; 1.1: { 1.1.0: trap } 1.2: L } 2: ret
        vec![
            inst(Opcode::Ret),
            Statement::Block(vec![
                inst(Opcode::Exit),
                Statement::Block(vec![inst(Opcode::Trap)]),
                Statement::Label(Name::from_index(0)),
            ]),
            inst(Opcode::Ret),
        ]
    }

    #[test]
    fn source_order_with_paths() {
        let b = body();
        let got: Vec<String> = statements(&b).map(|(p, _)| p.to_string()).collect();
        assert_eq!(got, ["0", "1", "1.0", "1.1", "1.1.0", "1.2", "2"]);
        let paths: Vec<Path> = statements(&b).map(|(p, _)| p).collect();
        assert!(
            paths.windows(2).all(|w| w[0] < w[1]),
            "paths sort in source order"
        );
        for (p, s) in statements(&b) {
            assert_eq!(get(&b, &p), Some(s));
        }
        let ops: Vec<Opcode> = instructions(&b).map(|(_, i)| i.opcode).collect();
        assert_eq!(ops, [Opcode::Ret, Opcode::Exit, Opcode::Trap, Opcode::Ret]);
        assert_eq!(
            Path::from_indices(&[1, 1, 0]).parent(),
            Some(Path::from_indices(&[1, 1]))
        );
        assert_eq!(Path::top(3).parent(), None);
        assert!(get(&b, &Path::from_indices(&[0, 0])).is_none());
    }

    #[test]
    fn mutable_walks_agree_with_shared_ones() {
        let mut b = body();
        let mut seen = Vec::new();
        for_each_instruction_mut(&mut b, &mut |p, i| {
            seen.push(p.clone());
            i.opcode = Opcode::Exit;
        });
        let shared: Vec<Path> = instructions(&b).map(|(p, _)| p).collect();
        assert_eq!(seen, shared);
        assert!(instructions(&b).all(|(_, i)| i.opcode == Opcode::Exit));
    }

    #[test]
    fn rewrite_uses_original_paths() {
        let mut b = body();
        // Remove 0, duplicate 1.0, replace 1.1 by a label: later paths are unaffected.
        let mut seen = Vec::new();
        rewrite(&mut b, &mut |p, s| {
            seen.push(p.to_string());
            match p.indices() {
                [0] => Edit::Remove,
                [1, 0] => Edit::Replace(vec![s.clone(), s.clone()]),
                [1, 1] => Edit::Replace(vec![Statement::Label(Name::from_index(1))]),
                _ => Edit::Keep,
            }
        });
        assert_eq!(seen, ["0", "1", "1.0", "1.1", "1.2", "2"]);
        let ops: Vec<Opcode> = instructions(&b).map(|(_, i)| i.opcode).collect();
        assert_eq!(ops, [Opcode::Exit, Opcode::Exit, Opcode::Ret]);
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn visitors_reach_nested_operands() {
        struct Count(usize);
        impl Visit for Count {
            fn visit_operand(&mut self, o: &Operand) {
                self.0 += 1;
                walk_operand(self, o);
            }
        }
        let n = Name::from_index(0);
        let i = Instruction::new(
            Opcode::Call,
            [],
            [
                Operand::Args(Box::new([Operand::reg(n)].into_iter().collect())),
                Operand::reg(n),
                Operand::Args(Box::new(
                    [Operand::reg(n), Operand::Int(1)].into_iter().collect(),
                )),
            ],
        );
        let mut c = Count(0);
        c.visit_instruction(&i);
        assert_eq!(c.0, 6);

        struct Bump;
        impl VisitMut for Bump {
            fn visit_operand_mut(&mut self, o: &mut Operand) {
                if let Operand::Int(v) = o {
                    *v += 1;
                }
                walk_operand_mut(self, o);
            }
        }
        let mut b = vec![Statement::Block(vec![Statement::Inst(i)])];
        for s in &mut b {
            Bump.visit_statement_mut(s);
        }
        let (_, i) = instructions(&b).next().unwrap();
        assert_eq!(i.operands[2].items().unwrap()[1], Operand::Int(2));
    }
}
