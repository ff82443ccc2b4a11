//! The instruction table: one line per PTX instruction, from which the [`Opcode`] enum, the
//! mnemonic lookup of the reader, the printer's spelling, the grammar checks, the bytecode tags,
//! the fuzzers' generators and the interpreter's dispatch are all derived.
//!
//! Adding an instruction is one line here (its mnemonic, family and forms in the notation of
//! [`crate::form`]) plus its semantics in the interpreter; every `match` over [`Opcode`] that
//! misses it then fails to compile.

use crate::form::Form;
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
    ( $( $(#[$m:meta])* $var:ident = $name:literal, $fam:ident, [ $( $form:literal ),* $(,)? ]; )* ) => {
        /// A PTX instruction, as named in the ISA (`add`, `cp.async.bulk.tensor`, ...).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

            /// The forms as written in the table.
            pub const fn form_texts(self) -> &'static [&'static str] {
                match self { $(Opcode::$var => &[$($form),*],)* }
            }
        }
    };
}

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
pub fn set(name: &str) -> Option<&'static str> {
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

instructions! {
    // ---------------------------------------------------------------- integer arithmetic
    Add = "add", Int, [
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
    Sub = "sub", Int, [
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
    Mul = "mul", Int, [
        ".(hi|lo).$int d, s, s",
        ".wide.(u16|u32|s16|s32) d, s, s",
        "{.$rnd}{.ftz}{.sat}.f32 d, s, s",
        "{.$rnd}{.ftz}.f32x2 d, s, s",
        "{.$rnd}.f64 d, s, s",
        "{.rn}{.ftz}{.sat}.$f16t d, s, s",
        "{.rn}.$bf16t d, s, s",
    ];
    Mad = "mad", Int, [
        ".(hi|lo).$int d, s, s, s",
        ".wide.(u16|u32|s16|s32) d, s, s, s",
        ".hi.sat.s32 d, s, s, s",
        ".(hi|lo).cc.(u32|s32|u64|s64) d, s, s, s",
        "{.ftz}{.sat}.f32 d, s, s, s",
        ".$rnd{.ftz}{.sat}.f32 d, s, s, s",
        ".$rnd.f64 d, s, s, s",
    ];
    Mul24 = "mul24", Int, [".(hi|lo).$i32 d, s, s"];
    Mad24 = "mad24", Int, [".(hi|lo).$i32 d, s, s, s", ".hi.sat.s32 d, s, s, s"];
    Sad = "sad", Int, [".$int d, s, s, s"];
    Div = "div", Int, [
        ".$int d, s, s",
        ".approx{.ftz}.f32 d, s, s",
        ".full{.ftz}.f32 d, s, s",
        ".$rnd{.ftz}.f32 d, s, s",
        ".$rnd.f64 d, s, s",
    ];
    Rem = "rem", Int, [".$int d, s, s"];
    Abs = "abs", Int, [
        ".$sint d, s",
        "{.ftz}.f32 d, s",
        ".f64 d, s",
        "{.ftz}.$f16t d, s",
        ".$bf16t d, s",
    ];
    Neg = "neg", Int, [
        ".$sint d, s",
        "{.ftz}.f32 d, s",
        ".f64 d, s",
        "{.ftz}.$f16t d, s",
        ".$bf16t d, s",
    ];
    Min = "min", Int, [
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
    Max = "max", Int, [
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
    Popc = "popc", Int, [".$b3264 d, s"];
    Clz = "clz", Int, [".$b3264 d, s"];
    Bfind = "bfind", Int, ["{.shiftamt}.$i3264 d, s"];
    Fns = "fns", Int, [".b32 d, s, s, s"];
    Brev = "brev", Int, [".$b3264 d, s"];
    Bfe = "bfe", Int, [".$i3264 d, s, s, s"];
    Bfi = "bfi", Int, [".$b3264 d, s, s, s, s"];
    Szext = "szext", Int, [".(clamp|wrap).$i32 d, s, s"];
    Bmsk = "bmsk", Int, [".(clamp|wrap).b32 d, s, s"];
    Dp4a = "dp4a", Int, [".$i32.$i32 d, s, s, s"];
    Dp2a = "dp2a", Int, [".(lo|hi).$i32.$i32 d, s, s, s"];

    // ---------------------------------------------------------------- extended precision
    Addc = "addc", ExtInt, ["{.cc}.(u32|s32|u64|s64) d, s, s"];
    Subc = "subc", ExtInt, ["{.cc}.(u32|s32|u64|s64) d, s, s"];
    Madc = "madc", ExtInt, [".(hi|lo){.cc}.(u32|s32|u64|s64) d, s, s, s"];

    // ---------------------------------------------------------------- floating point
    Testp = "testp", Float, [".(finite|infinite|number|notanumber|normal|subnormal).(f32|f64) d, s"];
    Copysign = "copysign", Float, [".(f32|f64) d, s, s"];
    Fma = "fma", Float, [
        ".$rnd{.ftz}{.sat}.f32 d, s, s, s",
        ".$rnd{.ftz}.f32x2 d, s, s, s",
        ".$rnd.f64 d, s, s, s",
        ".rn{.ftz}{.sat}.$f16t d, s, s, s",
        ".rn{.ftz}.relu.$f16t d, s, s, s",
        ".rn{.relu}.$bf16t d, s, s, s",
        ".rn.oob{.relu}.(f16|f16x2|bf16|bf16x2) d, s, s, s",
        ".$rnd{.sat}.f32.(f16|bf16) d, s, s, s",
    ];
    Rcp = "rcp", Float, [
        ".approx{.ftz}.f32 d, s",
        ".$rnd{.ftz}.f32 d, s",
        ".$rnd.f64 d, s",
        ".approx.ftz.f64 d, s",
    ];
    Sqrt = "sqrt", Float, [".approx{.ftz}.f32 d, s", ".$rnd{.ftz}.f32 d, s", ".$rnd.f64 d, s"];
    Rsqrt = "rsqrt", Float, [".approx{.ftz}.f32 d, s", ".approx{.ftz}.f64 d, s"];
    Sin = "sin", Float, [".approx{.ftz}.f32 d, s"];
    Cos = "cos", Float, [".approx{.ftz}.f32 d, s"];
    Lg2 = "lg2", Float, [".approx{.ftz}.f32 d, s"];
    Ex2 = "ex2", Float, [
        ".approx{.ftz}.f32 d, s",
        ".approx.ftz.(bf16|bf16x2) d, s",
        ".approx.(f16|f16x2) d, s",
    ];
    Tanh = "tanh", Float, [".approx.(f32|f16|f16x2|bf16|bf16x2) d, s"];

    // ---------------------------------------------------------------- comparison and selection
    Set = "set", Compare, [
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
    Setp = "setp", Compare, [
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
    Selp = "selp", Compare, [".$scalar d, s, s, p"];
    Slct = "slct", Compare, [".$scalar.s32 d, s, s, s", "{.ftz}.$scalar.f32 d, s, s, s"];

    // ---------------------------------------------------------------- logic and shift
    And = "and", Logic, [".$logic d, s, s"];
    Or = "or", Logic, [".$logic d, s, s"];
    Xor = "xor", Logic, [".$logic d, s, s"];
    Not = "not", Logic, [".$logic d, s"];
    Cnot = "cnot", Logic, [".$bits d, s"];
    Lop3 = "lop3", Logic, [".b32 d, s, s, s, i", ".(and|or).b32 d, s, s, s, i, p"];
    Shf = "shf", Logic, [".(l|r).(clamp|wrap).b32 d, s, s, s"];
    Shl = "shl", Logic, [".$bits d, s, s"];
    Shr = "shr", Logic, [".($bits|$int) d, s, s"];

    // ---------------------------------------------------------------- data movement
    Mov = "mov", Data, [".$movtype d, s"];
    Shfl = "shfl", Data, [
        ".sync.$shflmode.b32 d, s, s, s, s",
        ".$shflmode.b32 d, s, s, s",
    ];
    Prmt = "prmt", Data, [".b32{.$prmtmode} d, s, s, s"];
    Ld = "ld", Data, [
        "{.weak}{.$ldspace}{.$ldcop}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
        "{.weak}{.$ldspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
        ".volatile{.$ldspace}{.$prefetchsz}{.$vec}.$ldtype d, m",
        ".(relaxed|acquire).$scope{.$ldspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
        ".mmio.relaxed.sys{.global}.$ldtype d, m",
        ".global{.(ca|cg|cs)}.nc{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
        ".global.nc{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$prefetchsz}{.$vec}.$ldtype d, m, s?",
    ];
    Ldu = "ldu", Data, ["{.global}{.$v24}.$ldtype d, m"];
    St = "st", Data, [
        "{.weak}{.$stspace}{.$stcop}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
        "{.weak}{.$stspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
        ".volatile{.$stspace}{.$vec}.$ldtype m, s",
        ".(relaxed|release).$scope{.$stspace}{.$l1evict}{.$l2evict}{.L2::cache_hint}{.$vec}.$ldtype m, s, s?",
        ".mmio.relaxed.sys{.global}.$ldtype m, s",
    ];
    StAsync = "st.async", Data, [
        "{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.$v24}.(b32|b64|u32|s32|u64|s64|f32|f64) m, s, m",
        ".cluster{.shared::cluster}.mbarrier::complete_tx::bytes{.$v24}.(b32|b64|u32|s32|u64|s64|f32|f64) m, s, m",
        "{.mmio}.release.(gpu|sys){.global}.(b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f32|f64) m, s",
    ];
    StBulk = "st.bulk", Data, ["{.weak}{.shared::cta} m, s, i"];
    MultimemLdReduce = "multimem.ld_reduce", Data, [
        "{.(relaxed|acquire)}{.$scope}{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) d, m",
        ".weak{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) d, m",
        "{.(relaxed|acquire)}{.$scope}{.global}.(min|max|add){.(acc::f32|acc::f16)}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) d, m",
        ".weak{.global}.(min|max|add){.(acc::f32|acc::f16)}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) d, m",
    ];
    MultimemSt = "multimem.st", Data, [
        "{.(relaxed|release)}{.$scope}{.global}.(b32|b64|u32|u64|s32|s64) m, s",
        ".weak{.global}.(b32|b64|u32|u64|s32|s64) m, s",
        "{.(relaxed|release)}{.$scope}{.global}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) m, s",
        ".weak{.global}{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4) m, s",
    ];
    MultimemRed = "multimem.red", Data, [
        "{.(relaxed|release)}{.$scope}{.global}.(min|max|add|and|or|xor).(b32|b64|u32|u64|s32|s64) m, s",
        "{.(relaxed|release)}{.$scope}{.global}.add{.$vec}.(f16|f16x2|bf16|bf16x2|f32|f64) m, s",
    ];
    Prefetch = "prefetch", Data, [
        "{.(global|local)}.(L1|L2) m",
        ".global.(L2::evict_last|L2::evict_normal) m",
        "{.(const|param)}.tensormap m",
    ];
    Prefetchu = "prefetchu", Data, [".L1 m"];
    Applypriority = "applypriority", Data, ["{.global}.L2::evict_normal m, s"];
    Discard = "discard", Data, ["{.global}.L2 m, s"];
    Createpolicy = "createpolicy", Data, [
        ".range{.global}.(L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged){.(L2::evict_first|L2::evict_unchanged)}.b64 d, m, s, s",
        ".fractional.(L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged){.(L2::evict_first|L2::evict_unchanged)}.b64 d, s?",
        ".cvt.L2.b64 d, s",
    ];
    Isspacep = "isspacep", Data, [".(const|global|local|shared|shared::cta|shared::cluster|param|param::entry) d, s"];
    Cvta = "cvta", Data, [
        ".$cvtspace.$addrsize d, s",
        ".to.$cvtspace.$addrsize d, s",
    ];
    Cvt = "cvt", Data, [
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
    CvtPack = "cvt.pack", Data, [
        ".sat.(u16|s16).s32 d, s, s",
        ".sat.(u2|s2|u4|s4|u8|s8).s32.b32 d, s, s, s",
    ];
    Mapa = "mapa", Data, ["{.shared::cluster}.$addrsize d, s, s"];
    Getctarank = "getctarank", Data, ["{.shared::cluster}.$addrsize d, s"];

    // ---------------------------------------------------------------- asynchronous copy
    CpAsync = "cp.async", AsyncCopy, [
        ".(ca|cg).$sharedspace.global{.L2::cache_hint}{.$prefetchsz} m, m, s, s?, s?",
        ".(ca|cg).$sharedspace.global{.L2::cache_hint}{.$prefetchsz} m, m, s, p, s?",
    ];
    CpAsyncCommitGroup = "cp.async.commit_group", AsyncCopy, [""];
    CpAsyncWaitGroup = "cp.async.wait_group", AsyncCopy, [" i"];
    CpAsyncWaitAll = "cp.async.wait_all", AsyncCopy, [""];
    CpAsyncBulk = "cp.async.bulk", AsyncCopy, [
        ".shared::cta.global.mbarrier::complete_tx::bytes{.L2::cache_hint} m, m, s, m, s?",
        ".shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} m, m, s, m, s?, s?",
        ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes m, m, s, m",
        ".global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask} m, m, s, s?, s?",
    ];
    CpReduceAsyncBulk = "cp.reduce.async.bulk", AsyncCopy, [
        ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.$redop.(b32|u32|s32|b64|u64) m, m, s, m",
        ".global.shared::cta.bulk_group{.L2::cache_hint}.$redop.(f16|bf16|b32|u32|s32|b64|u64|s64|f32|f64) m, m, s, s?",
        ".global.shared::cta.bulk_group{.L2::cache_hint}.add.noftz.(f16|bf16) m, m, s, s?",
    ];
    CpAsyncBulkPrefetch = "cp.async.bulk.prefetch", AsyncCopy, [".L2.global{.L2::cache_hint} m, s, s?"];
    CpAsyncBulkTensor = "cp.async.bulk.tensor", AsyncCopy, [
        ".$dim.shared::cta.global{.$loadmode}.mbarrier::complete_tx::bytes{.$ctagroup}{.L2::cache_hint} m, t, m, v?, s?",
        ".$dim.shared::cluster.global{.$loadmode}.mbarrier::complete_tx::bytes{.multicast::cluster}{.$ctagroup}{.L2::cache_hint} m, t, m, v?, s?, s?",
        ".$dim.global.shared::cta{.$storemode}.bulk_group{.L2::cache_hint} t, m, s?",
    ];
    CpReduceAsyncBulkTensor = "cp.reduce.async.bulk.tensor", AsyncCopy, [
        ".$dim.global.shared::cta.(add|min|max|inc|dec|and|or|xor){.(tile|im2col_no_offs)}.bulk_group{.L2::cache_hint} t, m, s?",
    ];
    CpAsyncBulkPrefetchTensor = "cp.async.bulk.prefetch.tensor", AsyncCopy, [
        ".$dim.L2.global{.$loadmode}{.L2::cache_hint} t, v?, s?",
    ];
    CpAsyncBulkCommitGroup = "cp.async.bulk.commit_group", AsyncCopy, [""];
    CpAsyncBulkWaitGroup = "cp.async.bulk.wait_group", AsyncCopy, ["{.read} i"];
    TensormapReplace = "tensormap.replace", AsyncCopy, [
        ".tile.(global_address|rank){.(global|shared::cta)}.b1024.$b3264 m, s",
        ".tile.(box_dim|global_dim|global_stride|element_stride){.(global|shared::cta)}.b1024.$b3264 m, i, s",
        ".tile.(elemtype|interleave_layout|swizzle_mode|swizzle_atomicity|fill_mode){.(global|shared::cta)}.b1024.$b3264 m, i",
    ];

    // ---------------------------------------------------------------- texture and surface
    Tex = "tex", Texture, [
        "{.base}.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, v?, s?",
        ".level.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, s, v?, s?",
        ".grad.$geom.v4.(u32|s32|f16|f32).(s32|f32) d, t, v, v, v?, s?",
        "{.base}.$geom.v2.f16x2.(s32|f32) d, t, v?, s?",
        ".level.$geom.v2.f16x2.(s32|f32) d, t, s, v?, s?",
        ".grad.$geom.v2.f16x2.(s32|f32) d, t, v, v, v?, s?",
    ];
    Tld4 = "tld4", Texture, [".(r|g|b|a).(2d|a2d|cube|acube).v4.(u32|s32|f32).f32 d, t, v?, s?"];
    Txq = "txq", Texture, [
        ".(width|height|depth|channel_data_type|channel_order|normalized_coords|array_size|num_mipmap_levels|num_samples).b32 d, m",
        ".level.(width|height|depth).b32 d, m, s",
        ".(force_unnormalized_coords|filter_mode|addr_mode_0|addr_mode_1|addr_mode_2).b32 d, m",
    ];
    Istypep = "istypep", Texture, [".(texref|samplerref|surfref) d, s"];
    Suld = "suld", Surface, [".b.$sugeom{.(ca|cg|cs|cv)}{.$v24}.(b8|b16|b32|b64).$sumode d, t"];
    Sust = "sust", Surface, [
        ".b.$sugeom{.$stcop}{.$v24}.(b8|b16|b32|b64).$sumode t, s",
        ".p.(1d|2d|3d){.$v24}.b32.$sumode t, s",
    ];
    Sured = "sured", Surface, [
        ".b.(add|min|max|and|or).(1d|2d|3d).(u32|u64|s32|b32|s64).$sumode t, s",
        ".p.(add|min|max|and|or).(1d|2d|3d).(b32|b64).$sumode t, s",
    ];
    Suq = "suq", Surface, [".(width|height|depth|channel_data_type|channel_order|array_size|memory_layout).b32 d, m"];

    // ---------------------------------------------------------------- control flow
    Bra = "bra", Control, ["{.uni} l"];
    BrxIdx = "brx.idx", Control, ["{.uni} s, l"];
    Call = "call", Control, ["{.uni} a?, l, a?, l?"];
    Ret = "ret", Control, ["{.uni}"];
    Exit = "exit", Control, [""];

    // ---------------------------------------------------------------- synchronization
    Bar = "bar", Sync, [
        "{.cta}.sync s, s?",
        "{.cta}.arrive s, s",
        "{.cta}.red.popc.u32 d, s, p",
        "{.cta}.red.popc.u32 d, s, s, p",
        "{.cta}.red.(and|or).pred d, s, p",
        "{.cta}.red.(and|or).pred d, s, s, p",
    ];
    Barrier = "barrier", Sync, [
        "{.cta}.sync{.aligned} s, s?",
        "{.cta}.arrive{.aligned} s, s",
        "{.cta}.red.popc{.aligned}.u32 d, s, p",
        "{.cta}.red.popc{.aligned}.u32 d, s, s, p",
        "{.cta}.red.(and|or){.aligned}.pred d, s, p",
        "{.cta}.red.(and|or){.aligned}.pred d, s, s, p",
    ];
    BarWarpSync = "bar.warp.sync", Sync, [" s"];
    BarrierCluster = "barrier.cluster", Sync, [
        ".arrive{.(release|relaxed)}{.aligned}",
        ".wait{.acquire}{.aligned}",
    ];
    Membar = "membar", Sync, [
        ".(cta|gl|sys)",
        ".proxy.(alias|async)",
        ".proxy.async.(global|shared::cta|shared::cluster)",
    ];
    Fence = "fence", Sync, [
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
    Atom = "atom", Sync, [
        "{.$atomsem}{.$scope}{.$atomspace}.$atomop{.L2::cache_hint}.$atomtype d, m, s, s?",
        "{.$atomsem}{.$scope}{.$atomspace}.cas.(b16|b128) d, m, s, s",
        "{.$atomsem}{.$scope}{.$atomspace}.exch{.L2::cache_hint}.b128 d, m, s, s?",
        "{.$atomsem}{.$scope}{.$atomspace}.add.noftz{.L2::cache_hint}.(f16|f16x2|bf16|bf16x2) d, m, s, s?",
        "{.$atomsem}{.$scope}{.global}.add{.L2::cache_hint}.$v24.f32 d, m, s, s?",
        "{.$atomsem}{.$scope}{.global}.(add|min|max).noftz{.L2::cache_hint}.$vec.(f16|bf16) d, m, s, s?",
        "{.$atomsem}{.$scope}{.global}.(add|min|max).noftz{.L2::cache_hint}.$v24.(f16x2|bf16x2) d, m, s, s?",
    ];
    Red = "red", Sync, [
        "{.$atomspace}{.$redsem}{.$scope}.$redop{.L2::cache_hint}.$atomtype m, s, s?",
        "{.$atomspace}{.$redsem}{.$scope}.add.noftz{.L2::cache_hint}.(f16|f16x2|bf16|bf16x2) m, s, s?",
        "{.global}{.$redsem}{.$scope}.add{.L2::cache_hint}.$v24.f32 m, s, s?",
        "{.global}{.$redsem}{.$scope}.(add|min|max).noftz{.L2::cache_hint}.$vec.(f16|bf16) m, s, s?",
        "{.global}{.$redsem}{.$scope}.(add|min|max).noftz{.L2::cache_hint}.$v24.(f16x2|bf16x2) m, s, s?",
    ];
    RedAsync = "red.async", Sync, [
        ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(inc|dec).u32 m, s, m",
        ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(min|max).(u32|s32) m, s, m",
        ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(and|or|xor).b32 m, s, m",
        ".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.add.(u32|s32|u64) m, s, m",
        "{.mmio}.release.(gpu|cluster|sys){.global}.add.(u32|s32|u64|s64) m, s",
    ];
    Vote = "vote", Sync, [
        ".$votemode.pred d, p",
        ".ballot.b32 d, p",
        ".sync.$votemode.pred d, p, s",
        ".sync.ballot.b32 d, p, s",
    ];
    Match = "match", Sync, [".(any|all).sync.$b3264 d, s, s"];
    Activemask = "activemask", Sync, [".b32 d"];
    Redux = "redux", Sync, [
        ".sync.(add|min|max).$i32 d, s, s",
        ".sync.(and|or|xor).b32 d, s, s",
        ".sync.(min|max){.abs}{.NaN}.f32 d, s, s",
    ];
    Griddepcontrol = "griddepcontrol", Sync, [".(launch_dependents|wait)"];
    Elect = "elect", Sync, [".sync d, s"];
    MbarrierInit = "mbarrier.init", Sync, ["{.$sharedspace}.b64 m, s"];
    MbarrierInval = "mbarrier.inval", Sync, ["{.$sharedspace}.b64 m"];
    MbarrierExpectTx = "mbarrier.expect_tx", Sync, ["{.relaxed}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 m, s"];
    MbarrierCompleteTx = "mbarrier.complete_tx", Sync, ["{.relaxed}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 m, s"];
    MbarrierArrive = "mbarrier.arrive", Sync, [
        "{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s?",
        "{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s?",
        ".expect_tx{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s",
        ".expect_tx{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s",
        ".noComplete{.release}{.cta}{.$sharedspace}.b64 d, m, s",
    ];
    MbarrierArriveDrop = "mbarrier.arrive_drop", Sync, [
        "{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s?",
        "{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s?",
        ".expect_tx{.(release|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s",
        ".expect_tx{.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 d, m, s",
        ".noComplete{.release}{.cta}{.$sharedspace}.b64 d, m, s",
    ];
    MbarrierTestWait = "mbarrier.test_wait", Sync, ["{.parity}{.(acquire|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s"];
    MbarrierTryWait = "mbarrier.try_wait", Sync, ["{.parity}{.(acquire|relaxed)}{.(cta|cluster)}{.$sharedspace}.b64 d, m, s, s?"];
    MbarrierPendingCount = "mbarrier.pending_count", Sync, [".b64 d, s"];
    CpAsyncMbarrierArrive = "cp.async.mbarrier.arrive", Sync, ["{.noinc}{.$sharedspace}.b64 m"];
    TensormapCpFenceproxy = "tensormap.cp_fenceproxy", Sync, [".global.shared::cta.tensormap::generic.release.$scope.sync.aligned m, m, i"];
    ClusterlaunchcontrolTryCancel = "clusterlaunchcontrol.try_cancel", Sync, [
        ".async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 m, m",
    ];
    ClusterlaunchcontrolQueryCancel = "clusterlaunchcontrol.query_cancel", Sync, [
        ".is_canceled.pred.b128 d, s",
        ".(get_first_ctaid::x|get_first_ctaid::y|get_first_ctaid::z).b32.b128 d, s",
        ".get_first_ctaid.v4.b32.b128 d, s",
    ];

    // ---------------------------------------------------------------- warp-level MMA
    WmmaLoad = "wmma.load", WarpMma, [
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
    WmmaStore = "wmma.store", WarpMma, [
        ".d.sync.aligned.(row|col).$wmmashape{.$wmmass}.(f16|f32|s32) m, v, s?",
        ".d.sync.aligned.(row|col).(m8n8k32|m8n8k128){.$wmmass}.s32 m, v, s?",
        ".d.sync.aligned.(row|col).m16n16k8{.$wmmass}.f32 m, v, s?",
        ".d.sync.aligned.(row|col).m8n8k4{.$wmmass}.f64 m, v, s?",
    ];
    WmmaMma = "wmma.mma", WarpMma, [
        ".sync.aligned.(row|col).(row|col).$wmmashape.(f16|f32).(f16|f32) v, v, v, v",
        ".sync.aligned.(row|col).(row|col).$wmmashape.s32.(s8|u8).(s8|u8).s32{.satfinite} v, v, v, v",
        ".sync.aligned.(row|col).(row|col).$wmmashape.f32.bf16.bf16.f32 v, v, v, v",
        ".sync.aligned.(row|col).(row|col).m16n16k8.f32.tf32.tf32.f32 v, v, v, v",
        ".sync.aligned.(row|col).(row|col).m8n8k4{.$rnd}.f64.f64.f64.f64 v, v, v, v",
        ".sync.aligned.row.col.m8n8k32.s32.(s4|u4).(s4|u4).s32{.satfinite} v, v, v, v",
        ".(xor|and).popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 v, v, v, v",
    ];
    Mma = "mma", WarpMma, [
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
    Ldmatrix = "ldmatrix", WarpMma, [
        ".sync.aligned.(m8n8|m16n16).$num{.trans}{.$sharedspace}.(b16|b8) v, m",
        ".sync.aligned.m8n16.$num{.$sharedspace}.b8x16.(b6x16_p32|b4x16_p64) v, m",
        ".sync.aligned.m16n16.$num.trans{.$sharedspace}.b8x16.(b6x16_p32|b4x16_p64) v, m",
    ];
    Stmatrix = "stmatrix", WarpMma, [".sync.aligned.(m8n8|m16n8).$num{.trans}{.$sharedspace}.(b16|b8) m, v"];
    Movmatrix = "movmatrix", WarpMma, [".sync.aligned.m8n8.trans.b16 d, s"];

    // ---------------------------------------------------------------- warpgroup MMA
    WgmmaMmaAsync = "wgmma.mma_async", Wgmma, [
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
    WgmmaFence = "wgmma.fence", Wgmma, [".sync.aligned"];
    WgmmaCommitGroup = "wgmma.commit_group", Wgmma, [".sync.aligned"];
    WgmmaWaitGroup = "wgmma.wait_group", Wgmma, [".sync.aligned i"];

    // ---------------------------------------------------------------- tcgen05
    Tcgen05Alloc = "tcgen05.alloc", Tcgen05, [".$ctagroup.sync.aligned{.shared::cta}.b32 m, s"];
    Tcgen05Dealloc = "tcgen05.dealloc", Tcgen05, [".$ctagroup.sync.aligned.b32 s, s"];
    Tcgen05RelinquishAllocPermit = "tcgen05.relinquish_alloc_permit", Tcgen05, [".$ctagroup.sync.aligned"];
    Tcgen05Ld = "tcgen05.ld", Tcgen05, [
        ".sync.aligned.$tmemshape.$tmemnum{.pack::16b}.b32 v, m",
        ".sync.aligned.16x32bx2.$tmemnum{.pack::16b}.b32 v, m, i",
        ".red.sync.aligned.32x32b.$tmemnum.(min|max){.abs}{.NaN}.f32 v, d, m",
        ".red.sync.aligned.16x32bx2.$tmemnum.(min|max){.abs}{.NaN}.f32 v, d, m, i",
        ".red.sync.aligned.32x32b.$tmemnum.(min|max).(u32|s32) v, d, m",
        ".red.sync.aligned.16x32bx2.$tmemnum.(min|max).(u32|s32) v, d, m, i",
    ];
    Tcgen05St = "tcgen05.st", Tcgen05, [
        ".sync.aligned.$tmemshape.$tmemnum{.unpack::16b}.b32 m, v",
        ".sync.aligned.16x32bx2.$tmemnum{.unpack::16b}.b32 m, i, v",
    ];
    // The ISA spells these `tcgen05.wait::ld`/`::st` (no dot), like `tcgen05.fence::*`.
    Tcgen05WaitLd = "tcgen05.wait::ld", Tcgen05, [".sync.aligned"];
    Tcgen05WaitSt = "tcgen05.wait::st", Tcgen05, [".sync.aligned"];
    Tcgen05Cp = "tcgen05.cp", Tcgen05, [
        ".$ctagroup.(128x256b|4x256b|128x128b) m, s",
        ".$ctagroup.(128x256b|4x256b|128x128b).b8x16.(b6x16_p32|b4x16_p64) m, s",
        ".$ctagroup.64x128b.(warpx2::02_13|warpx2::01_23) m, s",
        ".$ctagroup.64x128b.(warpx2::02_13|warpx2::01_23).b8x16.(b6x16_p32|b4x16_p64) m, s",
        ".$ctagroup.32x128b.warpx4 m, s",
        ".$ctagroup.32x128b.warpx4.b8x16.(b6x16_p32|b4x16_p64) m, s",
    ];
    Tcgen05Shift = "tcgen05.shift", Tcgen05, [".$ctagroup.down m"];
    Tcgen05Mma = "tcgen05.mma", Tcgen05, [
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
    Tcgen05Commit = "tcgen05.commit", Tcgen05, [
        ".$ctagroup.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 m, s?",
    ];
    Tcgen05FenceBeforeThreadSync = "tcgen05.fence::before_thread_sync", Tcgen05, [""];
    Tcgen05FenceAfterThreadSync = "tcgen05.fence::after_thread_sync", Tcgen05, [""];

    // ---------------------------------------------------------------- stack
    Stacksave = "stacksave", Stack, [".$addrsize d"];
    Stackrestore = "stackrestore", Stack, [".$addrsize s"];
    Alloca = "alloca", Stack, [".$addrsize d, s, i?"];

    // ---------------------------------------------------------------- video
    Vadd = "vadd", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
    Vsub = "vsub", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
    Vabsdiff = "vabsdiff", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
    Vmin = "vmin", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
    Vmax = "vmax", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s?", ".$vtype.$vtype.$vtype{.sat}.$vop2 d, s, s, s"];
    Vshl = "vshl", Video, [
        ".$vtype.$vtype.u32{.sat}.(clamp|wrap) d, s, s, s?",
        ".$vtype.$vtype.u32{.sat}.(clamp|wrap).$vop2 d, s, s, s",
    ];
    Vshr = "vshr", Video, [
        ".$vtype.$vtype.u32{.sat}.(clamp|wrap) d, s, s, s?",
        ".$vtype.$vtype.u32{.sat}.(clamp|wrap).$vop2 d, s, s, s",
    ];
    Vmad = "vmad", Video, [
        ".$vtype.$vtype.$vtype{.sat}{.(shr7|shr15)} d, s, s, s",
        ".$vtype.$vtype.$vtype.po{.sat}{.(shr7|shr15)} d, s, s, s",
    ];
    Vset = "vset", Video, [
        ".$vtype.$vtype.(eq|ne|lt|le|gt|ge) d, s, s, s?",
        ".$vtype.$vtype.(eq|ne|lt|le|gt|ge).$vop2 d, s, s, s",
    ];
    Vadd2 = "vadd2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vsub2 = "vsub2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vavrg2 = "vavrg2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vabsdiff2 = "vabsdiff2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vmin2 = "vmin2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vmax2 = "vmax2", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vset2 = "vset2", Video, [".$vtype.$vtype.(eq|ne|lt|le|gt|ge){.add} d, s, s, s"];
    Vadd4 = "vadd4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vsub4 = "vsub4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vavrg4 = "vavrg4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vabsdiff4 = "vabsdiff4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vmin4 = "vmin4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vmax4 = "vmax4", Video, [".$vtype.$vtype.$vtype{.sat} d, s, s, s", ".$vtype.$vtype.$vtype.add d, s, s, s"];
    Vset4 = "vset4", Video, [".$vtype.$vtype.(eq|ne|lt|le|gt|ge){.add} d, s, s, s"];

    // ---------------------------------------------------------------- miscellaneous
    Brkpt = "brkpt", Misc, [""];
    Nanosleep = "nanosleep", Misc, [".u32 s"];
    Pmevent = "pmevent", Misc, [" i", ".mask i"];
    Trap = "trap", Misc, [""];
    Setmaxnreg = "setmaxnreg", Misc, [".(inc|dec).sync.aligned.u32 i"];
}

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
                .map(|t| match Form::compile(t, &set) {
                    Ok(f) => f,
                    // The table is code; its tests compile every form.
                    Err(e) => panic!("instruction table, {}: {e}", self.name()),
                })
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
