//! The operand pool of a compact body: operands as 8-byte cells.
//!
//! An [`Operand`] is 16 bytes, and a list operand (`{%r1, %r2}`) owns a heap buffer besides.
//! Most operands are registers, small immediates and addresses with small offsets, which fit
//! in 8 bytes with room for a tag. So the pool stores each operand in pre-order as one cell,
//! plus one data cell for a 64-bit value that does not fit, and a list as a header cell
//! followed by its elements' cells. The encoding is canonical (the short form whenever the
//! value fits), so equal operands give equal cells and pools compare as arrays.
//!
//! Cells are built only from operands ([`push`]) or by the bytecode decoder through the same
//! function, so a pool is well formed by construction; reading still checks every index and
//! stops (rather than panics) at anything malformed.

use super::error::BodyError;
use crate::names::Name;
use crate::operand::{Operand, OperandList, Selector};
use crate::special::SpecialReg;
use std::borrow::Cow;
use std::fmt;

/// One cell: the tag in the low byte, a 56-bit payload above it; or, after a tag that says
/// so, a whole 64-bit value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Cell(u64);

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#018x}", self.0)
    }
}

/// `name (32) | selector (16) << 32`
const REG: u8 = 0;
/// `kind (8) | number (8) << 8 | selector (16) << 16` (see [`SpecialReg::family_number`])
const SPECIAL: u8 = 1;
/// A signed value that fits 56 bits.
const INT: u8 = 2;
/// Followed by the value.
const INT_WIDE: u8 = 3;
/// An unsigned value that fits 56 bits.
const UINT: u8 = 4;
/// Followed by the value.
const UINT_WIDE: u8 = 5;
/// The bits.
const F32: u8 = 6;
/// Followed by the bits.
const F64: u8 = 7;
/// Followed by the bits.
const DEC: u8 = 8;
/// `name (32) | offset (24, signed) << 32`
const SYM: u8 = 9;
/// `name`, followed by the offset.
const SYM_WIDE: u8 = 10;
/// `base + 1 or 0 (32) | unified (1) << 32 | offset (23, signed) << 33`
const ADDR: u8 = 11;
/// `base + 1 or 0 (32) | unified (1) << 32`, followed by the offset.
const ADDR_WIDE: u8 = 12;
/// `items (28) | cells after the header (28) << 28`, followed by the elements.
const VECTOR: u8 = 13;
/// As [`VECTOR`].
const TUPLE: u8 = 14;
/// As [`VECTOR`].
const ARGS: u8 = 15;
/// `cells after the header`, followed by the two elements.
const PAIR: u8 = 16;
/// `name`
const NOT: u8 = 17;
/// `cells after the header`, followed by the element.
const NEG: u8 = 18;
/// Nothing.
const SINK: u8 = 19;

/// Largest count a list header holds (items or cells).
const MAX_COUNT: u64 = (1 << 28) - 1;

impl Cell {
    #[inline]
    fn new(tag: u8, payload: u64) -> Cell {
        debug_assert!(payload < 1 << 56);
        Cell(u64::from(tag) | payload << 8)
    }

    #[inline]
    fn tag(self) -> u8 {
        self.0 as u8
    }

    #[inline]
    fn payload(self) -> u64 {
        self.0 >> 8
    }

    /// The payload's low 32 bits as a name index (`u32::MAX` is none: names count from 1).
    #[inline]
    fn name(self) -> Option<Name> {
        match self.payload() as u32 {
            u32::MAX => None,
            i => Some(Name::from_index(i as usize)),
        }
    }
}

/// The cell of a register with no selector.
#[inline]
pub(super) fn reg(index: u32) -> Cell {
    reg_sel(index, Selector::NONE)
}

#[inline]
fn fits_signed(v: i64, bits: u32) -> bool {
    let lim = 1i64 << (bits - 1);
    (-lim..lim).contains(&v)
}

#[inline]
fn signed_field(v: i64, bits: u32) -> u64 {
    (v as u64) & ((1u64 << bits) - 1)
}

fn from_signed_field(f: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((f << shift) as i64) >> shift
}

#[inline]
fn too_many(count: usize) -> BodyError {
    BodyError::TooMany {
        what: "operand cells",
        count,
    }
}

