//! Hostile input (issue #22): bytes that are not PTX text, very long lines, floods of errors,
//! outputs that would overwrite inputs, unknown versions and targets, endless inputs and arrays
//! too large to exist. Each case is generated here; the command-line cases run the built `ptx`.

use ptx_ir::ir::verify::{self, Rule};
use ptx_ir::load::{self, LoadError};
use ptx_ir::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-hostile-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write a test file");
    p
}

/// Runs `ptx` with `args`; the run must end within `limit`.
fn ptx(args: &[&str], limit: Duration) -> Output {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ptx"))
        .args(args)
        .output()
        .expect("run ptx");
    assert!(t.elapsed() < limit, "ptx {args:?} took {:?}", t.elapsed());
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

const SECOND: Duration = Duration::from_secs(1);

// 1. Bytes that are not PTX text.

/// Parses `bytes` through the library's byte entry point and returns the error.
fn text_error(bytes: &[u8]) -> text::ParseError {
    text::parse_bytes(bytes, "x.ptx").expect_err("not PTX text")
}

#[test]
fn non_ascii_bytes_are_located() {
    let cases: &[(&[u8], usize, usize, &str)] = &[
        (b"\xef\xbb\xbf.version 8.0\n", 1, 1, "UTF-8 byte-order mark"),
        (
            b".version 8.0\n.target sm_90\n// a comment \xff here\n",
            3,
            14,
            "non-ASCII byte 0xFF (PTX is ASCII text)",
        ),
        (
            b".version 8.0\n.target sm_90\n/* caf\xc3\xa9 */\n",
            3,
            7,
            "non-ASCII byte 0xC3, of `\u{e9}` U+00E9",
        ),
        (
            b".version 8.0\n.target sm_90\n.global .u32 na\xc3\xafve;\n",
            3,
            16,
            "non-ASCII byte 0xC3",
        ),
        (
            b".version 8.0\n.target sm_90\n.file 1 \"/tmp/\xc3\xa9.cu\"\n",
            3,
            15,
            "non-ASCII byte 0xC3",
        ),
        (
            b".version 8.0\n.target sm_90\n.address_size 64\n/* \x00 */\n",
            4,
            4,
            "NUL byte",
        ),
    ];
    for &(bytes, line, col, msg) in cases {
        let e = text_error(bytes);
        assert_eq!((e.line, e.col), (line, col), "{e}");
        assert!(e.message.contains(msg), "{e}");
        assert!(e.message.contains("PTX is ASCII text"), "{e}");
        // The &str entry point refuses the same valid UTF-8 text at the same place.
        if let Ok(src) = std::str::from_utf8(bytes) {
            let e2 = text::parse_file(src, "x.ptx").expect_err("not PTX text");
            assert_eq!(e2, e);
        }
    }
    // A non-ASCII byte far into a long valid file, in its last comment.
    let mut big = HEADER.as_bytes().to_vec();
    for k in 0..20_000 {
        big.extend_from_slice(format!(".global .u32 g{k};\n").as_bytes());
    }
    big.extend_from_slice(b"// \x80\n");
    let e = text_error(&big);
    assert_eq!((e.line, e.col), (20_004, 4), "{e}");
}

/// A byte that is not text, put at any place of real files (comments, strings, `.loc` lines,
/// debug sections, declarations, instructions), is refused at that place: the reader checks
/// the bytes it passes over without tokenising (comments, strings) and names the byte on any
/// error, instead of a separate pass over the whole input.
#[test]
fn a_bad_byte_anywhere_is_refused_where_it_is() {
    let mut files = vec![(
        "hand".to_string(),
        format!(
            "{HEADER}// line comment\n.file 1 \"/tmp/a.cu\"\n/* block\n comment */\n\
             .global .align 4 .b8 g[4] = {{1, 2, 3, 4}};\n\
             .visible .entry k(.param .u64 p) /* c */\n{{\n\t.reg .b32 %r<3>; // decl\n\
             \t.loc 1 2 3\n\tmov.u32 %r1, 7; /* x */ // y\n\tret;\n}}\n\
             .section .debug_str {{\n$L1:\n.b8 65 // A\n.b8 0\n}}\n"
        )
        .into_bytes(),
    )];
    for f in ["triton/tr_add.ptx", "nvcc/arith_sm_80.ptx"] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus")
            .join(f);
        files.push((f.to_string(), std::fs::read(&p).expect("shared corpus")));
    }
    let mut tried = 0;
    for (name, text) in &files {
        text::parse_bytes(text, "x.ptx").unwrap_or_else(|e| panic!("{name}: {e}"));
        // Every place of the small module; every 13th of the files (thousands of places).
        let step = if text.len() < 1000 { 1 } else { 13 };
        for at in (0..text.len()).step_by(step) {
            for bad in [0xFFu8, 0x00, 0xC3] {
                let mut b = text.clone();
                b[at] = bad;
                let e = text::parse_bytes(&b, "x.ptx").expect_err(&format!(
                    "{name}: byte {at} ({:?}) = {bad:#x} accepted",
                    String::from_utf8_lossy(
                        &text[at.saturating_sub(20)..(at + 20).min(text.len())]
                    )
                ));
                let line = 1 + text[..at].iter().filter(|&&c| c == b'\n').count();
                assert_eq!(e.line, line, "{name} byte {at} = {bad:#x}: {e}");
                assert!(
                    e.message.contains("PTX is ASCII text"),
                    "{name} byte {at}: {e}"
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 4000, "{tried}");
}

#[test]
fn non_ascii_through_the_command() {
    let dir = scratch("non-ascii");
    let mut bytes = format!("{HEADER}// produced by ").into_bytes();
    bytes.extend_from_slice(b"\xff\n.visible .entry k() { ret; }\n");
    let f = write(&dir, "triton.ptx", bytes);
    let o = ptx(&["check", s(&f)], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with(&format!(
            "{}:4:16: error: non-ASCII byte 0xFF (PTX is ASCII text)\n",
            f.display()
        )),
        "{e}"
    );
    // The echoed line shows the byte as one replacement character, the caret under it.
    let lines: Vec<&str> = e.lines().collect();
    let col = |l: &str| l.chars().position(|c| c == '\u{fffd}' || c == '^');
    assert_eq!(col(lines[1]), col(lines[2]), "{e}");
    for cmd in ["fmt", "encode"] {
        let o = ptx(&[cmd, s(&f), "-o", s(&dir.join("out"))], 5 * SECOND);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert!(stderr(&o).contains(":4:16: error: non-ASCII"), "{cmd}");
    }
}

// 2. Bounded diagnostics.

#[test]
fn error_at_the_end_of_a_50_mb_line_prints_a_window() {
    let dir = scratch("long-line");
    let mut src = String::from(HEADER);
    src.push_str(".global .u32 g");
    src.push_str(&" ".repeat(50 << 20));
    src.push_str("oops;\n");
    let f = write(&dir, "long.ptx", &src);
    let o = ptx(&["check", s(&f)], 10 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.len() < 1024, "{} bytes of stderr", e.len());
    let col = 14 + (50 << 20) + 1;
    assert!(e.contains(&format!(":4:{col}: error: ")), "{e}");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 3, "{e}");
    assert!(
        lines[1].starts_with("4 | ...") && lines[1].ends_with("oops;"),
        "{e}"
    );
    // The caret stands under the `o` of `oops`.
    let caret = lines[2].find('^').expect("a caret");
    assert_eq!(&lines[1][caret..], "oops;", "{e}");

    // A verifier finding at the end of a long line: windowed the same way.
    let mut src = String::from(HEADER);
    src.push_str(".visible .entry k()\n{");
    src.push_str(&" ".repeat(20 << 20));
    src.push_str("add.s32 %r1, %r2, %r3; ret; }\n");
    let f = write(&dir, "long-verify.ptx", &src);
    let o = ptx(&["check", s(&f)], 10 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.len() < 4096, "{} bytes of stderr", e.len());
    assert!(
        e.contains(&format!(
            ":5:{}: error[undeclared-register]",
            (20 << 20) + 2
        )),
        "{e}"
    );
    let lines: Vec<&str> = e.lines().collect();
    let caret = lines[2].find('^').expect("a caret");
    assert!(lines[1][caret..].starts_with("add.s32"), "{e}");
}

#[test]
fn a_flood_of_errors_is_capped_and_every_one_located() {
    let dir = scratch("flood");
    let n = 10_000;
    let mut src = String::from(HEADER);
    for _ in 0..n {
        src.push_str(".visible .func f()\n{\n\tret;\n}\n");
    }
    let f = write(&dir, "dups.ptx", &src);
    let o = ptx(&["check", s(&f)], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    let heads: Vec<&str> = e.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(heads.len(), 100, "the default cap");
    assert!(
        e.contains(&format!(
            "{}: {} more not shown ({} errors, 0 warnings",
            f.display(),
            n - 1 - 100,
            n - 1 - 100
        )),
        "{}",
        &e[e.len().saturating_sub(300)..]
    );
    // With the cap raised, every one of them, each at its own definition (ptxas reports the
    // second and later ones).
    let o = ptx(&["check", "--max-errors", "100000", s(&f)], 5 * SECOND);
    let e = stderr(&o);
    let heads: Vec<&str> = e.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(heads.len(), n - 1);
    for (k, h) in heads.iter().enumerate() {
        let want = format!(
            "{}:{}:1: error[duplicate-declaration]: function `f` is defined twice",
            f.display(),
            4 + 4 * (k + 1)
        );
        assert!(h.starts_with(&want), "{h}\nwanted {want}");
    }
    // The library: every diagnostic of the module has a module item, which the spans locate.
    let (m, spans) = text::parse_with_spans(&src, "dups.ptx").expect("reads");
    let diags = verify::verify(&m);
    assert_eq!(diags.len(), n - 1);
    for d in &diags {
        let item = d.location.item.expect("an item");
        let at = spans.item(item).expect("its offset");
        assert!(src[at..].starts_with(".visible .func f()"));
    }
}

// 4. Truthful commands.

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = scratch("overwrite");
    let ptx_file = write(
        &dir,
        "k.ptx",
        format!("{HEADER}.visible .entry k() {{ ret; }}\n"),
    );
    let o = ptx(&["encode", s(&ptx_file)], 5 * SECOND);
    assert!(o.status.success(), "{}", stderr(&o));
    let ptxb = dir.join("k.ptxb");
    let encoded = std::fs::read(&ptxb).expect("k.ptxb written");
    // `encode k.ptxb` would write k.ptxb: refused, the file untouched.
    let o = ptx(&["encode", s(&ptxb)], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("refusing to overwrite the input file"), "{e}");
    assert!(e.contains("-o"), "{e}");
    assert_eq!(std::fs::read(&ptxb).expect("still there"), encoded);
    // Another spelling of the same file, for every command that writes.
    let other = format!("{}/./k.ptxb", dir.display());
    for args in [
        vec!["encode", s(&ptxb), "-o", &other],
        vec!["decode", s(&ptxb), "-o", &other],
        vec!["fmt", s(&ptx_file), "-o", s(&ptx_file)],
    ] {
        let o = ptx(&args, 5 * SECOND);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains("refusing to overwrite"), "{args:?}");
    }
    assert_eq!(std::fs::read(&ptxb).expect("still there"), encoded);
    let text = std::fs::read_to_string(&ptx_file).expect("still there");
    assert!(text.starts_with(HEADER));
    // Writing elsewhere works.
    let o = ptx(
        &["encode", s(&ptxb), "-o", s(&dir.join("again.ptxb"))],
        5 * SECOND,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn versions_and_targets_are_known_ones() {
    let dir = scratch("versions");
    let good = write(
        &dir,
        "k.ptx",
        format!("{HEADER}.visible .entry k() {{ ret; }}\n"),
    );
    for (flag, value, says) in [
        ("--ptx-version", "99.9", "1.0 to 9.0"),
        ("--ptx-version", "8.9", "1.0 to 9.0"),
        ("--ptx-version", "eight", "1.0 to 9.0"),
        ("--target", "sm_999", "sm_121"),
        ("--target", "sm_90f", "`f` from sm_100"),
    ] {
        let o = ptx(&["check", flag, value, s(&good)], 5 * SECOND);
        assert_eq!(o.status.code(), Some(1), "{flag} {value}");
        let e = stderr(&o);
        assert!(e.starts_with(&format!("error: `{value}` is not")), "{e}");
        assert!(e.contains(says), "{e}");
    }
    let o = ptx(
        &[
            "check",
            "--ptx-version",
            "9.0",
            "--target",
            "sm_100a",
            s(&good),
        ],
        5 * SECOND,
    );
    assert!(o.status.success(), "{}", stderr(&o));

    let bad = write(&dir, "v.ptx", HEADER.replace("8.0", "99.9"));
    let o = ptx(&["check", s(&bad)], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with(&format!(
            "{}:1:1: error[unknown-ptx-version]: unsupported `.version 99.9`",
            bad.display()
        )),
        "{e}"
    );
    // The library agrees, with the module's version whatever the options say.
    let m = text::parse(&HEADER.replace("8.0", "9.1")).expect("reads");
    let opts = verify::Options {
        version: Some(ptx_ir::ir::Version::new(8, 0)),
        ..Default::default()
    };
    let rules: Vec<Rule> = verify::verify_with(&m, &opts)
        .iter()
        .map(|d| d.rule)
        .collect();
    assert_eq!(rules, [Rule::UnknownVersion]);
}

/// A finding about `.target` points at the directive the reader read, not at the first text
/// `.target` (here in comments before it and between it and `.version`).
#[test]
fn target_errors_point_at_the_directive() {
    let dir = scratch("target-span");
    for (target, rule) in [
        ("sm_999", "unknown-target"),
        ("sm_90", "target-needs-newer-ptx"),
    ] {
        let f = write(
            &dir,
            &format!("{target}.ptx"),
            format!(
                "// .target sm_90\n.version 7.0 /* .target sm_80 */\n// .target sm_90\n\
                 /* x */ .target {target}\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
            ),
        );
        let o = ptx(&["check", s(&f)], 5 * SECOND);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        let at = format!("{}:4:9: error[{rule}]", f.display());
        assert!(e.starts_with(&at), "want {at}, got {e}");
    }
}

#[test]
fn check_prints_a_summary_unless_quiet() {
    let dir = scratch("summary");
    let good = write(
        &dir,
        "a.ptx",
        format!("{HEADER}.visible .entry k() {{ ret; }}\n"),
    );
    let bad = write(
        &dir,
        "b.ptx",
        format!("{HEADER}.visible .entry k() {{ bogus; }}\n"),
    );
    let o = ptx(&["check", s(&good), s(&good)], 5 * SECOND);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "2 files checked: 2 clean, 0 with errors\n");
    let o = ptx(&["check", s(&good), s(&bad), "nosuch.ptx"], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "3 files checked: 1 clean, 2 with errors\n");
    let o = ptx(&["check", "-q", s(&good)], 5 * SECOND);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "");
}

// 5. Input size.

#[test]
fn endless_and_oversized_inputs_stop_at_the_limit() {
    let t = Instant::now();
    let e = load::read_input(Path::new("/dev/zero"), 1 << 20).expect_err("endless");
    assert!(
        matches!(e, LoadError::TooLarge { limit, .. } if limit == 1 << 20),
        "{e}"
    );
    assert!(t.elapsed() < SECOND);

    let o = ptx(&["check", "--max-input", "1M", "/dev/zero"], 5 * SECOND);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("/dev/zero: error: input larger than the limit of 1048576 bytes"),
        "{e}"
    );
    assert!(e.contains("--max-input"), "{e}");

    let dir = scratch("size");
    let f = write(
        &dir,
        "k.ptx",
        format!("{HEADER}.visible .entry k() {{ ret; }}\n"),
    );
    let len = std::fs::metadata(&f).expect("written").len();
    let at = len.to_string();
    let below = (len - 1).to_string();
    for cmd in ["check", "info", "fmt", "decode", "roundtrip"] {
        let o = ptx(&[cmd, "--max-input", &below, s(&f)], 5 * SECOND);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        // `roundtrip` reports each file on standard output.
        let said = stderr(&o) + &stdout(&o);
        assert!(said.contains("larger than the limit"), "{cmd}: {said}");
        let o = ptx(&[cmd, "--max-input", &at, s(&f)], 5 * SECOND);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
    }
    assert_eq!(load::DEFAULT_MAX_INPUT, 1 << 30);
}

