//! The seeds as a specification: every normative statement of `../shared/seeds` has a valid and a
//! violating case in `corpus/spec/*.spec` (format: `corpus/spec/README.md`), and each case gets
//! the verdict it names from `ptx check` (reader and verifier) and `ptx run` (interpreter).
//!
//! The evidence recorded on the GPU machine (`corpus/spec/ptxas.tsv`, `corpus/spec/gpu.tsv`,
//! written by `tools/seedspec/run_device.sh`) is checked against the cases: ptxas accepts exactly
//! the cases `ptx check` accepts (unless a case says otherwise and its statement says why), and
//! every case that `ptx run` completes and that the GPU could run completed there with the same
//! results. A case whose text changed since its evidence was recorded fails until it is
//! recorded again. `docs/SEEDS.md` is generated from both: `UPDATE_SPEC=1` rewrites it,
//! `SPEC_EXPORT=DIR` writes every case and a manifest for the GPU machine, `SPEC_FILE=001` runs
//! the files whose names start with `001` only (and skips the evidence and document checks).

use ptx_ir::interp::{Arg, Error as RunError, Program, Spec};
use ptx_ir::ir::verify::{self, Severity};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod common;

/// How a statement is enforced.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum How {
    Check,
    Run,
    Both,
    None,
}

impl How {
    fn parse(s: &str) -> Option<How> {
        Some(match s {
            "check" => How::Check,
            "run" => How::Run,
            "both" => How::Both,
            "none" => How::None,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            How::Check => "check",
            How::Run => "run",
            How::Both => "both",
            How::None => "none",
        }
    }
}

#[derive(Default, Debug)]
struct Case {
    name: String,
    line: usize,
    check: String,
    run: String,
    launch: Option<String>,
    out: Vec<(usize, String)>,
    /// `ptxas: accepts` / `ptxas: rejects`: ptxas differs from `check` on purpose.
    ptxas: Option<bool>,
    /// `gpu: differs`: the GPU's outcome differs from `ptx run`'s for the reason the note gives.
    gpu_differs: bool,
    module: String,
}

#[derive(Debug)]
struct Statement {
    file: String,
    line: usize,
    id: String,
    seed: String,
    says: String,
    how: How,
    why: Option<String>,
    note: Option<String>,
    cases: Vec<Case>,
}

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/spec")
}

/// Reads one `.spec` file; format errors go to `errs` as `FILE:LINE: message`.
fn read_spec(path: &Path, errs: &mut Vec<String>) -> Vec<Statement> {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut out: Vec<Statement> = Vec::new();
    // Within a case, header keys come first; the first other line starts the module.
    let mut in_module = false;
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        let at = |m: &str| format!("{file}:{ln}: {m}");
        if let Some(id) = line.strip_prefix("=== ") {
            out.push(Statement {
                file: file.clone(),
                line: ln,
                id: id.trim().to_string(),
                seed: String::new(),
                says: String::new(),
                how: How::None,
                why: None,
                note: None,
                cases: Vec::new(),
            });
            in_module = false;
            continue;
        }
        if let Some(name) = line.strip_prefix("--- ") {
            match out.last_mut() {
                Some(s) => s.cases.push(Case {
                    name: name.trim().to_string(),
                    line: ln,
                    ..Case::default()
                }),
                None => errs.push(at("a case before any `=== statement`")),
            }
            in_module = false;
            continue;
        }
        let Some(st) = out.last_mut() else {
            if !(line.trim().is_empty() || line.starts_with('#')) {
                errs.push(at("text before the first `=== statement`"));
            }
            continue;
        };
        let Some(case) = st.cases.last_mut() else {
            // Statement header.
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, val)) = line.split_once(':') else {
                errs.push(at("expected `key: value` in a statement header"));
                continue;
            };
            let val = val.trim().to_string();
            match key {
                "seed" => st.seed = val,
                "says" => {
                    let mut says = Some(std::mem::take(&mut st.says)).filter(|x| !x.is_empty());
                    append(&mut says, &val);
                    st.says = says.unwrap_or_default();
                }
                "how" => match How::parse(&val) {
                    Some(h) => st.how = h,
                    None => errs.push(at("`how:` is check, run, both or none")),
                },
                "why" => append(&mut st.why, &val),
                "note" => append(&mut st.note, &val),
                _ => errs.push(at(&format!("unknown statement key `{key}`"))),
            }
            continue;
        };
        if !in_module {
            let key = line.split_once(':').map(|(k, v)| (k, v.trim()));
            match key {
                Some(("check", v)) => {
                    case.check = v.to_string();
                    continue;
                }
                Some(("run", v)) => {
                    case.run = v.to_string();
                    continue;
                }
                Some(("launch", v)) => {
                    case.launch = Some(v.to_string());
                    continue;
                }
                Some(("out", v)) => {
                    for part in v.split_whitespace() {
                        match part
                            .split_once('=')
                            .and_then(|(a, h)| Some((a.parse().ok()?, h.to_lowercase())))
                        {
                            Some(o) => case.out.push(o),
                            None => errs.push(at("`out:` takes ARG=HEX items")),
                        }
                    }
                    continue;
                }
                Some(("gpu", "differs")) => {
                    case.gpu_differs = true;
                    continue;
                }
                Some(("ptxas", v)) => {
                    case.ptxas = match v {
                        "accepts" => Some(true),
                        "rejects" => Some(false),
                        _ => {
                            errs.push(at("`ptxas:` is accepts or rejects"));
                            None
                        }
                    };
                    continue;
                }
                _ if line.trim().is_empty() || line.starts_with('#') => continue,
                _ => in_module = true,
            }
        }
        case.module.push_str(line);
        case.module.push('\n');
    }
    for s in &mut out {
        for c in &mut s.cases {
            // Blank lines between cases belong to neither.
            let trimmed = c.module.trim_end().len();
            c.module.truncate(trimmed);
            c.module.push('\n');
        }
    }
    out
}

