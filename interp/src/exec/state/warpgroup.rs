//! The `setmaxnreg` sequences of a cluster's warpgroups, which `exec/warpgroup.rs` checks and
//! extends.

/// The `setmaxnreg` sequence of one warpgroup.
#[derive(Clone, Debug, Default)]
pub struct Seq {
    /// (`.inc`, count) of the i-th setmaxnreg.
    pub values: Vec<(bool, u32)>,
    /// How many each of the four warps has executed.
    pub count: [usize; 4],
    /// Each warp's register count, where it is known.
    pub regs: [Option<u32>; 4],
}
