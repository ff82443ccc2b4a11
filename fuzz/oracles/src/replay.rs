//! Replaying regression files ([`crate::regress`]): each case's expectation checked with the
//! oracle that wrote it (round trip, reader, decoder and read-back, or a run three ways), and
//! every file of a directory run as a test.

use crate::regress::{Case, Expect};

/// Checks the expectation of `case`; `Err` says how it failed. Panics inside the code under
/// test are caught and reported as failures.
pub fn check(case: &Case) -> Result<(), String> {
    let this = case.clone();
    match std::panic::catch_unwind(move || expectation(&this)) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

fn expectation(case: &Case) -> Result<(), String> {
    match case.expect {
        Expect::Roundtrip => {
            let m = ptx_ir_text::parse(&case.body).map_err(|e| format!("does not parse: {e}"))?;
            crate::roundtrip::check(&m)
        }
        Expect::Parse => {
            let text = match &case.input {
                Some(b) => String::from_utf8_lossy(b).into_owned(),
                None => case.body.clone(),
            };
            crate::parse::check_text(&text);
            Ok(())
        }
        Expect::Error => match ptx_ir_text::parse(&case.body) {
            Ok(_) => Err("the reader accepts it".into()),
            Err(_) => Ok(()),
        },
        Expect::Decode => {
            let b = case.input.as_deref().ok_or("no `input:` bytes")?;
            crate::decode::check(b, &ptx_ir_binary::DecodeLimits::DEFAULT);
            crate::decode::check(
                b,
                &ptx_ir_binary::DecodeLimits {
                    verify_checksum: false,
                    ..ptx_ir_binary::DecodeLimits::DEFAULT
                },
            );
            // What decodes must also print text that reads back to it.
            crate::readback::check(b);
            Ok(())
        }
        Expect::Run => {
            let run = case.run.as_deref().ok_or("no `RUN:` line")?;
            let out = case.out.as_deref().ok_or("no `out:` bytes")?;
            crate::run::check_run(&case.body, run, out)
        }
    }
}

/// Runs every regression file under `dir` (`*.ptx`); returns one line per failure and
/// the number of files run.
pub fn run_dir(dir: &std::path::Path) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut n = 0;
    for p in files {
        if p.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        n += 1;
        let name = p.display().to_string();
        let text = match std::fs::read(&p) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let case = match Case::parse_file(&text) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: bad header: {e}"));
                continue;
            }
        };
        match (check(&case), &case.xfail) {
            (Ok(()), None) => {}
            (Err(e), None) => failures.push(format!("{name}: {e}")),
            (Err(e), Some(_)) => {
                if std::env::var_os("REGRESS_VERBOSE").is_some() {
                    eprintln!("{name}: fails as expected (xfail): {e}");
                }
            }
            (Ok(()), Some(why)) => eprintln!(
                "{name}: passes now although marked `xfail: {why}`; remove the xfail line"
            ),
        }
    }
    (failures, n)
}
