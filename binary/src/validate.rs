//! The invariants a module must satisfy to be encoded and decoded: those the printer and the
//! other consumers rely on to not panic, and those that make its printed text read back to it
//! (a decoded module is one the reader could have produced).
//!
//! - every [`Name`] indexes the module's string table (consumers call `Interner::get`, which
//!   panics on a foreign name) and is spelled as the reader reads a name: an identifier, with
//!   `-` parts only where symbol operands may have them, or a section name (`.debug_info`) only
//!   where sections take one;
//! - every [`Shape`](ptx_ir_core::Shape) modifier is inside the shape table (its spelling is a
//!   table lookup);
//! - every [`Selector`] is the encoding the reader gives its spelling, and every numbered
//!   special register is in its range (otherwise they print as something else);
//! - every instruction matches a form of its opcode (qualifiers and operand kinds), as the
//!   reader requires; operands are of the shapes the reader produces (no tuple of one operand,
//!   no negated unsigned literal, no register named `_`, no decimal NaN);
//! - the header, declarations, directives and section entries are in the reader's forms: one
//!   to three targets' spellings, an address size of 32 or 64, power-of-two alignments, the
//!   state spaces of their place, an `.entry` without return parameters, one to three values
//!   per `.reqntid`-like directive, strings without quotes or control characters, packed
//!   initialisers only at the top of a list of an 8- to 64-bit integer type, whole elements;
//!   section lines in the one form the reader gives each (`Value`, `Bytes`, byte columns);
//! - expression trees are the ones the reader builds from their printed text (the printer
//!   writes only `Paren`'s parentheses);
//! - recursive values nest at most as deep as the reader lets them ([`ptx_ir_core::limits`]):
//!   `{ }` scopes, initialiser lists, operands and expressions each to their own bound; the
//!   decoder's default depth limit admits all of them at once, so every module that passes
//!   `validate` decodes with the default limits (and the encoder refuses any other).
//!
//! The decoder also requires names numbered in order of first use, as the reader numbers them
//! (the encoder writes them so). Nesting depth is also bounded while decoding (see
//! [`crate::guard`]), so the recursion here is bounded too. The walk matches every IR enum
//! exhaustively: a new variant does not compile until it is handled here.

use ptx_ir_core::limits::{MAX_EXPR_DEPTH, MAX_INIT_DEPTH, MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH};
use ptx_ir_core::names::{is_ident_byte, is_ident_start, is_word_byte};

/// The deepest nesting of recursive IR values a valid module has, whatever their kind: the
/// deepest of the bounds of [`ptx_ir_core::limits`].
pub const MAX_NESTING: u32 = const_max(
    const_max(MAX_EXPR_DEPTH, MAX_INIT_DEPTH),
    const_max(MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH),
);

const fn const_max(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

/// Serde levels of a module outside its recursive values (items, declarations, statement
/// entries, options, enums), with room to spare: the guard counts a level per sequence,
/// option and enum.
const OUTER_LEVELS: u32 = 32;

/// The serde nesting of the deepest valid module: an expression as deep as allowed inside
/// initialiser lists as deep as allowed (each list is an `Init` enum and a sequence: two
/// levels; each expression level one enum). [`crate::DecodeLimits::DEFAULT`] uses it.
pub const MAX_SERDE_DEPTH: u32 = OUTER_LEVELS + 2 * MAX_INIT_DEPTH + MAX_EXPR_DEPTH + 1;

// Operands and scopes nested up to the bounds must also get through the body columns' decoder.
const _: () = assert!(crate::columns::MAX_OPERAND_DEPTH >= MAX_OPERAND_DEPTH);
const _: () = assert!(ptx_ir_core::body::MAX_SCOPE_DEPTH >= MAX_SCOPE_DEPTH as usize);

use ptx_ir_core::body::Parts;
use ptx_ir_core::{
    Atom, BodyRef, DataValue, DeclRef, Declarator, Expr, FuncDirective, Function, Init, InstRef,
    Item, Modifier, Module, Name, Operand, Operands, Param, Prototype, Section, SectionEntry,
    Selector, Space, SpecialReg, Stmt, StmtRef, Type, VarDecl,
};

/// A broken invariant: what, and where (`items[3].body[12]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// What is wrong.
    pub detail: String,
    /// Where, as a path into the module.
    pub path: String,
}

type R = Result<(), String>;

/// Checks the invariants listed in the module documentation.
pub fn validate(m: &Module) -> Result<(), Invalid> {
    validate_with(m, None)
}

/// [`validate`] for a module whose bodies were decoded under
/// [`crate::columns::with_decode_bounds`] with its string table's size, the operand and
/// scope bounds and [`body_entry`]: they were checked while decoding. Also requires the names
/// in the reader's order ([`names_in_reading_order`]), which the encoder writes.
pub(crate) fn validate_decoded(m: &Module, odd_names: bool) -> Result<(), Invalid> {
    validate_with(m, Some(odd_names))?;
    names_in_reading_order(m).map_err(|detail| Invalid {
        detail,
        path: "names".into(),
    })
}

/// The check of a body entry that the decoder reads through serde, for a string table of
/// `names` names: what [`validate`] checks of it.
pub(crate) fn body_entry(s: &Stmt, names: usize) -> Result<(), String> {
    let v = V {
        n: names,
        odd: Vec::new(),
        table: None,
        decoded: true,
    };
    v.entry(s)
}

