//! Hardware-truth vectors (the JSON-lines format of `shared/hwtruth/README.md`): run each case
//! and compare its `out` buffer bit for bit.
//!
//! The runner takes the PTX reader as a function, so that a caller chooses how text becomes a
//! module. It lives in the `ptx` crate, beside the `ptx vectors` command, not in the
//! interpreter library: embedders of the interpreter need neither it nor `serde_json`.

use ptx_ir_core::Module;
use ptx_ir_interp::float::{self, Fmt};
use ptx_ir_interp::Arg;
use ptx_ir_interp::Program;
use serde_json::Value;
use std::collections::BTreeMap;

/// A typed buffer: element type name and big-endian hex per element.
#[derive(Clone, Debug)]
pub struct Buf {
    /// Element type (`u32`, `f16x2`, ...).
    pub ty: String,
    /// Elements as big-endian hex.
    pub hex: Vec<String>,
}

/// One case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its name.
    pub name: String,
    /// Its family.
    pub family: String,
    /// The module.
    pub ptx: String,
    /// The kernel.
    pub entry: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// CTA dimensions.
    pub block: [u32; 3],
    /// Cluster dimensions, if any.
    pub cluster: Option<[u32; 3]>,
    /// Inputs `in0`, `in1`, `in2` (absent ones are not listed).
    pub args: Vec<Buf>,
    /// Expected output.
    pub out: Buf,
    /// Bytes of dynamic shared memory (`"shared"`, default 0).
    pub shared: u32,
    /// Tensor maps passed after the four buffers (`"tmaps"`).
    pub tmaps: Vec<ptx_ir_interp::tmap::TensorMapArg>,
    /// Texture objects passed after the tensor maps (`"textures"`).
    pub textures: Vec<ptx_ir_interp::texture::TextureArg>,
    /// Surface objects passed after the textures (`"surfaces"`).
    pub surfaces: Vec<ptx_ir_interp::texture::SurfaceArg>,
    /// The buffer compared with `out` (`"out_buffer"`, default 0: `out` itself; a surface's
    /// buffer for stores).
    pub out_buffer: usize,
    /// The expected output comes from the ISA text, not from a GPU (`"reference": "isa"`: the
    /// Blackwell families, which no GPU here runs).
    pub isa_derived: bool,
    /// Checks to run with the case (not in the file: `ptx vectors --check`).
    pub checks: ptx_ir_interp::Checks,
}

fn dims(v: Option<&Value>) -> Option<[u32; 3]> {
    let a = v?.as_array()?;
    let mut d = [1u32; 3];
    for (i, x) in a.iter().enumerate().take(3) {
        d[i] = x.as_u64()? as u32;
    }
    Some(d)
}

fn buf(v: &Value) -> Option<Buf> {
    Some(Buf {
        ty: v.get("type")?.as_str()?.to_string(),
        hex: v
            .get("hex")?
            .as_array()?
            .iter()
            .map(|h| h.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()?,
    })
}

/// What is wrong with a line of a vectors file, or with the families asked of one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaseError {
    /// The line is not JSON.
    #[error("not JSON: {0}")]
    Json(String),
    /// A required field is missing or not a string.
    #[error("missing `{0}`")]
    Missing(&'static str),
    /// A field has the wrong shape.
    #[error("bad `{0}`")]
    Bad(&'static str),
    /// A tensor-map entry lacks a field or does not describe a tensor map.
    #[error("{0}")]
    TensorMap(String),
    /// A texture or surface entry does not describe an object.
    #[error("{0}")]
    Object(String),
    /// Families asked for that no case of the file has.
    #[error(
        "unknown famil{} {}; the file has: {}",
        if unknown.len() == 1 { "y" } else { "ies" },
        unknown.join(", "),
        have.join(", ")
    )]
    UnknownFamilies {
        /// The families asked for and not found.
        unknown: Vec<String>,
        /// The families the file has.
        have: Vec<String>,
    },
}

