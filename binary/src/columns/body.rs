//! The bytecode form of a function body: three byte columns and a list, written from the body's
//! compact arrays ([`Body::parts`]) and read back through a [`BodyBuilder`].
//!
//! Serde's element-by-element decoding of the statement, modifier and operand arrays cost about
//! 300 ns per instruction, more than reading the PTX text. A body is instead serialized as a
//! struct of
//!
//! - `words`: the body's distinct instruction words (opcode and modifiers), in order of first
//!   use: each its opcode (`u16` little endian, its position in the instruction table), its
//!   modifier count (`u8`) and its modifiers (`u16` little endian each: its stable number,
//!   [`Modifier::code`], class in the high byte and ordinal in the low).
//! - `entries`: one record per statement entry, in pre-order, told apart by its first byte. An
//!   instruction's first byte is below `0xfc`: bit 0 guarded, bit 1 negated guard, bits 2-7 its
//!   operand count (62: the count follows as LEB128); then its word's index and, if guarded, the
//!   predicate's name (LEB128). `0xfe` is a label (its name follows), `0xfd` a `.loc` without an
//!   inlining part (file, line, column), `0xfc` a plain declaration (see [`DECL`]), `0xff` the
//!   next element of `others`.
//! - `operands`: the top-level operands of every instruction, in order, each a tag byte and its
//!   payload (the `REG`... constants); lists hold their element count and elements.
//! - `others`: the other entries (scopes, pragmas, declarations with initialisers, ...) through
//!   their ordinary serde form.
//!
//! The three columns are byte strings, which formats like bincode copy (or borrow) whole; the
//! decoder reads them in one pass. It checks every tag, ordinal, count and length and stops at
//! the first fault; names are checked against the string table when the caller gives its size
//! ([`super::with_decode_bounds`](crate::columns::with_decode_bounds)).

use super::state::{fault, Blob, Bounds, Fault as ColumnFault};
use crate::leb::{put as put_leb, put_signed};
use ptx_ir_core::body::{
    Body, BodyBuilder, BodyError, ListKind, Literal, OpenBlock, Parts, PlainDecl, PlainShape, Pool,
    Stmt, Token,
};
use ptx_ir_core::module::{Declarator, VarDecl};
use ptx_ir_core::operand::Selector;
use ptx_ir_core::{Guard, Modifier, Name, Opcode, Space, SpecialReg, Type, Vector};
use rustc_hash::FxHashMap;
use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// First byte of an `entries` record that is not an instruction, a label or a plain `.loc`:
/// the next element of `others`.
const OTHER: u8 = 0xff;
/// First byte of the `entries` record of a label, followed by its name (LEB128).
const LABEL: u8 = 0xfe;
/// First byte of the `entries` record of a `.loc` without an inlining part, followed by its
/// file, line and column (LEB128).
const LOC: u8 = 0xfd;
/// First byte of the `entries` record of a plain declaration (one name, no linkage,
/// attributes, array dimensions or initialiser: `.reg .b32 %r<9>;`, `.param .b64 p;`): a flags
/// byte (bit 0: `.align`, bit 1: a vector width, bit 2: a register range), the space's and the
/// type's ordinals (`u8`), then the alignment, the vector width's ordinal, the name and the
/// range (LEB128) where present.
const DECL: u8 = 0xfc;
/// First bytes from here on are not instructions.
const MARKERS: u8 = 0xfc;
/// Operand count field of an instruction's first byte (bits 2-7) meaning "the count follows
/// as LEB128"; smaller values are the count.
const MANY_OPERANDS: u8 = 62;
const _: () = assert!((MANY_OPERANDS << 2 | 3) < MARKERS);
/// Modifiers a body's instructions may take, per byte of its `entries` column, beyond the
/// modifiers its words spell out once: bounds the memory a small column can claim through a
/// word reused many times (every instruction record takes at least two bytes, so this allows 32
/// modifiers per instruction on average; real instructions have at most about a dozen).
const MODS_PER_ENTRY_BYTE: usize = 16;

#[derive(Serialize, Deserialize)]
struct Columns<'a> {
    #[serde(borrow)]
    words: Blob<'a>,
    #[serde(borrow)]
    entries: Blob<'a>,
    #[serde(borrow)]
    operands: Blob<'a>,
    others: Vec<Stmt>,
}

// Operand tags of the `operands` column, and their payloads.
/// `name`
const REG: u8 = 0;
/// `name`, selector bits (`u16` LE)
const REG_SEL: u8 = 1;
/// kind (0 plain, 1 `%pm`, 2 `%pm_64`, 3 `%envreg`, 4 `%reserved_smem_offset_`), index or
/// number (`u8`), selector bits (`u16` LE)
const SPECIAL: u8 = 2;
/// zig-zag LEB128
const INT: u8 = 3;
/// LEB128
const UINT: u8 = 4;
/// 4 bytes LE
const F32: u8 = 5;
/// 8 bytes LE
const F64: u8 = 6;
/// 8 bytes LE
const DEC: u8 = 7;
/// `name`, zig-zag offset
const SYM: u8 = 8;
/// flags (bit 0: base, bit 1: `.unified`), `name` if based, zig-zag offset
const ADDR: u8 = 9;
/// count, elements
const VECTOR: u8 = 10;
/// count, elements
const TUPLE: u8 = 11;
/// count, elements
const ARGS: u8 = 12;
/// two elements
const PAIR: u8 = 13;
/// `name`
const NOT: u8 = 14;
/// one element
const NEG: u8 = 15;
/// nothing
const SINK: u8 = 16;
/// Number of tags.
const TAGS: u8 = SINK + 1;

fn put_name(out: &mut Vec<u8>, n: Name) {
    put_leb(out, n.index() as u64);
}

