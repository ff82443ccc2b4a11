//! Golden programs: every `corpus/interp/*.ptx` holds `// RUN:` lines (the arguments of
//! `ptx run`); the output of each run is compared with `NAME.expected`. Set `BLESS=1` to rewrite
//! the expected files.

use ptx_ir_interp::{Arg, Contraction, Program, Spec};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/interp")
}

fn words(b: &[u8]) -> String {
    let mut s = String::new();
    for (i, c) in b.chunks(4).enumerate() {
        if i % 8 == 0 {
            s.push_str(if i == 0 { "  " } else { "\n  " });
        } else {
            s.push(' ');
        }
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        s.push_str(&format!("{:08x}", u32::from_le_bytes(w)));
    }
    s
}

fn dims(s: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate().take(3) {
        d[i] = p.parse().expect("dimension");
    }
    d
}

fn run_line(prog: &Program, line: &str) -> String {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let mut launch = None;
    let mut entry = "k".to_string();
    let (mut grid, mut block, mut cluster, mut fuel, mut shared, mut resident) =
        ([1, 1, 1], [1, 1, 1], None, None, 0u32, 1u32);
    let mut stack = None;
    let mut contraction = Contraction::Ptxas;
    let mut args = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let v = toks.get(i + 1).copied().unwrap_or("");
        match toks[i] {
            "--entry" => entry = v.to_string(),
            "--grid" => grid = dims(v),
            "--block" => block = dims(v),
            "--cluster" => cluster = Some(dims(v)),
            "--fuel" => fuel = Some(v.parse::<u64>().expect("fuel")),
            "--shared" => shared = v.parse().expect("shared"),
            "--resident" => resident = v.parse().expect("resident"),
            "--arg" => args.push(v.to_string()),
            "--stack" => stack = Some(v.parse::<u32>().expect("stack")),
            "--contract" => {
                contraction = match v {
                    "ptxas" => Contraction::Ptxas,
                    "never" => Contraction::Never,
                    "report" => Contraction::Report,
                    _ => panic!("bad --contract `{v}`"),
                }
            }
            t => panic!("unknown RUN token `{t}`"),
        }
        i += 2;
    }
    let mut l = prog
        .launch(&entry)
        .grid(grid)
        .block(block)
        .dynamic_shared(shared)
        .resident_clusters(resident);
    if let Some(c) = cluster {
        l = l.cluster(c);
    }
    if let Some(f) = fuel {
        l = l.fuel(f);
    }
    if let Some(s) = stack {
        l = l.stack(s);
    }
    l = l.contraction(contraction);
    let mut shown = Vec::new();
    for a in &args {
        let (arg, spec) = Arg::parse_spec(a).expect("argument");
        if let Arg::Buffer(_) = arg {
            shown.push((a.clone(), spec == Spec::Shown));
        }
        l = l.arg(arg);
    }
    launch.get_or_insert(());
    let (outcome, err) = match l.run() {
        Ok(o) => (o, None),
        Err(f) => (f.outcome, Some(f.error)),
    };
    let mut out = String::new();
    for ((name, show), b) in shown.iter().zip(&outcome.buffers) {
        if *show {
            out.push_str(&format!("{name}:\n{}\n", words(b)));
        }
    }
    out.push_str(&format!(
        "{} thread-instructions, {} warp-instructions\n",
        outcome.stats.thread_instructions, outcome.stats.warp_instructions
    ));
    for d in &outcome.contraction {
        out.push_str(&format!(
            "fused {} #{} `{}` with #{}: {} differ\n",
            d.function, d.index, d.inst, d.mul_index, d.lanes
        ));
    }
    if let Some(e) = err {
        out.push_str(&format!("error: {e}\n"));
    }
    out
}

#[test]
fn golden_programs() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus/interp")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("read");
        let module = ptx_ir_text::parse(&src).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let prog = Program::load(&module).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut got = String::new();
        for line in src.lines() {
            if let Some(r) = line.trim().strip_prefix("// RUN:") {
                let r = r.trim();
                let r = r.strip_prefix("ptx run").unwrap_or(r).trim();
                got.push_str(&format!("== {r}\n"));
                got.push_str(&run_line(&prog, r));
            }
        }
        let exp_path = f.with_extension("expected");
        if bless {
            std::fs::write(&exp_path, &got).expect("write expected");
            continue;
        }
        let want = std::fs::read_to_string(&exp_path).unwrap_or_default();
        if got != want {
            failures.push(format!("{}:\n--- got\n{got}--- want\n{want}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
