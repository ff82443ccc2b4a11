//! Availability: the minimum PTX ISA version and the targets that support each instruction, and
//! each modifier or form of it where those differ. The table sits next to the instruction table
//! ([`crate::table`]) and is read from the "PTX ISA Notes" and "Target ISA Notes" of the PTX ISA
//! 9.0.
//!
//! Every opcode has a base requirement (an exhaustive `match`, so a new opcode does not compile
//! until it has one); [`RULES`] adds the requirements of modifiers, types and forms, each with a
//! condition on the instruction written in a small notation (see [`Rule::when`]).
//!
//! Targets follow the ISA's model: plain `sm_XY` targets are onion layers (everything of `sm_80`
//! runs on `sm_90`); architecture-specific `sm_XYa` features run only on the listed
//! architectures; family-specific features (from PTX 8.8) run on `sm_XYf` and on the `a` and `f`
//! targets of later architectures of the same family (`sm_100f` features on `sm_103a`). Targets
//! `sm_101*` were renamed `sm_110*` in PTX 9.0; both spellings are accepted and mean the same.

use crate::inst::Instruction;
use crate::module::{ArchSuffix, Target, Version};
use crate::operand::Operand;
pub use crate::smreq::SmReq;
use crate::smreq::*;
use crate::table::Opcode;
use crate::vocab::{Modifier, Space, Type};
use std::fmt;
use std::sync::OnceLock;

/// A concrete SM target: architecture number (with `sm_101` renamed to `sm_110`) and suffix.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sm {
    /// Architecture number (`90`, `100`, `121`).
    pub arch: u16,
    /// `a`, `f` or none.
    pub suffix: ArchSuffix,
}

impl Sm {
    /// The SM target of a `.target` entry (`compute_XY` counts as `sm_XY`), if it is one.
    pub fn of(t: Target) -> Option<Sm> {
        match t {
            Target::Sm { arch, suffix } => Some(Sm::new(arch, suffix)),
            Target::Compute(arch) => Some(Sm::new(arch, ArchSuffix::None)),
            _ => None,
        }
    }

    /// A target, normalising the PTX 9.0 rename of `sm_101` to `sm_110`.
    pub fn new(arch: u16, suffix: ArchSuffix) -> Sm {
        let arch = if arch == 101 { 110 } else { arch };
        Sm { arch, suffix }
    }

    /// The SM target among a module's `.target` entries.
    pub fn of_module(targets: &[Target]) -> Option<Sm> {
        targets.iter().find_map(|&t| Sm::of(t))
    }

    /// The architecture family (`10` for `sm_100`/`sm_103`, `11` for `sm_110`, `12` for
    /// `sm_120`/`sm_121`); older architectures have no families and stand alone.
    pub fn family(arch: u16) -> u16 {
        let arch = if arch == 101 { 110 } else { arch };
        if arch >= 100 {
            arch / 10
        } else {
            arch * 100
        }
    }

    /// Whether this target meets `req`.
    pub fn satisfies(self, req: SmReq) -> bool {
        match req {
            SmReq::Any => true,
            SmReq::Min(n) => self.arch >= n,
            SmReq::Only { a, f } => {
                (self.suffix == ArchSuffix::A && a.contains(&self.arch))
                    || (self.suffix != ArchSuffix::None
                        && f.iter()
                            .any(|&x| Sm::family(x) == Sm::family(self.arch) && self.arch >= x))
            }
        }
    }

    /// The PTX ISA version that introduced this target string.
    pub fn introduced(self) -> Version {
        let v = |major, minor| Version { major, minor };
        let plain = match self.arch {
            0..=11 => v(1, 0),
            12 | 13 => v(1, 2),
            20 => v(2, 0),
            30 => v(3, 0),
            35 => v(3, 1),
            32 | 50 => v(4, 0),
            37 | 52 => v(4, 1),
            53 => v(4, 2),
            60..=62 => v(5, 0),
            70 => v(6, 0),
            72 => v(6, 1),
            75 => v(6, 3),
            80 => v(7, 0),
            86 => v(7, 1),
            87 => v(7, 4),
            89 | 90 => v(7, 8),
            100 => v(8, 6),
            103 | 121 => v(8, 8),
            120 => v(8, 7),
            // sm_88, sm_110 and anything newer than this table
            _ => v(9, 0),
        };
        match (self.arch, self.suffix) {
            (90, ArchSuffix::A) => v(8, 0),
            // Family targets came with PTX 8.8; the renamed sm_110 family with 9.0.
            (_, ArchSuffix::F) => plain.max(v(8, 8)),
            _ => plain,
        }
    }

    /// The PTX ISA version that introduced the `.target` string `t` as written: as
    /// [`Sm::introduced`], except that the old spelling `sm_101`/`sm_101a` came with PTX 8.6 and
    /// `sm_101f` with 8.8 (seeds 000 and 004, Target ISA Notes: "`sm_101a` (Renamed to `sm_110a`
    /// from PTX ISA version 9.0)"), while the new spelling `sm_110*` needs 9.0.
    pub fn introduced_as_written(t: Target) -> Option<Version> {
        let sm = Sm::of(t)?;
        let written = match t {
            Target::Sm { arch, .. } | Target::Compute(arch) => arch,
            _ => return None,
        };
        Some(match (written, sm.suffix) {
            (101, ArchSuffix::F) => Version { major: 8, minor: 8 },
            (101, _) => Version { major: 8, minor: 6 },
            _ => sm.introduced(),
        })
    }

    /// Sort key from the most to the least portable target: by architecture, then plain before
    /// family-specific before architecture-specific.
    pub fn portability_key(self) -> (u16, u8) {
        let s = match self.suffix {
            ArchSuffix::None => 0,
            ArchSuffix::F => 1,
            ArchSuffix::A => 2,
        };
        (self.arch, s)
    }