/// A key given on several lines continues its text.
fn append(text: &mut Option<String>, more: &str) {
    match text {
        Some(t) => {
            t.push(' ');
            t.push_str(more);
        }
        None => *text = Some(more.to_string()),
    }
}

/// Structural rules of the format.
fn lint(st: &[Statement], errs: &mut Vec<String>) {
    let mut ids = HashSet::new();
    for s in st {
        let at = |m: &str| errs_fmt(s, m);
        if !ids.insert(s.id.clone()) {
            errs.push(at("duplicate statement id"));
        }
        if s.id.is_empty()
            || !s
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
        {
            errs.push(at("ids are [a-z0-9._-]+"));
        }
        if s.seed.len() < 3 || !s.file.starts_with(&s.seed[..3]) {
            errs.push(at("`seed:` starts with the seed number of the file's name"));
        }
        if s.says.is_empty() {
            errs.push(at("no `says:`"));
        }
        if s.how == How::None && s.why.is_none() {
            errs.push(at("`how: none` needs `why:`"));
        }
        if !s.cases.iter().any(|c| c.name.starts_with("valid")) && s.how != How::None {
            errs.push(at("no valid case"));
        }
        if s.how != How::None && !s.cases.iter().any(|c| c.name.starts_with("violating")) {
            errs.push(at("no violating case"));
        }
        let mut names = HashSet::new();
        for c in &s.cases {
            let at = |m: &str| format!("{}:{}: {} / {}: {m}", s.file, c.line, s.id, c.name);
            if !names.insert(c.name.clone()) {
                errs.push(at("duplicate case name"));
            }
            if c.check.is_empty() || c.run.is_empty() {
                errs.push(at("every case has `check:` and `run:`"));
            }
            if c.name.starts_with("valid") && c.check != "ok" && !c.check.starts_with("warning") {
                errs.push(at("a valid case checks ok"));
            }
            if c.run != "-" && c.launch.is_none() {
                errs.push(at("`run:` other than `-` needs `launch:`"));
            }
            if !c.out.is_empty() && c.run != "ok" {
                errs.push(at("`out:` goes with `run: ok`"));
            }
            if (c.ptxas.is_some() || c.gpu_differs) && s.note.is_none() {
                errs.push(at(
                    "`ptxas:` and `gpu:` need the statement's `note:` saying why",
                ));
            }
            if c.gpu_differs && c.run != "ok" {
                errs.push(at("`gpu: differs` goes with `run: ok`"));
            }
            if !c.module.is_ascii() || c.module.trim().is_empty() {
                errs.push(at("the module is ASCII PTX text and not empty"));
            }
        }
    }
}

