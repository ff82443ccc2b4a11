//! The reference of the bulk-copy family ([`ptx_ir_smith::hopper::bulk`]): plain array copies
//! and element-wise reductions, applied in program order (which is the completion order of any
//! two operations on the same bytes); `inc`/`dec` as in the ISA (`old >= b ? 0 : old + 1`,
//! `old == 0 || old > b ? b : old - 1`). Every CTA computes the same (the CTAs differ only in
//! their scratch area).

use super::{Answer, Reference};
use ptx_ir_core::{Op, Type};
use ptx_ir_smith::hopper::bulk::{Spec, Step, SCRATCH, SMEM};
use ptx_ir_smith::hopper::Launch;

impl Reference for Spec {
    fn answer(&self, launch: &Launch, trace: &Vec<Step>) -> Answer {
        let (grid, block) = (launch.grid, launch.block);
        let mut smem = vec![0u8; SMEM as usize];
        let mut scratch = vec![0u8; SCRATCH as usize];
        // Scratch bytes a reduction the reference has no answer for wrote.
        let mut lost = vec![false; SCRATCH as usize];
        for step in trace {
            match step {
                Step::Load { parts, .. } => {
                    for &(d, s, n) in parts {
                        smem[d as usize..(d + n) as usize]
                            .copy_from_slice(&launch.input[s as usize..(s + n) as usize]);
                    }
                }
                &Step::Reduce(r, d, s, n) => {
                    let w = r.width();
                    for k in (0..n as usize).step_by(w) {
                        let get = |b: &[u8], at: usize| {
                            let mut x = [0u8; 8];
                            x[..w].copy_from_slice(&b[at..at + w]);
                            u64::from_le_bytes(x)
                        };
                        let old = get(&scratch, d as usize + k);
                        let at = d as usize + k..d as usize + k + w;
                        match reduce(r.op, r.ty, old, get(&smem, s as usize + k)) {
                            Some(v) => scratch[at].copy_from_slice(&v.to_le_bytes()[..w]),
                            None => lost[at].fill(true),
                        }
                    }
                }
                &Step::Store(d, s, n) => {
                    scratch[d as usize..(d + n) as usize]
                        .copy_from_slice(&smem[s as usize..(s + n) as usize]);
                    lost[d as usize..(d + n) as usize].fill(false);
                }
                &Step::Poke(k) => {
                    let words = SMEM / 4;
                    for t in 0..block {
                        let at = (((t * 4 + k) % words) * 4) as usize;
                        smem[at..at + 4].copy_from_slice(&launch.input[at..at + 4]);
                    }
                }
                Step::Commit | Step::Wait(..) | Step::Prefetch(..) => {}
            }
        }
        let mut expected = vec![0u8; launch.out_len];
        let mut known = vec![true; launch.out_len];
        for c in 0..grid as usize {
            let s = c * SCRATCH as usize;
            expected[s..s + SCRATCH as usize].copy_from_slice(&scratch);
            for (k, &l) in known[s..s + SCRATCH as usize].iter_mut().zip(&lost) {
                *k = !l;
            }
            let m = (grid * SCRATCH) as usize + c * SMEM as usize;
            expected[m..m + SMEM as usize].copy_from_slice(&smem);
        }
        Answer { expected, known }
    }
}

/// `old OP b` of an integer bulk reduction at the width of `ty` (`inc`/`dec` as in the ISA:
/// `old >= b ? 0 : old + 1`, `old == 0 || old > b ? b : old - 1`), or `None` for an operation
/// the generator never draws.
pub fn reduce(op: Op, ty: Type, old: u64, b: u64) -> Option<u64> {
    let (m, sx): (u64, fn(u64) -> i64) = if ty.bits() == 64 {
        (u64::MAX, |x| x as i64)
    } else {
        (u32::MAX as u64, |x| x as u32 as i32 as i64)
    };
    let signed = ty.is_signed();
    let r = match op {
        Op::Add => old.wrapping_add(b),
        Op::Min if signed => {
            if sx(old) <= sx(b) {
                old
            } else {
                b
            }
        }
        Op::Max if signed => {
            if sx(old) >= sx(b) {
                old
            } else {
                b
            }
        }
        Op::Min => old.min(b),
        Op::Max => old.max(b),
        Op::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        Op::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        Op::And => old & b,
        Op::Or => old | b,
        Op::Xor => old ^ b,
        _ => return None,
    };
    Some(r & m)
}