/// Appends the cells of `o`. Fails only for a list or nesting larger than a header can count
/// (2^28 items or cells), which only a statement tree can hold.
#[inline(always)]
pub(crate) fn push(out: &mut Vec<Cell>, o: &Operand) -> Result<(), BodyError> {
    match o {
        Operand::Reg { name, sel } => {
            out.push(reg_sel(name.index() as u32, *sel));
            Ok(())
        }
        _ => push_other(out, o),
    }
}

fn push_other(out: &mut Vec<Cell>, o: &Operand) -> Result<(), BodyError> {
    match o {
        Operand::Reg { name, sel } => out.push(reg_sel(name.index() as u32, *sel)),
        Operand::Special { reg, sel } => {
            let (kind, v) = reg.family_number();
            out.push(special(kind, v, *sel));
        }
        Operand::Int(v) => int(out, *v),
        Operand::Uint(v) => uint(out, *v),
        Operand::F32(v) => out.push(f32_bits(*v)),
        Operand::F64(v) => f64_bits(out, *v),
        Operand::Dec(v) => dec_bits(out, *v),
        Operand::Sym { name, offset } => sym(out, *name, *offset),
        Operand::Addr {
            base,
            offset,
            unified,
        } => addr(out, *base, *offset, *unified),
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            let kind = match o {
                Operand::Vector(_) => ListKind::Vector,
                Operand::Tuple(_) => ListKind::Tuple,
                _ => ListKind::Args,
            };
            let at = open(out);
            for x in v.iter() {
                push(out, x)?;
            }
            close_list(out, at, kind, v.len())?;
        }
        Operand::Pair(p) => {
            let at = open(out);
            push(out, &p[0])?;
            push(out, &p[1])?;
            close_pair(out, at)?;
        }
        Operand::Neg(x) => {
            let at = open(out);
            push(out, x)?;
            close_neg(out, at)?;
        }
        Operand::Not(n) => out.push(not(*n)),
        Operand::Sink => out.push(sink()),
    }
    Ok(())
}

// The constructors below are the one definition of each cell (the bytecode decoder writes
// cells through them too), so that cells stay canonical.

/// A register with a selector (or none).
#[inline]
pub(super) fn reg_sel(index: u32, sel: Selector) -> Cell {
    Cell::new(REG, u64::from(index) | u64::from(sel.bits()) << 32)
}

/// A special register by family and number (see [`SpecialReg::family_number`]).
#[inline]
pub(super) fn special(kind: u8, v: u8, sel: Selector) -> Cell {
    Cell::new(
        SPECIAL,
        u64::from(kind) | u64::from(v) << 8 | u64::from(sel.bits()) << 16,
    )
}

/// A signed integer.
#[inline]
pub(super) fn int(out: &mut Vec<Cell>, v: i64) {
    if fits_signed(v, 56) {
        out.push(Cell::new(INT, signed_field(v, 56)));
    } else {
        out.push(Cell::new(INT_WIDE, 0));
        out.push(Cell(v as u64));
    }
}

/// An unsigned integer.
#[inline]
pub(super) fn uint(out: &mut Vec<Cell>, v: u64) {
    if v < 1 << 56 {
        out.push(Cell::new(UINT, v));
    } else {
        out.push(Cell::new(UINT_WIDE, 0));
        out.push(Cell(v));
    }
}

/// A single-precision literal.
#[inline]
pub(super) fn f32_bits(v: u32) -> Cell {
    Cell::new(F32, u64::from(v))
}

/// A double-precision literal.
#[inline]
pub(super) fn f64_bits(out: &mut Vec<Cell>, v: u64) {
    out.push(Cell::new(F64, 0));
    out.push(Cell(v));
}

/// A decimal literal.
#[inline]
pub(super) fn dec_bits(out: &mut Vec<Cell>, v: u64) {
    out.push(Cell::new(DEC, 0));
    out.push(Cell(v));
}

/// A symbol with an offset.
#[inline]
pub(super) fn sym(out: &mut Vec<Cell>, name: Name, offset: i64) {
    let n = name.index() as u64;
    if fits_signed(offset, 24) {
        out.push(Cell::new(SYM, n | signed_field(offset, 24) << 32));
    } else {
        out.push(Cell::new(SYM_WIDE, n));
        out.push(Cell(offset as u64));
    }
}