    /// Whether the `.target` string exists at all (`sm_90f` does not).
    pub fn exists(self) -> bool {
        let plain = KNOWN.contains(&self.arch);
        match self.suffix {
            ArchSuffix::None => plain,
            ArchSuffix::A => plain && self.arch >= 90,
            ArchSuffix::F => plain && self.arch >= 100,
        }
    }
}

/// Architectures the PTX ISA 9.0 `.target` directive names.
pub const KNOWN: &[u16] = &[
    10, 11, 12, 13, 20, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90,
    100, 103, 110, 120, 121,
];

/// The PTX ISA versions, oldest first: those this table is read from and knows. The last is
/// the newest ([`LATEST`]); ptxas refuses a module of a later `.version` ("Unsupported
/// .version").
pub const VERSIONS: &[Version] = &[
    v(1, 0),
    v(1, 1),
    v(1, 2),
    v(1, 3),
    v(1, 4),
    v(2, 0),
    v(2, 1),
    v(2, 2),
    v(2, 3),
    v(3, 0),
    v(3, 1),
    v(3, 2),
    v(4, 0),
    v(4, 1),
    v(4, 2),
    v(4, 3),
    v(5, 0),
    v(6, 0),
    v(6, 1),
    v(6, 2),
    v(6, 3),
    v(6, 4),
    v(6, 5),
    v(7, 0),
    v(7, 1),
    v(7, 2),
    v(7, 3),
    v(7, 4),
    v(7, 5),
    v(7, 6),
    v(7, 7),
    v(7, 8),
    v(8, 0),
    v(8, 1),
    v(8, 2),
    v(8, 3),
    v(8, 4),
    v(8, 5),
    v(8, 6),
    v(8, 7),
    v(8, 8),
    v(9, 0),
];

/// The newest PTX ISA version this table knows (ptxas 13.0's "current version").
pub const LATEST: Version = v(9, 0);

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.suffix {
            ArchSuffix::None => "",
            ArchSuffix::A => "a",
            ArchSuffix::F => "f",
        };
        write!(f, "sm_{}{s}", self.arch)
    }
}

impl fmt::Display for SmReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SmReq::Any => f.write_str("any target"),
            SmReq::Min(n) => write!(f, "sm_{n} or higher"),
            SmReq::Only { a, f: fam } => {
                let mut parts: Vec<String> = a.iter().map(|x| format!("sm_{x}a")).collect();
                parts.extend(fam.iter().map(|x| format!("sm_{x}f family")));
                f.write_str(&parts.join(", "))
            }
        }
    }
}

/// A requirement of a modifier, type or form of an instruction.
#[derive(Copy, Clone, Debug)]
pub struct Rule {
    /// The instruction.
    pub opcode: Opcode,
    /// When the rule applies: alternatives separated by `|`, each a `+`-joined list of atoms
    /// that must all hold. An atom is a modifier spelling (`f64`, `shared::cluster`,
    /// `m16n8k16`), `!atom` (absent), `d:T` / `s:T` (the first / second type modifier is `T`)
    /// or `@name` (a named predicate of the rules).
    pub when: &'static str,
    /// Minimum PTX ISA version.
    pub ptx: Version,
    /// Targets.
    pub sm: SmReq,
}

/// The PTX ISA version that introduced the `.address_size` directive (ptxas: "Feature
/// '.address_size directive' requires PTX ISA .version 2.3 or later").
pub const ADDRESS_SIZE: Version = v(2, 3);

const fn v(major: u8, minor: u8) -> Version {
    Version { major, minor }
}

const fn r(opcode: Opcode, when: &'static str, ptx: Version, sm: SmReq) -> Rule {
    Rule {
        opcode,
        when,
        ptx,
        sm,
    }
}

/// The base requirement of every opcode: the ISA notes' "Introduced in PTX ISA version" and
/// "Requires sm_XX" lines, as its instruction table line gives them.
pub fn base(op: Opcode) -> (Version, SmReq) {
    let (major, minor) = op.introduced();
    (v(major, minor), op.targets())
}

use Opcode as O;

/// Scopes and semantics qualifiers of the memory instructions (PTX 6.0, `sm_70`).
const SCOPED: &str = "relaxed|acquire|release|acq_rel|weak|cta|gpu|sys";

