//! The generated program: a typed, structured kernel body over a fixed register file, and the
//! generator that draws it under a swarm configuration.
//!
//! Registers come in classes ([`Class`]); every register is initialised from the input pool
//! before the body runs, so no instruction reads an undefined value. Instructions ([`Inst`])
//! carry a semantic operation ([`Op`]) that both the lowering to PTX and the reference
//! evaluator understand. Control flow is structured ([`Node::If`], [`Node::Loop`]) so that the
//! set of lanes executing each region is known statically; warp-synchronous instructions name
//! exactly that set as their membermask.

use arbitrary::{Result, Unstructured};

/// Register classes of the generated kernels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `.pred` `%p<N>`
    P,
    /// `.b16` `%h<N>`
    H,
    /// `.b32` `%r<N>`
    R,
    /// `.b64` `%rd<N>`
    D,
    /// `.f32` `%f<N>`
    F,
    /// `.f64` `%fd<N>`
    Fd,
}

impl Class {
    /// Every class.
    pub const ALL: [Class; 6] = [Class::P, Class::H, Class::R, Class::D, Class::F, Class::Fd];

    /// Width in bits of a register's value.
    pub fn bits(self) -> u32 {
        match self {
            Class::P => 1,
            Class::H => 16,
            Class::R | Class::F => 32,
            Class::D | Class::Fd => 64,
        }
    }

    /// Number of registers of the class.
    pub fn count(self) -> u8 {
        match self {
            Class::P => 4,
            Class::H => 4,
            Class::R => 8,
            Class::D => 6,
            Class::F => 6,
            Class::Fd => 6,
        }
    }

    /// Register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::P => "%p",
            Class::H => "%h",
            Class::R => "%r",
            Class::D => "%rd",
            Class::F => "%f",
            Class::Fd => "%fd",
        }
    }

    /// The class of an integer of `bits` bits.
    pub fn int(bits: u8) -> Class {
        match bits {
            8 | 16 => Class::H,
            32 => Class::R,
            _ => Class::D,
        }
    }
}

/// A register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// Its class.
    pub class: Class,
    /// Its number.
    pub idx: u8,
}

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register.
    Reg(Reg),
    /// An immediate: the value's bits at the operand's width (floats as `0f`/`0d` bits).
    Imm(u64),
    /// `%laneid`
    Lane,
}

/// An integer type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct It {
    /// 16, 32 or 64.
    pub bits: u8,
    /// `.s` rather than `.u`.
    pub signed: bool,
}

/// A float format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ft {
    /// `.f32`
    F32,
    /// `.f64`
    F64,
}

impl Ft {
    /// The register class.
    pub fn class(self) -> Class {
        match self {
            Ft::F32 => Class::F,
            Ft::F64 => Class::Fd,
        }
    }
}

/// IEEE rounding modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// `.rn`
    Rn,
    /// `.rz`
    Rz,
    /// `.rm`
    Rm,
    /// `.rp`
    Rp,
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
    F(Ft),
}

/// Boolean combination of `setp`/`set`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bop {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// Destination types of `set`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SetD {
    /// `.u32`: all ones or zero
    U32,
    /// `.s32`: all ones or zero
    S32,
    /// `.f32`: 1.0 or 0.0
    F32,
}

/// `cvt` operand types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CvtT {
    /// An integer of 8, 16, 32 or 64 bits.
    Int(u8, bool),
    /// A float.
    F(Ft),
}

impl CvtT {
    /// The register class holding a value of this type.
    pub fn class(self) -> Class {
        match self {
            CvtT::Int(b, _) => Class::int(b),
            CvtT::F(f) => f.class(),
        }
    }
}

/// `cvt` roundings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CvtRnd {
    /// A float rounding (`.rn` ...).
    F(Rnd),
    /// An integer rounding (`.rni` ...), given by the corresponding float mode.
    I(Rnd),
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

/// Half-precision formats (scalars in `.b16` registers, pairs in `.b32` registers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hf {
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
}

/// `atom`/`red` operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.inc` (u32)
    Inc,
    /// `.dec` (u32)
    Dec,
    /// `.exch`
    Exch,
    /// `.cas`
    Cas,
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
    Half(Hf, bool),
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

/// Memory-ordering semantics of `atom`/`red` (`.relaxed` ... `.acq_rel`); on the generator's
/// race-free accesses they change no result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sem {
    /// `.relaxed`
    Relaxed,
    /// `.acquire` (`atom` only)
    Acquire,
    /// `.release`
    Release,
    /// `.acq_rel` (`atom` only)
    AcqRel,
}

/// Memory scopes of `atom`/`red`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `.cta`
    Cta,
    /// `.cluster`
    Cluster,
    /// `.gpu`
    Gpu,
    /// `.sys`
    Sys,
}

/// Where an atomic operation goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
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

/// The non-half type of [`Op::CvtHalfX`].
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

/// `prmt` modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrmtMode {
    /// No mode: four 4-bit selectors.
    Default,
    /// `.f4e`
    F4e,
    /// `.b4e`
    B4e,
    /// `.rc8`
    Rc8,
    /// `.ecl`
    Ecl,
    /// `.ecr`
    Ecr,
    /// `.rc16`
    Rc16,
}

/// `shfl` modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShflMode {
    /// `.up`
    Up,
    /// `.down`
    Down,
    /// `.bfly`
    Bfly,
    /// `.idx`
    Idx,
}

/// `vote` modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VoteMode {
    /// `.all.pred`
    All,
    /// `.any.pred`
    Any,
    /// `.uni.pred`
    Uni,
    /// `.ballot.b32`
    Ballot,
}

