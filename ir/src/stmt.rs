//! Statements and declarations: what a function body is made of ([`Statement`], [`VarDecl`],
//! [`Loc`], [`Prototype`]...) and the declaration parts module-level items share ([`Linkage`],
//! [`Attribute`], [`Param`], [`Init`]). A leaf of the IR's module graph, below both
//! [`crate::body`], which stores statements compactly, and [`crate::module`], whose functions
//! hold bodies; `module` re-exports everything here.

use crate::inst::Instruction;
use crate::names::Name;
use crate::operand::Expr;
use crate::vocab::{Space, Type, Vector};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// Linkage of a module-level symbol.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Linkage {
    /// `.extern`
    Extern,
    /// `.visible`
    Visible,
    /// `.weak`
    Weak,
    /// `.common`
    Common,
}

impl Linkage {
    /// The directive spelling with its dot.
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Extern => ".extern",
            Linkage::Visible => ".visible",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

/// `.attribute(...)` qualifier of a variable or function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Attribute {
    /// `.managed`
    Managed,
    /// `.unified(uuid1, uuid2)`
    Unified(u64, u64),
}

/// A parameter of a function or prototype.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Param {
    /// `.param` or `.reg`.
    pub space: Space,
    /// `.align N`
    pub align: Option<u32>,
    /// `.v2`/`.v4`
    pub vector: Option<Vector>,
    /// Element type.
    pub ty: Type,
    /// `.ptr{.space}{.align N}` attribute of a kernel pointer parameter.
    pub ptr: Option<PtrAttr>,
    /// Parameter name (`_` in prototypes).
    pub name: Name,
    /// Array dimensions; `None` for `[]`.
    pub dims: SmallVec<[Option<u64>; 1]>,
}

/// `.ptr` attribute of a kernel parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PtrAttr {
    /// State space the pointer points into.
    pub space: Option<Space>,
    /// Alignment of the pointee.
    pub align: Option<u32>,
}

/// A variable declaration at module or function scope (also `.reg` declarations).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct VarDecl {
    /// Linkage (module scope only).
    pub linkage: Option<Linkage>,
    /// State space.
    pub space: Space,
    /// `.attribute(...)` qualifiers.
    pub attributes: Vec<Attribute>,
    /// `.align N`
    pub align: Option<u32>,
    /// `.v2`/`.v4`/`.v8`
    pub vector: Option<Vector>,
    /// Element type.
    pub ty: Type,
    /// The declared names, in order.
    pub names: SmallVec<[Declarator; 2]>,
}

/// One declared name with its array dimensions, register range and initialiser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Declarator {
    /// The name (the prefix, for a range).
    pub name: Name,
    /// `%r<100>`: declares `%r0` .. `%r99`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]`.
    pub dims: SmallVec<[Option<u64>; 1]>,
    /// Initialiser.
    pub init: Option<Init>,
}

/// A variable initialiser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Init {
    /// A single constant expression.
    Expr(Expr),
    /// A brace list `{a, b, {c, d}}`.
    List(Vec<Init>),
    /// A brace list of plain integers that each fit the element type, stored little-endian at
    /// the element width (the common form of large lookup tables).
    Packed(#[serde(with = "crate::bytes::boxed")] Box<[u8]>),
    /// The member list of a `.texref`, `.samplerref` or `.surfref` variable,
    /// `{ addr_mode_0 = clamp_to_border, filter_mode = nearest }`, in source order (PTX ISA
    /// 5.3; [`crate::opaque`]). The reader gives this, and only this, for the opaque types.
    /// Last, so that the other variants keep their numbers in the bytecode.
    Opaque(Vec<crate::opaque::OpaqueField>),
}

impl Init {
    /// Calls `f` on every name in the initialiser's expressions, in print order.
    pub fn for_each_name(&self, f: &mut impl FnMut(Name)) {
        match self {
            Init::Expr(e) => e.for_each_name(f),
            Init::List(items) => items.iter().for_each(|i| i.for_each_name(f)),
            Init::Packed(_) | Init::Opaque(_) => {}
        }
    }

    /// Whether the reader stores a brace list of plain integers initialising a declaration of
    /// `ty` (with `vector`) as [`Init::Packed`]: 8- to 64-bit integer and bit types, no vector.
    pub fn packs(ty: Type, vector: Option<Vector>) -> bool {
        vector.is_none()
            && (ty.is_bits() || ty.is_signed() || ty.is_unsigned())
            && (8..=64).contains(&ty.bits())
    }

