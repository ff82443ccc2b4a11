//! Instruction operands.

use crate::names::Name;
use crate::special::SpecialReg;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::fmt;

/// A list of operands stored inline up to four.
pub type OperandList = SmallVec<[Operand; 4]>;

/// A component or byte/half-word selector written after a register: `%tid.x`, `%r1.b0`,
/// `%r2.h1`, `a.h10` (`vop2`), `a.b3210` (`vop4`).
///
/// Packed into 16 bits: `0` is no selector; `1..=8` are `.x .y .z .w .r .g .b .a`; otherwise bits
/// 15..14 give the letter (`01` = `b`, `10` = `h`), bits 13..12 the digit count minus one and
/// bits 11..0 up to four 3-bit digits.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Selector(u16);

const COMPONENTS: [char; 8] = ['x', 'y', 'z', 'w', 'r', 'g', 'b', 'a'];

impl Selector {
    /// No selector.
    pub const NONE: Selector = Selector(0);

    /// Whether there is no selector.
    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The raw 16-bit encoding.
    pub fn bits(self) -> u16 {
        self.0
    }

    /// The selector with raw encoding `bits`, which may not be valid ([`Selector::is_valid`]).
    pub fn from_bits(bits: u16) -> Selector {
        Selector(bits)
    }

    /// A vector component `.x`, `.y`, `.z`, `.w` (0..=3) or `.r`, `.g`, `.b`, `.a` (4..=7).
    pub fn component(i: u8) -> Option<Selector> {
        (i < 8).then_some(Selector(i as u16 + 1))
    }

    /// The component index (0 = x ... 3 = w, 4 = r ... 7 = a), if this is a component.
    pub fn as_component(self) -> Option<u8> {
        (1..=8).contains(&self.0).then(|| self.0 as u8 - 1)
    }

    /// A byte (`b`) or half-word (`h`) selector with 1 to 4 digits, each 0..=7.
    pub fn digits(letter: char, digits: &[u8]) -> Option<Selector> {
        let kind = match letter {
            'b' => 1u16,
            'h' => 2u16,
            _ => return None,
        };
        if digits.is_empty() || digits.len() > 4 || digits.iter().any(|&d| d > 7) {
            return None;
        }
        let mut v = 0u16;
        for &d in digits {
            v = (v << 3) | d as u16;
        }
        Some(Selector(
            (kind << 14) | ((digits.len() as u16 - 1) << 12) | v,
        ))
    }

    /// The letter and digits of a byte/half-word selector.
    pub fn as_digits(self) -> Option<(char, SmallVec<[u8; 4]>)> {
        let letter = match self.0 >> 14 {
            1 => 'b',
            2 => 'h',
            _ => return None,
        };
        let n = ((self.0 >> 12) & 3) as usize + 1;
        let mut out = SmallVec::new();
        for i in (0..n).rev() {
            out.push(((self.0 >> (3 * i)) & 7) as u8);
        }
        Some((letter, out))
    }

    /// Parses a selector spelling without the dot (`x`, `b0`, `h10`, `b3210`).
    pub fn parse(s: &str) -> Option<Selector> {
        let b = s.as_bytes();
        if b.len() == 1 {
            return COMPONENTS
                .iter()
                .position(|&c| c as u8 == b[0])
                .and_then(|i| Selector::component(i as u8));
        }
        let (&letter, rest) = b.split_first()?;
        if !rest.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let digits: SmallVec<[u8; 4]> = rest.iter().map(|c| c - b'0').collect();
        Selector::digits(letter as char, &digits)
    }

