//! Instructions and operands: the reader's hot path.

use super::expr::{eval_int, negative_literal};
use super::{fail, ws_inline, NameTable, Reader, WordInfo, FITS, NO_SHAPE, PLAIN};
use crate::error::{PErr, PResult};
use crate::lex::{self, expect, ident, inst_word, is_ident_char, qual_word, ws, Number};
use nom::Err;
use ptx_ir_core::body::ListKind;
use ptx_ir_core::{
    Expr, Guard, Literal, Modifier, Mods, Name, Opcode, Operand, OperandList, Selector, SpecialReg,
};

/// Nesting bound for operands (vectors inside pairs inside tuples ...), shared with the
/// bytecode.
use ptx_ir_core::limits::{operand_depth, MAX_OPERAND_DEPTH};

impl Reader<'_> {
    /// `@p inst` / `@!p inst`.
    pub(crate) fn guarded<'a>(&mut self, i: &'a [u8]) -> PResult<'a, ()> {
        let (r, ()) = ws(&i[1..])?;
        let (r, negated) = match r.first() {
            Some(b'!') => (&r[1..], true),
            _ => (r, false),
        };
        let (r, pred) = self.ident_name(r)?;
        let (r, ()) = ws(r)?;
        self.instruction(r, Some(Guard { pred, negated }))
    }

    /// An instruction up to and including its `;`, appended to the body being built.
    pub(crate) fn instruction<'a>(&mut self, i: &'a [u8], guard: Option<Guard>) -> PResult<'a, ()> {
        let (r, word) =
            inst_word(i).map_err(|_| Err::Failure(PErr::at(i, "expected an instruction")))?;
        // Instruction words repeat: each distinct one is resolved once per thread.
        let word_id = match self.words.short.get(word, i) {
            Some(v) => v as usize - 1,
            None => {
                let id = match self.words.names.find_bytes(word) {
                    Some(n) => n.index(),
                    None => self.resolve_word(i, word)?,
                };
                if let Ok(v) = u32::try_from(id + 1) {
                    self.words.short.put(word, v);
                }
                id
            }
        };
        let info = &self.words.info[word_id];
        let opcode = info.opcode;
        let call = opcode == Opcode::Call;
        // What `Form::match_operands` looks at, 5 bits per operand (see `shape`).
        let mut shapes = 0u64;
        let mut count = 0u32;
        // One space, or nvcc's space and tab, between the word and its operands.
        let mut r = match r {
            [b' ', c, ..] if !lex::is_blank_or_slash(*c) => &r[1..],
            [b' ', b'\t', c, ..] if !lex::is_blank_or_slash(*c) => &r[2..],
            _ => ws(r)?.0,
        };
        if r.first() != Some(&b';') {
            loop {
                if let Some((x, name)) = self.cached_register_window(r) {
                    self.body.push_register(name);
                    shapes = shapes << 5 | shape::REG;
                    count += 1;
                    // `x` is at the `,` or `;`.
                    if x[0] == b',' {
                        r = ws(&x[1..])?.0;
                        continue;
                    }
                    r = x;
                    break;
                }
                let after = match Self::register_token(r, b'}') {
                    Some((x, w)) => {
                        match self.cached_register(r, w) {
                            Some(name) => {
                                self.body.push_register(name);
                                shapes = shapes << 5 | shape::REG;
                            }
                            None => match self.percent_name_uncached(r, w)? {
                                // A new register (NCCL meets one per instruction).
                                Err(name) => {
                                    self.body.push_register(name);
                                    shapes = shapes << 5 | shape::REG;
                                }
                                Ok(reg) => {
                                    let o = Operand::Special {
                                        reg,
                                        sel: Selector::NONE,
                                    };
                                    shapes = shapes << 5 | shape_code(&o);
                                    self.push_operand(r, o)?;
                                }
                            },
                        }
                        x
                    }
                    None => match self.plain_operand(r, call)? {
                        Some((x, code)) => {
                            shapes = shapes << 5 | code;
                            x
                        }
                        None => {
                            let (x, o) = self.operand(r, call, 0)?;
                            shapes = shapes << 5 | shape_code(&o);
                            self.push_operand(r, o)?;
                            x
                        }
                    },
                };
                count += 1;
                // Most operands end at their `,` or `;`.
                let x = match after.first() {
                    Some(b',' | b';') => after,
                    _ => ws(after)?.0,
                };
                match x.first() {
                    Some(b',') => {
                        let (y, ()) = ws(&x[1..])?;
                        r = y;
                    }
                    Some(b';') => {
                        r = x;
                        break;
                    }
                    _ => {
                        return fail(
                            end_of_line(after, x),
                            "expected `,` or `;` after an operand",
                        )
                    }
                }
            }
        }
        let r = &r[1..];
        // A form that takes these qualifiers and these operands makes the instruction valid
        // (as in `check`); otherwise the full check finds what is wrong. Whether operands fit
        // depends only on their shapes: a word's last fitting shapes stand for the match.
        let shape = if count <= 12 {
            shapes | u64::from(count) << 60
        } else {
            NO_SHAPE
        };
        let info = &self.words.info[word_id];
        // Some words take several shapes in turn (`mov` of a register, of a constant).
        let known = shape != NO_SHAPE && info.fits.contains(&shape);
        if !known {
            let operands = self.body.pending_operands().to_vec();
            let forms = info.all_forms;
            if !info
                .forms
                .iter()
                .any(|&k| forms[k as usize].match_operands(&operands))
            {
                check_forms(i, opcode, &info.mods, &operands)?;
            }
        }
        if let Err(e) = self.body.push_inst(guard, opcode, &info.mods) {
            return fail(i, e.to_string());
        }
        if !known && shape != NO_SHAPE {
            let fits = &mut self.words.info[word_id].fits;
            fits.rotate_right(1);
            fits[0] = shape;
        }
        Ok((r, ()))
    }

    /// The next most common operands after registers, a literal (`0d3FF0000000000000`, `8`)
    /// or an address of a name (`[%rd4+16]`, `[foo_param_0]`) followed by `,` or `;`, appended to the instruction
    /// being read without building an [`Operand`]. Returns the rest and the operand's shape
    /// code, or `None` (having appended nothing) for any other operand, which the general
    /// reader then reads from the start.
    #[inline]
    fn plain_operand<'a>(
        &mut self,
        i: &'a [u8],
        call: bool,
    ) -> Result<Option<(&'a [u8], u64)>, Err<PErr>> {
        let ends = |x: &[u8]| matches!(x.first(), Some(b',' | b';'));
        if super::general_only() {
            return Ok(None);
        }
        match i.first() {
            Some(b'0'..=b'9') => {
                let Ok((x, n)) = lex::number(i) else {
                    return Ok(None);
                };
                if !ends(x) {
                    return Ok(None);
                }
                let (lit, code) = match n {
                    Number::Int(v) => (Literal::Int(v), shape::INT),
                    Number::Uint(v) => (Literal::Uint(v), shape::UINT),
                    Number::F32(v) => (Literal::F32(v), shape::F32),
                    Number::F64(v) => (Literal::F64(v), shape::F64),
                    Number::Dec(v) => (Literal::Dec(v), shape::DEC),
                };
                self.body.push_literal(lit);
                Ok(Some((x, code)))
            }
            // `[%rd4+16]`, and nvcc's parameters `[foo_param_0]`, `[func_retval0+0]`.
            Some(b'[') if i.get(1).is_some_and(|&b| lex::is_ident_start(b)) => {
                let Ok((x, w)) = ident(&i[1..]) else {
                    return Ok(None);
                };
                let (x, off) = match x.first() {
                    Some(b']') => (x, 0),
                    Some(b'+' | b'-') => match offset(x) {
                        Ok((y, off)) if y.first() == Some(&b']') => (y, off),
                        _ => return Ok(None),
                    },
                    _ => return Ok(None),
                };
                let (x, unified) = unified_suffix(&x[1..]);
                if !ends(x) {
                    return Ok(None);
                }
                let base = self.name(&i[1..], w)?;
                self.body.push_address(Some(base), off, unified);
                Ok(Some((x, shape::ADDR)))
            }
            Some(b'{') => self.register_list(i, false),
            // nvcc's `call.uni (retval0), foo, (param0, param1);`
            Some(b'(') if call => self.register_list(i, true),
            _ => match Self::bare_name_token(i, b'}') {
                // A label, parameter or scoped register (`bra $L__BB0_2;`, `low`).
                Some((x, w)) if ends(x) => {
                    let name = self.name(i, w)?;
                    self.body.push_register(name);
                    Ok(Some((x, shape::REG)))
                }
                _ => Ok(None),
            },
        }
    }

    /// A name without `%` directly followed by `,`, `;` or `close` (as for
    /// [`Self::register_token`]), which the general reader
    /// reads as a register operand (a label, a parameter, `.reg .f16 low` inside a scope);
    /// `None` for anything else, including the sink `_` and `WARP_SZ`.
    #[inline]
    fn bare_name_token(i: &[u8], close: u8) -> Option<(&[u8], &[u8])> {
        match i.first() {
            _ if super::general_only() => None,
            Some(&b) if b != b'%' && lex::is_ident_start(b) => {
                let (r, w) = ident(i).ok()?;
                (matches!(r.first(), Some(&c) if c == b',' || c == b';' || c == close)
                    && w != b"_"
                    && w != b"WARP_SZ")
                    .then_some((r, w))
            }
            _ => None,
        }
    }

    /// A list of registers and names, a vector `{%r1, %r2}` or (with `args`) a call's arguments
    /// `(param0, param1)`, followed by `,` or `;`, for [`Self::plain_operand`]: NCCL's and the
    /// half-precision headers' `mov.b32 {%rs1, %rs2}, %r3;`, nvcc's calls, read into cells
    /// without a list to allocate. Anything else leaves nothing pushed (a new name met on the
    /// way stays interned, as the general reader would intern it first too).
    fn register_list<'a>(
        &mut self,
        i: &'a [u8],
        args: bool,
    ) -> Result<Option<(&'a [u8], u64)>, Err<PErr>> {
        let close = if args { b')' } else { b'}' };
        let at = self.body.open();
        let mut r = &i[1..];
        let mut items = 0;
        loop {
            let x = if let Some((x, w)) = Self::register_token(r, close) {
                match self.cached_register(r, w) {
                    Some(name) => self.body.push_register(name),
                    None => match self.percent_name_uncached(r, w)? {
                        Err(name) => self.body.push_register(name),
                        Ok(_) => break,
                    },
                }
                x
            } else if let Some((x, w)) = Self::bare_name_token(r, close) {
                let name = self.name(r, w)?;
                self.body.push_register(name);
                x
            } else {
                break;
            };
            items += 1;
            match x {
                [b',', b' ', y @ ..] | [b',', y @ ..] => r = y,
                [c, y @ ..] if *c == close && matches!(y.first(), Some(b',' | b';')) => {
                    let kind = if args {
                        ListKind::Args
                    } else {
                        ListKind::Vector
                    };
                    let closed = self.body.close_list(at, kind, items);
                    if let Err(e) = closed {
                        return Err(Err::Failure(PErr::at(i, e.to_string())));
                    }
                    return Ok(Some((y, if args { shape::ARGS } else { shape::VECTOR })));
                }
                _ => break,
            }
        }
        self.body.cancel_list(at);
        Ok(None)
    }

    /// Appends an operand that is not a cached register to the instruction being read.
    #[inline]
    fn push_operand(&mut self, at: &[u8], o: Operand) -> Result<(), Err<PErr>> {
        let pushed = self.body.push_operand(&o);
        // Only lists own memory: dropping anything else is a no-op, not a call. (Exhaustive,
        // so that a new variant is sorted here.)
        match o {
            Operand::Vector(_)
            | Operand::Tuple(_)
            | Operand::Args(_)
            | Operand::Pair(_)
            | Operand::Neg(_) => drop(o),
            Operand::Reg { .. }
            | Operand::Special { .. }
            | Operand::Int(_)
            | Operand::Uint(_)
            | Operand::F32(_)
            | Operand::F64(_)
            | Operand::Dec(_)
            | Operand::Sym { .. }
            | Operand::Addr { .. }
            | Operand::Not(_)
            | Operand::Sink => std::mem::forget(o),
        }
        pushed.map_err(|e| Err::Failure(PErr::at(at, e.to_string())))
    }

    /// Splits and resolves a new instruction word (`ld.global.nc.v4.f32`) at `i`: the mnemonic,
    /// the qualifiers and the forms that take them (from the process's resolved words where
    /// another reader resolved it, see [`super::shared_words`]). Returns its index in
    /// `words.info`.
    fn resolve_word(&mut self, i: &[u8], word: &[u8]) -> Result<usize, Err<PErr>> {
        let (opcode, mods, forms) = match super::shared_words::get(word) {
            Some(r) => r,
            None => {
                let r = split_word(i, word)?;
                super::shared_words::put(word, &r);
                r
            }
        };
        let id = self.name_in(NameTable::Words, i, word)?.index();
        debug_assert_eq!(id, self.words.info.len());
        // A word may be as long as the text: what the table holds is bounded in bytes too.
        self.words.bytes += word.len()
            + mods.len() * std::mem::size_of::<ptx_ir_core::Modifier>()
            + std::mem::size_of::<WordInfo>();
        self.words.info.push(WordInfo {
            opcode,
            mods,
            forms,
            all_forms: opcode.forms(),
            fits: [NO_SHAPE; FITS],
        });
        Ok(id)
    }
}