/// Writes the operands of `pool` in the operands column's form (pre-order, as the pool).
fn put_pool(out: &mut Vec<u8>, pool: Pool<'_>) {
    for v in pool.tokens() {
        match v {
            Token::Reg(n, sel) => {
                out.push(if sel.is_none() { REG } else { REG_SEL });
                put_name(out, n);
                if !sel.is_none() {
                    out.extend_from_slice(&sel.bits().to_le_bytes());
                }
            }
            Token::Special(reg, sel) => {
                let (kind, v) = reg.family_number();
                out.extend_from_slice(&[SPECIAL, kind, v]);
                out.extend_from_slice(&sel.bits().to_le_bytes());
            }
            Token::Int(v) => {
                out.push(INT);
                put_signed(out, v);
            }
            Token::Uint(v) => {
                out.push(UINT);
                put_leb(out, v);
            }
            Token::F32(v) => {
                out.push(F32);
                out.extend_from_slice(&v.to_le_bytes());
            }
            Token::F64(v) => {
                out.push(F64);
                out.extend_from_slice(&v.to_le_bytes());
            }
            Token::Dec(v) => {
                out.push(DEC);
                out.extend_from_slice(&v.to_le_bytes());
            }
            Token::Sym(name, offset) => {
                out.push(SYM);
                put_name(out, name);
                put_signed(out, offset);
            }
            Token::Addr(base, offset, unified) => {
                out.push(ADDR);
                out.push(base.is_some() as u8 | (unified as u8) << 1);
                if let Some(b) = base {
                    put_name(out, b);
                }
                put_signed(out, offset);
            }
            Token::List(kind, n) => {
                out.push(match kind {
                    ListKind::Vector => VECTOR,
                    ListKind::Tuple => TUPLE,
                    ListKind::Args => ARGS,
                });
                put_leb(out, n as u64);
            }
            Token::Pair => out.push(PAIR),
            Token::Neg => out.push(NEG),
            Token::Not(n) => {
                out.push(NOT);
                put_name(out, n);
            }
            Token::Sink => out.push(SINK),
        }
    }
}

/// For each entry, the operands (not cells) of the instructions before it, and one more
/// for the end: the bytecode counts operands, the compact form cells.
fn operands_before(c: &Parts<'_>) -> Vec<usize> {
    let mut before = Vec::with_capacity(c.stmts.len() + 1);
    let (mut total, mut rest) = (0, c.pool);
    for st in c.stmts {
        before.push(total);
        if let Stmt::Inst(p) = st {
            let n = p.operand_cells().min(rest.cells());
            if let Some((mine, after)) = rest.split(n) {
                total += mine.operands().len();
                rest = after;
            }
        }
    }
    before.push(total);
    before
}

/// Whether `d` has a [`DECL`] record.
fn plain_decl(d: &VarDecl) -> bool {
    d.linkage.is_none()
        && d.attributes.is_empty()
        && matches!(&d.names[..], [x] if x.dims.is_empty() && x.init.is_none())
}

/// Writes the [`DECL`] record of a plain declaration.
fn put_decl(
    entries: &mut Vec<u8>,
    space: Space,
    ty: Type,
    align: Option<u32>,
    vector: Option<Vector>,
    name: Name,
    range: Option<u32>,
) {
    entries.push(DECL);
    entries
        .push(align.is_some() as u8 | (vector.is_some() as u8) << 1 | (range.is_some() as u8) << 2);
    entries.extend_from_slice(&[space.ordinal(), ty.ordinal()]);
    if let Some(a) = align {
        put_leb(entries, a.into());
    }
    if let Some(v) = vector {
        put_leb(entries, v.ordinal().into());
    }
    put_name(entries, name);
    if let Some(r) = range {
        put_leb(entries, r.into());
    }
}

/// Reads the rest of a [`DECL`] record.
fn decl(e: &mut Cursor<'_>) -> Res<VarDecl> {
    let flags = e.u8()?;
    if flags > 7 {
        e.pos -= 1;
        return e.fail(format!("declaration flags {flags:#x}"));
    }
    let (sp, ty) = (e.u8()?, e.u8()?);
    let (Some(space), Some(ty)) = (Space::from_ordinal(sp), Type::from_ordinal(ty)) else {
        e.pos -= 2;
        return e.fail(format!("declaration space {sp} or type {ty}"));
    };
    // Only what the reader gives: a space of a function body, an alignment that is a power of
    // two (the decoder's promise that a module reads back from its text).
    if !space.declarable_in_body() {
        e.pos -= 2;
        return e.fail(format!("declaration space `.{}` in a body", space.as_str()));
    }
    let align = if flags & 1 != 0 {
        let a = e.u32()?;
        if !a.is_power_of_two() {
            return e.fail(format!("alignment {a}"));
        }
        Some(a)
    } else {
        None
    };
    let vector = if flags & 2 != 0 {
        let v = e.u32()?;
        match u8::try_from(v).ok().and_then(Vector::from_ordinal) {
            Some(v) => Some(v),
            None => return e.fail(format!("vector width {v}")),
        }
    } else {
        None
    };
    let name = e.name()?;
    let range = if flags & 4 != 0 { Some(e.u32()?) } else { None };
    Ok(VarDecl {
        linkage: None,
        space,
        attributes: Vec::new(),
        align,
        vector,
        ty,
        names: smallvec::smallvec![Declarator {
            name,
            range,
            dims: Default::default(),
            init: None,
        }],
    })
}

/// Serializes `body` as [`Columns`] (a body being edited as a tree is compacted first).
pub(crate) fn serialize<S: Serializer>(body: &Body, s: S) -> Result<S::Ok, S::Error> {
    let compacted;
    let c = match body.parts() {
        Some(p) => p,
        None => {
            compacted =
                Body::try_from_statements(body.statements()).map_err(serde::ser::Error::custom)?;
            compacted
                .parts()
                .ok_or_else(|| serde::ser::Error::custom("a body that does not compact"))?
        }
    };
    serialize_parts(&c, s)
}

