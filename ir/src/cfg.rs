//! The control-flow graph of a function body: basic blocks with successors and predecessors.
//!
//! Blocks are maximal runs of statements in source order (nested `{ }` blocks are flattened:
//! they scope declarations, not control). A block starts at the beginning of the body, at a
//! label that follows an instruction of the current block (consecutive labels, and labels after
//! declarations only, share one block), and after an instruction that ends a block. Every
//! statement belongs to exactly one block, so [`Block::stmts`] partition the body.
//!
//! Instructions that end a block ([`EndKind`]):
//!
//! * `bra`: successor is the target's block;
//! * `brx.idx`: successors are the blocks of the labels of the `.branchtargets` list its second
//!   operand names, in list order;
//! * `ret`, `exit`, `trap`: no successor.
//!
//! A guarded (`@p`) instance of any of them also falls through to the next block. A block that
//! ends without one of them falls through; the last block of the body then has no successor
//! (leaving the function). Calls do not end blocks: control returns to the next instruction,
//! and the callee has its own graph. (A `.noreturn` callee does not return, but nothing after
//! the call can be reached any other way either, so the graph stays conservative.)
//!
//! ```
//! use ptx_ir_core::cfg::{Cfg, EndKind};
//! use ptx_ir_core::build::ModuleBuilder;
//! use ptx_ir_core::{Cmp, Target, Type, Version};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // i = 0; do { i += 1 } while (i < 10); return
//! let mut mb = ModuleBuilder::new(Version::new(8, 0), Target::sm(80));
//! let mut f = mb.entry("loop")?;
//! let (i, p) = (f.reg(Type::U32)?, f.reg(Type::Pred)?);
//! let top = f.fresh_label();
//! f.mov(Type::U32, (i, 0))?;
//! f.place(top)?;
//! f.add(Type::U32, (i, i, 1))?;
//! f.setp((Cmp::Lt, Type::U32), (p, i, 10))?;
//! f.guard(p).bra((), top)?;
//! f.ret((), ())?;
//! f.finish()?;
//! let m = mb.finish();
//!
//! let cfg = Cfg::of_function(m.functions().next().unwrap())?;
//! assert_eq!(cfg.blocks().len(), 3);
//! let body = cfg.block(cfg.entry());
//! assert_eq!(body.succs, [1]);
//! let the_loop = cfg.block(1);
//! assert_eq!(the_loop.succs, [1, 2]); // taken, then fall-through
//! assert_eq!(the_loop.preds, [0, 1]);
//! assert!(the_loop.end.as_ref().is_some_and(|e| e.kind == EndKind::Branch && e.conditional));
//! assert_eq!(cfg.exits().collect::<Vec<_>>(), [2]);
//! # Ok(()) }
//! ```

use crate::inst::Instruction;
use crate::module::{Function, Statement};
use crate::names::Name;
use crate::operand::Operand;
use crate::table::Opcode;
use crate::walk::{statements, Path};
use rustc_hash::FxHashMap;
use std::fmt;

/// The index of a block in [`Cfg::blocks`]; block 0 is the entry.
pub type BlockId = usize;

/// How a block ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndKind {
    /// `bra`
    Branch,
    /// `brx.idx`
    Switch,
    /// `ret`
    Return,
    /// `exit`
    Exit,
    /// `trap`
    Trap,
}

/// The instruction that ends a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    /// Its path in the body.
    pub at: Path,
    /// What it is.
    pub kind: EndKind,
    /// Whether it is guarded, so that the block also falls through.
    pub conditional: bool,
}

/// A basic block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The labels naming the block (none for the entry block and for blocks that follow a
    /// branch without a label).
    pub labels: Vec<Name>,
    /// Its statements in source order: labels, declarations and instructions.
    pub stmts: Vec<Path>,
    /// The control instruction that ends it; `None` when it falls through.
    pub end: Option<End>,
    /// Successors: branch targets in order, then the fall-through block; no duplicates.
    pub succs: Vec<BlockId>,
    /// Predecessors, in block order; no duplicates.
    pub preds: Vec<BlockId>,
}

/// A body whose branches cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CfgError {
    /// A branch to a label the body does not define.
    UnknownLabel(Name),
    /// A label defined twice.
    DuplicateLabel(Name),
    /// A `brx.idx` whose list is not a `.branchtargets` of the body.
    UnknownTargets(Name),
    /// A branch whose target operand is not a name.
    BadTarget(Path),
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CfgError::UnknownLabel(n) => write!(f, "branch to undefined label #{}", n.index()),
            CfgError::DuplicateLabel(n) => write!(f, "label #{} defined twice", n.index()),
            CfgError::UnknownTargets(n) => {
                write!(
                    f,
                    "`brx.idx` through #{}, not a `.branchtargets` list",
                    n.index()
                )
            }
            CfgError::BadTarget(p) => write!(f, "branch at {p} has no label operand"),
        }
    }
}

impl std::error::Error for CfgError {}

/// The control-flow graph of one body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    blocks: Vec<Block>,
    by_label: FxHashMap<Name, BlockId>,
}

fn end_kind(i: &Instruction) -> Option<EndKind> {
    Some(match i.opcode {
        Opcode::Bra => EndKind::Branch,
        Opcode::BrxIdx => EndKind::Switch,
        Opcode::Ret => EndKind::Return,
        Opcode::Exit => EndKind::Exit,
        Opcode::Trap => EndKind::Trap,
        _ => return None,
    })
}

