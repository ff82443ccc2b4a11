//! The sanitizer agreement suite (`tools/sanitize/`, docs/SANITIZE.md) replayed through the
//! interpreter's library, so that a regression in any check fails `cargo test`.
//!
//! Every launch of `tools/sanitize/manifest.json` runs with all checks, as
//! `ptx run FILE --entry E --grid G --block B --arg ... --check all` does (what
//! `tools/sanitize/compare.py` runs): a memory fault that stops the launch counts as a `mem`
//! finding, as `ptx run` reports it. The findings, as (check, function, instruction index), and
//! whether the launch stopped with an error must be what `corpus/sanitize/interp.json` (saved by
//! `compare.py --save`) records for it. Clean kernels must report nothing, and every buggy
//! kernel must report its own class, except the misses `KNOWN_MISSES` lists (which must still
//! be misses: a list entry that is found is stale).

use ptx_ir::interp::check::Class;
use ptx_ir::interp::{Arg, Checks, Error, Program, Spec};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Buggy kernels whose class the interpreter does not report, and why (docs/SANITIZE.md):
/// none since the race check compares lanes of one warp and covers global memory.
const KNOWN_MISSES: &[(&str, &str)] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `[x, y, z]` from a number or a list of up to three.
fn dims(v: &Value) -> [u32; 3] {
    let mut d = [1; 3];
    match v {
        Value::Array(a) => {
            assert!(a.len() <= 3, "dimensions {v}");
            for (i, x) in a.iter().enumerate() {
                d[i] = x.as_u64().expect("a dimension") as u32;
            }
        }
        x => d[0] = x.as_u64().expect("a dimension") as u32,
    }
    d
}

/// A finding as the test compares it: (check, function, instruction index).
type Key = (String, String, u64);

/// What one launch reported: its findings and whether it stopped with an error.
#[derive(Debug, PartialEq, Eq)]
struct Report {
    findings: BTreeSet<Key>,
    error: bool,
}

impl Report {
    fn classes(&self) -> BTreeSet<&str> {
        self.findings.iter().map(|(c, _, _)| c.as_str()).collect()
    }
}

/// What `interp.json` records for a launch.
fn recorded(v: &Value) -> Report {
    let findings = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["check"].as_str().expect("check").to_string(),
                f["function"].as_str().expect("function").to_string(),
                f["index"].as_u64().expect("index"),
            )
        })
        .collect();
    Report {
        findings,
        error: !v["error"].is_null(),
    }
}

