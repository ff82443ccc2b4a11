//! Modules, directives, declarations, functions and statements.

use crate::body::Body;
use crate::names::{Interner, Name};
use crate::operand::Expr;
pub use crate::stmt::*;
use crate::vocab::Type;
use serde::{Deserialize, Serialize};

/// A PTX module: the header and every module-level directive, in source order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Module {
    /// The string table every [`Name`] in the module refers to.
    pub names: Interner,
    /// `.version major.minor`
    pub version: Version,
    /// `.target` entries, in order (`sm_90a`, `debug`, ...).
    pub target: Vec<Target>,
    /// `.address_size 32|64`, if present.
    pub address_size: Option<u32>,
    /// Module-level directives in source order.
    pub items: Vec<Item>,
}

/// A PTX ISA version.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Version {
    /// Major version.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

/// Architecture-specific (`a`) or family-specific (`f`) suffix of a target.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum ArchSuffix {
    /// No suffix: `sm_90`.
    None,
    /// `sm_90a`: architecture-specific features.
    A,
    /// `sm_100f`: family-specific features.
    F,
}

/// One entry of the `.target` directive.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Target {
    /// `sm_XY{a,f}`, with `XY` as written (`90`, `100`, `121`).
    Sm {
        /// The architecture number.
        arch: u16,
        /// Its suffix.
        suffix: ArchSuffix,
    },
    /// `compute_XY` (accepted by older tools).
    Compute(u16),
    /// `texmode_unified`
    TexmodeUnified,
    /// `texmode_independent`
    TexmodeIndependent,
    /// `debug`
    Debug,
    /// `map_f64_to_f32`
    MapF64ToF32,
}

/// A module-level directive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Item {
    /// `.entry` or `.func`, declaration or definition.
    Function(Box<Function>),
    /// A variable declaration (`.global`, `.const`, `.shared`, ...).
    Variable(Box<VarDecl>),
    /// `.file N "path" {, timestamp, size}`
    File(Box<FileDecl>),
    /// `.section name { ... }` (DWARF sections).
    Section(Box<Section>),
    /// `.pragma "...";` at module scope.
    Pragma(Box<str>),
    /// `.alias alias, aliasee;`
    Alias {
        /// The new name.
        alias: Name,
        /// The function it stands for.
        aliasee: Name,
    },
}

/// `.file` directive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct FileDecl {
    /// File index used by `.loc`.
    pub index: u32,
    /// Path as written (without quotes, escapes kept).
    pub path: Box<str>,
    /// Optional modification timestamp and file size.
    pub meta: Option<(u64, u64)>,
}

/// `.section` directive with its contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Section {
    /// Section name as written (`.debug_info`).
    pub name: Box<str>,
    /// Entries in order.
    pub entries: Vec<SectionEntry>,
}

/// Dropping a section visits only the entries that own memory: the derived drop called a
/// function per entry, and nvcc's debug sections hold thousands of one-byte lines.
impl Drop for Section {
    fn drop(&mut self) {
        for e in self.entries.drain(..) {
            match e {
                SectionEntry::Label(_)
                | SectionEntry::Value { .. }
                | SectionEntry::Bytes(ByteLine(ByteRepr::Inline { .. }))
                | SectionEntry::ByteColumn(ByteLine(ByteRepr::Inline { .. })) => {
                    std::mem::forget(e)
                }
                SectionEntry::Bytes(ByteLine(ByteRepr::Heap(_)))
                | SectionEntry::ByteColumn(ByteLine(ByteRepr::Heap(_)))
                | SectionEntry::Data { .. } => drop(e),
            }
        }
    }
}

/// One line of a `.section` body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum SectionEntry {
    /// A label inside the section: `$L__info_string0:`.
    Label(Name),
    /// `.b8 1, 2, 3` with plain integer values only, stored compactly.
    Bytes(ByteLine),
    /// `.bN v, ...` with any values (labels, label+offset, integers).
    Data {
        /// `.b8`, `.b16`, `.b32` or `.b64`.
        ty: Type,
        /// The values.
        values: Box<[Expr]>,
    },
    /// `.bN v` with one integer or name, the common data line of debug sections
    /// (`.b64 $L__func_begin0`, `.b32 .debug_abbrev`, `.b64 0`), kept without a box. The
    /// reader and the decoder give this rather than a [`SectionEntry::Data`] of one such value
    /// ([`SectionEntry::data`]). Last, so that the other variants keep their numbers.
    Value {
        /// `.b8`, `.b16`, `.b32` or `.b64`.
        ty: Type,
        /// The value.
        value: DataValue,
    },
    /// `.b8` lines of one byte each, one line per byte, in order. nvcc writes debug sections
    /// one byte per line (7,400 lines in an 85 KB file), which as an entry each made the IR
    /// nearly three times the size of the text; up to 14 bytes are kept in the entry, as a
    /// line's. The reader and the decoder give every maximal run of one-byte lines as one of
    /// these, and no one-byte [`SectionEntry::Bytes`] ([`SectionBuilder`]). Last, so that the
    /// other variants keep their numbers.
    ByteColumn(ByteLine),
}

