//! Helpers shared by the integration tests that read the shared corpus.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

pub mod forms;

use std::path::{Path, PathBuf};

/// The shared corpus, beside the project root.
pub fn corpus_dir() -> PathBuf {
    shared_dir("corpus")
}

/// `../shared/<sub>` beside the project root: the shared corpus, seeds and hardware vectors the
/// tests read in place. Missing, it is a failure that says so, never a skipped test.
pub fn shared_dir(sub: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub);
    assert!(
        p.exists(),
        "{} not found: the tests need the folder `shared` beside the project root (README.md, \
         \"The shared folder\")",
        p.display()
    );
    p
}

/// Every `.ptx` file under `dir`, recursively, in path order.
pub fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

/// `(name, reason)` of each entry of a `known_failures.txt` (`NAME  reason` lines, `#`
/// comments); an entry without a reason fails the test.
pub fn known_failures(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (name, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        assert!(
            !reason.trim().is_empty(),
            "{}: `{name}` has no reason",
            path.display()
        );
        out.push((name.to_string(), reason.trim().to_string()));
    }
    out
}