/// Requirements of modifiers, types and forms, beyond each opcode's base.
pub const RULES: &[Rule] = &[
    // ------------------------------------------------------------ integer
    r(O::Add, "u16x2|s16x2", v(8, 0), min(90)),
    r(O::Min, "u16x2|s16x2|relu", v(8, 0), min(90)),
    r(O::Max, "u16x2|s16x2|relu", v(8, 0), min(90)),
    r(O::Add, "cc", v(1, 2), ANY),
    r(O::Sub, "cc", v(1, 2), ANY),
    r(O::Add, "cc+u64|cc+s64", v(4, 3), min(20)),
    r(O::Sub, "cc+u64|cc+s64", v(4, 3), min(20)),
    r(O::Addc, "u64|s64", v(4, 3), min(20)),
    r(O::Subc, "u64|s64", v(4, 3), min(20)),
    r(O::Mad, "cc", v(3, 0), min(20)),
    r(O::Mad, "cc+u64|cc+s64", v(4, 3), min(20)),
    r(O::Madc, "u64|s64", v(4, 3), min(20)),
    // ------------------------------------------------------------ floating point
    r(O::Add, "f64", v(1, 0), min(13)),
    r(O::Add, "rm+f32|rp+f32", v(1, 0), min(20)),
    r(O::Add, "f32x2", v(8, 6), min(100)),
    r(O::Add, "f16|f16x2", v(4, 2), min(53)),
    r(O::Add, "bf16+!f32|bf16x2", v(7, 8), min(90)),
    r(O::Add, "f32+f16|f32+bf16", v(8, 6), min(100)),
    r(O::Sub, "f64", v(1, 0), min(13)),
    r(O::Sub, "rm+f32|rp+f32", v(1, 0), min(20)),
    r(O::Sub, "f32x2", v(8, 6), min(100)),
    r(O::Sub, "f16|f16x2", v(4, 2), min(53)),
    r(O::Sub, "bf16+!f32|bf16x2", v(7, 8), min(90)),
    r(O::Sub, "f32+f16|f32+bf16", v(8, 6), min(100)),
    r(O::Mul, "f64", v(1, 0), min(13)),
    r(O::Mul, "rm+f32|rp+f32", v(1, 0), min(20)),
    r(O::Mul, "f32x2", v(8, 6), min(100)),
    r(O::Mul, "f16|f16x2", v(4, 2), min(53)),
    r(O::Mul, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Fma, "f64", v(1, 4), min(13)),
    r(O::Fma, "f32", v(2, 0), min(20)),
    r(O::Fma, "f32x2", v(8, 6), min(100)),
    r(O::Fma, "f16|f16x2", v(4, 2), min(53)),
    r(O::Fma, "relu|bf16|bf16x2", v(7, 0), min(80)),
    r(O::Fma, "oob", v(8, 1), min(90)),
    r(O::Fma, "f32+f16|f32+bf16", v(8, 6), min(100)),
    r(O::Mad, "f64", v(1, 0), min(13)),
    r(O::Mad, "f32+rn|f32+rz|f32+rm|f32+rp", v(1, 0), min(20)),
    r(O::Div, "approx|full|rn|rz|rm|rp", v(1, 4), ANY),
    r(O::Div, "f32+rn|f32+rz|f32+rm|f32+rp", v(1, 4), min(20)),
    r(O::Div, "f64", v(1, 0), min(13)),
    r(O::Div, "f64+rz|f64+rm|f64+rp", v(1, 4), min(20)),
    r(O::Abs, "f64", v(1, 0), min(13)),
    r(O::Abs, "f16|f16x2", v(6, 5), min(53)),
    r(O::Abs, "bf16|bf16x2", v(7, 0), min(80)),
    r(O::Neg, "f64", v(1, 0), min(13)),
    r(O::Neg, "f16|f16x2", v(6, 0), min(53)),
    r(O::Neg, "bf16|bf16x2", v(7, 0), min(80)),
    r(O::Min, "f64", v(1, 0), min(13)),
    r(O::Min, "NaN", v(7, 0), min(80)),
    r(O::Min, "xorsign", v(7, 2), min(86)),
    r(O::Min, "@nsrc3", v(8, 8), min(100)),
    r(O::Min, "f16|f16x2|bf16|bf16x2", v(7, 0), min(80)),
    r(O::Max, "f64", v(1, 0), min(13)),
    r(O::Max, "NaN", v(7, 0), min(80)),
    r(O::Max, "xorsign", v(7, 2), min(86)),
    r(O::Max, "@nsrc3", v(8, 8), min(100)),
    r(O::Max, "f16|f16x2|bf16|bf16x2", v(7, 0), min(80)),
    r(O::Rcp, "approx|ftz", v(1, 4), ANY),
    r(O::Rcp, "f32+rn|f32+rz|f32+rm|f32+rp", v(2, 0), min(20)),
    r(O::Rcp, "f64", v(1, 0), min(13)),
    r(O::Rcp, "f64+rz|f64+rm|f64+rp", v(2, 0), min(20)),
    r(O::Rcp, "approx+ftz+f64", v(2, 1), min(20)),
    r(O::Sqrt, "approx|ftz", v(1, 4), ANY),
    r(O::Sqrt, "f32+rn|f32+rz|f32+rm|f32+rp", v(2, 0), min(20)),
    r(O::Sqrt, "f64", v(1, 0), min(13)),
    r(O::Sqrt, "f64+rz|f64+rm|f64+rp", v(2, 0), min(20)),
    r(O::Rsqrt, "approx|ftz", v(1, 4), ANY),
    r(O::Rsqrt, "f64", v(1, 0), min(13)),
    r(O::Rsqrt, "approx+ftz+f64", v(4, 0), min(20)),
    r(O::Sin, "approx|ftz", v(1, 4), ANY),
    r(O::Cos, "approx|ftz", v(1, 4), ANY),
    r(O::Lg2, "approx|ftz", v(1, 4), ANY),
    r(O::Ex2, "approx|ftz", v(1, 4), ANY),
    r(O::Ex2, "f16|f16x2", v(7, 0), min(75)),
    r(O::Ex2, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Tanh, "bf16|bf16x2", v(7, 8), min(90)),
    // ------------------------------------------------------------ comparison
    r(O::Set, "f64", v(1, 0), min(13)),
    r(O::Set, "f16|f16x2", v(4, 2), min(53)),
    r(O::Set, "s:f16+u16|s:f16+s16|s:f16+u32|s:f16+s32|s:f16x2+u32|s:f16x2+s32", v(6, 5), min(53)),
    r(O::Set, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Setp, "f64", v(1, 0), min(13)),
    r(O::Setp, "f16|f16x2", v(4, 2), min(53)),
    r(O::Setp, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Selp, "f64", v(1, 0), min(13)),
    r(O::Slct, "f64", v(1, 0), min(13)),
    // ------------------------------------------------------------ logic
    r(O::Lop3, "and|or", v(8, 2), min(70)),
    // ------------------------------------------------------------ data movement
    r(O::Mov, "f64", v(1, 0), min(13)),
    r(O::Mov, "b128", v(8, 3), min(70)),
    r(O::Shfl, "sync", v(6, 0), min(30)),
    r(O::Ld, "volatile", v(1, 1), ANY),
    r(O::Ld, "f64", v(1, 0), min(13)),
    r(O::Ld, "ca|cg|cs|lu|cv", v(2, 0), min(20)),
    r(O::Ld, SCOPED, v(6, 0), min(70)),
    r(O::Ld, "cluster", v(7, 8), min(90)),
    r(O::Ld, "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate", v(7, 4), min(70)),
    r(O::Ld, "L2::64B|L2::128B", v(7, 4), min(75)),
    r(O::Ld, "L2::256B|L2::cache_hint", v(7, 4), min(80)),
    r(O::Ld, "shared::cta", v(7, 8), min(30)),
    r(O::Ld, "shared::cluster", v(7, 8), min(90)),
    r(O::Ld, "@unified", v(8, 0), min(90)),
    r(O::Ld, "mmio", v(8, 2), min(70)),
    r(O::Ld, "param::entry|param::func", v(8, 3), ANY),
    r(O::Ld, "b128", v(8, 3), min(70)),
    r(O::Ld, "b128+sys", v(8, 4), min(70)),
    r(O::Ld, "nc", v(3, 1), min(32)),
    r(O::Ld, "L2::evict_normal|L2::evict_first|L2::evict_last|v8|v4+b64|v4+u64|v4+s64|v4+f64", v(8, 8), min(100)),
    r(O::Ldu, "f64", v(2, 0), min(13)),
    r(O::Ldu, "b128", v(8, 3), min(70)),
    r(O::St, "volatile", v(1, 1), ANY),
    r(O::St, "f64", v(1, 0), min(13)),
    r(O::St, "wb|cg|cs|wt", v(2, 0), min(20)),
    r(O::St, SCOPED, v(6, 0), min(70)),
    r(O::St, "cluster", v(7, 8), min(90)),
    r(O::St, "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate", v(7, 4), min(70)),
    r(O::St, "L2::cache_hint", v(7, 4), min(80)),
    r(O::St, "shared::cta", v(7, 8), min(30)),
    r(O::St, "shared::cluster", v(7, 8), min(90)),
    r(O::St, "mmio", v(8, 2), min(70)),
    r(O::St, "param::func", v(8, 3), ANY),
    r(O::St, "b128", v(8, 3), min(70)),
    r(O::St, "b128+sys", v(8, 4), min(70)),
    r(O::St, "L2::evict_normal|L2::evict_first|L2::evict_last|v8|v4+b64|v4+u64|v4+s64|v4+f64", v(8, 8), min(100)),
    r(O::StAsync, "mmio|release|global|gpu|sys", v(8, 7), min(100)),
    r(O::StBulk, "@bulk_size32", v(9, 0), min(100)),
    r(O::MultimemLdReduce, "acc::f32", v(8, 2), min(90)),
    r(O::MultimemLdReduce, "e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4", v(8, 6), MM8),
    r(O::MultimemLdReduce, "acc::f16", v(8, 6), MM8),
    r(O::MultimemSt, "e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4", v(8, 6), MM8),
    r(O::Prefetch, "L2::evict_last|L2::evict_normal", v(7, 4), min(80)),
    r(O::Prefetch, "tensormap", v(8, 0), min(90)),
    r(O::Isspacep, "const", v(3, 1), min(20)),
    r(O::Isspacep, "param|param::entry", v(7, 7), min(70)),
    r(O::Isspacep, "shared::cta", v(7, 8), min(30)),
    r(O::Isspacep, "shared::cluster", v(7, 8), min(90)),
    r(O::Isspacep, "param::entry", v(8, 3), min(70)),
    r(O::Cvta, "const", v(3, 1), min(20)),
    r(O::Cvta, "param|param::entry", v(7, 7), min(70)),
    r(O::Cvta, "shared::cta", v(7, 8), min(30)),
    r(O::Cvta, "shared::cluster", v(7, 8), min(90)),
    r(O::Cvta, "param::entry", v(8, 3), min(70)),
    r(O::Cvt, "f64", v(1, 0), min(13)),
    r(O::Cvt, "relu|d:f16x2|d:bf16x2|d:tf32|d:bf16+s:f32", v(7, 0), min(80)),
    r(O::Cvt, "s:bf16+d:f32", v(7, 1), min(80)),
    r(O::Cvt, "d:bf16+!s:f32|s:bf16+!d:f32|s:bf16+d:f32+ftz|d:tf32+rn|d:tf32+rz", v(7, 8), min(90)),
    r(O::Cvt, "e4m3x2|e5m2x2", v(7, 8), min(89)),
    r(O::Cvt, "satfinite+d:f16|satfinite+d:bf16|satfinite+d:f16x2|satfinite+d:bf16x2|satfinite+d:tf32", v(8, 1), min(80)),
    r(O::Cvt, "satfinite+d:tf32+rn|satfinite+d:tf32+rz", v(8, 6), min(100)),
    r(O::Cvt, "e2m1x2|e2m3x2|e3m2x2|ue8m0x2", v(8, 6), BW),
    r(O::Cvt, "rs", v(8, 7), SmReq::Only { a: &[100, 103], f: &[] }),
    r(O::CvtPack, "u4|s4|u2|s2", v(6, 5), min(75)),
    r(O::CpAsync, "L2::cache_hint|L2::64B|L2::128B|L2::256B", v(7, 4), min(80)),
    r(O::CpAsync, "shared::cta", v(7, 8), min(80)),
    r(O::CpAsyncBulk, "@bulk_dst_cta", v(8, 6), min(90)),
    r(O::CpAsyncBulk, "cp_mask", v(8, 6), min(100)),
    r(O::CpAsyncBulkTensor, "@bulk_dst_cta", v(8, 6), min(90)),
    r(O::CpAsyncBulkTensor, "tile::gather4+shared::cluster+!shared::cta|im2col::w+shared::cluster+!shared::cta", v(8, 6), A100F),
    r(O::CpAsyncBulkTensor, "tile::gather4|im2col::w", v(8, 6), min(100)),
    r(O::CpAsyncBulkTensor, "tile::scatter4|im2col::w::128|cta_group::1|cta_group::2", v(8, 6), TC),
    r(O::CpAsyncBulkPrefetchTensor, "tile::gather4|im2col::w|im2col::w::128", v(8, 6), TC),
    r(O::TensormapReplace, "swizzle_atomicity", v(8, 6), BW),
    // ------------------------------------------------------------ texture and surface
    r(O::Tex, "a1d|a2d", v(2, 3), ANY),
    r(O::Tex, "cube|acube", v(3, 0), ANY),
    r(O::Tex, "acube", v(3, 0), min(20)),
    r(O::Tex, "level|grad", v(3, 1), min(20)),
    r(O::Tex, "2dms|a2dms", v(3, 2), min(30)),
    r(O::Tex, "f16|f16x2", v(4, 2), min(53)),
    r(O::Tex, "grad+cube|grad+acube", v(4, 3), min(20)),
    r(O::Tld4, "a2d|cube|acube", v(4, 3), min(30)),
    r(O::Txq, "channel_data_type|channel_order", v(2, 1), ANY),
    r(O::Txq, "force_unnormalized_coords", v(2, 2), ANY),
    r(O::Txq, "array_size|num_mipmap_levels", v(4, 1), min(20)),
    r(O::Txq, "num_samples", v(4, 1), min(30)),
    r(O::Txq, "level", v(4, 3), min(30)),
    r(O::Suld, "ca|cg|cs|cv|clamp|zero", v(2, 0), min(20)),
    r(O::Suld, "3d|a1d|a2d", v(3, 0), min(20)),
    r(O::Sust, "wb|cg|cs|wt|clamp|zero|p", v(2, 0), min(20)),
    r(O::Sust, "3d|a1d|a2d", v(3, 0), min(20)),
    r(O::Sured, "min+u64|min+s64|min+b64|max+u64|max+s64|max+b64", v(8, 1), min(50)),
    r(O::Suq, "channel_data_type|channel_order", v(2, 1), ANY),
    r(O::Suq, "array_size", v(4, 1), ANY),
    r(O::Suq, "memory_layout", v(4, 2), ANY),
    // ------------------------------------------------------------ control flow
    r(O::Call, "@indirect", v(2, 1), min(20)),
    // ------------------------------------------------------------ synchronization
    r(O::Bar, "arrive|red", v(2, 0), min(20)),
    r(O::Bar, "cta", v(7, 8), ANY),
    r(O::Barrier, "cta", v(7, 8), min(30)),
    r(O::BarrierCluster, "acquire|relaxed|release", v(8, 0), min(90)),
    r(O::Membar, "sys", v(2, 0), min(20)),
    r(O::Membar, "proxy", v(7, 5), min(60)),
    r(O::Membar, "proxy+async", v(8, 0), min(90)),
    r(O::Fence, "proxy", v(7, 5), min(70)),
    r(O::Fence, "cluster", v(7, 8), min(90)),
    r(O::Fence, "proxy+async|mbarrier_init", v(8, 0), min(90)),
    r(O::Fence, "tensormap::generic|async::generic", v(8, 3), min(90)),
    r(O::Fence, "acquire+!proxy|release+!proxy+!mbarrier_init|sync_restrict::shared::cta|sync_restrict::shared::cluster", v(8, 6), min(90)),
    r(O::Atom, "shared|shared::cta|shared::cluster|b64|u64|s64", v(1, 2), min(12)),
    r(O::Atom, "add+f32", v(2, 0), min(20)),
    r(O::Atom, "shared+b64|shared+u64|shared+s64", v(2, 0), min(20)),
    r(O::Atom, "and+b64|or+b64|xor+b64|min+u64|min+s64|max+u64|max+s64", v(3, 1), min(32)),
    r(O::Atom, "add+f64", v(5, 0), min(60)),
    r(O::Atom, "cta|gpu|sys", v(5, 0), min(60)),
    r(O::Atom, "relaxed|acquire|release|acq_rel", v(6, 0), min(70)),
    r(O::Atom, "noftz+f16x2", v(6, 2), min(60)),
    r(O::Atom, "noftz+f16|cas+b16", v(6, 3), min(70)),
    r(O::Atom, "L2::cache_hint", v(7, 4), min(80)),
    r(O::Atom, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Atom, "cluster|shared::cluster", v(7, 8), min(90)),
    r(O::Atom, "shared::cta", v(7, 8), min(30)),
    r(O::Atom, "v2|v4|v8", v(8, 1), min(90)),
    r(O::Atom, "b128", v(8, 3), min(90)),
    r(O::Atom, "b128+sys", v(8, 4), min(90)),
    r(O::Red, "shared|shared::cta|shared::cluster", v(1, 2), min(12)),
    r(O::Red, "add+f32|shared+add+u64", v(2, 0), min(20)),
    r(O::Red, "and+b64|or+b64|xor+b64|min+u64|min+s64|max+u64|max+s64", v(3, 1), min(32)),
    r(O::Red, "add+f64", v(5, 0), min(60)),
    r(O::Red, "cta|gpu|sys", v(5, 0), min(60)),
    r(O::Red, "relaxed|release", v(6, 0), min(70)),
    r(O::Red, "noftz+f16x2", v(6, 2), min(60)),
    r(O::Red, "noftz+f16", v(6, 3), min(70)),
    r(O::Red, "L2::cache_hint", v(7, 4), min(80)),
    r(O::Red, "bf16|bf16x2", v(7, 8), min(90)),
    r(O::Red, "cluster|shared::cluster", v(7, 8), min(90)),
    r(O::Red, "shared::cta", v(7, 8), min(30)),
    r(O::Red, "v2|v4|v8", v(8, 1), min(90)),
    r(O::RedAsync, "mmio|release|global|gpu|sys", v(8, 7), min(100)),
    r(O::Vote, "ballot", v(1, 2), min(20)),
    r(O::Vote, "sync", v(6, 0), min(30)),
    r(O::Redux, "f32|abs|NaN", v(8, 6), A100F),
    r(O::MbarrierInit, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierInval, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierArrive, "@sink_dst", v(7, 1), min(80)),
    r(O::MbarrierArrive, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierArrive, "@mbar_count", v(7, 8), min(90)),
    r(O::MbarrierArrive, "expect_tx|shared::cluster|cluster", v(8, 0), min(90)),
    r(O::MbarrierArrive, "release|cta", v(8, 0), min(80)),
    r(O::MbarrierArrive, "relaxed", v(8, 6), min(80)),
    r(O::MbarrierArriveDrop, "@sink_dst", v(7, 1), min(80)),
    r(O::MbarrierArriveDrop, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierArriveDrop, "@mbar_count", v(7, 8), min(90)),
    r(O::MbarrierArriveDrop, "expect_tx|shared::cluster|cluster", v(8, 0), min(90)),
    r(O::MbarrierArriveDrop, "release|cta", v(8, 0), min(80)),
    r(O::MbarrierArriveDrop, "relaxed", v(8, 6), min(80)),
    r(O::CpAsyncMbarrierArrive, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierTestWait, "parity", v(7, 1), min(80)),
    r(O::MbarrierTestWait, "shared::cta", v(7, 8), min(80)),
    r(O::MbarrierTestWait, "acquire|cta", v(8, 0), min(80)),
    r(O::MbarrierTestWait, "cluster", v(8, 0), min(90)),
    r(O::MbarrierTestWait, "relaxed", v(8, 6), min(80)),
    r(O::MbarrierTryWait, "acquire|cta|cluster", v(8, 0), min(90)),
    r(O::MbarrierTryWait, "relaxed", v(8, 6), min(90)),
    r(O::ClusterlaunchcontrolTryCancel, "multicast::cluster::all", v(8, 6), BW),
    // ------------------------------------------------------------ warp-level MMA
    r(O::WmmaLoad, "m8n32k16|m32n8k16", v(6, 1), min(70)),
    r(O::WmmaLoad, "s8|u8", v(6, 3), min(72)),
    r(O::WmmaLoad, "s4|u4|b1", v(6, 3), min(75)),
    r(O::WmmaLoad, "m8n8k4|m16n16k8|f64|tf32|bf16", v(7, 0), min(80)),
    r(O::WmmaLoad, "shared::cta", v(7, 8), min(70)),
    r(O::WmmaStore, "m8n32k16|m32n8k16", v(6, 1), min(70)),
    r(O::WmmaStore, "s32", v(6, 3), min(72)),
    r(O::WmmaStore, "m8n8k32|m8n8k128", v(6, 3), min(75)),
    r(O::WmmaStore, "m8n8k4|m16n16k8|f64", v(7, 0), min(80)),
    r(O::WmmaStore, "shared::cta", v(7, 8), min(70)),
    r(O::WmmaMma, "m8n32k16|m32n8k16", v(6, 1), min(70)),
    r(O::WmmaMma, "s8|u8", v(6, 3), min(72)),
    r(O::WmmaMma, "s4|u4|b1", v(6, 3), min(75)),
    r(O::WmmaMma, "m8n8k4|m16n16k8|f64|tf32|bf16", v(7, 0), min(80)),
    r(O::WmmaMma, "and", v(7, 1), min(80)),
    r(O::Mma, "m16n8k8+f16", v(6, 5), min(75)),
    r(O::Mma, "m8n8k16|m8n8k32", v(6, 5), min(75)),
    r(O::Mma, "m8n8k128", v(7, 0), min(75)),
    r(O::Mma, "m8n8k4+f64|m16n8k16+f16|bf16|tf32|m16n8k16+u8|m16n8k16+s8|m16n8k32+u8|m16n8k32+s8", v(7, 0), min(80)),
    r(O::Mma, "m16n8k32+u4|m16n8k32+s4|m16n8k64+u4|m16n8k64+s4|m16n8k128|m16n8k256", v(7, 0), min(80)),
    r(O::Mma, "and", v(7, 1), min(80)),
    r(O::Mma, "sp|sp::ordered_metadata", v(7, 1), min(80)),
    r(O::Mma, "sp::ordered_metadata", v(8, 5), min(80)),
    r(O::Mma, "f64+m16n8k4|f64+m16n8k8|f64+m16n8k16", v(7, 8), min(90)),
    r(O::Mma, "e4m3|e5m2", v(8, 4), min(89)),
    r(O::Mma, "e4m3+f16+!sp+!sp::ordered_metadata|e5m2+f16+!sp+!sp::ordered_metadata|e4m3+m16n8k16|e5m2+m16n8k16", v(8, 7), min(89)),
    r(O::Mma, "e4m3+f16+sp|e5m2+f16+sp|e4m3+f16+sp::ordered_metadata|e5m2+f16+sp::ordered_metadata", v(8, 7), min(120)),
    r(O::Mma, "e3m2|e2m3|e2m1|kind::f8f6f4|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4|block_scale", v(8, 7), A120F),
    r(O::Mma, "sp::ordered_metadata+kind::mxf4|sp::ordered_metadata+kind::mxf4nvf4", v(8, 7), SmReq::Only { a: &[120, 121], f: &[] }),
    r(O::Ldmatrix, "shared::cta", v(7, 8), min(75)),
    r(O::Ldmatrix, "m16n16|m8n16|b8|b8x16", v(8, 6), BW),
    r(O::Stmatrix, "m16n8|b8", v(8, 6), BW),
    r(O::Stmatrix, "shared::cta", v(7, 8), min(90)),
    // ------------------------------------------------------------ wgmma and tcgen05
    r(O::WgmmaMmaAsync, "sp", v(8, 2), A90),
    r(O::WgmmaMmaAsync, "u8+s8", v(8, 4), A90),
    r(O::Tcgen05Ld, "red", v(8, 8), SmReq::Only { a: &[110], f: &[103, 110] }),
    r(O::Tcgen05Mma, "kind::i8", v(8, 6), SmReq::Only { a: &[100, 110], f: &[] }),
    r(O::Tcgen05Mma, "kind::mxf4nvf4", v(8, 7), TC),
    r(O::Tcgen05Mma, "sp+kind::mxf4|sp+kind::mxf4nvf4", v(8, 7), SmReq::Only { a: &[100, 103, 110], f: &[] }),
    r(O::Tcgen05Mma, "block16|block32", v(8, 8), SmReq::Only { a: &[], f: &[100, 110] }),
    r(O::Tcgen05Mma, "scale_vec::1X|scale_vec::2X|scale_vec::4X", v(8, 6), SmReq::Only { a: &[100, 110], f: &[] }),
    // ------------------------------------------------------------ miscellaneous
    r(O::Pmevent, "mask", v(3, 0), min(20)),
];

