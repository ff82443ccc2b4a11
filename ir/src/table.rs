//! The instruction table: one line per PTX instruction, from which the [`Opcode`] enum, the
//! mnemonic lookup of the reader, the printer's spelling, the grammar checks, the bytecode tags,
//! the fuzzers' generators and the interpreter's dispatch are all derived.
//!
//! Each line is `Variant = number, "mnemonic", Family, ptx(major, minor), targets, [forms]`: the
//! stable number the bytecode writes ([`Opcode::code`]; a new line takes the next free one, so
//! no existing encoding changes), the PTX ISA version that introduced it and the targets that
//! run it (the ISA's "PTX ISA Notes" and "Target ISA Notes"; [`crate::avail`] adds the rules of
//! modifiers and forms), and its forms in the notation of [`crate::form`].
//!
//! Adding an instruction is one line here plus its semantics in the interpreter; every `match`
//! over [`Opcode`] that misses it then fails to compile.

use crate::form::Form;
use crate::smreq::*;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Instruction families, following the chapters of the PTX ISA.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Integer arithmetic.
    Int,
    /// Extended-precision integer arithmetic (carry chains).
    ExtInt,
    /// Floating-point arithmetic (single, double, half and packed forms).
    Float,
    /// Comparison and selection.
    Compare,
    /// Logic and shift.
    Logic,
    /// Data movement and conversion.
    Data,
    /// Asynchronous copies (`cp.async*`, bulk and tensor copies).
    AsyncCopy,
    /// Texture instructions.
    Texture,
    /// Surface instructions.
    Surface,
    /// Control flow.
    Control,
    /// Parallel synchronization and communication.
    Sync,
    /// Warp-level matrix multiply-accumulate.
    WarpMma,
    /// Warpgroup matrix multiply-accumulate (`wgmma`).
    Wgmma,
    /// Fifth-generation tensor core (`tcgen05`).
    Tcgen05,
    /// Stack manipulation.
    Stack,
    /// Video instructions.
    Video,
    /// Miscellaneous.
    Misc,
}

impl Family {
    /// Every family.
    pub const ALL: &'static [Family] = &[
        Family::Int,
        Family::ExtInt,
        Family::Float,
        Family::Compare,
        Family::Logic,
        Family::Data,
        Family::AsyncCopy,
        Family::Texture,
        Family::Surface,
        Family::Control,
        Family::Sync,
        Family::WarpMma,
        Family::Wgmma,
        Family::Tcgen05,
        Family::Stack,
        Family::Video,
        Family::Misc,
    ];

    /// A human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Int => "integer arithmetic",
            Family::ExtInt => "extended-precision integer",
            Family::Float => "floating point (incl. half, bf16, packed, mixed)",
            Family::Compare => "comparison and selection",
            Family::Logic => "logic and shift",
            Family::Data => "data movement and conversion",
            Family::AsyncCopy => "asynchronous copy",
            Family::Texture => "texture",
            Family::Surface => "surface",
            Family::Control => "control flow",
            Family::Sync => "synchronization and communication",
            Family::WarpMma => "warp-level MMA",
            Family::Wgmma => "warpgroup MMA",
            Family::Tcgen05 => "tcgen05 (5th-generation tensor core)",
            Family::Stack => "stack manipulation",
            Family::Video => "video",
            Family::Misc => "miscellaneous",
        }
    }
}

macro_rules! instructions {
    ( $( $(#[$m:meta])* $var:ident = $code:literal, $name:literal, $fam:ident,
         ptx($major:literal, $minor:literal), $sm:expr,
         [ $( $form:literal ),* $(,)? ]; )* ) => {
        /// A PTX instruction, as named in the ISA (`add`, `cp.async.bulk.tensor`, ...).
        ///
        /// Serialized as its stable number ([`Opcode::code`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(into = "u16", try_from = "u16")]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        #[repr(u16)]
        pub enum Opcode {
            $( $(#[$m])* #[doc = concat!("`", $name, "`")] $var, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$var),*];

            /// The mnemonic, with its dots (`cp.async.bulk.tensor`).
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$var => $name,)* }
            }

            /// The instruction family.
            pub const fn family(self) -> Family {
                match self { $(Opcode::$var => Family::$fam,)* }
            }

            /// The stable number of the opcode: written by the bytecode, never reused or
            /// changed. A new instruction takes the next free number, wherever its line goes.
            pub const fn code(self) -> u16 {
                match self { $(Opcode::$var => $code,)* }
            }

            /// The opcode numbered `code` ([`Opcode::code`]).
            // Two lines with one number would make an arm unreachable: a compile error here.
            #[deny(unreachable_patterns)]
            pub const fn from_code(code: u16) -> Option<Opcode> {
                match code {
                    $($code => Some(Opcode::$var),)*
                    _ => None,
                }
            }

            /// The PTX ISA version that introduced the instruction (major, minor).
            pub const fn introduced(self) -> (u8, u8) {
                match self { $(Opcode::$var => ($major, $minor),)* }
            }

            /// The targets that support the instruction in its base form (modifiers and forms
            /// may need more: [`crate::avail::RULES`]).
            pub const fn targets(self) -> SmReq {
                match self { $(Opcode::$var => $sm,)* }
            }

            /// The forms as written in the table.
            pub const fn form_texts(self) -> &'static [&'static str] {
                match self { $(Opcode::$var => &[$($form),*],)* }
            }
        }
    };
}

impl From<Opcode> for u16 {
    fn from(op: Opcode) -> u16 {
        op.code()
    }
}

impl TryFrom<u16> for Opcode {
    type Error = UnknownOpcode;
    fn try_from(code: u16) -> Result<Opcode, UnknownOpcode> {
        Opcode::from_code(code).ok_or(UnknownOpcode(code))
    }
}

/// A number that is no opcode's stable number ([`Opcode::code`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UnknownOpcode(pub u16);

impl std::fmt::Display for UnknownOpcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "opcode number {} is not in the table", self.0)
    }
}

impl std::error::Error for UnknownOpcode {}

/// Named qualifier sets referenced from forms as `$name`.
pub const SETS: &[(&str, &str)] = &[
    ("rnd", "rn rz rm rp"),
    ("irnd", "rni rzi rmi rpi"),
    ("int", "u16 u32 u64 s16 s32 s64"),
    ("i32", "u32 s32"),
    ("i3264", "u32 s32 u64 s64"),
    ("uint", "u16 u32 u64"),
    ("sint", "s16 s32 s64"),
    ("bits", "b16 b32 b64"),
    ("b3264", "b32 b64"),
    ("logic", "pred b16 b32 b64"),
    (
        "cmp",
        "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan",
    ),
    ("fcmp", "eq ne lt le gt ge equ neu ltu leu gtu geu num nan"),
    ("boolop", "and or xor"),
    ("scalar", "b16 b32 b64 u16 u32 u64 s16 s32 s64 f32 f64"),
    (
        "movtype",
        "pred b16 b32 b64 b128 u16 u32 u64 s16 s32 s64 f32 f64",
    ),
    (
        "ldtype",
        "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64",
    ),
    (
        "ldspace",
        "const global local param param::entry param::func shared shared::cta shared::cluster",
    ),
    (
        "stspace",
        "global local param param::func shared shared::cta shared::cluster",
    ),
    ("ldcop", "ca cg cs lu cv"),
    ("stcop", "wb cg cs wt"),
    (
        "l1evict",
        "L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate",
    ),
    ("l2evict", "L2::evict_normal L2::evict_first L2::evict_last"),
    ("prefetchsz", "L2::64B L2::128B L2::256B"),
    ("scope", "cta cluster gpu sys"),
    ("vec", "v2 v4 v8"),
    ("v24", "v2 v4"),
    ("f16t", "f16 f16x2"),
    ("bf16t", "bf16 bf16x2"),
    ("half", "f16 f16x2 bf16 bf16x2"),
    ("atomspace", "global shared shared::cta shared::cluster"),
    ("sharedspace", "shared shared::cta"),
    ("atomsem", "relaxed acquire release acq_rel"),
    ("redsem", "relaxed release"),
    ("atomop", "and or xor cas exch add inc dec min max"),
    ("redop", "and or xor add inc dec min max"),
    ("atomtype", "b32 b64 u32 u64 s32 s64 f32 f64"),
    ("cvttype", "u8 u16 u32 u64 s8 s16 s32 s64 bf16 f16 f32 f64"),
    (
        "cvtspace",
        "const global local shared shared::cta shared::cluster param param::entry",
    ),
    ("addrsize", "u32 u64"),
    ("f8x2", "e4m3x2 e5m2x2"),
    ("f6x2", "e2m3x2 e3m2x2"),
    ("f8x4", "e4m3x4 e5m2x4"),
    ("f6x4", "e2m3x4 e3m2x4"),
    ("prmtmode", "f4e b4e rc8 ecl ecr rc16"),
    ("shflmode", "up down bfly idx"),
    ("votemode", "all any uni"),
    ("dim", "1d 2d 3d 4d 5d"),
    (
        "loadmode",
        "tile tile::gather4 im2col im2col::w im2col::w::128",
    ),
    ("storemode", "tile tile::scatter4 im2col_no_offs"),
    ("ctagroup", "cta_group::1 cta_group::2"),
    ("num", "x1 x2 x4"),
    ("tmemnum", "x1 x2 x4 x8 x16 x32 x64 x128"),
    ("tmemshape", "16x64b 16x128b 16x256b 32x32b"),
    ("cpshape", "128x256b 4x256b 128x128b 64x128b 32x128b"),
    ("geom", "1d 2d 3d a1d a2d cube acube 2dms a2dms"),
    ("sugeom", "1d 2d 3d a1d a2d"),
    ("sumode", "trap clamp zero"),
    ("mma16", "m8n8k4 m16n8k8 m16n8k16"),
    ("wmmashape", "m16n16k16 m8n32k16 m32n8k16"),
    (
        "collector",
        "collector::a::fill collector::a::use collector::a::lastuse collector::a::discard",
    ),
    (
        "wscollector",
        "collector::b0::fill collector::b0::use collector::b0::lastuse collector::b0::discard \
         collector::b1::fill collector::b1::use collector::b1::lastuse collector::b1::discard \
         collector::b2::fill collector::b2::use collector::b2::lastuse collector::b2::discard \
         collector::b3::fill collector::b3::use collector::b3::lastuse collector::b3::discard",
    ),
    ("vtype", "u32 s32"),
    ("vsel", "b0 b1 b2 b3 h0 h1"),
    ("vop2", "add min max"),
    ("fenceproxy", "alias async"),
    ("f8f6f4", "e4m3 e5m2 e3m2 e2m3 e2m1"),
    ("wmmass", "global shared shared::cta"),
    ("tckind", "kind::f16 kind::tf32 kind::f8f6f4"),
    ("tcmxkind", "kind::mxf8f6f4 kind::mxf4 kind::mxf4nvf4"),
    (
        "scalevec",
        "scale_vec::1X scale_vec::2X scale_vec::4X block16 block32",
    ),
];

