//! The typed IR of `ptx-ir`: modules, directives, functions, statements and typed instructions
//! for NVIDIA PTX ISA 9.0, with the one instruction table ([`table`]) every consumer derives
//! from.
//!
//! The IR is plain data: enums and structs with `serde` derives (the bytecode) and, with the
//! `arbitrary` feature, `Arbitrary` derives (the fuzzers). Names are interned per module
//! ([`Interner`]); instructions keep their qualifiers in source order as typed [`Modifier`]s and
//! their operands as typed [`Operand`]s. A function body is a compact [`Body`] (flat statement
//! entries, a modifier pool and a pool of 8-byte operand cells); [`Body::statements`] gives it as a tree of
//! [`Statement`]s and [`Body::statements_mut`] edits it as one.
//!
//! For compiler writers: [`build`] makes modules without writing text (every instruction
//! checked against the table), [`walk`] visits and rewrites them in source order, [`defuse`]
//! says which registers each instruction defines and uses, and [`cfg`](mod@cfg) gives the
//! basic blocks of a function with their successors and predecessors.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod avail;
pub mod body;
pub mod build;
mod bytes;
pub mod cfg;
pub mod check;
pub mod defuse;
pub mod form;
#[cfg(feature = "arbitrary")]
pub mod generate;
mod inst;
pub mod limits;
pub mod module;
pub mod names;
pub mod opaque;
pub mod operand;
mod shape;
mod smreq;
mod special;
mod stmt;
pub mod table;
pub mod verify;
pub mod visit;
pub mod vocab;
pub mod walk;

pub use body::{
    Atom, Body, BodyBuilder, BodyRef, DeclRef, InstRef, ListStart, Literal, LocRef, Operands,
    OperandsIter, PlainDecl, PlainShape, Stmt, StmtRef,
};
pub use inst::{Compare, Guard, Instruction, Mods};
pub use module::*;
pub use names::{ConcatError, Interner, Name};
pub use opaque::{AddressMode, FilterMode, OpaqueField, OpaqueMember, OpaqueValue};
pub use operand::{BinaryOp, Expr, Operand, OperandList, Selector, UnaryOp};
pub use shape::Shape;
pub use special::SpecialReg;
pub use table::{Family, Opcode, UnknownOpcode};
pub use vocab::{
    Cache, CacheOp, Cmp, Count, Dim, Flag, Kind, Layout, ModClass, Modifier, Op, Rounding, Scope,
    Sem, Space, Type, Vector,
};
