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

/// Reading in parts on several threads gives the module a serial read gives, for every file
/// (those over 512 KiB are cut; the rest go through the serial path).
#[test]
fn corpus_reads_the_same_in_parts() {
    let mut files = Vec::new();
    ptx_files(&corpus_dir(), &mut files);
    let mut cut = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("corpus file is UTF-8");
        let name = f.display().to_string();
        let serial = ptx_ir::text::parse_file(&src, &name).expect("corpus file parses");
        for threads in [2, 3, 8] {
            let parts = ptx_ir::text::parse_parallel(&src, &name, threads).expect("parses");
            assert!(parts == serial, "{name} on {threads} threads");
        }
        cut += usize::from(src.len() >= 512 << 10);
    }
    assert!(cut >= 8, "only {cut} files large enough to cut");
}