    /// Whether the encoding is one [`Selector::parse`] can produce: digit bits past the
    /// digit count must be zero (they do not print, so a selector with them would read back as
    /// another encoding).
    pub fn is_valid(self) -> bool {
        self.0 <= 8
            || self
                .as_digits()
                .is_some_and(|(letter, d)| Selector::digits(letter, &d) == Some(self))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.as_component() {
            return write!(f, ".{}", COMPONENTS[c as usize]);
        }
        if let Some((letter, digits)) = self.as_digits() {
            write!(f, ".{letter}")?;
            for d in digits {
                write!(f, "{d}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Selector({self})")
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Selector {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(match u.int_in_range(0..=3u8)? {
            0 | 1 => Selector::NONE,
            2 => Selector::component(u.int_in_range(0..=7)?).unwrap_or_default(),
            _ => {
                let letter = if u.arbitrary()? { 'b' } else { 'h' };
                let n = u.int_in_range(1..=4usize)?;
                let mut d = SmallVec::<[u8; 4]>::new();
                for _ in 0..n {
                    d.push(u.int_in_range(0..=7)?);
                }
                Selector::digits(letter, &d).unwrap_or_default()
            }
        })
    }
}

/// One operand of an instruction. 16 bytes; lists and pairs are boxed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Operand {
    /// A named register, variable, label or function, with an optional selector (`%r1`,
    /// `%v.x`, `a.b0`).
    Reg {
        /// The name.
        name: Name,
        /// Component or byte selector; [`Selector::NONE`] if absent.
        sel: Selector,
    },
    /// A special register (`%tid.x`, `%laneid`).
    Special {
        /// The register.
        reg: SpecialReg,
        /// Component selector (`.x`), if any.
        sel: Selector,
    },
    /// An integer literal that fits `i64` (decimal, hex, octal or binary in the source).
    Int(i64),
    /// An unsigned integer literal: written with the `U` suffix or above `i64::MAX`.
    Uint(u64),
    /// A single-precision literal in `0f` hex form, as bits.
    F32(u32),
    /// A double-precision literal in `0d` hex form, as bits.
    F64(u64),
    /// A decimal floating-point literal (`1.5`, `0.25`, `1e-3`), as the bits of the `f64` it
    /// denotes.
    Dec(u64),
    /// A symbol with an offset used as a value: `sym+8`, `sym-4`, `sym+0`.
    Sym {
        /// The symbol.
        name: Name,
        /// Byte offset.
        offset: i64,
    },
    /// A memory address `[base+offset]`, `[base]`, `[offset]`, optionally followed by
    /// `.unified`.
    Addr {
        /// Register or variable; `None` for an absolute address.
        base: Option<Name>,
        /// Byte offset (the absolute address when there is no base).
        offset: i64,
        /// Whether `.unified` follows the brackets (`ld`).
        unified: bool,
    },
    /// A brace-enclosed vector `{%r1, _, %r3}`.
    Vector(Box<OperandList>),
    /// A bracketed tuple with several elements: `[tmap, {c0, c1}]`, `[tex, sampler, {x, y}]`.
    Tuple(Box<OperandList>),
    /// A parenthesised argument list of `call`: `(a, b)`, `()`.
    Args(Box<OperandList>),
    /// Two operands joined with `|`: `%p|%q`, `_|%p`, `{%r1, %r2}|%p`.
    Pair(Box<[Operand; 2]>),
    /// A negated predicate `!p`.
    Not(Name),
    /// A negated operand `-a` (`vmad`).
    Neg(Box<Operand>),
    /// The sink `_`.
    Sink,
}

impl Operand {
    /// A plain register operand.
    pub fn reg(name: Name) -> Operand {
        Operand::Reg {
            name,
            sel: Selector::NONE,
        }
    }

    /// A memory operand `[base+offset]`.
    pub fn addr(base: Name, offset: i64) -> Operand {
        Operand::Addr {
            base: Some(base),
            offset,
            unified: false,
        }
    }

    /// A vector operand.
    pub fn vector<I: IntoIterator<Item = Operand>>(items: I) -> Operand {
        Operand::Vector(Box::new(items.into_iter().collect()))
    }

    /// The name of a plain register / symbol operand.
    pub fn as_name(&self) -> Option<Name> {
        match *self {
            Operand::Reg { name, sel } if sel.is_none() => Some(name),
            _ => None,
        }
    }

    /// The value of an integer literal.
    pub fn as_int(&self) -> Option<i128> {
        match *self {
            Operand::Int(v) => Some(v as i128),
            Operand::Uint(v) => Some(v as i128),
            _ => None,
        }
    }

    /// Whether this is a literal of any kind.
    pub fn is_immediate(&self) -> bool {
        matches!(
            self,
            Operand::Int(_)
                | Operand::Uint(_)
                | Operand::F32(_)
                | Operand::F64(_)
                | Operand::Dec(_)
        )
    }

    /// The sub-operands of a vector, tuple or argument list.
    pub fn items(&self) -> Option<&[Operand]> {
        match self {
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => Some(v),
            _ => None,
        }
    }

    /// Calls `f` on every name this operand mentions, in print order.
    pub fn for_each_name(&self, f: &mut impl FnMut(Name)) {
        self.for_each_name_ref(&mut |n: &Name| f(*n));
    }

    /// Calls `f` on a reference to every name this operand mentions, in print order.
    pub fn for_each_name_ref(&self, f: &mut impl FnMut(&Name)) {
        match self {
            Operand::Reg { name, .. } | Operand::Sym { name, .. } | Operand::Not(name) => f(name),
            Operand::Addr { base: Some(b), .. } => f(b),
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
                v.iter().for_each(|o| o.for_each_name_ref(f))
            }
            Operand::Pair(p) => p.iter().for_each(|o| o.for_each_name_ref(f)),
            Operand::Neg(o) => o.for_each_name_ref(f),
            _ => {}
        }
    }

    /// Calls `f` on every name this operand mentions, mutably, in print order.
    pub fn for_each_name_mut(&mut self, f: &mut impl FnMut(&mut Name)) {
        match self {
            Operand::Reg { name, .. } | Operand::Sym { name, .. } | Operand::Not(name) => f(name),
            Operand::Addr { base: Some(b), .. } => f(b),
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
                v.iter_mut().for_each(|o| o.for_each_name_mut(f))
            }
            Operand::Pair(p) => p.iter_mut().for_each(|o| o.for_each_name_mut(f)),
            Operand::Neg(o) => o.for_each_name_mut(f),
            _ => {}
        }
    }
}

