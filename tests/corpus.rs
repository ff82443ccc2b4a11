//! Every file of `../shared/corpus` parses, round-trips on the IR, and prints as a fixpoint.

mod common;
use common::{corpus_dir, ptx_files};

#[test]
fn corpus_round_trips() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    ptx_files(&dir, &mut files);
    assert!(
        files.len() >= 41,
        "expected the shared corpus at {} (found {} files)",
        dir.display(),
        files.len()
    );
    let mut failures = Vec::new();
    let mut insts = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("corpus file is UTF-8");
        match ptx_ir::roundtrip::check_text(&src, &f.display().to_string()) {
            Ok(m) => insts += m.instruction_count(),
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(insts > 100_000, "suspiciously few instructions: {insts}");
}
