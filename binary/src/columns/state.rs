//! The column decoder's per-thread state and shared types: the bounds the bodies of the module
//! being decoded are checked against, the typed fault that stopped a decode, and the byte
//! strings the columns are. A leaf of the column modules.

use ptx_ir_core::body::{Stmt, MAX_SCOPE_DEPTH};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;

/// Deepest operand nesting a decoded body may have: above the bytecode's `validate` bound
/// ([`crate::MAX_NESTING`], 384), so that every module it accepts decodes, and low enough for
/// the recursive decoder's stack. The reader produces at most 16.
pub const MAX_OPERAND_DEPTH: u32 = 1024;

// One structural bound for both nestings, so that one limit can be reported.
const _: () = assert!(MAX_SCOPE_DEPTH == MAX_OPERAND_DEPTH as usize);

/// A decoder's check of a statement entry decoded through serde (a declaration with an
/// initialiser, a pragma, a target list, ...), given the string table's size.
pub(crate) type CheckStmt = fn(&Stmt, usize) -> Result<(), String>;

/// The checks a decoder asks of the columns it decodes on this thread (see
/// [`super::with_decode_bounds`]).
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    /// Names must index a string table of this many names.
    pub(crate) names: u32,
    /// Lists, pairs and negations nest at most this deep.
    pub(crate) depth: u32,
    /// Scopes nest at most this deep.
    pub(crate) scopes: u32,
    /// Instructions must match a form of their opcode, and operands be of the reader's
    /// shapes (no tuple of fewer than two operands, negated unsigned literal, decimal NaN or
    /// symbol with an offset before a pair's `|`).
    pub(crate) reader_forms: bool,
    /// The caller's check of the entries that come from `others`.
    pub(crate) check: Option<CheckStmt>,
}

impl Bounds {
    /// What the columns themselves require: names that fit a `Name`, nesting the decoder's
    /// stack can take.
    pub(crate) const STRUCTURAL: Bounds = Bounds {
        names: u32::MAX - 1,
        depth: MAX_OPERAND_DEPTH,
        scopes: MAX_SCOPE_DEPTH as u32,
        reader_forms: false,
        check: None,
    };

    /// The bounds of this thread's decode ([`Bounds::STRUCTURAL`] outside one).
    pub(crate) fn current() -> Bounds {
        BOUNDS.with(|b| b.get()).unwrap_or(Bounds::STRUCTURAL)
    }
}

/// Why a column did not decode: kept typed beside serde's string error (see [`fault`]), so
/// that the decoder reports nesting bounds as such.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Operands or scopes nested past `limit`.
    TooDeep { what: &'static str, limit: u32 },
    /// Any other fault, with its message.
    Invalid(String),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::TooDeep { what, limit } => write!(f, "{what} nested past {limit} levels"),
            Fault::Invalid(m) => f.write_str(m),
        }
    }
}

thread_local! {
    static BOUNDS: Cell<Option<Bounds>> = const { Cell::new(None) };
    static FAULT: RefCell<Option<Fault>> = const { RefCell::new(None) };
}

/// The serde error of `f`, with `f` kept for [`take_fault`].
pub(crate) fn fault<E: de::Error>(f: Fault) -> E {
    let e = E::custom(&f);
    FAULT.with(|c| *c.borrow_mut() = Some(f));
    e
}

/// Sets this thread's bounds (`None`: outside a decode); returns the previous ones.
pub(crate) fn replace_bounds(b: Option<Bounds>) -> Option<Bounds> {
    BOUNDS.with(|x| x.replace(b))
}

/// The fault a column decode on this thread stopped at, if any (cleared).
pub(crate) fn take_fault() -> Option<Fault> {
    FAULT.with(|c| c.borrow_mut().take())
}

/// A byte string for serde: serialized with `serialize_bytes` (bincode: a length and the
/// bytes), borrowed from the input when the format allows. The columns are these.
pub(crate) struct Blob<'a>(pub(crate) Cow<'a, [u8]>);

impl Serialize for Blob<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Blob<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Blob<'a>, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Blob<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Blob<'a>, E> {
                Ok(Blob(Cow::Borrowed(v)))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Blob<'a>, E> {
                Ok(Blob(Cow::Owned(v.to_vec())))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Blob<'a>, E> {
                Ok(Blob(Cow::Owned(v)))
            }
            // Formats without byte strings (JSON) write a sequence of numbers.
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Blob<'a>, A::Error> {
                let mut v = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    v.push(b);
                }
                Ok(Blob(Cow::Owned(v)))
            }
        }
        d.deserialize_bytes(V(std::marker::PhantomData))
    }
}
