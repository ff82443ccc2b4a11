//! The libFuzzer dictionary (`fuzz/ptx.dict`, `ptx_ir_oracles::dict`): the committed file is the
//! generated one, every entry is one libFuzzer reads and uses, every listed directive is one the
//! reader knows, and every dotted word the printer writes is in the dictionary.

use arbitrary::Unstructured;
use ptx_ir_core::generate::{self, full};
use ptx_ir_core::Opcode;
use ptx_ir_oracles::dict::{self, DIRECTIVES};
use ptx_ir_oracles::Bytes;
use std::collections::BTreeSet;

const REGENERATE: &str =
    "cargo run --release -p ptx-ir-oracles --example write_dict > fuzz/ptx.dict";

#[test]
fn committed_dictionary_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ptx.dict");
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; write it with `{REGENERATE}`", path.display()));
    let generated = dict::ptx_dictionary();
    if committed != generated {
        let old: BTreeSet<&str> = committed.lines().collect();
        let new: BTreeSet<&str> = generated.lines().collect();
        let gone: Vec<&&str> = old.difference(&new).take(20).collect();
        let added: Vec<&&str> = new.difference(&old).take(20).collect();
        panic!(
            "fuzz/ptx.dict is stale (lines only in the file: {gone:?}; only generated: {added:?}); \
             regenerate it with `{REGENERATE}`"
        );
    }
}

/// Each line reads back (as libFuzzer parses it) to the word it was written from, and no word
/// is longer than libFuzzer's dictionary words (64 bytes: longer ones are silently dropped).
#[test]
fn entries_read_back() {
    let text = dict::ptx_dictionary();
    let mut read = BTreeSet::new();
    for line in text.lines() {
        match dict::unescape_line(line) {
            Ok(Some(word)) => {
                assert!(
                    !word.is_empty() && word.len() <= 64,
                    "entry of {} bytes: {line}",
                    word.len()
                );
                assert!(read.insert(word), "duplicate entry {line}");
            }
            Ok(None) => assert!(line.is_empty() || line.starts_with('#'), "{line}"),
            Err(e) => panic!("libFuzzer would refuse `{line}`: {e}"),
        }
    }
    let words: BTreeSet<Vec<u8>> = dict::words().into_iter().map(String::into_bytes).collect();
    assert_eq!(read, words);
    assert_eq!(dict::escape("a\"b\\c\n"), "\"a\\\"b\\\\c\\x0A\"");
    assert_eq!(
        dict::unescape_line("kw=\"\\x41\\\"\"").unwrap(),
        Some(b"A\"".to_vec())
    );
}

/// The directive probes: a module header, then the word in each place a directive can stand.
/// Each probe answers with its own message for a word it does not know.
fn probes(d: &str) -> [(String, &'static str); 5] {
    let h = ".version 8.0\n.target sm_90\n.address_size 64\n";
    [
        (format!("{h}.{d}"), "unknown module-level directive"),
        (format!("{h}.entry k() .{d}"), "unknown function directive"),
        (format!("{h}.entry k() {{ .{d} }}"), "unknown directive"),
        (format!("{h}.global .{d} .b32 x;"), "in a declaration"),
        (
            format!("{h}.global .attribute(.{d}) .b32 x;"),
            "expected `.managed` or `.unified(...)`",
        ),
    ]
}

fn known_to_reader(d: &str) -> bool {
    probes(d)
        .iter()
        .any(|(src, unknown)| match ptx_ir_text::parse(src) {
            Ok(_) => true,
            Err(e) => !e.message.contains(unknown),
        })
}

#[test]
fn directives_are_known_to_the_reader() {
    assert!(
        !known_to_reader("nosuchdirective"),
        "the probes no longer tell an unknown directive apart"
    );
    let unknown: Vec<&&str> = DIRECTIVES.iter().filter(|d| !known_to_reader(d)).collect();
    assert!(
        unknown.is_empty(),
        "directives the reader does not know: {unknown:?}"
    );
}

/// The dotted words of printed text: `.word` and `.a::b` after a mnemonic, a register or on
/// their own; the mnemonic itself (the longest opcode name the word starts with) and number
/// fractions are skipped, and so are strings.
fn dotted_words(text: &str, out: &mut BTreeSet<String>) {
    let opcodes: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
    let mut in_string = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut BTreeSet<String>| {
        if word.contains('.') {
            let mut rest = word.as_str();
            if !rest.starts_with('.') {
                let op = opcodes
                    .iter()
                    .filter(|o| {
                        rest.starts_with(**o)
                            && matches!(rest.as_bytes().get(o.len()), None | Some(b'.'))
                    })
                    .max_by_key(|o| o.len());
                rest = match (op, rest.find('.')) {
                    (Some(op), _) => &rest[op.len()..],
                    (None, Some(dot)) => &rest[dot..],
                    (None, None) => "",
                };
            }
            for part in rest.split('.').skip(1) {
                if part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                    out.insert(format!(".{part}"));
                }
            }
        }
        word.clear();
    };
    for c in text.chars() {
        if in_string {
            in_string = c != '"';
            continue;
        }
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | ':' | '%') {
            word.push(c);
        } else {
            flush(&mut word, out);
            in_string = c == '"';
        }
    }
    flush(&mut word, out);
}

#[test]
fn printed_words_are_in_the_dictionary() {
    let dictionary = dict::words();
    let mut seen = BTreeSet::new();
    let mut src = Bytes::new(0xD1C7);
    let mut modules = 0;
    for k in 0..600 {
        let data = src.fill(2048 + (k % 4) * 2048);
        let mut u = Unstructured::new(&data);
        let m = if k % 3 == 2 {
            generate::module(&mut u)
        } else {
            full::module(&mut u, &full::Config::default())
        };
        if let Ok(m) = m {
            dotted_words(&ptx_ir_text::print(&m), &mut seen);
            modules += 1;
        }
    }
    assert!(modules > 300, "only {modules} modules generated");
    let missing: Vec<&String> = seen
        .iter()
        .filter(|w| {
            // Section names may carry a number (`.debug_info3`).
            !dictionary.contains(*w)
                && !dictionary.contains(w.trim_end_matches(|c: char| c.is_ascii_digit()))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "printed words missing from the dictionary: {missing:?}"
    );
    // The generators draw every function directive and declaration form.
    for d in [
        "maxntid",
        "reqntid",
        "noreturn",
        "alias",
        "section",
        "loc",
        "attribute",
    ] {
        assert!(
            seen.contains(&format!(".{d}")),
            ".{d} never printed: the generator changed"
        );
    }
}
