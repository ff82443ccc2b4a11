//! Function bodies in compact form.
//!
//! A [`Body`] keeps its statements in one flat pre-order array of 16-byte entries, and the
//! modifiers and operands of all its instructions in two pools, in instruction order. An
//! instruction entry holds only its guard, opcode and the counts of its modifiers and operand
//! cells; a `{ }` scope is an entry followed by its contents. Operands are 8-byte cells (see
//! `cells.rs`: a list is a header cell followed by its elements). This is about a third of the
//! memory of a tree of [`Statement`]s (no per-instruction inline buffers sized for the worst
//! case, no boxed operand lists), and the bytecode maps onto it array by array.
//!
//! Reading: [`Body::iter`] yields [`StmtRef`]s, which mirror [`Statement`] with borrowed
//! parts ([`InstRef`] has the fields of [`Instruction`]; its [`Operands`] yield each operand,
//! built from its cells). [`Body::statements`] gives the
//! statement tree, built on first use and kept. Editing: [`Body::statements_mut`] turns the body
//! into its tree for good (until [`Body::compact`]); the compact form is canonical, so equal
//! statement trees give equal bodies, whichever form each is in.

use crate::inst::{Guard, Instruction};
use crate::names::Name;
use crate::operand::{Operand, Selector};
use crate::special::SpecialReg;
use crate::stmt::{Declarator, InlinedAt, Loc, Prototype, Statement, VarDecl};
use crate::table::Opcode;
use crate::vocab::Modifier;
use crate::vocab::{Space, Type, Vector};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::OnceLock;

mod cells;
mod error;

use cells::Cell;
pub use cells::{Atom, ListKind, Operands, OperandsIter, Token};
pub use error::{BodyError, MAX_MODS, MAX_OPERANDS, MAX_SCOPE_DEPTH};

/// A function body: compact (statements in pre-order plus the modifier and operand pools), or a
/// statement tree while it is being edited.
#[derive(Default)]
pub struct Body {
    repr: Repr,
    /// The statement tree of a compact body, once asked for.
    tree: OnceLock<Vec<Statement>>,
}

#[derive(Clone)]
enum Repr {
    Compact(Compact),
    Tree(Vec<Statement>),
}

/// Dropping a body visits only the entries that own memory: the derived drop called a
/// function per entry, whatever its kind (4% of the time of reading and dropping NCCL's
/// modules).
impl Drop for Compact {
    fn drop(&mut self) {
        for s in self.stmts.drain(..) {
            // Exhaustive, so that a new variant is sorted here.
            match s {
                Stmt::Inst(_)
                | Stmt::Label(_)
                | Stmt::Block { .. }
                | Stmt::LineLoc { .. }
                | Stmt::PlainDecl(_) => std::mem::forget(s),
                Stmt::Decl(_)
                | Stmt::Loc(_)
                | Stmt::Pragma(_)
                | Stmt::BranchTargets(_)
                | Stmt::CallTargets(_)
                | Stmt::CallPrototype(_) => drop(s),
            }
        }
    }
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Compact(Compact::default())
    }
}

/// The compact form.
#[derive(Clone, Default, PartialEq, Eq)]
struct Compact {
    stmts: Vec<Stmt>,
    mods: Vec<Modifier>,
    operands: Vec<Cell>,
}

/// One entry of a [`Body`]'s statement array. Public for the bytecode's sake; read bodies
/// through [`Body::iter`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stmt {
    /// An instruction; its modifiers and operands follow those of the previous one in the pools.
    Inst(PackedInst),
    /// A label `name:`.
    Label(Name),
    /// A declaration.
    Decl(Box<VarDecl>),
    /// A `.loc` debug location.
    Loc(Box<Loc>),
    /// `.pragma "..."` (a thin pointer, to keep entries at 16 bytes).
    Pragma(Box<String>),
    /// A `{ }` scope: the next `len` entries are its contents, which use `mods` modifiers and
    /// `operands` cells of the pools.
    Block {
        /// Entries inside, nested scopes' contents included.
        len: u32,
        /// Modifiers used inside.
        mods: u32,
        /// Operand cells used inside.
        operands: u32,
    },
    /// `label: .branchtargets ...;`
    BranchTargets(Box<Targets>),
    /// `label: .calltargets ...;`
    CallTargets(Box<Targets>),
    /// `label: .callprototype ...;`
    CallPrototype(Box<(Name, Prototype)>),
    /// A `.loc` without an inlining part, kept in the entry (most are: nvcc writes one every
    /// few instructions with `-lineinfo`); [`Stmt::Loc`] holds only those with one. Last, so
    /// that the other variants keep their serialized numbers.
    LineLoc {
        /// File index.
        file: u32,
        /// Line.
        line: u32,
        /// Column.
        col: u32,
    },
    /// A declaration without linkage, attributes or initialiser of one name or range
    /// (`.reg .b32 %r<9>;`), two names, or one array with or without alignment (`.local
    /// .align 8 .b8 d[16];`), kept in the entry; [`Stmt::Decl`] holds the others.
    PlainDecl(PlainDecl),
}

/// A declaration that fits a body entry (see [`Stmt::PlainDecl`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlainDecl {
    /// State space.
    pub space: Space,
    /// Element type.
    pub ty: Type,
    /// `.v2`/`.v4`/`.v8`
    pub vector: Option<Vector>,
    /// The name (the prefix, for a range).
    pub name: Name,
    /// One name, a range, two names or an array.
    pub shape: PlainShape,
}

/// What a [`PlainDecl`] declares besides its type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlainShape {
    /// One name.
    One,
    /// `%r<100>`: declares `%r0` .. `%r99` (a range of 0 is held by [`Stmt::Decl`]).
    Range(NonZeroU32),
    /// A second name, declared alike (`.reg .f16 low, high;`, NCCL's scopes around each
    /// conversion).
    Pair(Name),
    /// One array of one dimension, `[.align N] name[len]` (nvcc's `.local .align 8 .b8
    /// __local_depot0[16];` and `.param .align 4 .b8 param0[8];` around each call).
    Array {
        /// `.align N`, as the power of two `N` is (`3` for 8); below 32.
        align_log2: Option<u8>,
        /// The number of elements.
        len: u32,
    },
}