    /// The packed bytes of a brace list whose items are all integer literals in the range of
    /// `ty` (`-2^(bits-1) ..= 2^bits - 1`), as the reader stores it; `None` for an empty list or
    /// any other item.
    pub fn pack_literals(items: &[Init], ty: Type) -> Option<Vec<u8>> {
        if items.is_empty() {
            return None;
        }
        let width = (ty.bits() / 8) as usize;
        let mut out = Vec::with_capacity(items.len() * width);
        for it in items {
            let v = match it {
                Init::Expr(Expr::Int(v)) => packed_element(*v < 0, v.unsigned_abs(), ty.bits())?,
                Init::Expr(Expr::Uint(v)) => packed_element(false, *v, ty.bits())?,
                _ => return None,
            };
            out.extend_from_slice(&v.to_le_bytes()[..width]);
        }
        Some(out)
    }
}

/// The bits of the literal `-mag` (or `mag`) as an element of a `bits`-wide integer type, if
/// it is in the type's range (`-2^(bits-1) ..= 2^bits - 1`, as the reader accepts them).
#[inline]
pub fn packed_element(neg: bool, mag: u64, bits: u32) -> Option<u64> {
    if neg {
        (mag <= 1u64 << (bits - 1)).then(|| mag.wrapping_neg())
    } else {
        (mag <= u64::MAX >> (64 - bits)).then_some(mag)
    }
}

/// `.loc` debug location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Loc {
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
    /// Column.
    pub col: u32,
    /// `, function_name label{+off}, inlined_at f l c`
    pub inlined: Option<Box<InlinedAt>>,
}

/// The inlining part of a `.loc`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct InlinedAt {
    /// Label of the inlined function's name string.
    pub function_name: Name,
    /// Offset added to the label.
    pub offset: i64,
    /// File index of the call site.
    pub file: u32,
    /// Line of the call site.
    pub line: u32,
    /// Column of the call site.
    pub col: u32,
}

/// A `.callprototype` signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Prototype {
    /// Return parameters; `None` when the prototype has no return list.
    pub returns: Option<Vec<Param>>,
    /// Parameters; `None` when the prototype has no parameter list.
    pub params: Option<Vec<Param>>,
    /// Directives after the parameters (`.noreturn`, `.abi_preserve N`).
    pub directives: Vec<FuncDirective>,
}

/// A statement of a function body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Statement {
    /// An instruction, possibly guarded.
    Inst(Instruction),
    /// A label `name:`.
    Label(Name),
    /// A declaration (`.reg`, `.local`, `.shared`, `.param`, ...).
    Decl(Box<VarDecl>),
    /// A `.loc` debug location.
    Loc(Loc),
    /// `.pragma "..."`
    Pragma(Box<str>),
    /// A nested `{ ... }` scope.
    Block(Vec<Statement>),
    /// `label: .branchtargets L1, L2, ...;`
    BranchTargets {
        /// The label naming the list.
        label: Name,
        /// Target labels in order.
        targets: Vec<Name>,
    },
    /// `label: .calltargets f1, f2, ...;`
    CallTargets {
        /// The label naming the list.
        label: Name,
        /// Functions in order.
        targets: Vec<Name>,
    },
    /// `label: .callprototype ...;`
    CallPrototype {
        /// The label naming the prototype.
        label: Name,
        /// The signature.
        proto: Box<Prototype>,
    },
}

/// Number of instructions in a statement list, nested blocks included.
pub fn count_instructions(body: &[Statement]) -> usize {
    body.iter()
        .map(|s| match s {
            Statement::Inst(_) => 1,
            Statement::Block(b) => count_instructions(b),
            _ => 0,
        })
        .sum()
}

/// Performance-tuning and ABI directives of a function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum FuncDirective {
    /// `.maxntid nx{, ny{, nz}}`
    MaxNtid(SmallVec<[u32; 3]>),
    /// `.reqntid nx{, ny{, nz}}`
    ReqNtid(SmallVec<[u32; 3]>),
    /// `.minnctapersm n`
    MinNctaPerSm(u32),
    /// `.maxnctapersm n` (deprecated)
    MaxNctaPerSm(u32),
    /// `.maxnreg n`
    MaxNreg(u32),
    /// `.reqnctapercluster nx{, ny{, nz}}`
    ReqNctaPerCluster(SmallVec<[u32; 3]>),
    /// `.explicitcluster`
    ExplicitCluster,
    /// `.maxclusterrank n`
    MaxClusterRank(u32),
    /// `.blocksareclusters`
    BlocksAreClusters,
    /// `.noreturn`
    NoReturn,
    /// `.abi_preserve n`
    AbiPreserve(u32),
    /// `.abi_preserve_control n`
    AbiPreserveControl(u32),
    /// `.pragma "..."` (between the signature and the body).
    Pragma(Box<str>),
}