fn errs_fmt(s: &Statement, m: &str) -> String {
    format!("{}:{}: {}: {m}", s.file, s.line, s.id)
}

/// What `ptx check` says: `ok`, `error RULE...`, `warning RULE...` or `parse MESSAGE`.
struct CheckVerdict {
    parse_error: Option<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
}

impl CheckVerdict {
    fn of(module: &str) -> (CheckVerdict, Option<ptx_ir::ir::Module>) {
        match ptx_ir::text::parse(module) {
            Err(e) => (
                CheckVerdict {
                    parse_error: Some(e.message.clone()),
                    errors: vec![],
                    warnings: vec![],
                },
                None,
            ),
            Ok(m) => {
                let d = verify::verify(&m);
                let ids = |sev| {
                    d.iter()
                        .filter(|x| x.severity() == sev)
                        .map(|x| format!("{} ({})", x.rule.id(), x.message))
                        .collect::<Vec<_>>()
                };
                (
                    CheckVerdict {
                        parse_error: None,
                        errors: ids(Severity::Error),
                        warnings: ids(Severity::Warning),
                    },
                    Some(m),
                )
            }
        }
    }

    fn accepts(&self) -> bool {
        self.parse_error.is_none() && self.errors.is_empty()
    }

    fn describe(&self) -> String {
        if let Some(p) = &self.parse_error {
            return format!("parse {p}");
        }
        if !self.errors.is_empty() {
            return format!("error {}", self.errors.join("; "));
        }
        if !self.warnings.is_empty() {
            return format!("warning {}", self.warnings.join("; "));
        }
        "ok".into()
    }

    /// Whether the verdict matches the expected `check:`.
    fn matches(&self, want: &str) -> bool {
        let (kind, what) = want.split_once(' ').unwrap_or((want, ""));
        let has = |v: &[String]| v.iter().any(|e| e.split(' ').next() == Some(what));
        match kind {
            "ok" => self.accepts(),
            "error" => self.parse_error.is_none() && has(&self.errors),
            "warning" => self.accepts() && has(&self.warnings),
            "parse" => self.parse_error.as_ref().is_some_and(|p| p.contains(what)),
            _ => false,
        }
    }
}

/// A launch as `launch:` describes it.
struct LaunchSpec {
    entry: String,
    grid: [u32; 3],
    block: [u32; 3],
    cluster: Option<[u32; 3]>,
    resident: u32,
    shared: u32,
    args: Vec<String>,
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("bad dimensions `{s}`"));
    }
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.parse().map_err(|_| format!("bad dimensions `{s}`"))?;
    }
    Ok(d)
}