impl PlainDecl {
    /// `d` as a plain declaration, if it is one.
    pub fn of(d: &VarDecl) -> Option<PlainDecl> {
        let bare = |x: &Declarator| x.dims.is_empty() && x.init.is_none();
        if !(d.linkage.is_none() && d.attributes.is_empty()) {
            return None;
        }
        let (x, shape) = match &d.names[..] {
            [x] if d.align.is_none() && bare(x) => match x.range {
                None => (x, PlainShape::One),
                Some(n) => (x, PlainShape::Range(NonZeroU32::new(n)?)),
            },
            [x, y]
                if d.align.is_none()
                    && bare(x)
                    && bare(y)
                    && x.range.is_none()
                    && y.range.is_none() =>
            {
                (x, PlainShape::Pair(y.name))
            }
            [x] if x.range.is_none() && x.init.is_none() => match x.dims[..] {
                [Some(len)] => {
                    let align_log2 = match d.align {
                        None => None,
                        Some(a) if a.is_power_of_two() => Some(a.trailing_zeros() as u8),
                        Some(_) => return None,
                    };
                    (
                        x,
                        PlainShape::Array {
                            align_log2,
                            len: u32::try_from(len).ok()?,
                        },
                    )
                }
                _ => return None,
            },
            _ => return None,
        };
        Some(PlainDecl {
            space: d.space,
            ty: d.ty,
            vector: d.vector,
            name: x.name,
            shape,
        })
    }

    /// The full declaration.
    pub fn to_var_decl(&self) -> VarDecl {
        let one = |name, range, dims| Declarator {
            name,
            range,
            dims,
            init: None,
        };
        let (align, names) = match self.shape {
            PlainShape::One => (
                None,
                smallvec::smallvec![one(self.name, None, SmallVec::new())],
            ),
            PlainShape::Range(n) => (
                None,
                smallvec::smallvec![one(self.name, Some(n.get()), SmallVec::new())],
            ),
            PlainShape::Pair(second) => (
                None,
                smallvec::smallvec![
                    one(self.name, None, SmallVec::new()),
                    one(second, None, SmallVec::new())
                ],
            ),
            PlainShape::Array { align_log2, len } => (
                // Below 32 (the bytecode reader refuses others).
                align_log2.map(|k| 1u32 << (k & 31)),
                smallvec::smallvec![one(
                    self.name,
                    None,
                    smallvec::smallvec![Some(u64::from(len))]
                )],
            ),
        };
        VarDecl {
            linkage: None,
            space: self.space,
            attributes: Vec::new(),
            align,
            vector: self.vector,
            ty: self.ty,
            names,
        }
    }
}

/// A borrowed declaration ([`StmtRef::Decl`]): a [`VarDecl`], or an entry that keeps a plain
/// one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeclRef<'a> {
    /// A full declaration.
    Full(&'a VarDecl),
    /// A plain one, kept in its entry.
    Plain(PlainDecl),
}

impl<'a> DeclRef<'a> {
    /// The declaration (built, without allocating, for a plain one).
    pub fn get(&self) -> Cow<'a, VarDecl> {
        match *self {
            DeclRef::Full(d) => Cow::Borrowed(d),
            DeclRef::Plain(p) => Cow::Owned(p.to_var_decl()),
        }
    }
}

impl Stmt {
    /// The entry of declaration `d`: [`Stmt::PlainDecl`] if it is plain.
    pub fn decl(d: Box<VarDecl>) -> Stmt {
        match PlainDecl::of(&d) {
            Some(p) => Stmt::PlainDecl(p),
            None => Stmt::Decl(d),
        }
    }

    /// [`Stmt::decl`] of a declaration not yet boxed: boxed only if it is not plain.
    pub fn decl_value(d: VarDecl) -> Stmt {
        match PlainDecl::of(&d) {
            Some(p) => Stmt::PlainDecl(p),
            None => Stmt::Decl(Box::new(d)),
        }
    }

    /// The entry of `.loc` `l`: [`Stmt::LineLoc`] unless it has an inlining part.
    pub fn loc(l: Loc) -> Stmt {
        match l.inlined {
            None => Stmt::LineLoc {
                file: l.file,
                line: l.line,
                col: l.col,
            },
            Some(_) => Stmt::Loc(Box::new(l)),
        }
    }
}

/// A borrowed `.loc` ([`StmtRef::Loc`]), from a [`Loc`] or from an entry that keeps one
/// without an inlining part.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LocRef<'a> {
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
    /// Column.
    pub col: u32,
    /// `, function_name label{+off}, inlined_at f l c`
    pub inlined: Option<&'a InlinedAt>,
}

impl LocRef<'_> {
    /// An owned copy.
    pub fn to_loc(&self) -> Loc {
        Loc {
            file: self.file,
            line: self.line,
            col: self.col,
            inlined: self.inlined.map(|i| Box::new(i.clone())),
        }
    }
}

impl<'a> From<&'a Loc> for LocRef<'a> {
    fn from(l: &'a Loc) -> LocRef<'a> {
        LocRef {
            file: l.file,
            line: l.line,
            col: l.col,
            inlined: l.inlined.as_deref(),
        }
    }
}

/// The label and targets of a `.branchtargets` or `.calltargets` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Targets {
    /// The label naming the list.
    pub label: Name,
    /// The targets in order.
    pub targets: Box<[Name]>,
}

/// The operand pool of a compact body, open for renaming (see [`Body::compact_mut`]).
pub(crate) struct CellsMut<'a>(&'a mut [Cell]);

impl CellsMut<'_> {
    /// Calls `f` on every name of the `count` cells from `from` (one instruction's operands),
    /// in print order. `false` if the pool has no such cells.
    pub(crate) fn names_mut(
        &mut self,
        from: usize,
        count: usize,
        f: &mut impl FnMut(&mut Name),
    ) -> bool {
        match self.0.get_mut(from..from.saturating_add(count)) {
            Some(c) => {
                cells::names_mut(c, f);
                true
            }
            None => false,
        }
    }
}

/// An instruction entry: 12 bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedInst {
    guard: Option<Name>,
    negated: bool,
    n_mods: u8,
    opcode: Opcode,
    n_operands: u16,
}

impl PackedInst {
    /// The guard.
    pub fn guard(&self) -> Option<Guard> {
        self.guard.map(|pred| Guard {
            pred,
            negated: self.negated,
        })
    }

    /// The guard's predicate, to rename it.
    pub(crate) fn guard_mut(&mut self) -> Option<&mut Name> {
        self.guard.as_mut()
    }

    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// Number of modifiers.
    pub fn mod_count(&self) -> usize {
        self.n_mods as usize
    }

    /// Number of cells its operands take in the pool (see [`Operands`]).
    pub fn operand_cells(&self) -> usize {
        self.n_operands as usize
    }
}

/// A borrowed instruction of a [`Body`], with the fields of [`Instruction`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstRef<'a> {
    /// `@p` / `@!p`, if present.
    pub guard: Option<Guard>,
    /// The instruction.
    pub opcode: Opcode,
    /// Its qualifiers, in source order.
    pub mods: &'a [Modifier],
    /// Its operands, in order.
    pub operands: Operands<'a>,
}