/// Whether the names of `m` are numbered as the reader numbers them: in order of first use in
/// print order, each used. (The reader interns a name when it first reads it, so a module
/// whose names are numbered otherwise prints text that reads back with other numbers.)
pub(crate) fn names_in_reading_order(m: &Module) -> Result<(), String> {
    let mut next = 0usize;
    let mut early = None;
    ptx_ir_core::visit::for_each_name(m, &mut |n| {
        let i = n.index();
        if i == next {
            next += 1;
        } else if i > next {
            early.get_or_insert((i, next));
        }
    });
    if let Some((i, next)) = early {
        return Err(format!(
            "name {i} is used before name {next}: names are not numbered in order of first use"
        ));
    }
    if next != m.names.len() {
        return Err(format!(
            "names {next} to {} are not used (the string table has {} names)",
            m.names.len() - 1,
            m.names.len()
        ));
    }
    Ok(())
}

/// Every instruction of `m` matches a form of its opcode, as the reader requires: the
/// qualifiers of each distinct word are matched once, and the operand shapes (what
/// `Form::match_operands` looks at) once per word and shape, as the reader caches them.
pub(crate) fn instruction_forms(m: &Module) -> Result<(), Invalid> {
    let mut words: WordCache = rustc_hash::FxHashMap::default();
    // Names an operand cannot hold: a section name (`.debug_info`); and `_` as a register or
    // symbol, which prints as the sink (the name itself is valid: the parameters of a
    // `.callprototype` are spelled `_`). Marked only where the module has such names.
    let odd = |s: &str| s.starts_with('.') || s == "_";
    let marks: Vec<bool> = if m.names.iter().any(|(_, s)| odd(s)) {
        m.names.iter().map(|(_, s)| odd(s)).collect()
    } else {
        Vec::new()
    };
    let sink = Odd {
        marks: &marks,
        sink: m.names.find("_"),
    };
    let sink = &sink;
    for (k, item) in m.items.iter().enumerate() {
        if let Item::Function(f) = item {
            if let Some(b) = &f.body {
                forms_in(b.as_ref(), &mut words, sink).map_err(|detail| Invalid {
                    detail,
                    path: format!("items[{k}].Function.body"),
                })?;
            }
        }
    }
    Ok(())
}

/// Per instruction word: the indices of the forms that take its qualifiers, and the operand
/// shape keys seen to fit one of them.
type WordCache<'m> = rustc_hash::FxHashMap<
    (ptx_ir_core::Opcode, &'m [Modifier]),
    (smallvec::SmallVec<[u16; 6]>, Vec<u64>),
>;

fn forms_in<'m>(body: BodyRef<'m>, words: &mut WordCache<'m>, sink: &Odd) -> R {
    for (k, s) in body.iter().enumerate() {
        match s {
            StmtRef::Inst(i) => {
                inst_form(&i, words, sink).map_err(|e| format!("{e} (statement {k})"))?
            }
            StmtRef::Block(b) => forms_in(b, words, sink)?,
            _ => {}
        }
    }
    Ok(())
}

fn inst_form<'m>(i: &InstRef<'m>, words: &mut WordCache<'m>, sink: &Odd) -> R {
    if let Some(e) = i.guard.and_then(|g| sink.fault(g.pred, false)) {
        return Err(e.into());
    }
    let forms = i.opcode.forms();
    let (fit, shapes) = words.entry((i.opcode, i.mods)).or_insert_with(|| {
        let fit = forms
            .iter()
            .enumerate()
            .filter(|(_, f)| f.match_mods(i.mods).is_ok())
            .map(|(k, _)| k as u16)
            .collect();
        (fit, Vec::new())
    });
    let mut key = 0u64;
    let mut count = 0u64;
    for o in i.operands.iter() {
        key = key << 5 | shape_code(&o);
        count += 1;
        if let Some(e) = operand_fault(&o, sink) {
            return Err(e.into());
        }
        // Outside a call, `(...)` reads as a constant expression.
        if i.opcode != ptx_ir_core::Opcode::Call && has_args(&o) {
            return Err("an argument list outside a call".into());
        }
    }
    // More than 12 operands do not fit a key: checked each time.
    let key = (count <= 12).then_some(key | count << 60);
    if key.is_some_and(|k| shapes.contains(&k)) {
        return Ok(());
    }
    let ops = i.operands.to_vec();
    if !fit.iter().any(|&k| forms[k as usize].match_operands(&ops)) {
        return match ptx_ir_core::check::check(i.opcode, i.mods, &ops) {
            Ok(_) => Err("an instruction matches no form".into()),
            Err(e) => Err(e.to_string()),
        };
    }
    if let Some(k) = key {
        shapes.push(k);
    }
    Ok(())
}

/// The names of a module an operand cannot hold (see [`instruction_forms`]).
struct Odd<'a> {
    /// Per name, whether it is a section name or `_`; empty where the module has none.
    marks: &'a [bool],
    /// The name `_`, if the module has it.
    sink: Option<Name>,
}