// 6. Huge arrays.

fn rules_of(src: &str) -> Vec<(Rule, usize)> {
    let (m, spans) = text::parse_with_spans(src, "x.ptx").expect("reads");
    verify::verify(&m)
        .iter()
        .map(|d| {
            let at = match d.location.stmt {
                Some(s) => spans.statement(d.location.item.expect("item"), s),
                None => spans.item(d.location.item.expect("item")),
            };
            (d.rule, text::line_col(src, at.expect("located")).0)
        })
        .collect()
}

#[test]
fn arrays_up_to_2_pow_64_bytes_verify_and_larger_ones_do_not() {
    // ptxas 13.0 takes any size up to 2^64-1 bytes.
    let ok = format!(
        "{HEADER}.global .u8 big[18446744073709551615];\n.shared .u8 tb[10995116277760];\n\
         .global .u32 q[4611686018427387903];\n.const .u8 c[65536];\n.extern .const .u8 e[65536];\n"
    );
    assert_eq!(rules_of(&ok), []);
    // The product of the dimensions overflows, or the element size takes it past 2^64-1.
    let bad = format!(
        "{HEADER}.global .u8 a[4294967296][4294967296];\n.global .u32 b[4611686018427387904];\n\
         .visible .entry k()\n{{\n\t.local .v4 .f32 l[2][9223372036854775807];\n\tret;\n}}\n"
    );
    assert_eq!(
        rules_of(&bad),
        [
            (Rule::ArraySize, 4),
            (Rule::ArraySize, 5),
            (Rule::ArraySize, 8)
        ]
    );
    // A single literal over 64 bits does not read.
    let e = text::parse(&format!(
        "{HEADER}.global .u8 big[79228162514264337593543950336];\n"
    ))
    .expect_err("2^96");
    assert_eq!((e.line, e.col), (4, 17), "{e}");
    // More than 64 KiB of `.const` data in the module: reported once, where it passes.
    let c = format!(
        "{HEADER}.const .u8 a[32768];\n.const .u32 b[8192] = {{1, 2, 3}};\n.const .u8 c[1];\n\
         .const .u8 d[1];\n"
    );
    assert_eq!(rules_of(&c), [(Rule::ConstSize, 6)]);
}

