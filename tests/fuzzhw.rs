//! Generated kernels that ran on the GPU, replayed in the interpreter.
//!
//! Each `corpus/fuzzhw/*.jsonl.xz` is a batch of the fuzz generator's kernels (the `hw_batch`
//! example, `fuzz/tools/hw_run_all.py` on the GPU machine, `fuzz/tools/hw_export.py`): per line
//! the PTX, the launch, the input buffer and the GPU's output buffer. Every kernel must give the
//! GPU's output byte for byte, except those listed in `corpus/fuzzhw/known_failures.txt`
//! (`FILE:KERNEL  reason`); an entry whose kernel passes is stale and fails the test.

mod common;

use ptx_ir::interp::{Arg, Program};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fuzzhw")
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len() / 2)
        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Kernels whose parallel run ran on several threads, and those that ran serially.
static RAN_PARALLEL: AtomicUsize = AtomicUsize::new(0);
static RAN_SERIAL: AtomicUsize = AtomicUsize::new(0);

/// Runs one kernel; `Err` says how it differs from the GPU.
fn replay(case: &Value) -> Result<(), String> {
    let text = case["ptx"].as_str().ok_or("no ptx")?;
    let m = ptx_ir::text::parse(text).map_err(|e| format!("parse: {e}"))?;
    let prog = Program::load(&m).map_err(|e| format!("load: {e}"))?;
    let n = |k: &str| case[k].as_u64().unwrap_or(0) as u32;
    let launch = prog
        .launch("k")
        .grid([n("grid"), 1, 1])
        .block([n("block"), 1, 1])
        .arg(Arg::Buffer(unhex(case["input"].as_str().unwrap_or(""))))
        .arg(Arg::Buffer(vec![0; n("out_len") as usize]));
    // The same launch on several threads gives the same outcome, or fails the same way.
    let serial = launch.clone().run();
    let parallel = launch.threads(4).run();
    let same = match (&serial, &parallel) {
        (Ok(s), Ok(p)) => s.buffers == p.buffers && s.stats == p.stats,
        (Err(s), Err(p)) => s == p,
        _ => false,
    };
    if !same {
        return Err("the parallel run's outcome differs from the serial one".into());
    }
    if let Ok(p) = &parallel {
        let counter = if p.threads > 1 {
            &RAN_PARALLEL
        } else {
            &RAN_SERIAL
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
    let out = serial.map_err(|f| format!("interpreter: {}", f.error))?;
    let got = out.buffers.last().ok_or("no output buffer")?;
    let want = unhex(case["gpu"].as_str().unwrap_or(""));
    match (0..want.len()).find(|&k| want.get(k) != got.get(k)) {
        None if want.len() == got.len() => Ok(()),
        None => Err(format!(
            "{} bytes here, {} on the GPU",
            got.len(),
            want.len()
        )),
        Some(k) => {
            let at = k & !7;
            let end = (at + 8).min(want.len());
            Err(format!(
                "byte {k}: GPU {:02x?}, interpreter {:02x?}",
                &want[at..end],
                &got[at..end.min(got.len())]
            ))
        }
    }
}

#[test]
fn generated_kernels_agree_with_the_gpu() {
    let known = common::known_failures(&dir().join("known_failures.txt"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("corpus/fuzzhw")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.xz"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no batch in corpus/fuzzhw");
    let (mut passed, mut listed, mut bad, mut seen) = (0, 0, Vec::new(), Vec::new());
    for f in &files {
        let data = std::fs::read(f).expect("batch file");
        let mut text = Vec::new();
        lzma_rs::xz_decompress(&mut &data[..], &mut text).expect("xz");
        let stem = f.file_name().unwrap_or_default().to_string_lossy();
        let stem = stem.trim_end_matches(".jsonl.xz").to_string();
        let text = String::from_utf8(text).expect("utf-8");
        let cases: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .filter(|v: &Value| v["meta"].is_null())
            .collect();
        let results: Vec<Result<(), String>> = std::thread::scope(|sc| {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            let chunk = cases.len().div_ceil(threads).max(1);
            let handles: Vec<_> = cases
                .chunks(chunk)
                .map(|part| sc.spawn(move || part.iter().map(replay).collect::<Vec<_>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("replay thread"))
                .collect()
        });
        for (c, r) in cases.iter().zip(results) {
            let id = format!("{stem}:{}", c["name"].as_str().unwrap_or("?"));
            let is_known = known.iter().any(|(k, _)| *k == id);
            seen.push(id.clone());
            match (r, is_known) {
                (Ok(()), false) => passed += 1,
                (Ok(()), true) => bad.push(format!("{id}: passes but is listed (stale entry)")),
                (Err(_), true) => listed += 1,
                (Err(e), false) => bad.push(format!("{id}: {e}")),
            }
        }
    }
    for (k, _) in &known {
        if !seen.contains(k) {
            bad.push(format!("{k}: listed but not in any batch (stale entry)"));
        }
    }
    println!("{passed} passed, {listed} listed in known_failures.txt");
    println!(
        "threads(4): {} kernels ran on several threads, {} serially, all as threads(1)",
        RAN_PARALLEL.load(Ordering::Relaxed),
        RAN_SERIAL.load(Ordering::Relaxed)
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
