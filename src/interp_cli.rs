//! `ptx run` and `ptx vectors`: the interpreter's commands.

use crate::progress_bar::Bar;
use crate::verify_cli::{load_error, InputArgs};
use clap::Args;
use ptx_ir::interp::{Arg, Checks, Contraction, Error, Finding, Outcome, Program, Progress, Spec};
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `ptx run`.
#[derive(Args)]
pub struct RunArgs {
    /// The PTX (or bytecode) file.
    file: PathBuf,
    /// The kernel to launch.
    #[arg(long)]
    entry: String,
    /// Grid dimensions in CTAs: `X[,Y[,Z]]`.
    #[arg(long, default_value = "1")]
    grid: String,
    /// CTA dimensions in threads: `X[,Y[,Z]]`.
    #[arg(long, default_value = "1")]
    block: String,
    /// Cluster dimensions in CTAs: X,Y,Z.
    #[arg(long)]
    cluster: Option<String>,
    /// Thread-instruction budget.
    #[arg(long)]
    fuel: Option<u64>,
    /// Bytes of dynamic shared memory.
    #[arg(long, default_value_t = 0)]
    shared: u32,
    /// Most clusters running at once (the rest wait in the launch queue, where
    /// clusterlaunchcontrol.try_cancel can cancel them).
    #[arg(long, default_value_t = 1)]
    resident: u32,
    /// A kernel argument, in parameter order: u32:7, s64:-3, f32:1.5, f64:0d3FF0000000000000,
    /// buf:PATH (read, and written back after the run), zeros:BYTES, hex:BYTES, iota32:N
    /// (printed as hex after the run), uninit:BYTES (uninitialised device memory for
    /// `--check init`, printed after the run), tmap:buf=ARG,type=T,dims=AxB,box=AxB[,strides=..]
    /// `[,swizzle=128][,interleave=16][,fill=nan]` (a tensor map over argument ARG's buffer; an im2col map has
    /// `mode=im2col,cpp=N,ppc=N,lower=W:H:D,upper=W:H:D` instead of `box`),
    /// `tex:buf=ARG,type=T,ch=C,dims=W[xH[xD]][,layers=N][,cube=1][,res=linear]`
    /// `[,addr=clamp/wrap/..][,filter=linear][,read=normalized][,coords=normalized]`
    /// `[,border=R/G/B/A][,levels=N,mipfilter=linear,lodbias=F,minlod=F,maxlod=F,aniso=N]`
    /// `[,seamless=1][,samples=N]` (a texture object over ARG's buffer; docs/INTERP.md,
    /// "Textures"),
    /// `surf:buf=ARG,type=T,ch=C,dims=W[xH[xD]][,layers=N]` (a surface object; its stores land
    /// in ARG's buffer), `mc:HEX/HEX/..` or `mc:N*BYTES` (a multicast object over N simulated
    /// devices, one replica each, printed after the run), `uc:ARG.DEVICE` (device DEVICE's
    /// unicast address of multicast argument ARG).
    #[arg(long = "arg")]
    args: Vec<String>,
    /// Binds a module-scope .texref or .surfref variable to an object: NAME=tex:... or
    /// NAME=surf:... (the `--arg` syntax; `buf=ARG` names an `--arg` buffer).
    #[arg(long = "bind", value_name = "NAME=SPEC")]
    binds: Vec<String>,
    /// Host-memory budget in bytes: argument buffers, module variables, and the shared memory,
    /// registers and local memory of the resident CTAs (default 4 GiB).
    #[arg(long = "mem-limit")]
    mem_limit: Option<u64>,
    /// Per-thread stack in bytes for recursion and alloca (default 1024, the GPU's
    /// cudaLimitStackSize; kernels whose call graph bounds the stack get at least that bound).
    #[arg(long)]
    stack: Option<u32>,
    /// How `mul` and `add`/`sub` without rounding modifiers execute: `ptxas` fuses them into
    /// one rounding where ptxas does (docs/INTERP.md, "Contraction"), `never` rounds each
    /// instruction (the ISA's one-by-one reading), `report` runs as `ptxas` and lists the
    /// fused operations whose result differs from the one-by-one reading.
    #[arg(long, value_enum, default_value_t = ContractMode::Ptxas)]
    contract: ContractMode,
    /// Threads to run clusters on, 1 to 1024 (default: every core). Launches whose result
    /// could depend on the order of their CTAs run on one (docs/INTERP.md, "Parallel
    /// launches").
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS as i64))]
    threads: Option<u32>,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Checks to run besides executing, comma-separated: `mem` (memory faults), `race`
    /// (races on shared and global memory between warps, lanes of one warp and clusters; a
    /// launch with checks runs serially), `init` (reads of shared memory and of `uninit:`
    /// buffers, and of local memory, never written), `sync` (barrier misuse), `reg` (registers
    /// read before any write), or `all` (every one but `reg`; docs/INTERP.md, "Checks").
    /// Findings are printed at FILE:LINE:COL; the exit status is 1 when there is one.
    #[arg(long)]
    check: Option<String>,
    #[command(flatten)]
    input: InputArgs,
}

