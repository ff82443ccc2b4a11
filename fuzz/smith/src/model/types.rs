//! The qualifiers of the generated operations ([`super::Operation`] carries them).
//!
//! Where a qualifier is a member of the IR's vocabulary (`ptx_ir_core::vocab`: roundings,
//! memory semantics and scopes, boolean, atomic and reduction operations, warp and `prmt`
//! modes, float, half-precision and destination types), the operation holds the IR value
//! itself, and this module lists the members the generator draws as constants in draw order
//! ([`ROUNDINGS`], [`BOOL_OPS`], [`ATOM_OPS`], ...): the same fuzzer bytes pick the same
//! members, and the reference semantics knows what it must answer for. The types here are the
//! model's own: integer, comparison, conversion and atomic operand types as the generator
//! thinks of them, address kinds, state-space windows, hint forms.

use super::reg::Class;
use ptx_ir_core::{Flag, Op, Rounding, Scope, Sem, Type};

/// The float roundings a swarm configuration may allow, in draw order (`cvt` to an integer,
/// or between floats of one format, takes the integer rounding of the same direction:
/// `.rni` for `.rn`, ...).
pub const ROUNDINGS: [Rounding; 4] = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];

/// The register class of the values of float format `t`: `%fd` for `.f64`, `%f` for `.f32`
/// (the formats of the float family).
pub fn float_class(t: Type) -> Class {
    if t == Type::F64 {
        Class::Fd
    } else {
        Class::F
    }
}

/// The half-precision formats the generator draws, in draw order: scalars in `.b16`
/// registers, pairs (`x2` in the operations) in `.b32` registers.
pub const HALF_TYPES: [Type; 2] = [Type::F16, Type::Bf16];

/// The destination types of `set` the generator draws, in draw order: all ones or zero
/// (`.u32`, `.s32`), 1.0 or 0.0 (`.f32`).
pub const SET_TYPES: [Type; 3] = [Type::U32, Type::S32, Type::F32];

/// The destination types of the integer `cvt.pack.sat` the generator draws, in draw order:
/// the 16-bit ones take two sources, the narrower ones a third, `c` ([`pack_takes_c`]).
pub const PACK_TYPES: [Type; 8] = [
    Type::U16,
    Type::S16,
    Type::U8,
    Type::S8,
    Type::U4,
    Type::S4,
    Type::U2,
    Type::S2,
];

/// Whether `cvt.pack.sat` into `t` takes the third source `c` (the types narrower than 16
/// bits).
pub fn pack_takes_c(t: Type) -> bool {
    t.bits() < 16
}

/// The boolean combinations of `setp`/`set` the generator draws (`.and`, `.or`, `.xor`), in
/// draw order.
pub const BOOL_OPS: [Op; 3] = [Op::And, Op::Or, Op::Xor];

/// The `atom` operations the generator draws on a thread's own address, in draw order.
pub const ATOM_OPS: [Op; 10] = [
    Op::Add,
    Op::Min,
    Op::Max,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Inc,
    Op::Dec,
    Op::Exch,
    Op::Cas,
];

/// The memory-ordering semantics the generator draws for `atom` (`red` takes the first and
/// third only: [`RED_SEMS`]); on the generator's race-free accesses they change no result.
pub const ATOM_SEMS: [Sem; 4] = [Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel];

/// The memory-ordering semantics the generator draws for `red`.
pub const RED_SEMS: [Sem; 2] = [Sem::Relaxed, Sem::Release];

/// The memory scopes the generator draws for `atom`/`red`.
pub const ATOM_SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

/// The `prmt` modes the generator draws, in draw order (`None`: the default mode, four 4-bit
/// selectors).
pub const PRMT_MODES: [Option<Flag>; 7] = [
    None,
    Some(Flag::F4e),
    Some(Flag::B4e),
    Some(Flag::Rc8),
    Some(Flag::Ecl),
    Some(Flag::Ecr),
    Some(Flag::Rc16),
];

/// The `shfl.sync` modes the generator draws, in draw order.
pub const SHFL_MODES: [Flag; 4] = [Flag::Up, Flag::Down, Flag::Bfly, Flag::Idx];

/// The `vote.sync` modes the generator draws, in draw order (`.ballot` writes a `.b32`
/// register, the others a predicate).
pub const VOTE_MODES: [Flag; 4] = [Flag::All, Flag::Any, Flag::Uni, Flag::Ballot];