impl LaunchSpec {
    fn parse(s: &str) -> Result<LaunchSpec, String> {
        let mut l = LaunchSpec {
            entry: String::new(),
            grid: [1; 3],
            block: [1; 3],
            cluster: None,
            resident: 1,
            shared: 0,
            args: Vec::new(),
        };
        for part in s.split_whitespace() {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}`: launch items are KEY=VALUE"))?;
            match k {
                "entry" => l.entry = v.to_string(),
                "grid" => l.grid = dims(v)?,
                "block" => l.block = dims(v)?,
                "cluster" => l.cluster = Some(dims(v)?),
                "resident" => l.resident = v.parse().map_err(|_| format!("bad `{part}`"))?,
                "shared" => l.shared = v.parse().map_err(|_| format!("bad `{part}`"))?,
                // Tensor-map specs hold commas of their own: `args=` items are separated by `;`
                // when any holds a tensor map, else by `,`.
                "args" => {
                    let sep = if v.contains("tmap:") { ';' } else { ',' };
                    l.args = v.split(sep).map(str::to_string).collect()
                }
                _ => return Err(format!("unknown launch key `{k}`")),
            }
        }
        if l.entry.is_empty() {
            return Err("launch needs entry=NAME".into());
        }
        Ok(l)
    }
}

/// What `ptx run` says: `ok` with the argument buffers by argument index, or an error kind and
/// message.
enum RunVerdict {
    Ok(BTreeMap<usize, Vec<u8>>),
    Err(&'static str, String),
}

fn kind(e: &RunError) -> &'static str {
    match e {
        RunError::Load { .. } => "load",
        RunError::Launch(_) => "launch",
        RunError::Unsupported { .. } => "unsupported",
        RunError::Undefined { .. } => "undefined",
        RunError::Memory { .. } => "memory",
        RunError::Deadlock(_) => "deadlock",
        RunError::FuelExhausted(_) => "fuel",
        RunError::Trap { .. } => "trap",
        RunError::StackOverflow { .. } => "stack-overflow",
        RunError::MemoryLimit { .. } => "memory-limit",
    }
}

/// A case's launches are small; this bounds a case that loops by mistake.
const FUEL: u64 = 50_000_000;

fn run_case(m: &ptx_ir::ir::Module, l: &LaunchSpec) -> Result<RunVerdict, String> {
    let p = match Program::load(m) {
        Ok(p) => p,
        Err(e) => return Ok(RunVerdict::Err(kind(&e), e.to_string())),
    };
    let mut launch = p
        .launch(&l.entry)
        .grid(l.grid)
        .block(l.block)
        .dynamic_shared(l.shared)
        .resident_clusters(l.resident)
        .fuel(FUEL);
    if let Some(c) = l.cluster {
        launch = launch.cluster(c);
    }
    // Which argument each returned buffer belongs to.
    let mut owners = Vec::new();
    for (i, a) in l.args.iter().enumerate() {
        let (arg, spec) = Arg::parse_spec_within(a, 1 << 30).map_err(|e| e.to_string())?;
        if !matches!(spec, Spec::Scalar) {
            owners.push(i);
        }
        launch = launch.arg(arg);
    }
    Ok(match launch.run() {
        Ok(o) => RunVerdict::Ok(owners.into_iter().zip(o.buffers).collect()),
        Err(f) => RunVerdict::Err(kind(&f.error), f.error.to_string()),
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// FNV-1a of the module text: the key that ties recorded evidence to the case it was made from.
fn hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// One recorded row of evidence: (statement, case) -> (hash, verdict, detail).
type Evidence = HashMap<(String, String), (String, String, String)>;

/// Reads a `.tsv` of evidence (`id case hash verdict detail`; `#` lines are comments, whose
/// `# key: value` lines are returned as the header).
fn read_evidence(path: &Path) -> Option<(Evidence, Vec<(String, String)>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut rows = Evidence::new();
    let mut header = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            if let Some((k, v)) = h.split_once(": ") {
                header.push((k.to_string(), v.to_string()));
            }
            continue;
        }
        let f: Vec<&str> = line.splitn(5, '\t').collect();
        if f.len() < 4 {
            continue;
        }
        rows.insert(
            (f[0].to_string(), f[1].to_string()),
            (
                f[2].to_string(),
                f[3].to_string(),
                f.get(4).unwrap_or(&"").to_string(),
            ),
        );
    }
    Some((rows, header))
}

/// The outcome of one case, for the document.
struct Outcome {
    check: String,
    run: String,
    ptxas: Option<String>,
    gpu: Option<String>,
}