/// The mnemonic, qualifiers and matching forms of the instruction word `word` (read at `i`).
fn split_word(i: &[u8], word: &[u8]) -> Result<super::shared_words::Resolved, Err<PErr>> {
    let Some((opcode, n)) = Opcode::split_mnemonic(word) else {
        let head = word.split(|&b| b == b'.').next().unwrap_or(word);
        return Err(Err::Failure(PErr::at(
            i,
            format!("unknown instruction `{}`", String::from_utf8_lossy(head)),
        )));
    };
    let mut mods = Mods::new();
    let mut q = &word[n..];
    while !q.is_empty() {
        let at = &i[n + (word.len() - n - q.len())..];
        if q[0] != b'.' {
            return Err(Err::Failure(PErr::at(
                at,
                format!("malformed qualifiers after `{}`", opcode.name()),
            )));
        }
        let (rest, w) = qual_word(&q[1..])
            .map_err(|_| Err::Failure(PErr::at(at, "expected a qualifier after `.`")))?;
        match Modifier::lookup(w) {
            Some(m) => mods.push(m),
            None => {
                return Err(Err::Failure(PErr::at(
                    at,
                    format!(
                        "unknown qualifier `.{}` on `{}`",
                        String::from_utf8_lossy(w),
                        opcode.name()
                    ),
                )));
            }
        }
        q = rest;
    }
    let forms = opcode
        .forms()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.match_mods(&mods).is_ok())
        .map(|(k, _)| k as u16)
        .collect();
    Ok((opcode, mods, forms))
}