/// Named predicates of [`Rule::when`].
pub(crate) fn predicate(name: &str, inst: &Instruction) -> bool {
    match name {
        // min/max with three inputs
        "nsrc3" => inst.operands.len() == 4,
        "unified" => inst
            .operands
            .iter()
            .any(|o| matches!(o, Operand::Addr { unified: true, .. })),
        // an indirect call names a call-target list or prototype after the arguments
        "indirect" => {
            inst.operands
                .iter()
                .filter(|o| !matches!(o, Operand::Args(_)))
                .count()
                == 2
        }
        "mbar_count" => {
            inst.operands.len() == 3
                && !inst.has(crate::vocab::Flag::NoComplete)
                && !inst.has(crate::vocab::Flag::ExpectTx)
        }
        "sink_dst" => matches!(inst.operands.first(), Some(Operand::Sink)),
        "bulk_dst_cta" => inst.spaces().first() == Some(&Space::SharedCta),
        // st.bulk's size operand held in a 32-bit register is only known from the register's
        // declaration; the verifier does not look that up here.
        "bulk_size32" => false,
        _ => false,
    }
}

/// A phrase for a named predicate, for messages.
pub(crate) fn describe_predicate(name: &str) -> &'static str {
    match name {
        "nsrc3" => "three source operands",
        "unified" => "a `.unified` address",
        "indirect" => "an indirect target",
        "mbar_count" => "a count operand without `.noComplete`",
        "sink_dst" => "the sink `_` as destination",
        "bulk_dst_cta" => "a `.shared::cta` destination",
        "bulk_size32" => "a 32-bit size",
        _ => "a special form",
    }
}