#[test]
fn seeds_as_specification() {
    let only = std::env::var("SPEC_FILE").ok();
    let mut files: Vec<PathBuf> = std::fs::read_dir(spec_dir())
        .expect("corpus/spec")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spec"))
        .collect();
    files.sort();
    if let Some(o) = &only {
        files.retain(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(o.as_str())
        });
    }
    assert!(!files.is_empty(), "no corpus/spec/*.spec files");
    let mut errs = Vec::new();
    let mut statements = Vec::new();
    for f in &files {
        statements.extend(read_spec(f, &mut errs));
    }
    lint(&statements, &mut errs);

    // Every seed file has its spec file.
    if only.is_none() {
        let seeds = common::shared_dir("seeds");
        let mut names: Vec<String> = std::fs::read_dir(&seeds)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in names {
            let num = &n[..3.min(n.len())];
            if !statements.iter().any(|s| s.seed.starts_with(num)) {
                errs.push(format!("seed {n} has no statement in corpus/spec"));
            }
        }
    }

    let export = std::env::var_os("SPEC_EXPORT").map(PathBuf::from);
    let mut manifest = String::new();
    let ptxas = read_evidence(&spec_dir().join("ptxas.tsv"));
    let gpu = read_evidence(&spec_dir().join("gpu.tsv"));
    let mut outcomes: HashMap<(String, String), Outcome> = HashMap::new();
    let mut n_cases = 0usize;
    for s in &statements {
        for c in &s.cases {
            n_cases += 1;
            let at = |m: String| format!("{}:{}: {} / {}: {m}", s.file, c.line, s.id, c.name);
            let key = (s.id.clone(), c.name.clone());
            let h = hash(&c.module);
            let (cv, module) = CheckVerdict::of(&c.module);
            if !cv.matches(&c.check) {
                errs.push(at(format!(
                    "check: expected `{}`, got `{}`",
                    c.check,
                    cv.describe()
                )));
            }
            let mut run_desc = "-".to_string();
            if c.run != "-" {
                match (&module, c.launch.as_deref().map(LaunchSpec::parse)) {
                    (None, _) => errs.push(at("`run:` on a module that does not parse".into())),
                    (_, None) => errs.push(at("launch: missing".into())),
                    (_, Some(Err(e))) => errs.push(at(format!("launch: {e}"))),
                    (Some(m), Some(Ok(l))) => match run_case(m, &l) {
                        Err(e) => errs.push(at(format!("launch arguments: {e}"))),
                        Ok(v) => {
                            let (kind_want, text_want) =
                                c.run.split_once(' ').unwrap_or((c.run.as_str(), ""));
                            match &v {
                                RunVerdict::Ok(bufs) => {
                                    run_desc = "ok".into();
                                    if kind_want != "ok" {
                                        errs.push(at(format!("run: expected `{}`, got ok", c.run)));
                                    }
                                    for (a, want) in &c.out {
                                        match bufs.get(a) {
                                            Some(b) if hex(b) == *want => {}
                                            Some(b) => errs.push(at(format!(
                                                "out: argument {a} is {}, expected {want}",
                                                hex(b)
                                            ))),
                                            None => errs.push(at(format!(
                                                "out: argument {a} is not a buffer"
                                            ))),
                                        }
                                    }
                                }
                                RunVerdict::Err(k, msg) => {
                                    run_desc = format!("{k}: {msg}");
                                    if *k != kind_want || !msg.contains(text_want) {
                                        errs.push(at(format!(
                                            "run: expected `{}`, got {k}: {msg}",
                                            c.run
                                        )));
                                    }
                                }
                            }
                        }
                    },
                }
            }
            // Evidence.
            let mut ptxas_desc = None;
            if let (Some((rows, _)), None) = (&ptxas, &only) {
                match rows.get(&key) {
                    None => errs.push(at(
                        "no ptxas evidence (tools/seedspec/run_device.sh records it)".into(),
                    )),
                    Some((eh, _, _)) if *eh != h => errs.push(at(
                        "the case changed since its ptxas evidence was recorded \
                         (tools/seedspec/run_device.sh)"
                            .into(),
                    )),
                    Some((_, verdict, detail)) => {
                        let accepted = verdict == "accepted";
                        let want = c.ptxas.unwrap_or_else(|| cv.accepts());
                        if accepted != want {
                            errs.push(at(format!(
                                "ptxas {verdict} ({detail}) but `ptx check` says {}",
                                cv.describe()
                            )));
                        }
                        ptxas_desc = Some(if accepted {
                            "accepts".to_string()
                        } else {
                            format!("rejects: {detail}")
                        });
                    }
                }
            }
            let mut gpu_desc = None;
            if let (Some((rows, _)), None, true) = (&gpu, &only, c.launch.is_some()) {
                match rows.get(&key) {
                    None => errs.push(at(
                        "no GPU evidence (tools/seedspec/run_device.sh records it)".into(),
                    )),
                    Some((eh, _, _)) if *eh != h => errs.push(at(
                        "the case changed since its GPU evidence was recorded".into(),
                    )),
                    Some((_, verdict, detail)) => {
                        if c.gpu_differs {
                            // Said to differ: fails once the GPU agrees, so that the case and
                            // its note are revisited.
                            let same = verdict == "ok"
                                && c.out.iter().all(|(a, want)| {
                                    detail.split(' ').any(|x| x == format!("{a}={want}"))
                                });
                            if same || verdict == "skipped" {
                                errs.push(at(format!(
                                    "`gpu: differs`, but the GPU gives {verdict} {detail}"
                                )));
                            }
                        } else if c.run == "ok" && verdict != "skipped" {
                            if verdict != "ok" {
                                errs.push(at(format!(
                                    "`ptx run` completes but on the GPU: {verdict} {detail}"
                                )));
                            }
                            for (a, want) in &c.out {
                                let got = detail
                                    .split(' ')
                                    .find_map(|x| x.strip_prefix(&format!("{a}=")));
                                if got != Some(want.as_str()) {
                                    errs.push(at(format!(
                                        "out: argument {a} on the GPU is {got:?}, expected {want}"
                                    )));
                                }
                            }
                        }
                        gpu_desc = Some(format!("{verdict} {detail}").trim().to_string());
                    }
                }
            }
            outcomes.insert(
                key,
                Outcome {
                    check: cv.describe(),
                    run: run_desc,
                    ptxas: ptxas_desc,
                    gpu: gpu_desc,
                },
            );
            if let Some(dir) = &export {
                let name = format!("{:04}.ptx", manifest.lines().count());
                std::fs::create_dir_all(dir).unwrap();
                std::fs::write(dir.join(&name), &c.module).unwrap();
                let target = c
                    .module
                    .lines()
                    .find_map(|l| l.trim().strip_prefix(".target"))
                    .map(|t| {
                        t.split([',', ' ', '\t'])
                            .find(|x| !x.is_empty())
                            .unwrap_or("")
                    })
                    .unwrap_or("")
                    .to_string();
                writeln!(
                    manifest,
                    "{}\t{}\t{h}\t{name}\t{target}\t{}\t{}",
                    s.id,
                    c.name,
                    c.launch.as_deref().unwrap_or("-"),
                    c.out
                        .iter()
                        .map(|(a, _)| a.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )
                .unwrap();
            }
        }
    }
    if let Some(dir) = &export {
        std::fs::write(dir.join("manifest.tsv"), &manifest).unwrap();
    }
    if only.is_none() {
        let doc = document(&statements, &outcomes, &ptxas, &gpu, n_cases);
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SEEDS.md");
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != doc {
            if std::env::var_os("UPDATE_SPEC").is_some() {
                std::fs::write(&path, &doc).unwrap();
            } else {
                errs.push(
                    "docs/SEEDS.md is stale: UPDATE_SPEC=1 cargo test --release --test spec".into(),
                );
            }
        }
    }
    assert!(
        errs.is_empty(),
        "{} of the seed conformance checks fail:\n{}",
        errs.len(),
        errs.join("\n")
    );
}