impl Reader<'_> {
    /// One operand. `call` selects `(...)` as an argument list rather than an expression.
    ///
    /// `depth` is the number of lists, pairs and negations around the operand; one that nests
    /// more inside it than [`MAX_OPERAND_DEPTH`] allows is refused.
    fn operand<'a>(&mut self, i: &'a [u8], call: bool, depth: u32) -> PResult<'a, Operand> {
        let (r, o) = self.operand_single(i, call, depth)?;
        if matches!(r.first(), Some(b',' | b';')) {
            return Ok((r, o));
        }
        // `a|b` pairs.
        let (x, ()) = ws_inline(r);
        if x.first() == Some(&b'|') {
            // The first operand was read before the pair was known: it sits one level deeper
            // than it was counted (rare, and at most MAX_OPERAND_DEPTH levels to count).
            if depth + 1 + operand_depth(&o, MAX_OPERAND_DEPTH) > MAX_OPERAND_DEPTH {
                return too_deep(x);
            }
            let (y, ()) = ws(&x[1..])?;
            let (y, second) = self.operand_single(y, call, depth + 1)?;
            return Ok((y, Operand::Pair(Box::new([o, second]))));
        }
        Ok((r, o))
    }

    fn operand_single<'a>(&mut self, i: &'a [u8], call: bool, depth: u32) -> PResult<'a, Operand> {
        let Some(&c) = i.first() else {
            return fail(i, "expected an operand");
        };
        // Lists, tuples and negations hold operands one level deeper (an address in brackets
        // counts too: it is not known to be one until read).
        let opens = match c {
            b'[' | b'{' => true,
            b'(' => call,
            // `-5` is a literal (as `negative_literal` decides), `-a` a negation.
            b'-' => !i.get(1).is_some_and(u8::is_ascii_digit),
            _ => false,
        };
        if opens && depth >= MAX_OPERAND_DEPTH {
            return too_deep(i);
        }
        match c {
            b'[' => self.bracket(i, depth),
            b'{' => {
                let mut items = Box::default();
                let r = self.list(&i[1..], b'}', call, depth, &mut items)?;
                Ok((r, Operand::Vector(items)))
            }
            b'(' if call => {
                let mut items = Box::default();
                let r = self.list(&i[1..], b')', call, depth, &mut items)?;
                Ok((r, Operand::Args(items)))
            }
            b'(' => {
                let (r, e) = self.expr(i, false)?;
                match eval_int(&e) {
                    Some(v) => Ok((r, Operand::Int(v))),
                    None => fail(i, "expected a constant integer expression"),
                }
            }
            b'!' => {
                let (r, ()) = ws(&i[1..])?;
                let (r, n) = self.ident_name(r)?;
                Ok((r, Operand::Not(n)))
            }
            b'-' => {
                if let Some(lit) = negative_literal(i) {
                    let (r, e) = lit?;
                    return Ok((r, expr_operand(e)));
                }
                let (r, ()) = ws(&i[1..])?;
                let (r, o) = self.operand_single(r, call, depth + 1)?;
                Ok((r, Operand::Neg(Box::new(o))))
            }
            b'0'..=b'9' => {
                let (r, n) = lex::number(i)?;
                Ok((r, number_operand(n)))
            }
            b'_' if !i.get(1).is_some_and(|&b| is_ident_char(b)) => Ok((&i[1..], Operand::Sink)),
            _ => self.named_operand(i),
        }
    }

    /// A register, special register, symbol or symbol with offset, with an optional selector.
    fn named_operand<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Operand> {
        let (r, w) = ident(i).map_err(|_| Err::Failure(PErr::at(i, "expected an operand")))?;
        let (r, w) = hyphenated(i, r, w);
        // A selector `.x`, `.b0`, `.h10` directly after the name.
        let (r, sel) = selector(r);
        let name = if w[0] == b'%' {
            match self.percent_name(i, w)? {
                Ok(reg) => return Ok((r, Operand::Special { reg, sel })),
                Err(name) => name,
            }
        } else if w == b"WARP_SZ" {
            return Ok((
                r,
                Operand::Special {
                    reg: SpecialReg::WarpSz,
                    sel,
                },
            ));
        } else {
            self.name(i, w)?
        };
        if sel.is_none() && !matches!(r.first(), Some(b',' | b';' | b']' | b'}' | b')')) {
            let (x, ()) = ws_inline(r);
            if matches!(x.first(), Some(b'+' | b'-')) && !matches!(x.get(1), Some(b'+' | b'-')) {
                let (y, off) = offset(x)?;
                return Ok((y, Operand::Sym { name, offset: off }));
            }
        }
        Ok((r, Operand::Reg { name, sel }))
    }

    /// The common operand: a `%` name directly followed by `,`, `;` or `close` (the `}` or `)`
    /// of a list being read); returns the rest
    /// and the name's spelling (`None` for any other operand).
    #[inline(always)]
    fn register_token(i: &[u8], close: u8) -> Option<(&[u8], &[u8])> {
        if i.first() != Some(&b'%') {
            return None;
        }
        let (r, w) = ident(i).ok()?;
        matches!(r.first(), Some(&c) if c == b',' || c == b';' || c == close).then_some((r, w))
    }

    /// A register operand the short-name cache knows, found without scanning its name: the
    /// eight bytes at `i` hold a `%` name and then its `,` or `;`, and the bytes before that are
    /// a spelling cached as a plain register operand (which makes them an identifier's: only
    /// `%` names read by [`Self::register_token`] are cached so). Returns the rest from the
    /// `,` or `;`, and the name.
    #[inline(always)]
    fn cached_register_window<'a>(&self, i: &'a [u8]) -> Option<(&'a [u8], Name)> {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        const ONES: u64 = 0x0101_0101_0101_0101;
        if super::general_only() {
            return None;
        }
        let w: [u8; 8] = i.get(..8)?.try_into().ok()?;
        if w[0] != b'%' {
            return None;
        }
        let v = u64::from_le_bytes(w);
        // Bit 7 of each byte equal to `c`, exactly (no borrow between bytes).
        let eq = |c: u8| {
            let x = v ^ (ONES * u64::from(c));
            !(((x & LOW7) + LOW7) | x) & HIGH
        };
        let ends = eq(b',') | eq(b';') | eq(0);
        let t = (ends.trailing_zeros() / 8) as usize;
        // No end in the window, `%` alone, or a NUL first: the general path.
        if !(2..8).contains(&t) || w[t] == 0 {
            return None;
        }
        let key = v & (u64::MAX >> (64 - 8 * t));
        let val = self.short_names.get_key([key])?;
        (val & PLAIN != 0).then(|| (&i[t..], Name::from_index((val & !PLAIN) as usize - 1)))
    }

    /// The register the short-name cache knows `w` (read at `at`) to be, if it does.
    #[inline(always)]
    fn cached_register(&self, at: &[u8], w: &[u8]) -> Option<Name> {
        let v = self.short_names.get(w, at)?;
        (v & PLAIN != 0).then(|| Name::from_index((v & !PLAIN) as usize - 1))
    }

    /// The operand a `%` name the cache did not know stands for.
    fn uncached_register(&mut self, at: &[u8], w: &[u8]) -> Result<Operand, Err<PErr>> {
        Ok(match self.percent_name_uncached(at, w)? {
            Ok(reg) => Operand::Special {
                reg,
                sel: Selector::NONE,
            },
            Err(name) => Operand::Reg {
                name,
                sel: Selector::NONE,
            },
        })
    }

    /// A `%` name: a special register (`Ok`) or an interned name (`Err`). Names known not to
    /// be special registers are found with one lookup.
    #[inline(always)]
    fn percent_name(&mut self, at: &[u8], w: &[u8]) -> Result<Result<SpecialReg, Name>, Err<PErr>> {
        if let Some(v) = self.short_names.get(w, at) {
            if v & PLAIN != 0 {
                return Ok(Err(Name::from_index((v & !PLAIN) as usize - 1)));
            }
        }
        self.percent_name_uncached(at, w)
    }

    /// [`Self::percent_name`] past the short-name cache: kept out of line so that the cached
    /// path stays small enough to inline and its result stays in registers.
    #[inline(never)]
    fn percent_name_uncached(
        &mut self,
        at: &[u8],
        w: &[u8],
    ) -> Result<Result<SpecialReg, Name>, Err<PErr>> {
        // A special register's spelling is never marked plain, so testing for one first gives
        // what a lookup of the name first would, with one hash of the name instead of two.
        if let Some(reg) = SpecialReg::lookup_bytes(w) {
            return Ok(Ok(reg));
        }
        let n = self.name_in(NameTable::Names, at, w)?;
        self.cache_name(at, w, n, true);
        Ok(Err(n))
    }

    /// `[...]`: an address `[base+off]`, `[off]`, or a tuple `[a, b, {c}]`.
    fn bracket<'a>(&mut self, i: &'a [u8], depth: u32) -> PResult<'a, Operand> {
        let (r, ()) = ws(&i[1..])?;
        let first_is_name = r.first().is_some_and(|&b| lex::is_ident_start(b));
        if first_is_name {
            let (x, w) = ident(r)?;
            let (x, ()) = ws(x)?;
            if matches!(x.first(), Some(b'+' | b'-' | b']')) {
                // An address.
                let base = self.name(r, w)?;
                let (x, off) = if x.first() == Some(&b']') {
                    (x, 0)
                } else {
                    offset(x)?
                };
                let (x, ()) = ws(x)?;
                let (x, ()) = expect(x, b']', "expected `]` after the address")?;
                let (x, unified) = unified_suffix(x);
                return Ok((
                    x,
                    Operand::Addr {
                        base: Some(base),
                        offset: off,
                        unified,
                    },
                ));
            }
        } else if r
            .first()
            .is_some_and(|b| b.is_ascii_digit() || *b == b'-' || *b == b'(')
        {
            let (x, e) = self.expr(r, false)?;
            let (x, ()) = ws(x)?;
            if x.first() == Some(&b']') {
                let Some(v) = eval_int(&e) else {
                    return fail(r, "expected a constant address");
                };
                let (x, unified) = unified_suffix(&x[1..]);
                return Ok((
                    x,
                    Operand::Addr {
                        base: None,
                        offset: v,
                        unified,
                    },
                ));
            }
        }
        let mut items = Box::default();
        let x = self.list(r, b']', false, depth, &mut items)?;
        if items.len() < 2 {
            return fail(i, "expected an address `[reg+offset]`");
        }
        Ok((x, Operand::Tuple(items)))
    }

    /// Comma-separated operands up to `close`.
    fn list<'a>(
        &mut self,
        i: &'a [u8],
        close: u8,
        call: bool,
        depth: u32,
        items: &mut OperandList,
    ) -> Result<&'a [u8], Err<PErr>> {
        let (mut r, ()) = ws(i)?;
        if r.first() == Some(&close) {
            return Ok(&r[1..]);
        }
        loop {
            let x = match Self::register_token(r, close) {
                Some((x, w)) => {
                    let o = match self.cached_register(r, w) {
                        Some(name) => Operand::Reg {
                            name,
                            sel: Selector::NONE,
                        },
                        None => self.uncached_register(r, w)?,
                    };
                    items.push(o);
                    x
                }
                None => {
                    let (x, o) = self.operand(r, call, depth + 1)?;
                    items.push(o);
                    x
                }
            };
            let (x, ()) = ws(x)?;
            match x.first() {
                Some(b',') => {
                    let (y, ()) = ws(&x[1..])?;
                    r = y;
                }
                Some(&b) if b == close => return Ok(&x[1..]),
                _ => {
                    let msg = format!("expected `,` or `{}`", close as char);
                    return Err(Err::Failure(PErr::at(x, msg)));
                }
            }
        }
    }
}

