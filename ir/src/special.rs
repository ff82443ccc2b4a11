//! Predefined, read-only special registers (`%tid`, `%clock64`, `%cluster_ctarank`, ...).

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! specials {
    ( $( $var:ident = $sp:literal : $ty:literal, $vec:literal ; )* ) => {
        /// A special register. Numbered families (`%pm3`, `%envreg17`) carry their number.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub enum SpecialReg {
            $( #[doc = concat!("`", $sp, "`")] $var, )*
            /// `%pm0` .. `%pm7`
            Pm(u8),
            /// `%pm0_64` .. `%pm7_64`
            Pm64(u8),
            /// `%envreg0` .. `%envreg31`
            Envreg(u8),
            /// `%reserved_smem_offset_0`, `%reserved_smem_offset_1`
            ReservedSmemOffset(u8),
        }

        impl SpecialReg {
            /// The registers without a number, in table order.
            pub const PLAIN: &'static [SpecialReg] = &[$(SpecialReg::$var),*];

            /// The PTX type of the register (`"u32"`, `"u64"`, `"pred"`, ...), and whether it is a
            /// `.v4` vector whose components are read as `.x`, `.y`, `.z`.
            pub fn ty(self) -> (&'static str, bool) {
                match self {
                    $( SpecialReg::$var => ($ty, $vec), )*
                    SpecialReg::Pm(_) | SpecialReg::Envreg(_) | SpecialReg::ReservedSmemOffset(_) => ("u32", false),
                    SpecialReg::Pm64(_) => ("u64", false),
                }
            }

            fn plain_name(self) -> Option<&'static str> {
                match self {
                    $( SpecialReg::$var => Some($sp), )*
                    _ => None,
                }
            }

            /// Resolves a spelling given as bytes (with the `%`).
            ///
            /// Readers call this for every new `%` name, and most are numbered registers
            /// (`%r123`, `%rd7`): a name ending in a digit is rejected at once unless it starts
            /// like one of the numbered special registers.
            #[inline]
            pub fn lookup_bytes(s: &[u8]) -> Option<SpecialReg> {
                if s.last().is_some_and(u8::is_ascii_digit)
                    && !(s.starts_with(b"%pm")
                        || s.starts_with(b"%envreg")
                        || s.starts_with(b"%reserved_smem_offset_")
                        || s == b"%clock64")
                {
                    return None;
                }
                std::str::from_utf8(s).ok().and_then(SpecialReg::lookup)
            }

            /// Resolves a spelling (with the `%`).
            pub fn lookup(s: &str) -> Option<SpecialReg> {
                match s {
                    $( $sp => return Some(SpecialReg::$var), )*
                    _ => {}
                }
                let num = |prefix: &str, suffix: &str, max: u8| -> Option<u8> {
                    let d = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
                    if d.is_empty() || (d.len() > 1 && d.starts_with('0')) {
                        return None;
                    }
                    d.parse::<u8>().ok().filter(|&n| n <= max)
                };
                if let Some(n) = num("%pm", "_64", 7) {
                    return Some(SpecialReg::Pm64(n));
                }
                if let Some(n) = num("%pm", "", 7) {
                    return Some(SpecialReg::Pm(n));
                }
                if let Some(n) = num("%envreg", "", 31) {
                    return Some(SpecialReg::Envreg(n));
                }
                if let Some(n) = num("%reserved_smem_offset_", "", 1) {
                    return Some(SpecialReg::ReservedSmemOffset(n));
                }
                None
            }
        }
    };
}