#[derive(Clone, Debug)]
enum Atom {
    Mod(Modifier, bool),
    Nth(usize, Type, bool),
    Pred(&'static str, bool),
}

/// A rule's index in [`RULES`] and its condition: alternatives of conjunctions.
type CompiledRule = (usize, Vec<Vec<Atom>>);

struct Compiled {
    /// Per opcode: its rules' indices.
    rules: Vec<Vec<usize>>,
    /// Per opcode: its rules, compiled when first needed (compiling every rule took a quarter
    /// of `ptx check` on a small file).
    by_op: Vec<OnceLock<Vec<CompiledRule>>>,
}

/// Compiles a condition; `Err` names an atom that is not a modifier spelling.
fn compile_when(when: &'static str) -> Result<Vec<Vec<Atom>>, String> {
    let mut alts = Vec::new();
    if when.trim().is_empty() {
        alts.push(Vec::new());
        return Ok(alts);
    }
    for alt in when.split('|') {
        let mut conj = Vec::new();
        for atom in alt.split('+') {
            let atom = atom.trim();
            let (neg, a) = match atom.strip_prefix('!') {
                Some(a) => (true, a),
                None => (false, atom),
            };
            let parsed = if let Some(p) = a.strip_prefix('@') {
                Atom::Pred(p, !neg)
            } else if let Some((pos, t)) = a.split_once(':').filter(|(p, _)| *p == "d" || *p == "s")
            {
                let n = if pos == "d" { 0 } else { 1 };
                match Modifier::lookup(t.as_bytes()) {
                    Some(Modifier::Type(ty)) => Atom::Nth(n, ty, !neg),
                    _ => return Err(format!("`{t}` is not a type")),
                }
            } else {
                match Modifier::lookup(a.as_bytes()) {
                    Some(m) => Atom::Mod(m, !neg),
                    None => return Err(format!("`{a}` is not a modifier")),
                }
            };
            conj.push(parsed);
        }
        alts.push(conj);
    }
    Ok(alts)
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let mut rules = vec![Vec::new(); Opcode::COUNT];
        for (i, rule) in RULES.iter().enumerate() {
            rules[rule.opcode as usize].push(i);
        }
        let by_op = (0..Opcode::COUNT).map(|_| OnceLock::new()).collect();
        Compiled { rules, by_op }
    })
}

