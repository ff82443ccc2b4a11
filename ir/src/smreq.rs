//! Target requirements ([`SmReq`]) and the named target sets the instruction table and the
//! availability rules ([`crate::avail`]) share. A leaf module, so that the table can carry each
//! instruction's targets without importing the availability rules that read the table.

/// A target requirement.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SmReq {
    /// Every target.
    Any,
    /// `sm_N` or any later architecture (with or without suffix).
    Min(u16),
    /// Architecture- or family-specific: the `sm_Xa` targets of `a`, and the family-specific
    /// targets of `f` (each `sm_Xf` with the later `a`/`f` targets of its family).
    Only {
        /// Architectures whose `a` target supports the feature.
        a: &'static [u16],
        /// Family-specific entry points (`sm_100f` = `100`).
        f: &'static [u16],
    },
}

pub(crate) const ANY: SmReq = SmReq::Any;
pub(crate) const fn min(n: u16) -> SmReq {
    SmReq::Min(n)
}
/// `wgmma`: `sm_90a` only.
pub(crate) const A90: SmReq = SmReq::Only { a: &[90], f: &[] };
/// `tcgen05` and friends: `sm_100a`, `sm_110a` (ex `sm_101a`) and the `sm_100f`/`sm_110f`
/// families.
pub(crate) const TC: SmReq = SmReq::Only {
    a: &[100, 110],
    f: &[100, 110],
};
/// Blackwell features with `sm_120a`: `sm_{100,110,120}a` and their families.
pub(crate) const BW: SmReq = SmReq::Only {
    a: &[100, 110, 120],
    f: &[100, 110, 120],
};
/// `setmaxnreg`, `tensormap.replace`: as [`BW`] plus `sm_90a`.
pub(crate) const BW90: SmReq = SmReq::Only {
    a: &[90, 100, 110, 120],
    f: &[100, 110, 120],
};
/// `multimem` fp8 types and `.acc::f16`.
pub(crate) const MM8: SmReq = SmReq::Only {
    a: &[100, 110, 120, 121],
    f: &[100, 110],
};
/// `sm_100a` and the `sm_100f` family.
pub(crate) const A100F: SmReq = SmReq::Only {
    a: &[100],
    f: &[100],
};
/// `sm_120a` and the `sm_120f` family.
pub(crate) const A120F: SmReq = SmReq::Only {
    a: &[120],
    f: &[120],
};

/// `tcgen05.shift`: `sm_100a`, `sm_103a` and `sm_110a` only.
pub(crate) const TC_SHIFT: SmReq = SmReq::Only {
    a: &[100, 103, 110],
    f: &[],
};