/// Parses one line.
pub fn parse_case(line: &str) -> Result<Case, CaseError> {
    let v: Value = serde_json::from_str(line).map_err(|e| CaseError::Json(e.to_string()))?;
    let s = |k: &'static str| -> Result<String, CaseError> {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or(CaseError::Missing(k))
    };
    Ok(Case {
        name: s("name")?,
        family: s("family")?,
        ptx: s("ptx")?,
        entry: s("entry").unwrap_or_else(|_| "k".into()),
        grid: dims(v.get("grid")).ok_or(CaseError::Bad("grid"))?,
        block: dims(v.get("block")).ok_or(CaseError::Bad("block"))?,
        cluster: dims(v.get("cluster")),
        args: v
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(buf).collect())
            .unwrap_or_default(),
        out: v.get("out").and_then(buf).ok_or(CaseError::Bad("out"))?,
        shared: v.get("shared").and_then(Value::as_u64).unwrap_or(0) as u32,
        tmaps: v
            .get("tmaps")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(tmap).collect::<Result<Vec<_>, String>>())
            .transpose()
            .map_err(CaseError::TensorMap)?
            .unwrap_or_default(),
        textures: objects(&v, "textures", |s| {
            ptx_ir_interp::texture::TextureArg::parse(&s)
        })?,
        surfaces: objects(&v, "surfaces", |s| {
            ptx_ir_interp::texture::SurfaceArg::parse(&s)
        })?,
        out_buffer: v.get("out_buffer").and_then(Value::as_u64).unwrap_or(0) as usize,
        isa_derived: v.get("reference").and_then(Value::as_str) == Some("isa"),
        checks: Default::default(),
    })
}

/// The fields of a `textures` or `surfaces` entry ([`objects`]). `gather` (the CUDA array was
/// made with `cudaArrayTextureGather`, which `tld4` needs on the GPU) changes nothing the
/// interpreter models.
const OBJECT_FIELDS: &[&str] = &[
    "gather",
    "buffer",
    "type",
    "channels",
    "dims",
    "layers",
    "cube",
    "res",
    "addr",
    "filter",
    "read",
    "normalized",
    "border",
    "levels",
    "mipfilter",
    "lodbias",
    "minlod",
    "maxlod",
    "aniso",
    "trilinopt",
    "seamless",
];

/// The `textures` or `surfaces` entries of a case, each `{"buffer": 1, "type": "f32",
/// "channels": 4, "dims": [8, 4], "layers": 3, "cube": true, "res": "linear", "addr":
/// ["clamp", ..], "filter": "linear", "read": "normalized", "normalized": true, "border":
/// [r, g, b, a], "levels": 5, "mipfilter": "linear", "lodbias": 0.5, "minlod": 1,
/// "maxlod": 4, "aniso": 0, "trilinopt": false, "seamless": true}` (the fields after `dims`
/// optional; the
/// sampling ones for textures only),
/// made into the `tex:`/`surf:` specification the interpreter parses.
fn objects<T>(
    v: &Value,
    key: &'static str,
    parse: impl Fn(String) -> Result<T, String>,
) -> Result<Vec<T>, CaseError> {
    let Some(list) = v.get(key).and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    let join = |a: &Value, sep: &str| -> String {
        a.as_array()
            .map(|a| {
                a.iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        x => x.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(sep)
            })
            .unwrap_or_default()
    };
    list.iter()
        .map(|o| {
            // A field this reader does not know would be dropped silently, and the case run
            // with another object than the one the GPU had.
            if let Some(k) = o
                .as_object()
                .and_then(|m| m.keys().find(|k| !OBJECT_FIELDS.contains(&k.as_str())))
            {
                return Err(CaseError::Object(format!("unknown {key} field `{k}`")));
            }
            let mut s = format!(
                "buf={},type={},ch={},dims={}",
                o.get("buffer").and_then(Value::as_u64).unwrap_or(1),
                o.get("type").and_then(Value::as_str).unwrap_or(""),
                o.get("channels").and_then(Value::as_u64).unwrap_or(1),
                o.get("dims").map(|d| join(d, "x")).unwrap_or_default()
            );
            if let Some(n) = o.get("layers").and_then(Value::as_u64) {
                s.push_str(&format!(",layers={n}"));
            }
            if o.get("cube").and_then(Value::as_bool) == Some(true) {
                s.push_str(",cube=1");
            }
            if let Some(r) = o.get("res").and_then(Value::as_str) {
                s.push_str(&format!(",res={r}"));
            }
            if let Some(a) = o.get("addr") {
                s.push_str(&format!(",addr={}", join(a, "/")));
            }
            if let Some(f) = o.get("filter").and_then(Value::as_str) {
                s.push_str(&format!(",filter={f}"));
            }
            if let Some(r) = o.get("read").and_then(Value::as_str) {
                s.push_str(&format!(",read={r}"));
            }
            if o.get("normalized").and_then(Value::as_bool) == Some(true) {
                s.push_str(",coords=normalized");
            }
            if let Some(b) = o.get("border") {
                s.push_str(&format!(",border={}", join(b, "/")));
            }
            if let Some(n) = o.get("levels").and_then(Value::as_u64) {
                s.push_str(&format!(",levels={n}"));
            }
            if let Some(f) = o.get("mipfilter").and_then(Value::as_str) {
                s.push_str(&format!(",mipfilter={f}"));
            }
            for k in ["lodbias", "minlod", "maxlod", "aniso"] {
                if let Some(v) = o.get(k).and_then(Value::as_f64) {
                    s.push_str(&format!(",{k}={v}"));
                }
            }
            if let Some(b) = o.get("trilinopt").and_then(Value::as_bool) {
                s.push_str(&format!(",trilinopt={}", u8::from(b)));
            }
            if let Some(b) = o.get("seamless").and_then(Value::as_bool) {
                s.push_str(&format!(",seamless={}", u8::from(b)));
            }
            parse(s).map_err(CaseError::Object)
        })
        .collect()
}