impl InstRef<'_> {
    /// An owned copy.
    pub fn to_instruction(&self) -> Instruction {
        Instruction {
            guard: self.guard,
            opcode: self.opcode,
            mods: self.mods.iter().copied().collect(),
            operands: self
                .operands
                .iter()
                .map(std::borrow::Cow::into_owned)
                .collect(),
        }
    }
}

impl Instruction {
    /// This instruction as an [`InstRef`].
    pub fn as_ref(&self) -> InstRef<'_> {
        InstRef {
            guard: self.guard,
            opcode: self.opcode,
            mods: &self.mods,
            operands: Operands::from(&self.operands[..]),
        }
    }
}

/// A borrowed statement of a [`Body`], mirroring [`Statement`].
#[derive(Copy, Clone, Debug)]
pub enum StmtRef<'a> {
    /// An instruction.
    Inst(InstRef<'a>),
    /// A label.
    Label(Name),
    /// A declaration.
    Decl(DeclRef<'a>),
    /// A `.loc`.
    Loc(LocRef<'a>),
    /// A `.pragma`.
    Pragma(&'a str),
    /// A `{ }` scope.
    Block(BodyRef<'a>),
    /// `label: .branchtargets ...;`
    BranchTargets {
        /// The label.
        label: Name,
        /// The targets.
        targets: &'a [Name],
    },
    /// `label: .calltargets ...;`
    CallTargets {
        /// The label.
        label: Name,
        /// The targets.
        targets: &'a [Name],
    },
    /// `label: .callprototype ...;`
    CallPrototype {
        /// The label.
        label: Name,
        /// The signature.
        proto: &'a Prototype,
    },
}

/// A borrowed statement list: a whole [`Body`] or one scope of it. Iterating never panics,
/// whatever the counts say: a [`Body`] is checked when built or decoded, and a short pool
/// would only give short slices.
#[derive(Copy, Clone, Debug)]
pub struct BodyRef<'a>(RefRepr<'a>);

#[derive(Copy, Clone, Debug)]
enum RefRepr<'a> {
    Compact {
        stmts: &'a [Stmt],
        mods: &'a [Modifier],
        operands: &'a [Cell],
    },
    Tree(&'a [Statement]),
}

impl<'a> BodyRef<'a> {
    /// Whether there are no statements.
    pub fn is_empty(&self) -> bool {
        match self.0 {
            RefRepr::Compact { stmts, .. } => stmts.is_empty(),
            RefRepr::Tree(t) => t.is_empty(),
        }
    }

    /// The statements in order (a scope is one statement).
    pub fn iter(&self) -> Iter<'a> {
        Iter(match self.0 {
            RefRepr::Compact {
                stmts,
                mods,
                operands,
            } => IterRepr::Compact {
                stmts,
                mods,
                operands,
            },
            RefRepr::Tree(t) => IterRepr::Tree(t.iter()),
        })
    }
}

impl<'a> From<&'a [Statement]> for BodyRef<'a> {
    fn from(t: &'a [Statement]) -> BodyRef<'a> {
        BodyRef(RefRepr::Tree(t))
    }
}

impl<'a> IntoIterator for BodyRef<'a> {
    type Item = StmtRef<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Iterator over the statements of a [`BodyRef`].
#[derive(Clone, Debug)]
pub struct Iter<'a>(IterRepr<'a>);

#[derive(Clone, Debug)]
enum IterRepr<'a> {
    Compact {
        stmts: &'a [Stmt],
        mods: &'a [Modifier],
        operands: &'a [Cell],
    },
    Tree(std::slice::Iter<'a, Statement>),
}

fn split<T>(s: &[T], n: usize) -> (&[T], &[T]) {
    s.split_at(n.min(s.len()))
}

impl<'a> Iterator for Iter<'a> {
    type Item = StmtRef<'a>;

    fn next(&mut self) -> Option<StmtRef<'a>> {
        let IterRepr::Compact {
            stmts,
            mods,
            operands,
        } = &mut self.0
        else {
            let IterRepr::Tree(t) = &mut self.0 else {
                unreachable!()
            };
            return t.next().map(StmtRef::from);
        };
        let (first, rest) = stmts.split_first()?;
        *stmts = rest;
        Some(match first {
            Stmt::Inst(p) => {
                let (m, m_rest) = split(mods, p.n_mods as usize);
                let (o, o_rest) = split(operands, p.n_operands as usize);
                *mods = m_rest;
                *operands = o_rest;
                StmtRef::Inst(InstRef {
                    guard: p.guard(),
                    opcode: p.opcode,
                    mods: m,
                    operands: Operands::cells(o),
                })
            }
            Stmt::Label(n) => StmtRef::Label(*n),
            Stmt::Decl(d) => StmtRef::Decl(DeclRef::Full(d)),
            Stmt::PlainDecl(p) => StmtRef::Decl(DeclRef::Plain(*p)),
            Stmt::Loc(l) => StmtRef::Loc(LocRef::from(&**l)),
            Stmt::LineLoc { file, line, col } => StmtRef::Loc(LocRef {
                file: *file,
                line: *line,
                col: *col,
                inlined: None,
            }),
            Stmt::Pragma(p) => StmtRef::Pragma(p),
            Stmt::Block {
                len,
                mods: n_mods,
                operands: n_ops,
            } => {
                let (s, s_rest) = split(stmts, *len as usize);
                let (m, m_rest) = split(mods, *n_mods as usize);
                let (o, o_rest) = split(operands, *n_ops as usize);
                *stmts = s_rest;
                *mods = m_rest;
                *operands = o_rest;
                StmtRef::Block(BodyRef(RefRepr::Compact {
                    stmts: s,
                    mods: m,
                    operands: o,
                }))
            }
            Stmt::BranchTargets(t) => StmtRef::BranchTargets {
                label: t.label,
                targets: &t.targets,
            },
            Stmt::CallTargets(t) => StmtRef::CallTargets {
                label: t.label,
                targets: &t.targets,
            },
            Stmt::CallPrototype(p) => StmtRef::CallPrototype {
                label: p.0,
                proto: &p.1,
            },
        })
    }
}

impl<'a> From<&'a Statement> for StmtRef<'a> {
    fn from(s: &'a Statement) -> StmtRef<'a> {
        match s {
            Statement::Inst(i) => StmtRef::Inst(i.as_ref()),
            Statement::Label(n) => StmtRef::Label(*n),
            Statement::Decl(d) => StmtRef::Decl(DeclRef::Full(d)),
            Statement::Loc(l) => StmtRef::Loc(l.into()),
            Statement::Pragma(p) => StmtRef::Pragma(p),
            Statement::Block(b) => StmtRef::Block(BodyRef(RefRepr::Tree(b))),
            Statement::BranchTargets { label, targets } => StmtRef::BranchTargets {
                label: *label,
                targets,
            },
            Statement::CallTargets { label, targets } => StmtRef::CallTargets {
                label: *label,
                targets,
            },
            Statement::CallPrototype { label, proto } => StmtRef::CallPrototype {
                label: *label,
                proto,
            },
        }
    }
}

impl StmtRef<'_> {
    /// An owned copy.
    pub fn to_statement(&self) -> Statement {
        match *self {
            StmtRef::Inst(i) => Statement::Inst(i.to_instruction()),
            StmtRef::Label(n) => Statement::Label(n),
            StmtRef::Decl(d) => Statement::Decl(Box::new(d.get().into_owned())),
            StmtRef::Loc(l) => Statement::Loc(l.to_loc()),
            StmtRef::Pragma(p) => Statement::Pragma(p.into()),
            StmtRef::Block(b) => Statement::Block(b.to_statements()),
            StmtRef::BranchTargets { label, targets } => Statement::BranchTargets {
                label,
                targets: targets.to_vec(),
            },
            StmtRef::CallTargets { label, targets } => Statement::CallTargets {
                label,
                targets: targets.to_vec(),
            },
            StmtRef::CallPrototype { label, proto } => Statement::CallPrototype {
                label,
                proto: Box::new(proto.clone()),
            },
        }
    }
}