/// `redux` operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// The semantic operation of a generated instruction, with its modifiers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    // ---------------------------------------------------------------- integer
    /// `add.T`
    Add(It),
    /// `sub.T`
    Sub(It),
    /// `add.sat.s32` / `sub.sat.s32` (true: sub)
    AddSat(bool),
    /// `mul.lo.T`
    MulLo(It),
    /// `mul.hi.T`
    MulHi(It),
    /// `mul.wide.T` (16 or 32 bits)
    MulWide(It),
    /// `mad.lo.T`
    MadLo(It),
    /// `mad.hi.T`
    MadHi(It),
    /// `mad.wide.T`
    MadWide(It),
    /// `mad.hi.sat.s32`
    MadHiSat,
    /// `mul24.(lo|hi).(u32|s32)`
    Mul24 {
        /// `.hi`
        hi: bool,
        /// `.s32`
        signed: bool,
    },
    /// `mad24.(lo|hi).(u32|s32)`
    Mad24 {
        /// `.hi`
        hi: bool,
        /// `.s32`
        signed: bool,
    },
    /// `sad.T`
    Sad(It),
    /// `div.T`, divisor guarded against 0 and -1
    Div(It),
    /// `rem.T`, divisor guarded against 0 and -1
    Rem(It),
    /// `abs.T` (signed)
    Abs(It),
    /// `neg.T` (signed)
    Neg(It),
    /// `min.T`
    Min(It),
    /// `max.T`
    Max(It),
    /// `min.relu.s32` / `max.relu.s32`
    Relu {
        /// `max`
        max: bool,
    },
    // ---------------------------------------------------------------- bit manipulation
    /// `popc.b32/b64`
    Popc(u8),
    /// `clz.b32/b64`
    Clz(u8),
    /// `brev.b32/b64`
    Brev(u8),
    /// `bfind{.shiftamt}.T`
    Bfind {
        /// The type (32 or 64 bits).
        t: It,
        /// `.shiftamt`
        shiftamt: bool,
    },
    /// `bfe.T`
    Bfe(It),
    /// `bfi.b32/b64`
    Bfi(u8),
    /// `dp4a.A.B`
    Dp4a {
        /// `a` signed
        sa: bool,
        /// `b` signed
        sb: bool,
    },
    /// `dp2a.(lo|hi).A.B`
    Dp2a {
        /// `.hi`
        hi: bool,
        /// `a` signed
        sa: bool,
        /// `b` signed
        sb: bool,
    },
    /// `prmt.b32{.mode}`
    Prmt(PrmtMode),
    /// `bmsk.(clamp|wrap).b32 d, a, b`
    Bmsk {
        /// `.clamp`
        clamp: bool,
    },
    /// `szext.(clamp|wrap).(u32|s32) d, a, b`
    Szext {
        /// `.clamp`
        clamp: bool,
        /// `.s32`
        signed: bool,
    },
    /// `fns.b32 d, mask, base, offset` (`base` an immediate in 0..=31 or `%laneid`: larger
    /// bases are undefined)
    Fns,
    // ---------------------------------------------------------------- extended precision
    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}` (32 or 64 bits)
    AddCc {
        /// `sub`/`subc`
        sub: bool,
        /// Reads the carry flag (`addc`/`subc`).
        cin: bool,
        /// Writes the carry flag (`.cc`).
        cout: bool,
        /// The type.
        t: It,
    },
    /// `mad.(lo|hi).cc`, `madc.(lo|hi){.cc}` (32 or 64 bits)
    MadCc {
        /// `.hi`
        hi: bool,
        /// Reads the carry flag (`madc`).
        cin: bool,
        /// Writes the carry flag (`.cc`).
        cout: bool,
        /// The type.
        t: It,
    },
    // ---------------------------------------------------------------- logic and shift
    /// `and.T` (`.pred`, `.b16`, `.b32`, `.b64` by class)
    And(Class),
    /// `or.T`
    Or(Class),
    /// `xor.T`
    Xor(Class),
    /// `not.T`
    Not(Class),
    /// `cnot.T`
    Cnot(Class),
    /// `lop3.b32` with this lookup table
    Lop3(u8),
    /// `shf.(l|r).(clamp|wrap).b32`
    Shf {
        /// `.l`
        left: bool,
        /// `.clamp`
        clamp: bool,
    },
    /// `shl.bN`
    Shl(Class),
    /// `shr.T` (`.bN`/`.uN` logical, `.sN` arithmetic)
    Shr(It),
    // ---------------------------------------------------------------- comparison and selection
    /// `setp.CMP{.BOP}{.ftz}.T p{|q}, a, b{, {!}c}`
    Setp {
        /// The comparison.
        cmp: ptx_ir_core::Cmp,
        /// `.lo`/`.hi` spellings of unsigned `lt`/`gt` (only for unsigned `Lt`/`Gt`).
        lohi: bool,
        /// Operand type.
        t: CmpT,
        /// Boolean combination with a third predicate operand.
        bop: Option<Bop>,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `set.CMP{.BOP}{.ftz}.D.T d, a, b{, {!}c}`
    Set {
        /// The comparison.
        cmp: ptx_ir_core::Cmp,
        /// Operand type.
        t: CmpT,
        /// Destination type.
        d: SetD,
        /// Boolean combination.
        bop: Option<Bop>,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `selp.T d, a, b, p`
    Selp(Class),
    /// `slct.T.s32 d, a, b, c`
    Slct(Class),
    // ---------------------------------------------------------------- floating point
    /// `add`/`sub`/`mul`/`div` on floats
    Fbin {
        /// The operation.
        op: Fop,
        /// The format.
        ft: Ft,
        /// Rounding (required for `div`).
        rnd: Option<Rnd>,
        /// `.ftz` (f32)
        ftz: bool,
        /// `.sat` (f32)
        sat: bool,
    },
    /// `fma.RND` / `mad.RND`
    Fma {
        /// The format.
        ft: Ft,
        /// Rounding.
        rnd: Rnd,
        /// `.ftz` (f32)
        ftz: bool,
        /// `.sat` (f32)
        sat: bool,
        /// Spelled `mad`.
        mad: bool,
    },
    /// `rcp.RND`
    Rcp {
        /// The format.
        ft: Ft,
        /// Rounding.
        rnd: Rnd,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `sqrt.RND`
    Sqrt {
        /// The format.
        ft: Ft,
        /// Rounding.
        rnd: Rnd,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `abs{.ftz}`
    Fabs {
        /// The format.
        ft: Ft,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `neg{.ftz}`
    Fneg {
        /// The format.
        ft: Ft,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `min`/`max` on floats
    Fminmax {
        /// The format.
        ft: Ft,
        /// `max`
        max: bool,
        /// `.ftz` (f32)
        ftz: bool,
        /// `.NaN` (f32)
        nan: bool,
        /// `.xorsign.abs` (f32)
        xorsign: bool,
    },
    /// `copysign.T d, a, b`: `b` with the sign of `a`
    Copysign(Ft),
    /// `testp.CLASS.T`
    Testp {
        /// The format.
        ft: Ft,
        /// 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal
        class: u8,
    },
    /// Approximate single-precision operations
    Approx {
        /// Which.
        kind: Approx,
        /// `.ftz`
        ftz: bool,
    },
    // ---------------------------------------------------------------- half precision
    /// `add`/`sub`/`mul{.rn}{.ftz}{.sat}.f16{x2}`, `add`/`sub`/`mul{.rn}.bf16{x2}`
    Hbin {
        /// The operation (not `Div`).
        op: Fop,
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// `.rn` written out (the only rounding).
        rn: bool,
        /// `.ftz` (f16)
        ftz: bool,
        /// `.sat` (f16)
        sat: bool,
    },
    /// `fma.rn{.ftz}{.sat|.relu}.f16{x2}`, `fma.rn{.relu}.bf16{x2}`
    Hfma {
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// `.ftz` (f16)
        ftz: bool,
        /// `.sat` (f16)
        sat: bool,
        /// `.relu`
        relu: bool,
    },
    /// `neg`/`abs{.ftz}` on halves
    Hsign {
        /// `abs`
        abs: bool,
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// `.ftz` (f16)
        ftz: bool,
    },
    /// `min`/`max{.ftz}{.NaN}{.xorsign.abs}` on halves
    Hminmax {
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// `max`
        max: bool,
        /// `.ftz` (f16)
        ftz: bool,
        /// `.NaN`
        nan: bool,
        /// `.xorsign.abs`
        xorsign: bool,
    },
    /// `setp.CMP{.BOP}{.ftz}.(f16|bf16)` `p`, or `.(f16x2|bf16x2)` `p|q` (lower half to `p`)
    Hsetp {
        /// The comparison (a float one).
        cmp: ptx_ir_core::Cmp,
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// `.ftz` (f16)
        ftz: bool,
        /// Boolean combination with a predicate operand.
        bop: Option<Bop>,
    },
    /// `cvt.RND{.ftz}{.sat}.(f16|bf16).f32` or `cvt.(rn|rz){.relu}{.satfinite}.(f16|bf16).f32`
    CvtToHalf {
        /// The format.
        hf: Hf,
        /// Rounding (`.rn`/`.rz` with `.relu`/`.satfinite`).
        rnd: Rnd,
        /// `.ftz`
        ftz: bool,
        /// `.sat` (f16)
        sat: bool,
        /// `.relu`
        relu: bool,
        /// `.satfinite`
        satfinite: bool,
    },
    /// `cvt` between a half and an integer, `f64` or the other half format:
    /// `cvt.RND{.sat}.(f16|bf16).T` (to the half), `cvt.RNDI.T.(f16|bf16)` (to an integer),
    /// `cvt{.sat}.f64.(f16|bf16)`; `.sat` only into f16 and f64 (the ISA's `.sat` is for
    /// `.f16`, `.f32` and `.f64` destinations).
    CvtHalfX {
        /// The half format.
        hf: Hf,
        /// The other type.
        peer: HPeer,
        /// Converts to the half (rather than from it).
        to_half: bool,
        /// Rounding (required except when widening to f64).
        rnd: Option<CvtRnd>,
        /// `.sat`
        sat: bool,
    },
    /// `set.CMP{.BOP}{.ftz}.D.(f16|bf16){x2} d, a, b{, {!}c}`: 1.0 of the half format, or all
    /// ones (per half for pairs), where the comparison holds.
    Hset {
        /// The comparison (a float one).
        cmp: ptx_ir_core::Cmp,
        /// The format.
        hf: Hf,
        /// Packed pair.
        x2: bool,
        /// Destination type.
        d: HSetD,
        /// `.ftz` (f16)
        ftz: bool,
        /// Boolean combination with a predicate operand.
        bop: Option<Bop>,
    },
    /// `cvt{.ftz}.f32.(f16|bf16)`
    CvtFromHalf {
        /// The format.
        hf: Hf,
        /// `.ftz`
        ftz: bool,
    },
    /// `cvt.(rn|rz){.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b` (`a` to the upper half)
    CvtPack {
        /// The format.
        hf: Hf,
        /// `.rz` rather than `.rn`
        rz: bool,
        /// `.relu`
        relu: bool,
        /// `.satfinite`
        satfinite: bool,
    },
    // ---------------------------------------------------------------- memory
    /// `ld.shared{.v2|.v4}.T`: from the thread's own slot or, `peer` > 0, from the slot of
    /// thread `(tid + peer) % ntid` of buffer `buf` (the one the previous segment wrote).
    /// Vector destinations are `dst` and the registers after it (cyclically).
    Ld {
        /// Buffer 0 or 1.
        buf: u8,
        /// Peer distance (0: own slot).
        peer: u8,
        /// 1, 2 or 4 elements.
        vec: u8,
        /// Element class.
        class: Class,
        /// Byte offset in the 16-byte slot.
        off: u8,
        /// How the address is written.
        addr: AddrKind,
    },
    /// `st.shared{.v2|.v4}.T` to the thread's own slot of buffer `buf` (the one the segment
    /// writes); vector sources are `srcs[0]` and the registers after it.
    St {
        /// Buffer 0 or 1.
        buf: u8,
        /// 1, 2 or 4 elements.
        vec: u8,
        /// Element class.
        class: Class,
        /// Byte offset in the 16-byte slot.
        off: u8,
        /// How the address is written.
        addr: AddrKind,
    },
    /// `isspacep.SPACE p, a` of a generic address `a` made by `cvta` from the thread's own
    /// shared slot, global scratch word or local array.
    Isspacep {
        /// The space asked about.
        space: Win,
        /// Where the address points.
        ptr: Win,
    },
    /// `cvta.SPACE.u64` of the thread's own address in `space` (for `.const` a module array,
    /// for `.param` the kernel parameter `in`), then `cvta.to.SPACE.u64` back:
    /// `d = a + (round trip - original)`, which is `a` when the round trip is the identity.
    CvtaRound {
        /// The state space.
        space: Win,
    },
    /// A call of device function `f`: `.param` arguments (the sources) and a `.param` return
    /// value (the destination).
    Call {
        /// Index into [`Program::funcs`].
        f: u8,
        /// Number of parameters.
        n: u8,
        /// Parameter classes (the first `n`).
        params: [Class; 3],
        /// Return class.
        ret: Class,
        /// How the callee is named.
        via: Via,
    },
    /// A call of the recursive function `d = rec(a & 7, b)` with `rec(0, x) = x` and
    /// `rec(n, x) = rec(n - 1, 3x + n) ^ n` (u32): the depth differs per lane.
    Rec {
        /// The function takes and returns `.reg` parameters rather than `.param` ones.
        reg: bool,
    },
    /// `atom`/`red` on shared or global memory
    Atom {
        /// The operation.
        op: AtomOp,
        /// The type.
        t: AtomT,
        /// The address.
        target: Target,
        /// `red` (no returned value) rather than `atom`.
        red: bool,
        /// Memory-ordering semantics.
        sem: Option<Sem>,
        /// Memory scope.
        scope: Option<Scope>,
        /// How the address is written.
        addr: AddrKind,
    },
    // ---------------------------------------------------------------- conversion and movement
    /// `cvt{.RND}{.ftz}{.sat}.D.S`
    Cvt {
        /// Destination type.
        d: CvtT,
        /// Source type.
        s: CvtT,
        /// Rounding.
        rnd: Option<CvtRnd>,
        /// `.ftz`
        ftz: bool,
        /// `.sat`
        sat: bool,
    },
    /// `mov.T`
    Mov(Class),
    // ---------------------------------------------------------------- warp
    /// `shfl.sync.MODE.b32 d{|p}, a, b, c, membermask` with `c` an immediate
    Shfl {
        /// Mode.
        mode: ShflMode,
        /// The `c` operand (clamp and segment mask).
        c: u32,
    },
    /// `vote.sync.MODE d, {!}a, membermask` (the negation is [`Inst::neg_pred`])
    Vote {
        /// Mode.
        mode: VoteMode,
    },
    /// `redux.sync.OP.T d, a, membermask`
    Redux {
        /// Operation.
        op: ReduxOp,
        /// `.s32` (add/min/max)
        signed: bool,
    },
    /// `match.(any|all).sync.(b32|b64) d{|p}, a, membermask`
    Match {
        /// `.all`
        all: bool,
        /// `.b64`
        wide: bool,
    },
    /// `activemask.b32 d`: the lanes running the instruction (the region's mask).
    Activemask,
    /// `bar.warp.sync membermask` (the region's mask), then `mov.b32 d, a`.
    WarpSync,
    // ---------------------------------------------------------------- hints and no-ops
    /// `cvt.pack.sat.T.s32 d, a, b` (16-bit `T`) or `cvt.pack.sat.T.s32.b32 d, a, b, c`
    /// (narrower `T`, `c` shifted in above the pair).
    PackSat(PackT),
    /// A load of `vec` consecutive entries of the input pool of `class`, from entry `slot` (a
    /// multiple of `vec`): the same address in every thread, of data nothing writes.
    LdIn {
        /// The access path.
        how: LdHow,
        /// The pool (not `P`).
        class: Class,
        /// First entry.
        slot: u8,
        /// 1, 2 or 4 entries.
        vec: u8,
    },
    /// An instruction with no effect on the kernel's values, then `mov.b32 d, a`.
    Hint(HintOp),
    /// `d = a` through a block of the thread's stack: `{stacksave.u64 s;} alloca.u64 p, size{,
    /// align}; {cvta.local.u64 p, p;} st{.local}.b32 [p], a; ld{.local}.b32 t, [p];
    /// {stackrestore.u64 s;} add.u32 d, t, p & (align - 1)` (all but the save and restore
    /// under the guard).
    Alloca {
        /// Bytes (4 or more), or with `lane_size`, 4 plus the global thread id modulo 32.
        size: u8,
        /// The size comes from a register and differs per thread.
        lane_size: bool,
        /// `immAlign` (a power of two from 8 to 64), if written.
        align: Option<u8>,
        /// Saved and restored around the block (otherwise it lives until the kernel ends).
        restore: bool,
        /// Accessed through a generic address.
        generic: bool,
    },
}

/// Destination formats of the integer `cvt.pack.sat`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PackT {
    /// `.u16` (two sources)
    U16,
    /// `.s16` (two sources)
    S16,
    /// `.u8` (with `c`)
    U8,
    /// `.s8` (with `c`)
    S8,
    /// `.u4` (with `c`)
    U4,
    /// `.s4` (with `c`)
    S4,
    /// `.u2` (with `c`)
    U2,
    /// `.s2` (with `c`)
    S2,
}

impl PackT {
    /// Every format.
    pub const ALL: [PackT; 8] = [
        PackT::U16,
        PackT::S16,
        PackT::U8,
        PackT::S8,
        PackT::U4,
        PackT::S4,
        PackT::U2,
        PackT::S2,
    ];

    /// Width in bits and signedness.
    pub fn format(self) -> (u32, bool) {
        match self {
            PackT::U16 => (16, false),
            PackT::S16 => (16, true),
            PackT::U8 => (8, false),
            PackT::S8 => (8, true),
            PackT::U4 => (4, false),
            PackT::S4 => (4, true),
            PackT::U2 => (2, false),
            PackT::S2 => (2, true),
        }
    }

    /// Whether the form takes the third source `c`.
    pub fn with_c(self) -> bool {
        self.format().0 < 16
    }
}

/// How [`Op::LdIn`] reads the input buffer.
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

/// Instruction families (the unit of swarm configuration and of the README table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Integer arithmetic.
    Int,
    /// Bit manipulation.
    Bits,
    /// Logic and shifts.
    Logic,
    /// Comparison and selection.
    Cmp,
    /// Single- and double-precision arithmetic.
    Float,
    /// Approximate single-precision functions (three-way agreement only).
    Approx,
    /// Conversions and moves.
    Cvt,
    /// Warp-synchronous instructions.
    Warp,
    /// Extended-precision arithmetic: chains of `.cc` producers and `addc`/`subc`/`madc`
    /// consumers of the carry flag.
    Carry,
    /// Half-precision (`f16`, `bf16`, scalar and packed) arithmetic and conversions.
    Half,
    /// Shared-memory loads and stores (own and other threads' slots, vector widths), CTA
    /// barriers, and atomics on shared and global memory.
    Mem,
    /// Calls of generated device functions with `.param` arguments and return value.
    Call,
    /// CTA barriers: `bar.sync`/`barrier.sync{.aligned}` with barrier numbers and thread
    /// counts, barriers inside uniform loops, and `bar.red.popc`/`.and`/`.or`.
    Barrier,
    /// Generic addressing: `cvta` to and from the state spaces, `isspacep`, and the memory
    /// family's loads, stores and atomics through generic addresses.
    Generic,
    /// Cache and scheduling hints and other instructions without effect on values: `ldu`,
    /// `ld.global.nc`, `createpolicy` with `.L2::cache_hint` loads, `prefetch{u}`,
    /// `applypriority`, `discard`, `membar`/`fence`, `nanosleep`, `pmevent`, `griddepcontrol`,
    /// `setmaxnreg`; and the integer `cvt.pack`.
    Hint,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 15] = [
        Family::Int,
        Family::Bits,
        Family::Logic,
        Family::Cmp,
        Family::Float,
        Family::Approx,
        Family::Cvt,
        Family::Warp,
        Family::Carry,
        Family::Half,
        Family::Mem,
        Family::Call,
        Family::Generic,
        Family::Barrier,
        Family::Hint,
    ];
}

/// One generated instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// `@p` / `@!p`: predicate register and negation.
    pub guard: Option<(u8, bool)>,
    /// The operation.
    pub op: Op,
    /// The destination.
    pub dst: Reg,
    /// A second destination (`p|q` of `setp`, `d|p` of `shfl`/`match`).
    pub dst2: Option<Reg>,
    /// The sources, in operand order (the membermask of warp instructions is not listed: it
    /// is the region's mask).
    pub srcs: Vec<Src>,
    /// Negation of a predicate source (`setp` `c`, `vote` `a`).
    pub neg_pred: bool,
}

/// A branch condition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// A predicate register, possibly negated.
    Pred(u8, bool),
    /// `%laneid < k`
    LaneBelow(u32),
    /// bit `k` of `%laneid` set
    LaneBit(u32),
    /// `%tid.x >= 32`: every warp but the first (the consumers after a [`Bar::Arrive`]).
    Consumer,
}

/// The selector of a [`Node::Switch`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sel {
    /// `%r<idx>`
    Reg(u8),
    /// `%laneid`
    Lane,
}

/// Where a loop's trip count comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Trips {
    /// The same count `k` for every lane (uniform).
    Const(u32),
    /// `(r & 3) + k` for register `%r<idx>`.
    Reg(u8, u32),
    /// `(%laneid & 3) + k`.
    Lane(u32),
}

/// A CTA-wide barrier over all the CTA's threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bar {
    /// `bar.sync 0`
    Sync,
    /// `barrier.sync{.aligned} ID` or `bar.sync ID, ntid` (the explicit thread count is the
    /// whole CTA's).
    SyncId {
        /// Barrier number (0 to 15).
        id: u8,
        /// `barrier.sync` rather than `bar.sync`.
        barrier: bool,
        /// `.aligned` (with `barrier`).
        aligned: bool,
        /// Thread count operand (the CTA's size).
        count: bool,
    },
    /// `bar.arrive ID, ntid` in the first warp (producers, which do not wait) and
    /// `bar.sync ID, ntid` in the others (consumers): always followed by a region that only
    /// the consumers run ([`Cond::Consumer`]) and a full barrier, so that the producers touch
    /// nothing between their arrival and that barrier.
    Arrive {
        /// Barrier number (1 to 15).
        id: u8,
    },
    /// `bar.red.popc.u32 %r<d>, ID, {!}%p<p>` or `bar.red.(and|or).pred %p<d>, ID, {!}%p<p>`:
    /// the reduction over the CTA's threads of their predicates.
    Red {
        /// The reduction.
        op: BarRed,
        /// Barrier number.
        id: u8,
        /// Destination register index (`%r` for `popc`, `%p` otherwise).
        d: u8,
        /// Predicate source index.
        p: u8,
        /// Negated predicate source.
        neg: bool,
    },
}

