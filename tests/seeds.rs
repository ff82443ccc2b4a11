//! Every PTX statement shown in the seed excerpts of `../shared/seeds` parses and round-trips.
//!
//! The seeds are excerpts of the PTX ISA and of articles about it, in two shapes: markdown with
//! code fences (a fence after a `Syntax` line is a syntax block, after `Example(s)` an examples
//! block, anything else "other"), or the ISA's text flattened to lines (`Syntax` up to
//! `Description`, `Examples` up to the next section number such as `9.7.12.3.`).
//!
//! From every PTX block (blocks holding C++ host code are skipped) the test takes:
//!
//! * every statement (split at `;`; lines elided with `...` are skipped, labels and `{ }` group
//!   braces around statements are set aside), tested alone in a minimal module: instructions and
//!   body directives in the body of a kernel, `.global`/`.func`/`.entry` lines at module scope,
//!   kernel directives (`.reqnctapercluster nx`) on a kernel;
//! * syntax templates expanded into concrete statements: a qualifier placeholder (`.sem`,
//!   `.cta_group`, `.level::cache_hint`, `::dimension`) takes each value of its definition line
//!   (`.x = { .a, .b };`), an operand placeholder with a definition (`cp-size = { 4, 8, 16 }`)
//!   each of its values, an optional part `{...}` (`{.aligned}`, `{, count}`, `{!}`,
//!   `{.shared{::cta}}`) is taken and left out, an alternative `{a|b}` takes each side; when the
//!   product of the choices of a template exceeds [`EXPANSION_CAP`], a covering set (every value
//!   and every optional part at least once) replaces it;
//! * every examples block (and every other block with nothing to expand) as a whole:
//!   module-level lines become module items (a `.func` header whose body is elided with `...`
//!   becomes a declaration, `{ ... }` an empty body, a body whose closing brace is elided is
//!   closed), the rest the body of one kernel. This tests the control flow examples
//!   (`.branchtargets`, `.calltargets`, `.callprototype`, call tables) as small whole functions.
//!
//! Operand names are kept as written, including the ISA's hyphenated names (`cache-policy`,
//! `ret-param`, `imm-scale-a`): the reader takes `name-name` written without spaces as one name,
//! since it cannot be a symbol with a (constant) offset. Only placeholders that stand for a
//! literal or a construct are made concrete, outside examples blocks: `N` and `imm-*` become
//! integers, kernel-directive arguments (`nx`, `n`) integers, `instruction`/`instructionList`
//! a `mov`, and the register vectors of `wgmma.mma_async` (`d`, `a-regs`) vectors. Corrections of
//! the seed texts themselves are listed with their reasons in [`ERRATA`], placeholders a seed
//! uses without defining them in [`FALLBACK_DEFS`], and template combinations the ISA rules out
//! in [`EXCLUDED`].

use std::collections::HashMap;

mod common;
use std::path::PathBuf;

/// Above this many combinations, a template is expanded to a covering set instead.
const EXPANSION_CAP: usize = 256;

/// Corrections of the seed texts: (file name prefix, text, replacement, reason). Each must apply.
const ERRATA: &[(&str, &str, &str, &str)] = &[
    (
        "001_",
        "@!p div.f32 ratio,x,y // avoid division by zero",
        "@!p div.approx.f32 ratio,x,y; // avoid division by zero",
        "the ISA's example lacks its `;`, and `div.f32` without `.approx`, `.full` or a rounding \
         modifier is PTX ISA 1.0-1.3 only (9.7.3.8: 'For PTX ISA version 1.4 and later, one of \
         .approx, .full, or .rnd is required')",
    ),
    (
        "001_",
        ".function foo () {",
        ".func foo () {",
        "`.function` is not a PTX directive; the ISA's brx.idx example means `.func`",
    ),
];

/// Definitions of placeholders that a seed uses without defining them: (mnemonic prefix,
/// definition line). The values are one row of the ISA's syntax for the instruction.
const FALLBACK_DEFS: &[(&str, &str)] = &[
    // 003 names `.shape.dtype.atype.btype` only; this is the ISA's FP8 row (9.7.15.5.2).
    ("wgmma.mma_async", ".shape = { .m64n128k32 }"),
    ("wgmma.mma_async", ".dtype = { .f16, .f32 }"),
    ("wgmma.mma_async", ".atype = { .e4m3, .e5m2 }"),
    ("wgmma.mma_async", ".btype = { .e5m2, .e4m3 }"),
];

