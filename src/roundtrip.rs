//! The round-trip check shared by `ptx roundtrip` and the corpus tests: the IR of a file must
//! survive printing and re-reading unchanged, and printing must be a fixpoint.

use crate::ir::{Item, Module};
use crate::text;

/// What broke in a round trip.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoundTripError {
    /// The source text does not parse.
    #[error("{0}")]
    Parse(text::ParseError),
    /// The printed text does not parse.
    #[error("printed text does not parse: {0}")]
    PrintedDoesNotParse(text::ParseError),
    /// The re-read IR differs from the original; the text says where
    /// ([`first_difference`]).
    #[error("{0}")]
    Differs(String),
    /// Printing the re-read IR gives other text: printing is not a fixpoint.
    #[error("printing is not a fixpoint (first difference at printed line {line})")]
    NotFixpoint {
        /// The first printed line that differs (from 1).
        line: usize,
    },
    /// The module does not encode as bytecode.
    #[error("bytecode: encoding failed: {0}")]
    Encode(crate::binary::EncodeError),
    /// Encoding the module twice gives different bytes.
    #[error("bytecode: encoding is not deterministic")]
    NotDeterministic,
    /// The module's bytecode does not decode.
    #[error("bytecode: decoding failed: {0}")]
    Decode(crate::binary::DecodeError),
    /// The decoded IR differs from the module; the text says where ([`first_difference`]).
    #[error("bytecode: IR differs after decoding: {0}")]
    DecodedDiffers(String),
    /// The decoded module prints other text.
    #[error("bytecode: decoded module prints differently")]
    DecodedPrintsDifferently,
}

/// Checks one source text.
pub fn check_text(src: &str, file: &str) -> Result<Module, RoundTripError> {
    let m1 = text::parse_file(src, file).map_err(RoundTripError::Parse)?;
    check_module(&m1)?;
    Ok(m1)
}

/// Checks that `m` prints, re-reads to the same IR, and prints identically again.
pub fn check_module(m1: &Module) -> Result<(), RoundTripError> {
    let t1 = text::print(m1);
    let m2 = text::parse_file(&t1, "<printed>").map_err(RoundTripError::PrintedDoesNotParse)?;
    if &m2 != m1 {
        return Err(RoundTripError::Differs(first_difference(m1, &m2)));
    }
    let t2 = text::print(&m2);
    if t1 != t2 {
        let line = t1
            .lines()
            .zip(t2.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(RoundTripError::NotFixpoint { line: line + 1 });
    }
    Ok(())
}

/// Describes where two modules differ.
pub fn first_difference(a: &Module, b: &Module) -> String {
    if a.version != b.version || a.target != b.target || a.address_size != b.address_size {
        return "module header differs after re-reading".into();
    }
    if a.items.len() != b.items.len() {
        return format!(
            "{} items before, {} after re-reading",
            a.items.len(),
            b.items.len()
        );
    }
    for (k, (x, y)) in a.items.iter().zip(&b.items).enumerate() {
        if x == y {
            continue;
        }
        if let (Item::Function(f), Item::Function(g)) = (x, y) {
            if let (Some(bf), Some(bg)) = (f.statements(), g.statements()) {
                for (j, (s, t)) in bf.iter().zip(bg).enumerate() {
                    if s != t {
                        return format!(
                            "item {k} (function `{}`), statement {j} differs: {s:?} vs {t:?}",
                            a.names.get(f.name)
                        );
                    }
                }
            }
        }
        return format!("item {k} differs after re-reading: {x:?} vs {y:?}");
    }
    if a.names != b.names {
        return "name tables differ (names interned in a different order)".into();
    }
    "modules differ".into()
}