impl Odd<'_> {
    /// Why name `n` cannot be in an operand (`reg`: as a register or symbol), if it cannot.
    #[inline]
    fn fault(&self, n: Name, reg: bool) -> Option<&'static str> {
        if !self.marks.get(n.index()).copied().unwrap_or(false) {
            return None;
        }
        if Some(n) == self.sink {
            // As a register or symbol it prints as the sink; elsewhere (`!_`, `[_]`) too
            // rare to tell apart from it while decoding, which refuses it anywhere.
            return Some(if reg {
                "a register or symbol named `_` (it prints as the sink)"
            } else {
                "`_` in an operand"
            });
        }
        Some("a section name in an operand")
    }
}

/// What in `o` does not read back from its text: a section name, a register or symbol named
/// `_` (it prints as the sink), a decimal NaN (it prints as `0d`), a tuple of one operand or
/// none, a negated unsigned literal. Operands nest at most `MAX_OPERAND_DEPTH` deep here
/// (checked while decoding).
fn operand_fault(o: &Operand, odd: &Odd) -> Option<&'static str> {
    match o {
        Operand::Reg { name, .. } | Operand::Sym { name, .. } => odd.fault(*name, true),
        Operand::Not(name)
        | Operand::Addr {
            base: Some(name), ..
        } => odd.fault(*name, false),
        Operand::Dec(b) if f64::from_bits(*b).is_nan() => Some("a decimal NaN (it prints as `0d`)"),
        // `-(5U)` reads as a negated constant expression, which is signed.
        Operand::Neg(x) if matches!(**x, Operand::Uint(_)) => {
            Some("a negated unsigned literal (`-(5U)` reads as a signed one)")
        }
        // `[a]` reads as an address.
        Operand::Tuple(v) if v.len() < 2 => Some("a tuple of fewer than two operands"),
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            v.iter().find_map(|o| operand_fault(o, odd))
        }
        // `sym+0|q` reads `0|q` as the offset (`|` is an operator there).
        Operand::Pair(p) if matches!(without_negations(&p[0]), Operand::Sym { .. }) => {
            Some("a symbol with an offset before `|` in a pair")
        }
        // `a|b|c` does not read, and `-a|b` reads as a pair of `-a` and `b`.
        Operand::Pair(p) if p.iter().any(|x| matches!(x, Operand::Pair(_))) => {
            Some("a pair inside a pair")
        }
        Operand::Neg(x) if matches!(**x, Operand::Pair(_)) => Some("a negated pair"),
        Operand::Pair(p) => p.iter().find_map(|o| operand_fault(o, odd)),
        Operand::Neg(o) => operand_fault(o, odd),
        _ => None,
    }
}

/// Whether `o` is or holds a `call` argument list.
fn has_args(o: &Operand) -> bool {
    match o {
        Operand::Args(_) => true,
        Operand::Vector(v) | Operand::Tuple(v) => v.iter().any(has_args),
        Operand::Pair(p) => p.iter().any(has_args),
        Operand::Neg(x) => has_args(x),
        _ => false,
    }
}

/// `o` without the negations around it.
fn without_negations(mut o: &Operand) -> &Operand {
    while let Operand::Neg(x) = o {
        o = x;
    }
    o
}

/// What `Form::match_operands` looks at in an operand: its variant, and whether a register has
/// a selector (as the reader's shape codes).
fn shape_code(o: &Operand) -> u64 {
    match o {
        Operand::Reg { sel, .. } if sel.is_none() => 0,
        Operand::Reg { .. } => 1,
        Operand::Special { .. } => 2,
        Operand::Int(_) => 3,
        Operand::Uint(_) => 4,
        Operand::F32(_) => 5,
        Operand::F64(_) => 6,
        Operand::Dec(_) => 7,
        Operand::Sym { .. } => 8,
        Operand::Addr { .. } => 9,
        Operand::Vector(_) => 10,
        Operand::Tuple(_) => 11,
        Operand::Args(_) => 12,
        Operand::Pair(_) => 13,
        Operand::Not(_) => 14,
        Operand::Neg(_) => 15,
        Operand::Sink => 16,
    }
}

/// `decoded`: for a module decoded with its bodies checked, whether its string table (whose
/// spellings the decoder checked) has a section name or `_`.
fn validate_with(m: &Module, decoded: Option<bool>) -> Result<(), Invalid> {
    let at = |path: &str| {
        let path = path.to_string();
        move |detail| Invalid { detail, path }
    };
    header(m).map_err(at("header"))?;
    let any_odd = match decoded {
        Some(odd) => odd,
        None => names(&m.names).map_err(at("names"))?,
    };
    let odd = |s: &str| s.starts_with('.') || s == "_";
    let v = V {
        n: m.names.len(),
        odd: if decoded.is_some() && any_odd {
            m.names.iter().map(|(_, s)| odd(s)).collect()
        } else {
            Vec::new()
        },
        table: Some(&m.names),
        decoded: decoded.is_some(),
    };
    for (i, item) in m.items.iter().enumerate() {
        v.item(item).map_err(|detail| Invalid {
            detail,
            path: format!("items[{i}]"),
        })?;
    }
    // Decoded bodies had their instructions matched to forms, and their operands' shapes
    // checked, as their columns were read (the names an operand cannot hold are checked with
    // the string table, in `V::function`).
    if decoded.is_none() {
        instruction_forms(m)?;
    }
    Ok(())
}