/// An address.
#[inline]
pub(super) fn addr(out: &mut Vec<Cell>, base: Option<Name>, offset: i64, unified: bool) {
    let head = base.map_or(0, |b| b.index() as u64 + 1) | u64::from(unified) << 32;
    if fits_signed(offset, 23) {
        out.push(Cell::new(ADDR, head | signed_field(offset, 23) << 33));
    } else {
        out.push(Cell::new(ADDR_WIDE, head));
        out.push(Cell(offset as u64));
    }
}

/// A negated predicate.
#[inline]
pub(super) fn not(n: Name) -> Cell {
    Cell::new(NOT, n.index() as u64)
}

/// The sink `_`.
#[inline]
pub(super) fn sink() -> Cell {
    Cell::new(SINK, 0)
}

/// Where a cell of tag `tag` holds a name: `Some((bias, data))` with the name stored as its
/// payload's low 32 bits minus `bias` (`u32::MAX`: no name) and `data` data cells following it;
/// `None` for a tag no cell has.
#[inline(always)]
fn name_layout(tag: u8) -> Option<(u32, usize)> {
    Some(match tag {
        REG | SYM | NOT => (0, 0),
        SYM_WIDE => (0, 1),
        ADDR => (1, 0),
        ADDR_WIDE => (1, 1),
        INT_WIDE | UINT_WIDE | F64 | DEC => (u32::MAX, 1),
        SPECIAL | INT | UINT | F32 | VECTOR | TUPLE | ARGS | PAIR | NEG | SINK => (u32::MAX, 0),
        _ => return None,
    })
}

/// Calls `f` on every name in `cells`, in order (as [`names_mut`], without renaming).
#[inline]
pub(super) fn names(cells: &[Cell], f: &mut impl FnMut(&Name)) {
    let mut pos = 0;
    while let Some(c) = cells.get(pos) {
        let low = c.payload() as u32;
        // Most cells are registers.
        if c.tag() == REG {
            f(&Name::from_index(low as usize));
            pos += 1;
            continue;
        }
        let Some((bias, data)) = name_layout(c.tag()) else {
            return;
        };
        if bias != u32::MAX && low >= bias && low != u32::MAX {
            f(&Name::from_index((low - bias) as usize));
        }
        pos += 1 + data;
    }
}

/// Calls `f` on every name in `cells` (operands one after another, list elements in order),
/// letting it change the name in place; stops at the first malformed cell.
pub(super) fn names_mut(cells: &mut [Cell], f: &mut impl FnMut(&mut Name)) {
    // A name is the payload's low 32 bits (an address's base plus one, 0 for none).
    const LOW: u64 = 0xffff_ffff << 8;
    let mut pos = 0;
    while let Some(c) = cells.get_mut(pos) {
        let low = c.payload() as u32;
        let Some((bias, data)) = name_layout(c.tag()) else {
            return;
        };
        if bias != u32::MAX && low >= bias && low != u32::MAX {
            let mut n = Name::from_index((low - bias) as usize);
            f(&mut n);
            match u32::try_from(n.index() + bias as usize) {
                Ok(v) if v != u32::MAX => c.0 = (c.0 & !LOW) | u64::from(v) << 8,
                _ => return,
            }
        }
        pos += 1 + data;
    }
}

/// The bracket kinds of list operands ([`Token::List`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// A vector `{a, b}` ([`Operand::Vector`]).
    Vector,
    /// A tuple `[a, b]` ([`Operand::Tuple`]).
    Tuple,
    /// A call's arguments `(a, b)` ([`Operand::Args`]).
    Args,
}

/// Reserves the header of a list, pair or negation; its contents follow, then a `close_*`.
#[inline]
pub(super) fn open(out: &mut Vec<Cell>) -> usize {
    out.push(Cell::default());
    out.len() - 1
}

/// Completes the list opened at `at`, of `items` operands.
#[inline]
pub(super) fn close_list(
    out: &mut [Cell],
    at: usize,
    kind: ListKind,
    items: usize,
) -> Result<(), BodyError> {
    let span = out.len() - at - 1;
    if items as u64 > MAX_COUNT || span as u64 > MAX_COUNT {
        return Err(too_many(span.max(items)));
    }
    let tag = match kind {
        ListKind::Vector => VECTOR,
        ListKind::Tuple => TUPLE,
        ListKind::Args => ARGS,
    };
    out[at] = Cell::new(tag, items as u64 | (span as u64) << 28);
    Ok(())
}