/// Builds a section's entries in the form the reader and the decoder give them: one-byte
/// `.b8` lines gathered into a [`SectionEntry::ByteColumn`] per run (however they were
/// pushed), the others as pushed.
#[derive(Debug, Default)]
pub struct SectionBuilder {
    entries: Vec<SectionEntry>,
    column: Vec<u8>,
}

impl SectionBuilder {
    /// An empty section.
    pub fn new() -> SectionBuilder {
        SectionBuilder::default()
    }

    /// Appends an entry; a one-byte [`SectionEntry::Bytes`] or a column joins the run of
    /// one-byte lines.
    pub fn push(&mut self, e: SectionEntry) {
        match e {
            SectionEntry::Bytes(b) if b.len() == 1 => self.column.push(b[0]),
            SectionEntry::ByteColumn(c) => self.column.extend_from_slice(&c),
            e => {
                self.end_column();
                self.entries.push(e);
            }
        }
    }

    /// Appends `e` as it is, after the run of one-byte lines so far (the bytecode's form of
    /// entries not built so).
    pub fn push_as_is(&mut self, e: SectionEntry) {
        self.end_column();
        self.entries.push(e);
    }

    /// Appends the `.b8` line of the one byte `b`.
    #[inline]
    pub fn push_byte(&mut self, b: u8) {
        self.column.push(b);
    }

    /// Appends the `.b8` line holding `bytes`.
    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        if let [b] = bytes {
            self.column.push(*b);
        } else {
            self.end_column();
            SectionEntry::push_bytes(&mut self.entries, bytes);
        }
    }

    fn end_column(&mut self) {
        if !self.column.is_empty() {
            // Up to 14 bytes in the entry, as a line's (most runs in `.debug_info` are short).
            self.entries
                .push(SectionEntry::ByteColumn(ByteLine::new(&self.column)));
            self.column.clear();
        }
    }

    /// The entries.
    pub fn finish(mut self) -> Vec<SectionEntry> {
        self.end_column();
        std::mem::take(&mut self.entries)
    }
}

/// The value of a [`SectionEntry::Value`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum DataValue {
    /// An integer ([`Expr::Int`]).
    Int(i64),
    /// A name ([`Expr::Sym`]).
    Sym(Name),
}

impl DataValue {
    /// The value as an expression.
    pub fn to_expr(self) -> Expr {
        match self {
            DataValue::Int(v) => Expr::Int(v),
            DataValue::Sym(n) => Expr::Sym(n),
        }
    }
}

impl SectionEntry {
    /// The entry of a data line `.ty values`, in the form the reader gives it: plain bytes of
    /// a `.b8` line as [`SectionEntry::Bytes`], one integer or name as
    /// [`SectionEntry::Value`], anything else as [`SectionEntry::Data`].
    pub fn data(ty: Type, values: Vec<Expr>) -> SectionEntry {
        let byte = |e: &Expr| matches!(e, Expr::Int(v) if (0..=255).contains(v));
        if ty == Type::B8 && values.iter().all(byte) {
            let b: Vec<u8> = values
                .iter()
                .map(|e| match e {
                    Expr::Int(v) => *v as u8,
                    _ => 0,
                })
                .collect();
            return SectionEntry::Bytes(ByteLine::new(&b));
        }
        SectionEntry::value_or_data(ty, values)
    }

    /// A data line `.ty values` as a [`SectionEntry::Value`] if it holds one integer or name,
    /// else as a [`SectionEntry::Data`] (a `.b8` line of plain bytes stays `Data`: the decoder
    /// gives back what was encoded).
    pub fn value_or_data(ty: Type, values: Vec<Expr>) -> SectionEntry {
        match values[..] {
            [Expr::Int(v)] => SectionEntry::Value {
                ty,
                value: DataValue::Int(v),
            },
            [Expr::Sym(n)] => SectionEntry::Value {
                ty,
                value: DataValue::Sym(n),
            },
            _ => SectionEntry::Data {
                ty,
                values: values.into_boxed_slice(),
            },
        }
    }

