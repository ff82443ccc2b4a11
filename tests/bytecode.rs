//! Every file of `../shared/corpus` survives IR -> bytecode -> IR unchanged and prints the same
//! text, with both codecs; the bytecode is at most 30% of the text in every corpus folder; and
//! the `ptx` commands read and write bytecode.

use ptx_ir::binary::{self, Codec};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;
use common::{corpus_dir, ptx_files};

#[test]
fn corpus_round_trips_through_bytecode() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    ptx_files(&dir, &mut files);
    assert!(
        files.len() >= 41,
        "expected the shared corpus at {}",
        dir.display()
    );
    let mut failures = Vec::new();
    // folder -> (text bytes, bytecode bytes)
    let mut sizes: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("corpus file is UTF-8");
        let m = ptx_ir::text::parse_file(&src, &f.display().to_string()).expect("corpus parses");
        if let Err(e) = ptx_ir::load::check_bytecode(&m) {
            failures.push(format!("{}: {e}", f.display()));
            continue;
        }
        let stored = binary::encode_with(&m, Codec::Stored).expect("encodes");
        if binary::decode(&stored).as_ref() != Ok(&m) {
            failures.push(format!("{}: uncompressed bytecode differs", f.display()));
        }
        let bytes = binary::encode(&m).expect("encodes");
        let rel = f.strip_prefix(&dir).unwrap_or(f);
        let folder = rel
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let e = sizes.entry(folder).or_default();
        e.0 += src.len();
        e.1 += bytes.len();
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    for (folder, (text, bytes)) in &sizes {
        let ratio = *bytes as f64 / *text as f64;
        println!(
            "{folder:12} text {text:>9} bytecode {bytes:>9} ({:.1}%)",
            100.0 * ratio
        );
        assert!(
            ratio <= 0.30,
            "{folder}: bytecode is {:.1}% of the text",
            100.0 * ratio
        );
    }
}

#[test]
fn the_cli_encodes_decodes_and_reads_either_form() {
    let ptx = env!("CARGO_BIN_EXE_ptx");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/golden/bytecode/calls.ptx");
    let tmp = std::env::temp_dir().join(format!("ptx-bytecode-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bc = tmp.join("calls.ptxb");
    let run = |args: &[&std::ffi::OsStr]| Command::new(ptx).args(args).output().unwrap();

    let out = run(&[
        "encode".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        bc.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&bc).unwrap();
    assert!(binary::is_bytecode(&bytes));

    let fmt_text = run(&["fmt".as_ref(), src.as_os_str()]);
    let decoded = run(&["decode".as_ref(), bc.as_os_str()]);
    let fmt_bc = run(&["fmt".as_ref(), bc.as_os_str()]);
    assert!(decoded.status.success() && fmt_bc.status.success());
    assert_eq!(decoded.stdout, fmt_text.stdout);
    assert_eq!(fmt_bc.stdout, fmt_text.stdout);

    let out = run(&["check".as_ref(), bc.as_os_str(), src.as_os_str()]);
    assert!(out.status.success());
    let out = run(&["roundtrip".as_ref(), bc.as_os_str(), src.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("2 passed, 0 failed"));
    assert!(stdout.starts_with(&format!("ok {}\n", bc.display())));

    // A damaged file: a clear error, exit status 1, and roundtrip's FAIL line.
    let bad = tmp.join("bad.ptxb");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    let out = run(&["check".as_ref(), bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad bytecode: truncated at offset"), "{err}");
    let out = run(&["roundtrip".as_ref(), bad.as_os_str(), src.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains(&format!("FAIL {}: ", bad.display())),
        "{stdout}"
    );
    assert_eq!(stdout.lines().last(), Some("1 passed, 1 failed"));

    // --uncompressed writes the plain bincode sections.
    let raw = tmp.join("raw.ptxb");
    let out = run(&[
        "encode".as_ref(),
        "--uncompressed".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        raw.as_os_str(),
    ]);
    assert!(out.status.success());
    let raw_bytes = std::fs::read(&raw).unwrap();
    assert_eq!(
        binary::decode(&raw_bytes).unwrap(),
        binary::decode(&bytes).unwrap()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The deepest nesting the reader accepts (initialiser lists, expressions, `{ }` blocks) encodes
/// and decodes with the default limits, and deeper text is an error, not a crash.
#[test]
fn deepest_readable_nesting_decodes() {
    let e = format!("{}1{}", "(".repeat(250), ")".repeat(250));
    let init = format!("{}{e}{}", "{".repeat(63), "}".repeat(63));
    let blocks = format!("{}ret;\n{}", "{\n".repeat(64), "}\n".repeat(64));
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.global .u32 x[1] = {init};\n.entry k()\n{{\n{blocks}}}\n"
    );
    let m = ptx_ir::text::parse(&text).expect("parses");
    let bytes = ptx_ir::binary::encode(&m).expect("encodes");
    let d = ptx_ir::binary::decode(&bytes).expect("decodes with the default limits");
    assert_eq!(d, m);
    let too_deep = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.global .u32 x[1] = {}1{};\n",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    let err = ptx_ir::text::parse(&too_deep).expect_err("rejected");
    assert!(err.to_string().contains("nested too deeply"), "{err}");
}

/// A body edited as a statement tree (`statements_mut`) is the same IR as its compact form:
/// equal, printed alike, encoded to the same bytes, and compact again after `compact()`.
#[test]
fn tree_and_compact_bodies_agree_on_the_corpus() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    ptx_files(&dir, &mut files);
    for f in &files {
        let src = std::fs::read_to_string(f).expect("corpus file is UTF-8");
        let m = ptx_ir::text::parse(&src).expect("corpus parses");
        let mut t = m.clone();
        for func in t.functions_mut() {
            if let Some(stmts) = func.statements_mut() {
                // Touch the tree so that it is the form in use.
                let n = stmts.len();
                stmts.truncate(n);
            }
            assert!(func.body.as_ref().is_none_or(|b| !b.is_compact()));
        }
        let name = f.display();
        assert_eq!(t, m, "{name}: tree form differs");
        assert_eq!(ptx_ir::text::print(&t), ptx_ir::text::print(&m), "{name}");
        assert_eq!(
            binary::encode_with(&t, Codec::Stored).unwrap(),
            binary::encode_with(&m, Codec::Stored).unwrap(),
            "{name}: bytecode"
        );
        for func in t.functions_mut() {
            if let Some(b) = func.body.as_mut() {
                b.compact().expect("fits");
                assert!(b.is_compact());
            }
        }
        assert_eq!(t, m, "{name}: compacted again");
    }
}
