//! The decoded form of code: the operands and instructions the load step produces
//! ([`Opnd`], [`DInst`]) and the marks of the ptxas lowering ([`Lowering`], set by
//! [`crate::lower`]) that execution reads. A leaf: `load` and `lower` both build on it, so
//! neither imports the other for its types.

use ptx_ir_core::{
    Cache, CacheOp, Compare, Count, Dim, Flag, Kind, Layout, ModClass, Modifier, Op, Opcode,
    Rounding, Selector, Sem, Space, SpecialReg, Type, Vector,
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
    /// `-a`: a negated source (`vmad`).
    Neg(Box<Opnd>),
    /// A register with a byte/half selector (`%r.b1`), which only video instructions take.
    Selected(u32, Selector),
    /// `[a, {b, c}]`: a bracketed tuple (tensor map and coordinates).
    Tuple(Box<[Opnd]>),
    /// What a handler gets for an operand the instruction does not have: never, since the load
    /// step checks the operands against the handler's [`Arity`](crate::arity::Arity); reading,
    /// writing or addressing it is an error.
    Missing,
}

/// The operand behind every [`Opnd::Missing`] a handler gets.
pub static MISSING: Opnd = Opnd::Missing;

/// An instruction decoded for execution: its opcode, guard, qualifiers and operands, in the
/// form the handlers read on every step.
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
    pub types: Types,
    /// Its `Flag` qualifiers (`.ftz`, `.sat`, `.approx`, ...).
    pub flags: Flags,
    /// Its rounding qualifier, if any.
    pub rnd: Option<Rounding>,
    /// Its first state-space qualifier, if any.
    pub space: Option<Space>,
    /// Its second state-space qualifier, if any: the source space of the copies that name two
    /// (`cp.async.bulk.shared::cluster.shared::cta`).
    pub space2: Option<Space>,
    /// Its vector qualifier (`.v2`, `.v4`, `.v8`), if any.
    pub vector: Option<Vector>,
    /// The comparison of `setp`/`set` (a [`Cmp`](ptx_ir_core::Cmp) qualifier, or `.lo`/`.hi`),
    /// if any.
    pub cmp: Option<Compare>,
    /// Its first operation qualifier (`.add`, `.and`, `.popc`, `.inc`, ...): the operation of
    /// atomics and reductions, the boolean combination of `setp`/`lop3`, the kind of
    /// `bar.red` and the direction of `setmaxnreg`.
    pub oper: Option<Op>,
    /// Its memory-ordering qualifier, if any.
    pub sem: Option<Sem>,
    /// Its cache operator (`.ca`, `.cg`, ...), if any.
    pub cache_op: Option<CacheOp>,
    /// Whether it carries `.L2::cache_hint` (and so a cache-policy operand).
    pub l2_hint: bool,
    /// Its matrix shape as `(m, n, k)` ([`Shape::dims`](ptx_ir_core::Shape::dims)), if any.
    pub shape: Option<(u16, u16, u16)>,
    /// Its `Kind` qualifiers (`.kind::f8f6f4`, `.scale_vec::1X`, ...).
    pub kinds: Kinds,
    /// Its count qualifier (`.x1`, `.x2`, `.x4`, ...), if any.
    pub count: Option<Count>,
    /// Its dimensionality qualifier (`.1d` ... `.5d`), if any.
    pub dim: Option<Dim>,
    /// Its matrix layouts (`.row`/`.col`), in order: `wmma.mma.row.col` has two.
    pub layouts: [Option<Layout>; 2],
    /// Operands.
    pub opnds: SmallVec<[Opnd; 4]>,
    /// How ptxas lowers it differently from its one-by-one reading ([`crate::lower`]).
    pub lower: Option<Box<Lowering>>,
}

// Every step reads its instruction: keep it within 176 bytes (what it took before every
// qualifier was decoded) and its operands within 24.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<DInst>() <= 176 && std::mem::size_of::<Opnd>() <= 24);