/// A constant expression of an initialiser or a section (`generic(foo)+8`, `-1`, `a+b*4`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Expr {
    /// An integer literal (see [`Operand::Int`]).
    Int(i64),
    /// An unsigned integer literal (see [`Operand::Uint`]).
    Uint(u64),
    /// `0f` single-precision bits.
    F32(u32),
    /// `0d` double-precision bits.
    F64(u64),
    /// A decimal float literal, as `f64` bits.
    Dec(u64),
    /// A symbol: a variable, function or label name.
    Sym(Name),
    /// `generic(sym)`: the generic address of a variable.
    Generic(Name),
    /// A unary operator applied to an expression.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// A parenthesised expression (kept so that printing reproduces the grouping).
    Paren(Box<Expr>),
}

/// Unary operators of constant expressions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum UnaryOp {
    /// `-`
    Neg,
    /// `~`
    Not,
    /// `!`
    LogicalNot,
    /// `+`
    Plus,
}

/// Binary operators of constant expressions, in PTX (C) precedence classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `^`
    Xor,
    /// `|`
    Or,
}

impl BinaryOp {
    /// The operator's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::And => "&",
            BinaryOp::Xor => "^",
            BinaryOp::Or => "|",
        }
    }

    /// Binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 5,
            BinaryOp::Add | BinaryOp::Sub => 4,
            BinaryOp::Shl | BinaryOp::Shr => 3,
            BinaryOp::And => 2,
            BinaryOp::Xor => 1,
            BinaryOp::Or => 0,
        }
    }
}

impl UnaryOp {
    /// The operator's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "~",
            UnaryOp::LogicalNot => "!",
            UnaryOp::Plus => "+",
        }
    }
}

// Dropping is iterative: the derived drop glue recurses once per level, so a deep tree built
// through the API (a left-deep sum of a million terms) would overflow the stack when dropped.
// Each node's children are moved out (leaving a leaf in their box) onto a work list, so no
// drop nests. A node whose children are leaves, the common case, allocates nothing.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut work: Vec<Expr> = Vec::new();
        self.take_children(&mut work);
        while let Some(mut e) = work.pop() {
            e.take_children(&mut work);
        }
    }
}

impl Expr {
    /// Moves the children of this node that have children themselves onto `work`, leaving a
    /// leaf in their place.
    #[inline]
    fn take_children(&mut self, work: &mut Vec<Expr>) {
        let mut take = |e: &mut Box<Expr>| {
            if matches!(**e, Expr::Unary(..) | Expr::Binary(..) | Expr::Paren(..)) {
                work.push(std::mem::replace(&mut **e, Expr::Int(0)));
            }
        };
        match self {
            Expr::Unary(_, e) | Expr::Paren(e) => take(e),
            Expr::Binary(_, a, b) => {
                take(a);
                take(b);
            }
            Expr::Int(_)
            | Expr::Uint(_)
            | Expr::F32(_)
            | Expr::F64(_)
            | Expr::Dec(_)
            | Expr::Sym(_)
            | Expr::Generic(_) => {}
        }
    }
}

impl Expr {
    /// Calls `f` on every name, in print order.
    pub fn for_each_name(&self, f: &mut impl FnMut(Name)) {
        self.for_each_name_ref(&mut |n: &Name| f(*n));
    }

    /// Calls `f` on a reference to every name, in print order.
    pub fn for_each_name_ref(&self, f: &mut impl FnMut(&Name)) {
        match self {
            Expr::Sym(n) | Expr::Generic(n) => f(n),
            Expr::Unary(_, e) | Expr::Paren(e) => e.for_each_name_ref(f),
            Expr::Binary(_, a, b) => {
                a.for_each_name_ref(f);
                b.for_each_name_ref(f);
            }
            _ => {}
        }
    }

    /// Calls `f` on every name mutably, in print order.
    pub fn for_each_name_mut(&mut self, f: &mut impl FnMut(&mut Name)) {
        match self {
            Expr::Sym(n) | Expr::Generic(n) => f(n),
            Expr::Unary(_, e) | Expr::Paren(e) => e.for_each_name_mut(f),
            Expr::Binary(_, a, b) => {
                a.for_each_name_mut(f);
                b.for_each_name_mut(f);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Operand>(), 16);
    }

    #[test]
    fn selectors_round_trip() {
        for s in [
            "x", "y", "w", "r", "a", "b0", "b3", "h1", "h10", "h33", "b3210", "b7654", "b0",
        ] {
            let sel = Selector::parse(s).unwrap();
            assert_eq!(sel.to_string(), format!(".{s}"));
        }
        assert!(Selector::parse("b8").is_none());
        assert!(Selector::parse("q").is_none());
        assert!(Selector::parse("b12345").is_none());
        // `.b3` with a stray bit in an unused digit prints as `.b3` but is not its encoding.
        let b3 = Selector::parse("b3").unwrap();
        assert!(b3.is_valid());
        assert!(!Selector::from_bits(b3.bits() | 1 << 9).is_valid());
    }
}
