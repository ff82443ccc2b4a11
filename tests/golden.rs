//! Golden files in `corpus/golden`: the printer's canonical output for `print/*.ptx` is
//! `print/*.expected`, and the rendered error for `errors/*.ptx` is `errors/*.stderr`.
//! Run with `PTX_BLESS=1` to rewrite the expectations after an intended change.

use std::path::{Path, PathBuf};

fn golden(sub: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/golden")
        .join(sub);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

fn compare(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if std::env::var_os("PTX_BLESS").is_some() {
        std::fs::write(path, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{} differs:\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(_) => failures.push(format!(
            "{} is missing (run with PTX_BLESS=1)",
            path.display()
        )),
    }
}

#[test]
fn printer_output() {
    let mut failures = Vec::new();
    let files = golden("print");
    assert!(files.len() >= 4);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let m = ptx_ir::roundtrip::check_text(&src, "input")
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        compare(
            &f.with_extension("expected"),
            &ptx_ir::text::print(&m),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rendered_errors() {
    let mut failures = Vec::new();
    let files = golden("errors");
    assert!(files.len() >= 10);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let err = match ptx_ir::text::parse_file(&src, &name) {
            Ok(_) => {
                failures.push(format!("{name}: parsed, but an error was expected"));
                continue;
            }
            Err(e) => e,
        };
        assert!(err.line >= 1 && err.col >= 1);
        compare(
            &f.with_extension("stderr"),
            &format!("{err}\n"),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
