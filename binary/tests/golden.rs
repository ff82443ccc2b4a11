//! The committed golden bytecode files still decode to the IR of their PTX sources, and
//! encoding those sources still gives exactly the committed bytes.
//!
//! This is the test that catches format changes that nothing else would: an enum of the IR
//! reordered, or a variant inserted before the end (the instruction table, a modifier class, the
//! statement or operand kinds), a field added, moved or retyped. The goldens are encoded
//! uncompressed ([`Codec::Stored`]), so their bytes depend only on the IR and bincode.
//!
//! When it fails: if the change to the IR or the table is intended, bump
//! `ptx_ir_binary::FORMAT_VERSION` (see `binary/FORMAT.md`, "Compatibility") and regenerate with
//! `PTX_BLESS_BYTECODE=1 cargo test -p ptx-ir-binary --test golden`.

use ptx_ir_binary::{decode, encode_with, Codec, DecodeError};
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/golden/bytecode")
}

fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("corpus/golden/bytecode exists")
        .map(|e| e.expect("readable dir").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

const HOW: &str = "if the IR, the instruction table or the format changed on purpose, bump \
                   FORMAT_VERSION in binary/src/lib.rs and regenerate the goldens with \
                   `PTX_BLESS_BYTECODE=1 cargo test -p ptx-ir-binary --test golden`";

#[test]
fn golden_bytecode_decodes_to_the_same_ir() {
    let srcs = sources();
    assert!(
        srcs.len() >= 5,
        "expected the golden sources in {:?}",
        golden_dir()
    );
    let bless = std::env::var_os("PTX_BLESS_BYTECODE").is_some();
    let mut failures = Vec::new();
    for src in &srcs {
        let text = std::fs::read_to_string(src).expect("golden source is UTF-8");
        let m = ptx_ir_text::parse_file(&text, &src.display().to_string())
            .unwrap_or_else(|e| panic!("golden source does not parse: {e}"));
        let bytes = encode_with(&m, Codec::Stored).expect("encodes");
        let golden = src.with_extension("ptxb");
        if bless {
            std::fs::write(&golden, &bytes).expect("writes the golden file");
            continue;
        }
        let committed =
            std::fs::read(&golden).unwrap_or_else(|e| panic!("{}: {e}; {HOW}", golden.display()));
        match decode(&committed) {
            Ok(d) if d == m => {
                assert_eq!(ptx_ir_text::print(&d), ptx_ir_text::print(&m));
            }
            Ok(_) => failures.push(format!(
                "{}: decodes to a different IR than {} (an IR enum was reordered or extended \
                 before its end, or the reader changed)",
                golden.display(),
                src.display()
            )),
            Err(e @ DecodeError::TableMismatch { .. }) => {
                failures.push(format!("{}: {e}", golden.display()))
            }
            Err(e) => failures.push(format!("{}: does not decode: {e}", golden.display())),
        }
        if committed != bytes {
            let at = committed
                .iter()
                .zip(&bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(committed.len().min(bytes.len()));
            failures.push(format!(
                "{}: encoding {} now gives different bytes (first difference at offset {at}, \
                 {} bytes committed, {} now)",
                golden.display(),
                src.display(),
                committed.len(),
                bytes.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}\n{HOW}", failures.join("\n"));
}