fn serialize_parts<S: Serializer>(c: &Parts<'_>, s: S) -> Result<S::Ok, S::Error> {
    let mut entries = Vec::with_capacity(c.stmts.len() * 3);
    let mut others = Vec::new();
    let before = operands_before(c);
    let ops_in = |from: usize, to: usize| {
        let at = |i: usize| before.get(i).copied().unwrap_or(0);
        at(to).saturating_sub(at(from))
    };
    // The distinct opcode-and-modifier combinations, numbered in order of first use.
    let mut words = Vec::new();
    let mut index: FxHashMap<Vec<u16>, u32> = FxHashMap::default();
    let mut key: Vec<u16> = Vec::new();
    let (mut m, mut spelled, mut total) = (0usize, 0usize, 0usize);
    for (i, st) in c.stmts.iter().enumerate() {
        match st {
            Stmt::Inst(p) => {
                let mods = c.mods.get(m..m + p.mod_count()).unwrap_or_default();
                m += mods.len();
                total += mods.len();
                key.clear();
                key.push(p.opcode().code());
                key.extend(mods.iter().map(|md| md.code()));
                let w = match index.get(&key[..]) {
                    Some(&w) => w,
                    None => {
                        let w = index.len() as u32;
                        index.insert(key.clone(), w);
                        words.extend_from_slice(&p.opcode().code().to_le_bytes());
                        words.push(mods.len() as u8);
                        words.extend(key[1..].iter().flat_map(|d| d.to_le_bytes()));
                        spelled += mods.len();
                        w
                    }
                };
                let n = ops_in(i, i + 1);
                let field = n.min(MANY_OPERANDS as usize) as u8;
                let guard = p.guard();
                let negated = guard.is_some_and(|g| g.negated);
                entries.push(guard.is_some() as u8 | (negated as u8) << 1 | field << 2);
                if field == MANY_OPERANDS {
                    put_leb(&mut entries, n as u64);
                }
                put_leb(&mut entries, w.into());
                if let Some(g) = guard {
                    put_name(&mut entries, g.pred);
                }
            }
            Stmt::Block { len, mods, .. } => {
                entries.push(OTHER);
                let inside = ops_in(i + 1, i + 1 + *len as usize);
                others.push(Stmt::Block {
                    len: *len,
                    mods: *mods,
                    operands: u32::try_from(inside).map_err(serde::ser::Error::custom)?,
                });
            }
            Stmt::Label(n) => {
                entries.push(LABEL);
                put_name(&mut entries, *n);
            }
            Stmt::Decl(d) if plain_decl(d) => {
                let x = &d.names[0];
                put_decl(
                    &mut entries,
                    d.space,
                    d.ty,
                    d.align,
                    d.vector,
                    x.name,
                    x.range,
                );
            }
            Stmt::PlainDecl(
                p @ PlainDecl {
                    shape: PlainShape::One | PlainShape::Range(_),
                    ..
                },
            ) => {
                let range = match p.shape {
                    PlainShape::Range(n) => Some(n.get()),
                    _ => None,
                };
                put_decl(&mut entries, p.space, p.ty, None, p.vector, p.name, range);
            }
            // Two names, or an array: as the declaration it stands for (the format's record
            // holds one name without dimensions).
            Stmt::PlainDecl(p) => {
                entries.push(OTHER);
                others.push(Stmt::Decl(Box::new(p.to_var_decl())));
            }
            Stmt::LineLoc { file, line, col } => {
                entries.push(LOC);
                for v in [*file, *line, *col] {
                    put_leb(&mut entries, v.into());
                }
            }
            other => {
                entries.push(OTHER);
                others.push(other.clone());
            }
        }
    }
    if total - spelled > MODS_PER_ENTRY_BYTE * entries.len() {
        return Err(serde::ser::Error::custom(format!(
            "a body whose instructions repeat {} modifiers in {} bytes of entries: more than \
             the bytecode holds",
            total - spelled,
            entries.len()
        )));
    }
    let mut operands = Vec::with_capacity(c.pool.cells() * 3);
    put_pool(&mut operands, c.pool);
    Columns {
        words: Blob(Cow::Owned(words)),
        entries: Blob(Cow::Owned(entries)),
        operands: Blob(Cow::Owned(operands)),
        others,
    }
    .serialize(s)
}

/// A cursor over one column, with errors that name it.
struct Cursor<'a> {
    column: &'static str,
    b: &'a [u8],
    pos: usize,
    bounds: Bounds,
    /// Whether the operands read are a `call`'s, the only instruction whose text reads `(...)`
    /// as an argument list.
    call: bool,
    /// The first fault.
    err: Option<ColumnFault>,
}

/// A decoding fault; the message is in the cursor (a zero-size error keeps the hot `Result`s
/// small).
#[derive(Debug, PartialEq)]
struct Fault;

type Res<T> = Result<T, Fault>;

impl<'a> Cursor<'a> {
    fn new(column: &'static str, b: &'a [u8]) -> Cursor<'a> {
        Cursor {
            column,
            b,
            pos: 0,
            bounds: Bounds::current(),
            call: false,
            err: None,
        }
    }

    #[cold]
    fn fail<T>(&mut self, what: impl fmt::Display) -> Res<T> {
        self.err = Some(ColumnFault::Invalid(format!(
            "{what} at byte {} of the body's {} column",
            self.pos, self.column
        )));
        Err(Fault)
    }

    /// Stops at operands nested past the bound.
    #[cold]
    fn too_deep<T>(&mut self) -> Res<T> {
        self.err = Some(ColumnFault::TooDeep {
            what: "operands",
            limit: self.bounds.depth,
        });
        Err(Fault)
    }

    /// The fault that stopped decoding.
    fn message(&mut self) -> ColumnFault {
        self.err.take().unwrap_or_else(|| {
            ColumnFault::Invalid(format!("fault in the body's {} column", self.column))
        })
    }

    fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }

    fn remaining(&self) -> usize {
        self.b.len().saturating_sub(self.pos)
    }

    #[inline]
    fn u8(&mut self) -> Res<u8> {
        match self.b.get(self.pos) {
            Some(&v) => {
                self.pos += 1;
                Ok(v)
            }
            None => self.fail("truncated"),
        }
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Res<[u8; N]> {
        match self
            .b
            .get(self.pos..self.pos + N)
            .and_then(|s| <[u8; N]>::try_from(s).ok())
        {
            Some(a) => {
                self.pos += N;
                Ok(a)
            }
            None => self.fail("truncated"),
        }
    }

    #[inline]
    fn leb(&mut self) -> Res<u64> {
        if let Some(&b) = self.b.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u64);
            }
        }
        self.leb_long()
    }

    #[cold]
    fn leb_long(&mut self) -> Res<u64> {
        let mut pos = self.pos;
        match crate::leb::get(self.b, &mut pos) {
            Some(v) => {
                self.pos = pos;
                Ok(v)
            }
            None if pos >= self.b.len() => {
                self.pos = pos;
                self.fail("truncated")
            }
            None => self.fail("LEB128 integer over 64 bits"),
        }
    }

    fn u32(&mut self) -> Res<u32> {
        let v = self.leb()?;
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => self.fail(format!("{v} does not fit 32 bits")),
        }
    }

    fn zigzag(&mut self) -> Res<i64> {
        let v = self.leb()?;
        Ok(crate::leb::signed(v))
    }

    #[inline]
    fn name(&mut self) -> Res<Name> {
        let i = self.leb()?;
        self.name_index(i)
    }

    #[inline]
    fn name_index(&mut self, i: u64) -> Res<Name> {
        if i >= u64::from(self.bounds.names) {
            return self.bad_name(i);
        }
        Ok(Name::from_index(i as usize))
    }

    #[cold]
    fn bad_name<T>(&mut self, i: u64) -> Res<T> {
        if self.bounds.names == Bounds::STRUCTURAL.names {
            self.fail(format!("name index {i} out of range"))
        } else {
            let n = self.bounds.names;
            self.fail(format!(
                "name index {i} outside the string table ({n} names)"
            ))
        }
    }

    #[cold]
    fn bad_special<T>(&mut self, kind: u8, v: u8) -> Res<T> {
        match SpecialReg::from_family_number(kind, v) {
            Some(r) => self.fail(format!("special register {r:?} out of range")),
            None if kind == 0 => self.fail(format!("special register {v} out of range")),
            None => self.fail(format!("special register kind {kind}")),
        }
    }

    fn selector(&mut self) -> Res<Selector> {
        let s = Selector::from_bits(u16::from_le_bytes(self.array()?));
        if s.is_none() || s.is_valid() {
            Ok(s)
        } else {
            self.pos -= 2;
            self.fail(format!("invalid selector encoding {:#06x}", s.bits()))
        }
    }
}