#[inline]
fn close_nested(out: &mut [Cell], at: usize, tag: u8) -> Result<(), BodyError> {
    let span = out.len() - at - 1;
    if span as u64 > MAX_COUNT {
        return Err(too_many(span));
    }
    out[at] = Cell::new(tag, span as u64);
    Ok(())
}

/// Completes the pair opened at `at`.
#[inline]
pub(super) fn close_pair(out: &mut [Cell], at: usize) -> Result<(), BodyError> {
    close_nested(out, at, PAIR)
}

/// Completes the negation opened at `at`.
#[inline]
pub(super) fn close_neg(out: &mut [Cell], at: usize) -> Result<(), BodyError> {
    close_nested(out, at, NEG)
}

/// The data cell after the head at `pos`.
fn data(cells: &[Cell], pos: &mut usize) -> Option<u64> {
    let c = cells.get(*pos)?;
    *pos += 1;
    Some(c.0)
}

/// Reads the operand at `pos` and moves past it; `None` (and `pos` anywhere) if the cells are
/// malformed.
pub(crate) fn read(cells: &[Cell], pos: &mut usize) -> Option<Operand> {
    Some(match view(cells, pos)? {
        Token::Reg(name, sel) => Operand::Reg { name, sel },
        Token::Special(reg, sel) => Operand::Special { reg, sel },
        Token::Int(v) => Operand::Int(v),
        Token::Uint(v) => Operand::Uint(v),
        Token::F32(v) => Operand::F32(v),
        Token::F64(v) => Operand::F64(v),
        Token::Dec(v) => Operand::Dec(v),
        Token::Sym(name, offset) => Operand::Sym { name, offset },
        Token::Addr(base, offset, unified) => Operand::Addr {
            base,
            offset,
            unified,
        },
        Token::List(kind, n) => {
            // Every element takes a cell: a count past the pool is malformed.
            if n > cells.len().saturating_sub(*pos) {
                return None;
            }
            let mut v = OperandList::with_capacity(n);
            for _ in 0..n {
                v.push(read(cells, pos)?);
            }
            let v = Box::new(v);
            match kind {
                ListKind::Vector => Operand::Vector(v),
                ListKind::Tuple => Operand::Tuple(v),
                ListKind::Args => Operand::Args(v),
            }
        }
        Token::Pair => Operand::Pair(Box::new([read(cells, pos)?, read(cells, pos)?])),
        Token::Neg => Operand::Neg(Box::new(read(cells, pos)?)),
        Token::Not(n) => Operand::Not(n),
        Token::Sink => Operand::Sink,
    })
}

/// Moves `pos` past the operand there, without building it.
fn skip(cells: &[Cell], pos: &mut usize) -> Option<()> {
    let c = *cells.get(*pos)?;
    *pos += 1;
    let span = match c.tag() {
        INT_WIDE | UINT_WIDE | F64 | DEC | SYM_WIDE | ADDR_WIDE => 1,
        VECTOR | TUPLE | ARGS => (c.payload() >> 28) as usize,
        PAIR | NEG => c.payload() as usize,
        REG | SPECIAL | INT | UINT | F32 | SYM | ADDR | NOT | SINK => 0,
        _ => return None,
    };
    if span > cells.len() - *pos {
        return None;
    }
    *pos += span;
    Some(())
}