/// Expansions of a template that the ISA rules out: (predicate on the expanded statement, with
/// operand placeholders still named, and the reason).
type Exclusion = (fn(&str) -> bool, &'static str);
const EXCLUDED: &[Exclusion] = &[(
    |s| {
        s.starts_with("wgmma.mma_async")
            && s.contains("imm-trans")
            && !s.contains(".f16.f16 ")
            && !s.contains(".bf16.bf16 ")
    },
    "wgmma.mma_async takes imm-trans-a/imm-trans-b only with .f16/.bf16 A and B (9.7.15.5.2: \
     'The transpose operation is only supported for the wgmma.mma_async variants with .f16/.bf16 \
     types')",
)];

fn seeds_dir() -> PathBuf {
    common::shared_dir("seeds")
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Syntax,
    Examples,
    Other,
}

struct Block {
    origin: String,
    kind: Kind,
    text: String,
}

// ------------------------------------------------------------------------------ blocks

fn classify(context: &str) -> Kind {
    let c = context
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_matches('*')
        .to_ascii_lowercase();
    if c.starts_with("syntax") {
        Kind::Syntax
    } else if c.starts_with("example") {
        Kind::Examples
    } else {
        Kind::Other
    }
}

/// Code fences, each classified by the last non-empty line before it.
fn markdown_blocks(file: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut context = "";
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t.starts_with("```") {
            let start = i + 1;
            let mut j = start;
            while j < lines.len() && !lines[j].trim().starts_with("```") {
                j += 1;
            }
            out.push(Block {
                origin: format!("{file}:{}", start + 1),
                kind: classify(context),
                text: lines[start..j.min(lines.len())].join("\n"),
            });
            context = "";
            i = j + 1;
            continue;
        }
        if !t.is_empty() && t != "Copy to clipboard" {
            context = t;
        }
        i += 1;
    }
    out
}

/// Where a section number (`9.7.12.3. `, three or more groups) starts in `s`.
fn section_number(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for p in 0..b.len() {
        if !b[p].is_ascii_digit() || (p > 0 && b[p - 1].is_ascii_digit()) {
            continue;
        }
        let mut k = p;
        let mut groups = 0;
        loop {
            let d = k;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            if k == d || k >= b.len() || b[k] != b'.' {
                break;
            }
            k += 1;
            groups += 1;
        }
        if groups >= 3 && b.get(k) == Some(&b' ') {
            return Some(p);
        }
    }
    None
}

/// The ISA's text flattened to lines: `Syntax` to `Description`, `Examples` to the next section.
fn flat_blocks(file: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let (kind, end_at): (Kind, fn(&str) -> Option<usize>) = match l.trim() {
            "Syntax" => (Kind::Syntax, |s| s.find("Description")),
            "Examples" | "Example" => (Kind::Examples, section_number),
            _ => continue,
        };
        let mut body = Vec::new();
        for m in &lines[i + 1..] {
            if let Some(p) = end_at(m) {
                body.push(&m[..p]);
                break;
            }
            body.push(m);
        }
        out.push(Block {
            origin: format!("{file}:{}", i + 2),
            kind,
            text: body.join("\n"),
        });
    }
    out
}

fn is_cplusplus(text: &str) -> bool {
    [
        "__global__",
        "asm volatile",
        "#include",
        "int main",
        "static_cast<",
    ]
    .iter()
    .any(|w| text.contains(w))
}

// ------------------------------------------------------------------------------ statements

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(p) => &line[..p],
        None => line,
    }
}

fn is_function_header(t: &str) -> bool {
    let t = t
        .trim_start_matches(".visible ")
        .trim_start_matches(".extern ")
        .trim_start_matches(".weak ")
        .trim_start();
    t.starts_with(".func ") || t.starts_with(".func(") || t.starts_with(".entry ")
}

/// A definition line `name = { a, b }` (possibly continued on later lines): its name.
fn definition_name(t: &str) -> Option<&str> {
    let eq = t.find('=')?;
    let name = t[..eq].trim();
    let rest = t[eq + 1..].trim_start();
    let ok = !name.is_empty()
        && rest.starts_with('{')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-'))
        && name
            .chars()
            .next()
            .is_some_and(|c| c == '.' || c == ':' || c.is_ascii_alphabetic());
    ok.then_some(name)
}

#[derive(Default)]
struct Extracted {
    statements: Vec<String>,
    defs: HashMap<String, Vec<String>>,
    elided: usize,
}