impl BodyRef<'_> {
    /// The statements as an owned tree.
    pub fn to_statements(&self) -> Vec<Statement> {
        self.iter().map(|s| s.to_statement()).collect()
    }
}

impl Body {
    /// An empty body.
    pub fn new() -> Body {
        Body::default()
    }

    fn from_compact(c: Compact) -> Body {
        Body {
            repr: Repr::Compact(c),
            tree: OnceLock::new(),
        }
    }

    /// The whole body, for iteration.
    pub fn as_ref(&self) -> BodyRef<'_> {
        BodyRef(match &self.repr {
            Repr::Compact(c) => RefRepr::Compact {
                stmts: &c.stmts,
                mods: &c.mods,
                operands: &c.operands,
            },
            Repr::Tree(t) => RefRepr::Tree(t),
        })
    }

    /// The top-level statements in order (a scope is one statement).
    pub fn iter(&self) -> Iter<'_> {
        self.as_ref().iter()
    }

    /// The statements as a tree. A compact body builds the tree on first use and keeps it
    /// (memory the size of the tree, until [`Body::drop_tree`] or an edit).
    pub fn statements(&self) -> &[Statement] {
        match &self.repr {
            Repr::Tree(t) => t,
            Repr::Compact(_) => self.tree.get_or_init(|| self.as_ref().to_statements()),
        }
    }

    /// The statements as an editable tree. The body stays a tree (with the memory a tree takes)
    /// until [`Body::compact`].
    pub fn statements_mut(&mut self) -> &mut Vec<Statement> {
        if let Repr::Compact(_) = self.repr {
            let tree = match self.tree.take() {
                Some(t) => t,
                None => self.as_ref().to_statements(),
            };
            self.repr = Repr::Tree(tree);
        }
        match &mut self.repr {
            Repr::Tree(t) => t,
            Repr::Compact(_) => unreachable!("just made a tree"),
        }
    }

    /// The statements as an owned tree.
    pub fn to_statements(&self) -> Vec<Statement> {
        self.statements().to_vec()
    }

    /// Back to the compact form after edits; fails (leaving the tree) for an instruction with
    /// more than [`MAX_MODS`] modifiers or [`MAX_OPERANDS`] operands.
    pub fn compact(&mut self) -> Result<(), BodyError> {
        if let Repr::Tree(t) = &self.repr {
            let c = Compact::from_statements(t)?;
            self.repr = Repr::Compact(c);
        }
        Ok(())
    }

    /// The arrays of a compact body (`None` while the body is a tree): for whole-body scans
    /// that need no statement structure, and for encoders (the bytecode writes them column by
    /// column).
    pub fn parts(&self) -> Option<Parts<'_>> {
        match &self.repr {
            Repr::Compact(c) => Some(Parts {
                stmts: &c.stmts,
                mods: &c.mods,
                pool: Pool(&c.operands),
            }),
            Repr::Tree(_) => None,
        }
    }

    /// The entries and operand cells of a compact body, to rename what they name in place
    /// (`None` while the body is a tree). Drops the statement tree built from them.
    pub(crate) fn compact_mut(&mut self) -> Option<(&mut [Stmt], CellsMut<'_>)> {
        self.tree.take();
        match &mut self.repr {
            Repr::Compact(c) => Some((&mut c.stmts, CellsMut(&mut c.operands))),
            Repr::Tree(_) => None,
        }
    }

    /// Whether the body is in its compact form.
    pub fn is_compact(&self) -> bool {
        matches!(self.repr, Repr::Compact(_))
    }

    /// Frees the statement tree that [`Body::statements`] built for a compact body.
    pub fn drop_tree(&mut self) {
        self.tree.take();
    }

    /// Builds a compact body from a statement tree, or says why it cannot hold it.
    pub fn try_from_statements(stmts: &[Statement]) -> Result<Body, BodyError> {
        Compact::from_statements(stmts).map(Body::from_compact)
    }

    /// Whether there are no statements.
    pub fn is_empty(&self) -> bool {
        self.as_ref().is_empty()
    }

    /// Number of instructions, those inside scopes included.
    pub fn instruction_count(&self) -> usize {
        match &self.repr {
            Repr::Compact(c) => c
                .stmts
                .iter()
                .filter(|s| matches!(s, Stmt::Inst(_)))
                .count(),
            Repr::Tree(t) => crate::stmt::count_instructions(t),
        }
    }

    /// Bytes of the compact form's arrays (for size reports); `None` for a tree.
    pub fn pool_bytes(&self) -> Option<usize> {
        match &self.repr {
            Repr::Compact(c) => Some(
                std::mem::size_of_val(c.stmts.as_slice())
                    + std::mem::size_of_val(c.mods.as_slice())
                    + std::mem::size_of_val(c.operands.as_slice()),
            ),
            Repr::Tree(_) => None,
        }
    }
}

impl Clone for Body {
    fn clone(&self) -> Body {
        Body {
            repr: self.repr.clone(),
            tree: OnceLock::new(),
        }
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Compact(a), Repr::Compact(b)) => a == b,
            _ => self.statements() == other.statements(),
        }
    }
}

