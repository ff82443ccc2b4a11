//! The modifier vocabulary: every dotted qualifier PTX instructions take, grouped into typed
//! classes, with its one spelling.
//!
//! This is the single place where modifier spellings live; the reader, the printer, the form
//! grammars of the instruction table and the bytecode all go through it. Each spelling belongs to
//! exactly one class (a test checks this), so a modifier token can be resolved without knowing
//! the instruction it belongs to.

use crate::shape::Shape;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! vocabulary {
    ( $( $(#[$cm:meta])* $class:ident { $( $var:ident = $sp:literal ),* $(,)? } )* ) => {
        $(
            $(#[$cm])*
            #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
            #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
            #[repr(u8)]
            pub enum $class {
                $( #[doc = concat!("`.", $sp, "`")] $var, )*
            }

            impl $class {
                /// Every member of this class, in table order.
                pub const ALL: &'static [$class] = &[$($class::$var),*];

                /// The spelling without the leading dot.
                pub const fn as_str(self) -> &'static str {
                    match self { $($class::$var => $sp,)* }
                }

                /// Index of this member within its class.
                pub const fn ordinal(self) -> u8 {
                    self as u8
                }

                /// The member with the given ordinal, if any.
                pub fn from_ordinal(i: u8) -> Option<Self> {
                    Self::ALL.get(i as usize).copied()
                }
            }

            impl From<$class> for Modifier {
                fn from(v: $class) -> Modifier {
                    Modifier::$class(v)
                }
            }

            impl fmt::Display for $class {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, ".{}", self.as_str())
                }
            }
        )*

        /// One instruction qualifier (`.rn`, `.u32`, `.shared::cta`, `.m16n8k16`, ...), typed by its
        /// class. Two bytes: the class and the member.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub enum Modifier {
            $( #[doc = concat!("A member of [`", stringify!($class), "`].")] $class($class), )*
            /// A matrix or tensor-memory shape (`.m16n8k16`, `.16x64b`, ...).
            Shape(Shape),
        }

        /// The class of a [`Modifier`].
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum ModClass {
            $( #[doc = concat!("[`", stringify!($class), "`]")] $class, )*
            /// [`Shape`]
            Shape,
        }

        impl ModClass {
            /// Every class, in table order.
            pub const ALL: &'static [ModClass] = &[$(ModClass::$class,)* ModClass::Shape];

            /// Number of members in the class.
            pub const fn len(self) -> usize {
                match self {
                    $( ModClass::$class => $class::ALL.len(), )*
                    ModClass::Shape => Shape::COUNT,
                }
            }

            /// Whether the class is empty (never, but clippy asks).
            pub const fn is_empty(self) -> bool {
                self.len() == 0
            }

            /// The class name as it appears in the table.
            pub fn name(self) -> &'static str {
                match self {
                    $( ModClass::$class => stringify!($class), )*
                    ModClass::Shape => "Shape",
                }
            }
        }

        impl Modifier {
            /// The class of this modifier.
            pub fn class(self) -> ModClass {
                match self {
                    $( Modifier::$class(_) => ModClass::$class, )*
                    Modifier::Shape(_) => ModClass::Shape,
                }
            }

            /// Ordinal within its class.
            pub fn ordinal(self) -> u8 {
                match self {
                    $( Modifier::$class(v) => v.ordinal(), )*
                    Modifier::Shape(s) => s.ordinal(),
                }
            }

            /// The modifier of `class` with ordinal `i`.
            pub fn from_parts(class: ModClass, i: u8) -> Option<Modifier> {
                match class {
                    $( ModClass::$class => $class::from_ordinal(i).map(Modifier::$class), )*
                    ModClass::Shape => Shape::from_ordinal(i).map(Modifier::Shape),
                }
            }

            /// The spelling without the leading dot.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Modifier::$class(v) => v.as_str(), )*
                    Modifier::Shape(s) => s.as_str(),
                }
            }
        }
    };
}