/// The compiled rules of `op`.
fn rules_of(op: Opcode) -> &'static [CompiledRule] {
    let c = compiled();
    c.by_op[op as usize].get_or_init(|| {
        c.rules[op as usize]
            .iter()
            // A condition that does not compile never matches; the table's test reports it.
            .map(|&i| (i, compile_when(RULES[i].when).unwrap_or_default()))
            .collect()
    })
}

fn atom_holds(a: &Atom, inst: &Instruction) -> bool {
    match a {
        Atom::Mod(m, want) => inst.mods.contains(m) == *want,
        Atom::Nth(n, t, want) => (inst.types().get(*n) == Some(t)) == *want,
        Atom::Pred(p, want) => predicate(p, inst) == *want,
    }
}

/// One requirement an instruction places on the module.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// Minimum PTX ISA version.
    pub ptx: Version,
    /// Targets.
    pub sm: SmReq,
    /// The rule's condition (`""` for the opcode's base requirement).
    pub when: &'static str,
}

/// Every requirement of `inst`: its opcode's base and each matching rule.
pub fn needs(inst: &Instruction) -> Vec<Need> {
    let (ptx, sm) = base(inst.opcode);
    let mut out = vec![Need { ptx, sm, when: "" }];
    for (i, alts) in rules_of(inst.opcode) {
        if alts
            .iter()
            .any(|conj| conj.iter().all(|a| atom_holds(a, inst)))
        {
            let rule = &RULES[*i];
            out.push(Need {
                ptx: rule.ptx,
                sm: rule.sm,
                when: rule.when,
            });
        }
    }
    out
}