impl Eq for Body {}

/// Serialized as its statement list, like a [`Vec<Statement>`]. (The bytecode writes bodies in
/// a compact column form of its own, from [`Body::parts`].)
impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.statements().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        Vec::<Statement>::deserialize(d).map(Body::from)
    }
}

impl From<Vec<Statement>> for Body {
    /// The compact body of `stmts`; or, for an instruction with more than [`MAX_MODS`]
    /// modifiers or [`MAX_OPERANDS`] operands, which only a tree can hold, the tree itself (it
    /// prints, but does not encode).
    fn from(stmts: Vec<Statement>) -> Body {
        match Compact::from_statements(&stmts) {
            Ok(c) => Body::from_compact(c),
            Err(_) => Body {
                repr: Repr::Tree(stmts),
                tree: OnceLock::new(),
            },
        }
    }
}

impl From<&[Statement]> for Body {
    /// As `From<Vec<Statement>>`.
    fn from(stmts: &[Statement]) -> Body {
        Body::from(stmts.to_vec())
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.statements()).finish()
    }
}

impl Compact {
    fn from_statements(stmts: &[Statement]) -> Result<Compact, BodyError> {
        let mut b = BodyBuilder::default();
        b.extend(stmts)?;
        Ok(b.finish_compact())
    }

    /// A compact body from its arrays, if they are consistent (the decoder builds its bodies
    /// consistent by construction; this checks hand-made ones).
    #[cfg(test)]
    fn from_parts(
        stmts: Vec<Stmt>,
        mods: Vec<Modifier>,
        operands: Vec<Cell>,
    ) -> Result<Compact, BodyError> {
        let body = Compact {
            stmts,
            mods,
            operands,
        };
        let (m, o) = check_counts(&body.stmts)?;
        if m != body.mods.len() {
            return Err(BodyError::Inconsistent("modifier count"));
        }
        if o != body.operands.len() {
            return Err(BodyError::Inconsistent("operand count"));
        }
        Ok(body)
    }
}

/// The modifiers and operands `stmts` use; checks that every scope's counts match its contents
/// and that scopes nest at most [`MAX_SCOPE_DEPTH`] deep. Iterative, so that hostile input
/// cannot exhaust the stack.
#[cfg(test)]
fn check_counts(stmts: &[Stmt]) -> Result<(usize, usize), BodyError> {
    struct Open {
        end: usize,
        mods: usize,
        operands: usize,
        mods_at: usize,
        operands_at: usize,
    }
    let close = |o: &Open, m: usize, n: usize| {
        if m - o.mods_at == o.mods && n - o.operands_at == o.operands {
            Ok(())
        } else {
            Err(BodyError::Inconsistent("scope counts"))
        }
    };
    let mut open: Vec<Open> = Vec::new();
    let (mut m, mut o) = (0usize, 0usize);
    for (i, s) in stmts.iter().enumerate() {
        while let Some(top) = open.last() {
            if top.end != i {
                break;
            }
            close(top, m, o)?;
            open.pop();
        }
        match s {
            Stmt::Inst(p) => {
                if p.guard.is_none() && p.negated {
                    return Err(BodyError::Inconsistent("negated guard without a predicate"));
                }
                m += p.n_mods as usize;
                o += p.n_operands as usize;
            }
            Stmt::Block {
                len,
                mods,
                operands,
            } => {
                let end = i + 1 + *len as usize;
                if end > open.last().map_or(stmts.len(), |t| t.end) {
                    return Err(BodyError::Inconsistent("scope longer than its parent"));
                }
                if open.len() >= MAX_SCOPE_DEPTH {
                    return Err(BodyError::TooDeep);
                }
                open.push(Open {
                    end,
                    mods: *mods as usize,
                    operands: *operands as usize,
                    mods_at: m,
                    operands_at: o,
                });
            }
            _ => {}
        }
    }
    while let Some(top) = open.pop() {
        close(&top, m, o)?;
    }
    Ok((m, o))
}

/// The arrays of a compact [`Body`] ([`Body::parts`]).
#[derive(Copy, Clone, Debug)]
pub struct Parts<'a> {
    /// The entries in pre-order.
    pub stmts: &'a [Stmt],
    /// The modifiers of every instruction, in instruction order ([`PackedInst::mod_count`]
    /// each).
    pub mods: &'a [Modifier],
    /// The operands of every instruction, in instruction order ([`PackedInst::operand_cells`]
    /// cells each).
    pub pool: Pool<'a>,
}

/// The operand pool of a compact body, or a run of it: operands stored as 8-byte cells in
/// pre-order (a list is a header cell followed by its elements; a 64-bit value that does not
/// fit a cell's 56 bits takes a second cell).
#[derive(Copy, Clone)]
pub struct Pool<'a>(&'a [Cell]);

impl<'a> Pool<'a> {
    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.0.len()
    }

    /// The first `cells` cells (one instruction's operands, [`PackedInst::operand_cells`])
    /// and the rest; `None` past the end.
    #[inline]
    pub fn split(&self, cells: usize) -> Option<(Pool<'a>, Pool<'a>)> {
        (cells <= self.0.len()).then(|| {
            let (a, b) = self.0.split_at(cells);
            (Pool(a), Pool(b))
        })
    }

    /// Calls `f` on every name in the run, in order, without building operands.
    #[inline]
    pub(crate) fn names(&self, f: &mut impl FnMut(&Name)) {
        cells::names(self.0, f)
    }

    /// The operands, built on demand.
    pub fn operands(&self) -> Operands<'a> {
        Operands::cells(self.0)
    }

    /// The operands as [`Token`]s in pre-order, without building them. Ends early at cells that
    /// are not well formed (which only a bug could make).
    pub fn tokens(&self) -> impl Iterator<Item = Token> + 'a {
        let (cells, mut pos) = (self.0, 0);
        std::iter::from_fn(move || cells::view(cells, &mut pos))
    }
}

impl fmt::Debug for Pool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tokens()).finish()
    }
}

/// Builds a [`Body`] statement by statement; the reader's and the converters' way in. Reuse one
/// builder for many bodies: [`BodyBuilder::finish`] copies out exact-size arrays and clears it.
///
/// An instruction's operands are pushed first ([`BodyBuilder::push_register`],
/// [`BodyBuilder::push_operand`]), straight into the operand pool, and then the instruction
/// ([`BodyBuilder::push_inst`]) claims them; operands that no instruction claims are dropped by
/// the next statement of any other kind.
#[derive(Default, Debug)]
pub struct BodyBuilder {
    stmts: Vec<Stmt>,
    mods: Vec<Modifier>,
    /// The operand pool, as cells.
    operands: Vec<Cell>,
    /// Cells from here on are the operands of the instruction being built.
    claimed: usize,
}