/// Operand shape codes (what `Form::match_operands` looks at: the variant, and whether a
/// register has a selector), 5 bits each; only a register without a selector is 0.
mod shape {
    pub const REG: u64 = 0;
    pub const REG_SELECTED: u64 = 1;
    pub const SPECIAL: u64 = 2;
    pub const INT: u64 = 3;
    pub const UINT: u64 = 4;
    pub const F32: u64 = 5;
    pub const F64: u64 = 6;
    pub const DEC: u64 = 7;
    pub const SYM: u64 = 8;
    pub const ADDR: u64 = 9;
    pub const VECTOR: u64 = 10;
    pub const TUPLE: u64 = 11;
    pub const ARGS: u64 = 12;
    pub const PAIR: u64 = 13;
    pub const NOT: u64 = 14;
    pub const NEG: u64 = 15;
    pub const SINK: u64 = 16;
}

/// The shape code of an operand (see [`shape`]).
#[inline]
fn shape_code(o: &Operand) -> u64 {
    match o {
        Operand::Reg { sel, .. } if sel.is_none() => shape::REG,
        Operand::Reg { .. } => shape::REG_SELECTED,
        Operand::Special { .. } => shape::SPECIAL,
        Operand::Int(_) => shape::INT,
        Operand::Uint(_) => shape::UINT,
        Operand::F32(_) => shape::F32,
        Operand::F64(_) => shape::F64,
        Operand::Dec(_) => shape::DEC,
        Operand::Sym { .. } => shape::SYM,
        Operand::Addr { .. } => shape::ADDR,
        Operand::Vector(_) => shape::VECTOR,
        Operand::Tuple(_) => shape::TUPLE,
        Operand::Args(_) => shape::ARGS,
        Operand::Pair(_) => shape::PAIR,
        Operand::Not(_) => shape::NOT,
        Operand::Neg(_) => shape::NEG,
        Operand::Sink => shape::SINK,
    }
}

