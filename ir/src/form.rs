//! Instruction forms: the grammar of each opcode's qualifiers and operands, written in the
//! instruction table in a notation close to the PTX ISA's own, and compiled once into matchers.
//!
//! Notation (one string per form): qualifiers, then a space, then operand kinds.
//!
//! * `.word` — a required qualifier; `{.word}` — an optional one.
//! * `.$set` / `{.$set}` — one member of a named set (see [`crate::table::SETS`]).
//! * `.(a|b|c)` / `{.(a|b|c)}` — one of the listed qualifiers.
//! * operands, comma separated: `d` destination (register, vector, sink or `a|b` pair),
//!   `s` source value, `p` predicate source (may be `!p`), `m` memory address, `t` bracketed
//!   tuple or address, `l` a plain name (label, function, symbol), `v` a brace vector, `a` a
//!   parenthesised argument list, `i` an integer literal, `x` anything; `?` makes an operand
//!   optional.
//!
//! Matching is by class, not by position: each qualifier of an instruction fills the first free
//! slot that accepts it, required slots must all be filled, and no slot is filled twice. This
//! accepts the qualifier orders that `ptxas` accepts (`ex2.approx.f32.ftz` next to
//! `ex2.approx.ftz.f32`) while rejecting unknown, duplicated or missing qualifiers. Types fill
//! type slots in order, so `cvt.f32.s16` keeps destination and source types apart.

use crate::operand::Operand;
use crate::vocab::{vocabulary_size, Modifier};
use std::fmt;

/// A set of modifiers, as a bit set over [`Modifier::dense`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModSet {
    bits: Box<[u64]>,
}

impl ModSet {
    fn new() -> Self {
        ModSet {
            bits: vec![0; vocabulary_size().div_ceil(64)].into_boxed_slice(),
        }
    }

    fn insert(&mut self, m: Modifier) {
        let i = m.dense() as usize;
        self.bits[i / 64] |= 1 << (i % 64);
    }

    /// Whether `m` is in the set.
    #[inline]
    pub fn contains(&self, m: Modifier) -> bool {
        let i = m.dense() as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }
}

/// One qualifier position of a form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Whether the instruction must carry one of the members.
    pub required: bool,
    /// The accepted modifiers, in table order.
    pub members: Vec<Modifier>,
    set: ModSet,
}

impl Slot {
    /// Whether the slot accepts `m`.
    #[inline]
    pub fn accepts(&self, m: Modifier) -> bool {
        self.set.contains(m)
    }
}

/// The kind of an operand position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// `d`: register, vector, sink or pair.
    Dst,
    /// `s`: register, special register, literal, symbol, vector or negation.
    Src,
    /// `p`: predicate register, `!p` or literal.
    Pred,
    /// `m`: a `[...]` address.
    Mem,
    /// `t`: a `[...]` address or tuple.
    Tuple,
    /// `l`: a plain name.
    Label,
    /// `v`: a `{...}` vector.
    Vector,
    /// `a`: a `(...)` argument list.
    Args,
    /// `i`: an integer literal.
    Imm,
    /// `x`: anything.
    Any,
}

impl OperandKind {
    fn from_letter(c: char) -> Option<OperandKind> {
        Some(match c {
            'd' => OperandKind::Dst,
            's' => OperandKind::Src,
            'p' => OperandKind::Pred,
            'm' => OperandKind::Mem,
            't' => OperandKind::Tuple,
            'l' => OperandKind::Label,
            'v' => OperandKind::Vector,
            'a' => OperandKind::Args,
            'i' => OperandKind::Imm,
            'x' => OperandKind::Any,
            _ => return None,
        })
    }

