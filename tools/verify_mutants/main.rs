//! Mutants of corpus kernels for measuring the verifier against `ptxas`.
//!
//! ```sh
//! # here: write the cases (git-ignored) for the GPU machine
//! cargo run --release --example verify_mutants -- gen .carry/mutants
//! # GPU machine: tools/verify_mutants/run_ptxas.sh (writes $OUT/ptxas_results.tsv)
//! # here: compare the verifier with the recorded results, by kind of mutation
//! cargo run --release --example verify_mutants -- compare corpus/verify/ptxas_results.tsv
//! ```

#![forbid(unsafe_code)]

#[path = "mutate.rs"]
mod mutate;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

fn gen(out: &Path) -> Result<(), String> {
    let files = mutate::read_corpus(&corpus());
    if files.is_empty() {
        return Err(format!("no corpus at {}", corpus().display()));
    }
    let cases = mutate::generate(&files);
    let dir = out.join("cases");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut manifest = String::from("id\tkind\texpect\tarch\thash\tsource\tverifier\n");
    let mut kinds: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for c in &cases {
        std::fs::write(dir.join(format!("{}.ptx", c.id)), &c.text).map_err(|e| e.to_string())?;
        let ours = match c.verifier_accepts() {
            Ok(true) => "accept",
            Ok(false) => "reject",
            Err(_) => "unreadable",
        };
        manifest.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            c.id,
            c.kind,
            if c.expect_valid { "valid" } else { "invalid" },
            c.arch,
            c.hash(),
            c.source,
            ours
        ));
        let e = kinds.entry(c.kind).or_default();
        e.0 += 1;
        if (ours == "accept") == c.expect_valid {
            e.1 += 1;
        }
    }
    std::fs::write(out.join("manifest.tsv"), manifest).map_err(|e| e.to_string())?;
    println!("{} cases in {}", cases.len(), dir.display());
    println!(
        "{:<26} {:>6} {:>22}",
        "kind", "cases", "verifier as intended"
    );
    for (k, (n, agree)) in kinds {
        println!("{k:<26} {n:>6} {agree:>22}");
    }
    Ok(())
}

fn compare(results: &Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(results).map_err(|e| format!("{}: {e}", results.display()))?;
    let recorded = mutate::read_results(&text);
    let cases = mutate::generate(&mutate::read_corpus(&corpus()));
    let a = mutate::compare(&cases, &recorded);
    println!(
        "{:<26} {:>6} {:>6} {:>8} {:>16} {:>16}",
        "kind", "cases", "agree", "rate", "we reject/ok", "we accept/bad"
    );
    for (k, (agree, total, fp, fneg)) in &a.by_kind {
        println!(
            "{k:<26} {total:>6} {agree:>6} {:>7.1}% {fp:>16} {fneg:>16}",
            100.0 * *agree as f64 / (*total).max(1) as f64
        );
    }
    let (agree, total) = a.total();
    println!(
        "total: {agree} of {total} agree ({:.1}%), {} stale results",
        100.0 * agree as f64 / total.max(1) as f64,
        a.stale
    );
    for d in a.disagreements.iter().take(60) {
        println!("  {d}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", out] => gen(Path::new(out)),
        ["compare", results] => compare(Path::new(results)),
        _ => Err("usage: verify_mutants gen OUT_DIR | compare RESULTS.tsv".into()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