/// Requirements of special registers (PTX ISA chapter 10).
pub fn special_need(reg: crate::special::SpecialReg) -> (Version, SmReq) {
    use crate::special::SpecialReg as S;
    match reg {
        S::IsExplicitCluster
        | S::Clusterid
        | S::Nclusterid
        | S::ClusterCtaid
        | S::ClusterNctaid
        | S::ClusterCtarank
        | S::ClusterNctarank => (v(7, 8), min(90)),
        S::LanemaskEq | S::LanemaskLe | S::LanemaskLt | S::LanemaskGe | S::LanemaskGt => {
            (v(2, 0), min(20))
        }
        S::Clock64 | S::Nwarpid | S::Nsmid => (v(2, 0), min(20)),
        S::ClockHi => (v(5, 0), min(20)),
        S::Globaltimer | S::GlobaltimerLo | S::GlobaltimerHi => (v(3, 1), min(30)),
        S::ReservedSmemOffsetBegin
        | S::ReservedSmemOffsetEnd
        | S::ReservedSmemOffsetCap
        | S::ReservedSmemOffset(_) => (v(7, 6), min(80)),
        S::TotalSmemSize | S::DynamicSmemSize => (v(4, 1), min(20)),
        S::AggrSmemSize => (v(8, 1), min(90)),
        S::CurrentGraphExec => (v(8, 0), min(50)),
        S::Pm64(_) => (v(4, 0), min(50)),
        S::Pm(n) if n >= 4 => (v(3, 0), min(20)),
        S::Pm(_) => (v(1, 3), ANY),
        S::Envreg(_) => (v(2, 1), ANY),
        S::Laneid | S::Warpid | S::Smid => (v(1, 3), ANY),
        S::Tid | S::Ntid | S::Ctaid | S::Nctaid | S::Gridid | S::Clock | S::WarpSz => {
            (v(1, 0), ANY)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_ordered_and_end_at_latest() {
        assert!(VERSIONS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(VERSIONS.last(), Some(&LATEST));
        // Every target is introduced by a version of the table.
        for &arch in KNOWN {
            let v = Sm::new(arch, ArchSuffix::None).introduced();
            assert!(VERSIONS.contains(&v), "sm_{arch}: {v:?}");
        }
    }

    #[test]
    fn every_condition_compiles() {
        for rule in RULES {
            if let Err(e) = compile_when(rule.when) {
                panic!("{} `{}`: {e}", rule.opcode.name(), rule.when);
            }
        }
    }

    #[test]
    fn families_and_suffixes() {
        let t = |a, s| Sm::new(a, s);
        use ArchSuffix::*;
        assert!(t(90, A).satisfies(A90));
        assert!(!t(90, None).satisfies(A90));
        assert!(
            !t(100, A).satisfies(A90),
            "sm_90a features are not forward-compatible"
        );
        assert!(t(100, F).satisfies(TC));
        assert!(
            t(103, A).satisfies(TC),
            "sm_100f features run on later a-targets of the family"
        );
        assert!(t(103, F).satisfies(TC));
        assert!(!t(103, None).satisfies(TC));
        assert!(!t(120, A).satisfies(TC), "sm_12x is another family");
        assert!(
            t(101, A).satisfies(TC),
            "sm_101a is the old name of sm_110a"
        );
        assert!(t(121, F).satisfies(BW));
        assert!(t(100, None).satisfies(SmReq::Min(90)));
        assert_eq!(t(101, F), t(110, F));
        assert_eq!(t(100, F).introduced(), Version { major: 8, minor: 8 });
        assert_eq!(t(90, A).introduced(), Version { major: 8, minor: 0 });
        let w = |arch, suffix| Sm::introduced_as_written(Target::Sm { arch, suffix });
        let v = |major, minor| Some(Version { major, minor });
        assert_eq!(w(101, A), v(8, 6), "sm_101a is PTX 8.6's spelling");
        assert_eq!(w(101, None), v(8, 6));
        assert_eq!(w(101, F), v(8, 8));
        assert_eq!(w(110, A), v(9, 0));
        assert_eq!(w(100, A), v(8, 6));
    }
}

#[cfg(test)]
mod coverage {
    use super::*;

    #[test]
    fn rules_refine_their_base() {
        for r in RULES {
            let (ptx, _) = base(r.opcode);
            assert!(
                r.ptx >= ptx,
                "{} `{}` predates its opcode",
                r.opcode.name(),
                r.when
            );
        }
    }

    /// `cargo test -p ptx-ir-core coverage -- --nocapture` prints the table's coverage.
    #[test]
    fn coverage() {
        let with_rules: std::collections::BTreeSet<_> = RULES.iter().map(|r| r.opcode).collect();
        let specific = RULES
            .iter()
            .filter(|r| matches!(r.sm, SmReq::Only { .. }))
            .count();
        let base_specific = Opcode::ALL
            .iter()
            .filter(|&&o| matches!(base(o).1, SmReq::Only { .. }))
            .count();
        let atoms: usize = RULES.iter().map(|r| r.when.split(['|', '+']).count()).sum();
        eprintln!(
            "opcodes: {} with a base requirement ({} a/f-specific); {} conditional rules on {} opcodes ({} a/f-specific, {} condition atoms)",
            Opcode::COUNT,
            base_specific,
            RULES.len(),
            with_rules.len(),
            specific,
            atoms
        );
    }
}