/// One operand of a compact body's pool in pre-order, with the elements of a list, pair or
/// negation left to the tokens that follow it: what an encoder that writes operands in
/// pre-order reads, without building them ([`Pool::tokens`](super::Pool::tokens)).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Token {
    /// A register and its selector ([`Operand::Reg`]).
    Reg(Name, Selector),
    /// A special register and its selector ([`Operand::Special`]).
    Special(SpecialReg, Selector),
    /// [`Operand::Int`].
    Int(i64),
    /// [`Operand::Uint`].
    Uint(u64),
    /// [`Operand::F32`] (the bits).
    F32(u32),
    /// [`Operand::F64`] (the bits).
    F64(u64),
    /// [`Operand::Dec`] (the bits).
    Dec(u64),
    /// A symbol and its offset ([`Operand::Sym`]).
    Sym(Name, i64),
    /// An address: base, offset, `.unified` ([`Operand::Addr`]).
    Addr(Option<Name>, i64, bool),
    /// A list of this many operands, which follow.
    List(ListKind, usize),
    /// A pair `a|b`: two operands follow.
    Pair,
    /// A negation `-a`: one operand follows.
    Neg,
    /// A negated predicate `!p`.
    Not(Name),
    /// The sink `_`.
    Sink,
}

/// The view of the cell at `pos` (moving past it and its data cell); `None` if malformed.
#[inline]
pub(super) fn view(cells: &[Cell], pos: &mut usize) -> Option<Token> {
    let c = *cells.get(*pos)?;
    *pos += 1;
    let p = c.payload();
    Some(match c.tag() {
        REG => Token::Reg(c.name()?, Selector::from_bits((p >> 32) as u16)),
        SPECIAL => Token::Special(
            SpecialReg::from_family_number(p as u8, (p >> 8) as u8)?,
            Selector::from_bits((p >> 16) as u16),
        ),
        INT => Token::Int(from_signed_field(p, 56)),
        INT_WIDE => Token::Int(data(cells, pos)? as i64),
        UINT => Token::Uint(p),
        UINT_WIDE => Token::Uint(data(cells, pos)?),
        F32 => Token::F32(p as u32),
        F64 => Token::F64(data(cells, pos)?),
        DEC => Token::Dec(data(cells, pos)?),
        SYM => Token::Sym(c.name()?, from_signed_field(p >> 32, 24)),
        SYM_WIDE => Token::Sym(c.name()?, data(cells, pos)? as i64),
        ADDR | ADDR_WIDE => {
            let base = (p as u32)
                .checked_sub(1)
                .map(|b| Name::from_index(b as usize));
            let offset = if c.tag() == ADDR {
                from_signed_field(p >> 33, 23)
            } else {
                data(cells, pos)? as i64
            };
            Token::Addr(base, offset, p >> 32 & 1 != 0)
        }
        VECTOR => Token::List(ListKind::Vector, (p & MAX_COUNT) as usize),
        TUPLE => Token::List(ListKind::Tuple, (p & MAX_COUNT) as usize),
        ARGS => Token::List(ListKind::Args, (p & MAX_COUNT) as usize),
        PAIR => Token::Pair,
        NEG => Token::Neg,
        NOT => Token::Not(c.name()?),
        SINK => Token::Sink,
        _ => return None,
    })
}

/// The operands of an instruction (or of a whole pool): borrowed from a statement tree, or
/// read from a compact body's cells. Iteration yields each operand; from cells, it is built
/// on the fly (a list operand allocates its list).
#[derive(Copy, Clone)]
pub struct Operands<'a>(Repr<'a>);

#[derive(Copy, Clone)]
enum Repr<'a> {
    Tree(&'a [Operand]),
    Cells(&'a [Cell]),
}

impl<'a> Operands<'a> {
    pub(crate) fn cells(cells: &'a [Cell]) -> Operands<'a> {
        Operands(Repr::Cells(cells))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        match self.0 {
            Repr::Tree(t) => t.is_empty(),
            Repr::Cells(c) => c.is_empty(),
        }
    }

    /// How many there are (counted through the cells of a compact body).
    pub fn len(&self) -> usize {
        match self.0 {
            Repr::Tree(t) => t.len(),
            Repr::Cells(c) => {
                let (mut pos, mut n) = (0, 0);
                while pos < c.len() && skip(c, &mut pos).is_some() {
                    n += 1;
                }
                n
            }
        }
    }

    /// The operands in order.
    pub fn iter(&self) -> OperandsIter<'a> {
        OperandsIter(match self.0 {
            Repr::Tree(t) => IterRepr::Tree(t.iter()),
            Repr::Cells(c) => IterRepr::Cells(c, 0),
        })
    }

    /// The operands as an owned list.
    pub fn to_vec(&self) -> Vec<Operand> {
        self.iter().map(Cow::into_owned).collect()
    }
}

/// What [`Operands::scan`] finds in an operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    /// A name: a register, a symbol, an address base, a negated predicate.
    Name(Name),
    /// A selector after a register or special register (never [`Selector::NONE`]).
    Selector(Selector),
    /// A special register.
    Special(SpecialReg),
    /// Cells that are not a well-formed operand (only a bug could make them).
    Malformed,
}