/// Shapes of `wgmma.mma_async`, per K (generated: N from 8 to 256 in steps of 8). With `int`,
/// the N list of the integer and single-bit variants: 8, 16, 24, then 32 to 256 in steps of 16.
fn wgmma_shapes(k: u32, int: bool) -> &'static str {
    static CACHE: OnceLock<Vec<(u32, bool, &'static str)>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        let mut out = Vec::new();
        for &k in &[8u32, 16, 32, 64, 256] {
            for int in [false, true] {
                let s: Vec<String> = (8..=256)
                    .step_by(8)
                    .filter(|n| !int || *n <= 32 || n % 16 == 0)
                    .map(|n| format!("m64n{n}k{k}"))
                    .collect();
                out.push((k, int, &*Box::leak(s.join(" ").into_boxed_str())));
            }
        }
        out
    });
    all.iter()
        .find(|(kk, ii, _)| *kk == k && *ii == int)
        .map(|(_, _, s)| *s)
        .unwrap_or("")
}

/// Resolves a `$name` set reference.
pub(crate) fn set(name: &str) -> Option<&'static str> {
    match name {
        "wgmma_k8" => Some(wgmma_shapes(8, false)),
        "wgmma_k16" => Some(wgmma_shapes(16, false)),
        "wgmma_k32" => Some(wgmma_shapes(32, false)),
        "wgmma_k64" => Some(wgmma_shapes(64, false)),
        "wgmma_k32i" => Some(wgmma_shapes(32, true)),
        "wgmma_k64i" => Some(wgmma_shapes(64, true)),
        "wgmma_k256i" => Some(wgmma_shapes(256, true)),
        _ => SETS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s),
    }
}

