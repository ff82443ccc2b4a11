//! The hardware-truth vectors: `../shared/hwtruth/dev.jsonl` and the project's own
//! `corpus/vectors/*.jsonl{,.xz}`. Every case of a non-approximate family must agree with the
//! GPU bit for bit, except the cases listed with a reason in `corpus/vectors/known_failures.txt`
//! (`NAME  reason`, one per line; `#` starts a comment). An entry must have a reason, and an
//! entry whose case is present and passes is stale and fails the test.

use std::path::Path;

mod common;

fn parse(s: &str) -> Result<ptx_ir::ir::Module, String> {
    ptx_ir::text::parse(s).map_err(|e| e.to_string())
}

/// `(name, reason)` of each listed known failure.
fn known_failures() -> Vec<(String, String)> {
    common::known_failures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors/known_failures.txt"),
    )
}

/// The text of a vectors file, `.jsonl` or xz-compressed `.jsonl.xz`.
fn read_vectors(f: &Path) -> String {
    if f.extension().is_some_and(|e| e == "xz") {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut &data[..], &mut out)
            .unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
        String::from_utf8(out).expect("UTF-8")
    } else {
        std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
    }
}

/// Runs a vectors file and returns the non-approximate cases that disagree and are not listed,
/// plus the listed entries whose cases are present here and all pass (stale entries).
fn check(text: &str, known: &[(String, String)]) -> (Vec<String>, Vec<String>) {
    let report = ptx_ir::vectors::run_text_observed(text, &[], &parse, 2, &|_| {});
    print!("{}", report.render());
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(
        lines > 0 && report.results.len() == lines,
        "{} cases read from {lines} lines",
        report.results.len()
    );
    let listed = |name: &str| {
        let base = name.split('#').next().unwrap_or(name);
        known.iter().any(|(k, _)| k == base || k == name)
    };
    let bad = report
        .results
        .iter()
        .filter(|r| !r.passed && !r.family.ends_with("approx") && !listed(&r.name))
        .map(|r| format!("{}: {}", r.name, r.detail.as_deref().unwrap_or("")))
        .collect();
    let mut stale = Vec::new();
    for (k, _) in known {
        let mine: Vec<_> = report
            .results
            .iter()
            .filter(|r| {
                !r.family.ends_with("approx")
                    && (&r.name == k || r.name.split('#').next() == Some(k.as_str()))
            })
            .collect();
        if !mine.is_empty() && mine.iter().all(|r| r.passed) {
            stale.push(k.clone());
        }
    }
    (bad, stale)
}

#[test]
fn dev_vectors_agree_with_the_hardware() {
    let path = common::shared_dir("hwtruth").join("dev.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (bad, stale) = check(&text, &known_failures());
    assert!(
        bad.is_empty(),
        "non-approximate cases disagree:\n{}",
        bad.join("\n")
    );
    assert!(
        stale.is_empty(),
        "known_failures.txt lists cases that now pass: {stale:?}"
    );
}

/// Cases run on several threads give the report they give one after the other: the same
/// cases in the same order with the same results.
#[test]
fn parallel_vectors_report_as_serial() {
    let path = common::shared_dir("hwtruth").join("dev.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases = text.lines().filter(|l| !l.trim().is_empty()).count();
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let observe = |_: &ptx_ir::vectors::CaseResult| {
        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let key = |r: &ptx_ir::vectors::Report| -> Vec<String> {
        r.results
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} {:?} {} {:?} {}",
                    c.name,
                    c.family,
                    c.passed,
                    c.detail,
                    c.bad_lanes,
                    c.max_ulp,
                    c.thread_instructions
                )
            })
            .collect()
    };
    let serial = ptx_ir::vectors::run_text(&text, &[], &parse);
    let parallel = ptx_ir::vectors::run_text_observed(&text, &[], &parse, 4, &observe);
    assert!(cases > 100 && serial.results.len() == cases);
    assert_eq!(seen.into_inner(), cases, "every case observed once");
    assert_eq!(key(&serial), key(&parallel));
}