vocabulary! {
    /// Data types, including packed, sub-byte and opaque types.
    Type {
        Pred = "pred", B1 = "b1", B8 = "b8", B16 = "b16", B32 = "b32", B64 = "b64", B128 = "b128",
        B1024 = "b1024",
        U2 = "u2", U4 = "u4", U8 = "u8", U16 = "u16", U32 = "u32", U64 = "u64",
        S2 = "s2", S4 = "s4", S8 = "s8", S16 = "s16", S32 = "s32", S64 = "s64",
        F16 = "f16", F16x2 = "f16x2", F32 = "f32", F64 = "f64", Bf16 = "bf16", Bf16x2 = "bf16x2",
        Tf32 = "tf32", F32x2 = "f32x2", U16x2 = "u16x2", S16x2 = "s16x2",
        E4m3 = "e4m3", E5m2 = "e5m2", E2m3 = "e2m3", E3m2 = "e3m2", E2m1 = "e2m1",
        Ue8m0 = "ue8m0", Ue4m3 = "ue4m3",
        E4m3x2 = "e4m3x2", E5m2x2 = "e5m2x2", E2m3x2 = "e2m3x2", E3m2x2 = "e3m2x2",
        E2m1x2 = "e2m1x2", Ue8m0x2 = "ue8m0x2",
        E4m3x4 = "e4m3x4", E5m2x4 = "e5m2x4", E2m3x4 = "e2m3x4", E3m2x4 = "e3m2x4",
        E2m1x4 = "e2m1x4",
        B8x16 = "b8x16", B6x16P32 = "b6x16_p32", B4x16P64 = "b4x16_p64",
        Texref = "texref", Samplerref = "samplerref", Surfref = "surfref",
    }
    /// Rounding modes (floating-point and integer rounding).
    Rounding {
        Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs",
        Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi",
    }
    /// Comparison operators of `setp`, `set`, `slct`, `vset`. (`.lo` and `.hi` are
    /// [`Flag::Lo`]/[`Flag::Hi`], shared with `mul.lo`/`mul.hi`.)
    Cmp {
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge", Ls = "ls", Hs = "hs",
        Equ = "equ", Neu = "neu", Ltu = "ltu", Leu = "leu", Gtu = "gtu", Geu = "geu",
        Num = "num", Nan = "nan",
    }
    /// Operations of reductions, atomics, boolean combination and bit operations.
    Op {
        And = "and", Or = "or", Xor = "xor", Add = "add", Inc = "inc", Dec = "dec", Min = "min",
        Max = "max", Exch = "exch", Cas = "cas", Popc = "popc",
    }
    /// State spaces and their sub-qualifiers.
    Space {
        Reg = "reg", Sreg = "sreg", Const = "const", Global = "global", Local = "local",
        Param = "param", Shared = "shared", Tex = "tex",
        SharedCta = "shared::cta", SharedCluster = "shared::cluster",
        ParamEntry = "param::entry", ParamFunc = "param::func",
    }
    /// Memory scopes (and `membar`'s `.gl` level).
    Scope { Cta = "cta", Cluster = "cluster", Gpu = "gpu", Sys = "sys", Gl = "gl" }
    /// Memory-ordering semantics.
    Sem {
        Weak = "weak", Relaxed = "relaxed", Acquire = "acquire", Release = "release",
        AcqRel = "acq_rel", Volatile = "volatile", Sc = "sc", Mmio = "mmio",
    }
    /// Cache operators of `ld`/`st`.
    CacheOp { Ca = "ca", Cg = "cg", Cs = "cs", Lu = "lu", Cv = "cv", Wb = "wb", Wt = "wt" }
    /// Cache levels, eviction priorities, cache hints and prefetch sizes.
    Cache {
        L1 = "L1", L2 = "L2",
        L1EvictNormal = "L1::evict_normal", L1EvictUnchanged = "L1::evict_unchanged",
        L1EvictFirst = "L1::evict_first", L1EvictLast = "L1::evict_last",
        L1NoAllocate = "L1::no_allocate",
        L2EvictNormal = "L2::evict_normal", L2EvictFirst = "L2::evict_first",
        L2EvictLast = "L2::evict_last", L2EvictUnchanged = "L2::evict_unchanged",
        L2CacheHint = "L2::cache_hint",
        L2B64 = "L2::64B", L2B128 = "L2::128B", L2B256 = "L2::256B",
    }
    /// Vector widths.
    Vector { V2 = "v2", V4 = "v4", V8 = "v8" }
    /// Matrix layouts.
    Layout { Row = "row", Col = "col" }
    /// Tensor dimensionality and texture/surface geometries.
    Dim {
        D1 = "1d", D2 = "2d", D3 = "3d", D4 = "4d", D5 = "5d", A1d = "a1d", A2d = "a2d",
        Cube = "cube", Acube = "acube", D2ms = "2dms", A2dms = "a2dms",
    }
    /// Counts: `ldmatrix`/`stmatrix` `.num`, `tcgen05.ld/st` `.num`.
    Count {
        X1 = "x1", X2 = "x2", X4 = "x4", X8 = "x8", X16 = "x16", X32 = "x32", X64 = "x64",
        X128 = "x128",
    }
    /// Operation kinds and block scaling of the MMA families.
    Kind {
        F16 = "kind::f16", Tf32 = "kind::tf32", F8f6f4 = "kind::f8f6f4", I8 = "kind::i8",
        Mxf8f6f4 = "kind::mxf8f6f4", Mxf4 = "kind::mxf4", Mxf4nvf4 = "kind::mxf4nvf4",
        ScaleVec1X = "scale_vec::1X", ScaleVec2X = "scale_vec::2X", ScaleVec4X = "scale_vec::4X",
        Block16 = "block16", Block32 = "block32",
        AccF32 = "acc::f32", AccF16 = "acc::f16",
    }
    /// Every other keyword qualifier.
    Flag {
        // arithmetic
        Ftz = "ftz", Sat = "sat", SatFinite = "satfinite", Relu = "relu", Approx = "approx",
        Full = "full", Wide = "wide", Hi = "hi", Lo = "lo", Cc = "cc", NoFtz = "noftz",
        NaN = "NaN", XorSign = "xorsign", Abs = "abs", Oob = "oob", ShiftAmt = "shiftamt",
        Clamp = "clamp", Wrap = "wrap", Trap = "trap", Zero = "zero", L = "l", R = "r",
        Po = "po", Shr7 = "shr7", Shr15 = "shr15", Finite = "finite", Infinite = "infinite",
        Number = "number", NotANumber = "notanumber", Normal = "normal", Subnormal = "subnormal",
        Pack = "pack",
        // prmt modes
        F4e = "f4e", B4e = "b4e", Rc8 = "rc8", Ecl = "ecl", Ecr = "ecr", Rc16 = "rc16",
        // warp-level
        Sync = "sync", Aligned = "aligned", Uni = "uni", Up = "up", Down = "down",
        Bfly = "bfly", Idx = "idx", All = "all", Any = "any", Ballot = "ballot",
        // barriers
        Arrive = "arrive", Red = "red", Wait = "wait", ExpectTx = "expect_tx",
        Parity = "parity", NoComplete = "noComplete", NoInc = "noinc",
        // async copies
        Async = "async", Tile = "tile", TileGather4 = "tile::gather4",
        TileScatter4 = "tile::scatter4", Im2col = "im2col", Im2colW = "im2col::w",
        Im2colW128 = "im2col::w::128", Im2colNoOffs = "im2col_no_offs",
        MbarrierCompleteTxBytes = "mbarrier::complete_tx::bytes",
        MbarrierArriveOne = "mbarrier::arrive::one", BulkGroup = "bulk_group",
        MulticastCluster = "multicast::cluster", MulticastClusterAll = "multicast::cluster::all",
        CtaGroup1 = "cta_group::1", CtaGroup2 = "cta_group::2", Read = "read",
        CpMask = "cp_mask",
        // mma
        Sp = "sp", SpOrderedMetadata = "sp::ordered_metadata", Ws = "ws", Trans = "trans",
        BlockScale = "block_scale", Ashift = "ashift",
        CollectorAFill = "collector::a::fill", CollectorAUse = "collector::a::use",
        CollectorALastuse = "collector::a::lastuse", CollectorADiscard = "collector::a::discard",
        CollectorB0Fill = "collector::b0::fill", CollectorB0Use = "collector::b0::use",
        CollectorB0Lastuse = "collector::b0::lastuse",
        CollectorB0Discard = "collector::b0::discard",
        CollectorB1Fill = "collector::b1::fill", CollectorB1Use = "collector::b1::use",
        CollectorB1Lastuse = "collector::b1::lastuse",
        CollectorB1Discard = "collector::b1::discard",
        CollectorB2Fill = "collector::b2::fill", CollectorB2Use = "collector::b2::use",
        CollectorB2Lastuse = "collector::b2::lastuse",
        CollectorB2Discard = "collector::b2::discard",
        CollectorB3Fill = "collector::b3::fill", CollectorB3Use = "collector::b3::use",
        CollectorB3Lastuse = "collector::b3::lastuse",
        CollectorB3Discard = "collector::b3::discard",
        Pack16b = "pack::16b", Unpack16b = "unpack::16b",
        Warpx2_02_13 = "warpx2::02_13", Warpx2_01_23 = "warpx2::01_23", Warpx4 = "warpx4",
        WaitLd = "wait::ld", WaitSt = "wait::st",
        FenceBeforeThreadSync = "fence::before_thread_sync",
        FenceAfterThreadSync = "fence::after_thread_sync",
        // fences and proxies
        Proxy = "proxy", Alias = "alias", AsyncGeneric = "async::generic",
        TensormapGeneric = "tensormap::generic",
        SyncRestrictSharedCta = "sync_restrict::shared::cta",
        SyncRestrictSharedCluster = "sync_restrict::shared::cluster",
        MbarrierInit = "mbarrier_init",
        // misc
        To = "to", Nc = "nc", Unified = "unified", Mask = "mask", Cvt = "cvt",
        Tensormap = "tensormap",
        CreatePolicyFractional = "fractional", Range = "range",
        LaunchDependents = "launch_dependents", IsCanceled = "is_canceled",
        GetFirstCtaid = "get_first_ctaid", GetFirstCtaidX = "get_first_ctaid::x",
        GetFirstCtaidY = "get_first_ctaid::y", GetFirstCtaidZ = "get_first_ctaid::z",
        // texture, surface and tensormap
        B = "b", P = "p", G = "g", A = "a", C = "c", D = "d", Base = "base", Level = "level", Grad = "grad",
        Width = "width", Height = "height", Depth = "depth",
        ChannelDataType = "channel_data_type", ChannelOrder = "channel_order",
        NormalizedCoords = "normalized_coords", ArraySize = "array_size",
        NumMipmapLevels = "num_mipmap_levels", NumSamples = "num_samples",
        MemoryLayout = "memory_layout", ForceUnnormalizedCoords = "force_unnormalized_coords",
        FilterMode = "filter_mode", AddrMode0 = "addr_mode_0", AddrMode1 = "addr_mode_1",
        AddrMode2 = "addr_mode_2",
        GlobalAddress = "global_address", Rank = "rank", BoxDim = "box_dim",
        GlobalDim = "global_dim", GlobalStride = "global_stride",
        ElementStride = "element_stride", Elemtype = "elemtype",
        InterleaveLayout = "interleave_layout", SwizzleMode = "swizzle_mode",
        SwizzleAtomicity = "swizzle_atomicity", FillMode = "fill_mode",
    }
}

