//! `ptx run` and `ptx vectors` on hostile launches: exit code 1 and a clear message, never an
//! abort.

use std::process::Command;

fn ptx(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ptx"))
        .args(args)
        .output()
        .expect("run ptx");
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

fn kernel(name: &str, body: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ptx-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(".version 8.0\n.target sm_90\n.address_size 64\n{body}"),
    )
    .expect("write");
    p.to_string_lossy().into_owned()
}

#[test]
fn hostile_runs_fail_cleanly() {
    let k = kernel("k.ptx", ".visible .entry k(.param .u64 a) { ret; }\n");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--grid", "4294967295", "--arg", "zeros:4"],
            "grid x 4294967295 exceeds the GPU's limit 2147483647",
        ),
        (
            &["--arg", "zeros:99999999999999"],
            "over the interpreter's memory limit",
        ),
        (
            &["--arg", "iota32:4000000000"],
            "over the interpreter's memory limit",
        ),
        (
            &["--arg", "zeros:4", "--shared", "4294967295"],
            "exceeds the GPU's limit 232448",
        ),
        (
            &["--mem-limit", "100", "--arg", "zeros:4096"],
            "memory limit of 100 bytes",
        ),
        (
            &[
                "--grid",
                "2147483647,65535,65535",
                "--block",
                "1024",
                "--fuel",
                "100000",
                "--arg",
                "zeros:4",
            ],
            "threads each execute at least one instruction",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["run", k.as_str(), "--entry", "k"];
        args.extend_from_slice(extra);
        let (code, out) = ptx(&args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: {out}");
    }
}

#[test]
fn recursion_reports_a_stack_overflow_in_json() {
    let k = kernel(
        "rec.ptx",
        ".func f() { call f, (); ret; }\n.visible .entry k() { call f, (); ret; }\n",
    );
    let (code, out) = ptx(&["run", &k, "--entry", "k", "--stack", "4096", "--json"]);
    assert_eq!(code, 1, "{out}");
    let j: serde_json::Value =
        serde_json::from_str(out.lines().next().unwrap_or("")).expect("json");
    assert_eq!(j["error"]["kind"], "stack-overflow", "{out}");
    assert_eq!(j["error"]["function"], "f", "{out}");
    assert!(
        j["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("call depth 257 needs 4112 bytes")),
        "{out}"
    );
    let (code, out) = ptx(&["run", &k, "--entry", "k", "--mem-limit", "10", "--json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"kind\":\"memory-limit\""), "{out}");
}

#[test]
fn vectors_with_an_unknown_family_is_an_error() {
    let dir = std::env::temp_dir().join(format!("ptx-limits-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let p = dir.join("v.jsonl");
    std::fs::write(&p, r#"{"name":"a","family":"add","ptx":"","entry":"k","grid":[1,1,1],"block":[1,1,1],"args":[],"out":{"type":"u32","hex":["00000000"]}}"#).expect("write");
    let (code, out) = ptx(&["vectors", &p.to_string_lossy(), "--family", "addd"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("unknown family addd") && out.contains("the file has: add"),
        "{out}"
    );
}
