//! The benchmark corpus: `shared/corpus` beside the project root (or `$PTX_CORPUS`), grouped by
//! folder. Shared by the `corpus` bench and the `irsize` example.

use std::path::{Path, PathBuf};

/// The corpus folders reported separately, as paths relative to the corpus root.
pub const GROUPS: &[&str] = &["nvcc", "triton", "lib/nccl", "lib/curand"];

/// One corpus file.
pub struct CorpusFile {
    /// Path relative to the corpus root (`lib/curand/1.ptx`).
    pub rel: String,
    /// The text.
    pub src: String,
}

/// The corpus root.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("PTX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

/// Every `.ptx` file of the corpus, sorted by path. Exits with a message if there is none.
pub fn load() -> Vec<CorpusFile> {
    let root = corpus_dir();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    if paths.is_empty() {
        eprintln!(
            "no .ptx files under {} (set PTX_CORPUS to the corpus folder)",
            root.display()
        );
        std::process::exit(2);
    }
    paths
        .iter()
        .map(|p| CorpusFile {
            rel: p
                .strip_prefix(&root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/"),
            src: std::fs::read_to_string(p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display())),
        })
        .collect()
}

/// The 18 files ZLUDA's `ptx_parser` (commit `8a7931be`) reads, for side-by-side figures
/// (docs/PERFORMANCE.md): every cuRAND file, four of NCCL's, one of nvcc's, three of Triton's.
pub const ZLUDA_READS: &[&str] = &[
    "lib/curand/",
    "lib/nccl/5.ptx",
    "lib/nccl/6.ptx",
    "lib/nccl/10.ptx",
    "lib/nccl/11.ptx",
    "nvcc/thrust_cub_sm_90.ptx",
    "triton/tr_add.ptx",
    "triton/tr_layernorm.ptx",
    "triton/tr_softmax.ptx",
];

/// The report rows: each folder of [`GROUPS`], then `all`, then the files ZLUDA reads.
pub fn groups() -> impl Iterator<Item = &'static str> {
    GROUPS.iter().copied().chain(["all", "zluda-18"])
}

/// Whether the file at `rel` belongs to report row `group`.
pub fn in_group(rel: &str, group: &str) -> bool {
    match group {
        "all" => true,
        "zluda-18" => ZLUDA_READS
            .iter()
            .any(|z| rel.starts_with(z) && (z.ends_with('/') || rel == *z)),
        _ => rel.strip_prefix(group).is_some_and(|r| r.starts_with('/')),
    }
}