/// Splits a block into definitions and statements.
fn extract(text: &str) -> Extracted {
    let mut ex = Extracted::default();
    let mut buffer = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let content = strip_comment(lines[i]).replace("{ ... }", "{ }");
        let t = content.trim();
        i += 1;
        if t.is_empty() {
            continue;
        }
        if let Some(name) = definition_name(t) {
            let mut def = t[t.find('=').unwrap() + 1..].to_string();
            while !def.contains('}') && i < lines.len() {
                def.push(' ');
                def.push_str(strip_comment(lines[i]));
                i += 1;
            }
            let inner = &def[def.find('{').unwrap() + 1..def.rfind('}').unwrap_or(def.len())];
            let values = inner
                .split(',')
                .map(|v| v.trim().trim_end_matches('*').trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            ex.defs.insert(name.to_string(), values);
            continue;
        }
        if t.contains("...") {
            if is_function_header(t) {
                // A function whose body is elided: its declaration.
                ex.statements
                    .push(format!("{};", t.replace("...", "").trim()));
            } else {
                ex.elided += 1;
            }
            continue;
        }
        if KERNEL_DIRECTIVES.iter().any(|d| t.starts_with(d)) {
            // Kernel directives end at the end of their line.
            ex.statements
                .push(t.trim_end_matches(';').trim_end().to_string());
            continue;
        }
        if is_function_header(t) {
            if t.ends_with('}') || t.ends_with(';') {
                ex.statements.push(t.to_string());
            } else if let Some(p) = t.find('{') {
                // The statements of a function defined here are statements of their own.
                buffer.push_str(&t[p + 1..]);
                buffer.push('\n');
            }
            continue;
        }
        buffer.push_str(&content);
        buffer.push('\n');
    }
    let mut pieces: Vec<&str> = buffer.split(';').collect();
    let last = pieces.pop().unwrap_or("");
    for p in pieces {
        if let Some(s) = clean(p) {
            ex.statements.push(s);
        }
    }
    if let Some(s) = clean(last) {
        // Unterminated text at the end of a block: only a `{ ... }` group counts.
        if s.starts_with('{') && s.ends_with('}') {
            ex.statements.push(s);
        }
    }
    ex
}

/// Normalises whitespace and sets aside leading labels and unbalanced group braces.
fn clean(piece: &str) -> Option<String> {
    let mut s = piece.split_whitespace().collect::<Vec<_>>().join(" ");
    loop {
        let before = s.clone();
        let opens = s.matches('{').count();
        let closes = s.matches('}').count();
        if s.starts_with('}') || (s.starts_with('{') && opens > closes) {
            s = s[1..].trim_start().to_string();
        } else if s.ends_with('}') && closes > opens {
            s = s[..s.len() - 1].trim_end().to_string();
        } else if let Some(rest) = strip_label(&s) {
            let keeps_label = [".branchtargets", ".calltargets", ".callprototype"]
                .iter()
                .any(|d| rest.starts_with(d));
            if !keeps_label {
                s = rest.to_string();
            }
        }
        if s == before {
            break;
        }
    }
    (!s.is_empty()).then_some(s)
}

/// `name: rest` (not `::`): the rest.
fn strip_label(s: &str) -> Option<&str> {
    let n = s
        .char_indices()
        .find(|&(k, c)| {
            !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || (k == 0 && c == '%'))
        })
        .map(|(k, _)| k)?;
    if n == 0
        || !s[..1]
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
    {
        return None;
    }
    let after = s[n..].trim_start();
    (after.starts_with(':') && !after.starts_with("::")).then(|| after[1..].trim_start())
}

// ------------------------------------------------------------------------------ templates

type Defs = HashMap<String, Vec<String>>;

/// The product of the choices, or a covering set of them when the product is too large: in
/// round `k`, choice `i` takes its option `k mod len_i`.
fn combine(parts: Vec<Vec<String>>) -> Vec<String> {
    let parts: Vec<Vec<String>> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    let product = parts
        .iter()
        .try_fold(1usize, |a, p| a.checked_mul(p.len()))
        .unwrap_or(usize::MAX);
    if product <= EXPANSION_CAP {
        let mut out = vec![String::new()];
        for p in &parts {
            out = out
                .iter()
                .flat_map(|a| p.iter().map(move |b| format!("{a}{b}")))
                .collect();
        }
        out
    } else {
        let rounds = parts.iter().map(Vec::len).max().unwrap_or(1);
        (0..rounds)
            .map(|k| parts.iter().map(|p| p[k % p.len()].as_str()).collect())
            .collect()
    }
}