/// An instruction's type qualifiers, in order, held inline: no instruction form has more than
/// [`Types::MAX`] (`mma...block_scale.f32.e4m3.e4m3.f32.ue8m0` has five).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types {
    len: u8,
    t: [Type; Types::MAX],
}

impl Types {
    /// The most type qualifiers an instruction form takes.
    pub const MAX: usize = 5;

    /// The types in order.
    #[inline]
    pub fn as_slice(&self) -> &[Type] {
        &self.t[..self.len as usize]
    }

    /// Appends `t`; `false` when all [`Types::MAX`] places are taken.
    fn push(&mut self, t: Type) -> bool {
        let Some(place) = self.t.get_mut(self.len as usize) else {
            return false;
        };
        *place = t;
        self.len += 1;
        true
    }
}

impl Default for Types {
    fn default() -> Types {
        Types {
            len: 0,
            t: [Type::B32; Types::MAX],
        }
    }
}

impl std::ops::Deref for Types {
    type Target = [Type];
    #[inline]
    fn deref(&self) -> &[Type] {
        self.as_slice()
    }
}

/// An instruction's [`Kind`] qualifiers as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kinds(u16);

// Every kind has a bit.
const _: () = assert!(ModClass::Kind.len() <= 16);

impl Kinds {
    /// Whether `k` is among them.
    #[inline]
    pub fn has(self, k: Kind) -> bool {
        self.0 >> k.ordinal() & 1 != 0
    }

    /// Whether there is any.
    #[inline]
    pub fn any(self) -> bool {
        self.0 != 0
    }
}

