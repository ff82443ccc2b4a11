//! Instruction words resolved by any reader of the process.
//!
//! Each thread keeps the words it has resolved (`Words`), but a thread's first module, or the
//! first after its table was dropped, resolved every word again: splitting the mnemonic,
//! looking up each qualifier and matching the opcode's forms, about 600 machine instructions a
//! word, half the reading time of a small module. Resolving is a function of the word's
//! spelling alone, so its result is shared here, behind a lock taken only on a thread's miss.
//! The table is bounded (entries and bytes); past the bound new words are resolved and not
//! kept.

use ptx_ir_core::{Mods, Opcode};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

/// A resolved word: its opcode, its qualifiers, and the indices of the forms that take them.
pub(crate) type Resolved = (Opcode, Mods, SmallVec<[u16; 6]>);

/// At most this many words, and this many bytes of their spellings.
const MAX_WORDS: usize = 1 << 14;
const MAX_BYTES: usize = 1 << 20;

#[derive(Default)]
struct Table {
    words: HashMap<Box<[u8]>, Resolved>,
    bytes: usize,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

/// The resolution of `word`, if a reader of this process made it (never while reading with
/// the fast paths off, which resolve every word themselves).
pub(crate) fn get(word: &[u8]) -> Option<Resolved> {
    if super::general_only() {
        return None;
    }
    table().read().ok()?.words.get(word).cloned()
}

/// Keeps the resolution `r` of `word` for the process's other readers.
pub(crate) fn put(word: &[u8], r: &Resolved) {
    if super::general_only() {
        return;
    }
    let Ok(mut t) = table().write() else {
        return;
    };
    if t.words.len() < MAX_WORDS && t.bytes + word.len() <= MAX_BYTES {
        t.bytes += word.len();
        t.words.entry(word.into()).or_insert_with(|| r.clone());
    }
}

#[cfg(test)]
mod tests {
    /// A word one thread resolved is found by another, which reads the module as the general
    /// paths (which resolve every word themselves) do; a word that does not resolve is not
    /// kept, and fails alike on every thread.
    #[test]
    fn words_are_shared_between_threads() {
        let src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
                   .reg .b32 %r<4>;\n\tmul.hi.u32 %r1, %r2, %r3;\n\tbrev.b32 %r1, %r2;\n\tret;\n}\n";
        let first = std::thread::spawn(move || crate::parse(src).map_err(|e| e.to_string()))
            .join()
            .unwrap();
        assert!(super::get(b"mul.hi.u32").is_some());
        assert!(super::get(b"brev.b32").is_some());
        let second = std::thread::spawn(move || crate::parse(src).map_err(|e| e.to_string()))
            .join()
            .unwrap();
        let general =
            super::super::with_general_paths(|| crate::parse(src).map_err(|e| e.to_string()));
        assert_eq!(first, general);
        assert_eq!(second, general);
        let bad = src.replace("brev.b32", "brev.q32");
        let read = |s: String| {
            std::thread::spawn(move || crate::parse(&s).map_err(|e| e.to_string()))
                .join()
                .unwrap()
        };
        let e1 = read(bad.clone());
        assert!(super::get(b"brev.q32").is_none());
        assert_eq!(e1, read(bad));
        assert!(e1.is_err());
    }
}
