//! Encodes every `.ptx` file under a folder (default `../shared/corpus`) and decodes each once:
//! a fixed workload for instruction counts of the decoder, which are steadier than times on a
//! shared machine:
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
    let mut items = 0;
    for b in &encoded {
        let m = ptx_ir_binary::decode(b).expect("decodes");
        items += m.items.len();
    }
    println!("{} files, {} items decoded", encoded.len(), items);
}