fn matching_brace(s: &str, open: usize) -> usize {
    let mut depth = 0;
    for (k, c) in s[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + k;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// Expands the qualifier part of a template (`mbarrier.try_wait{.sem.scope}{.shared{::cta}}`).
fn expand_quals(s: &str, defs: &Defs, depth: u32) -> Vec<String> {
    let b = s.as_bytes();
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'{' {
            let j = matching_brace(s, i);
            let inner = &s[i + 1..j.min(s.len())];
            parts.push(vec![std::mem::take(&mut lit)]);
            if inner.contains('|') {
                parts.push(
                    inner
                        .split('|')
                        .flat_map(|a| expand_quals(a, defs, depth))
                        .collect(),
                );
            } else {
                let mut opts = expand_quals(inner, defs, depth);
                opts.push(String::new());
                parts.push(opts);
            }
            i = j + 1;
            continue;
        }
        let word_start = c == b'.' || (c == b':' && b.get(i + 1) == Some(&b':'));
        if word_start {
            let start = i;
            i += if c == b'.' { 1 } else { 2 };
            while i < b.len() {
                if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                    i += 1;
                } else if b[i] == b':' && b.get(i + 1) == Some(&b':') {
                    i += 2;
                } else {
                    break;
                }
            }
            let word = &s[start..i];
            match defs.get(word) {
                Some(values) if depth < 8 => {
                    parts.push(vec![std::mem::take(&mut lit)]);
                    parts.push(
                        values
                            .iter()
                            .flat_map(|v| expand_quals(v, defs, depth + 1))
                            .collect(),
                    );
                }
                _ => lit.push_str(word),
            }
            continue;
        }
        lit.push(c as char);
        i += 1;
    }
    parts.push(vec![lit]);
    combine(parts)
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'%' || c == b'$'
}

/// Expands the operand part of a template: optional parts `{, x}` and `{!}`, alternatives
/// `{a|b}`, and operand placeholders that have a definition line.
fn expand_operands(s: &str, defs: &Defs) -> Vec<String> {
    let b = s.as_bytes();
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'{' {
            let j = matching_brace(s, i);
            let inner = &s[i + 1..j.min(s.len())];
            let t = inner.trim_start();
            parts.push(vec![std::mem::take(&mut lit)]);
            if t.starts_with(',') || t.starts_with('!') {
                let mut opts = expand_operands(inner, defs);
                opts.push(String::new());
                parts.push(opts);
            } else if inner.contains('|') && !inner.contains(',') {
                parts.push(
                    inner
                        .split('|')
                        .flat_map(|a| expand_operands(a.trim(), defs))
                        .collect(),
                );
            } else {
                parts.push(
                    expand_operands(inner, defs)
                        .into_iter()
                        .map(|x| format!("{{{x}}}"))
                        .collect(),
                );
            }
            i = j + 1;
            continue;
        }
        if is_name_start(c) && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'_'
                    || b[i] == b'$'
                    || (b[i] == b'-' && b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic())))
            {
                i += 1;
            }
            let word = &s[start..i];
            match defs.get(word) {
                Some(values) => {
                    parts.push(vec![std::mem::take(&mut lit)]);
                    parts.push(values.clone());
                }
                None => lit.push_str(word),
            }
            continue;
        }
        lit.push(c as char);
        i += 1;
    }
    parts.push(vec![lit]);
    combine(parts)
}

/// Splits `s` at the first whitespace outside braces.
fn split_head(s: &str) -> (&str, &str) {
    let mut depth = 0i32;
    for (k, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => return (&s[..k], s[k..].trim_start()),
            _ => {}
        }
    }
    (s, "")
}

/// Expands a statement of a syntax (or other) block into concrete statements.
fn expand(stmt: &str, block_defs: &Defs) -> Vec<String> {
    let mut defs = block_defs.clone();
    for (prefix, line) in FALLBACK_DEFS {
        if stmt.starts_with(prefix) {
            let name = definition_name(line).expect("fallback definition");
            let inner = &line[line.find('{').unwrap() + 1..line.rfind('}').unwrap()];
            defs.entry(name.to_string())
                .or_insert_with(|| inner.split(',').map(|v| v.trim().to_string()).collect());
        }
    }
    let (guard, rest) = if stmt.starts_with('@') {
        split_head(stmt)
    } else {
        ("", stmt)
    };
    let (head, ops) = split_head(rest);
    if head.starts_with('{') || head.contains(':') && !head.contains("::") && !head.contains('.') {
        // A group or a labelled directive: no qualifier template.
        return expand_operands(stmt, &defs);
    }
    let guards = expand_quals(guard, &defs, 0);
    let heads = expand_quals(head, &defs, 0);
    let opss = expand_operands(ops, &defs);
    let sep = |g: &str| {
        if g.is_empty() {
            String::new()
        } else {
            format!("{g} ")
        }
    };
    combine(vec![
        guards.iter().map(|g| sep(g)).collect(),
        heads,
        opss.iter()
            .map(|o| {
                if o.is_empty() {
                    String::new()
                } else {
                    format!(" {o}")
                }
            })
            .collect(),
    ])
}

