//! `ptx check` (read, then verify) and `ptx info` (what a module needs).

use clap::Args;
use ptx_ir::ir::avail::{self, Sm, SmReq};
use ptx_ir::ir::verify::{self, Diagnostic, Options, Rule, Severity};
use ptx_ir::ir::{Module, Target, Version};
use ptx_ir::load::{self, LoadError};
use ptx_ir::text::{self, Spans};
use std::path::{Path, PathBuf};

/// Arguments of `ptx check`.
#[derive(Args)]
pub struct CheckArgs {
    /// PTX or bytecode files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only read the files; do not run the verifier.
    #[arg(long)]
    no_verify: bool,
    /// Verify against this target (`sm_80`, `sm_90a`, `sm_100f`) instead of the module's.
    #[arg(long)]
    target: Option<String>,
    /// Verify against this PTX ISA version (`8.0`) instead of the module's.
    #[arg(long = "ptx-version")]
    ptx_version: Option<String>,
    /// Print at most this many diagnostics per file, then how many more there are.
    #[arg(long, default_value_t = 100, value_name = "N")]
    max_errors: usize,
    /// Do not print the summary line.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    input: InputArgs,
}

/// The input limit of the commands that read files.
#[derive(Args, Clone, Copy)]
pub struct InputArgs {
    /// Refuse a file longer than this many bytes (suffixes K, M, G: powers of 1024).
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value_t = load::DEFAULT_MAX_INPUT)]
    pub max_input: u64,
}

impl InputArgs {
    /// Loads the module at `path` under this limit.
    pub fn load(&self, path: &Path) -> Result<load::Loaded, String> {
        load::load_path_with(path, self.max_input, &ptx_ir::binary::DecodeLimits::DEFAULT)
            .map_err(load_error)
    }
}

/// A load error as the command prints it: a file over the limit says how to raise it.
pub fn load_error(e: LoadError) -> String {
    match e {
        LoadError::TooLarge { .. } => format!("{e} (`--max-input BYTES` raises it)"),
        e => e.to_string(),
    }
}

/// `1048576`, `64K`, `512M`, `2G`.
fn parse_size(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1 << 20),
        Some(b'g' | b'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| {
            format!("`{s}` is not a size in bytes (a number, optionally with K, M or G)")
        })
}

fn ver_list() -> String {
    let all: Vec<String> = avail::VERSIONS.iter().map(|&v| ver(v)).collect();
    format!(
        "{} to {}: {}",
        ver(avail::VERSIONS[0]),
        ver(avail::LATEST),
        all.join(", ")
    )
}

fn parse_version(s: &str) -> Result<Version, String> {
    let unknown = || {
        format!(
            "error: `{s}` is not a PTX ISA version this tool knows ({})",
            ver_list()
        )
    };
    let (a, b) = s.split_once('.').ok_or_else(unknown)?;
    let num = |x: &str| x.parse::<u8>().map_err(|_| unknown());
    let v = Version {
        major: num(a)?,
        minor: num(b)?,
    };
    if !avail::VERSIONS.contains(&v) {
        return Err(unknown());
    }
    Ok(v)
}

fn parse_target(t: &str) -> Result<Target, String> {
    let known: Vec<String> = avail::KNOWN.iter().map(|a| format!("sm_{a}")).collect();
    let parsed = Target::parse(t)
        .filter(|t| matches!(t, Target::Sm { .. } | Target::Compute(_)))
        .filter(|&t| Sm::of(t).is_some_and(Sm::exists));
    parsed.ok_or_else(|| {
        format!(
            "error: `{t}` is not a target this tool knows (PTX ISA {}: {}; with `a` from sm_90, `f` \
             from sm_100)",
            ver(avail::LATEST),
            known.join(", ")
        )
    })
}

/// A loaded file with what is needed to point into it.
struct Source {
    name: String,
    module: Module,
    /// The text and statement offsets, for PTX text files.
    text: Option<(String, Spans)>,
}

fn read(path: &Path, input: InputArgs) -> Result<Source, String> {
    let name = path.display().to_string();
    let bytes = load::read_input(path, input.max_input).map_err(load_error)?;
    if !ptx_ir::binary::is_bytecode(&bytes) {
        let (src, module, spans) =
            text::parse_bytes_with_spans(&bytes, &name).map_err(|e| e.to_string())?;
        let src = src.to_string();
        return Ok(Source {
            name,
            module,
            text: Some((src, spans)),
        });
    }
    let l = load::load_bytes(&bytes, &name).map_err(load_error)?;
    Ok(Source {
        name,
        module: l.module,
        text: None,
    })
}

/// Byte offset a diagnostic points at, when the source text is known: its statement, else its
/// module item, else (a finding about the header) the `.version` or `.target` directive.
fn offset(src: &Source, d: &Diagnostic) -> Option<usize> {
    let (_, spans) = src.text.as_ref()?;
    match (d.location.item, d.location.stmt) {
        (Some(item), Some(stmt)) => spans.statement(item, stmt),
        (Some(item), None) => spans.item(item),
        (None, _) if d.rule == Rule::UnknownVersion => spans.version_directive(),
        (None, _) => spans.target_directive(),
    }
}