/// Extends the name `w` (which starts `start`; `r` follows it) over `-name` parts written with no
/// space around the `-`: `cache-policy`, `imm-trans-a`. The PTX ISA writes operand names this way
/// in its syntax and examples. It cannot be read as a symbol and an offset, since an offset must
/// be constant, so only text that would otherwise be rejected is read differently. Registers
/// (`%r-...`) are not extended.
fn hyphenated<'a>(start: &'a [u8], mut r: &'a [u8], w: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    if w[0] == b'%' {
        return (r, w);
    }
    let mut n = w.len();
    while r.first() == Some(&b'-')
        && r.get(1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
    {
        match ident(&r[1..]) {
            Ok((rest, part)) => {
                n += 1 + part.len();
                r = rest;
            }
            Err(_) => break,
        }
    }
    (r, &start[..n])
}

/// `+imm`, `-imm`, `+-imm` or `+(expr)` after a base.
fn offset(i: &[u8]) -> PResult<'_, i64> {
    // Offsets are constant: a throwaway reader keeps any stray symbol out of the module.
    let neg = i[0] == b'-';
    let (r, ()) = ws(&i[1..])?;
    let (r, neg2) = match r.first() {
        Some(b'-') => {
            let (y, ()) = ws(&r[1..])?;
            (y, true)
        }
        _ => (r, false),
    };
    // The usual `+8]` (`+ 0 ]` from Triton): a literal up to the bracket.
    if r.first().is_some_and(u8::is_ascii_digit) {
        if let Ok((x, n)) = lex::number(r) {
            let v = match n {
                Number::Int(v) => Some(v),
                Number::Uint(v) => Some(v as i64),
                _ => None,
            };
            let (x, ()) = ws(x)?;
            if let (Some(v), Some(b']')) = (v, x.first()) {
                return Ok((x, if neg != neg2 { v.wrapping_neg() } else { v }));
            }
        }
    }
    // A sign applies to the first term only (`[a-4-4]` is `a + (-4) - 4`, not `a - (4-4)`):
    // after `-` the expression is read from the `-` itself, as a unary minus (or a negative
    // literal), and after `+` from what follows it.
    let mut rd = super::Reader::new(0);
    let start = if neg { i } else { ws(&i[1..])?.0 };
    let (r, e) = rd.expr(start, false)?;
    let Some(v) = eval_int(&e) else {
        return fail(i, "expected a constant offset");
    };
    Ok((r, v))
}