    /// Appends the `.b8` line holding `bytes` to `entries` as a line of its own, the same
    /// entry as `SectionEntry::Bytes(ByteLine::new(bytes))` ([`SectionBuilder::push_bytes`]
    /// gathers one-byte lines, as the reader does). A short line is pushed as a constant and
    /// filled in place: built on the stack with narrow stores and copied whole, each entry
    /// waited on a failed store-to-load forwarding (half the time of reading nvcc's debug
    /// sections, which hold thousands of one-byte lines).
    #[inline]
    pub fn push_bytes(entries: &mut Vec<SectionEntry>, bytes: &[u8]) {
        const EMPTY: SectionEntry = SectionEntry::Bytes(ByteLine(ByteRepr::Inline {
            len: 0,
            bytes: [0; 14],
        }));
        if bytes.len() > 14 {
            entries.push(SectionEntry::Bytes(ByteLine::new(bytes)));
            return;
        }
        entries.push(EMPTY);
        if let Some(SectionEntry::Bytes(ByteLine(ByteRepr::Inline { len, bytes: b }))) =
            entries.last_mut()
        {
            *len = bytes.len() as u8;
            fill_inline(b, bytes);
        }
    }
}

/// The bytes of one `.b8` line of a section: up to 14 inline (most debug-section lines hold
/// one to four), longer lines on the heap. 16 bytes, so that a [`SectionEntry`] is 24.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ByteLine(ByteRepr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum ByteRepr {
    Inline {
        len: u8,
        bytes: [u8; 14],
    },
    // A thin pointer: `Box<[u8]>` or a `Vec` would make the line 24 bytes.
    #[allow(clippy::box_collection)]
    Heap(Box<Vec<u8>>),
}

impl ByteLine {
    /// The line holding `bytes`.
    #[inline]
    pub fn new(bytes: &[u8]) -> ByteLine {
        let n = bytes.len();
        if n > 14 {
            return ByteLine(ByteRepr::Heap(Box::new(bytes.to_vec())));
        }
        let mut b = [0u8; 14];
        fill_inline(&mut b, bytes);
        ByteLine(ByteRepr::Inline {
            len: n as u8,
            bytes: b,
        })
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match &self.0 {
            ByteRepr::Inline { len, bytes } => &bytes[..*len as usize],
            ByteRepr::Heap(v) => v,
        }
    }
}

/// Copies `bytes` (at most 14) to the start of `b` with fixed-size copies (two overlapping ones
/// from 4 bytes on) instead of a call to `memcpy` for a length it cannot know: a debug section
/// has tens of thousands of these lines, most of one byte.
#[inline]
fn fill_inline(b: &mut [u8; 14], bytes: &[u8]) {
    let n = bytes.len();
    if n >= 8 {
        b[..8].copy_from_slice(&bytes[..8]);
        b[n - 8..n].copy_from_slice(&bytes[n - 8..]);
    } else if n >= 4 {
        b[..4].copy_from_slice(&bytes[..4]);
        b[n - 4..n].copy_from_slice(&bytes[n - 4..]);
    } else {
        for (d, s) in b.iter_mut().zip(bytes) {
            *d = *s;
        }
    }
}

impl std::ops::Deref for ByteLine {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<&[u8]> for ByteLine {
    fn from(b: &[u8]) -> ByteLine {
        ByteLine::new(b)
    }
}

impl std::fmt::Debug for ByteLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// A byte string, as `Box<[u8]>` would be (same bincode bytes as a sequence of `u8`).
impl Serialize for ByteLine {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for ByteLine {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ByteLine, D::Error> {
        crate::bytes::Blob::deserialize(d).map(|b| ByteLine::new(&b.0))
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for ByteLine {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let v: Vec<u8> = u.arbitrary()?;
        Ok(ByteLine::new(&v))
    }
}

/// `.entry` or `.func`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum FunctionKind {
    /// A kernel entry point.
    Entry,
    /// A device function.
    Func,
}

/// A kernel or device function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Function {
    /// Linkage directive, if any.
    pub linkage: Option<Linkage>,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// `.attribute(...)` qualifiers before the name.
    pub attributes: Vec<Attribute>,
    /// Return parameters of a `.func`: `(.param .b32 r)`; `None` without parentheses.
    pub returns: Option<Vec<Param>>,
    /// The function name.
    pub name: Name,
    /// Parameters; `None` when the source has no parameter list at all.
    pub params: Option<Vec<Param>>,
    /// Directives between the signature and the body, in source order.
    pub directives: Vec<FuncDirective>,
    /// The body; `None` for a declaration ending in `;`.
    pub body: Option<Body>,
}

impl Function {
    /// The body as a statement tree (`None` for a declaration); see [`Body::statements`].
    pub fn statements(&self) -> Option<&[Statement]> {
        self.body.as_ref().map(Body::statements)
    }