/// A literal operand for [`BodyBuilder::push_literal`]: the literal variants of [`Operand`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// [`Operand::Int`].
    Int(i64),
    /// [`Operand::Uint`].
    Uint(u64),
    /// [`Operand::F32`].
    F32(u32),
    /// [`Operand::F64`].
    F64(u64),
    /// [`Operand::Dec`].
    Dec(u64),
}

/// Where a list, pair or negation operand opened by [`BodyBuilder::open`] starts.
#[derive(Copy, Clone, Debug)]
pub struct ListStart(usize);

/// An open scope of a [`BodyBuilder`], returned by [`BodyBuilder::open_block`].
#[derive(Copy, Clone, Debug)]
pub struct OpenBlock {
    at: usize,
    mods: usize,
    operands: usize,
}

impl BodyBuilder {
    /// Appends an operand of the next instruction (see [`BodyBuilder::push_inst`]). Fails only
    /// for a list or nesting larger than the pool can count (2^28 items or cells).
    #[inline]
    pub fn push_operand(&mut self, o: &Operand) -> Result<(), BodyError> {
        cells::push(&mut self.operands, o)
    }

    /// Appends a plain register operand (no selector): the reader's most common operand.
    #[inline(always)]
    pub fn push_register(&mut self, name: Name) {
        self.operands.push(cells::reg(name.index() as u32));
    }

    /// Appends a literal operand: the reader's next most common operands, pushed without
    /// building an [`Operand`].
    // Always inlined: callers name one variant, and the rest of the match then goes.
    #[inline(always)]
    pub fn push_literal(&mut self, l: Literal) {
        let out = &mut self.operands;
        match l {
            Literal::Int(v) => cells::int(out, v),
            Literal::Uint(v) => cells::uint(out, v),
            Literal::F32(v) => out.push(cells::f32_bits(v)),
            Literal::F64(v) => cells::f64_bits(out, v),
            Literal::Dec(v) => cells::dec_bits(out, v),
        }
    }

    /// Appends an address operand `[base+offset]` (see [`Operand::Addr`]).
    #[inline]
    pub fn push_address(&mut self, base: Option<Name>, offset: i64, unified: bool) {
        cells::addr(&mut self.operands, base, offset, unified);
    }

    /// Appends a register operand with a selector ([`Selector::NONE`] for none).
    #[inline]
    pub fn push_register_sel(&mut self, name: Name, sel: Selector) {
        self.operands.push(cells::reg_sel(name.index() as u32, sel));
    }

    /// Appends a special register operand with a selector.
    #[inline]
    pub fn push_special(&mut self, reg: SpecialReg, sel: Selector) {
        let (family, number) = reg.family_number();
        self.operands.push(cells::special(family, number, sel));
    }

    /// Appends a symbol operand `name+offset` (see [`Operand::Sym`]).
    #[inline]
    pub fn push_symbol(&mut self, name: Name, offset: i64) {
        cells::sym(&mut self.operands, name, offset);
    }

    /// Appends a negated predicate `!p`.
    #[inline]
    pub fn push_not(&mut self, name: Name) {
        self.operands.push(cells::not(name));
    }

    /// Appends the sink `_`.
    #[inline]
    pub fn push_sink(&mut self) {
        self.operands.push(cells::sink());
    }

    /// Opens a list, pair or negation operand, whose elements are pushed next (as operands)
    /// and which [`BodyBuilder::close_list`], [`BodyBuilder::close_pair`] or
    /// [`BodyBuilder::close_neg`] completes (innermost first), or [`BodyBuilder::cancel_list`]
    /// drops.
    #[inline]
    pub fn open(&mut self) -> ListStart {
        ListStart(cells::open(&mut self.operands))
    }

    /// Completes the list opened at `at`, of `items` elements.
    #[inline]
    pub fn close_list(
        &mut self,
        at: ListStart,
        kind: ListKind,
        items: usize,
    ) -> Result<(), BodyError> {
        cells::close_list(&mut self.operands, at.0, kind, items)
    }

    /// Completes the pair `a|b` opened at `at` (its two elements pushed since).
    #[inline]
    pub fn close_pair(&mut self, at: ListStart) -> Result<(), BodyError> {
        cells::close_pair(&mut self.operands, at.0)
    }

    /// Completes the negation `-a` opened at `at` (its element pushed since).
    #[inline]
    pub fn close_neg(&mut self, at: ListStart) -> Result<(), BodyError> {
        cells::close_neg(&mut self.operands, at.0)
    }

    /// Appends an entry that is neither an instruction nor a scope (a label, declaration,
    /// `.loc`, `.pragma` or target list), as a decoder reads it; [`Stmt::Inst`] and
    /// [`Stmt::Block`] are refused (they come through [`BodyBuilder::push_inst`] and
    /// [`BodyBuilder::open_block`]).
    #[inline]
    pub fn push_entry(&mut self, s: Stmt) -> Result<(), BodyError> {
        if matches!(s, Stmt::Inst(_) | Stmt::Block { .. }) {
            return Err(BodyError::Inconsistent(
                "an instruction or scope pushed as an entry",
            ));
        }
        self.discard_operands();
        self.stmts.push(s);
        Ok(())
    }

    /// Entries pushed so far (the next entry's index).
    #[inline]
    pub fn entry_count(&self) -> usize {
        self.stmts.len()
    }

    /// Modifiers pushed so far.
    #[inline]
    pub fn mod_count(&self) -> usize {
        self.mods.len()
    }

    /// Drops the list opened at `at` and everything pushed since.
    #[inline]
    pub fn cancel_list(&mut self, at: ListStart) {
        self.operands.truncate(at.0.max(self.claimed));
    }

    /// Heap bytes the builder holds (its arrays' capacity), kept from body to body.
    pub fn heap_bytes(&self) -> usize {
        self.stmts.capacity() * std::mem::size_of::<Stmt>()
            + self.mods.capacity() * std::mem::size_of::<Modifier>()
            + self.operands.capacity() * std::mem::size_of::<Cell>()
    }