impl Cursor<'_> {
    /// Reads one operand straight into the builder's pool (as the operand would be pushed,
    /// without building it).
    fn operand_into(&mut self, depth: u32, out: &mut BodyBuilder) -> Res<()> {
        let tag = self.u8()?;
        match tag {
            REG => out.push_register(self.name()?),
            REG_SEL => {
                let n = self.name()?;
                out.push_register_sel(n, self.selector()?);
            }
            SPECIAL => {
                let (kind, v) = (self.u8()?, self.u8()?);
                let Some(reg) = SpecialReg::from_family_number(kind, v).filter(|r| r.is_valid())
                else {
                    return self.bad_special(kind, v);
                };
                out.push_special(reg, self.selector()?);
            }
            INT => out.push_literal(Literal::Int(self.zigzag()?)),
            UINT => out.push_literal(Literal::Uint(self.leb()?)),
            F32 => out.push_literal(Literal::F32(u32::from_le_bytes(self.array()?))),
            F64 => out.push_literal(Literal::F64(u64::from_le_bytes(self.array()?))),
            DEC => {
                let bits = u64::from_le_bytes(self.array()?);
                // The printer writes a NaN as `0d...`, which reads back as an `F64`.
                if self.bounds.reader_forms && f64::from_bits(bits).is_nan() {
                    return self.fail("a decimal NaN");
                }
                out.push_literal(Literal::Dec(bits))
            }
            SYM => {
                let n = self.name()?;
                out.push_symbol(n, self.zigzag()?);
            }
            ADDR => {
                let flags = self.u8()?;
                if flags > 3 {
                    return self.fail(format!("address flags {flags:#x}"));
                }
                let base = if flags & 1 != 0 {
                    Some(self.name()?)
                } else {
                    None
                };
                out.push_address(base, self.zigzag()?, flags & 2 != 0);
            }
            NOT => out.push_not(self.name()?),
            VECTOR..=NEG => {
                if depth >= self.bounds.depth {
                    return self.too_deep();
                }
                let d = depth + 1;
                let closed = match tag {
                    PAIR => {
                        // `sym+0|q` reads back with `0|q` as the offset (`|` is an operator).
                        if self.bounds.reader_forms {
                            let mut p = self.pos;
                            while self.b.get(p) == Some(&NEG) {
                                p += 1;
                            }
                            if self.b.get(p) == Some(&SYM) {
                                return self.fail("a symbol with an offset before `|`");
                            }
                        }
                        // `a|b|c` does not read: a pair holds no pair.
                        if self.bounds.reader_forms && self.b.get(self.pos) == Some(&PAIR) {
                            return self.fail("a pair inside a pair");
                        }
                        let at = out.open();
                        self.operand_into(d, out)?;
                        if self.bounds.reader_forms && self.b.get(self.pos) == Some(&PAIR) {
                            return self.fail("a pair inside a pair");
                        }
                        self.operand_into(d, out)?;
                        out.close_pair(at)
                    }
                    NEG => {
                        // `-(5U)` reads back as a negated signed constant.
                        if self.bounds.reader_forms && self.b.get(self.pos) == Some(&UINT) {
                            return self.fail("a negated unsigned literal");
                        }
                        // `-a|b` reads as a pair of `-a` and `b`.
                        if self.bounds.reader_forms && self.b.get(self.pos) == Some(&PAIR) {
                            return self.fail("a negated pair");
                        }
                        let at = out.open();
                        self.operand_into(d, out)?;
                        out.close_neg(at)
                    }
                    _ => {
                        let n = self.leb()?;
                        // Every element takes at least a byte.
                        if n > self.remaining() as u64 {
                            return self.fail(format!("list of {n} operands in fewer bytes"));
                        }
                        // `[a]` reads back as an address.
                        if tag == TUPLE && n < 2 && self.bounds.reader_forms {
                            return self.fail(format!("a tuple of {n} operands"));
                        }
                        // Outside a call, `(...)` reads as a constant expression.
                        if tag == ARGS && !self.call && self.bounds.reader_forms {
                            return self.fail("an argument list outside a call");
                        }
                        let at = out.open();
                        for _ in 0..n {
                            self.operand_into(d, out)?;
                        }
                        let kind = match tag {
                            VECTOR => ListKind::Vector,
                            TUPLE => ListKind::Tuple,
                            _ => ListKind::Args,
                        };
                        out.close_list(at, kind, n as usize)
                    }
                };
                if let Err(e) = closed {
                    return self.fail(e);
                }
            }
            SINK => out.push_sink(),
            _ => {
                self.pos -= 1;
                return self.fail(format!("operand tag {tag} (there are {TAGS})"));
            }
        }
        Ok(())
    }
}