/// `bar.red` reductions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarRed {
    /// `.popc.u32`: how many threads' predicates are true.
    Popc,
    /// `.and.pred`
    And,
    /// `.or.pred`
    Or,
}

impl Bar {
    /// The register a reduction writes, and the one it reads.
    pub fn regs(self) -> Option<(Reg, Reg)> {
        match self {
            Bar::Red { op, d, p, .. } => Some((
                Reg {
                    class: if op == BarRed::Popc {
                        Class::R
                    } else {
                        Class::P
                    },
                    idx: d,
                },
                Reg {
                    class: Class::P,
                    idx: p,
                },
            )),
            _ => None,
        }
    }
}

/// A node of the structured body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// An instruction.
    Inst(Inst),
    /// A two-way branch that reconverges after both arms.
    If {
        /// The condition.
        cond: Cond,
        /// Lanes where it holds.
        then: Vec<Node>,
        /// The others.
        els: Vec<Node>,
    },
    /// A multi-way branch through `brx.idx`: lanes run arm `value % arms.len()` of the
    /// selector, and reconverge after the last arm.
    Switch {
        /// The selector.
        sel: Sel,
        /// Two to four arms.
        arms: Vec<Vec<Node>>,
    },
    /// A CTA barrier (only where the whole CTA is converged: the top level and uniform loops
    /// there): ends a segment of the shared-memory protocol.
    Barrier(Bar),
    /// A bounded loop.
    Loop {
        /// Trip count per lane.
        trips: Trips,
        /// The body.
        body: Vec<Node>,
    },
}

/// A generated device function `.func (.param RET r) fK(.param P0 a0, ...)`: its registers
/// start as `init` (parameter `k` in register `k` of its class), it runs `body` (straight
/// line: no warp instructions, memory or carry flag), and returns `result`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    /// Parameter classes.
    pub params: Vec<Class>,
    /// Initial values of the other registers.
    pub init: Vec<(Reg, u64)>,
    /// The body.
    pub body: Vec<Node>,
    /// The returned register.
    pub result: Reg,
}

impl Func {
    /// The registers the function reads or writes.
    pub fn used(&self) -> Vec<Reg> {
        let p = Program {
            body: self.body.clone(),
            init: Vec::new(),
            pools: [[0; 16]; 5],
            outputs: vec![self.result],
            block: 32,
            grid: 1,
            funcs: Vec::new(),
            exit: None,
        };
        p.used()
    }
}

/// A whole generated test: the kernel body, its input pool, which registers it stores and the
/// launch shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The body.
    pub body: Vec<Node>,
    /// For each register of each class in [`Class::ALL`] order, the pool index multiplier and
    /// offset of its initial value: register `i` of class `c` starts as
    /// `pool_c[(gid * mul + add) % 16]` (predicates: bit 0 of the 32-bit pool).
    pub init: Vec<(Reg, u32, u32)>,
    /// The 16-entry pools, per class (`H`, `R`, `D`, `F`, `Fd`), as raw bits.
    pub pools: [[u64; 16]; 5],
    /// Registers stored to the output after the body, in record order.
    pub outputs: Vec<Reg>,
    /// Threads per CTA (a multiple of 32).
    pub block: u32,
    /// CTAs.
    pub grid: u32,
    /// Device functions the body calls.
    pub funcs: Vec<Func>,
    /// `exit` after the body (before the stores) in the threads where this holds: their
    /// records stay zero.
    pub exit: Option<Cond>,
}

/// The swarm configuration of one test: which families and options may appear.
#[derive(Clone, Debug)]
pub struct Swarm {
    /// Enabled families.
    pub families: Vec<Family>,
    /// Floating-point roundings that may appear.
    pub rnds: Vec<Rnd>,
    /// Whether `.ftz` may appear.
    pub ftz: bool,
    /// Whether `.sat` may appear.
    pub sat: bool,
    /// Whether instructions may be guarded.
    pub guards: bool,
    /// Whether divergent branches may appear.
    pub branches: bool,
    /// Whether loops may appear.
    pub loops: bool,
    /// Whether immediates may appear as sources.
    pub imms: bool,
    /// Whether the float and half families also draw contraction chains
    /// ([`Gen::contract_chain`]).
    pub contract: bool,
    /// Most instructions.
    pub max_insts: usize,
}

impl Swarm {
    /// Draws a configuration: each family and option on or off.
    pub fn arbitrary(u: &mut Unstructured, families: &[Family]) -> Result<Swarm> {
        let mut fam: Vec<Family> = Vec::new();
        for &f in families {
            if u.ratio(1, 2)? {
                fam.push(f);
            }
        }
        if fam.is_empty() {
            fam.push(*u.choose(families)?);
        }
        let mut rnds = Vec::new();
        for r in [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            if u.ratio(2, 3)? {
                rnds.push(r);
            }
        }
        if rnds.is_empty() {
            rnds.push(Rnd::Rn);
        }
        Ok(Swarm {
            families: fam,
            rnds,
            ftz: u.arbitrary()?,
            sat: u.arbitrary()?,
            guards: u.arbitrary()?,
            branches: u.ratio(2, 3)?,
            loops: u.arbitrary()?,
            imms: u.ratio(2, 3)?,
            max_insts: u.int_in_range(4..=40)?,
            contract: u.arbitrary()?,
        })
    }
}

/// Interesting values of each pool class.
const H_VALUES: &[u64] = &[
    0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x1234, 31, 16,
    // f16: 1, -1, 0.5, 2, inf, -inf, qNaN, sNaN, max subnormal, min normal, max, 1/3
    0x3c00, 0xbc00, 0x3800, 0x4000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x03ff, 0x0400, 0x7bff, 0x3555,
    // f16 products near the smallest normal decide `.ftz`'s tininess after rounding:
    // 0x0401 * 0x3bfe rounds to 2^-14 at 11 bits, 0x0400 * 0x3bff is below it.
    0x0401, 0x3bfe, 0x3bff, // bf16: 1, -1, inf, qNaN, min normal, max, 1 + ulp
    0x3f80, 0xbf80, 0x7f80, 0x7fc0, 0x0080, 0x7f7f, 0x3f81,
    // 1 + ulp (f16), 1 - ulp (bf16): (1 + u)(1 - u) - 1 cancels, fused or not.
    0x3c01, 0x3f7f,
];
const R_VALUES: &[u64] = &[
    0,
    1,
    2,
    3,
    31,
    32,
    33,
    0x7f,
    0xff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0x0001_0000,
    0x00ff_ff00,
    0x8000_0001,
    // Packed halves: f16 (1, -1), (qNaN, min subnormal), (max, min normal); bf16 (1, inf).
    0x3c00_bc00,
    0x7e00_0001,
    0x7bff_0400,
    0x3f80_7f80,
    // Packed 1 + ulp and 1 - ulp: f16, bf16.
    0x3c01_3bff,
    0x3f81_3f7f,
];
const D_VALUES: &[u64] = &[
    0,
    1,
    63,
    64,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
    0x8000_0000,
    0xffff_ffff_8000_0000,
];
const F_VALUES: &[u64] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x4040_0000, // 3
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0x7fa0_0001, // sNaN
    0xffc1_2345, // -NaN with payload
    0x0000_0001, // min subnormal
    0x807f_ffff, // -max subnormal
    0x0080_0000, // min normal
    0x7f7f_ffff, // max
    0x4b80_0000, // 2^24
    0x3eaa_aaab, // 1/3
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x5f80_0000, // 2^64
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0x477f_e000, // 65504, the largest f16
    0x477f_f000, // 65520, where f16 rounding overflows
    0x3380_0000, // 2^-24, the smallest f16 subnormal
    0x3300_0000, // 2^-25
    0x3f80_1000, // 1 + 2^-11, an f16 tie
    0x3f80_8000, // 1 + 2^-8, a bf16 tie
    0x3881_0000, // just above the smallest f16 normal
    0x3f80_0001, // 1 + ulp: (1 + u)(1 - u) - 1 cancels, fused or not
    0x3f7f_ffff, // 1 - ulp
    0xbf80_0001, // -(1 + ulp)
];
const FD_VALUES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001,
    0xfff8_0000_dead_beef,
    0x0000_0000_0000_0001,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x3fd5_5555_5555_5555,
    0x41e0_0000_0000_0000, // 2^31
    0x43e0_0000_0000_0000, // 2^63
    0x3ff8_0000_0000_0000, // 1.5
    0x4004_0000_0000_0000, // 2.5
    0x47ef_ffff_e000_0000, // f32 max as f64
    0x36a0_0000_0000_0000, // f32 min subnormal as f64
    0x3690_0000_0000_0000, // half of it
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x3fef_ffff_ffff_ffff, // 1 - ulp
];

fn pool_value(u: &mut Unstructured, interesting: &[u64], bits: u32) -> Result<u64> {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => *u.choose(interesting)?,
        2 => {
            let v: u64 = u.arbitrary()?;
            v & m
        }
        _ => {
            // Small integers (and their floats) make arithmetic land on exact results.
            let v: i8 = u.arbitrary()?;
            match bits {
                32 if interesting == F_VALUES => (v as f32).to_bits() as u64,
                64 if interesting == FD_VALUES => (v as f64).to_bits(),
                _ => (v as i64 as u64) & m,
            }
        }
    })
}

/// Generation state: the swarm and the structure of the region being filled.
pub struct Gen<'s> {
    /// The configuration.
    pub swarm: &'s Swarm,
    insts: usize,
    /// Barriers emitted so far: the segment being filled (its parity picks the shared buffer
    /// it writes; peers' slots are read from the other one, written before the barrier).
    segment: u32,
    /// The one commutative operation and type of each shared cell and of each global cell
    /// (mixing operations on a cell would make its value depend on the order).
    cell_ops: [(AtomOp, AtomT); 8],
    /// Parameter and return classes of the program's device functions.
    funcs: Vec<(Vec<Class>, Class)>,
    /// The register count the last `setmaxnreg` set.
    nreg: Option<u16>,
    /// `alloca` blocks never released (each lives until the kernel ends: a few keep the stack
    /// within the GPU's default per-thread size).
    kept: u8,
}

/// Commutative (and associative) atomic operations, allowed on addresses shared by threads.
const CELL_OPS: &[(AtomOp, AtomT)] = &[
    (
        AtomOp::Add,
        AtomT::Int(It {
            bits: 32,
            signed: false,
        }),
    ),
    (
        AtomOp::Add,
        AtomT::Int(It {
            bits: 32,
            signed: true,
        }),
    ),
    (
        AtomOp::Add,
        AtomT::Int(It {
            bits: 64,
            signed: false,
        }),
    ),
    (
        AtomOp::Min,
        AtomT::Int(It {
            bits: 32,
            signed: true,
        }),
    ),
    (
        AtomOp::Min,
        AtomT::Int(It {
            bits: 64,
            signed: false,
        }),
    ),
    (
        AtomOp::Max,
        AtomT::Int(It {
            bits: 32,
            signed: false,
        }),
    ),
    (
        AtomOp::Max,
        AtomT::Int(It {
            bits: 64,
            signed: true,
        }),
    ),
    (AtomOp::And, AtomT::Bits(32)),
    (AtomOp::Or, AtomT::Bits(64)),
    (AtomOp::Xor, AtomT::Bits(32)),
    (AtomOp::Xor, AtomT::Bits(64)),
];

/// What the generator knows about the region it is filling.
#[derive(Copy, Clone, Debug)]
struct Region {
    /// Whether every lane of the warp executes the region.
    full: bool,
    /// Nesting depth of ifs and loops.
    depth: u32,
    /// Loop nesting depth.
    loops: u32,
    /// Whether the whole CTA runs the region (converged): barriers may appear.
    cta: bool,
}

