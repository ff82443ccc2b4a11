//! Special registers. Where the hardware's value depends on scheduling or on the chip, the
//! interpreter returns a deterministic value (documented in `docs/INTERP.md`):
//!
//! - `%warpid` is the warp's index in its CTA and `%nwarpid` is 64 (an H100 SM's warp slots);
//! - `%smid` is the CTA's linear id modulo 132 and `%nsmid` is 132 (H100 SXM);
//! - `%clock`, `%clock64` count the launch's warp-instructions so far; `%globaltimer` is that
//!   count times 32 (nanoseconds at a nominal rate); both only ever increase;
//! - `%gridid` is 1; `%envregN`, `%pmN`, `%reserved_smem_*` and `%current_graph_exec` are 0.

use super::state::{Cluster, Machine};
use super::warp::Warp;
use crate::error::Error;
use ptx_ir_core::SpecialReg;

fn pick(v: [u32; 3], c: u8) -> u64 {
    v.get(c as usize).copied().unwrap_or(0) as u64
}

/// The value of `r` (component `c`) in `lane`.
pub fn value(
    m: &Machine<'_>,
    cl: &Cluster,
    w: &Warp,
    r: SpecialReg,
    c: u8,
    lane: usize,
) -> Result<u64, Error> {
    let cta = w.cta as usize;
    let ctaid = cl.ctaid.get(cta).copied().unwrap_or_default();
    let lane32 = lane as u32 & 31;
    let clock = m.stats.warp_instructions;
    Ok(match r {
        SpecialReg::Tid => pick(w.tid[lane & 31], c),
        SpecialReg::Ntid => pick(m.block, c),
        SpecialReg::Laneid => lane32 as u64,
        SpecialReg::WarpSz => 32,
        SpecialReg::Warpid => w.index as u64,
        SpecialReg::Nwarpid => 64,
        SpecialReg::Ctaid => pick(ctaid, c),
        SpecialReg::Nctaid => pick(m.grid, c),
        SpecialReg::Smid => super::ctx::linear(ctaid, m.grid) % 132,
        SpecialReg::Nsmid => 132,
        SpecialReg::Gridid => 1,
        SpecialReg::IsExplicitCluster => m.explicit_cluster as u64,
        SpecialReg::Clusterid => pick(cl.id, c),
        SpecialReg::Nclusterid => {
            let n = [
                m.grid[0] / m.cluster[0].max(1),
                m.grid[1] / m.cluster[1].max(1),
                m.grid[2] / m.cluster[2].max(1),
            ];
            pick(n, c)
        }
        SpecialReg::ClusterCtaid => {
            let v = [
                ctaid[0] % m.cluster[0].max(1),
                ctaid[1] % m.cluster[1].max(1),
                ctaid[2] % m.cluster[2].max(1),
            ];
            pick(v, c)
        }
        SpecialReg::ClusterNctaid => pick(m.cluster, c),
        SpecialReg::ClusterCtarank => cta as u64,
        SpecialReg::ClusterNctarank => {
            (m.cluster[0] as u64) * (m.cluster[1] as u64) * (m.cluster[2] as u64)
        }
        SpecialReg::LanemaskEq => 1u64 << lane32,
        SpecialReg::LanemaskLe => ((1u64 << (lane32 + 1)) - 1) & 0xffff_ffff,
        SpecialReg::LanemaskLt => (1u64 << lane32) - 1,
        SpecialReg::LanemaskGe => (0xffff_ffffu64 << lane32) & 0xffff_ffff,
        SpecialReg::LanemaskGt => (0xffff_fffeu64 << lane32) & 0xffff_ffff,
        SpecialReg::Clock => clock & 0xffff_ffff,
        SpecialReg::ClockHi => (clock >> 32) & 0xffff_ffff,
        SpecialReg::Clock64 => clock,
        SpecialReg::Globaltimer => clock.wrapping_mul(32),
        SpecialReg::GlobaltimerLo => clock.wrapping_mul(32) & 0xffff_ffff,
        SpecialReg::GlobaltimerHi => clock.wrapping_mul(32) >> 32,
        SpecialReg::DynamicSmemSize => m.dyn_smem as u64,
        SpecialReg::TotalSmemSize | SpecialReg::AggrSmemSize => {
            m.dyn_smem_offset as u64 + m.dyn_smem as u64
        }
        SpecialReg::ReservedSmemOffsetBegin
        | SpecialReg::ReservedSmemOffsetEnd
        | SpecialReg::ReservedSmemOffsetCap
        | SpecialReg::ReservedSmemOffset(_)
        | SpecialReg::CurrentGraphExec
        | SpecialReg::Pm(_)
        | SpecialReg::Pm64(_)
        | SpecialReg::Envreg(_) => 0,
    })
}

/// The value of `r` (component `c`) in every lane: the registers that are the same in every
/// lane of the warp, or `%tid`, without [`value`]'s per-lane lookups; the rest lane by lane.
pub fn lanes(
    m: &Machine<'_>,
    cl: &Cluster,
    w: &Warp,
    r: SpecialReg,
    c: u8,
    mask: u32,
) -> Result<[u64; 32], Error> {
    match r {
        SpecialReg::Tid => Ok(std::array::from_fn(|l| pick(w.tid[l], c))),
        SpecialReg::Ntid | SpecialReg::Ctaid | SpecialReg::Nctaid | SpecialReg::Warpid => {
            // The same in every lane: computed once.
            Ok([value(m, cl, w, r, c, 0)?; 32])
        }
        _ => {
            let mut out = [0u64; 32];
            for l in super::ctx::lanes(mask) {
                out[l] = value(m, cl, w, r, c, l)?;
            }
            Ok(out)
        }
    }
}