    /// The operands pushed for the next instruction so far.
    #[inline]
    pub fn pending_operands(&self) -> Operands<'_> {
        Operands::cells(self.operands.get(self.claimed..).unwrap_or_default())
    }

    /// Drops the operands pushed for the next instruction so far.
    #[inline]
    pub fn discard_operands(&mut self) {
        self.operands.truncate(self.claimed);
    }

    /// Appends an instruction whose operands are those pushed since the last instruction and
    /// whose modifiers are `mods`. On an error the pushed operands are dropped.
    #[inline]
    pub fn push_inst(
        &mut self,
        guard: Option<Guard>,
        opcode: Opcode,
        mods: &[Modifier],
    ) -> Result<(), BodyError> {
        let n_cells = self.operands.len() - self.claimed;
        let too_many = if mods.len() > MAX_MODS {
            Some(("modifiers", mods.len()))
        } else if n_cells > MAX_OPERANDS {
            Some(("operand cells", n_cells))
        } else {
            None
        };
        if let Some((what, count)) = too_many {
            self.discard_operands();
            return Err(BodyError::TooMany { what, count });
        }
        self.claimed = self.operands.len();
        // A few modifiers: a loop, where a copy of unknown length is a library call (and
        // `extend` an out-of-line call per instruction).
        self.mods.reserve(mods.len());
        for &m in mods {
            self.mods.push(m);
        }
        self.stmts.push(Stmt::Inst(PackedInst {
            guard: guard.map(|g| g.pred),
            negated: guard.is_some_and(|g| g.negated),
            n_mods: mods.len() as u8,
            opcode,
            n_operands: n_cells as u16,
        }));
        Ok(())
    }

    /// Appends an owned instruction.
    pub fn push_instruction(&mut self, i: &Instruction) -> Result<(), BodyError> {
        self.discard_operands();
        for o in &i.operands {
            if let Err(e) = self.push_operand(o) {
                self.discard_operands();
                return Err(e);
            }
        }
        self.push_inst(i.guard, i.opcode, &i.mods)
    }

    /// Opens a `{ }` scope; close it with [`BodyBuilder::close_block`].
    #[inline]
    pub fn open_block(&mut self) -> OpenBlock {
        self.discard_operands();
        let b = OpenBlock {
            at: self.stmts.len(),
            mods: self.mods.len(),
            operands: self.operands.len(),
        };
        self.stmts.push(Stmt::Block {
            len: 0,
            mods: 0,
            operands: 0,
        });
        b
    }

    /// Closes the scope `b` (scopes close innermost first).
    #[inline]
    pub fn close_block(&mut self, b: OpenBlock) -> Result<(), BodyError> {
        self.discard_operands();
        let len = self.stmts.len() - b.at - 1;
        let mods = self.mods.len() - b.mods;
        let operands = self.operands.len() - b.operands;
        let too_big = |n: usize| u32::try_from(n).map_err(|_| BodyError::Inconsistent("scope"));
        let counts = (too_big(len)?, too_big(mods)?, too_big(operands)?);
        // Set in place: assigning a whole entry would drop the old one through its drop glue.
        match self.stmts.get_mut(b.at) {
            Some(Stmt::Block {
                len,
                mods,
                operands,
            }) => {
                (*len, *mods, *operands) = counts;
                Ok(())
            }
            _ => Err(BodyError::Inconsistent("scope closed twice")),
        }
    }

    /// Appends a statement tree.
    pub fn extend(&mut self, stmts: &[Statement]) -> Result<(), BodyError> {
        for s in stmts {
            match s {
                Statement::Inst(i) => self.push_instruction(i)?,
                Statement::Block(b) => {
                    let open = self.open_block();
                    self.extend(b)?;
                    self.close_block(open)?;
                }
                other => self.push_statement(other.clone())?,
            }
        }
        Ok(())
    }

    /// Appends a plain declaration (as [`Self::push_decl`] keeps one).
    pub fn push_plain_decl(&mut self, d: PlainDecl) {
        self.discard_operands();
        self.stmts.push(Stmt::PlainDecl(d));
    }

    /// Appends a declaration: kept in its entry if it is plain, so that reading `.reg` lines
    /// allocates nothing.
    pub fn push_decl(&mut self, d: VarDecl) {
        self.discard_operands();
        self.stmts.push(Stmt::decl_value(d));
    }

    /// Appends a statement (a scope with everything in it).
    pub fn push_statement(&mut self, s: Statement) -> Result<(), BodyError> {
        let e = match s {
            Statement::Inst(i) => return self.push_instruction(&i),
            Statement::Block(b) => {
                let open = self.open_block();
                for s in b {
                    self.push_statement(s)?;
                }
                return self.close_block(open);
            }
            Statement::Label(n) => Stmt::Label(n),
            Statement::Decl(d) => Stmt::decl(d),
            Statement::Loc(l) => Stmt::loc(l),
            Statement::Pragma(p) => Stmt::Pragma(Box::new(p.into())),
            Statement::BranchTargets { label, targets } => Stmt::BranchTargets(Box::new(Targets {
                label,
                targets: targets.into(),
            })),
            Statement::CallTargets { label, targets } => Stmt::CallTargets(Box::new(Targets {
                label,
                targets: targets.into(),
            })),
            Statement::CallPrototype { label, proto } => {
                Stmt::CallPrototype(Box::new((label, *proto)))
            }
        };
        self.discard_operands();
        self.stmts.push(e);
        Ok(())
    }

    /// A builder whose arrays start with room for `entries` entries, `mods` modifiers and
    /// `cells` operand cells (see [`BodyBuilder::into_body`]).
    pub fn with_capacity(entries: usize, mods: usize, cells: usize) -> BodyBuilder {
        BodyBuilder {
            stmts: Vec::with_capacity(entries),
            mods: Vec::with_capacity(mods),
            operands: Vec::with_capacity(cells),
            claimed: 0,
        }
    }

    /// The body built, keeping the builder's arrays (shrunk to their length, which the
    /// allocator does in place): for a builder made for one body with a good capacity estimate
    /// ([`BodyBuilder::with_capacity`]), where [`BodyBuilder::finish`] would copy.
    pub fn into_body(mut self) -> Body {
        self.discard_operands();
        let (mut stmts, mut mods, mut operands) = (
            std::mem::take(&mut self.stmts),
            std::mem::take(&mut self.mods),
            std::mem::take(&mut self.operands),
        );
        stmts.shrink_to_fit();
        mods.shrink_to_fit();
        operands.shrink_to_fit();
        Body::from_compact(Compact {
            stmts,
            mods,
            operands,
        })
    }

    /// The body built so far, in exact-size arrays; the builder is left empty for the next.
    pub fn finish(&mut self) -> Body {
        Body::from_compact(self.finish_compact())
    }

    fn finish_compact(&mut self) -> Compact {
        // Moved out (not cloned) into exact-size arrays; the builder keeps its capacity.
        fn take<T>(v: &mut Vec<T>) -> Vec<T> {
            let mut out = Vec::with_capacity(v.len());
            // `append` moves the elements with one copy; `drain().collect()` moved them one by one.
            out.append(v);
            out
        }
        // Operands pushed without their instruction belong to nothing.
        self.discard_operands();
        self.claimed = 0;
        Compact {
            stmts: take(&mut self.stmts),
            mods: take(&mut self.mods),
            operands: take(&mut self.operands),
        }
    }

    /// Drops everything built so far.
    pub fn clear(&mut self) {
        self.stmts.clear();
        self.mods.clear();
        self.operands.clear();
        self.claimed = 0;
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Body {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let stmts: Vec<Statement> = u.arbitrary()?;
        Body::try_from_statements(&stmts).map_err(|_| arbitrary::Error::IncorrectFormat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Type;

    #[test]
    fn entries_are_small() {
        assert_eq!(std::mem::size_of::<Stmt>(), 16);
        assert_eq!(std::mem::size_of::<PackedInst>(), 12);
    }

    fn sample() -> Vec<Statement> {
        let n = |i: usize| Name::from_index(i);
        let add = Instruction::new(
            Opcode::Add,
            [Modifier::Type(Type::S32)],
            [Operand::reg(n(1)), Operand::reg(n(2)), Operand::Int(3)],
        );
        let mut guarded = add.clone();
        guarded.guard = Some(Guard {
            pred: n(4),
            negated: true,
        });
        vec![
            Statement::Label(n(0)),
            Statement::Inst(add.clone()),
            Statement::Block(vec![
                Statement::Inst(guarded.clone()),
                Statement::Block(vec![]),
                Statement::Block(vec![Statement::Inst(add.clone())]),
                Statement::BranchTargets {
                    label: n(5),
                    targets: vec![n(0), n(0)],
                },
            ]),
            Statement::Inst(guarded),
            Statement::Inst(Instruction::new(Opcode::Ret, [], [])),
        ]
    }

    #[test]
    fn statements_round_trip() {
        let s = sample();
        let b = Body::from(s.clone());
        assert!(b.is_compact());
        assert_eq!(b.to_statements(), s);
        assert_eq!(b.instruction_count(), 5);
        assert_eq!(Body::from(b.to_statements()), b);
        let mut edited = b.clone();
        edited
            .statements_mut()
            .push(Statement::Label(Name::from_index(7)));
        assert!(!edited.is_compact());
        assert_ne!(edited, b);
        edited.statements_mut().pop();
        assert_eq!(edited, b);
        edited.compact().unwrap();
        assert!(edited.is_compact());
        assert_eq!(edited, b);
    }

    #[test]
    fn bad_counts_are_rejected() {
        let b = Body::from(sample());
        let Repr::Compact(c) = &b.repr else {
            unreachable!()
        };
        let raw = |stmts: Vec<Stmt>, mods: Vec<Modifier>, operands: Vec<Cell>| {
            Compact::from_parts(stmts, mods, operands)
        };
        assert!(raw(c.stmts.clone(), c.mods.clone(), c.operands.clone()).is_ok());
        let mut short = c.operands.clone();
        short.pop();
        assert!(raw(c.stmts.clone(), c.mods.clone(), short).is_err());
        let mut stmts = c.stmts.clone();
        stmts[2] = Stmt::Block {
            len: 99,
            mods: 0,
            operands: 0,
        };
        assert!(raw(stmts, c.mods.clone(), c.operands.clone()).is_err());
        let mut stmts = c.stmts.clone();
        stmts[2] = Stmt::Block {
            len: 5,
            mods: 1,
            operands: 3,
        };
        assert!(raw(stmts, c.mods.clone(), c.operands.clone()).is_err());
    }

    #[test]
    fn deep_scopes_are_checked_without_recursion() {
        let nest = |n: usize| -> Vec<Stmt> {
            let mut v: Vec<Stmt> = (0..n)
                .map(|i| Stmt::Block {
                    len: (n - i) as u32,
                    mods: 0,
                    operands: 0,
                })
                .collect();
            v.push(Stmt::Label(Name::from_index(0)));
            v
        };
        assert_eq!(check_counts(&nest(MAX_SCOPE_DEPTH)), Ok((0, 0)));
        assert_eq!(
            check_counts(&nest(MAX_SCOPE_DEPTH + 1)),
            Err(BodyError::TooDeep)
        );
        assert_eq!(check_counts(&nest(1_000_000)), Err(BodyError::TooDeep));
        // Empty scopes, also last.
        let empty = Stmt::Block {
            len: 0,
            mods: 0,
            operands: 0,
        };
        assert_eq!(check_counts(&[empty.clone(), empty]), Ok((0, 0)));
    }

    #[test]
    fn what_does_not_fit_stays_a_tree() {
        let many = Instruction::new(
            Opcode::Ret,
            vec![Modifier::Type(Type::U32); MAX_MODS + 1],
            [],
        );
        let stmts = vec![Statement::Inst(many)];
        assert!(matches!(
            Body::try_from_statements(&stmts),
            Err(BodyError::TooMany {
                what: "modifiers",
                ..
            })
        ));
        let b = Body::from(stmts.clone());
        assert!(!b.is_compact());
        assert_eq!(b.statements(), stmts.as_slice());
        let mut c = b.clone();
        assert!(c.compact().is_err());
        assert_eq!(c, b);
    }

    #[test]
    fn unclaimed_operands_belong_to_no_instruction() {
        let reg = |i: usize| Operand::Reg {
            name: Name::from_index(i),
            sel: crate::operand::Selector::NONE,
        };
        let mut b = BodyBuilder::default();
        // Left over by a statement of another kind, by a failed instruction, by the end.
        b.push_register(Name::from_index(9));
        b.push_statement(Statement::Label(Name::from_index(1)))
            .unwrap();
        b.push_operand(&reg(2)).unwrap();
        b.push_register(Name::from_index(3));
        assert_eq!(b.pending_operands().to_vec(), vec![reg(2), reg(3)]);
        b.push_inst(None, Opcode::Mov, &[Modifier::Type(Type::U32)])
            .unwrap();
        assert!(b.pending_operands().is_empty());
        b.push_register(Name::from_index(4));
        let many = vec![Modifier::Type(Type::U32); MAX_MODS + 1];
        assert!(b.push_inst(None, Opcode::Ret, &many).is_err());
        assert!(b.pending_operands().is_empty());
        b.push_register(Name::from_index(5));
        let body = b.finish();
        let want = vec![
            Statement::Label(Name::from_index(1)),
            Statement::Inst(Instruction::new(
                Opcode::Mov,
                vec![Modifier::Type(Type::U32)],
                [reg(2), reg(3)],
            )),
        ];
        assert_eq!(body.to_statements(), want);
        assert!(b.pending_operands().is_empty());
    }
}