/// Makes placeholders that stand for literals or constructs concrete (see the module docs).
fn concretize(stmt: &str) -> String {
    let directive = stmt.starts_with('.');
    let wgmma = stmt.starts_with("wgmma.mma_async");
    let (head, ops) = if directive || stmt.starts_with('{') {
        ("", stmt)
    } else {
        let (g, r) = if stmt.starts_with('@') {
            split_head(stmt)
        } else {
            ("", stmt)
        };
        let (h, o) = split_head(r);
        if h == "instruction" || h == "instructionList" {
            let g = if g.is_empty() {
                String::new()
            } else {
                format!("{g} ")
            };
            return format!("{g}mov.u32 a, b");
        }
        (&stmt[..stmt.len() - o.len()], o)
    };
    let b = ops.as_bytes();
    let mut out = String::from(head);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_name_start(c) && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.')) {
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'_'
                    || b[i] == b'$'
                    || (b[i] == b'-' && b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic())))
            {
                i += 1;
            }
            let word = &ops[start..i];
            let concrete = match word {
                "instruction" | "instructionList" => "mov.u32 a, b;",
                "N" => "0",
                w if w.starts_with("imm-trans") => "0",
                "imm-reg-count" => "232",
                w if w.starts_with("imm") => "1",
                "nx" if directive => "2",
                "ny" | "nz" if directive => "1",
                "n" if directive => "8",
                "d" if wgmma => "{d0, d1, d2, d3}",
                "a-regs" if wgmma => "{a0, a1, a2, a3}",
                w => w,
            };
            out.push_str(concrete);
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

// ------------------------------------------------------------------------------ ptxas export

/// With `PTX_SEEDS_OUT=DIR`, writes the module `src` tested for a seed statement or block as
/// `DIR/NNNN.ptx` (with `.reg` declarations for the registers its kernel uses, which the seeds
/// leave undeclared) and its printed form as `DIR/NNNN.printed.ptx`, and appends `NNNN origin`
/// to `DIR/index.txt`: `tools/ptxas_seeds.sh` runs `ptxas` on both on the GPU machine.
fn export(out: &mut Option<(PathBuf, usize)>, origin: &str, src: &str) {
    let Some((dir, n)) = out else { return };
    let Ok(m) = ptx_ir::text::parse(src) else {
        return;
    };
    let src = declare_registers(src, &m);
    let declared = match ptx_ir::text::parse(&src) {
        Ok(d) => d,
        Err(e) => panic!("declarations made a seed module unreadable: {e}\n{src}"),
    };
    std::fs::create_dir_all(&*dir).expect("export directory");
    let stem = format!("{:04}", *n);
    std::fs::write(dir.join(format!("{stem}.ptx")), &src).expect("write");
    let printed = ptx_ir::text::print(&declared);
    std::fs::write(dir.join(format!("{stem}.printed.ptx")), printed).expect("write");
    let mut index = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("index.txt"))
        .expect("index");
    use std::io::Write;
    writeln!(index, "{stem} {origin}").expect("write");
    *n += 1;
}