specials! {
    Tid = "%tid": "u32", true;
    Ntid = "%ntid": "u32", true;
    Laneid = "%laneid": "u32", false;
    Warpid = "%warpid": "u32", false;
    Nwarpid = "%nwarpid": "u32", false;
    Ctaid = "%ctaid": "u32", true;
    Nctaid = "%nctaid": "u32", true;
    Smid = "%smid": "u32", false;
    Nsmid = "%nsmid": "u32", false;
    Gridid = "%gridid": "u64", false;
    IsExplicitCluster = "%is_explicit_cluster": "pred", false;
    Clusterid = "%clusterid": "u32", true;
    Nclusterid = "%nclusterid": "u32", true;
    ClusterCtaid = "%cluster_ctaid": "u32", true;
    ClusterNctaid = "%cluster_nctaid": "u32", true;
    ClusterCtarank = "%cluster_ctarank": "u32", false;
    ClusterNctarank = "%cluster_nctarank": "u32", false;
    LanemaskEq = "%lanemask_eq": "u32", false;
    LanemaskLe = "%lanemask_le": "u32", false;
    LanemaskLt = "%lanemask_lt": "u32", false;
    LanemaskGe = "%lanemask_ge": "u32", false;
    LanemaskGt = "%lanemask_gt": "u32", false;
    Clock = "%clock": "u32", false;
    ClockHi = "%clock_hi": "u32", false;
    Clock64 = "%clock64": "u64", false;
    Globaltimer = "%globaltimer": "u64", false;
    GlobaltimerLo = "%globaltimer_lo": "u32", false;
    GlobaltimerHi = "%globaltimer_hi": "u32", false;
    ReservedSmemOffsetBegin = "%reserved_smem_offset_begin": "u32", false;
    ReservedSmemOffsetEnd = "%reserved_smem_offset_end": "u32", false;
    ReservedSmemOffsetCap = "%reserved_smem_offset_cap": "u32", false;
    TotalSmemSize = "%total_smem_size": "u32", false;
    AggrSmemSize = "%aggr_smem_size": "u32", false;
    DynamicSmemSize = "%dynamic_smem_size": "u32", false;
    CurrentGraphExec = "%current_graph_exec": "u64", false;
    // The predefined constant `WARP_SZ` (PTX ISA 4.4, predefined identifiers) is read like a
    // special register; it is last so the bytecode numbers of the others stay as they were.
    WarpSz = "WARP_SZ": "u32", false;
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.plain_name() {
            return f.write_str(s);
        }
        match *self {
            SpecialReg::Pm(n) => write!(f, "%pm{n}"),
            SpecialReg::Pm64(n) => write!(f, "%pm{n}_64"),
            SpecialReg::Envreg(n) => write!(f, "%envreg{n}"),
            SpecialReg::ReservedSmemOffset(n) => write!(f, "%reserved_smem_offset_{n}"),
            _ => unreachable!("plain registers are printed above"),
        }
    }
}

impl SpecialReg {
    /// The register as a family and a number: `(0, i)` for [`SpecialReg::PLAIN`]`[i]`, and
    /// `(1, n)` `%pmN`, `(2, n)` `%pmN_64`, `(3, n)` `%envregN`, `(4, n)`
    /// `%reserved_smem_offset_N`. Compact bodies and the bytecode store registers so.
    pub fn family_number(self) -> (u8, u8) {
        match self {
            SpecialReg::Pm(n) => (1, n),
            SpecialReg::Pm64(n) => (2, n),
            SpecialReg::Envreg(n) => (3, n),
            SpecialReg::ReservedSmemOffset(n) => (4, n),
            plain => {
                let i = SpecialReg::PLAIN.iter().position(|&p| p == plain);
                (0, i.unwrap_or(0) as u8)
            }
        }
    }

    /// The register of a family and a number ([`SpecialReg::family_number`]), if there is one
    /// (numbered registers are not checked against their ranges: see [`SpecialReg::is_valid`]).
    pub fn from_family_number(family: u8, number: u8) -> Option<SpecialReg> {
        Some(match family {
            0 => *SpecialReg::PLAIN.get(number as usize)?,
            1 => SpecialReg::Pm(number),
            2 => SpecialReg::Pm64(number),
            3 => SpecialReg::Envreg(number),
            4 => SpecialReg::ReservedSmemOffset(number),
            _ => return None,
        })
    }

    /// Whether the register is well formed (numbered families within their ranges).
    pub fn is_valid(self) -> bool {
        match self {
            SpecialReg::Pm(n) | SpecialReg::Pm64(n) => n <= 7,
            SpecialReg::Envreg(n) => n <= 31,
            SpecialReg::ReservedSmemOffset(n) => n <= 1,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        let mut all: Vec<SpecialReg> = SpecialReg::PLAIN.to_vec();
        all.extend((0..8).map(SpecialReg::Pm));
        all.extend((0..8).map(SpecialReg::Pm64));
        all.extend((0..32).map(SpecialReg::Envreg));
        all.extend((0..2).map(SpecialReg::ReservedSmemOffset));
        for r in all {
            assert_eq!(SpecialReg::lookup(&r.to_string()), Some(r), "{r}");
            assert_eq!(
                SpecialReg::lookup_bytes(r.to_string().as_bytes()),
                Some(r),
                "{r}"
            );
        }
        assert_eq!(SpecialReg::lookup_bytes(b"%r12"), None);
        assert_eq!(SpecialReg::lookup_bytes(b"%tid"), Some(SpecialReg::Tid));
        assert_eq!(SpecialReg::lookup("%pm8"), None);
        assert_eq!(SpecialReg::lookup("%envreg07"), None);
        assert_eq!(SpecialReg::lookup("%r1"), None);
    }
}