impl<'s> Gen<'s> {
    /// A generator for `swarm`.
    pub fn new(swarm: &'s Swarm) -> Gen<'s> {
        Gen {
            swarm,
            insts: 0,
            segment: 0,
            cell_ops: [CELL_OPS[0]; 8],
            funcs: Vec::new(),
            nreg: None,
            kept: 0,
        }
    }

    /// Draws a whole program.
    pub fn program(&mut self, u: &mut Unstructured) -> Result<Program> {
        let mut pools = [[0u64; 16]; 5];
        let tables: [(&[u64], u32); 5] = [
            (H_VALUES, 16),
            (R_VALUES, 32),
            (D_VALUES, 64),
            (F_VALUES, 32),
            (FD_VALUES, 64),
        ];
        for (p, (vals, bits)) in pools.iter_mut().zip(tables) {
            for v in p.iter_mut() {
                *v = pool_value(u, vals, bits)?;
            }
        }
        let mut init = Vec::new();
        for c in Class::ALL {
            for idx in 0..c.count() {
                let mul = 2 * u.int_in_range(0..=7u32)? + 1;
                let add = u.int_in_range(0..=15u32)?;
                init.push((Reg { class: c, idx }, mul, add));
            }
        }
        for c in self.cell_ops.iter_mut() {
            *c = *u.choose(CELL_OPS)?;
        }
        let region = Region {
            full: true,
            depth: 0,
            loops: 0,
            cta: true,
        };
        let funcs = if self.swarm.families.contains(&Family::Call) {
            let n = u.int_in_range(1..=2)?;
            let mut fs = Vec::with_capacity(n);
            for _ in 0..n {
                fs.push(self.func(u)?);
            }
            fs
        } else {
            Vec::new()
        };
        self.funcs = funcs
            .iter()
            .map(|f| (f.params.clone(), f.result.class))
            .collect();
        let body = self.nodes(u, region)?;
        let exit = if self.swarm.branches && u.ratio(1, 4)? {
            Some(match u.int_in_range(0..=2u8)? {
                0 => Cond::Pred(u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?),
                1 => Cond::LaneBelow(u.int_in_range(0..=32)?),
                _ => Cond::LaneBit(u.int_in_range(0..=4)?),
            })
        } else {
            None
        };
        let mut outputs = Vec::new();
        for c in [Class::D, Class::Fd, Class::R, Class::F, Class::H, Class::P] {
            for idx in 0..c.count() {
                outputs.push(Reg { class: c, idx });
            }
        }
        Ok(Program {
            body,
            init,
            pools,
            outputs,
            // `setmaxnreg` needs whole warpgroups.
            block: if self.nreg.is_some() {
                128
            } else {
                32 * u.int_in_range(1..=2u32)?
            },
            grid: u.int_in_range(1..=2u32)?,
            funcs,
            exit,
        })
    }

    /// A device function: a straight-line body of lane-independent families.
    fn func(&mut self, u: &mut Unstructured) -> Result<Func> {
        const PURE: &[Family] = &[
            Family::Int,
            Family::Bits,
            Family::Logic,
            Family::Cmp,
            Family::Float,
            Family::Cvt,
            Family::Half,
        ];
        let mut families: Vec<Family> = self
            .swarm
            .families
            .iter()
            .copied()
            .filter(|f| PURE.contains(f))
            .collect();
        if families.is_empty() {
            families.push(Family::Int);
        }
        let swarm = Swarm {
            families,
            branches: false,
            loops: false,
            max_insts: u.int_in_range(1..=8)?,
            ..self.swarm.clone()
        };
        let mut g = Gen::new(&swarm);
        let region = Region {
            full: false,
            depth: 1,
            loops: 0,
            cta: false,
        };
        let body = g.nodes(u, region)?;
        let n = u.int_in_range(1..=3usize)?;
        let mut params = Vec::with_capacity(n);
        for _ in 0..n {
            params.push(*u.choose(&[Class::R, Class::D, Class::F])?);
        }
        // Return what the last instruction computed where it can be returned.
        let last = body.iter().rev().find_map(|n| match n {
            Node::Inst(i) if matches!(i.dst.class, Class::R | Class::D | Class::F) => Some(i.dst),
            _ => None,
        });
        let ret = match last {
            Some(r) => r.class,
            None => *u.choose(&[Class::R, Class::D, Class::F])?,
        };
        let mut init = Vec::new();
        for c in Class::ALL {
            for idx in 0..c.count() {
                let taken = params.iter().enumerate().any(|(k, &pc)| {
                    pc == c && params[..k].iter().filter(|&&x| x == c).count() == idx as usize
                });
                if !taken {
                    let v = match c {
                        Class::P => u.int_in_range(0..=1)?,
                        Class::H => pool_value(u, H_VALUES, 16)?,
                        Class::R => pool_value(u, R_VALUES, 32)?,
                        Class::D => pool_value(u, D_VALUES, 64)?,
                        Class::F => pool_value(u, F_VALUES, 32)?,
                        Class::Fd => pool_value(u, FD_VALUES, 64)?,
                    };
                    init.push((Reg { class: c, idx }, v));
                }
            }
        }
        Ok(Func {
            params,
            init,
            body,
            result: match last {
                Some(r) => r,
                None => Reg {
                    class: ret,
                    idx: u.int_in_range(0..=ret.count() - 1)?,
                },
            },
        })
    }

    fn nodes(&mut self, u: &mut Unstructured, r: Region) -> Result<Vec<Node>> {
        let mut out = Vec::new();
        let n = u.int_in_range(1..=12usize)?;
        for _ in 0..n {
            if self.insts >= self.swarm.max_insts || u.is_empty() {
                break;
            }
            let k = u.int_in_range(0..=15u8)?;
            let mem = self.swarm.families.contains(&Family::Mem)
                || self.swarm.families.contains(&Family::Generic);
            let bars = self.swarm.families.contains(&Family::Barrier);
            if k == 2 && (mem || bars) && r.cta {
                // Only at the top level (outside branches) and in uniform loops there is the
                // CTA converged.
                self.segment += 1;
                out.push(Node::Barrier(if bars {
                    self.barrier(u)?
                } else {
                    Bar::Sync
                }));
            } else if k == 3 && self.swarm.branches && r.depth < 3 {
                let sel = if u.arbitrary()? {
                    Sel::Lane
                } else {
                    Sel::Reg(u.int_in_range(0..=Class::R.count() - 1)?)
                };
                let inner = Region {
                    full: false,
                    depth: r.depth + 1,
                    loops: r.loops,
                    cta: false,
                };
                let n = u.int_in_range(2..=4usize)?;
                let mut arms = Vec::with_capacity(n);
                for _ in 0..n {
                    arms.push(if u.arbitrary()? {
                        self.nodes(u, inner)?
                    } else {
                        Vec::new()
                    });
                }
                out.push(Node::Switch { sel, arms });
            } else if k == 0 && self.swarm.branches && r.depth < 3 {
                let cond = match u.int_in_range(0..=2u8)? {
                    0 => Cond::Pred(u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?),
                    1 => Cond::LaneBelow(u.int_in_range(0..=32)?),
                    _ => Cond::LaneBit(u.int_in_range(0..=4)?),
                };
                let inner = Region {
                    full: false,
                    depth: r.depth + 1,
                    loops: r.loops,
                    cta: false,
                };
                let then = self.nodes(u, inner)?;
                let els = if u.arbitrary()? {
                    self.nodes(u, inner)?
                } else {
                    Vec::new()
                };
                out.push(Node::If { cond, then, els });
            } else if k == 1 && self.swarm.loops && r.depth < 3 && r.loops < 2 {
                let trips = match u.int_in_range(0..=2u8)? {
                    0 => Trips::Const(u.int_in_range(0..=3)?),
                    1 => Trips::Reg(
                        u.int_in_range(0..=Class::R.count() - 1)?,
                        u.int_in_range(0..=2)?,
                    ),
                    _ => Trips::Lane(u.int_in_range(0..=2)?),
                };
                let uniform = matches!(trips, Trips::Const(_));
                let inner = Region {
                    full: r.full && uniform,
                    depth: r.depth + 1,
                    loops: r.loops + 1,
                    // Only the barrier family puts barriers in loops.
                    cta: r.cta && uniform && self.swarm.families.contains(&Family::Barrier),
                };
                let segment = self.segment;
                let mut body = self.nodes(u, inner)?;
                if (self.segment - segment) % 2 == 1 {
                    // Each iteration must end on the buffer parity it started with: the body's
                    // memory operations were drawn for fixed parities.
                    self.segment += 1;
                    body.push(Node::Barrier(Bar::Sync));
                }
                out.push(Node::Loop { trips, body });
            } else {
                let fam = *u.choose(&self.swarm.families)?;
                if fam == Family::Barrier {
                    if r.cta && u.ratio(1, 4)? {
                        // A producer/consumer hand-off: consumers read what every thread wrote
                        // before it (two segments: the consumers' region, then the rest).
                        self.segment += 1;
                        out.push(Node::Barrier(Bar::Arrive {
                            id: u.int_in_range(1..=15)?,
                        }));
                        let inner = Region {
                            full: r.full,
                            depth: r.depth + 1,
                            loops: r.loops,
                            cta: false,
                        };
                        let then = self.nodes(u, inner)?;
                        out.push(Node::If {
                            cond: Cond::Consumer,
                            then,
                            els: Vec::new(),
                        });
                        self.segment += 1;
                        out.push(Node::Barrier(Bar::Sync));
                    } else if r.cta {
                        self.segment += 1;
                        out.push(Node::Barrier(self.barrier(u)?));
                    }
                } else if fam == Family::Carry {
                    for i in self.carry_chain(u)? {
                        self.insts += 1;
                        out.push(Node::Inst(i));
                    }
                } else if matches!(fam, Family::Float | Family::Half)
                    && self.swarm.contract
                    && u.ratio(1, 2)?
                {
                    for i in self.contract_chain(u, fam)? {
                        self.insts += 1;
                        out.push(Node::Inst(i));
                    }
                } else if let Some(i) = self.inst(u, fam, r)? {
                    self.insts += 1;
                    out.push(Node::Inst(i));
                }
            }
        }
        Ok(out)
    }

    /// A barrier of the barrier family.
    fn barrier(&self, u: &mut Unstructured) -> Result<Bar> {
        let id = u.int_in_range(0..=15)?;
        Ok(match u.int_in_range(0..=3u8)? {
            0 => Bar::Sync,
            1 => {
                let barrier = u.arbitrary()?;
                Bar::SyncId {
                    id,
                    barrier,
                    aligned: barrier && u.arbitrary()?,
                    count: u.arbitrary()?,
                }
            }
            _ => {
                let op = *u.choose(&[BarRed::Popc, BarRed::And, BarRed::Or])?;
                let dc = if op == BarRed::Popc {
                    Class::R
                } else {
                    Class::P
                };
                Bar::Red {
                    op,
                    id,
                    d: u.int_in_range(0..=dc.count() - 1)?,
                    p: u.int_in_range(0..=Class::P.count() - 1)?,
                    neg: u.arbitrary()?,
                }
            }
        })
    }

    fn reg(&self, u: &mut Unstructured, class: Class) -> Result<Reg> {
        Ok(Reg {
            class,
            idx: u.int_in_range(0..=class.count() - 1)?,
        })
    }

    /// A source of `class`: a register, or sometimes an immediate or `%laneid`.
    fn src(&self, u: &mut Unstructured, class: Class) -> Result<Src> {
        if self.swarm.imms && class != Class::P && u.ratio(1, 5)? {
            let v = match class {
                Class::H => pool_value(u, H_VALUES, 16)?,
                Class::R => pool_value(u, R_VALUES, 32)?,
                Class::D => pool_value(u, D_VALUES, 64)?,
                Class::F => pool_value(u, F_VALUES, 32)?,
                _ => pool_value(u, FD_VALUES, 64)?,
            };
            // NaN immediates are left to registers: ptxas folds constant operands with NaN
            // rules of its own, so the GPU could not confirm the reference on them.
            let nan = match class {
                Class::F => super::fref::nan32(v),
                Class::Fd => super::fref::nan64(v),
                _ => false,
            };
            if !nan {
                return Ok(Src::Imm(v));
            }
        }
        if class == Class::R && u.ratio(1, 12)? {
            return Ok(Src::Lane);
        }
        Ok(Src::Reg(self.reg(u, class)?))
    }

    fn it(&self, u: &mut Unstructured, bits: &[u8]) -> Result<It> {
        Ok(It {
            bits: *u.choose(bits)?,
            signed: u.arbitrary()?,
        })
    }

    fn rnd(&self, u: &mut Unstructured) -> Result<Rnd> {
        Ok(*u.choose(&self.swarm.rnds)?)
    }

    fn ftz(&self, u: &mut Unstructured, ft: Ft) -> Result<bool> {
        Ok(ft == Ft::F32 && self.swarm.ftz && u.arbitrary()?)
    }

    fn sat(&self, u: &mut Unstructured, ft: Ft) -> Result<bool> {
        Ok(ft == Ft::F32 && self.swarm.sat && u.ratio(1, 3)?)
    }

    fn ft(&self, u: &mut Unstructured) -> Result<Ft> {
        Ok(if u.arbitrary()? { Ft::F32 } else { Ft::F64 })
    }

    /// One instruction of family `fam`, or `None` when the family has nothing valid here.
    fn inst(&mut self, u: &mut Unstructured, fam: Family, r: Region) -> Result<Option<Inst>> {
        let op = match fam {
            Family::Int => self.int_op(u)?,
            Family::Bits => self.bits_op(u)?,
            Family::Logic => self.logic_op(u)?,
            Family::Cmp => self.cmp_op(u)?,
            Family::Float => self.float_op(u)?,
            Family::Approx => Op::Approx {
                kind: *u.choose(&[
                    Approx::Sin,
                    Approx::Cos,
                    Approx::Ex2,
                    Approx::Lg2,
                    Approx::Rcp,
                    Approx::Sqrt,
                    Approx::Rsqrt,
                    Approx::Tanh,
                    Approx::Div,
                    Approx::DivFull,
                ])?,
                ftz: self.swarm.ftz && u.arbitrary()?,
            },
            Family::Cvt => self.cvt_op(u)?,
            Family::Half => self.half_op(u)?,
            Family::Mem => self.mem_op(u, false)?,
            Family::Generic => {
                const PTRS: &[Win] =
                    &[Win::Global, Win::Shared, Win::Local, Win::Const, Win::Param];
                match u.int_in_range(0..=5u8)? {
                    0..=2 => self.mem_op(u, true)?,
                    3 | 4 => Op::Isspacep {
                        space: *u.choose(&[
                            Win::Global,
                            Win::Shared,
                            Win::SharedCta,
                            Win::SharedCluster,
                            Win::Local,
                            Win::Const,
                            Win::Param,
                        ])?,
                        ptr: *u.choose(PTRS)?,
                    },
                    _ => Op::CvtaRound {
                        space: *u.choose(&[
                            Win::Global,
                            Win::Shared,
                            Win::SharedCta,
                            Win::SharedCluster,
                            Win::Local,
                            Win::Const,
                            Win::Param,
                        ])?,
                    },
                }
            }
            Family::Call => {
                if self.funcs.is_empty() {
                    return Ok(None);
                }
                let f = u.int_in_range(0..=self.funcs.len() - 1)?;
                let (ps, ret) = &self.funcs[f];
                let mut params = [Class::R; 3];
                params[..ps.len()].copy_from_slice(ps);
                // After a call that recursed to different depths per lane, the H100's CTA
                // barrier reductions count partial groups (a `barrier.red.popc` of a true
                // predicate over 64 threads gave 8, 24 and 32 in one CTA, with or without
                // `bar.warp.sync` or `.aligned`), so recursion stays out of kernels with barriers.
                let barriers = self.swarm.families.contains(&Family::Barrier)
                    || self.swarm.families.contains(&Family::Mem);
                if !barriers && u.ratio(1, 4)? {
                    Op::Rec {
                        reg: u.arbitrary()?,
                    }
                } else {
                    Op::Call {
                        f: f as u8,
                        n: ps.len() as u8,
                        params,
                        ret: *ret,
                        via: *u.choose(&[Via::Direct, Via::Proto, Via::Targets])?,
                    }
                }
            }
            // Carry-flag instructions come in chains ([`Gen::carry_chain`]), barriers are
            // nodes of their own.
            Family::Carry | Family::Barrier => return Ok(None),
            Family::Warp => {
                // `shfl` reads other lanes: only where every lane is active.
                let k = if r.full {
                    u.int_in_range(0..=6u8)?
                } else {
                    u.int_in_range(2..=6u8)?
                };
                match k {
                    0 | 1 => Op::Shfl {
                        mode: *u.choose(&[
                            ShflMode::Up,
                            ShflMode::Down,
                            ShflMode::Bfly,
                            ShflMode::Idx,
                        ])?,
                        c: {
                            let clamp: u32 = u.int_in_range(0..=31)?;
                            let seg: u32 = *u.choose(&[0, 0x10, 0x18, 0x1c, 0x1e, 0x1f])?;
                            (seg << 8) | clamp
                        },
                    },
                    2 => Op::Vote {
                        mode: *u.choose(&[
                            VoteMode::All,
                            VoteMode::Any,
                            VoteMode::Uni,
                            VoteMode::Ballot,
                        ])?,
                    },
                    3 => Op::Redux {
                        op: *u.choose(&[
                            ReduxOp::Add,
                            ReduxOp::Min,
                            ReduxOp::Max,
                            ReduxOp::And,
                            ReduxOp::Or,
                            ReduxOp::Xor,
                        ])?,
                        signed: u.arbitrary()?,
                    },
                    4 => Op::Match {
                        all: u.arbitrary()?,
                        wide: u.arbitrary()?,
                    },
                    5 => Op::Activemask,
                    _ => Op::WarpSync,
                }
            }
            Family::Hint => self.hint_op(u, r)?,
        };
        self.operands(u, op, fam).map(Some)
    }

    /// A chain of extended-precision instructions: a `.cc` producer, then one to three
    /// consumers of the carry flag (some of them `.cc` too), all of one type.
    fn carry_chain(&mut self, u: &mut Unstructured) -> Result<Vec<Inst>> {
        let t = self.it(u, &[32, 64])?;
        let n = u.int_in_range(1..=3usize)?;
        let mut out = Vec::with_capacity(n + 1);
        for k in 0..=n {
            let cin = k > 0;
            // The producer writes the flag; consumers pass it on except, often, the last.
            let cout = k == 0 || (k < n || u.ratio(1, 3)?);
            let op = if u.ratio(1, 3)? {
                Op::MadCc {
                    hi: u.arbitrary()?,
                    cin,
                    cout,
                    t,
                }
            } else {
                Op::AddCc {
                    sub: u.arbitrary()?,
                    cin,
                    cout,
                    t,
                }
            };
            out.push(self.operands(u, op, Family::Carry)?);
        }
        Ok(out)
    }

    /// Material for ptxas's contraction of `mul` with `add`/`sub` (see
    /// [`super::contract`]) and for its `neg` folds, in one type: `.f32` or `.f64` (float
    /// family), `.f16`, `.bf16` or their pairs (half family).
    ///
    /// One to three products `mul t, a, b` (mostly without rounding modifier, sometimes with
    /// `.rn`, `.sat` or another `.ftz` than the `add`s, which keeps them rounded), each maybe
    /// followed by `mov`/`neg` links in place or into another register, sometimes written
    /// over its first factor or followed by a move over its second (the fused operation reads
    /// the factors as they were at the `mul`), and maybe preceded by the rounded product of
    /// the same factors (`mul.rn`, maybe negated) for the `add`s to
    /// cancel against: a fused `t - round(a * b)` is the product's rounding error where the
    /// one-by-one reading gives zero. Then one to three `add`/`sub`s of the products (one or
    /// both operands, several reads of one product), the cancelling values and other
    /// registers, mostly written over a product (a product still live at the end of its block
    /// stays rounded); then maybe moves over the products left. Any instruction may be
    /// guarded. Otherwise, a `neg` fold: `neg` of `neg`, a guarded `neg.f32`, `selp.f32` of
    /// `x` and `neg x`.
    pub fn contract_chain(&mut self, u: &mut Unstructured, fam: Family) -> Result<Vec<Inst>> {
        let (ft, hf) = if fam == Family::Float {
            (Some(self.ft(u)?), None)
        } else {
            (
                None,
                Some((*u.choose(&[Hf::F16, Hf::Bf16])?, u.arbitrary()?)),
            )
        };
        let class = match (ft, hf) {
            (Some(f), _) => f.class(),
            (_, Some((_, true))) => Class::R,
            _ => Class::H,
        };
        // `.ftz` and `.sat` exist for f32 and f16 only.
        let modifiers = ft == Some(Ft::F32) || matches!(hf, Some((Hf::F16, _)));
        let ftz_ok = modifiers && self.swarm.ftz;
        let sat_ok = modifiers && self.swarm.sat;
        let guards = self.swarm.guards;
        let mut out: Vec<Inst> = Vec::new();
        let inst = |u: &mut Unstructured, op: Op, dst: Reg, srcs: Vec<Src>| -> Result<Inst> {
            // Guarded `add`s still fuse; a guarded `mul` or link does not.
            let odds = if super::contract::add_of(&op).is_some() {
                4
            } else {
                10
            };
            let guard = if guards && u.ratio(1, odds)? {
                Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?))
            } else {
                None
            };
            Ok(Inst {
                guard,
                op,
                dst,
                dst2: None,
                srcs,
                neg_pred: false,
            })
        };
        let bin = |op: Fop, rnd: Option<Rnd>, ftz: bool, sat: bool| match (ft, hf) {
            (Some(ft), _) => Op::Fbin {
                op,
                ft,
                rnd,
                ftz,
                sat,
            },
            (_, Some((hf, x2))) => Op::Hbin {
                op,
                hf,
                x2,
                rn: rnd.is_some(),
                ftz,
                sat,
            },
            _ => unreachable!("a float or half type"),
        };
        let neg = |ftz: bool| match (ft, hf) {
            (Some(ft), _) => Op::Fneg { ft, ftz },
            (_, Some((hf, x2))) => Op::Hsign {
                abs: false,
                hf,
                x2,
                ftz,
            },
            _ => unreachable!("a float or half type"),
        };
        // Half operands are registers only.
        let operand = |g: &Self, u: &mut Unstructured| -> Result<Src> {
            if ft.is_some() {
                g.src(u, class)
            } else {
                Ok(Src::Reg(g.reg(u, class)?))
            }
        };
        if u.ratio(1, 4)? {
            // A `neg` fold.
            let x = self.reg(u, class)?;
            let d = self.reg(u, class)?;
            let t = if u.ratio(1, 4)? {
                x
            } else {
                self.reg(u, class)?
            };
            let f32 = ft == Some(Ft::F32);
            match u.int_in_range(0..=2u8)? {
                0 | 1 if f32 => {
                    if u.arbitrary()? {
                        let mut i = inst(u, neg(false), d, vec![Src::Reg(x)])?;
                        if i.guard.is_none() {
                            i.guard =
                                Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?));
                        }
                        out.push(i);
                    } else {
                        out.push(inst(u, neg(false), t, vec![Src::Reg(x)])?);
                        let p = Src::Reg(self.reg(u, Class::P)?);
                        let srcs = if u.arbitrary()? {
                            vec![Src::Reg(t), Src::Reg(x), p]
                        } else {
                            vec![Src::Reg(x), Src::Reg(t), p]
                        };
                        out.push(inst(u, Op::Selp(Class::F), d, srcs)?);
                    }
                }
                _ => {
                    let ftz = ftz_ok && u.ratio(1, 4)?;
                    out.push(inst(u, neg(ftz), t, vec![Src::Reg(x)])?);
                    if u.ratio(1, 4)? {
                        // The first `neg`'s source changes in between.
                        let y = operand(self, u)?;
                        out.push(inst(u, Op::Mov(class), x, vec![y])?);
                    }
                    out.push(inst(u, neg(false), d, vec![Src::Reg(t)])?);
                }
            }
            return Ok(out);
        }
        let ftz = ftz_ok && u.arbitrary()?;
        // The products (their registers after the links), the cancelling values (with the
        // product they cancel and whether they are negated).
        let mut prods: Vec<Reg> = Vec::new();
        let mut cancels: Vec<(Reg, Reg, bool)> = Vec::new();
        // Registers left holding a product's value when a link copied it elsewhere.
        let mut left: Vec<Reg> = Vec::new();
        // A register of `class` outside `avoid` where there is one.
        let fresh = |u: &mut Unstructured, avoid: &[Reg]| -> Result<Reg> {
            let free: Vec<Reg> = (0..class.count())
                .map(|idx| Reg { class, idx })
                .filter(|r| !avoid.contains(r))
                .collect();
            Ok(if free.is_empty() {
                Reg {
                    class,
                    idx: u.int_in_range(0..=class.count() - 1)?,
                }
            } else {
                *u.choose(&free)?
            })
        };
        let live = |prods: &[Reg], cancels: &[(Reg, Reg, bool)]| -> Vec<Reg> {
            prods
                .iter()
                .copied()
                .chain(cancels.iter().map(|c| c.0))
                .collect()
        };
        for _ in 0..u.int_in_range(1..=(class.count() as usize / 2).min(3))? {
            let mut taken = live(&prods, &cancels);
            // Factors mostly other than the products so far (a product also multiplied stays
            // rounded).
            let factor = |g: &Self, u: &mut Unstructured, taken: &[Reg]| -> Result<Src> {
                if u.ratio(3, 4)? {
                    let r = fresh(u, taken)?;
                    if ft.is_some() && g.swarm.imms && u.ratio(1, 6)? {
                        return g.src(u, class);
                    }
                    Ok(Src::Reg(r))
                } else {
                    operand(g, u)
                }
            };
            let a = factor(self, u, &taken)?;
            let b = factor(self, u, &taken)?;
            taken.extend([a, b].iter().filter_map(|s| match s {
                Src::Reg(r) => Some(*r),
                _ => None,
            }));
            // Sometimes over its own first factor: the fused add reads the factor as it was.
            let t = match a {
                Src::Reg(r) if u.ratio(1, 8)? && !prods.contains(&r) => r,
                _ => fresh(u, &taken)?,
            };
            taken.push(t);
            let cancel = if u.ratio(1, 2)? {
                let c = fresh(u, &taken)?;
                out.push(inst(
                    u,
                    bin(Fop::Mul, Some(Rnd::Rn), ftz, false),
                    c,
                    vec![a, b],
                )?);
                let negated = u.ratio(1, 3)?;
                if negated {
                    out.push(inst(u, neg(false), c, vec![Src::Reg(c)])?);
                }
                Some((c, negated))
            } else {
                None
            };
            let rnd = if u.ratio(1, 10)? {
                Some(self.rnd(u)?)
            } else {
                None
            };
            let mftz = if ftz_ok && u.ratio(1, 8)? { !ftz } else { ftz };
            let msat = sat_ok && u.ratio(1, 10)?;
            out.push(inst(u, bin(Fop::Mul, rnd, mftz, msat), t, vec![a, b])?);
            let mut at = t;
            for _ in 0..u.int_in_range(0..=2u8)? {
                let to = if u.ratio(2, 3)? {
                    at
                } else {
                    taken.push(at);
                    left.push(at);
                    fresh(u, &taken)?
                };
                let op = if u.arbitrary()? {
                    Op::Mov(class)
                } else {
                    neg(ftz_ok && u.ratio(1, 8)?)
                };
                out.push(inst(u, op, to, vec![Src::Reg(at)])?);
                at = to;
            }
            prods.push(at);
            if let Some((c, negated)) = cancel {
                cancels.push((c, at, negated));
            }
            // A factor written over between the mul and the adds.
            if let Src::Reg(r) = b {
                if u.ratio(1, 8)? && !prods.contains(&r) && !cancels.iter().any(|c| c.0 == r) {
                    let y = operand(self, u)?;
                    out.push(inst(u, Op::Mov(class), r, vec![y])?);
                }
            }
        }
        let mut written: Vec<Reg> = Vec::new();
        for _ in 0..u.int_in_range(1..=3usize)? {
            let (x, y, op) = if !cancels.is_empty() && u.ratio(1, 2)? {
                // The product against its own rounding: fused, the rounding error.
                let &(c, t, negated) = u.choose(&cancels)?;
                let op = if negated { Fop::Add } else { Fop::Sub };
                (Src::Reg(t), Src::Reg(c), op)
            } else {
                let x = *u.choose(&prods)?;
                let others: Vec<Reg> = prods.iter().copied().filter(|&r| r != x).collect();
                let x = Src::Reg(x);
                let y = match u.int_in_range(0..=5u8)? {
                    // Both operands products (rarely the same one twice).
                    0 | 1 if !others.is_empty() => Src::Reg(*u.choose(&others)?),
                    0 => Src::Reg(*u.choose(&prods)?),
                    2 if !cancels.is_empty() => Src::Reg(u.choose(&cancels)?.0),
                    _ => operand(self, u)?,
                };
                let op = if u.arbitrary()? { Fop::Sub } else { Fop::Add };
                (x, y, op)
            };
            let srcs = if u.arbitrary()? {
                vec![x, y]
            } else {
                vec![y, x]
            };
            // Mostly over the product it reads, which ends the product's life.
            let d = match u.int_in_range(0..=5u8)? {
                0..=3 => match x {
                    Src::Reg(r) => r,
                    _ => self.reg(u, class)?,
                },
                4 => *u.choose(&prods)?,
                _ => self.reg(u, class)?,
            };
            written.push(d);
            let rnd = if u.ratio(1, 10)? {
                Some(self.rnd(u)?)
            } else {
                None
            };
            let aftz = if ftz_ok && u.ratio(1, 10)? { !ftz } else { ftz };
            let sat = sat_ok && u.ratio(1, 3)?;
            out.push(inst(u, bin(op, rnd, aftz, sat), d, srcs)?);
        }
        // Moves over the products left, so that their values end in the block.
        for &t in prods.iter().chain(&left) {
            if !written.contains(&t) && u.ratio(3, 4)? {
                let y = if ft.is_some() && self.swarm.imms && u.ratio(1, 3)? {
                    self.src(u, class)?
                } else {
                    Src::Reg(fresh(u, &[t])?)
                };
                out.push(inst(u, Op::Mov(class), t, vec![y])?);
                written.push(t);
            }
        }
        Ok(out)
    }

    /// Operands, destination(s) and guard of an instruction doing `op`.
    fn operands(&mut self, u: &mut Unstructured, op: Op, fam: Family) -> Result<Inst> {
        let sig = signature(&op);
        let mut srcs = Vec::with_capacity(sig.srcs.len());
        for (k, &c) in sig.srcs.iter().enumerate() {
            let imm_ok = !sig.no_imm.contains(&k);
            let mut s = if imm_ok {
                self.src(u, c)?
            } else {
                Src::Reg(self.reg(u, c)?)
            };
            // ptxas takes immediate bit positions and lengths in 0..=255 only.
            let position = match op {
                Op::Bfe(_) => k >= 1,
                Op::Bfi(_) => k >= 2,
                _ => false,
            };
            if let (true, Src::Imm(v)) = (position, &mut s) {
                *v &= 0xff;
            }
            srcs.push(s);
        }
        if op == Op::Fns {
            // `base` above 31 is undefined: an immediate in range or `%laneid`.
            srcs[1] = if u.ratio(1, 4)? {
                Src::Lane
            } else {
                Src::Imm(u.int_in_range(0..=31)?)
            };
        }
        let dst = self.reg(u, sig.dst)?;
        let mut dst2 = match sig.dst2 {
            Some(c) if u.arbitrary()? => {
                let mut d2 = self.reg(u, c)?;
                if d2 == dst {
                    d2.idx = (d2.idx + 1) % c.count();
                }
                Some(d2)
            }
            _ => None,
        };
        // The packed half comparison always writes `p|q` (the scalar one only `p`).
        if let Op::Hsetp { x2: true, .. } = op {
            if dst2.is_none() {
                dst2 = Some(Reg {
                    class: Class::P,
                    idx: (dst.idx + 1) % Class::P.count(),
                });
            }
        }
        let warp = fam == Family::Warp || matches!(op, Op::Hint(HintOp::Setmaxnreg { .. }));
        let guard = if !warp && self.swarm.guards && u.ratio(1, 4)? {
            Some((u.int_in_range(0..=Class::P.count() - 1)?, u.arbitrary()?))
        } else {
            None
        };
        let neg_pred = sig.pred_src && u.arbitrary()?;
        Ok(Inst {
            guard,
            op,
            dst,
            dst2,
            srcs,
            neg_pred,
        })
    }

    /// An operation of the hint family.
    fn hint_op(&mut self, u: &mut Unstructured, r: Region) -> Result<Op> {
        let k = u.int_in_range(0..=11u8)?;
        Ok(match k {
            0 | 1 => Op::PackSat(*u.choose(&PackT::ALL)?),
            2..=5 => {
                let class = *u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?;
                // `.v4` of 64-bit elements is a 256-bit access (sm_100).
                let vec = if class.bits() == 64 {
                    *u.choose(&[1u8, 2])?
                } else {
                    *u.choose(&[1u8, 2, 4])?
                };
                let slot = vec * u.int_in_range(0..=16 / vec - 1)?;
                let prio = |u: &mut Unstructured| -> Result<(u8, Option<bool>)> {
                    Ok((
                        u.int_in_range(0..=3u8)?,
                        if u.arbitrary()? {
                            Some(u.arbitrary()?)
                        } else {
                            None
                        },
                    ))
                };
                let how = match u.int_in_range(0..=4u8)? {
                    0 => LdHow::Ldu,
                    1 => LdHow::Nc(u.int_in_range(0..=3u8)?),
                    2 => {
                        let (primary, secondary) = prio(u)?;
                        LdHow::Policy(if u.arbitrary()? {
                            Policy::Fractional {
                                primary,
                                secondary,
                                fraction: if u.arbitrary()? {
                                    Some(*u.choose(&[0x3f80_0000u32, 0x3f00_0000, 0x3e80_0000])?)
                                } else {
                                    None
                                },
                            }
                        } else {
                            let total = *u.choose(&[256u32, 416, 4096])?;
                            Policy::Range {
                                primary,
                                secondary,
                                size: total / *u.choose(&[1u32, 2, 4])?,
                                total,
                            }
                        })
                    }
                    3 => LdHow::Prefetch(*u.choose(&[
                        Pf::GlobalL1,
                        Pf::GlobalL2,
                        Pf::EvictLast,
                        Pf::EvictNormal,
                        Pf::GenericL2,
                        Pf::Uniform,
                    ])?),
                    _ => LdHow::Applypriority,
                };
                Op::LdIn {
                    how,
                    class,
                    slot,
                    vec,
                }
            }
            _ => {
                let mem = [Family::Mem, Family::Generic, Family::Barrier]
                    .iter()
                    .any(|f| self.swarm.families.contains(f));
                // All warps of a warpgroup run the same `setmaxnreg` sequence: only where the
                // whole CTA runs straight-line code, in kernels that can have 128 threads (the
                // memory families' layouts are for 64).
                if k == 10 {
                    // Outside loops only, a block may stay allocated.
                    let restore = r.loops > 0 || self.kept >= 4 || u.ratio(3, 4)?;
                    self.kept += !restore as u8;
                    return Ok(Op::Alloca {
                        size: *u.choose(&[4u8, 8, 12, 16, 24, 32, 40, 64])?,
                        lane_size: u.ratio(1, 3)?,
                        align: if u.arbitrary()? {
                            Some(*u.choose(&[8u8, 16, 32, 64])?)
                        } else {
                            None
                        },
                        restore,
                        generic: u.arbitrary()?,
                    });
                }
                if k == 11 && !mem && r.cta && r.full && r.depth == 0 && r.loops == 0 {
                    const COUNTS: [u16; 5] = [224, 232, 240, 248, 256];
                    let (inc, n) = match self.nreg {
                        Some(cur) if u.arbitrary()? => {
                            let lower: Vec<u16> =
                                COUNTS.iter().copied().filter(|&n| n < cur).collect();
                            if lower.is_empty() {
                                (true, cur)
                            } else {
                                (false, *u.choose(&lower)?)
                            }
                        }
                        cur => {
                            let from = cur.unwrap_or(0);
                            let higher: Vec<u16> =
                                COUNTS.iter().copied().filter(|&n| n >= from).collect();
                            (true, *u.choose(&higher)?)
                        }
                    };
                    self.nreg = Some(n);
                    return Ok(Op::Hint(HintOp::Setmaxnreg { inc, n }));
                }
                Op::Hint(match u.int_in_range(0..=8u8)? {
                    0 => HintOp::Membar(u.int_in_range(0..=2)?),
                    1 => HintOp::Fence {
                        sem: u.int_in_range(0..=2)?,
                        scope: u.int_in_range(0..=3)?,
                    },
                    2 => HintOp::Proxy(u.int_in_range(0..=4)?),
                    3 => HintOp::Sleep(u.int_in_range(0..=1000)?),
                    4 => HintOp::SleepReg,
                    5 => {
                        if u.arbitrary()? {
                            HintOp::Pmevent(u.int_in_range(0..=15)?)
                        } else {
                            HintOp::PmeventMask(u.int_in_range(1..=0xffff)?)
                        }
                    }
                    6 => HintOp::Griddep(u.arbitrary()?),
                    7 => HintOp::Discard,
                    _ => HintOp::Proxy(u.int_in_range(0..=4)?),
                })
            }
        })
    }

    fn int_op(&self, u: &mut Unstructured) -> Result<Op> {
        const ALL: &[u8] = &[16, 32, 64];
        Ok(match u.int_in_range(0..=19u8)? {
            0 => Op::Add(self.it(u, ALL)?),
            1 => Op::Sub(self.it(u, ALL)?),
            2 => Op::AddSat(u.arbitrary()?),
            3 => Op::MulLo(self.it(u, ALL)?),
            4 => Op::MulHi(self.it(u, ALL)?),
            5 => Op::MulWide(self.it(u, &[16, 32])?),
            6 => Op::MadLo(self.it(u, ALL)?),
            7 => Op::MadHi(self.it(u, ALL)?),
            8 => Op::MadWide(self.it(u, &[16, 32])?),
            9 => Op::MadHiSat,
            10 => Op::Mul24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            11 => Op::Mad24 {
                hi: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            12 => Op::Sad(self.it(u, ALL)?),
            13 => Op::Div(self.it(u, ALL)?),
            14 => Op::Rem(self.it(u, ALL)?),
            15 => Op::Abs(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            16 => Op::Neg(It {
                bits: *u.choose(ALL)?,
                signed: true,
            }),
            17 => Op::Min(self.it(u, ALL)?),
            18 => Op::Max(self.it(u, ALL)?),
            _ => Op::Relu {
                max: u.arbitrary()?,
            },
        })
    }

    fn bits_op(&self, u: &mut Unstructured) -> Result<Op> {
        Ok(match u.int_in_range(0..=11u8)? {
            0 => Op::Popc(*u.choose(&[32, 64])?),
            1 => Op::Clz(*u.choose(&[32, 64])?),
            2 => Op::Brev(*u.choose(&[32, 64])?),
            3 => Op::Bfind {
                t: self.it(u, &[32, 64])?,
                shiftamt: u.arbitrary()?,
            },
            4 => Op::Bfe(self.it(u, &[32, 64])?),
            5 => Op::Bfi(*u.choose(&[32, 64])?),
            6 => Op::Dp4a {
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            7 => Op::Dp2a {
                hi: u.arbitrary()?,
                sa: u.arbitrary()?,
                sb: u.arbitrary()?,
            },
            8 => Op::Prmt(*u.choose(&[
                PrmtMode::Default,
                PrmtMode::F4e,
                PrmtMode::B4e,
                PrmtMode::Rc8,
                PrmtMode::Ecl,
                PrmtMode::Ecr,
                PrmtMode::Rc16,
            ])?),
            9 => Op::Bmsk {
                clamp: u.arbitrary()?,
            },
            10 => Op::Szext {
                clamp: u.arbitrary()?,
                signed: u.arbitrary()?,
            },
            _ => Op::Fns,
        })
    }

    fn logic_op(&self, u: &mut Unstructured) -> Result<Op> {
        let lc = *u.choose(&[Class::P, Class::H, Class::R, Class::D])?;
        let bc = *u.choose(&[Class::H, Class::R, Class::D])?;
        Ok(match u.int_in_range(0..=8u8)? {
            0 => Op::And(lc),
            1 => Op::Or(lc),
            2 => Op::Xor(lc),
            3 => Op::Not(lc),
            4 => Op::Cnot(bc),
            5 => Op::Lop3(u.arbitrary()?),
            6 => Op::Shf {
                left: u.arbitrary()?,
                clamp: u.arbitrary()?,
            },
            7 => Op::Shl(bc),
            _ => Op::Shr(self.it(u, &[16, 32, 64])?),
        })
    }

    fn cmp_op(&self, u: &mut Unstructured) -> Result<Op> {
        use ptx_ir_core::Cmp;
        let t = match u.int_in_range(0..=3u8)? {
            0 => CmpT::Bits(*u.choose(&[16, 32, 64])?),
            1 => CmpT::Int(self.it(u, &[16, 32, 64])?),
            _ => CmpT::F(self.ft(u)?),
        };
        let cmp = match t {
            CmpT::Bits(_) => *u.choose(&[Cmp::Eq, Cmp::Ne])?,
            CmpT::Int(it) if it.signed => {
                *u.choose(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])?
            }
            CmpT::Int(_) => *u.choose(&[
                Cmp::Eq,
                Cmp::Ne,
                Cmp::Lt,
                Cmp::Le,
                Cmp::Gt,
                Cmp::Ge,
                Cmp::Ls,
                Cmp::Hs,
            ])?,
            CmpT::F(_) => *u.choose(&[
                Cmp::Eq,
                Cmp::Ne,
                Cmp::Lt,
                Cmp::Le,
                Cmp::Gt,
                Cmp::Ge,
                Cmp::Equ,
                Cmp::Neu,
                Cmp::Ltu,
                Cmp::Leu,
                Cmp::Gtu,
                Cmp::Geu,
                Cmp::Num,
                Cmp::Nan,
            ])?,
        };
        let lohi = matches!(t, CmpT::Int(it) if !it.signed)
            && matches!(cmp, Cmp::Lt | Cmp::Gt)
            && u.arbitrary()?;
        let bop = if u.ratio(1, 3)? {
            Some(*u.choose(&[Bop::And, Bop::Or, Bop::Xor])?)
        } else {
            None
        };
        let ftz = t == CmpT::F(Ft::F32) && self.swarm.ftz && u.arbitrary()?;
        Ok(match u.int_in_range(0..=5u8)? {
            0..=2 => Op::Setp {
                cmp,
                lohi,
                t,
                bop,
                ftz,
            },
            3 => {
                // `set` takes 32-bit comparisons' types only in some combinations; keep to
                // the integer and float forms every table line accepts.
                let d = *u.choose(&[SetD::U32, SetD::S32, SetD::F32])?;
                Op::Set {
                    cmp,
                    t: match t {
                        CmpT::Bits(b) => CmpT::Bits(b),
                        other => other,
                    },
                    d,
                    bop,
                    ftz,
                }
            }
            4 => Op::Selp(*u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?),
            _ => Op::Slct(*u.choose(&[Class::H, Class::R, Class::D, Class::F, Class::Fd])?),
        })
    }

    fn float_op(&self, u: &mut Unstructured) -> Result<Op> {
        let ft = self.ft(u)?;
        Ok(match u.int_in_range(0..=11u8)? {
            0..=3 => {
                let op = *u.choose(&[Fop::Add, Fop::Sub, Fop::Mul, Fop::Div])?;
                let rnd = if op == Fop::Div || u.ratio(3, 4)? {
                    Some(self.rnd(u)?)
                } else {
                    None
                };
                Op::Fbin {
                    op,
                    ft,
                    rnd,
                    ftz: self.ftz(u, ft)?,
                    sat: op != Fop::Div && self.sat(u, ft)?,
                }
            }
            4 | 5 => Op::Fma {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
                sat: self.sat(u, ft)?,
                mad: u.arbitrary()?,
            },
            6 => Op::Rcp {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
            },
            7 => Op::Sqrt {
                ft,
                rnd: self.rnd(u)?,
                ftz: self.ftz(u, ft)?,
            },
            8 => {
                if u.arbitrary()? {
                    Op::Fabs {
                        ft,
                        ftz: self.ftz(u, ft)?,
                    }
                } else {
                    Op::Fneg {
                        ft,
                        ftz: self.ftz(u, ft)?,
                    }
                }
            }
            9 => {
                let f32 = ft == Ft::F32;
                Op::Fminmax {
                    ft,
                    max: u.arbitrary()?,
                    ftz: self.ftz(u, ft)?,
                    nan: f32 && u.arbitrary()?,
                    xorsign: f32 && u.ratio(1, 4)?,
                }
            }
            10 => Op::Copysign(ft),
            _ => Op::Testp {
                ft,
                class: u.int_in_range(0..=5)?,
            },
        })
    }

    /// A memory operation of the shared-slot protocol; `generic`: through a generic address.
    fn mem_op(&self, u: &mut Unstructured, generic: bool) -> Result<Op> {
        let cur = (self.segment % 2) as u8;
        let addr = if generic {
            AddrKind::Generic
        } else {
            *u.choose(&[
                AddrKind::Space,
                AddrKind::Space,
                AddrKind::Cta,
                AddrKind::Cluster,
            ])?
        };
        let (class, vec) = *u.choose(&[
            (Class::H, 1),
            (Class::H, 2),
            (Class::H, 4),
            (Class::R, 1),
            (Class::R, 2),
            (Class::R, 4),
            (Class::F, 1),
            (Class::F, 4),
            (Class::D, 1),
            (Class::D, 2),
            (Class::Fd, 1),
            (Class::Fd, 2),
        ])?;
        let size = (class.bits() / 8) as u8 * vec;
        let off = size * u.int_in_range(0..=16 / size - 1)?;
        Ok(match u.int_in_range(0..=5u8)? {
            0 | 1 => Op::St {
                buf: cur,
                vec,
                class,
                off,
                addr,
            },
            2 | 3 => {
                let peer = if u.arbitrary()? {
                    u.int_in_range(1..=63)?
                } else {
                    0
                };
                Op::Ld {
                    // Other threads' slots only from the buffer this segment does not write.
                    buf: if peer > 0 {
                        1 - cur
                    } else {
                        u.int_in_range(0..=1)?
                    },
                    peer,
                    vec,
                    class,
                    off,
                    addr,
                }
            }
            _ => {
                let target = match u.int_in_range(0..=3u8)? {
                    0 => Target::Own {
                        buf: cur,
                        off: 8 * u.int_in_range(0..=1)?,
                    },
                    // Shared cells of the segment's parity (loads read the others).
                    1 => Target::Cell(cur + 2 * u.int_in_range(0..=1)?),
                    2 => Target::GlobalOwn,
                    _ => Target::GlobalCell(u.int_in_range(0..=3)?),
                };
                let (op, t) = match target {
                    Target::Cell(j) => self.cell_ops[j as usize],
                    Target::GlobalCell(j) => self.cell_ops[4 + j as usize],
                    _ => {
                        let op = *u.choose(&[
                            AtomOp::Add,
                            AtomOp::Min,
                            AtomOp::Max,
                            AtomOp::And,
                            AtomOp::Or,
                            AtomOp::Xor,
                            AtomOp::Inc,
                            AtomOp::Dec,
                            AtomOp::Exch,
                            AtomOp::Cas,
                        ])?;
                        let t = match op {
                            AtomOp::Add => *u.choose(&[
                                AtomT::Int(It {
                                    bits: 32,
                                    signed: false,
                                }),
                                AtomT::Int(It {
                                    bits: 32,
                                    signed: true,
                                }),
                                AtomT::Int(It {
                                    bits: 64,
                                    signed: false,
                                }),
                                AtomT::F32,
                                AtomT::F64,
                                AtomT::Half(Hf::F16, false),
                                AtomT::Half(Hf::F16, true),
                                AtomT::Half(Hf::Bf16, false),
                                AtomT::Half(Hf::Bf16, true),
                            ])?,
                            AtomOp::Min | AtomOp::Max => AtomT::Int(self.it(u, &[32, 64])?),
                            AtomOp::Inc | AtomOp::Dec => AtomT::Int(It {
                                bits: 32,
                                signed: false,
                            }),
                            _ => AtomT::Bits(*u.choose(&[32, 64])?),
                        };
                        (op, t)
                    }
                };
                // `red` has no `exch`/`cas`.
                let red = !matches!(op, AtomOp::Exch | AtomOp::Cas) && u.ratio(1, 3)?;
                // Orderings and scopes change nothing on race-free accesses; `red` takes only
                // `.relaxed` and `.release`.
                let sem = if u.ratio(1, 3)? {
                    Some(if red {
                        *u.choose(&[Sem::Relaxed, Sem::Release])?
                    } else {
                        *u.choose(&[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel])?
                    })
                } else {
                    None
                };
                let scope = if u.ratio(1, 3)? {
                    Some(*u.choose(&[Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys])?)
                } else {
                    None
                };
                Op::Atom {
                    op,
                    t,
                    target,
                    red,
                    sem,
                    scope,
                    addr,
                }
            }
        })
    }

    fn half_op(&self, u: &mut Unstructured) -> Result<Op> {
        let hf = if u.arbitrary()? { Hf::F16 } else { Hf::Bf16 };
        let f16 = hf == Hf::F16;
        let x2 = u.arbitrary()?;
        // `.ftz` and `.sat` exist for f16 only.
        let ftz = f16 && self.swarm.ftz && u.arbitrary()?;
        let sat = f16 && self.swarm.sat && u.ratio(1, 3)?;
        Ok(match u.int_in_range(0..=13u8)? {
            11 | 12 => {
                let peer = match u.int_in_range(0..=5u8)? {
                    0..=3 => {
                        // ptxas takes 8-bit integers with f16 only.
                        let bits: &[u8] = if f16 { &[8, 16, 32, 64] } else { &[16, 32, 64] };
                        HPeer::Int(*u.choose(bits)?, u.arbitrary()?)
                    }
                    4 => HPeer::F64,
                    _ => HPeer::Half,
                };
                let to_half = peer == HPeer::Half || u.arbitrary()?;
                let rnd = match (peer, to_half) {
                    (HPeer::Int(..), false) => Some(CvtRnd::I(self.rnd(u)?)),
                    (HPeer::F64, false) => None,
                    _ => Some(CvtRnd::F(self.rnd(u)?)),
                };
                Op::CvtHalfX {
                    hf,
                    peer,
                    to_half,
                    rnd,
                    // The ISA's `.sat` clamps float results of f16, f32 and f64 only (not bf16),
                    // and ptxas also rejects it from a bf16 source (`cvt.sat.f64.bf16`,
                    // `cvt.rn.sat.f16.bf16`: "Illegal modifier '.sat'", GPU batch).
                    sat: f16
                        && (if to_half {
                            peer != HPeer::Half
                        } else {
                            peer == HPeer::F64
                        })
                        && self.swarm.sat
                        && u.ratio(1, 3)?,
                }
            }
            13 => {
                use ptx_ir_core::Cmp;
                let d = if x2 {
                    *u.choose(&[HSetD::Half, HSetD::U32, HSetD::S32])?
                } else if !f16 {
                    // The ISA has no scalar `set.CMP.bf16.bf16`.
                    *u.choose(&[HSetD::U16, HSetD::S16, HSetD::U32, HSetD::S32])?
                } else {
                    *u.choose(&[HSetD::Half, HSetD::U16, HSetD::S16, HSetD::U32, HSetD::S32])?
                };
                Op::Hset {
                    cmp: *u.choose(&[
                        Cmp::Eq,
                        Cmp::Ne,
                        Cmp::Lt,
                        Cmp::Le,
                        Cmp::Gt,
                        Cmp::Ge,
                        Cmp::Equ,
                        Cmp::Neu,
                        Cmp::Ltu,
                        Cmp::Leu,
                        Cmp::Gtu,
                        Cmp::Geu,
                        Cmp::Num,
                        Cmp::Nan,
                    ])?,
                    hf,
                    x2,
                    d,
                    ftz,
                    bop: if u.ratio(1, 3)? {
                        Some(*u.choose(&[Bop::And, Bop::Or, Bop::Xor])?)
                    } else {
                        None
                    },
                }
            }
            10 => {
                use ptx_ir_core::Cmp;
                Op::Hsetp {
                    cmp: *u.choose(&[
                        Cmp::Eq,
                        Cmp::Ne,
                        Cmp::Lt,
                        Cmp::Le,
                        Cmp::Gt,
                        Cmp::Ge,
                        Cmp::Equ,
                        Cmp::Neu,
                        Cmp::Ltu,
                        Cmp::Leu,
                        Cmp::Gtu,
                        Cmp::Geu,
                        Cmp::Num,
                        Cmp::Nan,
                    ])?,
                    hf,
                    x2,
                    ftz,
                    bop: if u.ratio(1, 3)? {
                        Some(*u.choose(&[Bop::And, Bop::Or, Bop::Xor])?)
                    } else {
                        None
                    },
                }
            }
            0..=2 => Op::Hbin {
                op: *u.choose(&[Fop::Add, Fop::Sub, Fop::Mul])?,
                hf,
                x2,
                rn: u.arbitrary()?,
                ftz,
                sat,
            },
            3 | 4 => {
                let relu = !sat && u.ratio(1, 3)?;
                Op::Hfma {
                    hf,
                    x2,
                    ftz,
                    sat,
                    relu,
                }
            }
            5 => Op::Hsign {
                abs: u.arbitrary()?,
                hf,
                x2,
                ftz,
            },
            6 => Op::Hminmax {
                hf,
                x2,
                max: u.arbitrary()?,
                ftz,
                nan: u.arbitrary()?,
                xorsign: u.ratio(1, 4)?,
            },
            7 => {
                if u.arbitrary()? {
                    Op::CvtToHalf {
                        hf,
                        rnd: self.rnd(u)?,
                        ftz: self.swarm.ftz && u.arbitrary()?,
                        sat,
                        relu: false,
                        satfinite: false,
                    }
                } else {
                    Op::CvtToHalf {
                        hf,
                        rnd: *u.choose(&[Rnd::Rn, Rnd::Rz])?,
                        ftz: false,
                        sat: false,
                        relu: u.arbitrary()?,
                        satfinite: u.arbitrary()?,
                    }
                }
            }
            8 => Op::CvtFromHalf {
                hf,
                ftz: self.swarm.ftz && u.arbitrary()?,
            },
            _ => Op::CvtPack {
                hf,
                rz: u.arbitrary()?,
                relu: u.arbitrary()?,
                satfinite: u.arbitrary()?,
            },
        })
    }

    fn cvt_op(&self, u: &mut Unstructured) -> Result<Op> {
        const TYPES: &[CvtT] = &[
            CvtT::Int(8, false),
            CvtT::Int(8, true),
            CvtT::Int(16, false),
            CvtT::Int(16, true),
            CvtT::Int(32, false),
            CvtT::Int(32, true),
            CvtT::Int(64, false),
            CvtT::Int(64, true),
            CvtT::F(Ft::F32),
            CvtT::F(Ft::F64),
        ];
        if u.ratio(1, 8)? {
            return Ok(Op::Mov(*u.choose(&Class::ALL)?));
        }
        let d = *u.choose(TYPES)?;
        let s = *u.choose(TYPES)?;
        let rnd = match (d, s) {
            (CvtT::Int(..), CvtT::F(_)) => Some(CvtRnd::I(self.rnd(u)?)),
            (CvtT::F(_), CvtT::Int(..)) => Some(CvtRnd::F(self.rnd(u)?)),
            (CvtT::F(Ft::F32), CvtT::F(Ft::F64)) => Some(CvtRnd::F(self.rnd(u)?)),
            (CvtT::F(a), CvtT::F(b)) if a == b => {
                if u.arbitrary()? {
                    Some(CvtRnd::I(self.rnd(u)?))
                } else {
                    None
                }
            }
            _ => None,
        };
        let f32_involved = d == CvtT::F(Ft::F32) || s == CvtT::F(Ft::F32);
        let ftz = f32_involved && self.swarm.ftz && u.arbitrary()?;
        // `.sat` clamps a float result to [0, 1] and saturates an integer one; ptxas rejects
        // it on integer conversions that cannot overflow ("Illegal modifier").
        let can_sat = match (d, s) {
            (CvtT::Int(db, ds), CvtT::Int(sb, ss)) => {
                let fits = if ss {
                    ds && db >= sb
                } else {
                    db > sb || (!ds && db == sb)
                };
                !fits
            }
            _ => true,
        };
        let sat = can_sat && self.swarm.sat && u.ratio(1, 3)?;
        Ok(Op::Cvt {
            d,
            s,
            rnd,
            ftz,
            sat,
        })
    }
}

/// The operand classes of an operation.
pub struct Sig {
    /// Destination class.
    pub dst: Class,
    /// Class of a possible second destination.
    pub dst2: Option<Class>,
    /// Source classes.
    pub srcs: Vec<Class>,
    /// Sources that must be registers.
    pub no_imm: Vec<usize>,
    /// Whether the last source is a predicate that may be negated.
    pub pred_src: bool,
}

fn sig(dst: Class, srcs: &[Class]) -> Sig {
    Sig {
        dst,
        dst2: None,
        srcs: srcs.to_vec(),
        no_imm: Vec::new(),
        pred_src: false,
    }
}

/// The operand classes of `op`.
pub fn signature(op: &Op) -> Sig {
    use Class::*;
    let ic = |t: &It| Class::int(t.bits);
    match op {
        Op::Add(t) | Op::Sub(t) | Op::MulLo(t) | Op::MulHi(t) | Op::Div(t) | Op::Rem(t) => {
            let c = ic(t);
            let mut s = sig(c, &[c, c]);
            if matches!(op, Op::Div(_) | Op::Rem(_)) {
                // The guard sequence compares the divisor: keep it a register.
                s.no_imm = vec![1];
            }
            s
        }
        Op::Min(t) | Op::Max(t) => sig(ic(t), &[ic(t), ic(t)]),
        Op::AddSat(_) => sig(R, &[R, R]),
        Op::Relu { .. } => sig(R, &[R, R]),
        Op::MulWide(t) => {
            let c = ic(t);
            sig(Class::int(t.bits * 2), &[c, c])
        }
        Op::MadLo(t) | Op::MadHi(t) | Op::Sad(t) => {
            let c = ic(t);
            sig(c, &[c, c, c])
        }
        Op::MadWide(t) => {
            let c = ic(t);
            let w = Class::int(t.bits * 2);
            sig(w, &[c, c, w])
        }
        Op::MadHiSat => sig(R, &[R, R, R]),
        Op::Mul24 { .. } => sig(R, &[R, R]),
        Op::Mad24 { .. } => sig(R, &[R, R, R]),
        Op::Abs(t) | Op::Neg(t) => sig(ic(t), &[ic(t)]),
        Op::Popc(w) | Op::Clz(w) => sig(R, &[Class::int(*w)]),
        Op::Brev(w) => sig(Class::int(*w), &[Class::int(*w)]),
        Op::Bfind { t, .. } => sig(R, &[ic(t)]),
        Op::Bfe(t) => sig(ic(t), &[ic(t), R, R]),
        Op::Bfi(w) => {
            let c = Class::int(*w);
            sig(c, &[c, c, R, R])
        }
        Op::Dp4a { .. } | Op::Dp2a { .. } => sig(R, &[R, R, R]),
        Op::Prmt(_) | Op::Fns => sig(R, &[R, R, R]),
        Op::Bmsk { .. } | Op::Szext { .. } => sig(R, &[R, R]),
        Op::AddCc { t, .. } => sig(ic(t), &[ic(t), ic(t)]),
        Op::MadCc { t, .. } => sig(ic(t), &[ic(t), ic(t), ic(t)]),
        Op::And(c) | Op::Or(c) | Op::Xor(c) => sig(*c, &[*c, *c]),
        Op::Not(c) | Op::Cnot(c) => sig(*c, &[*c]),
        Op::Lop3(_) => sig(R, &[R, R, R]),
        Op::Shf { .. } => sig(R, &[R, R, R]),
        Op::Shl(c) => sig(*c, &[*c, R]),
        Op::Shr(t) => sig(ic(t), &[ic(t), R]),
        Op::Setp { t, bop, .. } => {
            let c = cmp_class(t);
            let mut s = sig(P, &[c, c]);
            s.dst2 = Some(P);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::Set { t, d, bop, .. } => {
            let c = cmp_class(t);
            let dc = if *d == SetD::F32 { F } else { R };
            let mut s = sig(dc, &[c, c]);
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::Selp(c) => sig(*c, &[*c, *c, P]),
        Op::Slct(c) => sig(*c, &[*c, *c, R]),
        Op::Fbin { ft, .. } => sig(ft.class(), &[ft.class(), ft.class()]),
        Op::Fma { ft, .. } => sig(ft.class(), &[ft.class(), ft.class(), ft.class()]),
        Op::Rcp { ft, .. } | Op::Sqrt { ft, .. } | Op::Fabs { ft, .. } | Op::Fneg { ft, .. } => {
            sig(ft.class(), &[ft.class()])
        }
        Op::Fminmax { ft, .. } | Op::Copysign(ft) => sig(ft.class(), &[ft.class(), ft.class()]),
        Op::Testp { ft, .. } => sig(P, &[ft.class()]),
        Op::Approx { kind, .. } => match kind {
            Approx::Div | Approx::DivFull => sig(F, &[F, F]),
            _ => sig(F, &[F]),
        },
        Op::Cvt { d, s, .. } => sig(d.class(), &[s.class()]),
        Op::Hbin { x2, .. } | Op::Hminmax { x2, .. } => half_sig(*x2, 2),
        Op::Hfma { x2, .. } => half_sig(*x2, 3),
        Op::Hsign { x2, .. } => half_sig(*x2, 1),
        Op::Hsetp { x2, bop, .. } => {
            let mut s = half_sig(*x2, 2);
            s.dst = P;
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::CvtToHalf { .. } => sig(H, &[F]),
        Op::CvtHalfX { peer, to_half, .. } => {
            let pc = match peer {
                HPeer::Int(b, _) => Class::int(*b),
                HPeer::F64 => Fd,
                HPeer::Half => H,
            };
            // Half operands are registers only.
            if *to_half {
                let mut s = sig(H, &[pc]);
                if *peer == HPeer::Half {
                    s.no_imm = vec![0];
                }
                s
            } else {
                let mut s = sig(pc, &[H]);
                s.no_imm = vec![0];
                s
            }
        }
        Op::Hset { x2, d, bop, .. } => {
            let mut s = half_sig(*x2, 2);
            s.dst = match d {
                HSetD::U32 | HSetD::S32 => R,
                _ if *x2 => R,
                _ => H,
            };
            if bop.is_some() {
                s.srcs.push(P);
                s.pred_src = true;
            }
            s
        }
        Op::CvtFromHalf { .. } => {
            let mut s = sig(F, &[H]);
            s.no_imm = vec![0];
            s
        }
        Op::CvtPack { .. } => sig(R, &[F, F]),
        Op::Ld { class, .. } => sig(*class, &[]),
        Op::Isspacep { .. } => sig(P, &[]),
        Op::CvtaRound { .. } => sig(D, &[D]),
        Op::Call { n, params, ret, .. } => sig(*ret, &params[..*n as usize]),
        Op::Rec { .. } => {
            let mut s = sig(R, &[R, R]);
            s.no_imm = vec![1];
            s
        }
        Op::St { class, .. } => {
            // Vector sources are consecutive registers: the first is a register.
            let mut s = sig(*class, &[*class]);
            s.no_imm = vec![0];
            s
        }
        Op::Atom { op, t, .. } => {
            let c = t.class();
            let mut s = if *op == AtomOp::Cas {
                sig(c, &[c, c])
            } else {
                sig(c, &[c])
            };
            if matches!(t, AtomT::Half(..)) {
                // ptxas takes no immediate for a half or packed-half atomic ("Arguments
                // mismatch for instruction 'atom'", GPU batch).
                s.no_imm = (0..s.srcs.len()).collect();
            }
            s
        }
        Op::Mov(c) => sig(*c, &[*c]),
        Op::Shfl { .. } => {
            let mut s = sig(R, &[R, R]);
            s.dst2 = Some(P);
            s.no_imm = vec![0];
            s
        }
        Op::Vote { mode, .. } => {
            let d = if *mode == VoteMode::Ballot { R } else { P };
            let mut s = sig(d, &[P]);
            s.pred_src = true;
            s
        }
        Op::Redux { .. } => {
            let mut s = sig(R, &[R]);
            s.no_imm = vec![0];
            s
        }
        Op::Activemask => sig(R, &[]),
        Op::PackSat(t) => {
            let mut s = if t.with_c() {
                sig(R, &[R, R, R])
            } else {
                sig(R, &[R, R])
            };
            // `c` is `.b32` while `a` and `b` are `.s32`: immediates of one signedness only.
            s.no_imm = if t.with_c() { vec![2] } else { vec![] };
            s
        }
        Op::LdIn { class, .. } => sig(*class, &[]),
        Op::Hint(_) | Op::Alloca { .. } | Op::WarpSync => sig(R, &[R]),
        Op::Match { wide, all } => {
            let mut s = sig(R, &[if *wide { D } else { R }]);
            // Only `match.all` has the `d|p` form.
            s.dst2 = all.then_some(P);
            s.no_imm = vec![0];
            s
        }
    }
}

/// Half-precision operands are registers only (the ISA takes no immediates of the `.f16`,
/// `.bf16` or packed types).
fn half_sig(x2: bool, n: usize) -> Sig {
    let c = if x2 { Class::R } else { Class::H };
    let mut s = sig(c, &vec![c; n]);
    s.no_imm = (0..n).collect();
    s
}

fn cmp_class(t: &CmpT) -> Class {
    match t {
        CmpT::Int(it) => Class::int(it.bits),
        CmpT::Bits(b) => Class::int(*b),
        CmpT::F(f) => f.class(),
    }
}

/// Whether `op` makes a generic address from the memory prologue's registers (`isspacep`,
/// `cvta`), so that the kernel needs the prologue.
pub fn is_generic(op: &Op) -> bool {
    matches!(op, Op::Isspacep { .. } | Op::CvtaRound { .. })
}

/// Whether `op` uses the module's `.const` array.
pub fn uses_const(op: &Op) -> bool {
    matches!(
        op,
        Op::CvtaRound { space: Win::Const }
            | Op::Isspacep {
                ptr: Win::Const,
                ..
            }
    )
}

/// Whether `op` uses the module's `.global` array `dsc` (the target of `discard`).
pub fn uses_discard(op: &Op) -> bool {
    matches!(op, Op::Hint(HintOp::Discard))
}

/// Whether `op` is a `setmaxnreg` (the kernel is then for `sm_90a`, with 128 threads).
pub fn is_setmaxnreg(op: &Op) -> bool {
    matches!(op, Op::Hint(HintOp::Setmaxnreg { .. }))
}

/// Whether `op` uses the kernel's `.local` array.
pub fn uses_local(op: &Op) -> bool {
    matches!(
        op,
        Op::Isspacep {
            ptr: Win::Local,
            ..
        } | Op::CvtaRound { space: Win::Local }
    )
}

impl Program {
    /// Every register the body reads or writes, or the epilogue stores.
    pub fn used(&self) -> Vec<Reg> {
        fn walk(ns: &[Node], out: &mut Vec<Reg>) {
            for n in ns {
                match n {
                    Node::Inst(i) => {
                        out.push(i.dst);
                        out.extend(i.dst2);
                        if let Some((p, _)) = i.guard {
                            out.push(Reg {
                                class: Class::P,
                                idx: p,
                            });
                        }
                        for s in &i.srcs {
                            if let Src::Reg(r) = s {
                                out.push(*r);
                            }
                        }
                    }
                    Node::If { cond, then, els } => {
                        if let Cond::Pred(p, _) = cond {
                            out.push(Reg {
                                class: Class::P,
                                idx: *p,
                            });
                        }
                        walk(then, out);
                        walk(els, out);
                    }
                    Node::Loop { trips, body } => {
                        if let Trips::Reg(r, _) = trips {
                            out.push(Reg {
                                class: Class::R,
                                idx: *r,
                            });
                        }
                        walk(body, out);
                    }
                    Node::Switch { sel, arms } => {
                        if let Sel::Reg(r) = sel {
                            out.push(Reg {
                                class: Class::R,
                                idx: *r,
                            });
                        }
                        for a in arms {
                            walk(a, out);
                        }
                    }
                    Node::Barrier(b) => {
                        if let Some((d, p)) = b.regs() {
                            out.push(d);
                            out.push(p);
                        }
                    }
                }
            }
        }
        let mut out = self.outputs.clone();
        walk(&self.body, &mut out);
        if let Some(Cond::Pred(p, _)) = self.exit {
            out.push(Reg {
                class: Class::P,
                idx: p,
            });
        }

        if self.uses_mem() {
            // The prologue fills the shared slots and cells from these.
            out.extend((0..5).map(|idx| Reg {
                class: Class::D,
                idx,
            }));
        }
        for i in self.insts() {
            if let Op::St { vec, class, .. } | Op::Ld { vec, class, .. } = i.op {
                let first = match (i.op, i.srcs.first()) {
                    (Op::St { .. }, Some(Src::Reg(r))) => r.idx,
                    _ => i.dst.idx,
                };
                out.extend((0..vec).map(|k| Reg {
                    class,
                    idx: (first + k) % class.count(),
                }));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Every instruction (recursively, in program order).
    pub fn insts(&self) -> Vec<&Inst> {
        fn walk<'a>(ns: &'a [Node], out: &mut Vec<&'a Inst>) {
            for n in ns {
                match n {
                    Node::Inst(i) => out.push(i),
                    Node::If { then, els, .. } => {
                        walk(then, out);
                        walk(els, out);
                    }
                    Node::Loop { body, .. } => walk(body, out),
                    Node::Switch { arms, .. } => {
                        for a in arms {
                            walk(a, out);
                        }
                    }
                    Node::Barrier(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// Whether the body has a barrier (at the top level or in a loop there).
    pub fn has_barrier(&self) -> bool {
        fn walk(ns: &[Node]) -> bool {
            ns.iter().any(|n| match n {
                Node::Barrier(_) => true,
                Node::Loop { body, .. } => walk(body),
                _ => false,
            })
        }
        walk(&self.body)
    }

    /// Whether the kernel uses shared or global scratch memory (then its prologue fills the
    /// shared slots and cells, and the output buffer has a scratch area after the records).
    pub fn uses_mem(&self) -> bool {
        self.has_barrier()
            || self
                .insts()
                .iter()
                .any(|i| super::eval::is_mem(&i.op) || is_generic(&i.op))
    }

    /// Bytes of the output buffer: the records, then (when [`Program::uses_mem`]) an 8-byte
    /// global scratch word per thread and four 8-byte global cells.
    pub fn out_len(&self) -> u32 {
        let (_, rec) = self.record_layout();
        let threads = self.block * self.grid;
        rec * threads + if self.uses_mem() { 8 * threads + 32 } else { 0 }
    }

    /// Number of instructions (recursively).
    pub fn instruction_count(&self) -> usize {
        fn count(ns: &[Node]) -> usize {
            ns.iter()
                .map(|n| match n {
                    Node::Inst(_) => 1,
                    Node::If { then, els, .. } => count(then) + count(els),
                    Node::Loop { body, .. } => count(body),
                    Node::Switch { arms, .. } => arms.iter().map(|a| count(a)).sum(),
                    Node::Barrier(_) => 0,
                })
                .sum()
        }
        count(&self.body)
    }

    /// Bytes of output per thread, with each register at its natural alignment.
    pub fn record_layout(&self) -> (Vec<u32>, u32) {
        let mut offs = Vec::with_capacity(self.outputs.len());
        let mut at = 0u32;
        for r in &self.outputs {
            let size = match r.class {
                Class::P => 1,
                c => c.bits() / 8,
            };
            at = at.div_ceil(size) * size;
            offs.push(at);
            at += size;
        }
        (offs, at.div_ceil(8) * 8)
    }
}