/// `src` with a `.reg` declaration, after the opening brace of its kernel (`__seed` or
/// `__seed_block`), for each name its instructions use as a register that nothing declares:
/// predicates (guards, `setp` results, `!p`, `p|q`) as `.pred`; address bases as `.b64`; a
/// `cvt`'s operands by its two types; other operands as bits of the instruction's first type's
/// size (`.b32` for `.f32`, which the ISA's type rules accept), `.b32` without a type; a
/// `bra` target that is not a label becomes one, with a `ret`, at the kernel's end. The
/// ISA's hyphenated placeholders (`cache-policy`) are spelled with `_`.
fn declare_registers(src: &str, m: &ptx_ir::ir::Module) -> String {
    use ptx_ir::ir::{Item, Operand, Statement, Type};
    let mut declared = std::collections::HashSet::new();
    let mut used: Vec<(ptx_ir::ir::Name, &'static str)> = Vec::new();
    let mut kernel_body = None;
    for item in &m.items {
        match item {
            Item::Function(f) => {
                declared.insert(f.name);
                for p in f.params.iter().flatten().chain(f.returns.iter().flatten()) {
                    declared.insert(p.name);
                }
                let name = m.names.get(f.name);
                if name == "__seed" || name == "__seed_block" {
                    kernel_body = f.body.as_ref().map(|b| b.to_statements());
                }
            }
            Item::Variable(v) => declared.extend(v.names.iter().map(|d| d.name)),
            _ => {}
        }
    }
    let Some(body) = kernel_body else {
        return src.to_string();
    };
    fn reg_type(t: Type) -> &'static str {
        match (t, t.bits()) {
            (Type::Pred, _) => ".pred",
            (_, 128) => ".b128",
            (_, 64) => ".b64",
            (_, 8 | 16) => ".b16",
            _ => ".b32",
        }
    }
    fn walk(
        stmts: &[Statement],
        declared: &mut std::collections::HashSet<ptx_ir::ir::Name>,
        used: &mut Vec<(ptx_ir::ir::Name, &'static str)>,
    ) {
        for s in stmts {
            match s {
                Statement::Label(n) => {
                    declared.insert(*n);
                }
                Statement::Decl(d) => declared.extend(d.names.iter().map(|x| x.name)),
                Statement::Block(b) => walk(b, declared, used),
                Statement::Inst(i) => {
                    if let Some(g) = &i.guard {
                        used.push((g.pred, ".pred"));
                    }
                    let types = i.types();
                    let first = types.first().copied();
                    let op = i.opcode.name();
                    if op == "bra" {
                        // A branch target: a label (defined at the kernel's end if missing).
                        for o in &i.operands {
                            if let Operand::Reg { name, .. } = o {
                                used.push((*name, ":"));
                            }
                        }
                        continue;
                    }
                    let parity = i.mods.iter().any(|m| m.to_string().ends_with("parity"));
                    for (k, o) in i.operands.iter().enumerate() {
                        let ty = match (op, k) {
                            ("setp" | "testp" | "isspacep" | "elect", 0) => ".pred",
                            ("mbarrier.try_wait" | "mbarrier.test_wait", 0) => ".pred",
                            ("mbarrier.try_wait" | "mbarrier.test_wait", 2) if parity => ".b32",
                            ("mbarrier.try_wait" | "mbarrier.test_wait", 3) => ".b32",
                            ("mbarrier.try_wait" | "mbarrier.test_wait", _) => {
                                first.map_or(".b32", reg_type)
                            }
                            ("cvt", 1) => types.get(1).copied().map_or(".b32", reg_type),
                            ("clusterlaunchcontrol.query_cancel", 1) => {
                                types.last().copied().map_or(".b32", reg_type)
                            }
                            // Counts and CTA ranks are 32-bit whatever the instruction's type.
                            ("mapa", 2) => ".b32",
                            (o, k) if o.starts_with("mbarrier.") && k > 0 => ".b32",
                            // Matrix fragments are packed into 32-bit registers.
                            (o, _) if o.starts_with("wgmma") || o.starts_with("mma") => ".b32",
                            _ => first.map_or(".b32", reg_type),
                        };
                        operand(o, ty, used);
                    }
                }
                _ => {}
            }
        }
    }
    fn operand(o: &Operand, ty: &'static str, used: &mut Vec<(ptx_ir::ir::Name, &'static str)>) {
        match o {
            Operand::Reg { name, .. } => used.push((*name, ty)),
            Operand::Not(n) => used.push((*n, ".pred")),
            Operand::Addr { base: Some(b), .. } => used.push((*b, ".b64")),
            Operand::Vector(v) => v.iter().for_each(|x| operand(x, ty, used)),
            Operand::Tuple(v) | Operand::Args(v) => v.iter().for_each(|x| operand(x, ".b64", used)),
            Operand::Pair(p) => p.iter().for_each(|x| operand(x, ".pred", used)),
            Operand::Neg(x) => operand(x, ty, used),
            _ => {}
        }
    }
    walk(&body, &mut declared, &mut used);
    let mut decls = String::new();
    let mut labels = String::new();
    let mut seen = std::collections::HashSet::new();
    for (n, ty) in used {
        if ty == ":" {
            if !declared.contains(&n) && seen.insert(n) {
                labels.push_str(&format!("{}:\n\tret;\n", m.names.get(n)));
            }
            continue;
        }
        let name = m.names.get(n);
        // Cache policies and matrix descriptors are 64-bit whatever the instruction's type;
        // `ignore-src` and `scale-d` are predicates.
        let ty = if name.contains("policy") || name.contains("desc") {
            ".b64"
        } else if name.contains("ignore") || name.contains("scale-d") {
            ".pred"
        } else {
            ty
        };
        if !declared.contains(&n) && seen.insert(n) {
            decls.push_str(&format!("\t.reg {ty} {};\n", name.replace('-', "_")));
        }
    }
    // The ISA's hyphenated placeholders (`cache-policy`), which ptxas reads as a subtraction,
    // spelled with `_`.
    let mut renamed = String::with_capacity(src.len());
    let b = src.as_bytes();
    for (k, c) in src.char_indices() {
        let ident = |x: Option<&u8>| x.is_some_and(|x| x.is_ascii_alphanumeric() || *x == b'_');
        let alpha = |x: Option<&u8>| x.is_some_and(|x| x.is_ascii_alphabetic() || *x == b'_');
        if c == '-' && k > 0 && ident(b.get(k - 1)) && alpha(b.get(k + 1)) {
            renamed.push('_');
        } else {
            renamed.push(c);
        }
    }
    let mut src = renamed;
    if !labels.is_empty() {
        if let Some(end) = src.rfind('}') {
            src.insert_str(end, &labels);
        }
    }
    let src = src.as_str();
    for head in [".entry __seed()\n{\n", ".entry __seed_block()\n{\n"] {
        if let Some(at) = src.find(head) {
            let at = at + head.len();
            return format!("{}{decls}{}", &src[..at], &src[at..]);
        }
    }
    src.to_string()
}