/// A reader that goes away (`ptx run ... | head`) ends the command as SIGPIPE ends a filter:
/// status 141, no panic, for every command that writes a report or text to standard output.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::process::Stdio;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sweep = root.join("tools/hwvectors/probes/lg2_sweep.ptx");
    let golden = root.join("corpus/golden/print");
    let first = std::fs::read_dir(&golden)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "ptx"))
        .unwrap();
    let runs: Vec<Vec<String>> = vec![
        // 64 KiB of hex on one line: more than a pipe holds.
        vec![
            "run".into(),
            sweep.display().to_string(),
            "--entry".into(),
            "k".into(),
            "--grid".into(),
            "128".into(),
            "--block".into(),
            "256".into(),
            "--arg".into(),
            "zeros:131072".into(),
            "--arg".into(),
            "u32:0".into(),
        ],
        vec!["fmt".into(), first.display().to_string()],
        vec!["info".into(), first.display().to_string()],
    ];
    for args in runs {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptx"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end at once.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked"),
            "ptx {args:?} panicked on a closed pipe: {stderr}"
        );
        assert!(
            out.status.success() || out.status.code() == Some(141),
            "ptx {args:?}: {:?} {stderr}",
            out.status
        );
    }
}

/// The load step's lowering analysis (contraction, `neg` folds) is linear in a block's length:
/// 200,000 instructions in one block (one product read by every `add`, `mul`+`add` pairs, and
/// a `neg` chain) load and run in well under the limit (the analysis once took minutes here).
#[test]
fn lowering_analysis_of_a_huge_block_is_linear() {
    let dir = scratch("lowering_huge_block");
    let mut body = String::from("mul.f32 %f1, %f2, %f3;\n");
    for i in 0..70_000 {
        body.push_str(&format!("add.f32 %f{}, %f1, %f3;\n", 4 + i % 50));
    }
    for i in 0..70_000 {
        let r = 4 + i % 50;
        body.push_str(&format!(
            "mul.f32 %f{r}, %f2, %f3;\nsub.f32 %f60, %f{r}, %f2;\n"
        ));
    }
    for _ in 0..60_000 {
        body.push_str("neg.f32 %f61, %f61;\n");
    }
    // One product copied 40,000 times, each copy read by an add: every copy is a chain of its
    // own, and the product's uses are checked once, not once per chain.
    body.push_str("mul.f32 %f1, %f2, %f3;\n");
    for i in 0..40_000 {
        let r = 4 + i % 50;
        body.push_str(&format!(
            "mov.f32 %f{r}, %f1;\nadd.f32 %f60, %f{r}, %f60;\n"
        ));
    }
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .f32 %f<62>;\n{body}ret;\n}}\n"
    );
    runs_within_limit(&dir, "huge_block.ptx", src);
}

