//! The libFuzzer dictionary of the text fuzz targets (`fuzz/ptx.dict`), generated from the
//! tables the reader itself resolves words with, so that it cannot miss a mnemonic or a
//! modifier and cannot go stale.
//!
//! `cargo run --release -p ptx-ir-oracles --example write_dict > fuzz/ptx.dict` writes it;
//! `tests/dict.rs` fails when the committed file differs from [`ptx_dictionary`], when a
//! directive of [`DIRECTIVES`] is not one the reader knows, and when printed modules contain a
//! dotted word the dictionary lacks.
//!
//! Sources, one group each in the file (a word appears once, in the first group that has it):
//!
//! | group | from |
//! | --- | --- |
//! | directives | [`DIRECTIVES`] (the reader matches them in `text/src/read`; checked by the test) |
//! | instructions | [`Opcode::ALL`], [`Opcode::name`] |
//! | modifiers | [`Modifier::all`] (every type, rounding, space, scope, shape, ...) with its dot |
//! | special registers | [`SpecialReg::PLAIN`] and the first, last and first invalid member of each numbered family |
//! | selectors | the component and byte/half-word selectors of [`Selector`] |
//! | targets and versions | [`avail::KNOWN`] architectures that exist with each suffix ([`Sm::exists`]), the other [`Target`] words, [`avail::VERSIONS`] and the first version past [`avail::LATEST`] |
//! | sections | [`SECTIONS`] (debug sections of real and generated PTX) |
//! | literals | [`LITERALS`]: edge-of-range integers and floats |
//! | punctuation | [`PUNCTUATION`] |
//! | snippets | [`SNIPPETS`]: whole constructs no table spells (kept from the hand-written dictionary) |

use ptx_ir_core::avail::{self, Sm};
use ptx_ir_core::module::{ArchSuffix, Target};
use ptx_ir_core::{Modifier, Opcode, Selector, SpecialReg};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Every directive the reader knows, without its dot: module scope (`text/src/read/mod.rs`),
/// declarations and attributes, function directives (`decl.rs`) and body directives
/// (`body.rs`). Spaces that are also modifiers (`.global`, `.shared`, ...) are listed here as
/// well, because they start declarations.
pub const DIRECTIVES: &[&str] = &[
    // module header and module scope
    "version",
    "target",
    "address_size",
    "entry",
    "func",
    "extern",
    "visible",
    "weak",
    "common",
    "file",
    "section",
    "pragma",
    "alias",
    // state spaces that open declarations
    "global",
    "const",
    "shared",
    "local",
    "tex",
    "param",
    "reg",
    "sreg",
    // declaration qualifiers and attributes
    "align",
    "ptr",
    "attribute",
    "managed",
    "unified",
    // function directives
    "noreturn",
    "explicitcluster",
    "blocksareclusters",
    "maxntid",
    "reqntid",
    "reqnctapercluster",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "maxclusterrank",
    "abi_preserve",
    "abi_preserve_control",
    // body directives
    "loc",
    "branchtargets",
    "calltargets",
    "callprototype",
];

/// Section names of real (`nvcc -G`) and generated modules (`ptx_ir_core::generate::full`).
pub const SECTIONS: &[&str] = &[
    ".debug_abbrev",
    ".debug_info",
    ".debug_loc",
    ".debug_macinfo",
    ".debug_str",
    ".nv_debug_info_ptx",
];

/// Literals at the edges of the reader's number ranges: 32/64-bit integer limits and one past
/// them, hexadecimal float and double spellings of NaN, infinities, the smallest subnormal and
/// negative zero, an exponent that overflows a double.
pub const LITERALS: &[&str] = &[
    "0",
    "-0",
    "0x",
    "0b",
    "0x7fffffff",
    "0x80000000",
    "0xffffffff",
    "0x7fffffffffffffff",
    "0x8000000000000000",
    "0xffffffffffffffff",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "0f7FC00000",
    "0f7F800000",
    "0fFF800000",
    "0f80000000",
    "0f00000001",
    "0d7FF8000000000000",
    "0d7FF0000000000000",
    "0dFFF0000000000000",
    "0d8000000000000000",
    "0d0000000000000001",
    "1e999",
    "1.0e-400",
    "U",
];