/// A tensor-map entry: `{"buffer": 1, "type": "f16", "dims": [..], "strides": [..],
/// "box": [..], "estrides": [..], "swizzle": 128, "atom": "32", "interleave": 16, "fill": "zero"}`
/// (`atom`: the 128-byte swizzle's atomicity, `16`, `32`, `32flip` or `64`); `buffer` counts the
/// kernel's buffers (0 = `out`, 1 = `in0`, ...); `strides` (bytes, dimensions 1..rank) and
/// `estrides` are optional. An im2col map has `"mode": "im2col"` (or `"im2col_w"`,
/// `"im2col_w128"`), `"cpp"`, `"ppc"`, `"lower"` and `"upper"` (signed, W, H, D order)
/// instead of `"box"`.
fn tmap(v: &Value) -> Result<ptx_ir_interp::tmap::TensorMapArg, String> {
    let list = |k: &str| -> Option<String> {
        v.get(k)?.as_array().map(|a| {
            a.iter()
                .map(|x| x.as_u64().unwrap_or(0).to_string())
                .collect::<Vec<_>>()
                .join("x")
        })
    };
    let mut spec = format!(
        "buf={},type={},dims={}",
        v.get("buffer")
            .and_then(Value::as_u64)
            .ok_or("tensor map without `buffer`")?,
        v.get("type")
            .and_then(Value::as_str)
            .ok_or("tensor map without `type`")?,
        list("dims").ok_or("tensor map without `dims`")?,
    );
    match v.get("mode").and_then(Value::as_str) {
        None | Some("tile") => {
            spec.push_str(&format!(
                ",box={}",
                list("box").ok_or("tensor map without `box`")?
            ));
        }
        Some(m) => {
            let num = |k: &str| {
                v.get(k)
                    .and_then(Value::as_u64)
                    .ok_or(format!("im2col tensor map without `{k}`"))
            };
            spec.push_str(&format!(
                ",mode={m},cpp={},ppc={}",
                num("cpp")?,
                num("ppc")?
            ));
            for k in ["lower", "upper"] {
                if let Some(a) = v.get(k).and_then(Value::as_array).filter(|a| !a.is_empty()) {
                    let c: Vec<String> = a
                        .iter()
                        .map(|x| x.as_i64().map(|n| n.to_string()))
                        .collect::<Option<_>>()
                        .ok_or(format!("`{k}` holds a value that is not an integer"))?;
                    spec.push_str(&format!(",{k}={}", c.join(":")));
                }
            }
        }
    }
    if let Some(s) = list("strides").filter(|s| !s.is_empty()) {
        spec.push_str(&format!(",strides={s}"));
    }
    if let Some(s) = list("estrides") {
        spec.push_str(&format!(",estrides={s}"));
    }
    if let Some(s) = v.get("swizzle").and_then(Value::as_u64) {
        spec.push_str(&format!(",swizzle={s}"));
    }
    if let Some(a) = v.get("atom") {
        let a = a.as_str().map_or_else(|| a.to_string(), str::to_string);
        spec.push_str(&format!(",atom={a}"));
    }
    if let Some(f) = v.get("fill").and_then(Value::as_str) {
        spec.push_str(&format!(",fill={f}"));
    }
    if let Some(i) = v.get("interleave").and_then(Value::as_u64) {
        spec.push_str(&format!(",interleave={i}"));
    }
    ptx_ir_interp::tmap::TensorMapArg::parse(&spec).map_err(|e| e.to_string())
}

