//! Clusters: launch checks of the cluster directives, `barrier.cluster` rules, and cluster
//! launch control (`clusterlaunchcontrol.try_cancel` / `query_cancel`).
//!
//! Scheduler model: the grid's clusters are queued in launch order (x fastest, then y, then z);
//! up to [`super::Launch::resident_clusters`] of them run at once (default 1), the next queued
//! cluster starting when one finishes. A cluster that has not started can be cancelled by
//! `try_cancel`: the request takes the first queued cluster, which then never launches, and its
//! response carries that cluster's first `%ctaid`; with an empty queue the request fails. The
//! decision is made when the request is issued; the 16-byte response is written asynchronously
//! (completing with a complete-tx of 16 bytes on the mbarrier), like a bulk copy.
//!
//! Response encoding (opaque to programs): four little-endian words `ctaid.x, ctaid.y, ctaid.z,
//! 0x8000_0001` on success and `0, 0, 0, 0x8000_0000` on failure; `query_cancel` of 16 bytes
//! without bit 31 of the last word is reported as not being a response.

use super::async_copy::issuer;
use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::state::inflight::{Loc, Op, Part};
use crate::code::Opnd;
use crate::error::{Error, FaultKind};
use crate::load::Func;
use ptx_ir_core::Flag;

/// Checks `.explicitcluster`, `.maxclusterrank`, `.reqnctapercluster`, `.reqntid` and
/// `.maxntid` against a launch; `cluster` is what the launch asked for.
pub fn launch_checks(f: &Func, block: [u32; 3], cluster: Option<[u32; 3]>) -> Result<(), String> {
    if f.explicit_cluster && cluster.is_none() && f.req_cluster.is_none() {
        return Err(format!(
            "`{}` is .explicitcluster but the launch forms no clusters (give cluster dimensions)",
            f.name
        ));
    }
    if let (Some(_), Some(_)) = (f.req_cluster, f.max_cluster_rank) {
        return Err(format!(
            "`{}` has both .reqnctapercluster and .maxclusterrank, which cannot be combined",
            f.name
        ));
    }
    let dims = cluster.or(f.req_cluster).unwrap_or([1, 1, 1]);
    let n = volume(dims);
    if let Some(maxr) = f.max_cluster_rank {
        if n > maxr as u128 {
            return Err(format!(
                "cluster of {n} CTAs exceeds `{}`'s .maxclusterrank {maxr}",
                f.name
            ));
        }
    }
    if n > 16 {
        return Err(format!(
            "cluster of {n} CTAs exceeds the hardware maximum of 16"
        ));
    }
    if let Some(r) = f.req_ntid {
        if r != block {
            return Err(format!(
                "`{}` requires .reqntid {r:?}, the launch gives {block:?}",
                f.name
            ));
        }
    }
    if let Some(m) = f.max_ntid {
        let (lim, got) = (volume(m), volume(block));
        if got > lim {
            return Err(format!(
                "`{}` allows at most {lim} threads per CTA (.maxntid {m:?}), the launch gives {got}",
                f.name
            ));
        }
    }
    Ok(())
}

/// The number of CTAs or threads in `dims`: three `u32`s from the launch or from directives,
/// whose product can pass `u64::MAX` but not `u128::MAX`.
fn volume(dims: [u32; 3]) -> u128 {
    dims.iter().map(|&d| d as u128).product()
}

const OK_MARK: u32 = 0x8000_0001;
const FAIL_MARK: u32 = 0x8000_0000;