/// 1-based line numbers of `offsets` in `text`, in one pass over the text however many there
/// are.
fn lines_of(text: &str, offsets: &[Option<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&k| offsets[k]);
    let mut lines = vec![0; offsets.len()];
    let (mut at, mut line) = (0usize, 1usize);
    for k in order {
        let Some(off) = offsets[k] else { continue };
        let off = off.min(text.len());
        line += text.as_bytes()[at..off]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        at = off;
        lines[k] = line;
    }
    lines
}

/// `FILE:LINE:COL: error[rule]: message`, the source line (a window of it when long) and a
/// caret, or `FILE: ...` with the function and statement index when no text position is known.
fn render(src: &Source, d: &Diagnostic, at: Option<(usize, usize)>) -> String {
    let sev = match d.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut msg = format!("{sev}[{}]: {}", d.rule.id(), d.message);
    if let Some(i) = &d.inst {
        msg.push_str(&format!(" in `{i}`"));
    }
    match (at, &src.text) {
        (Some((off, line)), Some((text, _))) => {
            let off = off.min(text.len());
            // The snippet of the line alone: finding the line's number again would read the
            // text from its start for every diagnostic.
            let start = text[..off].rfind('\n').map_or(0, |p| p + 1);
            let mut e = text::ParseError::new(&src.name, &text[start..], off - start, "");
            e.line = line;
            format!("{}:{}:{}: {msg}\n{}", src.name, e.line, e.col, e.snippet())
        }
        _ => {
            let mut at = String::new();
            if let Some(f) = &d.location.function {
                at.push_str(&format!(" (function `{f}`"));
                if let Some(s) = d.location.stmt {
                    at.push_str(&format!(", statement {s}"));
                }
                at.push(')');
            }
            format!("{}: {msg}{at}", src.name)
        }
    }
}

/// Prints the first `max` of `diags` of `src`, then how many more there are.
fn report(src: &Source, diags: &[Diagnostic], max: usize) {
    let shown = &diags[..diags.len().min(max)];
    let offsets: Vec<Option<usize>> = shown.iter().map(|d| offset(src, d)).collect();
    let lines = match &src.text {
        Some((text, _)) => lines_of(text, &offsets),
        None => vec![0; shown.len()],
    };
    for ((d, off), line) in shown.iter().zip(&offsets).zip(lines) {
        eprintln!("{}", render(src, d, off.map(|o| (o, line))));
    }
    let rest = &diags[shown.len()..];
    if !rest.is_empty() {
        let errors = rest
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .count();
        eprintln!(
            "{}: {} more not shown ({errors} errors, {} warnings; `--max-errors N` shows more)",
            src.name,
            rest.len(),
            rest.len() - errors
        );
    }
}

/// `ptx check`: parse errors as before; then the verifier unless `--no-verify`; a summary line
/// unless `--quiet`.
pub fn check(a: CheckArgs) -> Result<(), String> {
    let mut opts = Options::default();
    if let Some(t) = &a.target {
        opts.target = Some(parse_target(t)?);
    }
    if let Some(v) = &a.ptx_version {
        opts.version = Some(parse_version(v)?);
    }
    let (mut clean, mut bad) = (0usize, 0usize);
    for f in &a.files {
        let src = match read(f, a.input) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                bad += 1;
                continue;
            }
        };
        if a.no_verify {
            clean += 1;
            continue;
        }
        let diags = verify::verify_with(&src.module, &opts);
        report(&src, &diags, a.max_errors);
        if verify::has_errors(&diags) {
            bad += 1;
        } else {
            clean += 1;
        }
    }
    if !a.quiet {
        let files = if a.files.len() == 1 { "file" } else { "files" };
        let what = if a.no_verify { "read" } else { "checked" };
        crate::out::outln!(
            "{} {files} {what}: {clean} clean, {bad} with errors",
            a.files.len()
        );
    }
    if bad == 0 {
        Ok(())
    } else {
        Err(String::new())
    }
}

fn ver(v: Version) -> String {
    format!("{}.{}", v.major, v.minor)
}

/// `ptx info`: the declared and the minimum target and PTX ISA version, and the features that
/// set them.
pub fn info(file: &Path, input: InputArgs) -> Result<(), String> {
    let src = read(file, input)?;
    let m = &src.module;
    let declared: Vec<String> = m.target.iter().map(|t| t.to_text()).collect();
    let req = verify::requirements(m);
    crate::out::outln!("file: {}", src.name);
    crate::out::outln!(
        "declared: .version {} .target {}",
        ver(m.version),
        declared.join(", ")
    );
    match req.target {
        Some(t) => crate::out::outln!("minimum target: {t}"),
        None => crate::out::outln!("minimum target: none (the requirements exclude each other)"),
    }
    crate::out::outln!("minimum PTX ISA version: {}", ver(req.ptx));
    crate::out::outln!(
        "instructions: {}, functions: {}",
        m.instruction_count(),
        m.functions().count()
    );
    if !req.features.is_empty() {
        crate::out::outln!("features that set the minimum:");
        for f in req.features.iter().take(40) {
            let sm = match f.sm {
                SmReq::Any => String::new(),
                s => format!(", {s}"),
            };
            crate::out::outln!("  {}: PTX {}{sm}", f.what, ver(f.ptx));
        }
        if req.features.len() > 40 {
            crate::out::outln!("  ... and {} more", req.features.len() - 40);
        }
    }
    Ok(())
}
