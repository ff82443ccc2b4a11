//! The PTX reader: text to [`Module`].
//!
//! Written with nom's `IResult` conventions over byte slices. The hot path (instructions and
//! their operands) dispatches on the first byte and never backtracks through long `alt` chains;
//! the mnemonic is split by one hash lookup per candidate prefix and qualifiers resolve through
//! the vocabulary's spelling table.

mod body;
mod cache;
mod decl;
mod expr;
mod inst;
mod shared_words;

use crate::error::{PErr, PResult, ParseError};
use crate::lex::{self, expect, ident, qual_word, ws};
use nom::Err;
use ptx_ir_core::{
    FileDecl, Interner, Item, Linkage, Module, Name, Section, SectionEntry, Target, Type, Version,
};

/// Reads a whole module. `file` names the source in error messages.
pub fn parse_module(src: &str, file: &str) -> Result<Module, ParseError> {
    parse_module_spans(src, file, false).map(|(m, _)| m)
}

/// Reads a whole module and, with `spans`, the byte offset of every statement of every function
/// body (see [`crate::spans::Spans`]).
pub fn parse_module_spans(
    src: &str,
    file: &str,
    spans: bool,
) -> Result<(Module, crate::spans::Spans), ParseError> {
    parse_text(src, file, spans)
}

/// [`parse_module_spans`]: the reader, which refuses a byte that is not PTX text (see
/// [`lex::is_text`]) wherever it is.
pub(crate) fn parse_text(
    src: &str,
    file: &str,
    spans: bool,
) -> Result<(Module, crate::spans::Spans), ParseError> {
    let spans_wanted = spans;
    let read = match header(src.as_bytes()) {
        // A module of its header alone (cuRAND ships such files) needs no reader.
        Ok((rest, h)) if !general_only() && ws(rest).is_ok_and(|(r, ())| r.is_empty()) => {
            let header = if spans { header_offsets(src) } else { None };
            return Ok((
                h.module(Interner::new(), Vec::new()),
                crate::spans::Spans {
                    header,
                    ..Default::default()
                },
            ));
        }
        Ok((rest, h)) => {
            let mut r = if src.len() > LAZY_SPARE_LEN {
                let mut r = Reader::from_parts(src, src.len(), SPARE.with(std::cell::Cell::take));
                r.spare = SpareUse::Taken;
                r
            } else {
                Reader::lazy(src)
            };
            if spans {
                r.spans = Some(SpanState {
                    src_len: src.len(),
                    current: Vec::new(),
                    items: Vec::new(),
                    starts: Vec::new(),
                });
            }
            let read = r.module(rest, h);
            let spans = r.spans.take();
            r.give_back();
            read.map(|(_, m)| (m, spans))
        }
        Err(e) => Err(e),
    };
    match read {
        Ok((m, spans)) => {
            let (items, starts) = spans.map(|s| (s.items, s.starts)).unwrap_or_default();
            let header = if spans_wanted {
                header_offsets(src)
            } else {
                None
            };
            Ok((
                m,
                crate::spans::Spans {
                    items,
                    starts,
                    header,
                },
            ))
        }
        // The reader stops at a byte that is not PTX text wherever it meets one (comments and
        // strings included, `lex::line_comment_end`): the error names the first such byte.
        Err(_) if !lex::is_text(src.as_bytes()) => Err(not_text(file, src.as_bytes())),
        Err(Err::Error(e) | Err::Failure(e)) => Err(to_parse_error(file, src, e)),
        Err(Err::Incomplete(_)) => Err(ParseError::new(
            file,
            src,
            src.len(),
            "unexpected end of input",
        )),
    }
}

/// The error for text that [`lex::is_text`] refused: where its first bad byte is.
pub(crate) fn not_text(file: &str, src: &[u8]) -> ParseError {
    let (at, what) = lex::bad_byte(src).unwrap_or((0, "not PTX text".to_string()));
    ParseError::in_bytes(file, src, at, what)
}

/// The offsets of `.version` and `.target` in a module's text that [`header`] accepts.
fn header_offsets(src: &str) -> Option<(u32, u32)> {
    let at = |rest: &[u8]| u32::try_from(src.len() - rest.len()).ok();
    let (v, ()) = ws(src.as_bytes()).ok()?;
    let (r, _) = version(v).ok()?;
    let (t, ()) = ws(r).ok()?;
    Some((at(v)?, at(t)?))
}

fn to_parse_error(file: &str, src: &str, e: PErr) -> ParseError {
    let offset = src.len().saturating_sub(e.rem);
    ParseError::new(file, src, offset, e.msg.into_owned())
}

/// Reader state: the module's interner, filled in source order, and caches.
pub(crate) struct Reader<'s> {
    /// The text being read, whose slices are names' spellings without a second UTF-8 check.
    src: &'s str,
    pub(crate) names: Interner,
    /// Statement offsets, only when the caller asked for them.
    pub(crate) spans: Option<SpanState>,
    /// The instruction words resolved on this thread (see [`Words`]).
    words: Words,
    /// The function body being read; reused from body to body, so that each body's arrays
    /// are allocated once, at their exact size.
    body: ptx_ir_core::BodyBuilder,
    /// Short names (up to 8 bytes: `%rd1234`) to their index plus one, with [`PLAIN`] set for
    /// those read as operands that are not special registers.
    short_names: cache::ShortCache<1>,
    /// Names of 9 to 16 bytes (nvcc's labels `$L__BB0_12`, `$L__tmp63`, `$L__func_begin0`)
    /// to their index plus one.
    mid_names: cache::ShortCache<2>,
    /// Where `words`, `body` and the name caches come from.
    spare: SpareUse,
}

/// Where a reader's scratch structures come from.
#[derive(Copy, Clone, PartialEq, Eq)]
enum SpareUse {
    /// Empty stand-ins: the thread's scratch is not taken yet (see [`Reader::take_spare`]).
    Untaken,
    /// Taken from the thread (or made), and given back at the end.
    Taken,
    /// Made for this reader alone (a reader of a constant expression).
    Own,
}

/// Texts up to this many bytes take the thread's scratch structures only when they reach a
/// function body: a module of a few declarations (cuRAND's 55-byte headers) is read without
/// moving them in and out of the thread's slot, a fifth of its reading time.
const LAZY_SPARE_LEN: usize = 1024;

/// Bits of a cache's slot count for about `want` entries: at least 1, at most `max`.
fn cache_bits(want: usize, max: u32) -> u32 {
    (usize::BITS - want.leading_zeros()).clamp(1, max)
}

/// In `short_names`: the name was read as an operand and is not a special register.
const PLAIN: u32 = 1 << 31;

/// No operand shapes: a key's count (its top 4 bits) is at most 12.
pub(crate) const NO_SHAPE: u64 = u64::MAX;

/// How many operand shapes a word remembers: NCCL's `mov.b32` takes four in turn (a
/// register, a constant, a vector of halves, a register pair).
pub(crate) const FITS: usize = 4;

/// What an instruction word resolved to.
pub(crate) struct WordInfo {
    opcode: ptx_ir_core::Opcode,
    mods: ptx_ir_core::Mods,
    /// Indices of the opcode's forms that accept `mods`, in table order.
    forms: smallvec::SmallVec<[u16; 6]>,
    /// All the opcode's forms (`Opcode::forms`, kept to skip its table lookup).
    all_forms: &'static [ptx_ir_core::form::Form],
    /// The operand-shape keys (see `inst::shape`) last seen to fit one of `forms`, the
    /// latest first; [`NO_SHAPE`] where none was.
    fits: [u64; FITS],
}

/// The interners of a [`Reader`].
#[derive(Copy, Clone)]
pub(crate) enum NameTable {
    Names,
    Words,
}

/// Statement offsets collected while reading (opt-in, see [`parse_module_spans`]).
pub(crate) struct SpanState {
    src_len: usize,
    /// Offsets of the statements of the function body being read, in pre-order.
    current: Vec<u32>,
    /// One entry per module item read so far.
    items: Vec<Vec<u32>>,
    /// Where each module item read so far starts.
    starts: Vec<u32>,
}

/// The reader's scratch structures, kept per thread from one module to the next: made afresh
/// for every module, their pages are faulted in and zeroed by the kernel each time (about 15%
/// of the time spent on NCCL's modules, 10% on Triton's).
struct Spare {
    body: ptx_ir_core::BodyBuilder,
    short_names: cache::ShortCache<1>,
    mid_names: cache::ShortCache<2>,
    /// `None` once the table outgrew [`MAX_SPARE_WORDS`].
    words: Option<Words>,
}

