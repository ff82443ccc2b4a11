//! `setmaxnreg` (PTX ISA 9.7.19.5, sm_90a): register reallocation within a warpgroup.
//!
//! The interpreter has no register file to resize, so the instruction's effect is nil; its rules
//! are checked: the count is an immediate in [24, 256] and a multiple of 8, every thread of the
//! warp executes it (`.sync.aligned`), the warp belongs to a complete warpgroup (four warps of
//! the CTA), and all warps of the warpgroup execute the same sequence of `setmaxnreg`
//! (the i-th one of each warp has the same action and count).
//!
//! Seed 003 adds two rules. `.dec` releases registers: the warp's current count must be at least
//! the new one. The interpreter knows a warp's count once it is certain: from the kernel's
//! `.maxnreg` when it starts (ptxas compiles such a kernel to that count), otherwise only after
//! the warp's first `setmaxnreg` (ptxas picks the count of a kernel without `.maxnreg`, which the
//! interpreter cannot know, so a first `.dec` there is never reported). And all warps of the
//! warpgroup must be synchronised before another `setmaxnreg`: a warp's (i+1)-th while another
//! warp of the warpgroup has not executed its i-th is certainly not synchronised (the
//! interpreter honours every synchronisation, so none can lie between them) and is reported.
//! Which synchronisation suffices once all have executed it (a barrier of the warpgroup's
//! threads, an mbarrier, a flag in memory) the seed does not say, so nothing more is checked.
//!
//! `.inc` "blocks until enough regs available in per-CTA pool": where the kernel's `.maxnreg`
//! gives every warp's starting count, the pool is that count times the CTA's warps, and an
//! `.inc` whose new count does not fit beside what the other warps hold waits (runs again
//! later); if no warp can release registers any more, the launch ends in a deadlock, as the
//! GPU hangs (recorded on an H100: four warps of a `.maxnreg 128` kernel that `.dec` to 40 and
//! then `.inc` to 232). Registers of exited warps are not returned to the pool. The sequences
//! are kept in [`super::state::warpgroup`].

use super::ctx::Ctx;
use super::flow::Flow;
use super::state::warpgroup::Seq;
use crate::error::Error;

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 n`
pub fn setmaxnreg(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let lane0 = x.emask.trailing_zeros() as usize;
    let [n] = x.ops();
    let n = x.get(n, lane0)? & 0xffff_ffff;
    if !(24..=256).contains(&n) || n % 8 != 0 {
        return Err(x.undefined(
            lane0,
            format!("setmaxnreg count {n} is not a multiple of 8 in [24, 256] (PTX ISA 9.7.19.5)"),
        ));
    }
    if x.w.exited != 0 || x.emask != x.w.valid || x.w.valid != u32::MAX {
        let l = (!x.emask).trailing_zeros() as usize & 31;
        return Err(x.undefined(
            l,
            "setmaxnreg is .sync.aligned: all 32 threads of the warp must execute it (PTX ISA 9.7.19.5)",
        ));
    }
    let [bx, by, bz] = x.m.block;
    let nwarps = (bx * by * bz).div_ceil(32);
    let wg = x.w.index / 4;
    if nwarps < wg * 4 + 4 {
        return Err(x.undefined(
            lane0,
            format!("setmaxnreg in warpgroup {wg}, which the CTA's {nwarps} warps do not complete (all warps of the warpgroup must execute it, PTX ISA 9.7.19.5)"),
        ));
    }
    let inc = x.d.oper == Some(ptx_ir_core::Op::Inc);
    let key = (x.w.cta, wg);
    let initial = x.m.maxnreg;
    let slot = (x.w.index % 4) as usize;
    let seq = x.cl.setmaxnreg.entry(key).or_insert_with(|| Seq {
        regs: [initial; 4],
        ..Seq::default()
    });
    let i = seq.count[slot];
    let me = x.w.index;
    let rule = if i > 0 && (0..4).any(|t| seq.count[t] < i) {
        // Every warp's previous setmaxnreg must come before any synchronisation can.
        let t = (0..4).find(|&t| seq.count[t] < i).unwrap_or(0);
        Some(format!("setmaxnreg number {} of warp {me} while warp {} of warpgroup {wg} has not executed its setmaxnreg number {i}: all warpgroup warps must be synchronised before another setmaxnreg (seed 003, PTX ISA 9.7.19.5)", i + 1, wg * 4 + t as u32))
    } else if let Some(&(a, b)) = seq.values.get(i).filter(|&&v| v != (inc, n as u32)) {
        Some(format!(
            "warps of warpgroup {wg} execute different setmaxnreg ({} {b} and {} {n}); all warps in the warpgroup must execute the same setmaxnreg (PTX ISA 9.7.19.5)",
            if a { "inc" } else { "dec" },
            if inc { "inc" } else { "dec" }
        ))
    } else {
        seq.regs[slot].filter(|&c| !inc && n as u32 > c).map(|cur| format!("setmaxnreg.dec to {n} registers while warp {me} has {cur}: .dec releases registers, the current count must be >= imm-reg-count (seed 003, PTX ISA 9.7.19.5)"))
    };
    if let Some(rule) = rule {
        return Err(x.undefined(lane0, rule));
    }
    if inc {
        if let Some(pool) = initial.map(|c| c * nwarps) {
            // The CTA's pool holds what its warps started with; `.inc` waits for the registers
            // it adds to be free in it (warps without a `setmaxnreg` yet hold the initial count).
            let cta = x.w.cta;
            let mut held = 0u32;
            for g in 0..nwarps.div_ceil(4) {
                let regs = match x.cl.setmaxnreg.get(&(cta, g)) {
                    Some(q) => q.regs,
                    None => [initial; 4],
                };
                for (t, r) in regs.iter().enumerate() {
                    let warp = g * 4 + t as u32;
                    if warp < nwarps && warp != me {
                        held += r.unwrap_or(0);
                    }
                }
            }
            if held + n as u32 > pool {
                return Ok(Flow::Retry);
            }
        }
    }
    let Some(seq) = x.cl.setmaxnreg.get_mut(&key) else {
        return Err(x.unsupported("setmaxnreg state"));
    };
    seq.count[slot] += 1;
    seq.regs[slot] = Some(n as u32);
    if seq.values.len() <= i {
        seq.values.push((inc, n as u32));
    }
    Ok(Flow::Next)
}