fn decode(c: Columns<'_>) -> Result<Body, ColumnFault> {
    let mut w = Cursor::new("words", &c.words.0);
    let words = words(&mut w).map_err(|Fault| w.message())?;
    let mut e = Cursor::new("entries", &c.entries.0);
    let mut o = Cursor::new("operands", &c.operands.0);
    // Sized from the columns (every entry takes at least two bytes, every operand one and most
    // a register's two) and shrunk in place at the end: a decoded body takes no more memory
    // than a parsed one, without a copy.
    let mut body = Decoded {
        b: BodyBuilder::with_capacity(e.remaining() / 2, e.remaining(), o.remaining() / 2),
        operands: 0,
        open: Vec::new(),
    };
    match body.run(&mut e, &mut o, c.others, &words) {
        Ok(()) => Ok(body.b.into_body()),
        Err(Stop::Entries) => Err(e.message()),
        Err(Stop::Operands) => Err(o.message()),
        Err(Stop::Fault(f)) => Err(f),
    }
}

/// A body's words: each its opcode and where its modifiers are in `mods`.
struct Words {
    words: Vec<(Opcode, u32, u8)>,
    mods: Vec<Modifier>,
}

fn words(c: &mut Cursor<'_>) -> Res<Words> {
    // Every word takes at least three bytes, every modifier two.
    let mut words = Vec::with_capacity(c.remaining() / 3);
    let mut mods = Vec::with_capacity(c.remaining() / 2);
    while !c.at_end() {
        let op = u16::from_le_bytes(c.array()?);
        let Some(opcode) = Opcode::from_code(op) else {
            return c.fail(format!("opcode number {op} is not in this build's table"));
        };
        let n = c.u8()?;
        let at = mods.len() as u32;
        for _ in 0..n {
            let d = u16::from_le_bytes(c.array()?);
            match Modifier::from_code(d) {
                Some(m) => mods.push(m),
                None => {
                    c.pos -= 2;
                    return c.fail(format!(
                        "modifier number {d:#06x} is not in this build's vocabulary"
                    ));
                }
            }
        }
        words.push((opcode, at, n));
    }
    Ok(Words { words, mods })
}

/// Why [`Decoded::run`] stopped: a fault in a column (its message is in the column's cursor)
/// or in the scopes' structure.
enum Stop {
    Entries,
    Operands,
    /// The scopes' structure, the caller's check of an entry from `others`, or scopes past
    /// the caller's depth.
    Fault(ColumnFault),
}

impl From<BodyError> for Stop {
    fn from(e: BodyError) -> Stop {
        Stop::Fault(ColumnFault::Invalid(e.to_string()))
    }
}

/// A scope being decoded: where it ends and what it must hold, in the column's counts.
struct Open {
    block: OpenBlock,
    /// Index of the first entry after it.
    end: usize,
    mods: u32,
    operands: u32,
    /// Modifiers and operands before it.
    mods_at: usize,
    operands_at: usize,
}

/// A body decoded in one pass over its columns into a [`BodyBuilder`]: each instruction's
/// operands are read as its entry is, and scopes are checked against the counts the column
/// gives as they close.
struct Decoded {
    b: BodyBuilder,
    /// Operands read so far, as the column counts them.
    operands: usize,
    open: Vec<Open>,
}

impl Decoded {
    fn run(
        &mut self,
        e: &mut Cursor<'_>,
        o: &mut Cursor<'_>,
        others: Vec<Stmt>,
        words: &Words,
    ) -> Result<(), Stop> {
        // Modifiers beyond those the words spell out are bounded by the entries' size.
        let budget = MODS_PER_ENTRY_BYTE * e.b.len() + words.mods.len();
        let mut forms = WordForms::new(words.words.len());
        let mut others = others.into_iter();
        while !e.at_end() {
            // Most entries close no scope: the test stays inline.
            if self
                .open
                .last()
                .is_some_and(|t| t.end == self.b.entry_count())
            {
                self.close_scopes()?;
            }
            let b = e.u8().map_err(|Fault| Stop::Entries)?;
            if b >= MARKERS {
                self.marker(e, b, &mut others)?;
                continue;
            }
            let h = instruction(e, b, words).map_err(|Fault| Stop::Entries)?;
            let (opcode, at, n_mods) = words.words[h.word as usize];
            if self.b.mod_count() + n_mods as usize > budget {
                return e
                    .fail("more modifiers than the entries can hold")
                    .map_err(|Fault| Stop::Entries);
            }
            let mods = &words.mods[at as usize..at as usize + n_mods as usize];
            o.call = opcode == Opcode::Call;
            let key = self.operands(o, h.ops).map_err(|Fault| Stop::Operands)?;
            if o.bounds.reader_forms {
                let word = forms.entry(h.word, opcode, mods);
                // Operand shapes seen to fit the word stand for the match, as in the reader.
                let key = (h.ops <= 12).then_some(key | u64::from(h.ops) << 60);
                if !key.is_some_and(|k| word.fits.contains(&k)) {
                    let ops = self.b.pending_operands().to_vec();
                    let all = opcode.forms();
                    if !word
                        .fit
                        .iter()
                        .any(|&f| all[f as usize].match_operands(&ops))
                    {
                        let why = match ptx_ir_core::check::check(opcode, mods, &ops) {
                            Ok(_) => "an instruction that matches no form".to_string(),
                            Err(e) => e.to_string(),
                        };
                        return o.fail(why).map_err(|Fault| Stop::Operands);
                    }
                    if let Some(k) = key {
                        word.fits.rotate_right(1);
                        word.fits[0] = k;
                    }
                }
            }
            let guard = h.guard.map(|pred| Guard {
                pred,
                negated: h.negated,
            });
            if let Err(err) = self.b.push_inst(guard, opcode, mods) {
                let why = match err {
                    BodyError::TooMany { what, count } => {
                        format!("an instruction whose {what} take {count} cells")
                    }
                    other => other.to_string(),
                };
                return o.fail(why).map_err(|Fault| Stop::Operands);
            }
        }
        if others.next().is_some() {
            return e
                .fail("the list of other entries is longer than the entries column says")
                .map_err(|Fault| Stop::Entries);
        }
        self.close_scopes()?;
        if !self.open.is_empty() {
            return Err(BodyError::Inconsistent("scope longer than its parent").into());
        }
        if !o.at_end() {
            return o
                .fail("bytes after the last operand")
                .map_err(|Fault| Stop::Operands);
        }
        Ok(())
    }

