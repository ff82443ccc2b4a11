//! Parses every `.ptx` file under a folder (default `../shared/corpus`), encodes it, decodes it
//! and prints the decoded module, once each: a fixed workload for instruction counts of the
//! reader, the decoder and the printer, which are steadier than times on a shared machine
//! (`--toggle-collect` picks the function: `ptx_ir_text::parse_file*`,
//! `ptx_ir_binary::decode_with*`, `ptx_ir_text::print::print*`):
//!
//! ```sh
//! cargo build --release -p ptx-ir-binary --example decode_corpus
//! valgrind --tool=callgrind --toggle-collect='ptx_ir_binary::decode_with*' \
//!     target/release/examples/decode_corpus
//! ```

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files(&p, out)
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p)
        }
    }
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut encoded = Vec::new();
    for p in &paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        let m = match ptx_ir_text::parse_file(&text, &p.display().to_string()) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        encoded.push(ptx_ir_binary::encode(&m).expect("encodes"));
    }
    let mut modules = Vec::new();
    for b in &encoded {
        modules.push(ptx_ir_binary::decode(b).expect("decodes"));
    }
    let printed: usize = modules.iter().map(|m| ptx_ir_text::print(m).len()).sum();
    println!("{} files decoded, {printed} bytes printed", encoded.len());
}