/// Punctuation and operators of instructions, declarations and constant expressions.
pub const PUNCTUATION: &[&str] = &[
    "{", "}", "(", ")", "[", "]", "<", ">", ";", ",", ":", "::", "|", "!", "@", "+", "-", "*", "/",
    "%", "~", "&", "^", "?", "=", "<<", ">>", "&&", "||", "==", "!=", "<=", ">=", "//", "/*", "*/",
    "\"",
];

/// Whole constructs that no table spells: operand shapes, register declarations, labels,
/// `.loc` attributes, a few complete instructions (kept from the hand-written dictionary).
pub const SNIPPETS: &[&str] = &[
    "function_name",
    "inlined_at",
    "generic(",
    "compute_",
    "ld.global.v4.f32",
    "st.shared.b32",
    "mov.u32",
    "setp.lt.and.s32",
    "cvt.rni.s32.f32",
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
    "call.uni",
    "bra.uni",
    "@%p1",
    "@!%p1",
    "%r1",
    "%rd<16>",
    "%tid.x",
    "$L__BB0_1",
    "{%r1, %r2}",
    "[%rd1+8]",
    "_|%p1",
];

/// The dictionary's groups in file order: a title and the words (unescaped, deduplicated
/// against the earlier groups, sorted).
pub fn groups() -> Vec<(&'static str, Vec<String>)> {
    let mut raw: Vec<(&'static str, Vec<String>)> = Vec::new();
    raw.push((
        "directives (the reader's, ptx_ir_oracles::dict::DIRECTIVES)",
        DIRECTIVES.iter().map(|d| format!(".{d}")).collect(),
    ));
    raw.push((
        "instruction mnemonics (ptx_ir_core::Opcode::ALL)",
        Opcode::ALL.iter().map(|o| o.name().to_string()).collect(),
    ));
    raw.push((
        "modifiers (ptx_ir_core::Modifier::all: types, roundings, spaces, scopes, shapes, ...)",
        Modifier::all()
            .map(|m| format!(".{}", m.as_str()))
            .collect(),
    ));
    raw.push((
        "special registers (ptx_ir_core::SpecialReg)",
        special_registers(),
    ));
    raw.push(("selectors (ptx_ir_core::Selector)", selectors()));
    raw.push((
        "targets and versions (ptx_ir_core::avail)",
        targets_and_versions(),
    ));
    raw.push(("sections", strings(SECTIONS)));
    raw.push(("literals", strings(LITERALS)));
    raw.push(("punctuation", strings(PUNCTUATION)));
    raw.push(("snippets", strings(SNIPPETS)));
    let mut seen = BTreeSet::new();
    raw.into_iter()
        .map(|(title, words)| {
            let words: BTreeSet<String> = words.into_iter().collect();
            let words = words
                .into_iter()
                .filter(|w| seen.insert(w.clone()))
                .collect();
            (title, words)
        })
        .collect()
}

/// Every word of the dictionary (unescaped).
pub fn words() -> BTreeSet<String> {
    groups().into_iter().flat_map(|(_, w)| w).collect()
}

/// The dictionary file: a header, then one `"word"` line per word, by group.
pub fn ptx_dictionary() -> String {
    let groups = groups();
    let total: usize = groups.iter().map(|(_, w)| w.len()).sum();
    let mut out = String::new();
    out.push_str(
        "# libFuzzer dictionary of the PTX text fuzz targets (`-dict=fuzz/ptx.dict`; OSS-Fuzz and\n\
         # ClusterFuzzLite builds install it as $OUT/<target>.dict, fuzz/oss-fuzz/build.sh).\n\
         # GENERATED from the instruction table, the modifier vocabulary, the special registers and\n\
         # the reader's directives (ptx_ir_oracles::dict) by\n\
         #   cargo run --release -p ptx-ir-oracles --example write_dict > fuzz/ptx.dict\n\
         # Do not edit: `cargo test -p ptx-ir-oracles --test dict` fails when this file is stale.\n",
    );
    let _ = writeln!(out, "# {total} entries.");
    for (title, words) in groups {
        let _ = write!(out, "\n# {title}: {}\n", words.len());
        for w in words {
            out.push_str(&escape(&w));
            out.push('\n');
        }
    }
    out
}

/// A dictionary entry: `"..."` with `\`, `"` and bytes outside printable ASCII escaped as
/// libFuzzer reads them (`\\`, `\"`, `\xAB`).
pub fn escape(word: &str) -> String {
    let mut s = String::with_capacity(word.len() + 2);
    s.push('"');
    for &b in word.as_bytes() {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            b' '..=b'~' => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02X}");
            }
        }
    }
    s.push('"');
    s
}