    /// What the kind accepts, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            OperandKind::Dst => "a destination register, vector or `_`",
            OperandKind::Src => "a register, literal or symbol",
            OperandKind::Pred => "a predicate",
            OperandKind::Mem => "a memory address `[...]`",
            OperandKind::Tuple => "a bracketed operand `[...]`",
            OperandKind::Label => "a name",
            OperandKind::Vector => "a vector `{...}`",
            OperandKind::Args => "an argument list `(...)`",
            OperandKind::Imm => "an integer literal",
            OperandKind::Any => "an operand",
        }
    }

    /// Whether an operand fits this kind.
    pub fn accepts(self, o: &Operand) -> bool {
        use Operand as O;
        match self {
            OperandKind::Dst => matches!(o, O::Reg { .. } | O::Vector(_) | O::Sink | O::Pair(_)),
            OperandKind::Src => matches!(
                o,
                O::Reg { .. }
                    | O::Special { .. }
                    | O::Int(_)
                    | O::Uint(_)
                    | O::F32(_)
                    | O::F64(_)
                    | O::Dec(_)
                    | O::Sym { .. }
                    | O::Vector(_)
                    | O::Neg(_)
            ),
            OperandKind::Pred => {
                matches!(o, O::Reg { .. } | O::Not(_) | O::Int(_) | O::Special { .. })
            }
            OperandKind::Mem => matches!(o, O::Addr { .. }),
            OperandKind::Tuple => matches!(o, O::Addr { .. } | O::Tuple(_)),
            OperandKind::Label => matches!(o, O::Reg { sel, .. } if sel.is_none()),
            OperandKind::Vector => matches!(o, O::Vector(_)),
            OperandKind::Args => matches!(o, O::Args(_)),
            OperandKind::Imm => matches!(o, O::Int(_) | O::Uint(_)),
            OperandKind::Any => true,
        }
    }
}

/// One operand position of a form.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OperandSpec {
    /// What fits here.
    pub kind: OperandKind,
    /// Whether the position may be left out.
    pub optional: bool,
}

/// One compiled form of an opcode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// The form as written in the table.
    pub text: &'static str,
    /// Qualifier slots.
    pub slots: Vec<Slot>,
    /// Operand positions.
    pub operands: Vec<OperandSpec>,
}

/// A form string that does not compile: a bug in the table, found by the table's tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormError {
    /// The offending form.
    pub form: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad form `{}`: {}", self.form, self.message)
    }
}