fn elem_bytes(hex: &[String]) -> usize {
    hex.first().map(|h| h.len() / 2).unwrap_or(4).max(1)
}

fn to_bytes(b: &Buf) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for h in &b.hex {
        let mut e = Vec::new();
        for i in (0..h.len()).step_by(2) {
            let byte = h
                .get(i..i + 2)
                .and_then(|x| u8::from_str_radix(x, 16).ok())
                .ok_or_else(|| format!("bad hex `{h}`"))?;
            e.push(byte);
        }
        e.reverse();
        out.extend(e);
    }
    Ok(out)
}

fn to_hex(b: &[u8]) -> String {
    b.iter().rev().map(|x| format!("{x:02x}")).collect()
}

/// The result of one case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Bit-exact agreement.
    pub passed: bool,
    /// The first mismatch as `lane I got X want Y`, or the error.
    pub detail: Option<String>,
    /// Lanes that differ.
    pub bad_lanes: usize,
    /// The largest ulp distance over all lanes (float outputs only).
    pub max_ulp: Option<u64>,
    /// Thread-instructions the interpreter executed (0 if it did not run the kernel).
    pub thread_instructions: u64,
    /// Seconds the case took: reading its PTX, loading and running it.
    pub seconds: f64,
    /// Whether the expected output is ISA-derived rather than recorded on hardware (the
    /// case's `"reference": "isa"`).
    pub isa_derived: bool,
    /// What the case's checks found ([`Case::checks`]).
    pub findings: Vec<ptx_ir_interp::Finding>,
}

fn out_fmt(ty: &str) -> Option<(Fmt, usize)> {
    Some(match ty {
        "f32" => (Fmt::F32, 1),
        "f64" => (Fmt::F64, 1),
        "f16" => (Fmt::F16, 1),
        "bf16" => (Fmt::Bf16, 1),
        "f16x2" => (Fmt::F16, 2),
        "bf16x2" => (Fmt::Bf16, 2),
        _ => return None,
    })
}

fn ulp(got: &[u8], want: &[u8], f: Fmt, n: usize) -> u64 {
    let g = ptx_ir_interp::mem::get_le(got);
    let w = ptx_ir_interp::mem::get_le(want);
    let mut m = 0;
    for i in 0..n as u32 {
        let sh = f.bits() * i;
        m = m.max(float::ulp_distance(
            (g >> sh) & f.mask(),
            (w >> sh) & f.mask(),
            f,
        ));
    }
    m
}

/// Runs a case's kernel in the interpreter; returns the `out` buffer.
pub fn interpret(
    c: &Case,
    parse: &dyn Fn(&str) -> Result<Module, String>,
) -> Result<Interpreted, String> {
    let m = parse(&c.ptx)?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let es = elem_bytes(&c.out.hex);
    let mut args = vec![Arg::Buffer(vec![0xab; es * c.out.hex.len()])];
    for i in 0..3 {
        args.push(Arg::Buffer(match c.args.get(i) {
            Some(b) => to_bytes(b)?,
            None => vec![0],
        }));
    }
    for t in &c.tmaps {
        args.push(Arg::TensorMap(t.clone()));
    }
    for t in &c.textures {
        args.push(Arg::Texture(t.clone()));
    }
    for s in &c.surfaces {
        args.push(Arg::Surface(s.clone()));
    }
    let mut l = p
        .launch(&c.entry)
        .grid(c.grid)
        .block(c.block)
        .dynamic_shared(c.shared)
        .args(args);
    if let Some(cl) = c.cluster {
        l = l.cluster(cl);
    }
    if c.checks.any() {
        l = l.checks(c.checks);
    }
    let o = l.run().map_err(|f| f.error.to_string())?;
    let thread_instructions = o.stats.thread_instructions;
    let findings = o.findings;
    let mut out = o
        .buffers
        .into_iter()
        .nth(c.out_buffer)
        .ok_or("no output buffer")?;
    // A surface's buffer is compared over the length of `out`.
    out.truncate(es * c.out.hex.len());
    Ok(Interpreted {
        out,
        thread_instructions,
        findings,
    })
}

