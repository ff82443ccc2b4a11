//! `ptx check` (read, then verify) and `ptx info` (what a module needs).

use clap::Args;
use ptx_ir::ir::avail::SmReq;
use ptx_ir::ir::verify::{self, Diagnostic, Options, Severity};
use ptx_ir::ir::{Module, Target, Version};
use ptx_ir::load;
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
}

fn parse_version(s: &str) -> Result<Version, String> {
    let (a, b) = s
        .split_once('.')
        .ok_or_else(|| format!("`{s}` is not a PTX ISA version (expected X.Y)"))?;
    let num = |x: &str| {
        x.parse::<u8>()
            .map_err(|_| format!("`{s}` is not a PTX ISA version (expected X.Y)"))
    };
    Ok(Version {
        major: num(a)?,
        minor: num(b)?,
    })
}

/// A loaded file with what is needed to point into it.
struct Source {
    name: String,
    module: Module,
    /// The text and statement offsets, for PTX text files.
    text: Option<(String, Spans)>,
}

fn read(path: &Path) -> Result<Source, String> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: error: {e}"))?;
    if !ptx_ir::binary::is_bytecode(&bytes) {
        if let Ok(src) = std::str::from_utf8(&bytes) {
            let (module, spans) = text::parse_with_spans(src, &name).map_err(|e| e.to_string())?;
            return Ok(Source {
                name,
                module,
                text: Some((src.to_string(), spans)),
            });
        }
    }
    let l = load::load_bytes(&bytes, &name).map_err(|e| e.to_string())?;
    Ok(Source {
        name,
        module: l.module,
        text: None,
    })
}

/// Byte offset a diagnostic points at, when the source text is known.
fn offset(src: &Source, d: &Diagnostic) -> Option<usize> {
    let (text, spans) = src.text.as_ref()?;
    match (d.location.item, d.location.stmt) {
        (Some(item), Some(stmt)) => spans.statement(item, stmt),
        (None, _) => text.find(".target").or(Some(0)),
        _ => None,
    }
}

/// `FILE:LINE:COL: error[rule]: message`, the source line and a caret (or `FILE: ...` with the
/// function and statement index when no text position is known).
fn render(src: &Source, d: &Diagnostic) -> String {
    let sev = match d.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut msg = format!("{sev}[{}]: {}", d.rule.id(), d.message);
    if let Some(i) = &d.inst {
        msg.push_str(&format!(" in `{i}`"));
    }
    match (offset(src, d), &src.text) {
        (Some(off), Some((text, _))) => {
            let e = text::ParseError::new(&src.name, text, off, "");
            let gutter = e.line.to_string();
            format!(
                "{}:{}:{}: {msg}\n{gutter} | {}\n{} | {}^",
                src.name,
                e.line,
                e.col,
                e.source_line.replace('\t', " "),
                " ".repeat(gutter.len()),
                " ".repeat(e.col.saturating_sub(1))
            )
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

/// `ptx check`: parse errors as before; then the verifier unless `--no-verify`.
pub fn check(a: CheckArgs) -> Result<(), String> {
    let mut opts = Options::default();
    if let Some(t) = &a.target {
        let parsed =
            Target::parse(t).filter(|t| matches!(t, Target::Sm { .. } | Target::Compute(_)));
        opts.target =
            Some(parsed.ok_or_else(|| {
                format!("`{t}` is not a target (expected sm_XX, sm_XXa or sm_XXf)")
            })?);
    }
    if let Some(v) = &a.ptx_version {
        opts.version = Some(parse_version(v)?);
    }
    let mut ok = true;
    for f in &a.files {
        let src = match read(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                ok = false;
                continue;
            }
        };
        if a.no_verify {
            continue;
        }
        let diags = verify::verify_with(&src.module, &opts);
        for d in &diags {
            eprintln!("{}", render(&src, d));
        }
        if verify::has_errors(&diags) {
            ok = false;
        }
    }
    if ok {
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
pub fn info(file: &Path) -> Result<(), String> {
    let src = read(file)?;
    let m = &src.module;
    let declared: Vec<String> = m.target.iter().map(|t| t.to_text()).collect();
    let req = verify::requirements(m);
    println!("file: {}", src.name);
    println!(
        "declared: .version {} .target {}",
        ver(m.version),
        declared.join(", ")
    );
    match req.target {
        Some(t) => println!("minimum target: {t}"),
        None => println!("minimum target: none (the requirements exclude each other)"),
    }
    println!("minimum PTX ISA version: {}", ver(req.ptx));
    println!(
        "instructions: {}, functions: {}",
        m.instruction_count(),
        m.functions().count()
    );
    if !req.features.is_empty() {
        println!("features that set the minimum:");
        for f in req.features.iter().take(40) {
            let sm = match f.sm {
                SmReq::Any => String::new(),
                s => format!(", {s}"),
            };
            println!("  {}: PTX {}{sm}", f.what, ver(f.ptx));
        }
        if req.features.len() > 40 {
            println!("  ... and {} more", req.features.len() - 40);
        }
    }
    Ok(())
}