impl Space {
    /// The state spaces a declaration inside a function body may have, as the reader reads
    /// one (the sub-qualified spaces name operands, not declarations).
    pub const IN_BODY: [Space; 8] = [
        Space::Reg,
        Space::Local,
        Space::Shared,
        Space::Param,
        Space::Const,
        Space::Global,
        Space::Tex,
        Space::Sreg,
    ];

    /// Whether a declaration in a function body may be in this space ([`Space::IN_BODY`]).
    pub fn declarable_in_body(self) -> bool {
        Space::IN_BODY.contains(&self)
    }
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.as_str())
    }
}

impl fmt::Display for ModClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Total number of modifiers in the vocabulary (the size of [`Modifier::dense`]'s range).
pub fn vocabulary_size() -> usize {
    ModClass::ALL.iter().map(|c| c.len()).sum()
}

/// The dense index of each class's first member.
const CLASS_OFFSETS: [u16; ModClass::ALL.len()] = {
    let mut t = [0u16; ModClass::ALL.len()];
    let mut acc = 0;
    let mut k = 0;
    while k < ModClass::ALL.len() {
        t[k] = acc as u16;
        acc += ModClass::ALL[k].len();
        k += 1;
    }
    t
};

impl Modifier {
    /// A dense index over the whole vocabulary, `0..vocabulary_size()`; used for bit sets.
    pub fn dense(self) -> u16 {
        CLASS_OFFSETS[self.class() as usize] + self.ordinal() as u16
    }

    /// The stable number of the modifier: its class's position in [`ModClass::ALL`] in the
    /// high byte and its ordinal in the class in the low byte. Spellings are only ever
    /// appended to a class and classes to the list, so a number never changes (the bytecode
    /// writes these; [`Modifier::dense`] moves when an earlier class grows).
    pub fn code(self) -> u16 {
        (self.class() as u16) << 8 | self.ordinal() as u16
    }

    /// The modifier numbered `code` ([`Modifier::code`]).
    #[inline]
    pub fn from_code(code: u16) -> Option<Modifier> {
        let class = (code >> 8) as usize;
        let (offset, len) = (*CLASS_OFFSETS.get(class)?, ModClass::ALL[class].len());
        let i = (code & 0xff) as usize;
        (i < len)
            .then(|| Modifier::dense_table().get(offset as usize + i).copied())
            .flatten()
    }

    /// The modifier with dense index `i` (see [`Modifier::dense`]).
    pub fn from_dense(i: u16) -> Option<Modifier> {
        Modifier::dense_table().get(i as usize).copied()
    }

    /// Every modifier, indexed by [`Modifier::dense`].
    pub(crate) fn dense_table() -> &'static [Modifier] {
        static ALL: std::sync::OnceLock<Vec<Modifier>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| Modifier::all().collect())
    }

    /// Every modifier in the vocabulary, in dense order.
    pub fn all() -> impl Iterator<Item = Modifier> {
        ModClass::ALL
            .iter()
            .flat_map(|&c| (0..c.len()).filter_map(move |i| Modifier::from_parts(c, i as u8)))
    }

    /// Resolves a spelling (without the leading dot) to its modifier.
    pub fn lookup(spelling: &[u8]) -> Option<Modifier> {
        spelling_map().get(spelling).copied()
    }
}