impl<'a> Operands<'a> {
    /// Calls `f` with the index of the operand and each name, selector and special register
    /// in it, in order, and returns the deepest nesting of lists, pairs and negations (0 for
    /// none). Scans cells without building operands; stops at the first error of `f`.
    #[inline]
    pub fn scan<E>(&self, mut f: impl FnMut(usize, Atom) -> Result<(), E>) -> Result<usize, E> {
        match self.0 {
            Repr::Tree(t) => {
                let mut deepest = 0;
                for (i, o) in t.iter().enumerate() {
                    deepest = deepest.max(scan_operand(o, 0, &mut |a| f(i, a))?);
                }
                Ok(deepest)
            }
            Repr::Cells(c) => scan_cells(c, f),
        }
    }
}

fn scan_operand<E>(
    o: &Operand,
    depth: usize,
    f: &mut impl FnMut(Atom) -> Result<(), E>,
) -> Result<usize, E> {
    let sel = |s: Selector, f: &mut dyn FnMut(Atom) -> Result<(), E>| {
        if s.is_none() {
            Ok(())
        } else {
            f(Atom::Selector(s))
        }
    };
    match o {
        Operand::Reg { name, sel: s } => {
            f(Atom::Name(*name))?;
            sel(*s, f)?;
        }
        Operand::Special { reg, sel: s } => {
            f(Atom::Special(*reg))?;
            sel(*s, f)?;
        }
        Operand::Sym { name, .. } | Operand::Not(name) => f(Atom::Name(*name))?,
        Operand::Addr { base: Some(b), .. } => f(Atom::Name(*b))?,
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            let mut deepest = depth + 1;
            for x in v.iter() {
                deepest = deepest.max(scan_operand(x, depth + 1, f)?);
            }
            return Ok(deepest);
        }
        Operand::Pair(p) => {
            let a = scan_operand(&p[0], depth + 1, f)?;
            return Ok(a.max(scan_operand(&p[1], depth + 1, f)?));
        }
        Operand::Neg(x) => return scan_operand(x, depth + 1, f),
        _ => {}
    }
    Ok(depth)
}

#[inline]
fn scan_cells<E>(c: &[Cell], mut f: impl FnMut(usize, Atom) -> Result<(), E>) -> Result<usize, E> {
    // Elements still to come of each open list, pair or negation.
    let mut open: Vec<usize> = Vec::new();
    let (mut pos, mut top, mut deepest) = (0usize, 0usize, 0usize);
    while pos < c.len() {
        match open.last_mut() {
            Some(left) => *left -= 1,
            None => top += 1,
        }
        let index = top - 1;
        // Most cells are registers: test them without building a view.
        let cell = c[pos];
        if cell.tag() == REG {
            pos += 1;
            let p = cell.payload();
            if let Some(n) = cell.name() {
                f(index, Atom::Name(n))?;
                let sel = Selector::from_bits((p >> 32) as u16);
                if !sel.is_none() {
                    f(index, Atom::Selector(sel))?;
                }
                while open.last() == Some(&0) {
                    open.pop();
                }
                continue;
            }
            pos -= 1;
        }
        let Some(v) = view(c, &mut pos) else {
            f(index, Atom::Malformed)?;
            return Ok(deepest);
        };
        let none = Selector::NONE;
        let (atom, sel, elements) = match v {
            Token::Reg(n, s) => (Some(Atom::Name(n)), s, None),
            Token::Special(r, s) => {
                let r = Atom::Special(r);
                (Some(r), s, None)
            }
            Token::Sym(n, _) | Token::Not(n) | Token::Addr(Some(n), ..) => {
                (Some(Atom::Name(n)), none, None)
            }
            Token::List(_, n) => (None, none, Some(n)),
            Token::Pair => (None, none, Some(2)),
            Token::Neg => (None, none, Some(1)),
            Token::Int(_)
            | Token::Uint(_)
            | Token::F32(_)
            | Token::F64(_)
            | Token::Dec(_)
            | Token::Addr(None, ..)
            | Token::Sink => (None, none, None),
        };
        if let Some(a) = atom {
            f(index, a)?;
        }
        if !sel.is_none() {
            f(index, Atom::Selector(sel))?;
        }
        if let Some(n) = elements {
            // An empty list is a level too, as in the tree.
            deepest = deepest.max(open.len() + 1);
            open.push(n);
        }
        while open.last() == Some(&0) {
            open.pop();
        }
    }
    if !open.is_empty() {
        // The cells end inside a list.
        f(top.saturating_sub(1), Atom::Malformed)?;
    }
    Ok(deepest)
}