impl Form {
    /// Compiles a form string; `sets` resolves `$name` references.
    pub fn compile(
        text: &'static str,
        sets: &dyn Fn(&str) -> Option<&'static str>,
    ) -> Result<Form, FormError> {
        let err = |message: String| FormError {
            form: text,
            message,
        };
        let (quals, ops) = match text.find(' ') {
            Some(i) => (&text[..i], text[i + 1..].trim()),
            None => (text, ""),
        };
        let mut slots = Vec::new();
        let mut rest = quals;
        while !rest.is_empty() {
            let (required, body, after) = if let Some(r) = rest.strip_prefix('{') {
                let end = r.find('}').ok_or_else(|| err("unclosed `{`".into()))?;
                (false, &r[..end], &r[end + 1..])
            } else {
                // A required slot runs to the next `.` or `{` at depth 0.
                let r = rest;
                let mut end = r.len();
                let mut depth = 0;
                for (i, c) in r.char_indices().skip(1) {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        '.' | '{' if depth == 0 => {
                            end = i;
                            break;
                        }
                        _ => {}
                    }
                }
                (true, &r[..end], &r[end..])
            };
            let body = body
                .strip_prefix('.')
                .ok_or_else(|| err(format!("slot `{body}` lacks `.`")))?;
            let alts: Vec<&str> = if let Some(alts) = body.strip_prefix('(') {
                let alts = alts
                    .strip_suffix(')')
                    .ok_or_else(|| err("unclosed `(`".into()))?;
                alts.split('|').collect()
            } else {
                vec![body]
            };
            let mut words = Vec::new();
            for a in alts {
                if let Some(name) = a.strip_prefix('$') {
                    let list = sets(name).ok_or_else(|| err(format!("unknown set `${name}`")))?;
                    words.extend(list.split_whitespace());
                } else {
                    words.push(a);
                }
            }
            let mut set = ModSet::new();
            let mut members = Vec::new();
            for w in words {
                let m = Modifier::lookup(w.as_bytes())
                    .ok_or_else(|| err(format!("`.{w}` is not in the vocabulary")))?;
                set.insert(m);
                members.push(m);
            }
            slots.push(Slot {
                required,
                members,
                set,
            });
            rest = after;
        }
        let mut operands = Vec::new();
        for o in ops.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (letter, optional) = match o.strip_suffix('?') {
                Some(l) => (l, true),
                None => (o, false),
            };
            let mut chars = letter.chars();
            let kind = match (chars.next(), chars.next()) {
                (Some(c), None) => OperandKind::from_letter(c),
                _ => None,
            }
            .ok_or_else(|| err(format!("bad operand kind `{o}`")))?;
            operands.push(OperandSpec { kind, optional });
        }
        Ok(Form {
            text,
            slots,
            operands,
        })
    }

    /// Assigns each modifier to a slot; `Ok` if every modifier found a slot and every required
    /// slot is filled, otherwise the first modifier without a slot (or `None` if a required slot
    /// is empty).
    pub fn match_mods(&self, mods: &[Modifier]) -> Result<(), Option<Modifier>> {
        let mut filled: u64 = 0;
        debug_assert!(self.slots.len() <= 64);
        for &m in mods {
            let slot = self
                .slots
                .iter()
                .enumerate()
                .position(|(i, s)| filled & (1 << i) == 0 && s.accepts(m));
            match slot {
                Some(i) => filled |= 1 << i,
                None => return Err(Some(m)),
            }
        }
        for (i, s) in self.slots.iter().enumerate() {
            if s.required && filled & (1 << i) == 0 {
                return Err(None);
            }
        }
        Ok(())
    }

    /// Whether the operands fit the operand positions (optional positions are skipped when the
    /// operand does not fit them).
    pub fn match_operands(&self, ops: &[Operand]) -> bool {
        let mut i = 0;
        for spec in &self.operands {
            match ops.get(i) {
                Some(o) if spec.kind.accepts(o) => i += 1,
                _ if spec.optional => {}
                _ => return false,
            }
        }
        i == ops.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Flag, Rounding, Type};

    fn no_sets(_: &str) -> Option<&'static str> {
        Some("rn rz rm rp")
    }

    #[test]
    fn compiles_and_matches() {
        let f = Form::compile("{.$rnd}{.ftz}{.sat}.f32 d, s, s", &no_sets).unwrap();
        assert_eq!(f.slots.len(), 4);
        let ok = [Modifier::Rounding(Rounding::Rn), Modifier::Type(Type::F32)];
        assert!(f.match_mods(&ok).is_ok());
        let reordered = [Modifier::Type(Type::F32), Modifier::Flag(Flag::Ftz)];
        assert!(f.match_mods(&reordered).is_ok());
        let dup = [
            Modifier::Flag(Flag::Ftz),
            Modifier::Flag(Flag::Ftz),
            Modifier::Type(Type::F32),
        ];
        assert_eq!(f.match_mods(&dup), Err(Some(Modifier::Flag(Flag::Ftz))));
        assert_eq!(f.match_mods(&[Modifier::Flag(Flag::Ftz)]), Err(None));
    }

    #[test]
    fn optional_operands() {
        let f = Form::compile(" a?, l, a?, l?", &no_sets).unwrap();
        let n = crate::names::Name::from_index(0);
        let args = Operand::Args(Box::default());
        assert!(f.match_operands(&[Operand::reg(n)]));
        assert!(f.match_operands(&[args.clone(), Operand::reg(n), args.clone(), Operand::reg(n)]));
        assert!(!f.match_operands(std::slice::from_ref(&args)));
    }

    #[test]
    fn rejects_bad_forms() {
        assert!(Form::compile(".nosuchword d", &no_sets).is_err());
        assert!(Form::compile("{.ftz d", &no_sets).is_err());
        assert!(Form::compile(".f32 q", &no_sets).is_err());
    }
}