/// Writes `src` as `name` in `dir` and runs its kernel `k`, which must finish well under the
/// limit (30 s).
fn runs_within_limit(dir: &Path, name: &str, src: String) {
    let f = write(dir, name, src);
    let out = ptx(&["run", s(&f), "--entry", "k"], 30 * SECOND);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("thread-instructions"),
        "{}",
        stdout(&out)
    );
}

/// Branches over dead code (which ptxas deletes, joining the blocks for contraction) are
/// decided in one pass: 100,000 forward branches to one label, each over the dead code and
/// the branches after it, load and run in well under the limit (a scan per branch would take
/// minutes).
#[test]
fn branches_over_dead_code_are_decided_in_linear_time() {
    let dir = scratch("branches_over_dead_code");
    let mut body = String::from("setp.ne.u32 %p1, %r0, 0;\nmul.f32 %f1, %f2, %f3;\n");
    for i in 0..100_000 {
        body.push_str(&format!(
            "@%p1 bra $L_end;\nmov.b32 %r{}, {i};\n",
            1 + i % 50
        ));
    }
    body.push_str("$L_end:\nadd.f32 %f4, %f1, %f3;\n");
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<52>;\n.reg .f32 %f<5>;\n\
         mov.b32 %r0, 1;\n{body}ret;\n}}\n"
    );
    runs_within_limit(&dir, "dead_branches.ptx", src);
}
