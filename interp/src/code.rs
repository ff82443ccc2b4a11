//! The decoded form of code: the operands and instructions the load step produces
//! ([`Opnd`], [`DInst`]) and the marks of the ptxas lowering ([`Lowering`], set by
//! [`crate::lower`]) that execution reads. A leaf: `load` and `lower` both build on it, so
//! neither imports the other for its types.

use ptx_ir_core::{
    Flag, ModClass, Modifier, Opcode, Rounding, Selector, Space, SpecialReg, Type, Vector,
};
use smallvec::SmallVec;

/// Index of a function in [`Program::funcs`](crate::load::Program::funcs).
pub type FuncId = u32;

/// Base of an address operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MemBase {
    /// `[imm]`
    None,
    /// `[%r]`: a register slot.
    Reg(u32),
    /// A variable with a fixed address in its state space (global, const, shared, kernel param).
    Static(u64),
    /// A variable in the executing thread's frame (`.local`, function `.param`): frame base plus
    /// this offset.
    Frame(u32),
}

/// A decoded operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Opnd {
    /// A register slot, with the register's width in bits (1 for predicates, 128 for `.b128`,
    /// which takes two slots).
    Reg {
        /// First slot.
        slot: u32,
        /// Declared width in bits.
        bits: u16,
    },
    /// An immediate, as bits (already converted to the instruction's float type).
    Imm(u64),
    /// A special register and its component (0 = x).
    Special(SpecialReg, u8),
    /// The address of a frame variable: frame base plus offset.
    Frame(u32),
    /// `!p`
    Not(u32),
    /// `{a, b, ...}`
    Vec(Box<[Opnd]>),
    /// `a|b`
    Pair(Box<[Opnd; 2]>),
    /// `[base+off]`
    Mem(MemBase, i64),
    /// A label: instruction index.
    Label(u32),
    /// A function.
    Func(FuncId),
    /// A `.branchtargets` list: index into
    /// [`Func::branch_tables`](crate::load::Func::branch_tables).
    Targets(u32),
    /// A `.calltargets`, `.callprototype` or call table: index into
    /// [`Func::call_lists`](crate::load::Func::call_lists).
    CallList(u32),
    /// `(a, b)`
    Args(Box<[Opnd]>),
    /// `_`
    Sink,
    /// A register with a byte/half selector (`%r.b1`), which only video instructions take.
    Selected(u32, Selector),
    /// `[a, {b, c}]`: a bracketed tuple (tensor map and coordinates).
    Tuple(Box<[Opnd]>),
}

/// An instruction decoded for execution.
#[derive(Clone, Debug)]
pub struct DInst {
    /// The opcode.
    pub op: Opcode,
    /// Guard predicate slot and whether it is negated.
    pub guard: Option<(u32, bool)>,
    /// The first type modifier: `types[0]`, kept as a field because most handlers read it on
    /// every step.
    pub ty: Option<Type>,
    /// Every type modifier, in order (`cvt.f32.s32` has `[F32, S32]`).
    pub types: SmallVec<[Type; 4]>,
    /// Its `Flag` qualifiers (`.ftz`, `.sat`, `.approx`, ...), decoded once at load.
    pub flags: Flags,
    /// Its rounding qualifier, if any.
    pub rnd: Option<Rounding>,
    /// Its first state-space qualifier, if any.
    pub space: Option<Space>,
    /// Its vector qualifier (`.v2`, `.v4`, `.v8`), if any.
    pub vector: Option<Vector>,
    /// Operands.
    pub opnds: SmallVec<[Opnd; 4]>,
    /// How ptxas lowers it differently from its one-by-one reading ([`crate::lower`]).
    pub lower: Option<Box<Lowering>>,
}

/// How an instruction executes differently from its one-by-one reading.
#[derive(Clone, Debug, PartialEq)]
pub enum Lowering {
    /// A `mul` whose product is fused, or a `neg` whose `neg` copies its old operand: it also
    /// keeps its register operands, in these slots (operand 1, operand 2; `None` for an
    /// immediate or no operand), for the instructions that read them later.
    Save([Option<u32>; 2]),
    /// An `add`/`sub` that ptxas fuses with a `mul`.
    Fused(Box<Fused>),
    /// A `neg` that flips the sign bit(s) of its operand without touching a NaN's payload.
    SignFlip,
    /// A `neg` of a `neg`: a copy of the first one's operand.
    Copy(Opnd),
    /// A `div.full.f32`/`div.approx.f32` by a constant: ptxas multiplies by the constant's
    /// reciprocal, rounded to nearest at compile time (after `pre`, a scaling of the dividend
    /// as `div.full` scales a divisor outside the normal range).
    MulConst {
        /// A first factor for the dividend (`0.25` or `2^24`), as bits.
        pre: Option<u32>,
        /// The reciprocal, as bits.
        k: u32,
    },
    /// A `selp` between `x` and `neg x`: operand `neg_operand` (1 or 2) is `x` with its sign
    /// bit(s) flipped.
    SelectNeg {
        /// Which operand of the `selp` is the `neg`.
        neg_operand: u8,
        /// `x`.
        src: Opnd,
    },
}

/// The product fused into an `add`/`sub`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fused {
    /// The `mul`'s operands as it read them (saved slots or immediates).
    pub a: Opnd,
    /// Second factor.
    pub b: Opnd,
    /// The product enters negated (`neg` between, or `sub c, product`).
    pub neg_product: bool,
    /// The addend enters negated (`sub product, c`).
    pub neg_addend: bool,
    /// The operand of the `add`/`sub` (1 or 2) that held the product; the other is the addend.
    pub product_operand: u8,
    /// Index of the `mul` (or `div`).
    pub mul: u32,
    /// The product is a `div.full` (`Some(true)`) or `div.approx` (`Some(false)`) by a
    /// register: `a * rcp(b)` with both scaled ([`crate::float::approx::div_factors`]).
    pub div: Option<bool>,
}

/// An instruction's [`Flag`] qualifiers as a bit set, so that a handler tests one with a shift
/// instead of scanning the instruction's modifiers on every step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags([u64; 3]);

// Every flag has a bit.
const _: () = assert!(ModClass::Flag.len() <= 192);

impl Flags {
    /// The flags among `mods`.
    pub fn of(mods: &[Modifier]) -> Flags {
        let mut b = Flags::default();
        for m in mods {
            if let Modifier::Flag(f) = m {
                let i = f.ordinal() as usize;
                b.0[i / 64] |= 1 << (i % 64);
            }
        }
        b
    }

    /// Whether `f` is among them.
    #[inline]
    pub fn has(self, f: Flag) -> bool {
        let i = f.ordinal() as usize;
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}