/// The most threads `--threads` takes: the pool starts them all at once, so the bound keeps a
/// mistyped count from asking the host for millions.
const MAX_THREADS: u32 = 1024;

/// The threads `--threads` asks for (default every core).
fn thread_count(asked: Option<u32>) -> u32 {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
        .clamp(1, MAX_THREADS)
}

/// The threads `--threads` asks for (default every core), with the rayon pool sized to match.
pub fn threads(asked: Option<u32>) -> u32 {
    let n = thread_count(asked);
    // Sized once per process; a pool that exists already (a second call) is kept.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n as usize)
        .build_global();
    n
}

/// `--contract`
#[derive(Clone, Copy, clap::ValueEnum)]
enum ContractMode {
    Ptxas,
    Never,
    Report,
}

/// Arguments of `ptx vectors`.
#[derive(Args)]
pub struct VectorsArgs {
    /// A JSON-lines file of hardware vectors.
    file: PathBuf,
    /// Run only cases of this family (repeatable).
    #[arg(long = "family")]
    families: Vec<String>,
    /// Also write each case with `out` replaced by the interpreter's result (cases the
    /// interpreter rejects are left out) to this file.
    #[arg(long)]
    write: Option<PathBuf>,
    /// Print the report as JSON: every case with its result, thread-instructions and seconds.
    #[arg(long)]
    json: bool,
    /// Run checks with every case (as `ptx run --check`): each finding is printed, and the
    /// exit status is 1 when there is one.
    #[arg(long)]
    check: Option<String>,
    /// Cases run at once, each launch on one thread (default: every core; 1 runs them in the
    /// file's order). The report is the same whatever the count.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS as i64))]
    threads: Option<u32>,
    #[command(flatten)]
    input: InputArgs,
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("bad dimensions `{s}`"));
    }
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("bad dimensions `{s}`"))?;
    }
    Ok(d)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The instruction an error names, if it names one.
fn error_site(e: &Error) -> Option<&ptx_ir::interp::Site> {
    error_parts(e).1
}

/// An error's kind (as `--json` names it), instruction and thread.
#[allow(clippy::type_complexity)]
fn error_parts(
    e: &Error,
) -> (
    &'static str,
    Option<&ptx_ir::interp::Site>,
    Option<&ptx_ir::interp::Thread>,
) {
    match e {
        Error::Load { .. } => ("load", None, None),
        Error::Launch(_) => ("launch", None, None),
        Error::Unsupported { site, .. } => ("unsupported", Some(site), None),
        Error::Undefined { site, thread, .. } => ("undefined", Some(site), Some(thread)),
        Error::Memory { site, thread, .. } => ("memory", Some(site), Some(thread)),
        Error::Deadlock(_) => ("deadlock", None, None),
        Error::FuelExhausted(_) => ("fuel", None, None),
        Error::Trap { site, thread } => ("trap", Some(site), Some(thread)),
        Error::StackOverflow { site, thread, .. } => ("stack-overflow", Some(site), Some(thread)),
        Error::MemoryLimit { .. } => ("memory-limit", None, None),
    }
}

