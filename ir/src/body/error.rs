//! Why a statement tree or decoded arrays cannot be a [`Body`](super::Body), and the bounds
//! behind it: a leaf that the body and its operand cells both use.

use std::fmt;

/// The most modifiers one instruction can have in a [`Body`](super::Body).
pub const MAX_MODS: usize = u8::MAX as usize;
/// The most operand cells one instruction can have in a [`Body`](super::Body): one per operand and per
/// list element, plus one for each 64-bit value that does not fit a cell's 56 bits.
pub const MAX_OPERANDS: usize = u16::MAX as usize;

/// The deepest nesting of `{ }` scopes a decoded [`Body`](super::Body) may have.
pub const MAX_SCOPE_DEPTH: usize = 1024;

/// Why a statement tree or serialized body cannot be a [`Body`](super::Body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// An instruction with more than [`MAX_MODS`] modifiers or [`MAX_OPERANDS`] operands.
    TooMany {
        /// What overflowed (`modifiers`, `operands`).
        what: &'static str,
        /// How many there were.
        count: usize,
    },
    /// Entries, modifier or operand counts that do not add up.
    Inconsistent(&'static str),
    /// Scopes nested more than [`MAX_SCOPE_DEPTH`] deep.
    TooDeep,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::TooMany { what, count } => {
                write!(
                    f,
                    "an instruction has {count} {what}, more than a body can hold"
                )
            }
            BodyError::Inconsistent(what) => write!(f, "inconsistent body: {what}"),
            BodyError::TooDeep => {
                write!(f, "scopes nested past {MAX_SCOPE_DEPTH} levels")
            }
        }
    }
}

impl std::error::Error for BodyError {}