/// The instruction words a reader has resolved, with their cache. What a word resolves to
/// depends on its spelling alone (the instruction table is fixed), so the table is kept from
/// one module to the next on a thread: modules from one compiler share most of their words,
/// and resolving a word (its mnemonic, qualifiers and fitting forms) costs as much as reading
/// a few dozen instructions, a quarter of the reading time of small files.
struct Words {
    /// The distinct words (`ld.global.nc.v4.f32`), indexing `info`.
    names: Interner,
    info: Vec<WordInfo>,
    /// Short words (up to 24 bytes) to their index in `info` plus one.
    short: cache::ShortCache<3>,
    /// About the heap bytes of `names` and `info`: the words' spellings and modifiers.
    bytes: usize,
}

impl Words {
    /// No words, and a cache of no slots (no allocation).
    fn empty() -> Words {
        Words {
            names: Interner::new(),
            info: Vec::new(),
            short: cache::ShortCache::empty(),
            bytes: 0,
        }
    }
}

/// The most words a thread keeps between modules (about 100 bytes each), and the most bytes
/// they may take (a word of valid qualifiers repeated may be as long as its text); past
/// either the table is dropped and starts again empty. (Small in tests, so that they reach
/// them.)
const MAX_SPARE_WORDS: usize = if cfg!(test) { 12 } else { 4096 };
const MAX_SPARE_WORD_BYTES: usize = if cfg!(test) { 4096 } else { 1 << 20 };

thread_local! {
    static SPARE: std::cell::Cell<Option<Spare>> = const { std::cell::Cell::new(None) };
}

#[cfg(any(test, feature = "general-paths"))]
thread_local! {
    /// Set by tests and fuzzing to read everything through the general paths, which the fast
    /// paths (plain declarations, operands read without the general operand reader) must
    /// agree with.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the fast paths are off (only ever in tests and fuzzing).
#[inline(always)]
fn general_only() -> bool {
    #[cfg(any(test, feature = "general-paths"))]
    return GENERAL_ONLY.get();
    #[cfg(not(any(test, feature = "general-paths")))]
    false
}

/// Runs `f` with the fast paths off.
#[cfg(any(test, feature = "general-paths"))]
pub(crate) fn with_general_paths<T>(f: impl FnOnce() -> T) -> T {
    let before = GENERAL_ONLY.replace(true);
    let out = f();
    GENERAL_ONLY.set(before);
    out
}

/// The most a thread keeps between modules in its body builder.
const MAX_SPARE_BYTES: usize = 8 << 20;

/// Frees the scratch structures the reader keeps on this thread between modules (see
/// [`crate::release_thread_scratch`](crate::release_thread_scratch)).
pub(crate) fn release_spare() {
    SPARE.with(|s| s.set(None));
}

impl<'s> Reader<'s> {
    /// A reader for `src`, which takes the scratch structures a previous reader on this thread
    /// gave back (see [`Reader::give_back`]) when it needs them ([`Reader::take_spare`]).
    fn lazy(src: &'s str) -> Reader<'s> {
        Reader {
            src,
            names: Interner::with_capacity(src.len() / 64, src.len() / 64 * 8),
            spans: None,
            words: Words::empty(),
            body: Default::default(),
            short_names: cache::ShortCache::empty(),
            mid_names: cache::ShortCache::empty(),
            spare: SpareUse::Untaken,
        }
    }

    /// Takes this thread's scratch structures (or makes them, sized for the text) in place of
    /// the empty ones [`Reader::lazy`] starts with, before the first function body (a reader
    /// of a text over [`LAZY_SPARE_LEN`] bytes takes them at once). Whatever the reader cached before is
    /// dropped (only caches are replaced: the body builder is empty between bodies).
    pub(crate) fn take_spare(&mut self) {
        if self.spare != SpareUse::Untaken {
            return;
        }
        let (words, body, (short_names, mid_names)) =
            scratch(self.src.len(), SPARE.with(std::cell::Cell::take));
        self.words = words;
        self.body = body;
        self.short_names = short_names;
        self.mid_names = mid_names;
        self.spare = SpareUse::Taken;
    }

    /// Keeps this reader's scratch structures for the next module read on this thread, unless
    /// a very large function body left its builder holding more than [`MAX_SPARE_BYTES`], or
    /// it never took them.
    /// (By reference: moving the whole reader into this call cost a tenth of reading a small
    /// module.)
    fn give_back(&mut self) {
        if self.spare != SpareUse::Taken || self.body.heap_bytes() > MAX_SPARE_BYTES {
            return;
        }
        let words = std::mem::replace(&mut self.words, Words::empty());
        let spare = Spare {
            body: std::mem::take(&mut self.body),
            short_names: std::mem::replace(&mut self.short_names, cache::ShortCache::empty()),
            mid_names: std::mem::replace(&mut self.mid_names, cache::ShortCache::empty()),
            words: (words.info.len() <= MAX_SPARE_WORDS && words.bytes <= MAX_SPARE_WORD_BYTES)
                .then_some(words),
        };
        SPARE.with(|s| s.set(Some(spare)));
    }

    /// A reader for `len` bytes of text that it is not given (names are checked as UTF-8).
    pub(crate) fn new(len: usize) -> Reader<'static> {
        Reader::from_parts("", len, None)
    }

    fn from_parts(src: &'s str, len: usize, spare: Option<Spare>) -> Reader<'s> {
        let (words, body, (short_names, mid_names)) = scratch(len, spare);
        // About one name per 64 bytes of PTX: room to start with, not a bound.
        let names = len / 64;
        Reader {
            src,
            names: Interner::with_capacity(names, names * 8),
            spans: None,
            words,
            body,
            short_names,
            mid_names,
            spare: SpareUse::Own,
        }
    }

    /// Records that a statement starts at `i` (a no-op unless spans were asked for).
    pub(crate) fn mark_statement(&mut self, i: &[u8]) {
        if let Some(s) = &mut self.spans {
            s.current.push((s.src_len - i.len()) as u32);
        }
    }
}

/// A reader's scratch structures for `len` bytes of text: those of `spare` (a previous reader's
/// on this thread) where there are, sized for the text.
fn scratch(
    len: usize,
    spare: Option<Spare>,
) -> (
    Words,
    ptx_ir_core::BodyBuilder,
    (cache::ShortCache<1>, cache::ShortCache<2>),
) {
    let (body, names, words) = match spare {
        Some(s) => (s.body, Some((s.short_names, s.mid_names)), s.words),
        None => (Default::default(), None, None),
    };
    let (short_names, mid_names) = names.unzip();
    // A few hundred words in a large text; small texts (and the throwaway readers of
    // constant expressions) get a small cache.
    let word_bits = cache_bits(len / 256, 10);
    let words = match words {
        Some(w) => Words {
            short: cache::ShortCache::at_least(Some(w.short), word_bits),
            ..w
        },
        None => Words {
            names: Interner::new(),
            info: Vec::new(),
            short: cache::ShortCache::new(word_bits),
            bytes: 0,
        },
    };
    // Up to 16384 slots (128 KiB of keys), so that a large function's registers stay
    // cached; small texts get small caches.
    let short_names = cache::ShortCache::reuse(short_names, cache_bits(len / 64, 14));
    // Labels are fewer: about one per 512 bytes.
    let mid_names = cache::ShortCache::reuse(mid_names, cache_bits(len / 512, 10));
    (words, body, (short_names, mid_names))
}

/// `s`, which starts `at`, as a slice of `src`, if `at` is a suffix of `src` (it is for the
/// main reader, not for the throwaway readers of constant expressions).
#[inline]
fn source_str<'s>(src: &'s str, at: &[u8], s: &[u8]) -> Option<&'s str> {
    let start = src.len().checked_sub(at.len())?;
    let tail = src.as_bytes().get(start..)?;
    // Same address: `at` is this part of the text, not equal bytes elsewhere.
    if tail.as_ptr() != at.as_ptr() || at.as_ptr() != s.as_ptr() {
        return None;
    }
    src.get(start..start.checked_add(s.len())?)
}

/// A failure at `i` (no backtracking past it).
pub(crate) fn fail<T>(i: &[u8], msg: impl Into<std::borrow::Cow<'static, str>>) -> PResult<'_, T> {
    Err(Err::Failure(PErr::at(i, msg)))
}

/// `.word` at the start of `i`: returns the word without its dot.
pub(crate) fn directive(i: &[u8]) -> PResult<'_, &[u8]> {
    let (i, ()) = expect(i, b'.', "expected a directive")?;
    qual_word(i)
}