/// `clusterlaunchcontrol.try_cancel`
pub fn try_cancel(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let sp = AddrSpace::of(x.d.space);
    let multicast = x.has(Flag::MulticastClusterAll);
    let own = x.w.cta;
    let [addr, mbar] = x.ops();
    for l in lanes(x.emask) {
        if x.cl.clc_failed.get(own as usize).copied().unwrap_or(false) {
            return Err(x.undefined(l, "clusterlaunchcontrol.try_cancel issued by a CTA that has already observed a try_cancel completing as failed (seed 000 / PTX ISA 9.7.13.17: undefined)"));
        }
        let a = x.addr(addr, l)?;
        let ma = x.addr(mbar, l)?;
        let (_, off) = x.shared_loc(sp, a, 16, l, true)?;
        let (_, moff) = x.shared_loc(sp, ma, 8, l, true)?;
        if off % 16 != 0 {
            return Err(x.fault(FaultKind::Misaligned, sp, a, 16, l));
        }
        if moff % 8 != 0 {
            return Err(x.fault(FaultKind::Misaligned, sp, ma, 8, l));
        }
        let ranks: Vec<u32> = if multicast {
            if let Some(r) = x.cl.cta_done.iter().position(|&d| d) {
                return Err(x.undefined(l, format!("clusterlaunchcontrol.try_cancel.multicast::cluster::all while CTA rank {r} of the cluster has exited (seed 000 / PTX ISA 9.7.13.17: undefined)")));
            }
            (0..x.cl.shared.len() as u32).collect()
        } else {
            vec![own]
        };
        let c = x.m.cluster;
        let resp: [u32; 4] = match x.m.queue.pop_front() {
            Some(cid) => {
                x.m.cancelled += 1;
                [cid[0] * c[0], cid[1] * c[1], cid[2] * c[2], OK_MARK]
            }
            None => [0, 0, 0, FAIL_MARK],
        };
        let data: Vec<u8> = resp.iter().flat_map(|w| w.to_le_bytes()).collect();
        let parts = ranks
            .iter()
            .map(|&r| Part {
                dest: Loc::Shared { rank: r, off },
                data: data.clone(),
                byte_mask: None,
                reduce: None,
                mbar: Some((r, moff)),
                tx: 16,
            })
            .collect();
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs: Vec::new(),
        };
        inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
    }
    Ok(Flow::Next)
}

/// `clusterlaunchcontrol.query_cancel`
pub fn query_cancel(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, src] = x.ops();
    let is_canceled = x.has(Flag::IsCanceled);
    let comp = if x.has(Flag::GetFirstCtaidY) {
        Some(1)
    } else if x.has(Flag::GetFirstCtaidZ) {
        Some(2)
    } else if x.has(Flag::GetFirstCtaidX) {
        Some(0)
    } else {
        None
    };
    let own = x.w.cta as usize;
    for l in lanes(x.emask) {
        let lo = x.get(src, l)?;
        let hi = x.get_hi(src, l);
        let w = [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32];
        if w[3] >> 31 == 0 {
            return Err(x.undefined(l, "clusterlaunchcontrol.query_cancel of 16 bytes that no clusterlaunchcontrol.try_cancel wrote (PTX ISA 9.7.13.18)"));
        }
        let ok = w[3] & 1 != 0;
        if is_canceled {
            if !ok {
                if let Some(f) = x.cl.clc_failed.get_mut(own) {
                    *f = true;
                }
            }
            x.set(dst, l, ok as u64)?;
            continue;
        }
        if !ok {
            return Err(x.undefined(l, "clusterlaunchcontrol.query_cancel.get_first_ctaid of a failed request (PTX ISA 9.7.13.18: undefined)"));
        }
        match (comp, dst) {
            (Some(c), d) => x.set(d, l, w[c] as u64)?,
            (None, Opnd::Vec(parts)) => {
                for (i, p) in parts.iter().enumerate().take(4) {
                    x.set(p, l, w[i] as u64)?;
                }
            }
            (None, d) => x.set(d, l, w[0] as u64)?,
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(directive: &str) -> crate::load::Program {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {directive} {{ ret; }}\n"
        );
        crate::load::Program::load(&ptx_ir_text::parse(&src).expect("parse")).expect("load")
    }

    /// Sizes from directives are products of three `u32`s, which can pass `u64::MAX`:
    /// `2^31 * 2^31 * 4` is `2^64`, which wrapped to 0 would pass the limit of 16.
    #[test]
    fn sizes_past_u64_are_counted_whole() {
        let p = func(".reqnctapercluster 2147483648, 2147483648, 4");
        let e = launch_checks(&p.funcs[0], [1, 1, 1], None).expect_err("2^64 CTAs");
        assert!(e.contains("hardware maximum of 16"), "{e}");
        let p = func(".maxntid 4294967295, 4294967295, 4294967295");
        assert_eq!(launch_checks(&p.funcs[0], [1024, 1, 1], None), Ok(()));
    }
}
