//! Size and speed of the bytecode against PTX text, per corpus folder, and of bincode against
//! postcard. Run with `cargo bench -p ptx-ir-binary` (optionally `-- FOLDER...` and `REPS=N`).
//!
//! Speeds are in MB of PTX text per second (the text size of the module divided by the time), so
//! parse, encode and decode compare directly; each figure is the sum over the folder's files of
//! the best of `REPS` runs. Decoded and parsed modules are dropped outside the timed region.
//!
//! The last table bounds what any decoder into this IR can reach: `clone` copies the finished
//! module (every allocation and byte the decoder must make, with nothing to read), `unzstd`
//! decompresses the uncompressed bytecode compressed at zstd's level 3 (what the size goal
//! needs), and `bound` is the parse time over the sum of the two; `unlz4` and `bound-lz4` the
//! same with LZ4 (`lz4_flex`'s block format; `lz4` is that compressed size, at its one level:
//! the `lz4` tool's `-9` compresses further at the same decompression speed, binary/FORMAT.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files(&p, out)
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p)
        }
    }
}

/// Best time of `reps` runs of `f`; what `f` returns is dropped untimed.
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        drop(std::hint::black_box(v));
    }
    best
}

#[derive(Default)]
struct Row {
    files: usize,
    text: usize,
    zstd: usize,
    stored: usize,
    postcard: usize,
    postcard_zstd: usize,
    parse: f64,
    encode: f64,
    decode: f64,
    decode_stored: f64,
    bincode_enc: f64,
    bincode_dec: f64,
    postcard_enc: f64,
    postcard_dec: f64,
    clone: f64,
    unzstd: f64,
    unlz4: f64,
    lz4: usize,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let root = std::env::var_os("CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let folders: Vec<String> = if args.is_empty() {
        ["nvcc", "triton", "lib/curand", "lib/nccl"]
            .map(String::from)
            .to_vec()
    } else {
        args
    };
    let cfg = bincode::config::standard();
    let mut rows = Vec::new();
    for folder in &folders {
        let mut fs = Vec::new();
        files(&root.join(folder), &mut fs);
        let mut r = Row::default();
        for f in &fs {
            let src = std::fs::read_to_string(f).unwrap();
            let m = ptx_ir_text::parse(&src).unwrap();
            let z = ptx_ir_binary::encode(&m).unwrap();
            let st = ptx_ir_binary::encode_with(&m, ptx_ir_binary::Codec::Stored).unwrap();
            let raw = bincode::serde::encode_to_vec(&m, cfg).unwrap();
            let pc = postcard::to_allocvec(&m).unwrap();
            assert_eq!(ptx_ir_binary::decode(&z).unwrap(), m);
            assert_eq!(postcard::from_bytes::<ptx_ir_core::Module>(&pc).unwrap(), m);
            r.files += 1;
            r.text += src.len();
            r.zstd += z.len();
            r.stored += st.len();
            r.postcard += pc.len();
            r.postcard_zstd += zstd::bulk::compress(&pc, 3).unwrap().len();
            r.parse += best(reps, || ptx_ir_text::parse(&src).unwrap());
            r.encode += best(reps, || ptx_ir_binary::encode(&m).unwrap());
            r.decode += best(reps, || ptx_ir_binary::decode(&z).unwrap());
            r.decode_stored += best(reps, || ptx_ir_binary::decode(&st).unwrap());
            r.bincode_enc += best(reps, || bincode::serde::encode_to_vec(&m, cfg).unwrap());
            r.bincode_dec += best(reps, || {
                bincode::serde::borrow_decode_from_slice::<ptx_ir_core::Module, _>(&raw, cfg)
                    .unwrap()
            });
            r.clone += best(reps, || m.clone());
            let frame = zstd::bulk::compress(&st, 3).unwrap();
            let mut dctx = zstd::bulk::Decompressor::new().unwrap();
            r.unzstd += best(reps, || dctx.decompress(&frame, st.len()).unwrap());
            let block = lz4_flex::block::compress(&st);
            r.lz4 += block.len();
            r.unlz4 += best(reps, || {
                lz4_flex::block::decompress(&block, st.len()).unwrap()
            });
            r.postcard_enc += best(reps, || postcard::to_allocvec(&m).unwrap());
            r.postcard_dec += best(reps, || {
                postcard::from_bytes::<ptx_ir_core::Module>(&pc).unwrap()
            });
        }
        rows.push((folder.clone(), r));
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b as f64;
    println!("Sizes (% of the PTX text):");
    println!(
        "{:12} {:>5} {:>10} {:>8} {:>8} {:>9} {:>9}",
        "folder", "files", "text", "ptxb", "stored", "postcard", "pc+zstd"
    );
    for (f, r) in &rows {
        println!(
            "{f:12} {:>5} {:>10} {:>7.1}% {:>7.1}% {:>8.1}% {:>8.1}%",
            r.files,
            r.text,
            pct(r.zstd, r.text),
            pct(r.stored, r.text),
            pct(r.postcard, r.text),
            pct(r.postcard_zstd, r.text)
        );
    }
    println!("\nSpeed (MB of PTX text per second; best of {reps}):");
    println!(
        "{:12} {:>7} {:>7} {:>7} {:>8} {:>7} {:>7} {:>7} {:>7} {:>9}",
        "folder",
        "parse",
        "encode",
        "decode",
        "dec-raw",
        "bc-enc",
        "bc-dec",
        "pc-enc",
        "pc-dec",
        "dec/parse"
    );
    for (f, r) in &rows {
        let s = |t: f64| r.text as f64 / t / 1e6;
        println!(
            "{f:12} {:>7.0} {:>7.0} {:>7.0} {:>8.0} {:>7.0} {:>7.0} {:>7.0} {:>7.0} {:>8.2}x",
            s(r.parse),
            s(r.encode),
            s(r.decode),
            s(r.decode_stored),
            s(r.bincode_enc),
            s(r.bincode_dec),
            s(r.postcard_enc),
            s(r.postcard_dec),
            r.parse / r.decode
        );
    }
    println!(
        "\nptxb: the bytecode (zstd); stored/dec-raw: the bytecode uncompressed; bc-*: plain \
         bincode 2 of the Module (no container, guard or validation); pc-*: postcard 1 of the \
         Module; pc+zstd: postcard then zstd level 3."
    );
    println!("\nLower bound on decoding into this IR (MB of PTX text per second; x = parse time over it):");
    println!(
        "{:12} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7} {:>9}",
        "folder", "parse", "clone", "x", "unzstd", "x", "bound", "lz4", "unlz4", "bound-lz4"
    );
    for (f, r) in &rows {
        let s = |t: f64| r.text as f64 / t / 1e6;
        println!(
            "{f:12} {:>7.0} {:>7.0} {:>6.2}x {:>7.0} {:>6.2}x {:>6.2}x {:>5.1}% {:>7.0} {:>8.2}x",
            s(r.parse),
            s(r.clone),
            r.parse / r.clone,
            s(r.unzstd),
            r.parse / r.unzstd,
            r.parse / (r.clone + r.unzstd),
            pct(r.lz4, r.text),
            s(r.unlz4),
            r.parse / (r.clone + r.unlz4)
        );
    }
}