/// A double-quoted string; returns its raw contents (escapes kept).
pub(crate) fn string(i: &[u8]) -> PResult<'_, &str> {
    let (i, ()) = expect(i, b'"', "expected a string")?;
    let mut k = 0;
    while k < i.len() {
        match i[k] {
            b'\\' => k += 2,
            b'"' => {
                // Strings are passed over like comments: a byte that is not text in one is
                // refused there ([`lex::bad_byte`] names it).
                if !lex::is_text(&i[..k]) {
                    return fail(i, "not PTX text");
                }
                let s = std::str::from_utf8(&i[..k])
                    .map_err(|_| Err::Failure(PErr::at(i, "string is not UTF-8")))?;
                return Ok((&i[k + 1..], s));
            }
            b'\n' => break,
            _ => k += 1,
        }
    }
    fail(i, "unterminated string")
}

impl Reader<'_> {
    /// Interns an identifier given as bytes (identifiers are ASCII).
    #[inline]
    pub(crate) fn name(&mut self, at: &[u8], s: &[u8]) -> Result<Name, Err<PErr>> {
        if s.len() > 8 {
            return self.mid_name(at, s);
        }
        if let Some(v) = self.short_names.get(s, at) {
            return Ok(Name::from_index(((v & !PLAIN) - 1) as usize));
        }
        let n = self.name_in(NameTable::Names, at, s)?;
        self.cache_name(at, s, n, false);
        Ok(n)
    }

    /// [`Self::name`] of a spelling longer than 8 bytes: cached up to 16.
    fn mid_name(&mut self, at: &[u8], s: &[u8]) -> Result<Name, Err<PErr>> {
        if let Some(v) = self.mid_names.get(s, at) {
            return Ok(Name::from_index(v as usize - 1));
        }
        let n = self.name_in(NameTable::Names, at, s)?;
        if let Ok(v) = u32::try_from(n.index() + 1) {
            self.mid_names.put_at(s, at, v);
        }
        Ok(n)
    }

    /// Remembers `n` as the name spelled `s` (read at `at`), `plain` as in [`PLAIN`].
    #[inline]
    pub(crate) fn cache_name(&mut self, at: &[u8], s: &[u8], n: Name, plain: bool) {
        if let Ok(v) = u32::try_from(n.index() + 1) {
            if v < PLAIN {
                self.short_names
                    .put_at(s, at, if plain { v | PLAIN } else { v });
            }
        }
    }

    /// Interns `s` into one of the reader's tables.
    #[inline]
    pub(crate) fn name_in(&mut self, t: NameTable, at: &[u8], s: &[u8]) -> Result<Name, Err<PErr>> {
        let table = match t {
            NameTable::Names => &mut self.names,
            NameTable::Words => &mut self.words.names,
        };
        // A spelling inside the text is already UTF-8: slicing the text (which checks only
        // its two ends) spares the new name a second validation, 3% of NCCL's time.
        if let Some(spelling) = source_str(self.src, at, s) {
            return Ok(table.intern(spelling));
        }
        table
            .intern_bytes(s)
            .map_err(|_| Err::Failure(PErr::at(at, "identifier is not valid UTF-8")))
    }

    /// An identifier, interned.
    pub(crate) fn ident_name<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Name> {
        let (r, s) = ident(i).map_err(|_| Err::Failure(PErr::at(i, "expected a name")))?;
        Ok((r, self.name(i, s)?))
    }

    /// The module's items after its header `h`, read from `i`.
    fn module<'a>(&mut self, i: &'a [u8], h: Header) -> PResult<'a, Module> {
        let mut items = Vec::new();
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            if r.is_empty() {
                break;
            }
            let (rest, item) = self.item(r)?;
            items.push(item);
            if let Some(s) = &mut self.spans {
                let stmts = std::mem::take(&mut s.current);
                s.items.push(stmts);
                s.starts.push((s.src_len - r.len()) as u32);
            }
            let r = rest;
            i = r;
        }
        let mut names = std::mem::take(&mut self.names);
        names.shrink_to_fit();
        Ok((i, h.module(names, items)))
    }
}

/// A module's header: `.version`, `.target` and `.address_size`.
struct Header {
    version: Version,
    target: Vec<Target>,
    address_size: Option<u32>,
}

impl Header {
    fn module(self, names: Interner, items: Vec<Item>) -> Module {
        Module {
            names,
            version: self.version,
            target: self.target,
            address_size: self.address_size,
            items,
        }
    }
}

/// The header at the start of a module's text.
fn header(i: &[u8]) -> PResult<'_, Header> {
    let (i, ()) = ws(i)?;
    let (i, version) = version(i)?;
    let (i, ()) = ws(i)?;
    let (i, target) = target(i)?;
    let (i, ()) = ws(i)?;
    let (i, address_size) =
        if i.starts_with(b".address_size") && !i.get(13).is_some_and(|&b| lex::is_ident_char(b)) {
            let (i, ()) = ws(&i[13..])?;
            let at = i;
            let (i, n) = lex::uint_u32(i)?;
            if n != 32 && n != 64 {
                return fail(at, "`.address_size` must be 32 or 64");
            }
            (i, Some(n))
        } else {
            (i, None)
        };
    Ok((
        i,
        Header {
            version,
            target,
            address_size,
        },
    ))
}

fn version(i: &[u8]) -> PResult<'_, Version> {
    let (r, d) = directive(i).map_err(|_| {
        Err::Failure(PErr::at(
            i,
            "expected `.version` at the start of the module",
        ))
    })?;
    if d != b"version" {
        return fail(i, "expected `.version` at the start of the module");
    }
    let (r, ()) = ws(r)?;
    let at = r;
    let n = r
        .iter()
        .position(|&b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(r.len());
    // `major.minor`, each one to three digits, read from the bytes (as `u8`s).
    let text = &r[..n];
    let parsed = text.iter().position(|&b| b == b'.').and_then(|dot| {
        let (a, b) = (&text[..dot], &text[dot + 1..]);
        let num = |s: &[u8]| -> Option<u8> {
            if s.is_empty() || s.len() > 3 || !s.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let v = s.iter().fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
            u8::try_from(v).ok()
        };
        Some(Version {
            major: num(a)?,
            minor: num(b)?,
        })
    });
    match parsed {
        Some(v) => Ok((&r[n..], v)),
        None => fail(at, "expected a version `major.minor`"),
    }
}

fn target(i: &[u8]) -> PResult<'_, Vec<Target>> {
    let (r, d) = directive(i).map_err(|_| Err::Failure(PErr::at(i, "expected `.target`")))?;
    if d != b"target" {
        return fail(i, "expected `.target` after `.version`");
    }
    let mut out = Vec::new();
    let mut r = r;
    loop {
        let (x, ()) = ws(r)?;
        let at = x;
        let (x, word) =
            ident(x).map_err(|_| Err::Failure(PErr::at(x, "expected a target name")))?;
        let t = Target::parse_bytes(word);
        match t {
            Some(t) => out.push(t),
            None => {
                return fail(
                    at,
                    "unknown target (expected sm_XX{a,f}, texmode_*, debug or map_f64_to_f32)",
                )
            }
        }
        let (x2, ()) = ws_inline(x);
        if x2.first() == Some(&b',') {
            r = &x2[1..];
        } else {
            return Ok((x, out));
        }
    }
}