/// Runs one manifest entry with every check.
fn replay(m: &Value, programs: &mut HashMap<String, Program>) -> Report {
    let file = m["file"].as_str().expect("file");
    let prog = programs.entry(file.to_string()).or_insert_with(|| {
        let loaded =
            ptx_ir::load::load_path(&root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        Program::load(&loaded.module).unwrap_or_else(|e| panic!("{file}: {e}"))
    });
    let mut launch = prog
        .launch(m["entry"].as_str().expect("entry"))
        .grid(dims(&m["grid"]))
        .block(dims(&m["block"]))
        .checks(Checks::all())
        .threads(1);
    for (i, a) in m["args"].as_array().expect("args").iter().enumerate() {
        let s = a.as_str().expect("an --arg spec");
        let (arg, spec) = Arg::parse_spec_within(s, ptx_ir::interp::mem::DEFAULT_MEM_LIMIT)
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        launch = launch.arg(arg);
        if spec == Spec::Uninit {
            launch = launch.uninitialized(i);
        }
    }
    let (outcome, error) = match launch.run() {
        Ok(o) => (o, None),
        Err(f) => (f.outcome, Some(f.error)),
    };
    let mut findings: BTreeSet<Key> = outcome
        .findings
        .iter()
        .map(|f| {
            (
                f.class.name().to_string(),
                f.site.function.clone(),
                f.site.index as u64,
            )
        })
        .collect();
    // `ptx run --check mem` reports the fault that stopped the launch as a finding.
    if let Some(Error::Memory { site, .. }) = &error {
        findings.insert((
            Class::Mem.name().to_string(),
            site.function.clone(),
            site.index as u64,
        ));
    }
    Report {
        findings,
        error: error.is_some(),
    }
}

#[test]
fn sanitizer_suite_replays_as_recorded() {
    let manifest = json(&root().join("tools/sanitize/manifest.json"));
    let saved = json(&root().join("corpus/sanitize/interp.json"));
    let kernels = manifest["kernels"].as_array().expect("kernels");
    assert_eq!(
        kernels.len(),
        saved.as_object().expect("an object").len(),
        "interp.json has one entry per manifest kernel"
    );
    let mut programs = HashMap::new();
    let mut failures = Vec::new();
    let mut found_misses = BTreeMap::new();
    let (mut buggy, mut clean) = (0, 0);
    for m in kernels {
        let id = m["id"].as_str().expect("id");
        let expect = m["expect"].as_str().expect("expect");
        let want = recorded(
            saved
                .get(id)
                .unwrap_or_else(|| panic!("{id}: not in corpus/sanitize/interp.json")),
        );
        let got = replay(m, &mut programs);
        if got != want {
            failures.push(format!(
                "{id}: replayed {got:?}, interp.json records {want:?}"
            ));
        }
        if expect == "clean" {
            clean += 1;
            if !got.findings.is_empty() || got.error {
                failures.push(format!("{id}: a clean kernel reported {got:?}"));
            }
        } else {
            buggy += 1;
            let reported = got.classes().contains(expect);
            match KNOWN_MISSES.iter().find(|(k, _)| *k == id) {
                Some(_) if reported => {
                    found_misses.insert(id, expect);
                }
                Some(_) => {}
                None if !reported => {
                    failures.push(format!("{id}: its `{expect}` bug is not reported: {got:?}"))
                }
                None => {}
            }
        }
    }
    for (id, class) in found_misses {
        failures.push(format!(
            "{id}: KNOWN_MISSES lists it, but its `{class}` bug is reported now"
        ));
    }
    assert!(
        failures.is_empty(),
        "{} of {} launches differ:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
    assert_eq!(
        (buggy, clean),
        (63, 60),
        "the suite's size (docs/SANITIZE.md)"
    );
}

/// `ptx run --check reg` and `--check init` on local memory: the class names in text and in
/// `--json`, the exit status, and `reg` in the list `all` names.
#[test]
fn cli_names_the_reg_and_local_init_checks() {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n\
        .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.local .align 4 .b32 v[2];\n\
        ld.param.u64 %rd1, [out];\n\
        mov.u64 %rd2, v;\n\
        ld.local.u32 %r1, [%rd2];\n\
        add.u32 %r2, %r1, %r3;\n\
        st.global.u32 [%rd1], %r2;\n\
        ret;\n}\n";
    let dir = std::env::temp_dir().join(format!("ptx-regcheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.ptx");
    std::fs::write(&file, ptx).unwrap();
    let run = |check: &str, json: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ptx"));
        c.args(["run", "--entry", "k", "--arg", "zeros:4", "--check", check])
            .arg(&file);
        if json {
            c.arg("--json");
        }
        c.output().unwrap()
    };
    let out = run("all,reg", false);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("checks mem,race,init,sync,reg: 2 finding(s)"),
        "{text}"
    );
    // The `ld.local` is line 11, the `add` line 12.
    assert!(text.contains("k.ptx:11:1"), "{text}");
    assert!(text.contains("reg: read of register %r3"), "{text}");
    // `all` leaves `reg` out.
    let text = String::from_utf8_lossy(&run("all", false).stdout).to_string();
    assert!(
        text.contains("checks mem,race,init,sync: 1 finding(s)"),
        "{text}"
    );
    let j: serde_json::Value = serde_json::from_slice(&run("reg", true).stdout).unwrap();
    let f = j["findings"].as_array().expect("findings");
    assert_eq!(f.len(), 1, "{j}");
    assert_eq!(
        (f[0]["check"].as_str(), f[0]["line"].as_u64()),
        (Some("reg"), Some(12))
    );
    let j: serde_json::Value = serde_json::from_slice(&run("init", true).stdout).unwrap();
    let f = &j["findings"][0];
    assert_eq!(
        (f["check"].as_str(), f["space"].as_str(), f["line"].as_u64()),
        (Some("init"), Some("local"), Some(11))
    );
    assert!(!run("regs", false).status.success());
    std::fs::remove_dir_all(&dir).ok();
}