/// The `redux.sync` operations the generator draws, in draw order.
pub const REDUX_OPS: [Op; 6] = [Op::Add, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor];

/// An integer type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct It {
    /// 16, 32 or 64.
    pub bits: u8,
    /// `.s` rather than `.u`.
    pub signed: bool,
}

/// Binary float operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fop {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div` (always with a rounding modifier)
    Div,
}

/// Comparison operand types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmpT {
    /// `.u16` ... `.s64`
    Int(It),
    /// `.b16`/`.b32`/`.b64` (only `eq`/`ne`)
    Bits(u8),
    /// `.f32`/`.f64`
    F(Type),
}

/// `cvt` operand types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CvtT {
    /// An integer of 8, 16, 32 or 64 bits.
    Int(u8, bool),
    /// A float.
    F(Type),
}

impl CvtT {
    /// The register class holding a value of this type.
    pub fn class(self) -> Class {
        match self {
            CvtT::Int(b, _) => Class::int(b),
            CvtT::F(f) => float_class(f),
        }
    }
}

/// Approximate float operations (checked three ways only: no reference).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Approx {
    /// `sin.approx.f32`
    Sin,
    /// `cos.approx.f32`
    Cos,
    /// `ex2.approx.f32`
    Ex2,
    /// `lg2.approx.f32`
    Lg2,
    /// `rcp.approx.f32`
    Rcp,
    /// `sqrt.approx.f32`
    Sqrt,
    /// `rsqrt.approx.f32`
    Rsqrt,
    /// `tanh.approx.f32`
    Tanh,
    /// `div.approx.f32`
    Div,
    /// `div.full.f32`
    DivFull,
}

/// `atom`/`red` operand types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomT {
    /// `.u32`/`.s32`/`.u64`/`.s64`
    Int(It),
    /// `.b32`/`.b64`
    Bits(u8),
    /// `.f32`
    F32,
    /// `.f64` (`add` only)
    F64,
    /// `.noftz.f16`/`.noftz.bf16`, or the packed pair (`add` only): scalars in `.b16`, pairs
    /// in `.b32` registers.
    Half(Type, bool),
}

impl AtomT {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            AtomT::Int(t) => t.bits as u32,
            AtomT::Bits(b) => b as u32,
            AtomT::F32 => 32,
            AtomT::F64 => 64,
            AtomT::Half(_, x2) => 16 << x2 as u32,
        }
    }

    /// The register class of its values.
    pub fn class(self) -> Class {
        match self {
            AtomT::F32 => Class::F,
            AtomT::F64 => Class::Fd,
            t => Class::int(t.bits() as u8),
        }
    }
}

/// Where an atomic operation goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomTarget {
    /// The thread's own shared slot of buffer `buf`, at byte `off`: distinct per thread, so
    /// the returned value is deterministic.
    Own {
        /// The buffer (the one the segment writes).
        buf: u8,
        /// Byte offset in the slot.
        off: u8,
    },
    /// Shared cell `j`, common to the CTA: only commutative operations, returned value not
    /// compared.
    Cell(u8),
    /// The thread's own 8-byte global scratch word.
    GlobalOwn,
    /// Global cell `j`, common to the grid: commutative operations only, returned value not
    /// compared, final value compared.
    GlobalCell(u8),
}