/// The instruction table, as a callback macro: `for_each_instruction!(m)` expands to
/// `m! { line; line; ... }`, so every piece of code written per instruction (the [`Opcode`]
/// enum and its methods here, the builder's methods in [`crate::build`]) is generated from the
/// same lines.
macro_rules! for_each_instruction {
    ($callback:ident) => {
        $callback! {
            // ---------------------------------------------------------------- integer arithmetic
            Add = 0, "add", Int, ptx(1, 0), ANY, [
                ".$int d, s, s",
                ".(u16x2|s16x2) d, s, s",
                "{.sat}.s32 d, s, s",
                ".cc.(u32|s32|u64|s64) d, s, s",
                "{.$rnd}{.ftz}{.sat}.f32 d, s, s",
                "{.$rnd}{.ftz}.f32x2 d, s, s",
                "{.$rnd}.f64 d, s, s",
                "{.rn}{.ftz}{.sat}.$f16t d, s, s",
                "{.rn}.$bf16t d, s, s",
                "{.$rnd}{.sat}.f32.(f16|bf16) d, s, s",
            ];
            Sub = 1, "sub", Int, ptx(1, 0), ANY, [
                ".$int d, s, s",
                "{.sat}.s32 d, s, s",
                ".cc.(u32|s32|u64|s64) d, s, s",
                "{.$rnd}{.ftz}{.sat}.f32 d, s, s",
                "{.$rnd}{.ftz}.f32x2 d, s, s",
                "{.$rnd}.f64 d, s, s",
                "{.rn}{.ftz}{.sat}.$f16t d, s, s",
                "{.rn}.$bf16t d, s, s",
                "{.$rnd}{.sat}.f32.(f16|bf16) d, s, s",
            ];
            Mul = 2, "mul", Int, ptx(1, 0), ANY, [
                ".(hi|lo).$int d, s, s",
                ".wide.(u16|u32|s16|s32) d, s, s",
                "{.$rnd}{.ftz}{.sat}.f32 d, s, s",
                "{.$rnd}{.ftz}.f32x2 d, s, s",
                "{.$rnd}.f64 d, s, s",
                "{.rn}{.ftz}{.sat}.$f16t d, s, s",
                "{.rn}.$bf16t d, s, s",
            ];
            Mad = 3, "mad", Int, ptx(1, 0), ANY, [
                ".(hi|lo).$int d, s, s, s",
                ".wide.(u16|u32|s16|s32) d, s, s, s",
                ".hi.sat.s32 d, s, s, s",
                ".(hi|lo).cc.(u32|s32|u64|s64) d, s, s, s",
                "{.ftz}{.sat}.f32 d, s, s, s",
                ".$rnd{.ftz}{.sat}.f32 d, s, s, s",
                ".$rnd.f64 d, s, s, s",
            ];
            Mul24 = 4, "mul24", Int, ptx(1, 0), ANY, [".(hi|lo).$i32 d, s, s"];
            Mad24 = 5, "mad24", Int, ptx(1, 0), ANY, [".(hi|lo).$i32 d, s, s, s", ".hi.sat.s32 d, s, s, s"];
            Sad = 6, "sad", Int, ptx(1, 0), ANY, [".$int d, s, s, s"];
            Div = 7, "div", Int, ptx(1, 0), ANY, [
                ".$int d, s, s",
                ".approx{.ftz}.f32 d, s, s",
                ".full{.ftz}.f32 d, s, s",
                ".$rnd{.ftz}.f32 d, s, s",
                ".$rnd.f64 d, s, s",
            ];
            Rem = 8, "rem", Int, ptx(1, 0), ANY, [".$int d, s, s"];
            Abs = 9, "abs", Int, ptx(1, 0), ANY, [
                ".$sint d, s",
                "{.ftz}.f32 d, s",
                ".f64 d, s",
                "{.ftz}.$f16t d, s",
                ".$bf16t d, s",
            ];
            Neg = 10, "neg", Int, ptx(1, 0), ANY, [
                ".$sint d, s",
                "{.ftz}.f32 d, s",
                ".f64 d, s",
                "{.ftz}.$f16t d, s",
                ".$bf16t d, s",
            ];
            Min = 11, "min", Int, ptx(1, 0), ANY, [
                ".(u16|u32|u64|u16x2|s16|s64) d, s, s",
                "{.relu}.(s16x2|s32) d, s, s",
                "{.ftz}{.NaN}.f32 d, s, s",
                "{.ftz}{.NaN}.xorsign.abs.f32 d, s, s",
                "{.ftz}{.NaN}{.abs}.f32 d, s, s, s",
                ".f64 d, s, s",
                "{.ftz}{.NaN}.$f16t d, s, s",
                "{.ftz}{.NaN}.xorsign.abs.$f16t d, s, s",
                "{.NaN}.$bf16t d, s, s",
                "{.NaN}.xorsign.abs.$bf16t d, s, s",
            ];
            Max = 12, "max", Int, ptx(1, 0), ANY, [
                ".(u16|u32|u64|u16x2|s16|s64) d, s, s",
                "{.relu}.(s16x2|s32) d, s, s",
                "{.ftz}{.NaN}.f32 d, s, s",
                "{.ftz}{.NaN}.xorsign.abs.f32 d, s, s",
                "{.ftz}{.NaN}{.abs}.f32 d, s, s, s",
                ".f64 d, s, s",
                "{.ftz}{.NaN}.$f16t d, s, s",
                "{.ftz}{.NaN}.xorsign.abs.$f16t d, s, s",
                "{.NaN}.$bf16t d, s, s",
                "{.NaN}.xorsign.abs.$bf16t d, s, s",
            ];
            Popc = 13, "popc", Int, ptx(2, 0), min(20), [".$b3264 d, s"];
            Clz = 14, "clz", Int, ptx(2, 0), min(20), [".$b3264 d, s"];
            Bfind = 15, "bfind", Int, ptx(2, 0), min(20), ["{.shiftamt}.$i3264 d, s"];
            Fns = 16, "fns", Int, ptx(6, 0), min(30), [".b32 d, s, s, s"];
            Brev = 17, "brev", Int, ptx(2, 0), min(20), [".$b3264 d, s"];
            Bfe = 18, "bfe", Int, ptx(2, 0), min(20), [".$i3264 d, s, s, s"];
            Bfi = 19, "bfi", Int, ptx(2, 0), min(20), [".$b3264 d, s, s, s, s"];
            Szext = 20, "szext", Int, ptx(7, 6), min(70), [".(clamp|wrap).$i32 d, s, s"];
            Bmsk = 21, "bmsk", Int, ptx(7, 6), min(70), [".(clamp|wrap).b32 d, s, s"];
            Dp4a = 22, "dp4a", Int, ptx(5, 0), min(61), [".$i32.$i32 d, s, s, s"];
            Dp2a = 23, "dp2a", Int, ptx(5, 0), min(61), [".(lo|hi).$i32.$i32 d, s, s, s"];

            // ---------------------------------------------------------------- extended precision
            Addc = 24, "addc", ExtInt, ptx(1, 2), ANY, ["{.cc}.(u32|s32|u64|s64) d, s, s"];
            Subc = 25, "subc", ExtInt, ptx(1, 2), ANY, ["{.cc}.(u32|s32|u64|s64) d, s, s"];
            Madc = 26, "madc", ExtInt, ptx(3, 0), min(20), [".(hi|lo){.cc}.(u32|s32|u64|s64) d, s, s, s"];

            // ---------------------------------------------------------------- floating point
            Testp = 27, "testp", Float, ptx(2, 0), min(20), [".(finite|infinite|number|notanumber|normal|subnormal).(f32|f64) d, s"];
            Copysign = 28, "copysign", Float, ptx(2, 0), min(20), [".(f32|f64) d, s, s"];
            Fma = 29, "fma", Float, ptx(1, 4), ANY, [
                ".$rnd{.ftz}{.sat}.f32 d, s, s, s",
                ".$rnd{.ftz}.f32x2 d, s, s, s",
                ".$rnd.f64 d, s, s, s",
                ".rn{.ftz}{.sat}.$f16t d, s, s, s",
                ".rn{.ftz}.relu.$f16t d, s, s, s",
                ".rn{.relu}.$bf16t d, s, s, s",
                ".rn.oob{.relu}.(f16|f16x2|bf16|bf16x2) d, s, s, s",
                ".$rnd{.sat}.f32.(f16|bf16) d, s, s, s",
            ];
            Rcp = 30, "rcp", Float, ptx(1, 0), ANY, [
                ".approx{.ftz}.f32 d, s",
                ".$rnd{.ftz}.f32 d, s",
                ".$rnd.f64 d, s",
                ".approx.ftz.f64 d, s",
            ];
            Sqrt = 31, "sqrt", Float, ptx(1, 0), ANY, [".approx{.ftz}.f32 d, s", ".$rnd{.ftz}.f32 d, s", ".$rnd.f64 d, s"];
            Rsqrt = 32, "rsqrt", Float, ptx(1, 0), ANY, [".approx{.ftz}.f32 d, s", ".approx{.ftz}.f64 d, s"];
            Sin = 33, "sin", Float, ptx(1, 0), ANY, [".approx{.ftz}.f32 d, s"];
            Cos = 34, "cos", Float, ptx(1, 0), ANY, [".approx{.ftz}.f32 d, s"];
            Lg2 = 35, "lg2", Float, ptx(1, 0), ANY, [".approx{.ftz}.f32 d, s"];
            Ex2 = 36, "ex2", Float, ptx(1, 0), ANY, [
                ".approx{.ftz}.f32 d, s",
                ".approx.ftz.(bf16|bf16x2) d, s",
                ".approx.(f16|f16x2) d, s",
            ];
            Tanh = 37, "tanh", Float, ptx(7, 0), min(75), [".approx.(f32|f16|f16x2|bf16|bf16x2) d, s"];

            // ---------------------------------------------------------------- comparison and selection
            Set = 38, "set", Compare, ptx(1, 0), ANY, [
                ".(eq|ne).(u32|s32|f32).(b16|b32|b64) d, s, s",
                ".(eq|ne).$boolop.(u32|s32|f32).(b16|b32|b64) d, s, s, p",
                ".(eq|ne|lt|le|gt|ge).(u32|s32|f32).(s16|s32|s64) d, s, s",
                ".(eq|ne|lt|le|gt|ge).$boolop.(u32|s32|f32).(s16|s32|s64) d, s, s, p",
                ".(eq|ne|lt|le|gt|ge|lo|ls|hi|hs).(u32|s32|f32).(u16|u32|u64) d, s, s",
                ".(eq|ne|lt|le|gt|ge|lo|ls|hi|hs).$boolop.(u32|s32|f32).(u16|u32|u64) d, s, s, p",
                ".$fcmp{.ftz}.(u32|s32|f32).f32 d, s, s",
                ".$fcmp.$boolop{.ftz}.(u32|s32|f32).f32 d, s, s, p",
                ".$fcmp.(u32|s32|f32).f64 d, s, s",
                ".$fcmp.$boolop.(u32|s32|f32).f64 d, s, s, p",
                ".$fcmp{.ftz}.f16.($scalar|f16) d, s, s",
                ".$fcmp.$boolop{.ftz}.f16.($scalar|f16) d, s, s, p",
                ".$fcmp.bf16.($scalar|f16) d, s, s",
                ".$fcmp.$boolop.bf16.($scalar|f16) d, s, s, p",
                ".$fcmp{.ftz}.(u16|s16|u32|s32).f16 d, s, s",
                ".$fcmp.$boolop{.ftz}.(u16|s16|u32|s32).f16 d, s, s, p",
                ".$fcmp.(u16|s16|u32|s32).bf16 d, s, s",
                ".$fcmp.$boolop.(u16|s16|u32|s32).bf16 d, s, s, p",
                ".$fcmp{.ftz}.(f16x2|u32|s32).f16x2 d, s, s",
                ".$fcmp.$boolop{.ftz}.(f16x2|u32|s32).f16x2 d, s, s, p",
                ".$fcmp.(bf16x2|u32|s32).bf16x2 d, s, s",
                ".$fcmp.$boolop.(bf16x2|u32|s32).bf16x2 d, s, s, p",
            ];
            Setp = 39, "setp", Compare, ptx(1, 0), ANY, [
                ".(eq|ne).(b16|b32|b64) d, s, s",
                ".(eq|ne).$boolop.(b16|b32|b64) d, s, s, p",
                ".(eq|ne|lt|le|gt|ge).(s16|s32|s64) d, s, s",
                ".(eq|ne|lt|le|gt|ge).$boolop.(s16|s32|s64) d, s, s, p",
                ".(eq|ne|lt|le|gt|ge|lo|ls|hi|hs).(u16|u32|u64) d, s, s",
                ".(eq|ne|lt|le|gt|ge|lo|ls|hi|hs).$boolop.(u16|u32|u64) d, s, s, p",
                ".$fcmp{.ftz}.f32 d, s, s",
                ".$fcmp.$boolop{.ftz}.f32 d, s, s, p",
                ".$fcmp.f64 d, s, s",
                ".$fcmp.$boolop.f64 d, s, s, p",
                ".$fcmp{.ftz}.(f16|f16x2) d, s, s",
                ".$fcmp.$boolop{.ftz}.(f16|f16x2) d, s, s, p",
                ".$fcmp.(bf16|bf16x2) d, s, s",
                ".$fcmp.$boolop.(bf16|bf16x2) d, s, s, p",
            ];
            Selp = 40, "selp", Compare, ptx(1, 0), ANY, [".$scalar d, s, s, p"];
            Slct = 41, "slct", Compare, ptx(1, 0), ANY, [".$scalar.s32 d, s, s, s", "{.ftz}.$scalar.f32 d, s, s, s"];

            // ---------------------------------------------------------------- logic and shift
            And = 42, "and", Logic, ptx(1, 0), ANY, [".$logic d, s, s"];
            Or = 43, "or", Logic, ptx(1, 0), ANY, [".$logic d, s, s"];
            Xor = 44, "xor", Logic, ptx(1, 0), ANY, [".$logic d, s, s"];
            Not = 45, "not", Logic, ptx(1, 0), ANY, [".$logic d, s"];
            Cnot = 46, "cnot", Logic, ptx(1, 0), ANY, [".$bits d, s"];
            Lop3 = 47, "lop3", Logic, ptx(4, 3), min(50), [".b32 d, s, s, s, i", ".(and|or).b32 d, s, s, s, i, p"];
            Shf = 48, "shf", Logic, ptx(3, 1), min(32), [".(l|r).(clamp|wrap).b32 d, s, s, s"];
            Shl = 49, "shl", Logic, ptx(1, 0), ANY, [".$bits d, s, s"];
            Shr = 50, "shr", Logic, ptx(1, 0), ANY, [".($bits|$int) d, s, s"];

            // ---------------------------------------------------------------- data movement
            Mov = 51, "mov", Data, ptx(1, 0), ANY, [".$movtype d, s"];
            Shfl = 52, "shfl", Data, ptx(3, 0), min(30), [
                ".sync.$shflmode.b32 d, s, s, s, s",
                ".$shflmode.b32 d, s, s, s",
            ];
            Prmt = 53, "prmt", Data, ptx(2, 0), min(20), [".b32{.$prmtmode} d, s, s, s"];
            Ld = 54, "ld", Data, ptx(1, 0), ANY, [
                "{.weak}{.$ldspace}{.$ldcop}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
                "{.weak}{.$ldspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
                ".volatile{.$ldspace}{.$prefetchsz}{.$vec}.$ldtype d, m",
                ".(relaxed|acquire).$scope{.$ldspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
                ".mmio.relaxed.sys{.global}.$ldtype d, m",
                ".global{.(ca|cg|cs)}.nc{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
                ".global.nc{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
            ];
            Ldu = 55, "ldu", Data, ptx(2, 0), min(20), ["{.global}{.$v24}.$ldtype d, m"];
            St = 56, "st", Data, ptx(1, 0), ANY, [
                "{.weak}{.$stspace}{.$stcop}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
                "{.weak}{.$stspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
                ".volatile{.$stspace}{.$vec}.$ldtype m, s",
                ".(relaxed|release).$scope{.$stspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
                ".mmio.relaxed.sys{.global}.$ldtype m, s",
            ];
            StAsync = 57, "st.async", Data, ptx(8, 1), min(90), [
                "{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.$v24}.(b32|b64|u32|s32|u64|s64|f32|f64) m, s, m",
                ".cluster{.shared::cluster}.mbarrier::complete_tx::bytes{.$v24}.(b32|b64|u32|s32|u64|s64|f32|f64) m, s, m",
                "{.mmio}.release.(gpu|sys){.global}.(b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f32|f64) m, s",
            ];
            StBulk = 58, "st.bulk", Data, ptx(8, 6), min(100), ["{.weak}{.shared::cta} m, s, i"];
            MultimemLdReduce = 59, "multimem.ld_reduce", Data, ptx(8, 1), min(90), [
                "{.(relaxed|acquire)}{.$scope}{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) d, m",
                ".weak{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) d, m",
                "{.(relaxed|acquire)}{.$scope}{.global}.(min|max|add){.(acc::f32|acc::f16)}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) d, m",
                ".weak{.global}.(min|max|add){.(acc::f32|acc::f16)}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) d, m",
            ];
            MultimemSt = 60, "multimem.st", Data, ptx(8, 1), min(90), [
                "{.(relaxed|release)}{.$scope}{.global}.(b32|b64|u32|u64|s32|s64) m, s",
                ".weak{.global}.(b32|b64|u32|u64|s32|s64) m, s",
                "{.(relaxed|release)}{.$scope}{.global}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) m, s",
                ".weak{.global}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) m, s",
            ];
            MultimemRed = 61, "multimem.red", Data, ptx(8, 1), min(90), [
                "{.(relaxed|release)}{.$scope}{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) m, s",
                "{.(relaxed|release)}{.$scope}{.global}.add{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64) m, s",
            ];
            Prefetch = 62, "prefetch", Data, ptx(2, 0), min(20), [
                "{.(global|local)}.(L1|L2) m",
                ".global.(L2::evict_last|L2::evict_normal) m",
                "{.(const|param)}.tensormap m",
            ];
            Prefetchu = 63, "prefetchu", Data, ptx(2, 0), min(20), [".L1 m"];
            Applypriority = 64, "applypriority", Data, ptx(7, 4), min(80), ["{.global}.L2::evict_normal m, s"];
            Discard = 65, "discard", Data, ptx(7, 4), min(80), ["{.global}.L2 m, s"];
            Createpolicy = 66, "createpolicy", Data, ptx(7, 4), min(80), [
                ".range{.global}.(L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged){.(L2::evict_first|L2::evict_unchanged)}.b64 d, m, s, s",
                ".fractional.(L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged){.(L2::evict_first|L2::evict_unchanged)}.b64 d, s?",
                ".cvt.L2.b64 d, s",
            ];
            Isspacep = 67, "isspacep", Data, ptx(2, 0), min(20), [".(const|global|local|shared|shared::cta|shared::cluster|param|param::entry) d, s"];
            Cvta = 68, "cvta", Data, ptx(2, 0), min(20), [
                ".$cvtspace.$addrsize d, s",
                ".to.$cvtspace.$addrsize d, s",
            ];
            Cvt = 69, "cvt", Data, ptx(1, 0), ANY, [
                "{.$irnd}{.ftz}{.sat}.$cvttype.$cvttype d, s",
                "{.$rnd}{.ftz}{.sat}.$cvttype.$cvttype d, s",
                ".(rn|rz){.relu}{.satfinite}.(f16|bf16).f32 d, s",
                ".(rn|rz){.relu}{.satfinite}.(f16x2|bf16x2).f32 d, s, s",
                ".rs{.relu}{.satfinite}.(f16x2|bf16x2).f32 d, s, s, s",
                ".rna{.satfinite}.tf32.f32 d, s",
                ".(rn|rz){.satfinite}{.relu}.tf32.f32 d, s",
                ".rn.satfinite{.relu}.$f8x2.f32 d, s, s",
                ".rn.satfinite{.relu}.$f8x2.f16x2 d, s",
                ".rn{.relu}.f16x2.($f8x2|$f6x2|e2m1x2) d, s",
                ".rs{.relu}.satfinite.($f8x4|$f6x4|e2m1x4).f32 d, v, s",
                ".rn.satfinite{.relu}.($f6x2|e2m1x2).f32 d, s, s",
                ".(rz|rp){.satfinite}.ue8m0x2.f32 d, s, s",
                ".(rz|rp){.satfinite}.ue8m0x2.bf16x2 d, s",
                ".rn.bf16x2.ue8m0x2 d, s",
            ];
            CvtPack = 70, "cvt.pack", Data, ptx(6, 5), min(72), [
                ".sat.(u16|s16).s32 d, s, s",
                ".sat.(u2|s2|u4|s4|u8|s8).s32.b32 d, s, s, s",
            ];
            Mapa = 71, "mapa", Data, ptx(7, 8), min(90), ["{.shared::cluster}.$addrsize d, s, s"];
            Getctarank = 72, "getctarank", Data, ptx(7, 8), min(90), ["{.shared::cluster}.$addrsize d, s"];

            // ---------------------------------------------------------------- asynchronous copy
            CpAsync = 73, "cp.async", AsyncCopy, ptx(7, 0), min(80), [
                ".(ca|cg).$sharedspace.global{.L2::cache_hint}{.$prefetchsz} m, m, s, s?, s?",
                ".(ca|cg).$sharedspace.global{.L2::cache_hint}{.$prefetchsz} m, m, s, p, s?",
            ];
            CpAsyncCommitGroup = 74, "cp.async.commit_group", AsyncCopy, ptx(7, 0), min(80), [""];
            CpAsyncWaitGroup = 75, "cp.async.wait_group", AsyncCopy, ptx(7, 0), min(80), [" i"];
            CpAsyncWaitAll = 76, "cp.async.wait_all", AsyncCopy, ptx(7, 0), min(80), [""];
            CpAsyncBulk = 77, "cp.async.bulk", AsyncCopy, ptx(8, 0), min(90), [
                ".shared::cta.global.mbarrier::complete_tx::bytes{.L2::cache_hint} m, m, s, m, s?",
                ".shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} m, m, s, m, s?, s?",
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes m, m, s, m",
                ".global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask} m, m, s, s?, s?",
            ];
            CpReduceAsyncBulk = 78, "cp.reduce.async.bulk", AsyncCopy, ptx(8, 0), min(90), [
                // The valid operation and type pairs of the ISA's table (9.7.9.25.4.2), not the
                // cross product its syntax block lists.
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.(u32|s32|u64) m, m, s, m",
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(min|max).(u32|s32) m, m, s, m",
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(inc|dec).u32 m, m, s, m",
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(and|or|xor).b32 m, m, s, m",
                ".global.shared::cta.bulk_group{.L2::cache_hint}.add.(u32|s32|u64|f32|f64) m, m, s, s?",
                ".global.shared::cta.bulk_group{.L2::cache_hint}.(min|max).(u32|s32|u64|s64|f16|bf16) m, m, s, s?",
                ".global.shared::cta.bulk_group{.L2::cache_hint}.(inc|dec).u32 m, m, s, s?",
                ".global.shared::cta.bulk_group{.L2::cache_hint}.(and|or|xor).(b32|b64) m, m, s, s?",
                ".global.shared::cta.bulk_group{.L2::cache_hint}.add.noftz.(f16|bf16) m, m, s, s?",
            ];
            CpAsyncBulkPrefetch = 79, "cp.async.bulk.prefetch", AsyncCopy, ptx(8, 0), min(90), [".L2.global{.L2::cache_hint} m, s, s?"];
            CpAsyncBulkTensor = 80, "cp.async.bulk.tensor", AsyncCopy, ptx(8, 0), min(90), [
                ".$dim.shared::cta.global{.$loadmode}.mbarrier::complete_tx::bytes{.$ctagroup}{.L2::cache_hint} m, t, m, v?, s?",
                ".$dim.shared::cluster.global{.$loadmode}.mbarrier::complete_tx::bytes{.multicast::cluster}{.$ctagroup}{.L2::cache_hint} m, t, m, v?, s?, s?",
                ".$dim.global.shared::cta{.$storemode}.bulk_group{.L2::cache_hint} t, m, s?",
            ];
            CpReduceAsyncBulkTensor = 81, "cp.reduce.async.bulk.tensor", AsyncCopy, ptx(8, 0), min(90), [
                ".$dim.global.shared::cta.(add|min|max|inc|dec|and|or|xor){.(tile|im2col_no_offs)}.bulk_group{.L2::cache_hint} t, m, s?",
            ];
            CpAsyncBulkPrefetchTensor = 82, "cp.async.bulk.prefetch.tensor", AsyncCopy, ptx(8, 0), min(90), [
                ".$dim.L2.global{.$loadmode}{.L2::cache_hint} t, v?, s?",
            ];
            CpAsyncBulkCommitGroup = 83, "cp.async.bulk.commit_group", AsyncCopy, ptx(8, 0), min(90), [""];
            CpAsyncBulkWaitGroup = 84, "cp.async.bulk.wait_group", AsyncCopy, ptx(8, 0), min(90), ["{.read} i"];
            TensormapReplace = 85, "tensormap.replace", AsyncCopy, ptx(8, 3), BW90, [
                ".tile.(global_address|rank){.(global|shared::cta)}.b1024.$b3264 m, s",
                ".tile.(box_dim|global_dim|global_stride|element_stride){.(global|shared::cta)}.b1024.$b3264 m, i, s",
                ".tile.(elemtype|interleave_layout|swizzle_mode|swizzle_atomicity|fill_mode){.(global|shared::cta)}.b1024.$b3264 m, i",
            ];

            // ---------------------------------------------------------------- texture and surface
            Tex = 86, "tex", Texture, ptx(1, 0), ANY, [
                "{.base}.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, v?, s?",
                ".level.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, s, v?, s?",
                ".grad.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, v, v, v?, s?",
                "{.base}.$geom.v2.f16x2.(s32|f32) d, t, v?, s?",
                ".level.$geom.v2.f16x2.(s32|f32) d, t, s, v?, s?",
                ".grad.$geom.v2.f16x2.(s32|f32) d, t, v, v, v?, s?",
            ];
            Tld4 = 87, "tld4", Texture, ptx(2, 2), min(20), [".(r|g|b|a).(2d|a2d|cube|acube).v4.(u32|s32|f32).f32 d, t, v?, s?"];
            Txq = 88, "txq", Texture, ptx(1, 5), ANY, [
                ".(width|height|depth|channel_data_type|channel_order|normalized_coords|array_size|num_mipmap_levels|num_samples).b32 d, m",
                ".level.(width|height|depth).b32 d, m, s",
                ".(force_unnormalized_coords|filter_mode|addr_mode_0|addr_mode_1|addr_mode_2).b32 d, m",
            ];
            Istypep = 89, "istypep", Texture, ptx(4, 0), min(30), [".(texref|samplerref|surfref) d, s"];
            Suld = 90, "suld", Surface, ptx(1, 5), ANY, [".b.$sugeom{.(ca|cg|cs|cv)}{.$v24}.(b8|b16|b32|b64).$sumode d, t"];
            Sust = 91, "sust", Surface, ptx(1, 5), ANY, [
                ".b.$sugeom{.$stcop}{.$v24}.(b8|b16|b32|b64).$sumode t, s",
                ".p.(1d|2d|3d){.$v24}.b32.$sumode t, s",
            ];
            Sured = 92, "sured", Surface, ptx(2, 0), min(20), [
                ".b.(add|min|max|and|or).(1d|2d|3d).(u32|u64|s32|b32|s64).$sumode t, s",
                ".p.(add|min|max|and|or).(1d|2d|3d).(b32|b64).$sumode t, s",
            ];
            Suq = 93, "suq", Surface, ptx(1, 5), ANY, [".(width|height|depth|channel_data_type|channel_order|array_size|memory_layout).b32 d, m"];

            // ---------------------------------------------------------------- control flow
            Bra = 94, "bra", Control, ptx(1, 0), ANY, ["{.uni} l"];
            BrxIdx = 95, "brx.idx", Control, ptx(6, 0), min(30), ["{.uni} s, l"];
            Call = 96, "call", Control, ptx(1, 0), ANY, ["{.uni} a?, l, a?, l?"];
            Ret = 97, "ret", Control, ptx(1, 0), ANY, ["{.uni}"];
            Exit = 98, "exit", Control, ptx(1, 0), ANY, [""];

            // ---------------------------------------------------------------- synchronization
            Bar = 99, "bar", Sync, ptx(1, 0), ANY, [
                "{.cta}.sync s, s?",
                "{.cta}.arrive s, s",
                "{.cta}.red.popc.u32 d, s, p",
                "{.cta}.red.popc.u32 d, s, s, p",
                "{.cta}.red.(and|or).pred d, s, p",
                "{.cta}.red.(and|or).pred d, s, s, p",
            ];
            Barrier = 100, "barrier", Sync, ptx(6, 0), min(30), [
                "{.cta}.sync{.aligned} s, s?",
                "{.cta}.arrive{.aligned} s, s",
                "{.cta}.red.popc{.aligned}.u32 d, s, p",
                "{.cta}.red.popc{.aligned}.u32 d, s, s, p",
                "{.cta}.red.(and|or){.aligned}.pred d, s, p",
                "{.cta}.red.(and|or){.aligned}.pred d, s, s, p",
            ];
            BarWarpSync = 101, "bar.warp.sync", Sync, ptx(6, 0), min(30), [" s"];
            BarrierCluster = 102, "barrier.cluster", Sync, ptx(7, 8), min(90), [
                ".arrive{.(release|relaxed)}{.aligned}",
                ".wait{.acquire}{.aligned}",
            ];
            Membar = 103, "membar", Sync, ptx(1, 4), ANY, [
                ".(cta|gl|sys)",
                ".proxy.(alias|async)",
                ".proxy.async.(global|shared::cta|shared::cluster)",
            ];
            Fence = 104, "fence", Sync, ptx(6, 0), min(70), [
                "{.(sc|acq_rel|acquire|release)}.$scope",
                ".acquire.sync_restrict::shared::cluster.cluster",
                ".release.sync_restrict::shared::cta.cluster",
                ".mbarrier_init.release.cluster",
                ".proxy.(alias|async)",
                ".proxy.async.(global|shared::cta|shared::cluster)",
                ".proxy.tensormap::generic.release.$scope",
                ".proxy.tensormap::generic.acquire.$scope m, i",
                ".proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
                ".proxy.async::generic.release.sync_restrict::shared::cta.cluster",
            ];
            Atom = 105, "atom", Sync, ptx(1, 1), min(11), [
                "{.$atomsem}{.$scope}{.$atomspace}.$atomop{.L2::cache_hint}.$atomtype d, m, s, s?",
                "{.$atomsem}{.$scope}{.$atomspace}.cas.(b16|b128) d, m, s, s",
                "{.$atomsem}{.$scope}{.$atomspace}.exch{.L2::cache_hint}.b128 d, m, s, s?",
                "{.$atomsem}{.$scope}{.$atomspace}.add.noftz{.L2::cache_hint}.(f16|f16x2|bf16|bf16x2) d, m, s, s?",
                "{.$atomsem}{.$scope}{.global}.add{.L2::cache_hint}.$v24.f32 d, m, s, s?",
                "{.$atomsem}{.$scope}{.global}.(add|min|max).noftz{.L2::cache_hint}.$vec.(f16|bf16) d, m, s, s?",
                "{.$atomsem}{.$scope}{.global}.(add|min|max).noftz{.L2::cache_hint}.$v24.(f16x2|bf16x2) d, m, s, s?",
            ];
            Red = 106, "red", Sync, ptx(1, 2), min(11), [
                "{.$atomspace}{.$redsem}{.$scope}.$redop{.L2::cache_hint}.$atomtype m, s, s?",
                "{.$atomspace}{.$redsem}{.$scope}.add.noftz{.L2::cache_hint}.(f16|f16x2|bf16|bf16x2) m, s, s?",
                "{.global}{.$redsem}{.$scope}.add{.L2::cache_hint}.$v24.f32 m, s, s?",
                "{.global}{.$redsem}{.$scope}.(add|min|max).noftz{.L2::cache_hint}.$vec.(f16|bf16) m, s, s?",
                "{.global}{.$redsem}{.$scope}.(add|min|max).noftz{.L2::cache_hint}.$v24.(f16x2|bf16x2) m, s, s?",
            ];
            RedAsync = 107, "red.async", Sync, ptx(8, 1), min(90), [
                ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(inc|dec).u32 m, s, m",
                ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(min|max).(u32|s32) m, s, m",
                ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(and|or|xor).b32 m, s, m",
                ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.add.(u32|s32|u64) m, s, m",
                "{.mmio}.release.(gpu|cluster|sys){.global}.add.(u32|s32|u64|s64) m, s",
            ];
            Vote = 108, "vote", Sync, ptx(1, 2), min(12), [
                ".$votemode.pred d, p",
                ".ballot.b32 d, p",
                ".sync.$votemode.pred d, p, s",
                ".sync.ballot.b32 d, p, s",
            ];
            Match = 109, "match", Sync, ptx(6, 0), min(70), [".(any|all).sync.$b3264 d, s, s"];
            Activemask = 110, "activemask", Sync, ptx(6, 2), min(30), [".b32 d"];
            Redux = 111, "redux", Sync, ptx(7, 0), min(80), [
                ".sync.(add|min|max).$i32 d, s, s",
                ".sync.(and|or|xor).b32 d, s, s",
                ".sync.(min|max){.abs}{.NaN}.f32 d, s, s",
            ];
            Griddepcontrol = 112, "griddepcontrol", Sync, ptx(7, 8), min(90), [".(launch_dependents|wait)"];
            Elect = 113, "elect", Sync, ptx(8, 0), min(90), [".sync d, s"];
            MbarrierInit = 114, "mbarrier.init", Sync, ptx(7, 0), min(80), ["{.$sharedspace}.b64 m, s"];
            MbarrierInval = 115, "mbarrier.inval", Sync, ptx(7, 0), min(80), ["{.$sharedspace}.b64 m"];
            MbarrierExpectTx = 116, "mbarrier.expect_tx", Sync, ptx(8, 0), min(90), ["{.relaxed}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 m, s"];
            MbarrierCompleteTx = 117, "mbarrier.complete_tx", Sync, ptx(8, 0), min(90), ["{.relaxed}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 m, s"];
            MbarrierArrive = 118, "mbarrier.arrive", Sync, ptx(7, 0), min(80), [
                "{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s?",
                "{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s?",
                ".expect_tx{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s",
                ".expect_tx{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s",
                ".noComplete{.release}{.cta}{.$sharedspace}.b64 d, m, s",
            ];
            MbarrierArriveDrop = 119, "mbarrier.arrive_drop", Sync, ptx(7, 0), min(80), [
                "{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s?",
                "{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s?",
                ".expect_tx{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s",
                ".expect_tx{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s",
                ".noComplete{.release}{.cta}{.$sharedspace}.b64 d, m, s",
            ];
            MbarrierTestWait = 120, "mbarrier.test_wait", Sync, ptx(7, 0), min(80), ["{.parity}{.(acquire|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s"];
            MbarrierTryWait = 121, "mbarrier.try_wait", Sync, ptx(7, 8), min(90), ["{.parity}{.(acquire|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s, s?"];
            MbarrierPendingCount = 122, "mbarrier.pending_count", Sync, ptx(7, 0), min(80), [".b64 d, s"];
            CpAsyncMbarrierArrive = 123, "cp.async.mbarrier.arrive", Sync, ptx(7, 0), min(80), ["{.noinc}{.$sharedspace}.b64 m"];
            TensormapCpFenceproxy = 124, "tensormap.cp_fenceproxy", Sync, ptx(8, 3), min(90), [".global.shared::cta.tensormap::generic.release.$scope.sync.aligned m, m, i"];
            ClusterlaunchcontrolTryCancel = 125, "clusterlaunchcontrol.try_cancel", Sync, ptx(8, 6), min(100), [
                ".async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 m, m",
            ];
            ClusterlaunchcontrolQueryCancel = 126, "clusterlaunchcontrol.query_cancel", Sync, ptx(8, 6), min(100), [
                ".is_canceled.pred.b128 d, s",
                ".(get_first_ctaid::x|get_first_ctaid::y|get_first_ctaid::z).b32.b128 d, s",
                ".get_first_ctaid.v4.b32.b128 d, s",
            ];

            // ---------------------------------------------------------------- warp-level MMA
            WmmaLoad = 127, "wmma.load", WarpMma, ptx(6, 0), min(70), [
                ".(a|b).sync.aligned.(row|col).$wmmashape{.$wmmass}.(f16|s8|u8|bf16) v, m, s?",
                ".c.sync.aligned.(row|col).$wmmashape{.$wmmass}.(f16|f32|s32) v, m, s?",
                ".(a|b).sync.aligned.(row|col).m16n16k8{.$wmmass}.tf32 v, m, s?",
                ".c.sync.aligned.(row|col).m16n16k8{.$wmmass}.f32 v, m, s?",
                ".(a|b|c).sync.aligned.(row|col).m8n8k4{.$wmmass}.f64 v, m, s?",
                ".a.sync.aligned.row.m8n8k32{.$wmmass}.(s4|u4) v, m, s?",
                ".b.sync.aligned.col.m8n8k32{.$wmmass}.(s4|u4) v, m, s?",
                ".a.sync.aligned.row.m8n8k128{.$wmmass}.b1 v, m, s?",
                ".b.sync.aligned.col.m8n8k128{.$wmmass}.b1 v, m, s?",
                ".c.sync.aligned.(row|col).(m8n8k32|m8n8k128){.$wmmass}.s32 v, m, s?",
            ];
            WmmaStore = 128, "wmma.store", WarpMma, ptx(6, 0), min(70), [
                ".d.sync.aligned.(row|col).$wmmashape{.$wmmass}.(f16|f32|s32) m, v, s?",
                ".d.sync.aligned.(row|col).(m8n8k32|m8n8k128){.$wmmass}.s32 m, v, s?",
                ".d.sync.aligned.(row|col).m16n16k8{.$wmmass}.f32 m, v, s?",
                ".d.sync.aligned.(row|col).m8n8k4{.$wmmass}.f64 m, v, s?",
            ];
            WmmaMma = 129, "wmma.mma", WarpMma, ptx(6, 0), min(70), [
                ".sync.aligned.(row|col).(row|col).$wmmashape.(f16|f32).(f16|f32) v, v, v, v",
                ".sync.aligned.(row|col).(row|col).$wmmashape.s32.(s8|u8).(s8|u8).s32{.satfinite} v, v, v, v",
                ".sync.aligned.(row|col).(row|col).$wmmashape.f32.bf16.bf16.f32 v, v, v, v",
                ".sync.aligned.(row|col).(row|col).m16n16k8.f32.tf32.tf32.f32 v, v, v, v",
                ".sync.aligned.(row|col).(row|col).m8n8k4{.$rnd}.f64.f64.f64.f64 v, v, v, v",
                ".sync.aligned.row.col.m8n8k32.s32.(s4|u4).(s4|u4).s32{.satfinite} v, v, v, v",
                ".(xor|and).popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 v, v, v, v",
            ];
            Mma = 130, "mma", WarpMma, ptx(6, 4), min(70), [
                // dense
                ".sync.aligned.m8n8k4.(row|col).(row|col).(f16|f32).f16.f16.(f16|f32) v, v, v, v",
                ".sync.aligned.(m16n8k8|m16n8k16).row.col.(f16|f32).f16.f16.(f16|f32) v, v, v, v",
                ".sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 v, v, v, v",
                ".sync.aligned.m16n8k8.row.col.f32.(bf16|tf32).(bf16|tf32).f32 v, v, v, v",
                ".sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 v, v, v, v",
                ".sync.aligned.(m16n8k16|m16n8k32).row.col.(f16|f32).(e4m3|e5m2).(e4m3|e5m2).(f16|f32) v, v, v, v",
                ".sync.aligned.m16n8k32.row.col.kind::f8f6f4.(f16|f32).$f8f6f4.$f8f6f4.(f16|f32) v, v, v, v",
                ".sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale{.scale_vec::2X}.f32.e2m1.e2m1.f32.ue8m0 v, v, v, v, s, v, s, v",
                ".sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.(scale_vec::2X|scale_vec::4X).f32.e2m1.e2m1.f32.(ue8m0|ue4m3) v, v, v, v, s, v, s, v",
                ".sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale{.scale_vec::1X}.f32.$f8f6f4.$f8f6f4.f32.ue8m0 v, v, v, v, s, v, s, v",
                ".sync.aligned.(m8n8k4|m16n8k4|m16n8k8|m16n8k16).row.col{.$rnd}.f64.f64.f64.f64 v, v, v, v",
                ".sync.aligned.(m8n8k16|m16n8k16|m16n8k32).row.col{.satfinite}.s32.(u8|s8).(u8|s8).s32 v, v, v, v",
                ".sync.aligned.(m8n8k32|m16n8k32|m16n8k64).row.col{.satfinite}.s32.(u4|s4).(u4|s4).s32 v, v, v, v",
                ".sync.aligned.(m8n8k128|m16n8k128|m16n8k256).row.col.s32.b1.b1.s32.(xor|and).popc v, v, v, v",
                // sparse A (`mma.sp`, `mma.sp::ordered_metadata`): metadata register and selector constant
                ".(sp|sp::ordered_metadata).sync.aligned.(m16n8k16|m16n8k32).row.col.(f16|f32).f16.f16.(f16|f32) v, v, v, v, s, i",
                ".(sp|sp::ordered_metadata).sync.aligned.(m16n8k16|m16n8k32).row.col.f32.bf16.bf16.f32 v, v, v, v, s, i",
                ".(sp|sp::ordered_metadata).sync.aligned.(m16n8k8|m16n8k16).row.col.f32.tf32.tf32.f32 v, v, v, v, s, i",
                ".(sp|sp::ordered_metadata).sync.aligned.m16n8k64.row.col.f32.(e4m3|e5m2).(e4m3|e5m2).f32 v, v, v, v, s, i",
                ".sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.(f16|f32).$f8f6f4.$f8f6f4.(f16|f32) v, v, v, v, s, i",
                ".sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale{.scale_vec::2X}.f32.e2m1.e2m1.f32.ue8m0 v, v, v, v, s, i, s, v, s, v",
                ".sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.(scale_vec::2X|scale_vec::4X).f32.e2m1.e2m1.f32.(ue8m0|ue4m3) v, v, v, v, s, i, s, v, s, v",
                ".sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale{.scale_vec::1X}.f32.$f8f6f4.$f8f6f4.f32.ue8m0 v, v, v, v, s, i, s, v, s, v",
                ".(sp|sp::ordered_metadata).sync.aligned.(m16n8k32|m16n8k64).row.col{.satfinite}.s32.(u8|s8).(u8|s8).s32 v, v, v, v, s, i",
                ".(sp|sp::ordered_metadata).sync.aligned.(m16n8k64|m16n8k128).row.col{.satfinite}.s32.(u4|s4).(u4|s4).s32 v, v, v, v, s, i",
            ];
            Ldmatrix = 131, "ldmatrix", WarpMma, ptx(6, 5), min(75), [
                ".sync.aligned.(m8n8|m16n16).$num{.trans}{.$sharedspace}.(b16|b8) v, m",
                ".sync.aligned.m8n16.$num{.$sharedspace}.b8x16.(b6x16_p32|b4x16_p64) v, m",
                ".sync.aligned.m16n16.$num.trans{.$sharedspace}.b8x16.(b6x16_p32|b4x16_p64) v, m",
            ];
            Stmatrix = 132, "stmatrix", WarpMma, ptx(7, 8), min(90), [".sync.aligned.(m8n8|m16n8).$num{.trans}{.$sharedspace}.(b16|b8) m, v"];
            Movmatrix = 133, "movmatrix", WarpMma, ptx(7, 8), min(75), [".sync.aligned.m8n8.trans.b16 d, s"];

            // ---------------------------------------------------------------- warpgroup MMA
            WgmmaMmaAsync = 134, "wgmma.mma_async", Wgmma, ptx(8, 0), A90, [
                // d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b; the
                // second form of each pair takes A in registers (no imm-trans-a)
                ".sync.aligned.$wgmma_k16.(f16|f32).f16.f16 v, s, s, p, i, i, i, i",
                ".sync.aligned.$wgmma_k16.(f16|f32).f16.f16 v, v, s, p, i, i, i",
                ".sync.aligned.$wgmma_k16.f32.bf16.bf16 v, s, s, p, i, i, i, i",
                ".sync.aligned.$wgmma_k16.f32.bf16.bf16 v, v, s, p, i, i, i",
                ".sync.aligned.$wgmma_k8.f32.tf32.tf32 v, s, s, p, i, i",
                ".sync.aligned.$wgmma_k32.(f16|f32).(e4m3|e5m2).(e4m3|e5m2) v, s, s, p, i, i",
                ".sync.aligned.$wgmma_k32i{.satfinite}.s32.(s8|u8).(s8|u8) v, s, s, p",
                ".sync.aligned.$wgmma_k256i.s32.b1.b1.and.popc v, s, s, p",
                // sparse A: sp-meta register and sp-sel constant after b-desc
                ".sp.sync.aligned.$wgmma_k32.(f16|f32).f16.f16 v, s, s, s, i, p, i, i, i, i",
                ".sp.sync.aligned.$wgmma_k32.(f16|f32).f16.f16 v, v, s, s, i, p, i, i, i",
                ".sp.sync.aligned.$wgmma_k32.f32.bf16.bf16 v, s, s, s, i, p, i, i, i, i",
                ".sp.sync.aligned.$wgmma_k32.f32.bf16.bf16 v, v, s, s, i, p, i, i, i",
                ".sp.sync.aligned.$wgmma_k16.f32.tf32.tf32 v, s, s, s, i, p, i, i",
                ".sp.sync.aligned.$wgmma_k64.(f16|f32).(e4m3|e5m2).(e4m3|e5m2) v, s, s, s, i, p, i, i",
                ".sp.sync.aligned.$wgmma_k64i{.satfinite}.s32.(s8|u8).(s8|u8) v, s, s, s, i, p",
            ];
            WgmmaFence = 135, "wgmma.fence", Wgmma, ptx(8, 0), A90, [".sync.aligned"];
            WgmmaCommitGroup = 136, "wgmma.commit_group", Wgmma, ptx(8, 0), A90, [".sync.aligned"];
            WgmmaWaitGroup = 137, "wgmma.wait_group", Wgmma, ptx(8, 0), A90, [".sync.aligned i"];

            // ---------------------------------------------------------------- tcgen05
            Tcgen05Alloc = 138, "tcgen05.alloc", Tcgen05, ptx(8, 6), TC, [".$ctagroup.sync.aligned{.shared::cta}.b32 m, s"];
            Tcgen05Dealloc = 139, "tcgen05.dealloc", Tcgen05, ptx(8, 6), TC, [".$ctagroup.sync.aligned.b32 s, s"];
            Tcgen05RelinquishAllocPermit = 140, "tcgen05.relinquish_alloc_permit", Tcgen05, ptx(8, 6), TC, [".$ctagroup.sync.aligned"];
            Tcgen05Ld = 141, "tcgen05.ld", Tcgen05, ptx(8, 6), TC, [
                ".sync.aligned.$tmemshape.$tmemnum{.pack::16b}.b32 v, m",
                ".sync.aligned.16x32bx2.$tmemnum{.pack::16b}.b32 v, m, i",
                ".red.sync.aligned.32x32b.$tmemnum.(min|max){.abs}{.NaN}.f32 v, d, m",
                ".red.sync.aligned.16x32bx2.$tmemnum.(min|max){.abs}{.NaN}.f32 v, d, m, i",
                ".red.sync.aligned.32x32b.$tmemnum.(min|max).(u32|s32) v, d, m",
                ".red.sync.aligned.16x32bx2.$tmemnum.(min|max).(u32|s32) v, d, m, i",
            ];
            Tcgen05St = 142, "tcgen05.st", Tcgen05, ptx(8, 6), TC, [
                ".sync.aligned.$tmemshape.$tmemnum{.unpack::16b}.b32 m, v",
                ".sync.aligned.16x32bx2.$tmemnum{.unpack::16b}.b32 m, i, v",
            ];
            // The ISA spells these `tcgen05.wait::ld`/`::st` (no dot), like `tcgen05.fence::*`.
            Tcgen05WaitLd = 143, "tcgen05.wait::ld", Tcgen05, ptx(8, 6), TC, [".sync.aligned"];
            Tcgen05WaitSt = 144, "tcgen05.wait::st", Tcgen05, ptx(8, 6), TC, [".sync.aligned"];
            Tcgen05Cp = 145, "tcgen05.cp", Tcgen05, ptx(8, 6), TC, [
                ".$ctagroup.(128x256b|4x256b|128x128b) m, s",
                ".$ctagroup.(128x256b|4x256b|128x128b).b8x16.(b6x16_p32|b4x16_p64) m, s",
                ".$ctagroup.64x128b.(warpx2::02_13|warpx2::01_23) m, s",
                ".$ctagroup.64x128b.(warpx2::02_13|warpx2::01_23).b8x16.(b6x16_p32|b4x16_p64) m, s",
                ".$ctagroup.32x128b.warpx4 m, s",
                ".$ctagroup.32x128b.warpx4.b8x16.(b6x16_p32|b4x16_p64) m, s",
            ];
            Tcgen05Shift = 146, "tcgen05.shift", Tcgen05, ptx(8, 6), TC_SHIFT, [".$ctagroup.down m"];
            Tcgen05Mma = 147, "tcgen05.mma", Tcgen05, ptx(8, 6), TC, [
                // [d-tmem], a-desc | [a-tmem], b-desc, idesc, {disable-output-lane}?, enable-input-d,
                // scale-input-d?; `.ashift` only with A in tensor memory
                ".$ctagroup.$tckind{.$collector} m, s, s, s, v?, p, i?",
                ".$ctagroup.$tckind{.ashift}{.$collector} m, m, s, s, v?, p, i?",
                ".$ctagroup.kind::i8{.$collector} m, s, s, s, v?, p",
                ".$ctagroup.kind::i8{.ashift}{.$collector} m, m, s, s, v?, p",
                ".$ctagroup.$tcmxkind.block_scale{.$scalevec}{.$collector} m, s, s, s, m, m, p",
                ".$ctagroup.$tcmxkind.block_scale{.$scalevec}{.$collector} m, m, s, s, m, m, p",
                // `.sp`: [sp-meta-tmem] after b-desc
                ".sp.$ctagroup.$tckind{.$collector} m, s, s, m, s, v?, p, i?",
                ".sp.$ctagroup.$tckind{.ashift}{.$collector} m, m, s, m, s, v?, p, i?",
                ".sp.$ctagroup.kind::i8{.$collector} m, s, s, m, s, v?, p",
                ".sp.$ctagroup.kind::i8{.ashift}{.$collector} m, m, s, m, s, v?, p",
                ".sp.$ctagroup.$tcmxkind.block_scale{.$scalevec}{.$collector} m, s, s, m, s, m, m, p",
                ".sp.$ctagroup.$tcmxkind.block_scale{.$scalevec}{.$collector} m, m, s, m, s, m, m, p",
                // `.ws`: enable-input-d, then an optional zero-column-mask-desc
                ".ws.cta_group::1.($tckind|kind::i8){.$wscollector} m, s, s, s, p, s?",
                ".ws.cta_group::1.($tckind|kind::i8){.$wscollector} m, m, s, s, p, s?",
                ".ws.sp.cta_group::1.($tckind|kind::i8){.$wscollector} m, s, s, m, s, p, s?",
                ".ws.sp.cta_group::1.($tckind|kind::i8){.$wscollector} m, m, s, m, s, p, s?",
            ];
            Tcgen05Commit = 148, "tcgen05.commit", Tcgen05, ptx(8, 6), TC, [
                ".$ctagroup.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 m, s?",
            ];
            Tcgen05FenceBeforeThreadSync = 149, "tcgen05.fence::before_thread_sync", Tcgen05, ptx(8, 6), TC, [""];
            Tcgen05FenceAfterThreadSync = 150, "tcgen05.fence::after_thread_sync", Tcgen05, ptx(8, 6), TC, [""];

            // ---------------------------------------------------------------- stack
            Stacksave = 151, "stacksave", Stack, ptx(7, 3), min(52), [".$addrsize d"];
            Stackrestore = 152, "stackrestore", Stack, ptx(7, 3), min(52), [".$addrsize s"];
            Alloca = 153, "alloca", Stack, ptx(7, 3), min(52), [".$addrsize d, s, i?"];

            // ---------------------------------------------------------------- video
            Vadd = 154, "vadd", Video, ptx(2, 0), min(20), [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
            Vsub = 155, "vsub", Video, ptx(2, 0), min(20), [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
            Vabsdiff = 156, "vabsdiff", Video, ptx(2, 0), min(20), [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
            Vmin = 157, "vmin", Video, ptx(2, 0), min(20), [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
            Vmax = 158, "vmax", Video, ptx(2, 0), min(20), [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
            Vshl = 159, "vshl", Video, ptx(2, 0), min(20), [
                ".$vtype.$vtype.u32{.sat}.(clamp|wrap) d, s, s, s?",
                ".$vtype.$vtype.u32{.sat}.(clamp|wrap).$vop2 d, s, s, s",
            ];
            Vshr = 160, "vshr", Video, ptx(2, 0), min(20), [
                ".$vtype.$vtype.u32{.sat}.(clamp|wrap) d, s, s, s?",
                ".$vtype.$vtype.u32{.sat}.(clamp|wrap).$vop2 d, s, s, s",
            ];
            Vmad = 161, "vmad", Video, ptx(2, 0), min(20), [
                ".$vtype.$vtype.$vtype{.sat}{.(shr7|shr15)} d, s, s, s",
                ".$vtype.$vtype.$vtype.po{.sat}{.(shr7|shr15)} d, s, s, s",
            ];
            Vset = 162, "vset", Video, ptx(2, 0), min(20), [
                ".$vtype.$vtype.(eq|ne|lt|le|gt|ge) d, s, s, s?",
                ".$vtype.$vtype.(eq|ne|lt|le|gt|ge).$vop2 d, s, s, s",
            ];
            Vadd2 = 163, "vadd2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vsub2 = 164, "vsub2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vavrg2 = 165, "vavrg2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vabsdiff2 = 166, "vabsdiff2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vmin2 = 167, "vmin2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vmax2 = 168, "vmax2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vset2 = 169, "vset2", Video, ptx(3, 0), min(30), [".$vtype.$vtype.(eq|ne|lt|le|gt|ge){.add} d, s, s, s"];
            Vadd4 = 170, "vadd4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vsub4 = 171, "vsub4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vavrg4 = 172, "vavrg4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vabsdiff4 = 173, "vabsdiff4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vmin4 = 174, "vmin4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vmax4 = 175, "vmax4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
            Vset4 = 176, "vset4", Video, ptx(3, 0), min(30), [".$vtype.$vtype.(eq|ne|lt|le|gt|ge){.add} d, s, s, s"];

            // ---------------------------------------------------------------- miscellaneous
            Brkpt = 177, "brkpt", Misc, ptx(1, 0), min(11), [""];
            Nanosleep = 178, "nanosleep", Misc, ptx(6, 3), min(70), [".u32 s"];
            Pmevent = 179, "pmevent", Misc, ptx(1, 4), ANY, [" i", ".mask i"];
            Trap = 180, "trap", Misc, ptx(1, 0), ANY, [""];
            Setmaxnreg = 181, "setmaxnreg", Misc, ptx(8, 0), BW90, [".(inc|dec).sync.aligned.u32 i"];
        }
    };
}
pub(crate) use for_each_instruction;

for_each_instruction!(instructions);

struct Compiled {
    /// Each opcode's forms, compiled when first asked for: compiling all of them took three
    /// quarters of the machine instructions of `ptx check` on a small file.
    forms: Vec<OnceLock<Vec<Form>>>,
    by_name: rustc_hash::FxHashMap<&'static [u8], Opcode>,
    /// The opcodes by their mnemonic's first dotted part (`cp` for `cp.async.bulk`), longest
    /// mnemonic first: a word's mnemonic is found with one lookup of its first part and a
    /// prefix test per candidate, instead of a lookup per dotted prefix of the word.
    by_first: rustc_hash::FxHashMap<&'static [u8], Vec<Opcode>>,
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let forms = Opcode::ALL.iter().map(|_| OnceLock::new()).collect();
        let by_name = Opcode::ALL
            .iter()
            .map(|&op| (op.name().as_bytes(), op))
            .collect();
        let mut by_first = rustc_hash::FxHashMap::<&'static [u8], Vec<Opcode>>::default();
        for &op in Opcode::ALL {
            let name = op.name().as_bytes();
            let first = name.split(|&b| b == b'.').next().unwrap_or(name);
            by_first.entry(first).or_default().push(op);
        }
        for ops in by_first.values_mut() {
            ops.sort_by_key(|op| std::cmp::Reverse(op.name().len()));
        }
        Compiled {
            forms,
            by_name,
            by_first,
        }
    })
}

impl Opcode {
    /// The compiled forms of this opcode.
    pub fn forms(self) -> &'static [Form] {
        compiled().forms[self as usize].get_or_init(|| {
            self.form_texts()
                .iter()
                // The table is code: `every_form_compiles` fails on a malformed form, which
                // is left out here rather than stopping the program.
                .filter_map(|t| Form::compile(t, &set).ok())
                .collect()
        })
    }

    /// The opcode whose mnemonic is exactly `name`.
    pub fn from_name(name: &[u8]) -> Option<Opcode> {
        compiled().by_name.get(name).copied()
    }

    /// Splits a dotted instruction word (`cp.async.bulk.tensor.2d.shared::cluster...`) into the
    /// longest opcode mnemonic it starts with and the length of that mnemonic.
    pub fn split_mnemonic(word: &[u8]) -> Option<(Opcode, usize)> {
        let first = word.split(|&b| b == b'.').next().unwrap_or(word);
        compiled().by_first.get(first)?.iter().find_map(|&op| {
            let name = op.name().as_bytes();
            let ends = matches!(word.get(name.len()), None | Some(b'.'));
            (word.starts_with(name) && ends).then_some((op, name.len()))
        })
    }

    /// Number of opcodes.
    pub const COUNT: usize = Opcode::ALL.len();

    /// The opcode with the given table index.
    pub fn from_index(i: usize) -> Option<Opcode> {
        Opcode::ALL.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_compiles() {
        for &op in Opcode::ALL {
            assert!(!op.form_texts().is_empty(), "{} has no forms", op.name());
            for t in op.form_texts() {
                if let Err(e) = Form::compile(t, &set) {
                    panic!("{}: {e}", op.name());
                }
            }
        }
    }

    #[test]
    fn names_are_unique_and_split() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.name()), "duplicate mnemonic {}", op.name());
            assert_eq!(
                Opcode::split_mnemonic(op.name().as_bytes()),
                Some((op, op.name().len()))
            );
        }
        let (op, n) =
            Opcode::split_mnemonic(b"cp.async.bulk.tensor.2d.shared::cluster.global").unwrap();
        assert_eq!(
            (op, n),
            (Opcode::CpAsyncBulkTensor, "cp.async.bulk.tensor".len())
        );
        assert_eq!(
            Opcode::split_mnemonic(b"mbarrier.arrive.expect_tx.b64")
                .unwrap()
                .0,
            Opcode::MbarrierArrive
        );
        assert_eq!(
            Opcode::split_mnemonic(b"ld.global.nc.u32").unwrap().0,
            Opcode::Ld
        );
        assert_eq!(Opcode::split_mnemonic(b"nosuch.u32"), None);
        // A mnemonic ends at a dot or at the end of the word, never inside a part.
        assert_eq!(
            Opcode::split_mnemonic(b"cp.async.bulk.tensorx.2d"),
            Some((Opcode::CpAsyncBulk, "cp.async.bulk".len()))
        );
        assert_eq!(Opcode::split_mnemonic(b"addx.s32"), None);
        assert_eq!(Opcode::split_mnemonic(b"ad"), None);
        assert_eq!(Opcode::split_mnemonic(b""), None);
        // The same answer as trying every dotted prefix of the word, longest first.
        for &op in Opcode::ALL {
            for tail in ["", ".x", ".s32.x", "x", "_y.z"] {
                let word = format!("{}{tail}", op.name());
                let expected = (1..=word.len())
                    .rev()
                    .filter(|&e| matches!(word.as_bytes().get(e), None | Some(b'.')))
                    .find_map(|e| Opcode::from_name(&word.as_bytes()[..e]).map(|op| (op, e)));
                assert_eq!(Opcode::split_mnemonic(word.as_bytes()), expected, "{word}");
            }
        }
    }
}