    /// The body as an editable statement tree; see [`Body::statements_mut`].
    pub fn statements_mut(&mut self) -> Option<&mut Vec<Statement>> {
        self.body.as_mut().map(Body::statements_mut)
    }

    /// Replaces the body with `stmts` (`None` makes a declaration).
    pub fn set_statements(&mut self, stmts: Option<Vec<Statement>>) {
        self.body = stmts.map(Body::from);
    }
}

impl Module {
    /// An empty module for the given version and target.
    pub fn new(version: Version, target: Vec<Target>, address_size: Option<u32>) -> Module {
        Module {
            names: Interner::new(),
            version,
            target,
            address_size,
            items: Vec::new(),
        }
    }

    /// Iterates over the functions of the module.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            Item::Function(f) => Some(&**f),
            _ => None,
        })
    }

    /// Iterates mutably over the functions of the module.
    pub fn functions_mut(&mut self) -> impl Iterator<Item = &mut Function> {
        self.items.iter_mut().filter_map(|i| match i {
            Item::Function(f) => Some(&mut **f),
            _ => None,
        })
    }

    /// The function named `name`, preferring a definition over a declaration.
    pub fn function(&self, name: &str) -> Option<&Function> {
        let n = self.names.find(name)?;
        let mut decl = None;
        for f in self.functions().filter(|f| f.name == n) {
            if f.body.is_some() {
                return Some(f);
            }
            decl = Some(f);
        }
        decl
    }

    /// Number of instructions in all function bodies.
    pub fn instruction_count(&self) -> usize {
        self.functions()
            .filter_map(|f| f.body.as_ref())
            .map(Body::instruction_count)
            .sum()
    }
}

impl Target {
    /// Spelling as in the `.target` directive.
    pub fn to_text(self) -> String {
        let mut s = String::new();
        self.write_text(&mut s);
        s
    }