impl DInst {
    /// `op` under `guard` with the qualifiers `mods`, decoded in one pass, and `opnds`; `None`
    /// when `mods` hold more than [`Types::MAX`] types, which no instruction form accepts. Each
    /// single-valued qualifier is the first of its class.
    pub fn new(
        op: Opcode,
        guard: Option<(u32, bool)>,
        mods: &[Modifier],
        opnds: SmallVec<[Opnd; 4]>,
    ) -> Option<DInst> {
        let mut q = DInst {
            op,
            guard,
            ty: None,
            types: Types::default(),
            flags: Flags::default(),
            rnd: None,
            space: None,
            space2: None,
            vector: None,
            cmp: None,
            oper: None,
            sem: None,
            cache_op: None,
            l2_hint: false,
            shape: None,
            kinds: Kinds::default(),
            count: None,
            dim: None,
            layouts: [None; 2],
            opnds,
            lower: None,
        };
        for &m in mods {
            match m {
                Modifier::Type(t) => {
                    if !q.types.push(t) {
                        return None;
                    }
                }
                Modifier::Flag(f) => {
                    q.flags.insert(f);
                    if q.cmp.is_none() {
                        q.cmp = match f {
                            Flag::Lo => Some(Compare::Lo),
                            Flag::Hi => Some(Compare::Hi),
                            _ => None,
                        };
                    }
                }
                Modifier::Cmp(c) => {
                    q.cmp.get_or_insert(Compare::Cmp(c));
                }
                Modifier::Rounding(r) => {
                    q.rnd.get_or_insert(r);
                }
                Modifier::Space(s) => {
                    if q.space.is_none() {
                        q.space = Some(s);
                    } else if q.space2.is_none() {
                        q.space2 = Some(s);
                    }
                }
                Modifier::Vector(v) => {
                    q.vector.get_or_insert(v);
                }
                Modifier::Op(o) => {
                    q.oper.get_or_insert(o);
                }
                Modifier::Sem(s) => {
                    q.sem.get_or_insert(s);
                }
                Modifier::CacheOp(c) => {
                    q.cache_op.get_or_insert(c);
                }
                Modifier::Cache(c) => q.l2_hint |= c == Cache::L2CacheHint,
                Modifier::Shape(s) => {
                    q.shape.get_or_insert(s.dims());
                }
                Modifier::Kind(k) => q.kinds.0 |= 1 << k.ordinal(),
                Modifier::Count(c) => {
                    q.count.get_or_insert(c);
                }
                Modifier::Dim(d) => {
                    q.dim.get_or_insert(d);
                }
                Modifier::Layout(l) => {
                    if let Some(slot) = q.layouts.iter_mut().find(|s| s.is_none()) {
                        *slot = Some(l);
                    }
                }
                Modifier::Scope(_) => {}
            }
        }
        q.ty = q.types.first().copied();
        Some(q)
    }
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
    /// An `atom`/`red` on `.shared::cluster` or a generic address that ptxas (CUDA 13.0, `sm_90`/`sm_90a`) makes a
    /// read-modify-write that is not atomic when the word is in another CTA's shared memory
    /// ([`crate::lower::remote_rmw`]): its value is the atomic one, which the GPU gives when
    /// nothing updates the word at the same time, and the `race` check treats those lanes'
    /// accesses as plain ones.
    RemoteRmw,
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
    fn insert(&mut self, f: Flag) {
        let i = f.ordinal() as usize;
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Whether `f` is among them.
    #[inline]
    pub fn has(self, f: Flag) -> bool {
        let i = f.ordinal() as usize;
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_fits_the_inline_types() {
        for op in Opcode::ALL {
            for f in op.forms() {
                let slots = f
                    .slots
                    .iter()
                    .filter(|s| s.members.iter().any(|m| m.class() == ModClass::Type))
                    .count();
                assert!(
                    slots <= Types::MAX,
                    "{} `{}`: {slots} types",
                    op.name(),
                    f.text
                );
            }
        }
    }

    #[test]
    fn qualifiers_decode_as_the_instruction_accessors_read_them() {
        let src = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() {\n\
            .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n\
            setp.lo.and.u32 %p1, %r1, %r2, %p2;\n\
            setp.gtu.ftz.f32 %p1, %r1, %r2;\n\
            cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%rd1], [%rd2], 16, [%rd3];\n\
            cp.async.cg.shared.global.L2::cache_hint [%rd1], [%rd2], 16, %rd3;\n\
            mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%r0,%r1,%r2,%r3};\n\
            ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0,%r1,%r2,%r3}, [%rd1];\n\
            fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;\n\
            ret;\n}\n";
        let m = ptx_ir_text::parse(src).expect("parse");
        let f = m.functions().next().expect("k");
        let body = f.statements().expect("body");
        let insts: Vec<&ptx_ir_core::Instruction> = ptx_ir_core::walk::instructions(body)
            .map(|(_, i)| i)
            .collect();
        assert_eq!(insts.len(), 8);
        for i in insts {
            let q = DInst::new(i.opcode, None, &i.mods, SmallVec::new()).expect("fits");
            assert_eq!(q.types.as_slice(), &i.types()[..]);
            assert_eq!(q.ty, i.types().first().copied());
            assert_eq!(q.rnd, i.rounding());
            assert_eq!(q.space, i.space());
            assert_eq!(q.space2, i.spaces().get(1).copied());
            assert_eq!(q.vector, i.vector());
            assert_eq!(q.cmp, i.compare());
            assert_eq!(q.oper, i.ops().first().copied());
            assert_eq!(q.sem, i.sem());
            assert_eq!(q.cache_op, i.cache_op());
            assert_eq!(q.l2_hint, i.has(Cache::L2CacheHint));
            for m in &i.mods {
                match *m {
                    Modifier::Flag(fl) => assert!(q.flags.has(fl)),
                    Modifier::Kind(k) => assert!(q.kinds.has(k)),
                    Modifier::Shape(s) => assert_eq!(q.shape, Some(s.dims())),
                    Modifier::Count(c) => assert_eq!(q.count, Some(c)),
                    Modifier::Dim(d) => assert_eq!(q.dim, Some(d)),
                    _ => {}
                }
            }
        }
    }
}
