//! Parse and print throughput on the shared corpus, per folder and overall.
//!
//! `cargo bench -p ptx-ir-text --bench corpus [-- --samples N] [-- --files SUBSTRING]
//! [-- --per-file]`
//!
//! Each figure is the median of N samples (default 11); a sample runs the whole group enough
//! times to take at least 50 ms. MB/s are megabytes (10^6) of *input text* per second, for
//! printing too; instructions/s count the instructions of the parsed modules. `zluda-18` is the
//! files ZLUDA's `ptx_parser` reads (docs/PERFORMANCE.md compares the two on them).
//!
//! `--per-file` adds a row per file: its parse speed read after read (as above, the reader's
//! per-thread scratch and resolved instruction words kept), and as a thread's first module
//! (`first`: the scratch released before each read, so that caches, body builder and word
//! table start empty; the process-wide instruction table, and the words resolved by earlier
//! reads of the process, stay).

mod corpus_files;

use ptx_ir_text::{parse_file, print};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median seconds per run of `f`, over `samples` samples of at least 50 ms each.
fn measure(samples: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    f();
    let once = t.elapsed().max(Duration::from_nanos(1));
    let iters = (Duration::from_millis(50).as_secs_f64() / once.as_secs_f64()).ceil() as usize;
    let iters = iters.max(1);
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_secs_f64() / iters as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn main() {
    let mut samples = 11;
    let mut filter = None;
    let mut per_file = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--samples" => samples = args.next().and_then(|s| s.parse().ok()).unwrap_or(11),
            "--files" => filter = args.next(),
            "--per-file" => per_file = true,
            _ => {} // `--bench` and friends from cargo
        }
    }
    let samples = samples.max(1);
    let mut files = corpus_files::load();
    if let Some(f) = &filter {
        files.retain(|c| c.rel.contains(f.as_str()));
    }
    println!(
        "ptx-ir-text corpus bench: {} files, {} cores, {}; median of {samples} samples",
        files.len(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    // Every file must parse: a bench of a failing reader measures nothing.
    let modules: Vec<_> = files
        .iter()
        .map(|c| match parse_file(&c.src, &c.rel) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        })
        .collect();
    println!(
        "{:<11} {:>5} {:>9} {:>8} {:>11} {:>12} {:>11} {:>11}",
        "group", "files", "MB", "insts", "parse MB/s", "parse Minst/s", "print MB/s", "print/parse"
    );
    for name in corpus_files::groups() {
        let idx: Vec<usize> = (0..files.len())
            .filter(|&k| corpus_files::in_group(&files[k].rel, name))
            .collect();
        if idx.is_empty() {
            continue;
        }
        let bytes: usize = idx.iter().map(|&k| files[k].src.len()).sum();
        let insts: usize = idx.iter().map(|&k| modules[k].instruction_count()).sum();
        let mut keep = Vec::with_capacity(idx.len());
        let parse_s = measure(samples, || {
            keep.clear();
            for &k in &idx {
                keep.push(parse_file(black_box(&files[k].src), &files[k].rel));
            }
            black_box(&keep);
        });
        drop(keep);
        let mut texts = Vec::with_capacity(idx.len());
        let print_s = measure(samples, || {
            texts.clear();
            for &k in &idx {
                texts.push(print(black_box(&modules[k])));
            }
            black_box(&texts);
        });
        let mb = bytes as f64 / 1e6;
        println!(
            "{:<11} {:>5} {:>9.3} {:>8} {:>11.1} {:>12.2} {:>11.1} {:>11.2}",
            name,
            idx.len(),
            mb,
            insts,
            mb / parse_s,
            insts as f64 / parse_s / 1e6,
            mb / print_s,
            print_s / parse_s
        );
    }
    if per_file {
        per_file_rows(samples, &files);
    }
}

/// One row per file: parse MB/s read after read, as a thread's first module, and print MB/s.
fn per_file_rows(samples: usize, files: &[corpus_files::CorpusFile]) {
    println!(
        "{:<34} {:>9} {:>11} {:>11} {:>11}",
        "file", "KB", "parse MB/s", "first MB/s", "print MB/s"
    );
    for c in files {
        let module = match parse_file(&c.src, &c.rel) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let mb = c.src.len() as f64 / 1e6;
        let parse_s = measure(samples, || {
            black_box(parse_file(black_box(&c.src), &c.rel)).ok();
        });
        let first_s = measure(samples, || {
            ptx_ir_text::release_thread_scratch();
            black_box(parse_file(black_box(&c.src), &c.rel)).ok();
        });
        let print_s = measure(samples, || {
            black_box(print(black_box(&module)));
        });
        println!(
            "{:<34} {:>9.1} {:>11.1} {:>11.1} {:>11.1}",
            c.rel,
            mb * 1e3,
            mb / parse_s,
            mb / first_s,
            mb / print_s
        );
    }
}