/// One line of a table cell: `|` and newlines escaped, long text cut.
fn cell(s: &str, max: usize) -> String {
    let s = s.replace('|', "\\|").replace('\n', " ");
    if s.chars().count() > max {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn document(
    st: &[Statement],
    outcomes: &HashMap<(String, String), Outcome>,
    ptxas: &Option<(Evidence, Vec<(String, String)>)>,
    gpu: &Option<(Evidence, Vec<(String, String)>)>,
    n_cases: usize,
) -> String {
    let mut d = String::new();
    let count = |h: How| st.iter().filter(|s| s.how == h).count();
    let cases = || st.iter().flat_map(|s| s.cases.iter().map(move |c| (s, c)));
    let key = |s: &Statement, c: &Case| (s.id.clone(), c.name.clone());
    let ptxas_seen = cases()
        .filter(|(s, c)| outcomes[&key(s, c)].ptxas.is_some())
        .count();
    let gpu_ran = cases()
        .filter(|(s, c)| {
            outcomes[&key(s, c)]
                .gpu
                .as_deref()
                .is_some_and(|g| !g.starts_with("skipped"))
        })
        .count();
    let gpu_of = |s: &Statement, c: &Case| outcomes[&key(s, c)].gpu.clone().unwrap_or_default();
    let ran_ok: Vec<(&Statement, &Case)> = cases()
        .filter(|(s, c)| {
            c.run == "ok" && !gpu_of(s, c).is_empty() && !gpu_of(s, c).starts_with("skipped")
        })
        .collect();
    let gpu_differs = ran_ok.iter().filter(|(_, c)| c.gpu_differs).count();
    let ptxas_differs = cases().filter(|(_, c)| c.ptxas.is_some()).count();
    let header = |e: &Option<(Evidence, Vec<(String, String)>)>, k: &str| {
        e.as_ref()
            .and_then(|(_, h)| h.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone()))
            .unwrap_or_else(|| "not recorded".into())
    };
    let _ = writeln!(
        d,
        "# The seeds as a specification\n\n\
         Generated by `UPDATE_SPEC=1 cargo test --release --test spec` from `corpus/spec/*.spec`\n\
         (format: `corpus/spec/README.md`) and the evidence recorded on the GPU machine by\n\
         `tools/seedspec/run_device.sh` (`corpus/spec/ptxas.tsv`, `corpus/spec/gpu.tsv`). Do not\n\
         edit it by hand: `cargo test` fails when it is stale.\n\n\
         The seed excerpts in `../shared/seeds/` are the project's specification. For each of\n\
         their normative statements there is a valid and a violating case, each with the verdict\n\
         `ptx check` and `ptx run` give, checked by `cargo test --release --test spec`.\n\n\
         - {} statements in {} cases: {} checked by `ptx check`, {} by `ptx run`, {} by both, {}\n\
         \x20 that cannot be checked here (listed below with the reason).\n\
         - ptxas ({}, recorded {}) judged {} of {} cases and agrees with `ptx check` on all but\n\
         \x20 {}, deliberate differences that their statements' notes explain (`ptxas:` in the cases).\n\
         - The GPU ({}) ran {} cases. Of the {} that `ptx run` completes, all but {} completed there\n\
         \x20 with the same results; the exception (`gpu: differs`) is explained in its note. tcgen05\n\
         \x20 and clusterlaunchcontrol need sm_100, which the GPU here is not: those cases are judged\n\
         \x20 by ptxas and the interpreter only.\n",
        st.len(),
        n_cases,
        count(How::Check),
        count(How::Run),
        count(How::Both),
        count(How::None),
        header(ptxas, "ptxas"),
        header(ptxas, "date"),
        ptxas_seen,
        n_cases,
        ptxas_differs,
        header(gpu, "device"),
        gpu_ran,
        ran_ok.len(),
        gpu_differs,
    );
    let mut seeds: Vec<&str> = st.iter().map(|s| s.file.as_str()).collect();
    seeds.dedup();
    for f in seeds {
        let _ = writeln!(d, "## `{f}`\n");
        let _ = writeln!(
            d,
            "| statement | seed | says | how | case: `ptx check` / `ptx run` | ptxas | GPU |\n\
             | --- | --- | --- | --- | --- | --- | --- |"
        );
        for s in st.iter().filter(|s| s.file == f) {
            let mut cs = Vec::new();
            let mut px = Vec::new();
            let mut gp = Vec::new();
            for c in &s.cases {
                let o = &outcomes[&key(s, c)];
                let run = if c.run == "-" {
                    "-".to_string()
                } else {
                    o.run.split(':').next().unwrap_or("").to_string()
                };
                cs.push(format!(
                    "{}: {} / {}",
                    c.name,
                    o.check.split(' ').take(2).collect::<Vec<_>>().join(" "),
                    run
                ));
                px.push(match &o.ptxas {
                    Some(p) => format!("{}: {}", c.name, p.split(':').next().unwrap_or("")),
                    None => format!("{}: -", c.name),
                });
                if let Some(g) = &o.gpu {
                    gp.push(format!("{}: {}", c.name, cell(g, 40)));
                }
            }
            let _ = writeln!(
                d,
                "| `{}` | {} | {} | {} | {} | {} | {} |",
                s.id,
                cell(s.seed.split_once(' ').map_or("", |x| x.1), 40),
                cell(&s.says, 160),
                s.how.name(),
                cell(&cs.join("<br>"), 400),
                cell(&px.join("<br>"), 200),
                if gp.is_empty() {
                    "-".into()
                } else {
                    cell(&gp.join("<br>"), 300)
                },
            );
        }
        d.push('\n');
    }
    let none = st.iter().filter_map(|s| Some(s).zip(s.why.as_deref()));
    listing(&mut d, "Statements that cannot be checked here", none);
    let notes = st.iter().filter_map(|s| Some(s).zip(s.note.as_deref()));
    listing(
        &mut d,
        "Where the seed text, ptxas and the GPU disagree, and other notes",
        notes,
    );
    d
}

/// A section of the document listing statements with a text each (nothing when there are none).
fn listing<'a>(d: &mut String, title: &str, items: impl Iterator<Item = (&'a Statement, &'a str)>) {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return;
    }
    let _ = writeln!(d, "## {title}\n");
    for (s, text) in items {
        let _ = writeln!(d, "- `{}` ({}): {text}", s.id, s.seed);
    }
    d.push('\n');
}