fn spelling_map() -> &'static rustc_hash::FxHashMap<&'static [u8], Modifier> {
    static MAP: std::sync::OnceLock<rustc_hash::FxHashMap<&'static [u8], Modifier>> =
        std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        let mut m = rustc_hash::FxHashMap::default();
        for md in Modifier::all() {
            m.insert(md.as_str().as_bytes(), md);
        }
        m
    })
}

/// Type properties the reader, verifier and interpreter share.
impl Type {
    /// Width in bits of one value of this type (packed types count the whole package).
    pub const fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred | B1 => 1,
            U2 | S2 => 2,
            U4 | S4 | E2m1 => 4,
            E2m3 | E3m2 => 6,
            B8 | U8 | S8 | E4m3 | E5m2 | Ue8m0 | Ue4m3 | E2m1x2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 16,
            E2m1x4 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 32,
            E4m3x4 | E5m2x4 | E2m3x4 | E3m2x4 => 32,
            B64 | U64 | S64 | F64 | F32x2 | Texref | Samplerref | Surfref => 64,
            B128 | B8x16 | B6x16P32 | B4x16P64 => 128,
            B1024 => 1024,
        }
    }

    /// Whether this is a signed integer type.
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            Type::S2 | Type::S4 | Type::S8 | Type::S16 | Type::S32 | Type::S64 | Type::S16x2
        )
    }

    /// Whether this is an unsigned integer type.
    pub const fn is_unsigned(self) -> bool {
        matches!(
            self,
            Type::U2 | Type::U4 | Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::U16x2
        )
    }

    /// Whether this is an untyped bit-size type.
    pub const fn is_bits(self) -> bool {
        matches!(
            self,
            Type::B1 | Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128 | Type::B1024
        )
    }

    /// Whether this is a floating-point type (scalar or packed).
    pub const fn is_float(self) -> bool {
        use Type::*;
        matches!(
            self,
            F16 | F16x2
                | F32
                | F64
                | Bf16
                | Bf16x2
                | Tf32
                | F32x2
                | E4m3
                | E5m2
                | E2m3
                | E3m2
                | E2m1
                | Ue8m0
                | Ue4m3
                | E4m3x2
                | E5m2x2
                | E2m3x2
                | E3m2x2
                | E2m1x2
                | Ue8m0x2
                | E4m3x4
                | E5m2x4
                | E2m3x4
                | E3m2x4
                | E2m1x4
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique_and_resolve() {
        let mut seen = std::collections::HashSet::new();
        for m in Modifier::all() {
            let s = m.as_str();
            assert!(
                seen.insert(s),
                "spelling .{s} appears twice in the vocabulary"
            );
            assert_eq!(Modifier::lookup(s.as_bytes()), Some(m));
        }
        // Near misses miss.
        for m in Modifier::all() {
            let s = m.as_str();
            for other in [
                format!("{s}x"),
                format!("{s}\0"),
                s[..s.len() - 1].to_string(),
            ] {
                if !seen.contains(other.as_str()) {
                    assert_eq!(Modifier::lookup(other.as_bytes()), None, "{other:?}");
                }
            }
        }
        assert_eq!(Modifier::lookup(b""), None);
    }

    #[test]
    fn dense_index_is_a_bijection() {
        let all: Vec<_> = Modifier::all().collect();
        assert_eq!(all.len(), vocabulary_size());
        for (i, m) in all.iter().enumerate() {
            assert_eq!(m.dense() as usize, i);
            assert_eq!(Modifier::from_dense(i as u16), Some(*m));
        }
        assert_eq!(Modifier::from_dense(all.len() as u16), None);
    }
}