impl Reader<'_> {
    fn item<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Item> {
        let start = i;
        let (r, d) = directive(i)
            .map_err(|_| Err::Failure(PErr::at(i, "expected a directive at module scope")))?;
        let linkage = match d {
            b"extern" => Some(Linkage::Extern),
            b"visible" => Some(Linkage::Visible),
            b"weak" => Some(Linkage::Weak),
            b"common" => Some(Linkage::Common),
            _ => None,
        };
        let (after_linkage, r, d) = if linkage.is_some() {
            let (r, ()) = ws(r)?;
            let at = r;
            let (r2, d2) = directive(r).map_err(|_| {
                Err::Failure(PErr::at(
                    at,
                    "expected `.entry`, `.func` or a variable after the linkage",
                ))
            })?;
            (at, r2, d2)
        } else {
            (start, r, d)
        };
        match d {
            b"entry" | b"func" => {
                let (r, f) = self.function(r, linkage, d == b"entry")?;
                Ok((r, Item::Function(Box::new(f))))
            }
            b"global" | b"const" | b"shared" | b"local" | b"tex" | b"param" => {
                let (r, v) = self.var_decl(after_linkage, linkage, true)?;
                Ok((r, Item::Variable(Box::new(v))))
            }
            _ if linkage.is_some() => fail(
                after_linkage,
                "expected `.entry`, `.func` or a variable after the linkage",
            ),
            b"file" => self.file_decl(r),
            b"section" => self.section(r),
            b"pragma" => {
                let (r, s) = self.pragma(r)?;
                Ok((r, Item::Pragma(s)))
            }
            b"alias" => {
                let (r, ()) = ws(r)?;
                let (r, alias) = self.ident_name(r)?;
                let (r, ()) = ws(r)?;
                let (r, ()) = expect(r, b',', "expected `,` in `.alias`")?;
                let (r, ()) = ws(r)?;
                let (r, aliasee) = self.ident_name(r)?;
                let (r, ()) = ws(r)?;
                let (r, ()) = expect(r, b';', "expected `;` after `.alias`")?;
                Ok((r, Item::Alias { alias, aliasee }))
            }
            b"version" | b"target" | b"address_size" => {
                fail(start, "module header directive out of place")
            }
            _ => fail(
                start,
                format!(
                    "unknown module-level directive `.{}`",
                    String::from_utf8_lossy(d)
                ),
            ),
        }
    }

    /// `"..." ;` after `.pragma`.
    pub(crate) fn pragma<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Box<str>> {
        let (r, ()) = ws(i)?;
        let (r, s) = string(r)?;
        let (r, ()) = ws(r)?;
        let (r, ()) = expect(r, b';', "expected `;` after `.pragma`")?;
        Ok((r, s.into()))
    }

    fn file_decl<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Item> {
        let (r, ()) = ws(i)?;
        let (r, index) = lex::uint_u32(r)?;
        let (r, ()) = ws(r)?;
        let (r, path) = string(r)?;
        let (x, ()) = ws_inline(r);
        let (r, meta) = if x.first() == Some(&b',') {
            let (r, ()) = ws(&x[1..])?;
            let (r, ts) = lex::uint_u64(r)?;
            let (r, ()) = ws(r)?;
            let (r, ()) = expect(r, b',', "expected `, size` after the timestamp")?;
            let (r, ()) = ws(r)?;
            let (r, size) = lex::uint_u64(r)?;
            (r, Some((ts, size)))
        } else {
            (r, None)
        };
        Ok((
            r,
            Item::File(Box::new(FileDecl {
                index,
                path: path.into(),
                meta,
            })),
        ))
    }

    fn section<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Item> {
        let (r, ()) = ws(i)?;
        let at = r;
        let (r, ()) = expect(r, b'.', "expected a section name")?;
        let (r, w) =
            qual_word(r).map_err(|_| Err::Failure(PErr::at(at, "expected a section name")))?;
        let name = format!(".{}", String::from_utf8_lossy(w));
        let (r, ()) = ws(r)?;
        let (mut r, ()) = expect(r, b'{', "expected `{` after the section name")?;
        let mut entries = ptx_ir_core::SectionBuilder::new();
        let mut bytes = smallvec::SmallVec::new();
        loop {
            let (x, ()) = ws(r)?;
            match x.first() {
                Some(b'}') => {
                    r = &x[1..];
                    break;
                }
                Some(b'.') => {
                    if let Some(x2) = byte_lines(x, &mut entries, &mut bytes) {
                        r = x2;
                        continue;
                    }
                    let (x2, d) = directive(x)?;
                    let ty =
                        match d {
                            b"b8" => Type::B8,
                            b"b16" => Type::B16,
                            b"b32" => Type::B32,
                            b"b64" => Type::B64,
                            _ => return fail(
                                x,
                                "expected `.b8`, `.b16`, `.b32`, `.b64` or a label in a section",
                            ),
                        };
                    let (x2, e) = self.section_data(x2, ty)?;
                    entries.push(e);
                    r = x2;
                }
                Some(_) => {
                    let (x2, name) = self.ident_name(x)?;
                    let (x2, ()) = ws(x2)?;
                    let (x2, ()) = expect(x2, b':', "expected `:` after a section label")?;
                    entries.push(SectionEntry::Label(name));
                    r = x2;
                }
                None => return fail(x, "unterminated section"),
            }
        }
        Ok((
            r,
            Item::Section(Box::new(Section {
                name: name.into(),
                entries: entries.finish(),
            })),
        ))
    }

    fn section_data<'a>(&mut self, i: &'a [u8], ty: Type) -> PResult<'a, SectionEntry> {
        if ty == Type::B8 {
            let mut b = smallvec::SmallVec::new();
            if let Some(r) = byte_line(i, &mut b) {
                return Ok((r, SectionEntry::Bytes(ptx_ir_core::ByteLine::new(&b))));
            }
        }
        if let Some((r, value)) = self.plain_value(i)? {
            return Ok((r, SectionEntry::Value { ty, value }));
        }
        // Usually one value (`.b32 label`, `.b64 sym+8`): gathered on the stack, so that the
        // entry takes one allocation of its exact size.
        let mut values: smallvec::SmallVec<[_; 2]> = smallvec::SmallVec::new();
        let mut r = i;
        loop {
            let (x, ()) = ws_inline(r);
            let (x, e) = self.expr(x, true)?;
            values.push(e);
            let (x2, ()) = ws_inline(x);
            if x2.first() == Some(&b',') {
                r = &x2[1..];
                // Values may continue on the next line after a trailing comma.
                let (y, ()) = ws(r)?;
                r = y;
            } else {
                r = x;
                break;
            }
        }
        Ok((r, SectionEntry::data(ty, exact_vec(values))))
    }
}

impl Reader<'_> {
    /// The common data line of a debug section after its type, one name or decimal number
    /// that ends the line (`.b32 .debug_abbrev`, `.b64 $L__func_begin0`, `.b64 0`), read as the
    /// expression reader reads it; `None` for anything else (which it then reads).
    fn plain_value<'a>(
        &mut self,
        i: &'a [u8],
    ) -> Result<Option<(&'a [u8], ptx_ir_core::DataValue)>, Err<PErr>> {
        use ptx_ir_core::DataValue;
        if general_only() {
            return Ok(None);
        }
        let x = match i {
            [b' ' | b'\t', x @ ..] => x,
            _ => return Ok(None),
        };
        // The value's length: a name, a dotted section name, or decimal digits.
        let n = match x.first() {
            Some(b'.') => qual_word(&x[1..]).map_or(0, |(_, w)| 1 + w.len()),
            Some(&b) if lex::is_ident_start(b) && b != b'%' => ident(x).map_or(0, |(_, w)| w.len()),
            Some(b'0') => 1,
            Some(b'1'..=b'9') => x.iter().take_while(|b| b.is_ascii_digit()).count(),
            _ => 0,
        };
        if n == 0 || x.get(n) != Some(&b'\n') {
            return Ok(None);
        }
        let (w, rest) = x.split_at(n);
        let e = match w[0] {
            b'0'..=b'9' => match lex::number(w) {
                Ok((_, lex::Number::Int(v))) if n <= 18 => DataValue::Int(v),
                _ => return Ok(None),
            },
            // `generic(...)` is read by the expression reader.
            _ if w == b"generic" => return Ok(None),
            _ => DataValue::Sym(self.name(x, w)?),
        };
        Ok(Some((rest, e)))
    }
}

/// A run of plain `.b8` lines (`.b8 95`, `.b8 1,2,3`), the bulk of a debug section, each
/// pushed as a [`SectionEntry::Bytes`]. nvcc writes most debug sections one byte per line, so
/// that the general path (directive word, value reader) took most of their reading time.
/// Returns the text from the newline of the last line read, or `None` where the first line is
/// not plain (the general path reads it, and reports any error).
fn byte_lines<'a>(
    mut i: &'a [u8],
    entries: &mut ptx_ir_core::SectionBuilder,
    buf: &mut smallvec::SmallVec<[u8; 64]>,
) -> Option<&'a [u8]> {
    let mut read = None;
    loop {
        let r = match i {
            [b'.', b'b', b'8', b' ' | b'\t', r @ ..] => r,
            _ => return read,
        };
        let one = lex::plain_byte(r).and_then(|(v, k)| match r.get(k) {
            Some(b'\n') => Some((v, &r[k..])),
            Some(b' ' | b'\t') => lex::line_end(&r[k..]).map(|rest| (v, rest)),
            _ => None,
        });
        let rest = match one {
            Some((v, rest)) => {
                entries.push_byte(v);
                rest
            }
            None => match byte_line(r, buf) {
                Some(rest) => {
                    entries.push_bytes(buf);
                    rest
                }
                None => return read,
            },
        };
        read = Some(rest);
        let indent = rest[1..]
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(rest.len() - 1);
        i = &rest[1 + indent..];
    }
}