    /// Reads an instruction's `n` operands into the builder; returns the operands' tags, 5
    /// bits each (the last 12), which are the reader's shape codes.
    #[inline]
    fn operands(&mut self, o: &mut Cursor<'_>, n: u16) -> Res<u64> {
        let b = &mut self.b;
        let mut key = 0u64;
        for _ in 0..n {
            // Most operands are registers whose name index takes one or two bytes.
            match o.b.get(o.pos..o.pos + 3) {
                Some(&[REG, a, _]) if a < 0x80 && u32::from(a) < o.bounds.names => {
                    o.pos += 2;
                    b.push_register(Name::from_index(a as usize));
                    key <<= 5;
                }
                Some(&[REG, a, c])
                    if a >= 0x80
                        && c < 0x80
                        && (u32::from(a & 0x7f) | u32::from(c) << 7) < o.bounds.names =>
                {
                    o.pos += 3;
                    b.push_register(Name::from_index(
                        (u32::from(a & 0x7f) | u32::from(c) << 7) as usize,
                    ));
                    key <<= 5;
                }
                _ => {
                    key = key << 5 | u64::from(o.b.get(o.pos).copied().unwrap_or(0) & 31);
                    o.operand_into(0, b)?
                }
            }
        }
        self.operands += n as usize;
        Ok(key)
    }

    /// An entry that is not an instruction.
    fn marker(
        &mut self,
        e: &mut Cursor<'_>,
        b: u8,
        others: &mut std::vec::IntoIter<Stmt>,
    ) -> Result<(), Stop> {
        let s = match b {
            OTHER => match others.next() {
                Some(Stmt::Inst(_)) => {
                    return e
                        .fail("an instruction among the other entries")
                        .map_err(|Fault| Stop::Entries)
                }
                Some(Stmt::PlainDecl(PlainDecl {
                    shape:
                        PlainShape::Array {
                            align_log2: Some(32..),
                            ..
                        },
                    ..
                })) => {
                    return e
                        .fail("a declaration aligned to more than 2^31 bytes")
                        .map_err(|Fault| Stop::Entries)
                }
                Some(s) => {
                    if let Some(check) = e.bounds.check {
                        let at = self.b.entry_count();
                        check(&s, e.bounds.names as usize).map_err(|m| {
                            Stop::Fault(ColumnFault::Invalid(format!("{m} (body entry {at})")))
                        })?;
                    }
                    // A `.loc` without an inlining part, and a plain declaration, have one entry
                    // form, whichever way they were written.
                    match s {
                        Stmt::Loc(l) if l.inlined.is_none() => Stmt::loc(*l),
                        Stmt::Decl(d) => Stmt::decl(d),
                        s => s,
                    }
                }
                None => {
                    return e
                        .fail("more entries than the list of other entries holds")
                        .map_err(|Fault| Stop::Entries)
                }
            },
            LABEL => Stmt::Label(e.name().map_err(|Fault| Stop::Entries)?),
            DECL => Stmt::decl_value(decl(e).map_err(|Fault| Stop::Entries)?),
            LOC => {
                let mut v = [0u32; 3];
                for x in &mut v {
                    *x = e.u32().map_err(|Fault| Stop::Entries)?;
                }
                Stmt::LineLoc {
                    file: v[0],
                    line: v[1],
                    col: v[2],
                }
            }
            _ => {
                e.pos -= 1;
                return e
                    .fail(format!("entry kind {b:#x}"))
                    .map_err(|Fault| Stop::Entries);
            }
        };
        match s {
            Stmt::Block {
                len,
                mods,
                operands,
            } => self.open_scope(e, len, mods, operands),
            s => Ok(self.b.push_entry(s)?),
        }
    }

    /// Opens a scope of `len` entries holding `mods` modifiers and `operands` operands.
    #[cold]
    fn open_scope(
        &mut self,
        e: &Cursor<'_>,
        len: u32,
        mods: u32,
        operands: u32,
    ) -> Result<(), Stop> {
        let at = self.b.entry_count();
        let end = at + 1 + len as usize;
        if self.open.last().is_some_and(|t| end > t.end) {
            return Err(BodyError::Inconsistent("scope longer than its parent").into());
        }
        // At most MAX_SCOPE_DEPTH (the structural bound equals it), less when bounded.
        if self.open.len() >= e.bounds.scopes as usize {
            return Err(Stop::Fault(ColumnFault::TooDeep {
                what: "scopes",
                limit: e.bounds.scopes,
            }));
        }
        let (mods_at, operands_at) = (self.b.mod_count(), self.operands);
        self.open.push(Open {
            block: self.b.open_block(),
            end,
            mods,
            operands,
            mods_at,
            operands_at,
        });
        Ok(())
    }

    /// Closes the scopes that end here, checking their counts.
    #[cold]
    fn close_scopes(&mut self) -> Result<(), Stop> {
        while let Some(top) = self.open.last() {
            if top.end != self.b.entry_count() {
                break;
            }
            if self.b.mod_count() - top.mods_at != top.mods as usize
                || self.operands - top.operands_at != top.operands as usize
            {
                return Err(BodyError::Inconsistent("scope counts").into());
            }
            let block = top.block;
            self.open.pop();
            self.b.close_block(block)?;
        }
        Ok(())
    }
}

/// What the forms check knows of an instruction word (an opcode and its modifiers): the
/// forms of its opcode that take the modifiers, and the operand shapes last seen to fit one of
/// them (what the reader keeps per word).
struct WordForm {
    fit: smallvec::SmallVec<[u16; 6]>,
    fits: [u64; 4],
}

/// The words met while decoding one module, shared by its bodies (a module's bodies use most
/// of the same words): an index by opcode and modifiers, and the words.
#[derive(Default)]
struct ModuleWords {
    index: rustc_hash::FxHashMap<(Opcode, smallvec::SmallVec<[Modifier; 8]>), u32>,
    words: Vec<WordForm>,
}

thread_local! {
    /// The [`ModuleWords`] of the module being decoded on this thread: taken by each body's
    /// decoder and put back, emptied when [`super::with_decode_bounds`](crate::columns::with_decode_bounds) returns, so that it holds at
    /// most the words of one module (each at least three bytes of its input).
    static FORMS: std::cell::Cell<Option<Box<ModuleWords>>> = const { std::cell::Cell::new(None) };
}

/// Drops this thread's [`ModuleWords`] (at the end of a module's decode).
pub(super) fn clear_module_words() {
    let _ = FORMS.try_with(|c| c.take());
}

/// A body's words, each mapped to its entry of the module's [`ModuleWords`] when first used.
struct WordForms {
    body: Vec<u32>,
    module: Box<ModuleWords>,
}

