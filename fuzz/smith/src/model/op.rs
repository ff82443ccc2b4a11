//! [`Operation`]: the semantic operation of a generated instruction, with its qualifiers. The
//! lowering ([`crate::lower`]) spells it as PTX; the reference semantics (`ptx-ir-refsem`)
//! evaluates it.

use super::reg::Class;
use super::types::*;
use ptx_ir_core::{Flag, Op, Rounding, Scope, Sem, Type};

/// The semantic operation of a generated instruction, with its modifiers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Operation {
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
    Prmt(Option<Flag>),
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
        bop: Option<Op>,
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
        d: Type,
        /// Boolean combination.
        bop: Option<Op>,
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
        ft: Type,
        /// Rounding (required for `div`).
        rnd: Option<Rounding>,
        /// `.ftz` (f32)
        ftz: bool,
        /// `.sat` (f32)
        sat: bool,
    },
    /// `fma.RND` / `mad.RND`
    Fma {
        /// The format.
        ft: Type,
        /// Rounding.
        rnd: Rounding,
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
        ft: Type,
        /// Rounding.
        rnd: Rounding,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `sqrt.RND`
    Sqrt {
        /// The format.
        ft: Type,
        /// Rounding.
        rnd: Rounding,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `abs{.ftz}`
    Fabs {
        /// The format.
        ft: Type,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `neg{.ftz}`
    Fneg {
        /// The format.
        ft: Type,
        /// `.ftz` (f32)
        ftz: bool,
    },
    /// `min`/`max` on floats
    Fminmax {
        /// The format.
        ft: Type,
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
    Copysign(Type),
    /// `testp.CLASS.T`
    Testp {
        /// The format.
        ft: Type,
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
        hf: Type,
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
        hf: Type,
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
        hf: Type,
        /// Packed pair.
        x2: bool,
        /// `.ftz` (f16)
        ftz: bool,
    },
    /// `min`/`max{.ftz}{.NaN}{.xorsign.abs}` on halves
    Hminmax {
        /// The format.
        hf: Type,
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
        hf: Type,
        /// Packed pair.
        x2: bool,
        /// `.ftz` (f16)
        ftz: bool,
        /// Boolean combination with a predicate operand.
        bop: Option<Op>,
    },
    /// `cvt.RND{.ftz}{.sat}.(f16|bf16).f32` or `cvt.(rn|rz){.relu}{.satfinite}.(f16|bf16).f32`
    CvtToHalf {
        /// The format.
        hf: Type,
        /// Rounding (`.rn`/`.rz` with `.relu`/`.satfinite`).
        rnd: Rounding,
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
        hf: Type,
        /// The other type.
        peer: HPeer,
        /// Converts to the half (rather than from it).
        to_half: bool,
        /// Rounding (required except when widening to f64).
        rnd: Option<Rounding>,
        /// `.sat`
        sat: bool,
    },
    /// `set.CMP{.BOP}{.ftz}.D.(f16|bf16){x2} d, a, b{, {!}c}`: 1.0 of the half format, or all
    /// ones (per half for pairs), where the comparison holds.
    Hset {
        /// The comparison (a float one).
        cmp: ptx_ir_core::Cmp,
        /// The format.
        hf: Type,
        /// Packed pair.
        x2: bool,
        /// Destination type.
        d: HSetD,
        /// `.ftz` (f16)
        ftz: bool,
        /// Boolean combination with a predicate operand.
        bop: Option<Op>,
    },
    /// `cvt{.ftz}.f32.(f16|bf16)`
    CvtFromHalf {
        /// The format.
        hf: Type,
        /// `.ftz`
        ftz: bool,
    },
    /// `cvt.(rn|rz){.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b` (`a` to the upper half)
    CvtPack {
        /// The format.
        hf: Type,
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
        /// Index into [`crate::model::Program::funcs`].
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
        op: Op,
        /// The type.
        t: AtomT,
        /// The address.
        target: AtomTarget,
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
        rnd: Option<Rounding>,
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
        mode: Flag,
        /// The `c` operand (clamp and segment mask).
        c: u32,
    },
    /// `vote.sync.MODE d, {!}a, membermask` (the negation is [`crate::model::Inst::neg_pred`])
    Vote {
        /// Mode.
        mode: Flag,
    },
    /// `redux.sync.OP.T d, a, membermask`
    Redux {
        /// Operation.
        op: Op,
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
    PackSat(Type),
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
