//! The hardware-truth vectors of `../shared/hwtruth/dev.jsonl`: every case of a non-approximate
//! family must agree with the GPU bit for bit.
//!
//! One exception is listed by name: `div.full.f32` is filed under `f32` in `dev.jsonl`, but
//! PTX defines it as an approximation (2 ulp) computed through the hardware reciprocal
//! (`rcp.approx`), whose tables are not published; it is measured and reported like the
//! approximate families.

use std::path::Path;

/// Cases of non-approximate families that depend on the special-function unit's tables.
const HARDWARE_APPROXIMATIONS: &[&str] = &["div.full.f32", "div.full.ftz.f32"];

fn parse(s: &str) -> Result<ptx_ir::ir::Module, String> {
    ptx_ir::text::parse(s).map_err(|e| e.to_string())
}

#[test]
fn dev_vectors_agree_with_the_hardware() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hwtruth/dev.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipping: {} not found", path.display());
        return;
    };
    let report = ptx_ir::interp::vectors::run_text(&text, &[], &parse);
    print!("{}", report.render());
    assert!(report.results.len() >= 100, "too few cases read");
    let bad: Vec<_> = report
        .results
        .iter()
        .filter(|r| {
            !r.passed
                && !r.family.ends_with("approx")
                && !HARDWARE_APPROXIMATIONS.contains(&r.name.as_str())
        })
        .map(|r| format!("{}: {}", r.name, r.detail.as_deref().unwrap_or("")))
        .collect();
    assert!(
        bad.is_empty(),
        "non-approximate cases disagree:\n{}",
        bad.join("\n")
    );
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
}

/// The project's own hardware vectors (`corpus/vectors/*.jsonl`, made by
/// `tools/hwvectors/gen.py` on the GPU machine): every non-approximate case must agree, except
/// those listed with a reason in `corpus/vectors/known_failures.txt` (`NAME  reason`).
#[test]
fn own_vectors_agree_with_the_hardware() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let known: Vec<String> = std::fs::read_to_string(dir.join("known_failures.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    let mut files: Vec<_> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let report = ptx_ir::interp::vectors::run_text(&text, &[], &parse);
        println!("{}:\n{}", f.display(), report.render());
        for r in &report.results {
            let base = r.name.split('#').next().unwrap_or(&r.name);
            if !r.passed
                && !r.family.ends_with("approx")
                && !HARDWARE_APPROXIMATIONS.contains(&base)
                && !known.iter().any(|k| k == base || k == &r.name)
            {
                bad.push(format!("{}: {}", r.name, r.detail.as_deref().unwrap_or("")));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} cases disagree:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