impl WordForms {
    /// For a body of `words` words; takes the module's words from this thread.
    fn new(words: usize) -> WordForms {
        WordForms {
            body: vec![u32::MAX; words],
            module: FORMS
                .try_with(|c| c.take())
                .ok()
                .flatten()
                .unwrap_or_default(),
        }
    }

    #[inline]
    fn entry(&mut self, word: u32, opcode: Opcode, mods: &[Modifier]) -> &mut WordForm {
        let slot = &mut self.body[word as usize];
        if *slot == u32::MAX {
            let m = &mut *self.module;
            let next = m.words.len() as u32;
            *slot = *m
                .index
                .entry((opcode, smallvec::SmallVec::from_slice(mods)))
                .or_insert_with(|| {
                    m.words.push(WordForm {
                        fit: opcode
                            .forms()
                            .iter()
                            .enumerate()
                            .filter(|(_, f)| f.match_mods(mods).is_ok())
                            .map(|(k, _)| k as u16)
                            .collect(),
                        // Keys hold a count of at most 12 in their top bits: this matches none.
                        fits: [u64::MAX; 4],
                    });
                    next
                });
        }
        &mut self.module.words[*slot as usize]
    }
}

impl Drop for WordForms {
    fn drop(&mut self) {
        let module = std::mem::take(&mut self.module);
        let _ = FORMS.try_with(|c| c.set(Some(module)));
    }
}

/// An instruction's entry but its word's content.
struct Head {
    /// Operands, as the column counts them.
    ops: u16,
    word: u32,
    guard: Option<Name>,
    negated: bool,
}

/// The rest of an instruction's entry after its first byte `b`.
#[inline]
fn instruction(e: &mut Cursor<'_>, b: u8, words: &Words) -> Res<Head> {
    let flags = b & 3;
    if flags == 2 {
        e.pos -= 1;
        return e.fail("a negated guard without a predicate");
    }
    let ops = match b >> 2 {
        MANY_OPERANDS => {
            let n = e.leb()?;
            match u16::try_from(n) {
                Ok(n) => n,
                Err(_) => return e.fail(format!("{n} operands")),
            }
        }
        n => n as u16,
    };
    let w = e.leb()?;
    if w >= words.words.len() as u64 {
        return e.fail(format!("word {w} of {}", words.words.len()));
    }
    let guard = if flags & 1 != 0 {
        Some(e.name()?)
    } else {
        None
    };
    Ok(Head {
        ops,
        word: w as u32,
        guard,
        negated: flags & 2 != 0,
    })
}