/// `ptx vectors` ends with the summary line and exits 1 when a case fails.
#[test]
fn vectors_command_reports_and_fails() {
    let dir = std::env::temp_dir().join(format!("ptx-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one.jsonl");
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p_out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nadd.u32 %r2, %r1, 1;\nst.global.u32 [%rd3], %r2;\nret;\n}\n";
    let good: Vec<String> = (1..=4).map(|i| format!("{i:08x}")).collect();
    let mut bad = good.clone();
    bad[2] = "00000009".into();
    let line = |name: &str, out: &[String]| {
        serde_json::json!({"name": name, "family": "int", "ptx": ptx, "grid": [1, 1, 1],
            "block": [4, 1, 1], "args": [], "out": {"type": "u32", "hex": out}})
        .to_string()
    };
    std::fs::write(
        &file,
        format!("{}\n{}\n", line("ok", &good), line("bad", &bad)),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .arg("vectors")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL bad: lane 2 got 00000003 want 00000009"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("1 passed, 1 failed"), "{text}");
    // An xz-compressed file reads as its text; what it expands to is bounded by `--max-input`
    // (the video vectors: 5 MB that expand to 26 MB).
    let plain: String = (0..40)
        .map(|i| line(&format!("ok{i}"), &good) + "\n")
        .collect();
    let mut packed = Vec::new();
    lzma_rs::xz_compress(&mut plain.as_bytes(), &mut packed).unwrap();
    let xz = dir.join("forty.jsonl.xz");
    std::fs::write(&xz, &packed).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .arg("vectors")
        .arg(&xz)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("40 passed, 0 failed"), "{text}");
    let video = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors/video.jsonl.xz");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .arg("vectors")
        .arg(&video)
        .args(["--max-input", "8M"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("decompresses to more than --max-input"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ptx run` prints shown buffers and, with `--json`, the outcome; errors name the instruction.
#[test]
fn run_command_prints_buffers_and_errors() {
    let loop_ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/interp/loop.ptx");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .args(["run"])
        .arg(&loop_ptx)
        .args([
            "--entry", "k", "--grid", "1", "--block", "4", "--arg", "zeros:32",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // Thread i stores (sum 0..i, inner-loop count): (0,0) (0,10) (1,14) (3,16).
    assert!(
        text.contains("zeros:32: 0000000000000000000000000a000000010000000e0000000300000010000000"),
        "{text}"
    );
    let errs = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/interp/errors.ptx");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .args(["run"])
        .arg(&errs)
        .args([
            "--entry", "oob", "--block", "32", "--arg", "zeros:64", "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["ok"], false);
    assert_eq!(j["error"]["kind"], "memory");
    assert_eq!(j["error"]["lane"], 16);
    assert_eq!(j["error"]["inst"], "st.global.u32 [%rd3], %r1");
    assert!(j["thread_instructions"].as_u64().unwrap() > 0);
    assert!(j["seconds"].as_f64().unwrap() >= 0.0);
}

/// `ptx vectors --json`: every case with its result, thread-instructions and seconds, and the
/// totals.
#[test]
fn vectors_command_reports_json() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors/fold.jsonl.xz");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .args(["vectors", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = j["cases"].as_array().unwrap();
    let lines = read_vectors(&file)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(cases.len(), lines);
    let passed = cases.iter().filter(|c| c["passed"] == true).count();
    assert_eq!(j["passed"].as_u64().unwrap() as usize, passed);
    assert_eq!(j["failed"].as_u64().unwrap() as usize, lines - passed);
    assert_eq!(out.status.success(), passed == lines);
    let sum: u64 = cases
        .iter()
        .map(|c| c["thread_instructions"].as_u64().unwrap())
        .sum();
    assert!(sum > 0);
    assert_eq!(j["thread_instructions"].as_u64().unwrap(), sum);
    assert!(cases.iter().all(|c| c["seconds"].as_f64().unwrap() >= 0.0));
}

/// `ptx vectors --check` locates a finding at LINE:COL of the case's kernel, in text and JSON.
#[test]
fn vectors_check_locates_findings() {
    let ptx = ".version 8.7\n.target sm_90\n.address_size 64\n\
               .visible .entry k(.param .u64 po, .param .u64 pa, .param .u64 pb, .param .u64 pc)\n{\n\
               .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b32 s[32];\n\
               ld.param.u64 %rd1, [po];\n\
               mov.u32 %r1, s;\n\
               ld.shared.u32 %r2, [%r1];\n\
               st.global.u32 [%rd1], %r2;\n\
               ret;\n}\n";
    let case = serde_json::json!({
        "name": "uninit.shared", "family": "checks", "grid": [1, 1, 1], "block": [1, 1, 1],
        "entry": "k", "ptx": ptx, "params": ["out", "in0", "in1", "in2"],
        "args": [{"type": "u32", "hex": ["00000000"]}, {"type": "u32", "hex": ["00000000"]},
                 {"type": "u32", "hex": ["00000000"]}],
        "out": {"type": "u32", "hex": ["00000000"]}
    });
    let dir = std::env::temp_dir().join(format!("ptx-vcheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("case.jsonl");
    std::fs::write(&file, format!("{case}\n")).unwrap();
    let run = |json: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"));
        c.args(["vectors", "--check", "init"]).arg(&file);
        if json {
            c.arg("--json");
        }
        c.output().unwrap()
    };
    let out = run(false);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // The `ld.shared` is line 11 of the kernel, column 1.
    assert!(text.contains("FINDING uninit.shared 11:1: "), "{text}");
    let j: serde_json::Value = serde_json::from_slice(&run(true).stdout).unwrap();
    let f = &j["cases"][0]["findings"][0];
    assert_eq!(
        (f["check"].as_str(), f["line"].as_u64(), f["col"].as_u64()),
        (Some("init"), Some(11), Some(1))
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The project's own hardware vectors (`corpus/vectors/*.jsonl` and `*.jsonl.xz`, made by
/// `tools/hwvectors/gen.py` on the GPU machine).
#[test]
fn own_vectors_agree_with_the_hardware() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let known = known_failures();
    let mut files: Vec<_> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".jsonl") || n.ends_with(".jsonl.xz")
        })
        .collect();
    files.sort();
    let (mut bad, mut stale) = (Vec::new(), Vec::new());
    for f in files {
        let text = read_vectors(&f);
        println!("{}:", f.display());
        let (b, s) = check(&text, &known);
        bad.extend(b);
        stale.extend(s.into_iter().map(|k| format!("{k} ({})", f.display())));
    }
    assert!(
        bad.is_empty(),
        "{} cases disagree:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        stale.is_empty(),
        "known_failures.txt lists cases that now pass: {stale:?}"
    );
}

#[test]
fn unknown_vector_family_is_an_error() {
    let line = r#"{"name":"a","family":"add","ptx":"","entry":"k","grid":[1,1,1],"block":[1,1,1],"args":[],"out":{"type":"u32","hex":["00000000"]}}"#;
    let fams = ptx_ir::vectors::check_families(line, &["addd".to_string()]);
    if let Ok(c) = ptx_ir::vectors::parse_case(line) {
        assert_eq!(c.family, "add");
        let e = fams.expect_err("typo");
        assert_eq!(
            e,
            ptx_ir::vectors::CaseError::UnknownFamilies {
                unknown: vec!["addd".into()],
                have: vec!["add".into()]
            }
        );
        assert_eq!(e.to_string(), "unknown family addd; the file has: add");
        assert!(ptx_ir::vectors::check_families(line, &["add".into()]).is_ok());
    } else {
        panic!("test case line does not parse");
    }
}

/// `ptx run --threads N`: a grid of independent CTAs runs on N threads with the memory of the
/// serial run, and `--json` says how it ran.
#[test]
fn run_threads_gives_the_serial_memory_and_says_how_it_ran() {
    let dir = std::env::temp_dir().join(format!("ptx-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("k.ptx");
    std::fs::write(
        &ptx,
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r<6>; .reg .b64 %rd<4>;\n\
           ld.param.u64 %rd1, [out];\n\
           mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;\n\
           mad.lo.u32 %r4, %r2, %r3, %r1; mul.lo.u32 %r5, %r4, %r4;\n\
           mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2;\n\
           st.global.u32 [%rd3], %r5;\n\
           ret; }\n",
    )
    .unwrap();
    let run = |threads: &str| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
            .arg("run")
            .arg(&ptx)
            .args(["--entry", "k", "--grid", "16", "--block", "32"])
            .args(["--arg", "zeros:2048", "--json", "--threads", threads])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (one, three) = (run("1"), run("3"));
    assert_eq!(one["threads"], 1);
    assert_eq!(one["serial"], serde_json::Value::Null);
    assert_eq!(three["threads"], 3);
    assert_eq!(three["serial"], serde_json::Value::Null);
    assert_eq!(one["buffers"], three["buffers"]);
    assert_eq!(one["thread_instructions"], three["thread_instructions"]);
    // A count the host cannot give is refused before any thread starts.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
        .arg("run")
        .arg(&ptx)
        .args(["--entry", "k", "--threads", "4000000000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in 1..=1024"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The hardware vectors of the families whose kernels use atomics, surface reductions,
/// barriers, mbarriers and clusters run with every check and no finding: correct programs
/// give no false alarm (a surface reduction once counted as a plain write and raced with
/// itself; the later parts of a multi-part tensor copy once missed the mbarrier phase that
/// the first part's complete-tx completed).
#[test]
fn hardware_vectors_run_clean_under_every_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors");
    for name in [
        "texture.jsonl.xz",
        "hopper.jsonl.xz",
        "atomv.jsonl.xz",
        "hw.jsonl.xz",
        // Asynchronous copies (the race check's asynchronous proxies), one part per row.
        "im2col.jsonl",
        "interleave.jsonl.xz",
        "wgmmabase.jsonl.xz",
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"))
            .args(["vectors", "--check", "all", "--json"])
            .arg(dir.join(name))
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        let findings: Vec<String> = j["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .flat_map(|c| {
                c["findings"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(move |f| format!("{} {}", c["name"], f["what"]))
            })
            .collect();
        assert!(findings.is_empty(), "{name}: {findings:#?}");
    }
}
