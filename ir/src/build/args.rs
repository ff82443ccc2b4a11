//! The argument lists of the builder's instruction methods: [`Mods`] for the qualifiers and
//! [`Operands`] for the operands, each in PTX order. A single qualifier or operand stands for a
//! list of one; a tuple lists several of different kinds (`(Flag::Lo, Type::S32)`,
//! `(d, a, 4)`); `()` is the empty list.

use super::types::Var;
use crate::operand::Operand;
use crate::vocab::Modifier;
use smallvec::SmallVec;

/// The qualifiers of one instruction, in PTX order: anything that converts into a
/// [`Modifier`] (a [`crate::Type`], [`crate::Flag`], [`crate::Space`], [`crate::Cmp`], ...),
/// an `Option` of one (absent adds nothing), a `Vec`, array or slice of [`Modifier`]s, `()`,
/// or a tuple of up to eight of these.
pub trait Mods {
    /// Appends the qualifiers to `out`.
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>);
}

impl<T: Into<Modifier>> Mods for T {
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>) {
        out.push(self.into());
    }
}

impl<T: Into<Modifier>> Mods for Option<T> {
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>) {
        out.extend(self.map(Into::into));
    }
}

impl Mods for Vec<Modifier> {
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>) {
        out.extend(self);
    }
}

impl Mods for &[Modifier] {
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>) {
        out.extend_from_slice(self);
    }
}

impl<const N: usize> Mods for [Modifier; N] {
    fn push_mods(self, out: &mut SmallVec<[Modifier; 8]>) {
        out.extend(self);
    }
}

impl Mods for () {
    fn push_mods(self, _: &mut SmallVec<[Modifier; 8]>) {}
}

/// The operands of one instruction, in PTX order (destination first): anything that converts
/// into an [`Operand`] (a [`super::Reg`], [`Var`], [`super::Sreg`], [`super::Label`],
/// [`super::FnRef`], an integer or float literal, an address `reg.at(offset)`), a `Vec` or
/// array of [`Operand`]s, `()`, or a tuple of up to twelve operands.
pub trait Operands {
    /// Appends the operands to `out`.
    fn push_operands(self, out: &mut Vec<Operand>);
}

impl<T: Into<Operand>> Operands for T {
    fn push_operands(self, out: &mut Vec<Operand>) {
        out.push(self.into());
    }
}

impl Operands for Vec<Operand> {
    fn push_operands(self, out: &mut Vec<Operand>) {
        out.extend(self);
    }
}

impl<const N: usize> Operands for [Operand; N] {
    fn push_operands(self, out: &mut Vec<Operand>) {
        out.extend(self);
    }
}

impl Operands for () {
    fn push_operands(self, _: &mut Vec<Operand>) {}
}

macro_rules! tuples {
    ($trait:ident, $method:ident, $out:ty, $bound:path; $( ($($t:ident),+) )*) => {
        $(
            impl<$($t: $bound),+> $trait for ($($t,)+) {
                #[allow(non_snake_case)]
                fn $method(self, out: &mut $out) {
                    let ($($t,)+) = self;
                    $( $t.$method(out); )+
                }
            }
        )*
    };
}

tuples!(Mods, push_mods, SmallVec<[Modifier; 8]>, Mods;
    (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F)
    (A, B, C, D, E, F, G) (A, B, C, D, E, F, G, H));

/// One operand of a tuple (a tuple's members are single operands, not lists).
pub trait Single {
    /// Appends the operand to `out`.
    fn push_operands(self, out: &mut Vec<Operand>);
}

impl<T: Into<Operand>> Single for T {
    fn push_operands(self, out: &mut Vec<Operand>) {
        out.push(self.into());
    }
}

tuples!(Operands, push_operands, Vec<Operand>, Single;
    (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F)
    (A, B, C, D, E, F, G) (A, B, C, D, E, F, G, H) (A, B, C, D, E, F, G, H, I)
    (A, B, C, D, E, F, G, H, I, J) (A, B, C, D, E, F, G, H, I, J, K)
    (A, B, C, D, E, F, G, H, I, J, K, L));

/// The parenthesised list `(a, b, ...)` of `call`'s results or arguments: `.param` variables
/// declared in an enclosing [`block`](super::FunctionBuilder::block) with
/// [`local`](super::FunctionBuilder::local).
pub fn args(vars: &[Var]) -> Operand {
    Operand::Args(Box::new(vars.iter().map(|&v| Operand::from(v)).collect()))
}