/// The header as the reader gives it: at least one target, each spelled as the reader reads
/// it, and an address size of 32 or 64.
fn header(m: &Module) -> R {
    if m.target.is_empty() {
        return Err("no target".into());
    }
    for t in &m.target {
        if ptx_ir_core::Target::parse_bytes(t.to_text().as_bytes()) != Some(*t) {
            return Err(format!(
                "target `{}` does not read back as itself",
                t.to_text()
            ));
        }
    }
    match m.address_size {
        None | Some(32 | 64) => Ok(()),
        Some(n) => Err(format!("`.address_size {n}` (must be 32 or 64)")),
    }
}

/// Every name is spelled as the reader reads one: an identifier (`[A-Za-z_$%][A-Za-z0-9_$]*`,
/// with `-` joining parts as in `cache-policy`) or a section name (`.debug_info`). Where a name
/// is used is checked elsewhere (a section name as a register, say). Returns whether there is
/// a section name or `_`, which no operand may hold.
pub(crate) fn names(names: &ptx_ir_core::Interner) -> Result<bool, String> {
    let mut odd = false;
    for (n, s) in names.iter() {
        let b = s.as_bytes();
        odd |= b.first() == Some(&b'.') || b == b"_";
        if !is_name(b) {
            return Err(format!(
                "name {} ({s:?}) is not an identifier or a section name",
                n.index()
            ));
        }
    }
    Ok(odd)
}

/// Bytes of an identifier after its first ([`is_ident_byte`] as a table: most names are checked
/// by this loop alone).
const IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = is_ident_byte(b as u8);
        b += 1;
    }
    t
};

pub(crate) fn is_name(s: &[u8]) -> bool {
    // Most names: a plain identifier (or a register's `%...`).
    if let [first, rest @ ..] = s {
        if is_ident_start(*first) && rest.iter().all(|&b| IDENT[b as usize]) {
            return true;
        }
    }
    let word = is_ident_byte;
    match s {
        [b'.', rest @ ..] => {
            // `qual_word`: word bytes and `::` inside.
            !rest.is_empty()
                && rest.split(|&b| b == b':').enumerate().all(|(i, part)| {
                    part.iter().all(|&b| is_word_byte(b)) && (!part.is_empty() || i % 2 == 1)
                })
                && !rest.ends_with(b":")
                && !rest.windows(3).any(|w| w == b":::")
                && rest.split(|&b| b == b':').filter(|p| p.is_empty()).count() * 2
                    == rest.iter().filter(|&&b| b == b':').count()
        }
        [b'%', rest @ ..] => rest.iter().all(|&b| word(b)),
        [first, rest @ ..] if first.is_ascii_alphabetic() || *first == b'_' || *first == b'$' => {
            // `a-b` parts: each part after a `-` starts like an identifier.
            let mut parts = rest.split(|&b| b == b'-');
            parts.next().is_some_and(|p| p.iter().all(|&b| word(b)))
                && parts.all(|p| {
                    p.first().is_some_and(|&b| !b.is_ascii_digit()) && p.iter().all(|&b| word(b))
                })
        }
        _ => false,
    }
}

/// A `.branchtargets` or `.calltargets` list names at least one target (the reader wants a
/// name after the directive).
fn target_list(targets: &[Name]) -> R {
    if targets.is_empty() {
        return Err("an empty `.branchtargets`/`.calltargets` list".into());
    }
    Ok(())
}

/// A string the printer writes between double quotes as it is held (the reader keeps escapes
/// as written): it reads back as itself when it is PTX text (ASCII without NUL), every
/// backslash has a byte after it to escape, and no quote or line break is left unescaped.
fn quoted(what: &str, s: &str) -> R {
    let b = s.as_bytes();
    let text = |c: u8| c != 0 && c.is_ascii();
    let mut k = 0;
    while k < b.len() {
        let ok = match b[k] {
            b'\\' => b.get(k + 1).is_some_and(|&c| text(c)),
            b'"' | b'\n' => false,
            c => text(c),
        };
        if !ok {
            return Err(format!("{what} {s:?} does not print as a string"));
        }
        k += if b[k] == b'\\' { 2 } else { 1 };
    }
    Ok(())
}

/// The type of a section's data line: `.b8` to `.b64`.
fn section_type(ty: Type) -> R {
    if matches!(ty, Type::B8 | Type::B16 | Type::B32 | Type::B64) {
        Ok(())
    } else {
        Err(format!("a `.{}` line in a section", ty.as_str()))
    }
}

/// An `.align` the reader takes: a power of two.
fn alignment(a: Option<u32>) -> R {
    match a {
        Some(n) if !n.is_power_of_two() => Err(format!("alignment {n} (not a power of two)")),
        _ => Ok(()),
    }
}

/// A declaration in a function body: no linkage, a space of the body.
fn body_decl(d: &VarDecl) -> R {
    if d.linkage.is_some() {
        return Err("a declaration with a linkage in a function body".into());
    }
    body_space(d.space)
}

/// A state space a declaration in a function body may have.
fn body_space(s: Space) -> R {
    if s.declarable_in_body() {
        Ok(())
    } else {
        Err(format!(
            "a declaration in `.{}` in a function body",
            s.as_str()
        ))
    }
}

/// A section name as the reader reads one: `.` and a qualifier word (`.debug_info`, `.nv.x`
/// is not one).
fn is_section_name(s: &[u8]) -> bool {
    s.len() > 1 && s[0] == b'.' && is_name(s)
}