/// What the interpreter made of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreted {
    /// The `out` buffer.
    pub out: Vec<u8>,
    /// Thread-instructions executed.
    pub thread_instructions: u64,
    /// What the case's checks found.
    pub findings: Vec<ptx_ir_interp::Finding>,
}

/// The hex strings of `out` as the interpreter computes them (same element width as the
/// case's `out`), for writing the interpreter's own vectors.
pub fn out_hex(c: &Case, got: &[u8]) -> Vec<String> {
    let es = elem_bytes(&c.out.hex);
    got.chunks(es).map(to_hex).collect()
}

/// Runs one case.
pub fn run_case(c: &Case, parse: &dyn Fn(&str) -> Result<Module, String>) -> CaseResult {
    let mut r = CaseResult {
        name: c.name.clone(),
        family: c.family.clone(),
        passed: false,
        detail: None,
        bad_lanes: 0,
        max_ulp: None,
        thread_instructions: 0,
        seconds: 0.0,
        isa_derived: c.isa_derived,
        findings: Vec::new(),
    };
    let start = std::time::Instant::now();
    let outcome = interpret(c, parse);
    r.seconds = start.elapsed().as_secs_f64();
    let got = match outcome {
        Ok(g) => {
            r.thread_instructions = g.thread_instructions;
            r.findings = g.findings;
            g.out
        }
        Err(e) => {
            r.detail = Some(e);
            return r;
        }
    };
    let want = match to_bytes(&c.out) {
        Ok(w) => w,
        Err(e) => {
            r.detail = Some(e);
            return r;
        }
    };
    let es = elem_bytes(&c.out.hex);
    let fmt = out_fmt(&c.out.ty);
    for i in 0..c.out.hex.len() {
        let (g, w) = (
            got.get(i * es..(i + 1) * es).unwrap_or(&[]),
            want.get(i * es..(i + 1) * es).unwrap_or(&[]),
        );
        if let Some((f, n)) = fmt {
            if g.len() == w.len() && !g.is_empty() {
                let u = ulp(g, w, f, n);
                r.max_ulp = Some(r.max_ulp.unwrap_or(0).max(u));
            }
        }
        if g != w {
            r.bad_lanes += 1;
            if r.detail.is_none() {
                r.detail = Some(format!("lane {i} got {} want {}", to_hex(g), to_hex(w)));
            }
        }
    }
    r.passed = r.bad_lanes == 0;
    r
}

/// Results of a file.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every case, in file order.
    pub results: Vec<CaseResult>,
}

/// Per-family totals.
#[derive(Clone, Debug, Default)]
pub struct FamilyStats {
    /// Cases that agree bit for bit.
    pub passed: usize,
    /// Cases that do not.
    pub failed: usize,
    /// Largest ulp distance seen (float outputs).
    pub max_ulp: Option<u64>,
    /// Some case's expected output is ISA-derived, not recorded on hardware.
    pub isa_derived: bool,
}

impl Report {
    /// Totals per family.
    pub fn families(&self) -> BTreeMap<String, FamilyStats> {
        let mut m: BTreeMap<String, FamilyStats> = BTreeMap::new();
        for r in &self.results {
            let s = m.entry(r.family.clone()).or_default();
            if r.passed {
                s.passed += 1;
            } else {
                s.failed += 1;
            }
            if let Some(u) = r.max_ulp {
                s.max_ulp = Some(s.max_ulp.unwrap_or(0).max(u));
            }
            s.isa_derived |= r.isa_derived;
        }
        m
    }

