//! Helpers shared by the integration tests that read the shared corpus.

use std::path::{Path, PathBuf};

/// The shared corpus, beside the project root.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
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