struct V<'m> {
    n: usize,
    /// Per name, whether it is a section name or `_` (names no operand of a decoded body may
    /// hold); empty where the module has none, or the module was not decoded.
    odd: Vec<bool>,
    /// The string table, where known (not for a body entry checked while decoding).
    table: Option<&'m ptx_ir_core::Interner>,
    /// Compact bodies were checked by the decoder.
    decoded: bool,
}

/// The error for `what` nested past `limit` levels.
fn too_deep(what: &str, limit: u32) -> String {
    format!("{what} nest deeper than {limit} levels")
}

/// `depth`, the levels of `what` around a value, if it is within `limit`.
#[inline]
fn within(depth: u32, what: &str, limit: u32) -> Result<u32, String> {
    if depth > limit {
        Err(too_deep(what, limit))
    } else {
        Ok(depth)
    }
}

impl V<'_> {
    /// A declared name (variable, parameter, function, label): an identifier without the `-`
    /// parts or leading `.` that only symbol operands and section data may have.
    fn declared(&self, n: Name) -> R {
        self.name(n)?;
        if let Some(t) = self.table {
            let s = t.get(n);
            if s.starts_with('.') || s.contains('-') {
                return Err(format!("declared name {s:?} is not an identifier"));
            }
        }
        Ok(())
    }

    /// The declared names of a compact body checked while decoding (without the string table).
    fn declared_in(&self, stmts: &[Stmt]) -> R {
        for s in stmts {
            match s {
                // Also the names in initialisers, which need the string table.
                Stmt::Decl(d) => self.decl(d)?,
                s => self.declared_names(s)?,
            }
        }
        Ok(())
    }

    /// The names a compact body entry declares or lists (labels, plain declarations, the
    /// labels and targets of `.branchtargets`/`.calltargets`/`.callprototype`): each is a
    /// declared name. [`V::entry`] and [`V::declared_in`] both check them through here, so
    /// the check made while decoding and the one made with the string table cannot drift.
    fn declared_names(&self, s: &Stmt) -> R {
        match s {
            Stmt::Label(n) => self.declared(*n),
            Stmt::PlainDecl(p) => {
                self.declared(p.name)?;
                match p.shape {
                    ptx_ir_core::PlainShape::Pair(n) => self.declared(n),
                    _ => Ok(()),
                }
            }
            Stmt::BranchTargets(t) | Stmt::CallTargets(t) => {
                self.declared(t.label)?;
                target_list(&t.targets)?;
                t.targets.iter().try_for_each(|n| self.declared(*n))
            }
            Stmt::CallPrototype(p) => self.declared(p.0),
            _ => Ok(()),
        }
    }

    #[inline]
    fn name(&self, n: Name) -> R {
        if n.index() < self.n {
            Ok(())
        } else {
            Err(format!(
                "name index {} outside the string table ({} names)",
                n.index(),
                self.n
            ))
        }
    }

    fn item(&self, item: &Item) -> R {
        match item {
            Item::Function(f) => self.function(f),
            Item::Variable(d) => {
                if !matches!(
                    d.space,
                    Space::Global
                        | Space::Const
                        | Space::Shared
                        | Space::Local
                        | Space::Tex
                        | Space::Param
                ) {
                    return Err(format!("a module variable in `.{}`", d.space.as_str()));
                }
                self.decl(d)
            }
            Item::File(f) => quoted("file name", &f.path),
            Item::Pragma(p) => quoted("pragma", p),
            Item::Section(s) => {
                if !is_section_name(s.name.as_bytes()) {
                    return Err(format!("section name {:?}", s.name));
                }
                self.section(s)
            }
            Item::Alias { alias, aliasee } => {
                self.declared(*alias)?;
                self.declared(*aliasee)
            }
        }
    }

    /// A section's entries, each in the one form the reader gives its text: a `.b8` line of
    /// plain bytes is `Bytes` (two or more) or part of the `ByteColumn` of its run of one-byte
    /// lines (one column per run), a line of one integer or name is a `Value`, any other a
    /// `Data` line.
    fn section(&self, s: &Section) -> R {
        let byte = |e: &Expr| matches!(e, Expr::Int(v) if (0..=255).contains(v));
        let mut column_before = false;
        for (k, e) in s.entries.iter().enumerate() {
            let fault = |what: &str| Err(format!("{what} (section entry {k})"));
            match e {
                // An identifier (`.x:` would read as a directive).
                SectionEntry::Label(n) => self.declared(*n)?,
                SectionEntry::Bytes(b) if b.len() < 2 => {
                    return fault("a `.b8` line of fewer than two bytes outside a byte column")
                }
                SectionEntry::ByteColumn(c) if c.is_empty() || column_before => {
                    return fault("an empty byte column, or two side by side")
                }
                SectionEntry::Bytes(_) | SectionEntry::ByteColumn(_) => {}
                SectionEntry::Data { ty, values } => {
                    section_type(*ty)?;
                    if matches!(values[..], [] | [Expr::Int(_)] | [Expr::Sym(_)])
                        || (*ty == Type::B8 && values.iter().all(byte))
                    {
                        return fault("a data line the reader reads as another entry");
                    }
                    for x in values {
                        self.expr(x, 0, true)?;
                    }
                }
                SectionEntry::Value { ty, value } => {
                    section_type(*ty)?;
                    match value {
                        DataValue::Sym(n) => self.name(*n)?,
                        DataValue::Int(v) if *ty == Type::B8 && (0..=255).contains(v) => {
                            return fault("a `.b8` value the reader reads as a byte line")
                        }
                        DataValue::Int(_) => {}
                    }
                }
            }
            column_before = matches!(e, SectionEntry::ByteColumn(_));
        }
        Ok(())
    }

    fn params(&self, ps: &Option<Vec<Param>>) -> R {
        for p in ps.iter().flatten() {
            if !matches!(p.space, Space::Param | Space::Reg) {
                return Err(format!("a parameter in `.{}`", p.space.as_str()));
            }
            alignment(p.align)?;
            alignment(p.ptr.as_ref().and_then(|q| q.align))?;
            self.declared(p.name)?;
        }
        Ok(())
    }

    fn directives(&self, ds: &[FuncDirective]) -> R {
        for d in ds {
            match d {
                // One to three dimensions, as the reader reads them.
                FuncDirective::MaxNtid(v)
                | FuncDirective::ReqNtid(v)
                | FuncDirective::ReqNctaPerCluster(v) => {
                    if !(1..=3).contains(&v.len()) {
                        return Err(format!("a directive of {} dimensions", v.len()));
                    }
                }
                FuncDirective::MinNctaPerSm(_)
                | FuncDirective::MaxNctaPerSm(_)
                | FuncDirective::MaxNreg(_)
                | FuncDirective::ExplicitCluster
                | FuncDirective::MaxClusterRank(_)
                | FuncDirective::BlocksAreClusters
                | FuncDirective::NoReturn
                | FuncDirective::AbiPreserve(_)
                | FuncDirective::AbiPreserveControl(_) => {}
                FuncDirective::Pragma(p) => quoted("pragma", p)?,
            }
        }
        Ok(())
    }

    fn function(&self, f: &Function) -> R {
        if f.kind == ptx_ir_core::FunctionKind::Entry && f.returns.is_some() {
            return Err("an `.entry` with return parameters".into());
        }
        self.params(&f.returns)?;
        self.declared(f.name)?;
        self.params(&f.params)?;
        self.directives(&f.directives)?;
        match f.body.as_ref().map(|b| (b, b.parts())) {
            // Checked entry by entry as it was decoded, but for the spelling of its names.
            Some((_, Some(Parts { stmts, pool, .. }))) if self.decoded => {
                self.declared_in(stmts)?;
                if self.odd.is_empty() {
                    return Ok(());
                }
                // A section name or `_` in an operand or a guard: `_` reads as the sink
                // wherever an operand may be one.
                let odd = |n: Name| self.odd.get(n.index()).copied().unwrap_or(false);
                for s in stmts {
                    if let Stmt::Inst(p) = s {
                        if p.guard().is_some_and(|g| odd(g.pred)) {
                            return Err("a section name or `_` as a guard".into());
                        }
                    }
                }
                pool.operands()
                    .scan(|i, a| match a {
                        Atom::Name(n) if odd(n) => Err(i),
                        _ => Ok(()),
                    })
                    .map_err(|i| format!("a section name or `_` in operand {i} of the body"))?;
                Ok(())
            }
            Some((_, Some(p))) => self.compact(p.stmts, p.mods, p.pool.operands()),
            Some((b, None)) => self.statements(b.as_ref(), 0),
            None => Ok(()),
        }
    }

    /// A compact body, scanned array by array: the same checks as [`V::statements`] without
    /// walking the statement structure.
    fn compact(&self, stmts: &[Stmt], mods: &[Modifier], operands: Operands<'_>) -> R {
        // Ends of the open scopes, to bound their nesting.
        let mut open: Vec<usize> = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            while open.last() == Some(&i) {
                open.pop();
            }
            let r = match s {
                Stmt::Block { len, .. } => {
                    open.push(i + 1 + *len as usize);
                    if open.len() > MAX_SCOPE_DEPTH as usize {
                        Err(too_deep("scopes", MAX_SCOPE_DEPTH))
                    } else {
                        Ok(())
                    }
                }
                s => self.entry(s),
            };
            r.map_err(|e| format!("{e} (body entry {i})"))?;
        }
        mods.iter().try_for_each(|m| self.modifier(*m))?;
        // A cheap test per atom (inlined into the scan); the message only for a failure.
        let deepest = operands
            .scan(|i, a| {
                let ok = match a {
                    Atom::Name(n) => n.index() < self.n,
                    Atom::Selector(s) => s.is_valid(),
                    Atom::Special(r) => r.is_valid(),
                    Atom::Malformed => false,
                };
                if ok {
                    Ok(())
                } else {
                    Err((i, a))
                }
            })
            .map_err(|(i, a)| {
                let e = match a {
                    Atom::Name(n) => self.name(n).err(),
                    Atom::Selector(s) => self.selector(s).err(),
                    Atom::Special(r) => Some(format!("special register {r:?} out of range")),
                    Atom::Malformed => None,
                };
                let e = e.unwrap_or_else(|| "malformed operand cells".to_string());
                format!("{e} (operand {i} of the body)")
            })?;
        if deepest > MAX_OPERAND_DEPTH as usize {
            return Err(too_deep("operands", MAX_OPERAND_DEPTH));
        }
        Ok(())
    }

    /// A compact body's entry, scopes aside.
    fn entry(&self, s: &Stmt) -> R {
        match s {
            Stmt::Inst(p) => match p.guard() {
                Some(g) => self.name(g.pred),
                None => Ok(()),
            },
            Stmt::Decl(d) => {
                body_decl(d)?;
                self.decl(d)
            }
            Stmt::PlainDecl(p) => {
                body_space(p.space)?;
                self.declared_names(s)
            }
            Stmt::Loc(l) => match &l.inlined {
                Some(x) => self.name(x.function_name),
                None => Ok(()),
            },
            Stmt::Pragma(p) => quoted("pragma", p),
            Stmt::Block { .. } | Stmt::LineLoc { .. } => Ok(()),
            Stmt::CallPrototype(p) => {
                self.declared_names(s)?;
                self.prototype(&p.1)
            }
            Stmt::Label(_) | Stmt::BranchTargets(_) | Stmt::CallTargets(_) => {
                self.declared_names(s)
            }
        }
    }

    fn decl(&self, d: &VarDecl) -> R {
        alignment(d.align)?;
        let ty = d.ty;
        let packable = Init::packs(ty, d.vector);
        for x in &d.names {
            self.declarator(x, ty, packable)?;
        }
        Ok(())
    }

    fn declarator(&self, d: &Declarator, ty: Type, packable: bool) -> R {
        self.declared(d.name)?;
        // The reader gives a member list for an opaque type's initialiser and nothing else,
        // and a member list for no other type.
        match &d.init {
            Some(Init::Opaque(fields)) => ptx_ir_core::OpaqueField::check_list(ty, fields),
            Some(_) if ptx_ir_core::opaque::is_opaque(ty) => Err(format!(
                "a `.{}` declaration initialised other than by a member list",
                ty.as_str()
            )),
            Some(Init::Packed(b)) if !packable || b.is_empty() => Err(format!(
                "a packed initialiser of {} bytes for a `.{}` declaration",
                b.len(),
                ty.as_str()
            )),
            // The reader stores such a list packed, so it never makes this module.
            Some(Init::List(items)) if packable && Init::pack_literals(items, ty).is_some() => {
                Err(format!(
                    "a list of {} integer literals for a `.{}` declaration, which the reader \
                     packs",
                    items.len(),
                    ty.as_str()
                ))
            }
            Some(i) => self.init(i, ty, 0),
            None => Ok(()),
        }
    }

    /// An initialiser inside `depth` lists.
    fn init(&self, i: &Init, ty: Type, depth: u32) -> R {
        match i {
            Init::Expr(e) => self.expr(e, 0, false),
            Init::List(items) => {
                let d = within(depth + 1, "initialiser lists", MAX_INIT_DEPTH)?;
                items.iter().try_for_each(|i| self.init(i, ty, d))
            }
            Init::Packed(_) if depth > 0 => Err("a packed initialiser inside a list".into()),
            Init::Opaque(_) => Err("a member-list initialiser inside a list".into()),
            Init::Packed(bytes) => {
                let bits = ty.bits();
                if !matches!(bits, 8 | 16 | 32 | 64) {
                    return Err(format!("packed initialiser of a {bits}-bit type"));
                }
                let w = bits as usize / 8;
                if bytes.len() % w != 0 {
                    return Err(format!(
                        "packed initialiser of {} bytes is not a whole number of {w}-byte elements",
                        bytes.len()
                    ));
                }
                Ok(())
            }
        }
    }

    /// The statements of a scope inside `depth` scopes (the body is inside none).
    fn statements(&self, body: BodyRef<'_>, depth: u32) -> R {
        for (i, s) in body.iter().enumerate() {
            self.statement(s, depth)
                .map_err(|e| format!("{e} (body statement {i})"))?;
        }
        Ok(())
    }

    fn statement(&self, s: StmtRef<'_>, depth: u32) -> R {
        match s {
            StmtRef::Inst(i) => self.inst(i),
            StmtRef::Label(n) => self.declared(n),
            StmtRef::Decl(DeclRef::Full(d)) => {
                body_decl(d)?;
                self.decl(d)
            }
            StmtRef::Decl(DeclRef::Plain(p)) => {
                body_space(p.space)?;
                self.declared(p.name)?;
                match p.shape {
                    ptx_ir_core::PlainShape::Pair(n) => self.declared(n),
                    _ => Ok(()),
                }
            }
            StmtRef::Loc(l) => match l.inlined {
                Some(i) => self.name(i.function_name),
                None => Ok(()),
            },
            StmtRef::Pragma(p) => quoted("pragma", p),
            StmtRef::Block(b) => self.statements(b, within(depth + 1, "scopes", MAX_SCOPE_DEPTH)?),
            // The list's label and its targets (labels, functions) are all declared names.
            StmtRef::BranchTargets { label, targets } | StmtRef::CallTargets { label, targets } => {
                self.declared(label)?;
                target_list(targets)?;
                targets.iter().try_for_each(|t| self.declared(*t))
            }
            StmtRef::CallPrototype { label, proto } => {
                self.declared(label)?;
                self.prototype(proto)
            }
        }
    }

    fn prototype(&self, p: &Prototype) -> R {
        self.params(&p.returns)?;
        self.params(&p.params)?;
        self.directives(&p.directives)
    }

    fn inst(&self, i: InstRef<'_>) -> R {
        if let Some(g) = i.guard {
            self.name(g.pred)?;
        }
        i.mods.iter().try_for_each(|m| self.modifier(*m))?;
        i.operands.iter().try_for_each(|o| self.operand(&o, 0))
    }

    fn modifier(&self, m: Modifier) -> R {
        if let Modifier::Shape(s) = m {
            if ptx_ir_core::Shape::from_ordinal(s.ordinal()).is_none() {
                return Err(format!(
                    "shape index {} outside the shape table",
                    s.ordinal()
                ));
            }
        }
        Ok(())
    }

    #[inline]
    fn selector(&self, s: Selector) -> R {
        if s.is_none() || s.is_valid() {
            Ok(())
        } else {
            Err(format!("invalid selector encoding {:#06x}", s.bits()))
        }
    }

    /// An operand inside `depth` lists, pairs or negations.
    fn operand(&self, o: &Operand, depth: u32) -> R {
        match o {
            Operand::Reg { name, sel } => {
                self.name(*name)?;
                self.selector(*sel)
            }
            Operand::Special { reg, sel } => {
                if !reg.is_valid() {
                    return Err(format!("special register {reg:?} out of range"));
                }
                self.special_sel(*reg, *sel)
            }
            Operand::Int(_)
            | Operand::Uint(_)
            | Operand::F32(_)
            | Operand::F64(_)
            | Operand::Dec(_)
            | Operand::Sink => Ok(()),
            Operand::Sym { name, offset: _ } | Operand::Not(name) => self.name(*name),
            Operand::Addr { base, .. } => match base {
                Some(b) => self.name(*b),
                None => Ok(()),
            },
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
                let d = within(depth + 1, "operands", MAX_OPERAND_DEPTH)?;
                v.iter().try_for_each(|o| self.operand(o, d))
            }
            Operand::Pair(p) => {
                let d = within(depth + 1, "operands", MAX_OPERAND_DEPTH)?;
                p.iter().try_for_each(|o| self.operand(o, d))
            }
            Operand::Neg(o) => self.operand(o, within(depth + 1, "operands", MAX_OPERAND_DEPTH)?),
        }
    }

    fn special_sel(&self, _reg: SpecialReg, sel: Selector) -> R {
        self.selector(sel)
    }

    /// An expression `depth` operator levels below its root, in a section's data (`sec`: names
    /// may be section names) or not. Recursion stops at the bound, so a tree of any depth
    /// (built through the API and passed to the encoder) is safe here.
    ///
    /// The printer writes no parentheses but `Paren`'s, so the tree must be one the reader
    /// builds from that text: an operand of a unary operator is no binary operation, the left
    /// operand of a binary one binds at least as tightly and the right one more tightly.
    fn expr(&self, e: &Expr, depth: u32, sec: bool) -> R {
        let binds = |e: &Expr| match e {
            Expr::Binary(op, ..) => Some(op.precedence()),
            _ => None,
        };
        match e {
            Expr::Int(_) | Expr::Uint(_) | Expr::F32(_) | Expr::F64(_) => Ok(()),
            Expr::Dec(b) if f64::from_bits(*b).is_nan() => {
                Err("a decimal NaN (it prints as `0d`)".into())
            }
            Expr::Dec(_) => Ok(()),
            Expr::Sym(n) => self.expr_name(*n, sec),
            Expr::Generic(n) => self.expr_name(*n, false),
            Expr::Unary(_, x) if binds(x).is_some() => {
                Err("a unary operator applied to a binary operation without parentheses".into())
            }
            Expr::Unary(_, e) | Expr::Paren(e) => {
                self.expr(e, within(depth + 1, "expressions", MAX_EXPR_DEPTH)?, sec)
            }
            Expr::Binary(op, a, b) => {
                let p = op.precedence();
                if binds(a).is_some_and(|q| q < p) || binds(b).is_some_and(|q| q <= p) {
                    return Err(format!(
                        "a `{}` operand that reads back grouped otherwise (no parentheses)",
                        op.as_str()
                    ));
                }
                let d = within(depth + 1, "expressions", MAX_EXPR_DEPTH)?;
                self.expr(a, d, sec)?;
                self.expr(b, d, sec)
            }
        }
    }

    /// A name in an expression: an identifier without `-` parts (they would read as
    /// subtraction), or a section name in a section's data.
    fn expr_name(&self, n: Name, sec: bool) -> R {
        self.name(n)?;
        if let Some(t) = self.table {
            let s = t.get(n);
            if s.contains('-') || (s.starts_with('.') && !sec) {
                return Err(format!("name {s:?} in an expression"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::quoted;

    /// The strings the reader keeps (escapes as written) are the strings that validate.
    #[test]
    fn quoted_accepts_what_the_reader_keeps() {
        for ok in [
            "",
            "x86\\64-linux",
            "a\\\"b",
            "tab\there",
            "cr\rhere",
            "\\\\",
            "nounroll",
        ] {
            assert!(quoted("s", ok).is_ok(), "{ok:?}");
        }
        for bad in ["a\"b", "ends\\", "line\nbreak", "nul\0", "é", "\\\0"] {
            assert!(quoted("s", bad).is_err(), "{bad:?}");
        }
    }
}