/// State spaces of generic addressing (`cvta`, `isspacep`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Win {
    /// `.global`
    Global,
    /// `.shared`
    Shared,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster`
    SharedCluster,
    /// `.local`
    Local,
    /// `.const`
    Const,
    /// `.param` (a kernel parameter's address)
    Param,
}

/// How a memory instruction of the shared-slot protocol writes its address.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddrKind {
    /// In its state space: `.shared` or `.global`.
    Space,
    /// `.shared::cta` (a `.global` access stays `.global`).
    Cta,
    /// `.shared::cluster`: the executing CTA's shared addresses are cluster addresses too (a
    /// `.global` access stays `.global`).
    Cluster,
    /// A generic address (`cvta` of the state-space one), no space qualifier.
    Generic,
}

/// The non-half type of [`crate::model::Operation::CvtHalfX`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HPeer {
    /// An integer of 8 (f16 only), 16, 32 or 64 bits, and its signedness.
    Int(u8, bool),
    /// `.f64`
    F64,
    /// The other half format (to the half only).
    Half,
}

/// Destination types of half-precision `set`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HSetD {
    /// The source's format (`.f16`, `.f16x2`, `.bf16x2`; the ISA has no scalar
    /// `set.CMP.bf16.bf16`): 1.0 or 0.0.
    Half,
    /// `.u16` (scalars only)
    U16,
    /// `.s16` (scalars only)
    S16,
    /// `.u32`
    U32,
    /// `.s32`
    S32,
}

/// How a call names its callee.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// Directly: `call (r), f, (...)`.
    Direct,
    /// Through a register holding the function's address (`mov.u64 %rd, f`) and a
    /// `.callprototype`.
    Proto,
    /// Through a register and a `.calltargets` list.
    Targets,
}

/// How [`crate::model::Operation::LdIn`] reads the input buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LdHow {
    /// `ldu.global`
    Ldu,
    /// `ld.global.nc`, with nothing (0), `.L1::evict_last` (1), `.L1::no_allocate` (2) or
    /// `.L2::256B` (3)
    Nc(u8),
    /// `createpolicy` into a register, then `ld.global.L2::cache_hint` with it
    Policy(Policy),
    /// A prefetch of the same location first
    Prefetch(Pf),
    /// `applypriority.global.L2::evict_normal` of the input's first 128 bytes first
    Applypriority,
}

/// A `createpolicy` form.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `createpolicy.fractional.PRIMARY{.SECONDARY}.b64 d{, fraction}`
    Fractional {
        /// Primary priority: 0 `evict_last`, 1 `evict_normal`, 2 `evict_first`,
        /// 3 `evict_unchanged`.
        primary: u8,
        /// Secondary priority: `evict_first` (false) or `evict_unchanged` (true).
        secondary: Option<bool>,
        /// The fraction, as `f32` bits (in (0, 1]).
        fraction: Option<u32>,
    },
    /// `createpolicy.range.global.PRIMARY{.SECONDARY}.b64 d, [in], primary, total`
    Range {
        /// As for [`Policy::Fractional`].
        primary: u8,
        /// As for [`Policy::Fractional`].
        secondary: Option<bool>,
        /// Bytes given the primary priority.
        size: u32,
        /// Bytes in all.
        total: u32,
    },
}

/// A prefetch form.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pf {
    /// `prefetch.global.L1`
    GlobalL1,
    /// `prefetch.global.L2`
    GlobalL2,
    /// `prefetch.global.L2::evict_last`
    EvictLast,
    /// `prefetch.global.L2::evict_normal`
    EvictNormal,
    /// `prefetch.L2` of the generic address
    GenericL2,
    /// `prefetchu.L1` of the generic address
    Uniform,
}

/// An instruction with no effect on the values the kernel computes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HintOp {
    /// `membar.(cta|gl|sys)`: 0, 1, 2.
    Membar(u8),
    /// `fence{.sc|.acq_rel}.(cta|cluster|gpu|sys)`: semantics 0 none, 1 `.sc`, 2 `.acq_rel`;
    /// scope 0 to 3.
    Fence {
        /// Ordering.
        sem: u8,
        /// Scope.
        scope: u8,
    },
    /// `fence.proxy.alias`, `fence.proxy.async`, `fence.proxy.async.global`,
    /// `fence.proxy.async.shared::cta`, `membar.proxy.alias`: 0 to 4.
    Proxy(u8),
    /// `nanosleep.u32 t` with an immediate `t`.
    Sleep(u16),
    /// `nanosleep.u32 t` with `t` the source register masked to 0..=255 first.
    SleepReg,
    /// `pmevent a` (0 to 15).
    Pmevent(u8),
    /// `pmevent.mask a`.
    PmeventMask(u16),
    /// `griddepcontrol.launch_dependents` (false) or `griddepcontrol.wait` (true).
    Griddep(bool),
    /// `discard.global.L2 [dsc], 128` of a module array nothing reads.
    Discard,
    /// `setmaxnreg.(inc|dec).sync.aligned.u32 n`: only at the top level of a kernel of whole
    /// warpgroups, where every warp runs the same sequence.
    Setmaxnreg {
        /// `.inc`
        inc: bool,
        /// The register count.
        n: u16,
    },
}