/// Reads one dictionary line back as libFuzzer does (`name="value"` or `"value"`; blank lines
/// and `#` comments give `None`); `Err` for a line libFuzzer would refuse.
pub fn unescape_line(line: &str) -> Result<Option<Vec<u8>>, String> {
    let line = line.trim_start();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let start = line.find('"').ok_or("no opening quote")?;
    let body = line[start + 1..]
        .strip_suffix('"')
        .ok_or("no closing quote")?
        .as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\\' => match body.get(i + 1) {
                Some(b'\\') | Some(b'"') => {
                    out.push(body[i + 1]);
                    i += 2;
                }
                Some(b'x') => {
                    let hex = body.get(i + 2..i + 4).ok_or("short \\x escape")?;
                    let hex = std::str::from_utf8(hex).map_err(|e| e.to_string())?;
                    out.push(u8::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
                    i += 4;
                }
                _ => return Err("bad escape".into()),
            },
            b'"' => return Err("unescaped quote".into()),
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(Some(out))
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The plain registers, and for each numbered family its first and last member and the first
/// number past the family (an edge the reader must refuse).
fn special_registers() -> Vec<String> {
    let mut out: Vec<String> = SpecialReg::PLAIN.iter().map(|r| r.to_string()).collect();
    let families: [fn(u8) -> SpecialReg; 4] = [
        SpecialReg::Pm,
        SpecialReg::Pm64,
        SpecialReg::Envreg,
        SpecialReg::ReservedSmemOffset,
    ];
    for family in families {
        let last = (0..=u8::MAX)
            .take_while(|&n| family(n).is_valid())
            .last()
            .expect("numbered special registers start at 0");
        for n in [0, last, last + 1] {
            out.push(family(n).to_string());
        }
    }
    out
}

/// `.x` .. `.a`, and byte (`.b0`..`.b3`) and half-word (`.h0`, `.h1`) selectors.
fn selectors() -> Vec<String> {
    let mut out: Vec<String> = (0..8)
        .filter_map(Selector::component)
        .map(|s| s.to_string())
        .collect();
    for d in 0..4 {
        out.extend(Selector::digits('b', &[d]).map(|s| s.to_string()));
    }
    for d in 0..2 {
        out.extend(Selector::digits('h', &[d]).map(|s| s.to_string()));
    }
    out
}

/// `sm_XY`, `sm_XYa`, `sm_XYf` for every architecture where it exists, the other `.target`
/// words, and every PTX ISA version (`8.7`) plus the first one past the newest.
fn targets_and_versions() -> Vec<String> {
    let mut out = Vec::new();
    for &arch in avail::KNOWN {
        for suffix in [ArchSuffix::None, ArchSuffix::A, ArchSuffix::F] {
            if Sm::new(arch, suffix).exists() {
                out.push(Target::Sm { arch, suffix }.to_text());
            }
        }
    }
    for t in [
        Target::TexmodeUnified,
        Target::TexmodeIndependent,
        Target::Debug,
        Target::MapF64ToF32,
    ] {
        out.push(t.to_text());
    }
    for v in avail::VERSIONS {
        out.push(format!("{}.{}", v.major, v.minor));
    }
    out.push(format!(
        "{}.{}",
        avail::LATEST.major,
        avail::LATEST.minor + 1
    ));
    out
}