/// Deserializes [`Columns`] into a checked compact body.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
    let c = Columns::deserialize(d)?;
    decode(c).map_err(fault)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ir_core::Operand;

    /// The entries of a decoded body.
    fn stmts(b: &Body) -> Vec<Stmt> {
        b.parts().expect("a compact body").stmts.to_vec()
    }

    /// Writes one operand in the operands column's form.
    fn put_operand(out: &mut Vec<u8>, o: &Operand) {
        let mut b = BodyBuilder::default();
        b.push_operand(o).unwrap();
        b.push_inst(None, Opcode::Mov, &[]).unwrap();
        let body = b.finish();
        put_pool(out, body.parts().unwrap().pool);
    }

    /// A `.loc` without an inlining part decodes to its one entry form, also when it comes
    /// through the other entries (as an older or a hand-made encoder may write it), so that
    /// bodies that print alike compare equal.
    #[test]
    fn plain_locs_have_one_form() {
        use ptx_ir_core::module::{InlinedAt, Loc};
        let plain = Loc {
            file: 1,
            line: 20,
            col: 3,
            inlined: None,
        };
        let inlined = Loc {
            inlined: Some(Box::new(InlinedAt {
                function_name: Name::from_index(0),
                offset: 0,
                file: 1,
                line: 7,
                col: 9,
            })),
            ..plain.clone()
        };
        let columns = Columns {
            words: Blob(Cow::Borrowed(&[])),
            entries: Blob(Cow::Borrowed(&[OTHER, OTHER, LOC, 1, 20, 3])),
            operands: Blob(Cow::Borrowed(&[])),
            others: vec![
                Stmt::Loc(Box::new(plain.clone())),
                Stmt::loc(inlined.clone()),
            ],
        };
        let c = decode(columns).unwrap();
        let line = Stmt::LineLoc {
            file: 1,
            line: 20,
            col: 3,
        };
        assert_eq!(
            stmts(&c),
            [
                line.clone(),
                Stmt::Loc(Box::new(inlined.clone())),
                line.clone()
            ]
        );
        assert_eq!(Stmt::loc(plain), line);
        assert!(matches!(Stmt::loc(inlined), Stmt::Loc(_)));
    }

    /// Likewise a plain declaration; one with an alignment, or a range of 0, stays whole.
    #[test]
    fn plain_declarations_have_one_form() {
        let decl = |align: Option<u32>, range: Option<u32>| VarDecl {
            linkage: None,
            space: Space::Reg,
            attributes: Vec::new(),
            align,
            vector: Some(Vector::V2),
            ty: Type::B32,
            names: smallvec::smallvec![Declarator {
                name: Name::from_index(0),
                range,
                dims: Default::default(),
                init: None,
            }],
        };
        let plain = decl(None, Some(9));
        let inline = PlainDecl::of(&plain).unwrap();
        assert_eq!(inline.to_var_decl(), plain);
        let mut entries = Vec::new();
        put_decl(
            &mut entries,
            Space::Reg,
            Type::B32,
            None,
            Some(Vector::V2),
            Name::from_index(0),
            Some(9),
        );
        entries.push(OTHER);
        entries.push(OTHER);
        entries.push(OTHER);
        let columns = Columns {
            words: Blob(Cow::Borrowed(&[])),
            entries: Blob(Cow::Owned(entries)),
            operands: Blob(Cow::Borrowed(&[])),
            others: vec![
                Stmt::Decl(Box::new(plain.clone())),
                Stmt::Decl(Box::new(decl(Some(16), Some(9)))),
                Stmt::Decl(Box::new(decl(None, Some(0)))),
            ],
        };
        let c = decode(columns).unwrap();
        assert_eq!(
            stmts(&c),
            [
                Stmt::PlainDecl(inline),
                Stmt::PlainDecl(inline),
                Stmt::Decl(Box::new(decl(Some(16), Some(9)))),
                Stmt::Decl(Box::new(decl(None, Some(0)))),
            ]
        );
        assert_eq!(Stmt::decl(Box::new(plain)), Stmt::PlainDecl(inline));
    }

    /// Two names in one declaration (NCCL's `.reg .f16 low, high;`): kept in the entry, written
    /// as the declaration it stands for (the format's record holds one name), and read back
    /// into the entry; with a range, dimensions or a third name they stay boxed.
    #[test]
    fn two_name_declarations_have_one_form() {
        let d = |n: usize, range: Option<u32>, dims: bool| Declarator {
            name: Name::from_index(n),
            range,
            dims: if dims {
                smallvec::smallvec![Some(2)]
            } else {
                Default::default()
            },
            init: None,
        };
        let decl = |names: smallvec::SmallVec<[Declarator; 2]>| VarDecl {
            linkage: None,
            space: Space::Reg,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty: Type::F16,
            names,
        };
        let two = decl(smallvec::smallvec![d(0, None, false), d(1, None, false)]);
        let inline = PlainDecl::of(&two).unwrap();
        assert_eq!(inline.shape, PlainShape::Pair(Name::from_index(1)));
        assert_eq!(inline.to_var_decl(), two);
        for boxed in [
            decl(smallvec::smallvec![d(0, Some(4), false), d(1, None, false)]),
            decl(smallvec::smallvec![d(0, None, false), d(1, Some(4), false)]),
            decl(smallvec::smallvec![d(0, None, false), d(1, None, true)]),
            decl(smallvec::smallvec![
                d(0, None, false),
                d(1, None, false),
                d(2, None, false)
            ]),
        ] {
            assert_eq!(PlainDecl::of(&boxed), None, "{boxed:?}");
        }
        assert_eq!(Stmt::decl(Box::new(two.clone())), Stmt::PlainDecl(inline));
        assert_eq!(Stmt::decl_value(two.clone()), Stmt::PlainDecl(inline));
        // As the encoder writes it (`others`), read back into the entry.
        let columns = Columns {
            words: Blob(Cow::Borrowed(&[])),
            entries: Blob(Cow::Owned(vec![OTHER])),
            operands: Blob(Cow::Borrowed(&[])),
            others: vec![Stmt::Decl(Box::new(two))],
        };
        assert_eq!(stmts(&decode(columns).unwrap()), [Stmt::PlainDecl(inline)]);
    }

    /// One array of one dimension, aligned or not (nvcc's `.local .align 8 .b8
    /// __local_depot0[16];`): kept in the entry, written as the declaration it stands for,
    /// and read back into the entry; other arrays stay boxed, and an entry aligned past 2^31
    /// is refused.
    #[test]
    fn array_declarations_have_one_form() {
        let decl = |align: Option<u32>, dims: &[Option<u64>], range: Option<u32>| VarDecl {
            linkage: None,
            space: Space::Local,
            attributes: Vec::new(),
            align,
            vector: None,
            ty: Type::B8,
            names: smallvec::smallvec![Declarator {
                name: Name::from_index(0),
                range,
                dims: dims.iter().copied().collect(),
                init: None,
            }],
        };
        let aligned = decl(Some(8), &[Some(16)], None);
        let inline = PlainDecl::of(&aligned).unwrap();
        assert_eq!(
            inline.shape,
            PlainShape::Array {
                align_log2: Some(3),
                len: 16
            }
        );
        assert_eq!(inline.to_var_decl(), aligned);
        let bare = decl(None, &[Some(0)], None);
        assert_eq!(PlainDecl::of(&bare).unwrap().to_var_decl(), bare);
        for boxed in [
            decl(Some(8), &[], None),
            decl(Some(8), &[None], None),
            decl(Some(8), &[Some(2), Some(3)], None),
            decl(Some(8), &[Some(u64::from(u32::MAX) + 1)], None),
            decl(Some(8), &[Some(4)], Some(2)),
            decl(Some(6), &[Some(4)], None),
            decl(Some(0), &[Some(4)], None),
        ] {
            assert_eq!(PlainDecl::of(&boxed), None, "{boxed:?}");
        }
        assert!(PlainDecl::of(&decl(Some(1 << 31), &[Some(1)], None)).is_some());
        assert_eq!(Stmt::decl_value(aligned.clone()), Stmt::PlainDecl(inline));
        let columns = |others| Columns {
            words: Blob(Cow::Borrowed(&[])),
            entries: Blob(Cow::Owned(vec![OTHER])),
            operands: Blob(Cow::Borrowed(&[])),
            others,
        };
        let written = columns(vec![Stmt::Decl(Box::new(aligned))]);
        assert_eq!(stmts(&decode(written).unwrap()), [Stmt::PlainDecl(inline)]);
        let mut far = inline;
        far.shape = PlainShape::Array {
            align_log2: Some(32),
            len: 1,
        };
        assert!(decode(columns(vec![Stmt::PlainDecl(far)])).is_err());
        assert_eq!(
            stmts(&decode(columns(vec![Stmt::PlainDecl(inline)])).unwrap()),
            [Stmt::PlainDecl(inline)]
        );
    }

    #[test]
    fn leb_and_zigzag_round_trip() {
        for v in [0i64, 1, -1, 63, -64, 64, 1 << 40, i64::MIN, i64::MAX] {
            let mut b = Vec::new();
            put_signed(&mut b, v);
            assert_eq!(Cursor::new("t", &b).zigzag(), Ok(v));
        }
        let mut b = Vec::new();
        put_leb(&mut b, u64::MAX);
        assert_eq!(Cursor::new("t", &b).leb(), Ok(u64::MAX));
        assert!(Cursor::new("t", &[0xff; 11]).leb().is_err());
        assert!(Cursor::new("t", &[0x80]).leb().is_err());
    }

    #[test]
    fn every_special_register_round_trips() {
        let mut all: Vec<SpecialReg> = SpecialReg::PLAIN.to_vec();
        all.extend([
            SpecialReg::Pm(7),
            SpecialReg::Pm64(0),
            SpecialReg::Envreg(31),
            SpecialReg::ReservedSmemOffset(1),
        ]);
        for r in all {
            let o = Operand::Special {
                reg: r,
                sel: Selector::component(0).unwrap_or_default(),
            };
            let mut b = Vec::new();
            put_operand(&mut b, &o);
            let mut c = BodyBuilder::default();
            assert_eq!(Cursor::new("t", &b).operand_into(0, &mut c), Ok(()));
            assert_eq!(c.pending_operands().to_vec(), [o]);
        }
    }
}