impl<'a> From<&'a [Operand]> for Operands<'a> {
    fn from(t: &'a [Operand]) -> Operands<'a> {
        Operands(Repr::Tree(t))
    }
}

impl<'a> IntoIterator for Operands<'a> {
    type Item = Cow<'a, Operand>;
    type IntoIter = OperandsIter<'a>;
    fn into_iter(self) -> OperandsIter<'a> {
        self.iter()
    }
}

impl PartialEq for Operands<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (Repr::Cells(a), Repr::Cells(b)) => a == b,
            _ => self.iter().eq(other.iter()),
        }
    }
}

impl Eq for Operands<'_> {}

impl fmt::Debug for Operands<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Iterator over [`Operands`].
#[derive(Clone)]
pub struct OperandsIter<'a>(IterRepr<'a>);

#[derive(Clone)]
enum IterRepr<'a> {
    Tree(std::slice::Iter<'a, Operand>),
    Cells(&'a [Cell], usize),
}

impl<'a> Iterator for OperandsIter<'a> {
    type Item = Cow<'a, Operand>;

    #[inline]
    fn next(&mut self) -> Option<Cow<'a, Operand>> {
        match &mut self.0 {
            IterRepr::Tree(t) => t.next().map(Cow::Borrowed),
            IterRepr::Cells(c, pos) => {
                // Registers are most operands: built here, without the general reader's call.
                if c.get(*pos).is_some_and(|cell| cell.tag() == REG) {
                    if let Some(Token::Reg(name, sel)) = view(c, pos) {
                        return Some(Cow::Owned(Operand::Reg { name, sel }));
                    }
                }
                let o = read(c, pos);
                if o.is_none() {
                    // Malformed or at the end: stop for good.
                    *pos = c.len();
                }
                o.map(Cow::Owned)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(o: Operand) -> usize {
        let mut cells = Vec::new();
        push(&mut cells, &o).unwrap();
        let mut pos = 0;
        assert_eq!(read(&cells, &mut pos).as_ref(), Some(&o), "{o:?}");
        assert_eq!(pos, cells.len());
        let mut end = 0;
        skip(&cells, &mut end).unwrap();
        assert_eq!(end, cells.len());
        cells.len()
    }

    #[test]
    fn operands_round_trip_in_their_short_form_where_they_fit() {
        let n = Name::from_index(7);
        let big = Name::from_index(u32::MAX as usize - 1);
        assert_eq!(round_trip(Operand::reg(n)), 1);
        assert_eq!(round_trip(Operand::reg(big)), 1);
        assert_eq!(
            round_trip(Operand::Reg {
                name: n,
                sel: Selector::from_bits(0xffff)
            }),
            1
        );
        for v in [0, 1, -1, (1 << 55) - 1, -(1 << 55)] {
            assert_eq!(round_trip(Operand::Int(v)), 1);
        }
        for v in [1 << 55, -(1 << 55) - 1, i64::MAX, i64::MIN] {
            assert_eq!(round_trip(Operand::Int(v)), 2);
        }
        assert_eq!(round_trip(Operand::Uint((1 << 56) - 1)), 1);
        assert_eq!(round_trip(Operand::Uint(u64::MAX)), 2);
        assert_eq!(round_trip(Operand::F32(u32::MAX)), 1);
        assert_eq!(round_trip(Operand::F64(u64::MAX)), 2);
        assert_eq!(round_trip(Operand::Dec(0x3ff0_0000_0000_0000)), 2);
        for (offset, len) in [(0, 1), ((1 << 23) - 1, 1), (-(1 << 23), 1), (1 << 23, 2)] {
            assert_eq!(round_trip(Operand::Sym { name: big, offset }), len);
        }
        for (offset, len) in [(0, 1), ((1 << 22) - 1, 1), (-(1 << 22), 1), (1 << 22, 2)] {
            for base in [None, Some(n), Some(big)] {
                for unified in [false, true] {
                    let a = Operand::Addr {
                        base,
                        offset,
                        unified,
                    };
                    assert_eq!(round_trip(a), len);
                }
            }
        }
        for r in SpecialReg::PLAIN
            .iter()
            .copied()
            .chain([SpecialReg::Pm(7), SpecialReg::Envreg(31)])
        {
            round_trip(Operand::Special {
                reg: r,
                sel: Selector::from_bits(3),
            });
        }
        let v = Operand::Vector(Box::new(
            [Operand::reg(n), Operand::Sink, Operand::Int(i64::MIN)]
                .into_iter()
                .collect(),
        ));
        assert_eq!(round_trip(v.clone()), 5);
        let nested = Operand::Pair(Box::new([
            Operand::Tuple(Box::new([v.clone(), Operand::Not(n)].into_iter().collect())),
            Operand::Neg(Box::new(Operand::Args(Box::default()))),
        ]));
        assert_eq!(round_trip(nested), 10);
    }

    #[test]
    fn cells_and_trees_answer_alike() {
        // Operands, counts, scanned atoms and nesting depth agree between the two forms.
        let n = Name::from_index(3);
        let list = |v: Vec<Operand>| Box::new(v.into_iter().collect::<OperandList>());
        let ops = vec![
            Operand::Reg {
                name: n,
                sel: Selector::from_bits(2),
            },
            Operand::Special {
                reg: SpecialReg::PLAIN[0],
                sel: Selector::NONE,
            },
            Operand::Int(i64::MAX),
            Operand::Addr {
                base: Some(Name::from_index(9)),
                offset: 1 << 40,
                unified: false,
            },
            Operand::Vector(list(vec![Operand::reg(n); 11])),
            Operand::Pair(Box::new([
                Operand::Tuple(list(vec![Operand::Not(n), Operand::Sink])),
                Operand::Neg(Box::new(Operand::Neg(Box::new(Operand::Sym {
                    name: n,
                    offset: -1,
                })))),
            ])),
            Operand::Args(list(vec![])),
        ];
        let mut cells = Vec::new();
        for o in &ops {
            push(&mut cells, o).unwrap();
        }
        let tree = Operands::from(&ops[..]);
        let packed = Operands::cells(&cells);
        assert_eq!(packed.to_vec(), ops);
        assert_eq!(packed, tree);
        assert_eq!((packed.len(), tree.len()), (ops.len(), ops.len()));
        let scan = |o: Operands<'_>| {
            let mut atoms = Vec::new();
            let depth = o.scan(|i, a| {
                atoms.push((i, a));
                Ok::<(), ()>(())
            });
            (depth, atoms)
        };
        let (depth, atoms) = scan(tree);
        assert_eq!(depth, Ok(3));
        assert_eq!(scan(packed), (depth, atoms.clone()));
        assert_eq!(atoms.first(), Some(&(0, Atom::Name(n))));
        assert_eq!(atoms.last(), Some(&(5, Atom::Name(n))));
    }

    #[test]
    fn malformed_cells_stop_reading_without_a_panic() {
        let mut cells = Vec::new();
        push(
            &mut cells,
            &Operand::Vector(Box::new([Operand::Int(i64::MAX)].into_iter().collect())),
        )
        .unwrap();
        // Cut anywhere: reading and skipping stop.
        for cut in 0..cells.len() {
            let mut pos = 0;
            assert!(read(&cells[..cut], &mut pos).is_none());
            let mut pos = 0;
            assert!(skip(&cells[..cut], &mut pos).is_none());
        }
        let bad = [Cell(0xff)];
        assert!(read(&bad, &mut 0).is_none());
        assert_eq!(Operands::cells(&bad).iter().count(), 0);
        assert_eq!(Operands::cells(&bad).len(), 0);
    }
}