    /// Appends the spelling as in the `.target` directive to `out` (without the formatting
    /// machinery: a module of its header alone prints in about the time it reads).
    pub fn write_text(self, out: &mut String) {
        let (prefix, number, suffix) = match self {
            Target::Sm { arch, suffix } => {
                let s = match suffix {
                    ArchSuffix::None => "",
                    ArchSuffix::A => "a",
                    ArchSuffix::F => "f",
                };
                ("sm_", arch, s)
            }
            Target::Compute(a) => ("compute_", a, ""),
            Target::TexmodeUnified => return out.push_str("texmode_unified"),
            Target::TexmodeIndependent => return out.push_str("texmode_independent"),
            Target::Debug => return out.push_str("debug"),
            Target::MapF64ToF32 => return out.push_str("map_f64_to_f32"),
        };
        out.push_str(prefix);
        // At most five digits.
        let mut digits = [0u8; 5];
        let mut k = digits.len();
        let mut n = number;
        loop {
            k -= 1;
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        digits[k..].iter().for_each(|&d| out.push(char::from(d)));
        out.push_str(suffix);
    }

    /// Parses one `.target` entry.
    pub fn parse(s: &str) -> Option<Target> {
        Target::parse_bytes(s.as_bytes())
    }

    /// [`Target::parse`] of the entry's bytes (the reader's, without a UTF-8 check).
    pub fn parse_bytes(s: &[u8]) -> Option<Target> {
        // Decimal digits only (leading zeros allowed, as `str::parse` allows them).
        let number = |d: &[u8]| -> Option<u32> {
            if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let zeros = d.iter().take_while(|&&b| b == b'0').count();
            let d = &d[zeros..];
            if d.len() > 9 {
                return None;
            }
            Some(d.iter().fold(0, |v, &b| v * 10 + u32::from(b - b'0')))
        };
        Some(match s {
            b"texmode_unified" => Target::TexmodeUnified,
            b"texmode_independent" => Target::TexmodeIndependent,
            b"debug" => Target::Debug,
            b"map_f64_to_f32" => Target::MapF64ToF32,
            [b's', b'm', b'_', rest @ ..] => {
                let (digits, suffix) = match rest.last()? {
                    b'a' => (&rest[..rest.len() - 1], ArchSuffix::A),
                    b'f' => (&rest[..rest.len() - 1], ArchSuffix::F),
                    _ => (rest, ArchSuffix::None),
                };
                Target::Sm {
                    arch: number(digits)?.try_into().ok()?,
                    suffix,
                }
            }
            [b'c', b'o', b'm', b'p', b'u', b't', b'e', b'_', rest @ ..] => {
                Target::Compute(number(rest)?.try_into().ok()?)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Target names: every form, leading zeros as `str::parse` reads them, and the near misses;
    /// each spelled back as it parses.
    #[test]
    fn targets_parse() {
        for (t, text) in [
            (
                Target::Sm {
                    arch: 65535,
                    suffix: ArchSuffix::F,
                },
                "sm_65535f",
            ),
            (
                Target::Sm {
                    arch: 0,
                    suffix: ArchSuffix::None,
                },
                "sm_0",
            ),
            (
                Target::Sm {
                    arch: 90,
                    suffix: ArchSuffix::A,
                },
                "sm_90a",
            ),
            (Target::Compute(7), "compute_7"),
            (Target::TexmodeIndependent, "texmode_independent"),
        ] {
            assert_eq!(t.to_text(), text);
        }
        let sm = |arch, suffix| Some(Target::Sm { arch, suffix });
        for (s, want) in [
            ("sm_90a", sm(90, ArchSuffix::A)),
            ("sm_100f", sm(100, ArchSuffix::F)),
            ("sm_121", sm(121, ArchSuffix::None)),
            ("sm_0090", sm(90, ArchSuffix::None)),
            ("sm_000000000000090a", sm(90, ArchSuffix::A)),
            ("sm_65535", sm(65535, ArchSuffix::None)),
            ("sm_65536", None),
            ("sm_1234567890", None),
            ("sm_", None),
            ("sm_a", None),
            ("sm_9x", None),
            ("sm_+90", None),
            ("sm90", None),
            ("compute_90", Some(Target::Compute(90))),
            ("compute_", None),
            ("compute_9a", None),
            ("debug", Some(Target::Debug)),
            ("texmode_unified", Some(Target::TexmodeUnified)),
            ("texmode_independent", Some(Target::TexmodeIndependent)),
            ("map_f64_to_f32", Some(Target::MapF64ToF32)),
            ("Debug", None),
            ("", None),
        ] {
            assert_eq!(Target::parse(s), want, "{s}");
            if let Some(t) = want {
                assert_eq!(Target::parse(&t.to_text()), Some(t), "{s}");
            }
            // The old reading, through `str::parse`, where it applies.
            if let Some(Target::Sm { arch, .. }) = want {
                let digits = s[3..].trim_end_matches(['a', 'f']);
                assert_eq!(digits.parse::<u16>().ok(), Some(arch), "{s}");
            }
        }
    }

    #[test]
    fn byte_lines_are_small_and_keep_their_bytes() {
        assert_eq!(std::mem::size_of::<ByteLine>(), 16);
        assert_eq!(std::mem::size_of::<SectionEntry>(), 24);
        // Every length the inline copies treat differently, from slices of a longer buffer
        // (whose bytes past the line must not leak into it) and from exact ones.
        let long: Vec<u8> = (0..64u32).map(|k| (k * 37 + 1) as u8).collect();
        for n in (0usize..=20).chain([40]) {
            let v = long[..n].to_vec();
            let b = ByteLine::new(&long[..n]);
            assert_eq!(b.as_slice(), v.as_slice());
            // Pushed in place after a line of other bytes: the same entry, no stale bytes.
            let mut entries = Vec::new();
            SectionEntry::push_bytes(&mut entries, &[0xee; 14]);
            SectionEntry::push_bytes(&mut entries, &long[..n]);
            assert_eq!(entries[1], SectionEntry::Bytes(b.clone()));
            assert_eq!(b, ByteLine::from(v.as_slice()));
            assert_eq!(b.clone().len(), n);
            let shifted = ByteLine::new(&long[1..=n]);
            assert_eq!(shifted.as_slice(), &long[1..=n]);
        }
        assert_ne!(ByteLine::new(&[1, 2]), ByteLine::new(&[1, 2, 0]));
    }
}
