//! Reads each PTX file named on the command line twice, with the reader's fast paths and with
//! its general paths only (`ptx_ir_text::parse_general_only`), and reports every file that the
//! two read differently (a different module, or a different error).
//!
//! ```text
//! cargo run --release -p ptx-ir-text --features general-paths --example fast_agree -- FILE...
//! ```
//!
//! Prints `agree FILE` or `DIFFER FILE: what` per file and, last, `N agree, M differ`; exits 1
//! if any differ. `tools/harvest/run.sh` runs it over the PTX harvested on the GPU machine.

use std::process::ExitCode;

fn main() -> ExitCode {
    let (mut agree, mut differ) = (0usize, 0usize);
    for path in std::env::args().skip(1) {
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                println!("DIFFER {path}: cannot read it: {e}");
                differ += 1;
                continue;
            }
        };
        let fast = ptx_ir_text::parse(&text).map_err(|e| e.to_string());
        let general = ptx_ir_text::parse_general_only(&text).map_err(|e| e.to_string());
        let what = match (&fast, &general) {
            (Ok(a), Ok(b)) if a == b => None,
            (Err(a), Err(b)) if a == b => None,
            (Ok(_), Ok(_)) => Some("the modules differ".to_string()),
            (Err(a), Err(b)) => Some(format!("fast: {a} | general: {b}")),
            (Ok(_), Err(b)) => Some(format!("only the general paths fail: {b}")),
            (Err(a), Ok(_)) => Some(format!("only the fast paths fail: {a}")),
        };
        match what {
            None => {
                println!("agree {path}");
                agree += 1;
            }
            Some(w) => {
                println!("DIFFER {path}: {}", w.lines().next().unwrap_or(""));
                differ += 1;
            }
        }
    }
    println!("{agree} agree, {differ} differ");
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