fn label_operand(i: &Instruction, at: &Path) -> Result<Name, CfgError> {
    // `bra l` and `brx.idx s, l`: the label is the last operand.
    match i.operands.last() {
        Some(Operand::Reg { name, sel }) if sel.is_none() => Ok(*name),
        _ => Err(CfgError::BadTarget(at.clone())),
    }
}

/// The successors of a block that ends with `end` and is followed by block `next`: branch
/// targets in order, then the fall-through block, without duplicates.
fn successors(
    body: &[Statement],
    end: Option<&End>,
    next: Option<BlockId>,
    by_label: &FxHashMap<Name, BlockId>,
    lists: &FxHashMap<Name, &[Name]>,
) -> Result<Vec<BlockId>, CfgError> {
    let Some(e) = end else {
        return Ok(next.into_iter().collect());
    };
    let inst = match crate::walk::get(body, &e.at) {
        Some(Statement::Inst(i)) => i,
        _ => return Err(CfgError::BadTarget(e.at.clone())),
    };
    let block = |l: &Name| by_label.get(l).copied().ok_or(CfgError::UnknownLabel(*l));
    let mut succs = Vec::new();
    match e.kind {
        EndKind::Branch => succs.push(block(&label_operand(inst, &e.at)?)?),
        EndKind::Switch => {
            let l = label_operand(inst, &e.at)?;
            for t in lists.get(&l).ok_or(CfgError::UnknownTargets(l))?.iter() {
                let b = block(t)?;
                if !succs.contains(&b) {
                    succs.push(b);
                }
            }
        }
        EndKind::Return | EndKind::Exit | EndKind::Trap => {}
    }
    if let Some(n) = next.filter(|n| e.conditional && !succs.contains(n)) {
        succs.push(n);
    }
    Ok(succs)
}

impl Cfg {
    /// The graph of `body`.
    pub fn new(body: &[Statement]) -> Result<Cfg, CfgError> {
        let mut blocks = vec![Block::default()];
        let mut by_label = FxHashMap::default();
        let mut lists: FxHashMap<Name, &[Name]> = FxHashMap::default();
        let mut has_inst = false;
        let mut ended = false;
        for (p, s) in statements(body) {
            let new_block = match s {
                Statement::Block(_) => continue,
                Statement::Label(_) => ended || has_inst,
                _ => ended,
            };
            if new_block {
                blocks.push(Block::default());
                has_inst = false;
                ended = false;
            }
            let id = blocks.len() - 1;
            let cur = &mut blocks[id];
            match s {
                Statement::Label(n) => {
                    if by_label.insert(*n, id).is_some() {
                        return Err(CfgError::DuplicateLabel(*n));
                    }
                    cur.labels.push(*n);
                }
                Statement::Inst(i) => {
                    has_inst = true;
                    if let Some(kind) = end_kind(i) {
                        cur.end = Some(End {
                            at: p.clone(),
                            kind,
                            conditional: i.guard.is_some(),
                        });
                        ended = true;
                    }
                }
                Statement::BranchTargets { label, targets } => {
                    lists.insert(*label, targets);
                }
                _ => {}
            }
            cur.stmts.push(p);
        }
        let n = blocks.len();
        for (id, b) in blocks.iter_mut().enumerate() {
            let next = (id + 1 < n).then_some(id + 1);
            b.succs = successors(body, b.end.as_ref(), next, &by_label, &lists)?;
        }
        for id in 0..n {
            for k in 0..blocks[id].succs.len() {
                let s = blocks[id].succs[k];
                if blocks[s].preds.last() != Some(&id) {
                    blocks[s].preds.push(id);
                }
            }
        }
        Ok(Cfg { blocks, by_label })
    }

    /// The graph of a function's body (a declaration has one empty block).
    pub fn of_function(f: &Function) -> Result<Cfg, CfgError> {
        Cfg::new(f.statements().unwrap_or(&[]))
    }

    /// The entry block (always 0).
    pub fn entry(&self) -> BlockId {
        0
    }

    /// The blocks, in source order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Block `id`. Panics if there is no such block.
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id]
    }

    /// The block a label starts.
    pub fn block_of_label(&self, label: Name) -> Option<BlockId> {
        self.by_label.get(&label).copied()
    }

    /// The block holding the statement at `path`.
    pub fn block_of(&self, path: &Path) -> Option<BlockId> {
        // Blocks cover the body in order, so the block is the last one starting at or before
        // the path.
        let k = self
            .blocks
            .partition_point(|b| b.stmts.first().is_some_and(|p| p <= path));
        let id = k.checked_sub(1)?;
        self.blocks[id].stmts.binary_search(path).ok().map(|_| id)
    }

    /// Blocks without successors: where control leaves the function.
    pub fn exits(&self) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.blocks.len()).filter(|&b| self.blocks[b].succs.is_empty())
    }

    /// Blocks reachable from the entry, in reverse postorder (each block before its successors,
    /// back edges aside).
    pub fn reverse_postorder(&self) -> Vec<BlockId> {
        let n = self.blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (block, next successor index).
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, k)) = stack.last_mut() {
            match self.blocks[*b].succs.get(*k) {
                Some(&s) => {
                    *k += 1;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    post.push(*b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        post
    }

    /// Whether each block is reachable from the entry.
    pub fn reachable(&self) -> Vec<bool> {
        let mut r = vec![false; self.blocks.len()];
        for b in self.reverse_postorder() {
            r[b] = true;
        }
        r
    }
}