fn unified_suffix(i: &[u8]) -> (&[u8], bool) {
    if i.starts_with(b".unified") && !i.get(8).is_some_and(|&b| is_ident_char(b)) {
        (&i[8..], true)
    } else {
        (i, false)
    }
}

/// A selector directly after a name: `.x`, `.b0`, `.h10`, `.b3210`.
fn selector(i: &[u8]) -> (&[u8], Selector) {
    if i.first() == Some(&b'.') {
        let n = i[1..]
            .iter()
            .position(|&b| !b.is_ascii_alphanumeric())
            .unwrap_or(i.len() - 1);
        if n > 0 {
            if let Some(s) = std::str::from_utf8(&i[1..1 + n])
                .ok()
                .and_then(Selector::parse)
            {
                return (&i[1 + n..], s);
            }
        }
    }
    (i, Selector::NONE)
}

fn number_operand(n: Number) -> Operand {
    match n {
        Number::Int(v) => Operand::Int(v),
        Number::Uint(v) => Operand::Uint(v),
        Number::F32(v) => Operand::F32(v),
        Number::F64(v) => Operand::F64(v),
        Number::Dec(v) => Operand::Dec(v),
    }
}

fn expr_operand(e: Expr) -> Operand {
    match e {
        Expr::Int(v) => Operand::Int(v),
        Expr::Uint(v) => Operand::Uint(v),
        Expr::F32(v) => Operand::F32(v),
        Expr::F64(v) => Operand::F64(v),
        Expr::Dec(v) => Operand::Dec(v),
        _ => unreachable!("negate returns literals only"),
    }
}

/// Checks qualifiers and operands against the opcode's forms (see `ptx_ir_core::check`).
fn check_forms(
    at: &[u8],
    op: Opcode,
    mods: &[Modifier],
    operands: &[Operand],
) -> Result<(), Err<PErr>> {
    match ptx_ir_core::check::check(op, mods, operands) {
        Ok(_) => Ok(()),
        Err(e) => Err(Err::Failure(PErr::at(at, e.to_string()))),
    }
}

/// Where to report a missing `;`: at the end of the line the operand ended on, if the next token
/// is on a later line, otherwise at the next token.
fn end_of_line<'a>(operand_end: &'a [u8], next: &'a [u8]) -> &'a [u8] {
    let gap = &operand_end[..operand_end.len() - next.len()];
    match gap.iter().position(|&b| b == b'\n' || b == b'\r') {
        Some(p) => &operand_end[p..],
        None => next,
    }
}

/// The error for an operand nested past [`MAX_OPERAND_DEPTH`], at `i`.
fn too_deep<T>(i: &[u8]) -> PResult<'_, T> {
    fail(
        i,
        format!("operand nests deeper than {MAX_OPERAND_DEPTH} levels"),
    )
}