fn error_json(e: &Error) -> serde_json::Value {
    let mut j = json!({ "message": e.to_string() });
    let (kind, site, thread) = error_parts(e);
    j["kind"] = json!(kind);
    if let Some(s) = site {
        j["function"] = json!(s.function);
        j["index"] = json!(s.index);
        j["inst"] = json!(s.inst);
    }
    if let Some(t) = thread {
        j["ctaid"] = json!(t.ctaid);
        j["tid"] = json!(t.tid);
        j["lane"] = json!(t.lane);
    }
    j
}

/// `ptx run`
pub fn run(a: RunArgs) -> Result<(), String> {
    let loaded = a.input.load(&a.file)?;
    let prog = Program::load(&loaded.module).map_err(|e| e.to_string())?;
    let mut launch = prog
        .launch(&a.entry)
        .grid(dims(&a.grid)?)
        .block(dims(&a.block)?)
        .dynamic_shared(a.shared)
        .resident_clusters(a.resident)
        .threads(threads(a.threads));
    if let Some(c) = &a.cluster {
        launch = launch.cluster(dims(c)?);
    }
    if let Some(f) = a.fuel {
        launch = launch.fuel(f);
    }
    let mem_limit = a
        .mem_limit
        .unwrap_or(ptx_ir::interp::mem::DEFAULT_MEM_LIMIT);
    launch = launch.mem_limit(mem_limit);
    if let Some(s) = a.stack {
        launch = launch.stack(s);
    }
    launch = launch.contraction(match a.contract {
        ContractMode::Ptxas => Contraction::Ptxas,
        ContractMode::Never => Contraction::Never,
        ContractMode::Report => Contraction::Report,
    });
    let checks = a.check.as_deref().map(Checks::parse).transpose()?;
    if let Some(c) = checks {
        launch = launch.checks(c);
    }
    let mut specs = Vec::new();
    for (i, s) in a.args.iter().enumerate() {
        let (arg, spec) = Arg::parse_spec_within(s, mem_limit).map_err(|e| e.to_string())?;
        launch = launch.arg(arg);
        if spec == Spec::Uninit {
            launch = launch.uninitialized(i);
        }
        specs.push((s.clone(), spec));
    }
    for b in &a.binds {
        let (name, spec) = b
            .split_once('=')
            .ok_or_else(|| format!("--bind `{b}`: expected NAME=tex:... or NAME=surf:..."))?;
        if !(spec.starts_with("tex:") || spec.starts_with("surf:")) {
            return Err(format!(
                "--bind `{b}`: a reference binds to a `tex:` or `surf:` object"
            ));
        }
        let (arg, _) =
            Arg::parse_spec_within(spec, mem_limit).map_err(|e| format!("--bind `{b}`: {e}"))?;
        launch = launch.bind(name, arg);
    }
    let progress = Arc::new(Progress::new());
    launch = launch.progress(progress.clone());
    let bar = Bar::spawn(
        Box::new(move || {
            (
                progress.ctas_done(),
                progress.ctas_total(),
                progress.thread_instructions(),
            )
        }),
        "CTAs",
    );
    let start = Instant::now();
    let result = launch.run();
    let seconds = start.elapsed().as_secs_f64();
    bar.finish();
    let (outcome, error) = match result {
        Ok(o) => (o, None),
        Err(f) => (f.outcome, Some(f.error)),
    };
    // Buffers in argument order, paired with their specs.
    let mut bufs = outcome.buffers.iter();
    let mut out_bufs = Vec::new();
    for (text, spec) in &specs {
        match spec {
            Spec::Scalar => {}
            Spec::Input => {
                bufs.next();
            }
            Spec::File(p) => {
                if let Some(b) = bufs.next() {
                    if error.is_none() {
                        std::fs::write(p, b).map_err(|e| format!("{}: {e}", p.display()))?;
                    }
                    out_bufs.push((text.clone(), b.clone(), false));
                }
            }
            Spec::Shown | Spec::Uninit => {
                if let Some(b) = bufs.next() {
                    out_bufs.push((text.clone(), b.clone(), true));
                }
            }
            Spec::Replicas(n) => {
                let name = text.split_once(':').map_or(text.as_str(), |(k, _)| k);
                for d in 0..*n {
                    if let Some(b) = bufs.next() {
                        out_bufs.push((format!("{name} (device {d})"), b.clone(), true));
                    }
                }
            }
        }
    }
    let findings = findings_of(checks, &outcome, error.as_ref());
    // Positions in the source text, read again only when there is something to point at.
    let located = (!findings.is_empty() || error.is_some())
        .then(|| crate::locate::Located::read(&a.file, a.input.max_input))
        .flatten();
    let at = |function: &str, index: u32| -> Option<(usize, usize)> {
        located.as_ref().and_then(|l| l.inst(function, index))
    };
    let label = |function: &str, index: u32| -> String {
        match at(function, index) {
            Some((line, col)) => format!("{}:{line}:{col}", a.file.display()),
            None => a.file.display().to_string(),
        }
    };
    if a.json {
        let j = json!({
            "ok": error.is_none() && findings.is_empty(),
            "error": error.as_ref().map(|e| {
                let mut j = error_json(e);
                if let Some((line, col)) = error_site(e).and_then(|s| at(&s.function, s.index)) {
                    j["file"] = json!(a.file.display().to_string());
                    j["line"] = json!(line);
                    j["col"] = json!(col);
                }
                j
            }),
            "buffers": out_bufs.iter().map(|(s, b, _)| json!({"arg": s, "hex": hex(b)})).collect::<Vec<_>>(),
            "thread_instructions": outcome.stats.thread_instructions,
            "warp_instructions": outcome.stats.warp_instructions,
            "seconds": seconds,
            "threads": outcome.threads,
            "serial": outcome.serial,
        });
        let mut j = j;
        if checks.is_some() {
            j["findings"] = json!(findings
                .iter()
                .map(|f| {
                    let mut v = finding_json(f);
                    if let Some((line, col)) = at(&f.site.function, f.site.index) {
                        v["file"] = json!(a.file.display().to_string());
                        v["line"] = json!(line);
                        v["col"] = json!(col);
                    }
                    v
                })
                .collect::<Vec<_>>());
            j["findings_dropped"] = json!(outcome.findings_dropped);
        }
        if matches!(a.contract, ContractMode::Report) {
            j["contraction"] = json!(outcome
                .contraction
                .iter()
                .map(|d| json!({"function": d.function, "index": d.index,
                    "mul_index": d.mul_index, "inst": d.inst, "lanes": d.lanes}))
                .collect::<Vec<_>>());
        }
        crate::out::outln!("{j}");
    } else {
        for (s, b, show) in &out_bufs {
            if *show {
                crate::out::outln!("{s}: {}", hex(b));
            }
        }
        crate::out::outln!(
            "{} thread-instructions, {} warp-instructions",
            outcome.stats.thread_instructions,
            outcome.stats.warp_instructions
        );
        if matches!(a.contract, ContractMode::Report) {
            crate::out::outln!(
                "{} fused operation(s) whose result differs from the one-by-one reading",
                outcome.contraction.len()
            );
            for d in &outcome.contraction {
                crate::out::outln!(
                    "  {} #{} `{}` (fused with #{}): {} thread execution(s) differ",
                    d.function,
                    d.index,
                    d.inst,
                    d.mul_index,
                    d.lanes
                );
            }
        }
        if let Some(c) = checks {
            let names: Vec<&str> = [
                (c.mem, "mem"),
                (c.race, "race"),
                (c.init, "init"),
                (c.sync, "sync"),
                (c.reg, "reg"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
            crate::out::outln!(
                "checks {}: {} finding(s){}",
                names.join(","),
                findings.len(),
                if outcome.findings_dropped > 0 {
                    format!(" and {} more not listed", outcome.findings_dropped)
                } else {
                    String::new()
                }
            );
            for f in &findings {
                crate::out::outln!("  {}: {f}", label(&f.site.function, f.site.index));
            }
        }
        if let Some(e) = &error {
            match error_site(e) {
                Some(s) => eprintln!("{}: error: {e}", label(&s.function, s.index)),
                None => eprintln!("error: {e}"),
            }
        }
    }
    match error {
        None if findings.is_empty() => Ok(()),
        _ => Err(String::new()),
    }
}

/// The findings of a run with `checks`: the launch's own, and with `mem` its memory fault.
fn findings_of(checks: Option<Checks>, o: &Outcome, error: Option<&Error>) -> Vec<Finding> {
    let Some(c) = checks else {
        return Vec::new();
    };
    let mut v = o.findings.clone();
    if let (
        true,
        Some(Error::Memory {
            site,
            thread,
            kind,
            space,
            addr,
            size,
        }),
    ) = (c.mem, error)
    {
        v.push(Finding {
            class: ptx_ir::interp::check::Class::Mem,
            what: format!("{kind} access of {size} bytes"),
            site: site.clone(),
            threads: vec![*thread],
            space: Some(space.clone()),
            addr: Some(*addr),
            count: 1,
        });
    }
    v
}

fn finding_json(f: &Finding) -> serde_json::Value {
    json!({
        "check": f.class.name(),
        "what": f.what,
        "function": f.site.function,
        "index": f.site.index,
        "inst": f.site.inst,
        "threads": f.threads.iter().map(|t| json!({"ctaid": t.ctaid, "tid": t.tid, "lane": t.lane})).collect::<Vec<_>>(),
        "space": f.space,
        "addr": f.addr,
        "count": f.count,
    })
}

/// `data` decompressed, refused once it passes `limit` bytes (`--max-input` bounds what a small
/// compressed file may expand to).
fn unxz(data: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    struct Capped(Vec<u8>, u64);
    impl std::io::Write for Capped {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if self.0.len() as u64 + b.len() as u64 > self.1 {
                return Err(std::io::Error::other(format!(
                    "decompresses to more than --max-input ({} bytes)",
                    self.1
                )));
            }
            self.0.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new(), limit);
    lzma_rs::xz_decompress(&mut &data[..], &mut out).map_err(|e| e.to_string())?;
    Ok(out.0)
}

/// `ptx vectors`
pub fn vectors(a: VectorsArgs) -> Result<(), String> {
    let text = ptx_ir::load::read_input(&a.file, a.input.max_input).map_err(load_error)?;
    let text = if a.file.extension().is_some_and(|e| e == "xz") {
        unxz(&text, a.input.max_input)
            .map_err(|e| format!("{}: error: not xz data ({e})", a.file.display()))?
    } else {
        text
    };
    let text = String::from_utf8(text)
        .map_err(|e| format!("{}: error: not UTF-8 text ({e})", a.file.display()))?;
    let parse = |s: &str| ptx_ir::text::parse(s).map_err(|e| e.to_string());
    ptx_ir::vectors::check_families(&text, &a.families).map_err(|e| e.to_string())?;
    let total = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| match ptx_ir::vectors::parse_case(l) {
            Ok(c) => a.families.is_empty() || a.families.contains(&c.family),
            Err(_) => true,
        })
        .count() as u64;
    let counters = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
    let seen = counters.clone();
    let bar = Bar::spawn(
        Box::new(move || {
            (
                seen.0.load(Ordering::Relaxed),
                total,
                seen.1.load(Ordering::Relaxed),
            )
        }),
        "cases",
    );
    let start = Instant::now();
    let threads = thread_count(a.threads) as usize;
    let checks = a.check.as_deref().map(Checks::parse).transpose()?;
    let report = ptx_ir::vectors::run_text_checked(
        &text,
        &a.families,
        &parse,
        threads,
        checks.unwrap_or_default(),
        &|r| {
            counters.0.fetch_add(1, Ordering::Relaxed);
            counters
                .1
                .fetch_add(r.thread_instructions, Ordering::Relaxed);
        },
    );
    let findings: usize = report.results.iter().map(|r| r.findings.len()).sum();
    let seconds = start.elapsed().as_secs_f64();
    bar.finish();
    // Positions in the kernels of the cases with findings: LINE:COL within the case's `ptx`.
    let kernels: std::collections::HashMap<String, crate::locate::Located> = if findings > 0 {
        let with: std::collections::HashSet<&str> = report
            .results
            .iter()
            .filter(|r| !r.findings.is_empty())
            .map(|r| r.name.as_str())
            .collect();
        text.lines()
            .filter_map(|l| ptx_ir::vectors::parse_case(l).ok())
            .filter(|c| with.contains(c.name.as_str()))
            .filter_map(|c| {
                let at = crate::locate::Located::parse(c.ptx.as_bytes(), &c.name)?;
                Some((c.name, at))
            })
            .collect()
    } else {
        Default::default()
    };
    let at = |case: &str, f: &Finding| -> Option<(usize, usize)> {
        kernels.get(case)?.inst(&f.site.function, f.site.index)
    };
    if a.json {
        let cases: Vec<_> = report
            .results
            .iter()
            .map(|r| {
                json!({"name": r.name, "family": r.family, "passed": r.passed,
                    "detail": r.detail, "bad_lanes": r.bad_lanes, "max_ulp": r.max_ulp,
                    "thread_instructions": r.thread_instructions, "seconds": r.seconds,
                    "isa_derived": r.isa_derived,
                    "findings": r.findings.iter().map(|f| {
                        let mut v = finding_json(f);
                        if let Some((line, col)) = at(&r.name, f) {
                            v["line"] = json!(line);
                            v["col"] = json!(col);
                        }
                        v
                    }).collect::<Vec<_>>()})
            })
            .collect();
        let j = json!({
            "passed": report.results.len() - report.failed(),
            "failed": report.failed(),
            "thread_instructions": report.results.iter().map(|r| r.thread_instructions).sum::<u64>(),
            "seconds": seconds,
            "cases": cases,
        });
        crate::out::outln!("{j}");
    } else {
        crate::out::out!("{}", report.render());
        if checks.is_some() {
            for r in &report.results {
                for f in &r.findings {
                    match at(&r.name, f) {
                        Some((line, col)) => {
                            crate::out::outln!("FINDING {} {line}:{col}: {f}", r.name)
                        }
                        None => crate::out::outln!("FINDING {}: {f}", r.name),
                    }
                }
            }
            crate::out::outln!("{findings} finding(s)");
        }
    }
    if let Some(path) = &a.write {
        write_interpreted(&text, &a.families, &parse, path)?;
    }
    if report.failed() == 0 && findings == 0 {
        Ok(())
    } else {
        Err(String::new())
    }
}

/// `ptx vectors --write`: the cases with the interpreter's `out`.
fn write_interpreted(
    text: &str,
    families: &[String],
    parse: &dyn Fn(&str) -> Result<ptx_ir::ir::Module, String>,
    path: &std::path::Path,
) -> Result<(), String> {
    use ptx_ir::vectors;
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(c) = vectors::parse_case(line) else {
            continue;
        };
        if !families.is_empty() && !families.contains(&c.family) {
            continue;
        }
        let Ok(got) = vectors::interpret(&c, parse) else {
            continue;
        };
        let mut v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        v["out"]["hex"] = json!(vectors::out_hex(&c, &got.out));
        out.push_str(&v.to_string());
        out.push('\n');
    }
    std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
}