// ------------------------------------------------------------------------------ checking

fn target_for(text: &str) -> &'static str {
    if text.contains("tcgen05") || text.contains("clusterlaunchcontrol") {
        "sm_100a"
    } else if text.contains("wgmma") || text.contains("setmaxnreg") {
        "sm_90a"
    } else {
        "sm_90"
    }
}

fn header(target: &str) -> String {
    format!(".version 9.0\n.target {target}\n.address_size 64\n")
}

const KERNEL_DIRECTIVES: &[&str] = &[
    ".reqnctapercluster",
    ".explicitcluster",
    ".maxclusterrank",
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnreg",
    ".blocksareclusters",
];

const MODULE_DIRECTIVES: &[&str] = &[
    ".global", ".const", ".visible", ".extern", ".weak", ".func", ".entry",
];

/// The module that holds one statement, and whether the statement is an instruction.
fn wrap(stmt: &str) -> (String, bool) {
    let mut m = header(target_for(stmt));
    let first = stmt
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let mut instruction = false;
    if MODULE_DIRECTIVES.contains(&first) {
        m.push_str(stmt);
        let defined_function = is_function_header(stmt) && stmt.ends_with('}');
        if !stmt.ends_with(';') && !defined_function {
            m.push(';');
        }
        m.push('\n');
    } else if KERNEL_DIRECTIVES.contains(&first) {
        m.push_str(&format!(
            ".visible .entry __seed() {stmt}\n{{\n\tret;\n}}\n"
        ));
    } else {
        let end = if stmt.starts_with('{') { "" } else { ";" };
        instruction = !stmt.starts_with('.') && strip_label(stmt).is_none();
        m.push_str(&format!(
            ".visible .entry __seed()\n{{\n\t{stmt}{end}\n}}\n"
        ));
    }
    (m, instruction)
}

fn check(src: &str, instructions: Option<usize>) -> Result<(), String> {
    let m = ptx_ir::text::parse(src).map_err(|e| e.to_string())?;
    ptx_ir::roundtrip::check_module(&m).map_err(|e| format!("round trip: {e}"))?;
    if let Some(n) = instructions {
        if m.instruction_count() != n {
            return Err(format!(
                "expected {n} instruction(s), read {}",
                m.instruction_count()
            ));
        }
    }
    Ok(())
}