    /// Number of passing cases.
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.passed).count()
    }

    /// Number of failing cases.
    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }

    /// The text `ptx vectors` prints: FAIL lines, the family table, and the total line.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for r in &self.results {
            if !r.passed {
                let mut more = if r.bad_lanes > 1 {
                    format!(" ({} lanes differ", r.bad_lanes)
                } else {
                    String::new()
                };
                if let Some(u) = r.max_ulp.filter(|_| r.family.ends_with("approx")) {
                    more.push_str(if more.is_empty() { " (" } else { ", " });
                    if u == u64::MAX {
                        more.push_str("NaN vs number");
                    } else {
                        more.push_str(&format!("max {u} ulp"));
                    }
                }
                if !more.is_empty() {
                    more.push(')');
                }
                s.push_str(&format!(
                    "FAIL {}: {}{more}\n",
                    r.name,
                    r.detail.as_deref().unwrap_or("?")
                ));
            }
        }
        s.push_str(&format!(
            "{:<12} {:>7} {:>7} {:>10}\n",
            "family", "passed", "failed", "max ulp"
        ));
        for (f, st) in self.families() {
            let u = if f.ends_with("approx") {
                match st.max_ulp {
                    Some(u) if u == u64::MAX => "nan".to_string(),
                    Some(u) => u.to_string(),
                    None => "-".to_string(),
                }
            } else {
                "-".to_string()
            };
            let note = if st.isa_derived {
                "  ISA-derived, not hardware-checked"
            } else {
                ""
            };
            s.push_str(&format!(
                "{f:<12} {:>7} {:>7} {u:>10}{note}\n",
                st.passed, st.failed
            ));
        }
        s.push_str(&format!(
            "{} passed, {} failed\n",
            self.passed(),
            self.failed()
        ));
        s
    }
}

/// Checks that each of `families` names a family of some case of the JSON-lines `text`: a
/// misspelt family would otherwise select nothing and pass. The error lists the families the
/// text has.
pub fn check_families(text: &str, families: &[String]) -> Result<(), CaseError> {
    if families.is_empty() {
        return Ok(());
    }
    let have: std::collections::BTreeSet<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| parse_case(l).ok())
        .map(|c| c.family)
        .collect();
    let unknown: Vec<String> = families
        .iter()
        .filter(|f| !have.contains(*f))
        .cloned()
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(CaseError::UnknownFamilies {
        unknown,
        have: have.into_iter().collect(),
    })
}

/// Runs every case of a JSON-lines text whose family is in `families` (all if empty), one
/// after the other.
pub fn run_text(
    text: &str,
    families: &[String],
    parse: &(dyn Fn(&str) -> Result<Module, String> + Sync),
) -> Report {
    run_text_observed(text, families, parse, 1, &|_| {})
}

/// [`run_text_observed`] with `checks` run on every case (their findings are in
/// [`CaseResult::findings`]).
pub fn run_text_checked(
    text: &str,
    families: &[String],
    parse: &(dyn Fn(&str) -> Result<Module, String> + Sync),
    threads: usize,
    checks: ptx_ir_interp::Checks,
    observe: &(dyn Fn(&CaseResult) + Sync),
) -> Report {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let one = |&(i, line): &(usize, &str)| -> Option<CaseResult> {
        let r = match parse_case(line) {
            Ok(mut c) => {
                if !families.is_empty() && !families.contains(&c.family) {
                    return None;
                }
                c.checks = checks;
                run_case(&c, parse)
            }
            Err(e) => CaseResult {
                name: format!("line {}", i + 1),
                family: "?".into(),
                passed: false,
                detail: Some(e.to_string()),
                bad_lanes: 0,
                max_ulp: None,
                thread_instructions: 0,
                seconds: 0.0,
                isa_derived: false,
                findings: Vec::new(),
            },
        };
        observe(&r);
        Some(r)
    };
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
        })
        .flatten();
    let results = match pool {
        Some(pool) => {
            use rayon::prelude::*;
            pool.install(|| lines.par_iter().filter_map(one).collect())
        }
        None => lines.iter().filter_map(one).collect(),
    };
    Report { results }
}

/// [`run_text`] on `threads` threads (each case's launch on one: a case is small, and many run
/// at once), calling `observe` with each case's result as it is known (a progress bar's
/// counter, from whichever thread ran it). The report lists the cases in the text's order
/// whatever the thread count.
pub fn run_text_observed(
    text: &str,
    families: &[String],
    parse: &(dyn Fn(&str) -> Result<Module, String> + Sync),
    threads: usize,
    observe: &(dyn Fn(&CaseResult) + Sync),
) -> Report {
    run_text_checked(text, families, parse, threads, Default::default(), observe)
}