/// The common `.b8` line of a debug section, `108,103,101` up to its newline: plain decimal
/// bytes read without building an expression per value. `None` for anything else (another
/// separator, an expression, a comment, a value above 255), which the expression reader then
/// reads from the start of the line.
fn byte_line<'a>(i: &'a [u8], out: &mut smallvec::SmallVec<[u8; 64]>) -> Option<&'a [u8]> {
    // The bytes go to the caller's buffer: returned with the rest, the buffer was copied
    // through the stack once per line (a tenth of the time of nvcc's debug sections).
    out.clear();
    let (mut r, ()) = ws_inline(i);
    loop {
        let (v, k) = lex::plain_byte(r)?;
        out.push(v);
        match r.get(k) {
            Some(b',') => {
                r = &r[k + 1..];
                if !r.first().is_some_and(u8::is_ascii_digit) {
                    // Values may continue on the next line after a trailing comma.
                    r = ws(r).ok()?.0;
                }
            }
            Some(b'\n') => return Some(&r[k..]),
            // Trailing spaces and a `//` comment (LLVM's debug sections).
            _ => return lex::line_end(&r[k..]),
        }
    }
}

/// The items of `s` in a `Vec` of exactly their number: `SmallVec::into_vec` (through
/// `collect`) would allocate room for four and shrink it again, two allocations for one.
pub(crate) fn exact_vec<T, const N: usize>(s: smallvec::SmallVec<[T; N]>) -> Vec<T> {
    if s.spilled() {
        let mut v = s.into_vec();
        v.shrink_to_fit();
        return v;
    }
    let mut v = Vec::with_capacity(s.len());
    v.extend(s);
    v
}

/// Skips spaces and tabs only (not newlines): for directives whose extent is one line.
pub(crate) fn ws_inline(i: &[u8]) -> (&[u8], ()) {
    let n = i
        .iter()
        .position(|&b| b != b' ' && b != b'\t' && b != b'\r')
        .unwrap_or(i.len());
    let i = &i[n..];
    // A block comment inside a line counts as space (up to a byte that is not text in it).
    if i.starts_with(b"/*") {
        if let Some(n) = lex::block_comment_len(i) {
            if i[..n].ends_with(b"*/") && n >= 4 {
                return ws_inline(&i[n..]);
            }
            return (&i[n..], ());
        }
    }
    (i, ())
}

#[cfg(test)]
mod tests {
    use super::byte_line;

    /// A module read after others on the same thread (reusing their caches and body builder)
    /// and after the scratch was released reads as it did first.
    #[test]
    fn scratch_reuse_reads_the_same() {
        let module = |regs: &str, k: u32| {
            let mut s = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
            s += &format!(".visible .entry k{k}()\n{{\n.reg .b32 %{regs}<200>;\n");
            for i in 0..199 {
                s += &format!("add.s32 %{regs}{}, %{regs}{i}, {k};\n", i + 1);
            }
            s + "ret;\n}\n"
        };
        let (a, b) = (module("r", 1), module("q", 2));
        // The same names first seen in the opposite order: a cache entry left from `a` would
        // give them `a`'s numbers.
        let mut lines: Vec<&str> = a.lines().collect();
        lines[6..205].reverse();
        let reversed = lines.join("\n");
        crate::release_thread_scratch();
        let fresh = crate::parse(&reversed).unwrap();
        let first = crate::parse(&a).unwrap();
        let other = crate::parse(&b).unwrap();
        assert_eq!(crate::parse(&a).unwrap(), first);
        assert_eq!(crate::parse(&reversed).unwrap(), fresh);
        assert_eq!(crate::parse(&b).unwrap(), other);
        crate::release_thread_scratch();
        assert_eq!(crate::parse(&a).unwrap(), first);
        assert_ne!(first, other);
        assert_ne!(first, fresh);
    }