/// An examples block as one module: module-level items, then one kernel with the rest.
fn block_module(text: &str) -> Option<String> {
    let mut items = String::new();
    let mut body = String::new();
    let mut depth = 0i32;
    let mut in_item = false;
    for line in text.lines() {
        let content = strip_comment(line).replace("{ ... }", "{ }");
        let t = content.trim();
        let mut line = line.replace("{ ... }", "{ }");
        if t.contains("...") {
            if depth == 0 && is_function_header(t) {
                items.push_str(&format!("{};\n", t.replace("...", "").trim()));
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let starts_item = depth == 0
            && !in_item
            && MODULE_DIRECTIVES
                .iter()
                .any(|d| t.starts_with(d) && t[d.len()..].starts_with([' ', '(', '\t']));
        if starts_item {
            in_item = true;
        }
        depth += t.matches('{').count() as i32 - t.matches('}').count() as i32;
        line.push('\n');
        if in_item {
            items.push_str(&line);
            if depth == 0 && (t.ends_with(';') || t.ends_with('}')) {
                in_item = false;
            }
        } else {
            body.push_str(&line);
        }
    }
    if in_item {
        for _ in 0..depth.max(0) {
            items.push_str("}\n");
        }
    }
    if items.trim().is_empty() && body.trim().is_empty() {
        return None;
    }
    let mut m = header(target_for(text));
    m.push_str(&items);
    if !body.trim().is_empty() {
        m.push_str(".visible .entry __seed_block()\n{\n");
        m.push_str(&body);
        m.push_str("}\n");
    }
    Some(m)
}

#[test]
fn seeds_parse_and_round_trip() {
    let dir = seeds_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("seeds at {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());

    let mut failures = Vec::new();
    let (mut as_written, mut expanded, mut blocks_tested) = (0usize, 0usize, 0usize);
    let (mut elided, mut cpp, mut excluded) = (0usize, 0usize, 0usize);
    let mut errata_used = vec![false; ERRATA.len()];
    // `SEEDS_VERBOSE=1` lists every statement tested.
    let verbose = std::env::var_os("SEEDS_VERBOSE").is_some();
    // `PTX_SEEDS_OUT=DIR` writes every module tested there (see `export`).
    let mut exported = std::env::var_os("PTX_SEEDS_OUT").map(|d| (PathBuf::from(d), 0usize));

    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut text = std::fs::read_to_string(path).expect("seed is UTF-8");
        for (k, (prefix, from, to, _)) in ERRATA.iter().enumerate() {
            if name.starts_with(prefix) && text.contains(from) {
                text = text.replace(from, to);
                errata_used[k] = true;
            }
        }
        let blocks = if text.contains("```") {
            markdown_blocks(&name, &text)
        } else {
            flat_blocks(&name, &text)
        };
        for block in blocks {
            if is_cplusplus(&block.text) {
                cpp += 1;
                continue;
            }
            let ex = extract(&block.text);
            elided += ex.elided;
            // An "other" block with nothing to expand is example code: tested whole as well.
            let mut concrete_block = block.kind != Kind::Syntax && !ex.statements.is_empty();
            for stmt in &ex.statements {
                let instances: Vec<String> = if block.kind == Kind::Examples {
                    vec![stmt.clone()]
                } else {
                    expand(stmt, &ex.defs)
                };
                let template = instances.len() != 1 || instances[0] != *stmt;
                for inst in instances {
                    if EXCLUDED.iter().any(|(rule, _)| rule(&inst)) {
                        excluded += 1;
                        continue;
                    }
                    let concrete = if block.kind == Kind::Examples {
                        inst
                    } else {
                        concretize(&inst)
                    };
                    if template || concrete != *stmt {
                        concrete_block = false;
                        expanded += 1;
                    } else {
                        as_written += 1;
                    }
                    if verbose {
                        println!("{} {concrete}", block.origin);
                    }
                    let (src, is_inst) = wrap(&concrete);
                    export(&mut exported, &block.origin, &src);
                    if let Err(e) = check(&src, is_inst.then_some(1)) {
                        failures.push(format!(
                            "{} `{concrete}`{}: {e}",
                            block.origin,
                            if concrete != *stmt {
                                format!(" (from `{stmt}`)")
                            } else {
                                String::new()
                            }
                        ));
                    }
                }
            }
            if concrete_block {
                if let Some(src) = block_module(&block.text) {
                    blocks_tested += 1;
                    if verbose {
                        println!("{} (block as a whole):\n{src}", block.origin);
                    }
                    export(&mut exported, &block.origin, &src);
                    if let Err(e) = check(&src, None) {
                        failures.push(format!("{} (block as a whole): {e}\n{src}", block.origin));
                    }
                }
            }
        }
    }
    for (k, used) in errata_used.iter().enumerate() {
        assert!(
            used,
            "erratum {k} (`{}`) no longer applies to the seeds; drop it",
            ERRATA[k].1
        );
    }
    println!(
        "seeds: {} files; {} statements tested ({as_written} as written, {expanded} from \
         templates), {blocks_tested} example blocks as whole modules; skipped: {elided} elided \
         lines, {cpp} C++ blocks, {excluded} template combinations the ISA rules out; {} errata",
        files.len(),
        as_written + expanded,
        ERRATA.len()
    );
    assert!(
        failures.is_empty(),
        "{} seed statement(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        as_written + expanded > 100,
        "suspiciously few statements: {}",
        as_written + expanded
    );
}
