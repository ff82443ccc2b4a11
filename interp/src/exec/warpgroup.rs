//! `setmaxnreg` (PTX ISA 9.7.19.5, sm_90a): register reallocation within a warpgroup.
//!
//! The interpreter has no register file to resize, so the instruction's effect is nil; its rules
//! are checked: the count is an immediate in [24, 256] and a multiple of 8, every thread of the
//! warp executes it (`.sync.aligned`), the warp belongs to a complete warpgroup (four warps of
//! the CTA), and all warps of the warpgroup execute the same sequence of `setmaxnreg`
//! (the i-th one of each warp has the same action and count).

use super::ctx::Ctx;
use super::step::Flow;
use crate::error::Error;

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 n`
pub fn setmaxnreg(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let lane0 = x.emask.trailing_zeros() as usize;
    let n = x.get(x.op(0)?, lane0)? & 0xffff_ffff;
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
    let inc = x.inst.has(ptx_ir_core::Op::Inc);
    let key = (x.w.cta, wg);
    let seq = x.cl.setmaxnreg.entry(key).or_default();
    let slot = (x.w.index % 4) as usize;
    let i = seq.count[slot];
    seq.count[slot] += 1;
    match seq.values.get(i) {
        Some(&(a, b)) if (a, b) != (inc, n as u32) => {
            return Err(x.undefined(
                lane0,
                format!(
                    "warps of warpgroup {wg} execute different setmaxnreg ({} {b} and {} {n}); all warps in the warpgroup must execute the same setmaxnreg (PTX ISA 9.7.19.5)",
                    if a { "inc" } else { "dec" },
                    if inc { "inc" } else { "dec" }
                ),
            ))
        }
        Some(_) => {}
        None => seq.values.push((inc, n as u32)),
    }
    Ok(Flow::Next)
}

/// The `setmaxnreg` sequence of one warpgroup.
#[derive(Clone, Debug, Default)]
pub struct Seq {
    /// (`.inc`, count) of the i-th setmaxnreg.
    pub values: Vec<(bool, u32)>,
    /// How many each of the four warps has executed.
    pub count: [usize; 4],
}