    /// Body declarations and operands the fast paths read (plain declarations, names without
    /// `%` as operands) read as the general paths read them, errors included, as do the near
    /// misses that they hand over.
    #[test]
    fn fast_paths_read_as_the_general_paths() {
        let decls = [
            ".reg .b32 %r<9>;",
            ".reg .b32 %r<0>;",
            ".reg .b32 %r<010>;",
            ".reg .b32 %r< 9 >;",
            ".reg .b32 %r<999999999>;",
            ".reg .b32 %r<4294967295>;",
            ".reg .b32 %r<4294967296>;",
            ".reg .b32 %r<>;",
            ".reg .b32 %r<9;",
            ".reg .v2 .f32 v;",
            ".reg .v4 .b32 v<4>;",
            ".reg .b32 .v2 v;",
            ".reg .v2 .v2 .b32 v;",
            ".reg .v2 v;",
            ".reg .pred p;",
            ".reg .pred\tp ;",
            ".reg\t.b64\t%rd<12>;",
            ".reg /* c */ .b32 c1 /* d */ ;",
            ".reg .b32 c2 // e\n;",
            ".reg .f16 low,high;",
            ".reg .f16 low , high ;",
            ".reg .f16 a ,b;",
            ".reg .f16 a,\tb\t;",
            ".reg .f16 a, b, c, d, e, f;",
            ".reg .f16 a, b[2];",
            ".reg .f16 a, b<3>;",
            ".reg .f16 a<2>, b;",
            ".reg .f16 a, b = 1;",
            ".reg .f16 a, /* c */ b;",
            ".reg .f16 a /* c */, b;",
            ".reg .f16 a\n, b;",
            ".reg .f16 a, b /* c */;",
            ".reg .f16 a, b\n;",
            ".reg .f16 a, b c;",
            ".reg .f16 a, b,;",
            ".reg .f16 a,\nb;",
            ".reg .f16 a,;",
            ".reg .f16 a, 7;",
            ".reg .f16 a, b",
            ".reg .v2 .f16 a, b;",
            ".local .align 4 .f16 a, b;",
            ".reg .b32 a, b, c<4>;",
            ".reg .b32 a[2], b;",
            ".reg .b32 x = 5;",
            ".reg .b32 y[2] = {1, 2};",
            ".reg .b32 %r<5>, %q<3>;",
            ".reg .b32 %r<5>",
            ".reg .b32 ;",
            ".reg .b32 7x;",
            ".reg .q32 x;",
            ".reg .align 4 .b32 x;",
            ".reg .b32 .align 4 x;",
            ".local .align 8 .b8 d[16];",
            ".local .align 8 .b8 \\t__local_depot0[16];",
            ".param .align 2 .b8 param0[2];",
            ".local .b8 d[16];",
            ".local .align 8 .b8 d[0];",
            ".local .align 8 .b8 d[016];",
            ".local .align 8 .b8 d[0x10];",
            ".local .align 8 .b8 d[999999999];",
            ".local .align 8 .b8 d[4294967295];",
            ".local .align 8 .b8 d[4294967296];",
            ".local .align 8 .b8 d[];",
            ".local .align 8 .b8 d[16] = {1, 2};",
            ".local .align 8 .b8 d[16], e[2];",
            ".local .align 8 .b8 d[16][2];",
            ".local .align 8 .b8 d [16];",
            ".local .align 8 .b8 d[ 16 ];",
            ".local .align 8 .b8 d[16] ;",
            ".local .align 8 .b8 d[16]",
            ".local .align 8 .v2 .b32 d[4];",
            ".reg .b32 %r<4>[2];",
            ".reg .b32 d[2]<4>;",
            ".local .align 3 .b8 d[16];",
            ".local .align 0 .b8 d;",
            ".local .align 08 .b8 d;",
            ".local .align 1234567890 .b8 d;",
            ".local .align\t8 .b8 d;",
            ".local .align 8 .align 8 .b8 d;",
            ".local .align 4 .v2 .f32 x;",
            ".local .align 8 .b8 d;",
            ".shared .align 16 .b8 s[];",
            ".shared .b32 s2;",
            ".param .b64 p;",
            ".param .align 8 .b8 pa[16];",
            ".param .b32 .ptr q;",
            ".const .b32 c = 1;",
            ".global .b32 g;",
            ".tex .u64 t;",
            ".reg .attribute(.managed) .b32 m;",
        ];
        let insts = [
            "bra $L1;",
            "@%p1 bra LBL;",
            "bra.uni LBL ;",
            "mov.u64 %rd1, sym;",
            "mov.u64 %rd1, sym+4;",
            "mov.u64 %rd1, sym +4;",
            "mov.u64 %rd1, sym-4;",
            "mov.b32 {low,high}, %r1;",
            "mov.b32 {low, high}, %r1;",
            "mov.b32 {low,%r2}, %r1;",
            "mov.b32 {_, high}, %r1;",
            "mov.b32 {low,_}, %r1;",
            "mov.b32 {low,high,}, %r1;",
            "mov.b32 {low.x,high}, %r1;",
            "mov.b32 {low,high} , %r1;",
            "mov.u32 %r1, WARP_SZ;",
            "mov.u32 %r1, WARP_SZ_;",
            "mov.u32 %r1, _;",
            "mov.u32 %r1, _x;",
            "mov.u32 %r1, low|high;",
            "mov.u32 %r1, low.x;",
            "mov.u32 %r1, cache-policy;",
            "ld.param.u32 %r1, [sym];",
            "cvt.f32.f16 %f1, low;",
            "mov.u32 low, high;",
            "mov.u32 low, high",
            "mov.u32 low high;",
            "mov.u32 low,, high;",
            "call (r), f, (a, b);",
            "call f, (a);",
            "call.uni (r), f, (a,b);",
            "call (r), f, ();",
            "call (r), f, (a, %r1);",
            "call (r), f, (a, 1);",
            "call (r), f, (a) ;",
            "call (r), f, (a)x;",
            "call (r), f, ( a );",
            "call (r,r), f, (a);",
            "call (_), f, (a);",
            "call (r), f, (a, b, a, b, a, b, a, b, a, b);",
            "mov.b32 {low, high)}, %r1;",
            "mov.b32 {low, high), %r1;",
            "ld.v2.u32 {%r1, %r2}, [%rd1];",
            "ld.v2.u32 [%rd1], {%r1, %r2)};",
            "setp.eq.s32 p|q, %r1, %r2;",
            "mov.u32 %r1, undeclared_name;",
            "ld.param.u32 %r1, [p];",
            "st.param.b32 [p+4], %r1;",
            "ld.u32 %r1, [sym + 4];",
            "ld.u32 %r1, [sym-4];",
            "ld.u32 %r1, [sym+0x10];",
            "ld.u32 %r1, [sym+-4];",
            "ld.u32 %r1, [sym+4+4];",
            "ld.u32 %r1, [undeclared];",
            "ld.u32 %r1, [%rd1+8];",
            "ld.u32 %r1, [%rd1+8] ;",
            "ld.u32 %r1, [%rd1];",
            "ld.u32 %r1, [%rd1+9223372036854775807];",
            "ld.u32 %r1, [%rd1+9223372036854775808];",
            "ld.u32 %r1, [8];",
            "ld.u32 %r1, [p, 8];",
            "mov.u32 %r1, 0x10;",
            "mov.u32 %r1, 010;",
            "mov.u32 %r1, 4294967296;",
            "mov.u64 %rd1, 18446744073709551615;",
            "mov.u64 %rd1, 18446744073709551616;",
            "mov.f32 %f1, 0f3F800000;",
            "mov.f64 %rd1, 0d3FF0000000000000;",
            "mov.f32 %f1, 1.5;",
            "mov.u32 %r1, 1 ;",
            "mov.b64 %rd1, {%r1,%r2};",
            "mov.b64 %rd1, {%r1, %r2};",
            "mov.b64 %rd1, { %r1, %r2 };",
            "mov.b64 {%r1,%r2}, %rd1;",
            "mov.u32 %r1,%r2;",
            "mov.u32 %r1, %r2 ;",
            "mov.u32 %r2, %r2; mov.u32 %r1, %r2\0;",
            "mov.u32 %r2, %r2; mov.u32 %r1, %r2\0,%r3;",
            "mov.u32 %r2, %r2; mov.u32 %r1, %r2 \0;",
            "mov.u32 %r2, %r2; mov.u32 %r1, %r2;\0",
            "mov.u32 %r2, %r2; mov.u32 %r1, %r2,;",
            "mov.u32 %r1, %r2%r3;",
            "mov.u32 %r1, %r2.x;",
            "mov.u32 %r1, %;",
            "mov.u32 %r1, %r12345;",
            "mov.u32 %r1, %r123456;",
            "mov.u32 %r1, %r1234567;",
            "mov.u32 %r1, %tid.x;",
            "mov.u32 %r1, %laneid;",
            "mov.u32 %r1, %laneid,",
            "%a%b: mov.u32 %r1, %a%b;",
            "%a%b: mov.u32 %r1, %a;",
            "%a: mov.u32 %r1, %a;",
            "add.s32 %r1, %r2, %r3; add.s32 %r3, %r2, %r1; add.s32 %r1,%r1,%r1;",
        ];
        let module = |body: &str| {
            format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.global .b32 sym;\n\
                 .func f(.param .b32 a, .param .b32 b) {{ ret; }}\n\
                 .visible .entry k(.param .b32 p)\n{{\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n\
                 .reg .f32 %f<9>;\n.reg .pred %p<3>;\n{{ .reg .f16 low, high;\n\
                 .param .b32 r; .param .b32 a; .param .b32 b;\n\
                 $L1:\nLBL:\n{body}\n}}\nret;\n}}\n"
            )
        };
        let read = |src: &str, general: bool| {
            let read = || crate::parse(src).map_err(|e| e.to_string());
            if general {
                super::with_general_paths(read)
            } else {
                read()
            }
        };
        let data = [
            ".b32 .debug_abbrev",
            ".b64 $L1",
            ".b64 0",
            ".b64 7",
            ".b64 010",
            ".b64 123456789012345678",
            ".b64 1234567890123456789",
            ".b64 99999999999999999999",
            ".b32 sym+4",
            ".b32 sym +4",
            ".b32 sym // c",
            ".b32 sym ",
            ".b32 sym\r",
            ".b32 generic",
            ".b32 generic(sym)",
            ".b32 .",
            ".b32 %r1",
            ".b32 a, b",
            ".b32\tsym",
            ".b32  sym",
            ".b32 _",
            ".b8 1",
            ".b8 sym",
            ".b16 -1",
            ".b64 0x10",
            ".b64 1.5",
            ".b32 .debug_abbrev+8",
            ".b32 .debug.x",
        ];
        let section = |line: &str| {
            format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.global .b32 sym;\n\
                 .section .debug_info\n{{\n$L1:\n{line}\n.b8 0\n}}\n"
            )
        };
        for line in data {
            let src = section(line);
            assert_eq!(read(&src, false), read(&src, true), "{line:?}");
        }
        // Modules of their header alone, read without a reader.
        for src in [
            ".version 8.0\n.target sm_90\n.address_size 64\n",
            "\n\n.version 9.0\n.target sm_121\n.address_size 64\n\n\n",
            ".version 8.0 .target sm_90a, debug // c\n/* d */",
            ".version 8.0\n.target sm_90\n",
            ".version 8.0\n.target sm_90\n.address_size 32",
            ".version 8.0\n.target sm_90\n.address_size 16\n",
            ".version 8.0\n.target sm_90\n.address_size 64\n/* open",
            ".version 8.0\n.target sm_90\n.address_size 64\nx",
            ".version 8.0\n",
            "",
        ] {
            assert_eq!(read(src, false), read(src, true), "{src:?}");
            let spans = super::parse_module_spans(src, "<input>", true).map_err(|e| e.to_string());
            assert_eq!(spans.map(|(m, _)| m), read(src, true), "{src:?} with spans");
        }
        let params = [
            ".param .b64 p",
            ".param .b64 p, .param .b32 q",
            ".param .b64 p,\n\t.param .b32 q\n",
            ".param .align 8 .b8 p[16]",
            ".param .align 8 .b8 p[16], .param .align 4 .b8 q[]",
            ".param .align 8 .b8 p[0]",
            ".param .align 8 .b8 p[016]",
            ".param .align 8 .b8 p[0x10]",
            ".param .align 8 .b8 p[2][3]",
            ".param .align 8 .b8 p [16]",
            ".param .align 8 .b8 p[ 16 ]",
            ".param .align 8 .b8 p[16",
            ".param .align 8 .b8 p[1234567890123456789]",
            ".param .align 8 .b8 p[123456789012345678]",
            ".param .align 3 .b8 p[4]",
            ".param .align 0 .b8 p[4]",
            ".param .align 08 .b8 p[4]",
            ".param .align 1234567890 .b8 p[4]",
            ".param .align\t8 .b8 p[4]",
            ".param .align 8 .align 8 .b8 p[4]",
            ".param .b64 .ptr .align 8 p",
            ".param .u64 .ptr .global .align 16 p",
            ".param .v2 .f32 p",
            ".param\t.b64 p",
            ".param .b64\tp",
            ".param .b64  p",
            ".param .b64 p = 1",
            ".param .b64 p\n= 1",
            ".param .b64 p<2>",
            ".param .b64 p /* c */",
            ".param .b64 p /* c",
            ".param .b64 7p",
            ".param .q64 p",
            ".param .b64",
            ".param .b64 p q",
            ".param .b64 p,",
            ".reg .b32 p",
            ".local .b32 p",
            ".param .b64 %p",
            ".param .b64 p, .param .b64 p",
        ];
        for list in params {
            let list = list.replace("\\t", "\t").replace("\\n", "\n");
            for src in [
                format!(".version 8.0\n.target sm_90\n.address_size 64\n.func f({list})\n{{\nret;\n}}\n"),
                format!(".version 8.0\n.target sm_90\n.address_size 64\n.func ({list}) g()\n;\n"),
            ] {
                assert_eq!(read(&src, false), read(&src, true), "{src:?}");
            }
        }
        let mut read_ok = 0;
        for text in decls.iter().chain(&insts) {
            let text = text.replace("\\t", "\t").replace("\\n", "\n");
            let src = module(&text);
            let general = read(&src, true);
            read_ok += usize::from(general.is_ok());
            assert_eq!(read(&src, false), general, "{text:?}");
            // And as a thread's first module.
            crate::release_thread_scratch();
            assert_eq!(read(&src, false), general, "{text:?} first");
        }
        // Both kinds are covered: statements read and statements refused.
        assert!(
            read_ok > 40 && read_ok < decls.len() + insts.len() - 15,
            "{read_ok}"
        );
    }

    /// Instruction words resolved while reading one module and kept for the next (with the
    /// operand shapes they last fitted), past the table's limit, and after a module that
    /// failed on an unknown word: every module reads as on a fresh thread.
    #[test]
    fn words_kept_between_modules() {
        let module = |words: &[&str]| {
            let mut s = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
            s += ".visible .entry k()\n{\n.reg .b32 %r<9>;\n.reg .pred %p<3>;\n";
            for w in words {
                s += w;
                s += "\n";
            }
            s + "ret;\n}\n"
        };
        let a = module(&[
            "add.s32 %r1, %r2, 1;",
            "add.s32 %r1, %r2, %r3;",
            "mov.u32 %r4, %tid.x;",
            "setp.lt.u32 %p1, %r4, 5;",
        ]);
        // The same words with other operand shapes, and new words past the table's limit.
        let b = module(&[
            "mov.u32 %r4, 7;",
            "add.s32 %r1, 1, %r2;",
            "sub.s32 %r1, %r2, %r3;",
            "mul.lo.s32 %r1, %r2, %r3;",
            "mad.lo.s32 %r1, %r2, %r3, %r4;",
            "and.b32 %r1, %r2, %r3;",
            "or.b32 %r1, %r2, %r3;",
            "xor.b32 %r1, %r2, %r3;",
            "shl.b32 %r1, %r2, 3;",
            "shr.u32 %r1, %r2, 3;",
            "min.s32 %r1, %r2, %r3;",
            "max.s32 %r1, %r2, %r3;",
            "neg.s32 %r1, %r2;",
        ]);
        let bad = module(&["add.s32 %r1, %r2, 1;", "frobnicate.s32 %r1;"]);
        let fresh = |s: &str| {
            let s = s.to_string();
            std::thread::spawn(move || crate::parse(&s)).join().unwrap()
        };
        crate::release_thread_scratch();
        for src in [&a, &b, &a, &bad, &b, &a, &a] {
            match (crate::parse(src), fresh(src)) {
                (Ok(m), Ok(f)) => assert_eq!(m, f),
                (Err(e), Err(f)) => assert_eq!(e.to_string(), f.to_string()),
                (x, y) => panic!("{x:?} against {y:?}"),
            }
        }
        assert!(crate::parse(&bad).is_err());
        // `b` alone has more words than a thread keeps.
        let kept = || {
            super::SPARE.with(|s| {
                let spare = s.take();
                let n = spare
                    .as_ref()
                    .map(|s| s.words.as_ref().map(|w| w.info.len()));
                s.set(spare);
                n
            })
        };
        crate::parse(&a).unwrap();
        assert_eq!(kept(), Some(Some(4)));
        crate::parse(&b).unwrap();
        assert_eq!(kept(), Some(None));
        // One word of many bytes (a valid qualifier repeated; the instruction is refused, the
        // word stays resolved) is not kept either.
        crate::parse(&a).unwrap();
        let long = module(&[&format!("add{} %r1, %r2, 1;", ".s32".repeat(2000))]);
        assert!(crate::parse(&long).is_err());
        assert_eq!(kept(), Some(None));
        crate::parse(&a).unwrap();
        assert_eq!(kept(), Some(Some(4)));
    }

    /// Labels are told from instructions however they are spelled, and a line that is
    /// neither keeps the instruction's error.
    #[test]
    fn labels_and_instructions() {
        let body = |stmts: &str| {
            format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{{\n.reg .b32 %r<3>;\n{stmts}\n}}\n"
            )
        };
        let labels = [
            "$L__BB0_2:",
            "loop:",
            "loop :",
            "ret:",
            "ret :",
            "%lab:",
            "add_s32:",
            "L2:",
        ];
        for l in labels {
            let name = l.trim_end_matches(':').trim();
            let src = body(&format!(
                "{l}\nadd.s32 %r1, %r2, 1;\n@%r1 bra {name};\nret;"
            ));
            let m = crate::parse(&src).unwrap_or_else(|e| panic!("{l}: {e}"));
            let printed = crate::print(&m);
            assert!(printed.contains(&format!("{name}:")), "{l}: {printed}");
            assert_eq!(printed.matches("add.s32").count(), 1, "{l}");
        }
        for (line, want) in [
            ("foo %r1;", "unknown instruction `foo`"),
            ("loop::", "unknown instruction"),
            ("add.s32: %r1, %r2, 1;", "malformed qualifiers"),
            ("ret %r1:", "expected `,` or `;`"),
        ] {
            let e = crate::parse(&body(line)).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    /// Operands read on the fast paths (literals, register addresses) are those the general
    /// reader reads from the same text spelled with spaces, and their errors are its errors.
    #[test]
    fn fast_operands_read_as_the_general_reader_reads_them() {
        let module = |stmts: &[&str]| {
            let mut s = String::from(
                ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n.reg .f64 %fd<3>;\n.reg .f32 %f<3>;\n",
            );
            for l in stmts {
                s += l;
                s.push('\n');
            }
            s + "}\n"
        };
        let pairs = [
            ("mov.u32 %r1, 7;", "mov.u32 %r1, (7);"),
            ("mov.u32 %r1, 0x7fffffff;", "mov.u32 %r1, ( 0x7fffffff );"),
            (
                "mov.u64 %rd1, 18446744073709551615;",
                "mov.u64 %rd1, 18446744073709551615 ;",
            ),
            (
                "mov.u64 %rd1, 9223372036854775807;",
                "mov.u64 %rd1,9223372036854775807 ;",
            ),
            (
                "mov.f64 %fd1, 0d3FF0000000000000;",
                "mov.f64 %fd1, 0d3FF0000000000000 ;",
            ),
            ("mov.f32 %f1, 0f3F800000;", "mov.f32 %f1, 0f3F800000 ;"),
            ("mov.f32 %f1, 1.5;", "mov.f32 %f1, 1.5 ;"),
            ("ld.global.u32 %r1, [%rd1];", "ld.global.u32 %r1, [ %rd1 ];"),
            (
                "ld.global.u32 %r1, [%rd1+8];",
                "ld.global.u32 %r1, [ %rd1 + 8 ];",
            ),
            (
                "ld.global.u32 %r1, [%rd1+-8];",
                "ld.global.u32 %r1, [%rd1 + -8 ];",
            ),
            (
                "ld.global.u32 %r1, [%rd1-8];",
                "ld.global.u32 %r1, [%rd1 - 8];",
            ),
            (
                "ld.global.u32 %r1, [%rd1+(4*2)];",
                "ld.global.u32 %r1, [%rd1 + 8];",
            ),
            (
                "ld.u32 %r1, [%rd2].unified;",
                "ld.u32 %r1, [ %rd2 ].unified ;",
            ),
            (
                "st.global.u32 [%rd1+4], %r2;",
                "st.global.u32 [ %rd1+4 ], %r2;",
            ),
            (
                "st.global.u32 [%rd9+4], %r2;",
                "st.global.u32 [ %rd9+4 ], %r2;",
            ),
            ("mov.b64 {%r1, %r2}, %rd1;", "mov.b64 { %r1 , %r2 }, %rd1;"),
            ("mov.b64 {%r1,%r7}, %rd1;", "mov.b64 {%r1 ,%r7 }, %rd1;"),
            ("mov.b64 %rd2, {%r8, %r9};", "mov.b64 %rd2, { %r8, %r9 } ;"),
            (
                "ld.global.v2.u32 {%r1, _}, [%rd1];",
                "ld.global.v2.u32 { %r1, _ }, [%rd1];",
            ),
            (
                "mov.b64 {%r1, %r2}|%p1, %rd1;",
                "mov.b64 { %r1, %r2 }|%p1, %rd1;",
            ),
        ];
        let (fast, slow): (Vec<&str>, Vec<&str>) = pairs.iter().copied().unzip();
        let a = crate::parse(&module(&fast)).unwrap();
        let b = crate::parse(&module(&slow)).unwrap();
        assert_eq!(a, b);
        for (line, want) in [
            ("ld.global.u32 %r1, [%rd1+x];", "constant offset"),
            ("mov.f64 %fd1, 0d3FF00;", "16 hex digits"),
            ("ld.global.u32 %r1, [%rd1+8;", "expected `]`"),
            ("mov.b64 {%r1, %r2, %rd1;", "expected `,` or `}`"),
            ("mov.b64 {%r1, %r2} %rd1;", "expected `,` or `;`"),
        ] {
            let e = crate::parse(&module(&[line])).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    /// `.version major.minor`: one to three digits each, each at most 255.
    #[test]
    fn versions() {
        for (v, want) in [
            ("8.0", Some((8, 0))),
            ("9.0", Some((9, 0))),
            ("10.12", Some((10, 12))),
            ("255.255", Some((255, 255))),
            ("007.010", Some((7, 10))),
            ("256.0", None),
            ("1.256", None),
            ("1000.0", None),
            ("1.2.3", None),
            (".5", None),
            ("5.", None),
            ("5", None),
            ("x.y", None),
        ] {
            let src = format!(".version {v}\n.target sm_90\n.address_size 64\n");
            let got = crate::parse(&src)
                .ok()
                .map(|m| (m.version.major, m.version.minor));
            assert_eq!(got, want, "{v}");
        }
    }

    /// Runs of plain `.b8` lines and the lines around them that the run leaves to the general
    /// reader: each gives the entry the general reader gives, one-byte lines gathered into
    /// columns whichever path read them.
    #[test]
    fn byte_line_runs() {
        use ptx_ir_core::{ByteLine, Item, SectionEntry, Type};
        let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
                   .section .debug_str\n{\n$L__a:\n.b8 95\n.b8 1,2,3\n\t.b8 7\n.b8 256\n\
                   .b8 9 // c\n.b8 10\n.b8 1,\n2\n.b8 0x10\n.b8  5\n.b8 6\r\n.b8 11   // x, 12\n\
                   .b8 13,14\t// y\n.b8 15 /* z */\n.b8 4}\n";
        let m = crate::parse(src).unwrap();
        let Some(Item::Section(s)) = m.items.first() else {
            panic!("no section")
        };
        let b = |v: &[u8]| SectionEntry::Bytes(ByteLine::new(v));
        // One-byte lines, read by either path, gathered into a column per run.
        let c = |v: &[u8]| SectionEntry::ByteColumn(v.into());
        let expected = vec![
            SectionEntry::Label(m.names.find("$L__a").unwrap()),
            c(&[95]),
            b(&[1, 2, 3]),
            c(&[7]),
            SectionEntry::Value {
                ty: Type::B8,
                value: ptx_ir_core::DataValue::Int(256),
            },
            c(&[9, 10]),
            b(&[1, 2]),
            c(&[16, 5, 6, 11]),
            b(&[13, 14]),
            c(&[15, 4]),
        ];
        assert_eq!(s.entries, expected);
        // An error after a run is reported at its own line.
        let bad = ".version 8.0\n.target sm_90\n.address_size 64\n\
                   .section .debug_str\n{\n.b8 1\n.b8 2\n.b8 3 4\n}\n";
        let e = crate::parse(bad).unwrap_err();
        assert_eq!(e.line, 8, "{e}");
    }

    #[test]
    fn byte_lines() {
        let mut b = smallvec::SmallVec::new();
        let r = byte_line(b" 108,103,0,255\n.b8 1", &mut b).unwrap();
        assert_eq!(&b[..], [108, 103, 0, 255]);
        assert_eq!(r, b"\n.b8 1");
        // Values may go on after a trailing comma on the next line.
        let r = byte_line(b"1,\n\t2,3\n}", &mut b).unwrap();
        assert_eq!(&b[..], [1, 2, 3]);
        assert_eq!(r, b"\n}");
        byte_line(b"1, 2\n", &mut b).unwrap();
        assert_eq!(&b[..], [1, 2]);
        // Trailing spaces and a line comment end the line too.
        let r = byte_line(b"7 \t  // DW_TAG_x\n.b8 1", &mut b).unwrap();
        assert_eq!((&b[..], r), (&[7u8][..], &b"\n.b8 1"[..]));
        let r = byte_line(b"7, 8  \n}", &mut b).unwrap();
        assert_eq!((&b[..], r), (&[7u8, 8][..], &b"\n}"[..]));
        // Anything else is left to the expression reader.
        for s in [
            &b"256\n"[..],
            b"010\n",
            b"1+2\n",
            b"0x10\n",
            b"-1\n",
            b"1 /* c */\n",
            b"1 // c",
            b"1\r\n",
            b"1",
            b"1,\n.b8 2\n",
        ] {
            assert!(
                byte_line(s, &mut b).is_none(),
                "{}",
                String::from_utf8_lossy(s)
            );
        }
    }

    /// An address offset's sign applies to its first term only: `[a-4-4]` is `a-8`, as the
    /// offset reads without a base (`[-4-4]`) and as arithmetic reads it.
    #[test]
    fn offset_sign_binds_to_the_first_term() {
        let cases = [
            ("%rd1-4-4", -8),
            ("%rd1-1+2", 1),
            ("%rd1+1-1+2", 2),
            ("%rd1 - 2*3 + 1", -5),
            ("%rd1 - -1+2", 3),
            ("%rd1+-1+2", 1),
            ("%rd1-(1+2)", -3),
            ("%rd1 - (1+2)*2", -6),
            ("%rd1+8", 8),
            ("%rd1-8", -8),
            ("%rd1 - -8", 8),
            ("-4-4", -8),
            ("sym-4-4", -8),
        ];
        for (addr, want) in cases {
            let src = format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 sym;\n\
                 .entry k()\n{{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n\
                 ld.global.u32 %r1, [{addr}];\nmov.u64 %rd1, {addr};\nret;\n}}\n"
            );
            // A symbol with an offset is an operand outside brackets too.
            let src = if addr.starts_with("sym") {
                src
            } else {
                src.replace(&format!("mov.u64 %rd1, {addr};\n"), "")
            };
            let m = crate::parse(&src).unwrap_or_else(|e| panic!("{addr}: {e}"));
            let printed = crate::print(&m);
            let base = addr.split(['+', '-', ' ']).next().unwrap();
            let shown = match (base, want) {
                ("", w) => format!("[{w}]"),
                (b, 0) => format!("[{b}]"),
                (b, w) => format!("[{b}+{w}]"),
            };
            assert!(
                printed.contains(&shown),
                "{addr}: want {shown} in\n{printed}"
            );
        }
    }
}
