//! The reference of the `cp.async` family ([`ptx_ir_smith::hopper::copy`]): the copies applied
//! in program order as `memcpy` of `src-size` bytes with zero fill (no bytes for a true
//! `ignore-src`). Program order is enough because two copies in flight never overlap.

use super::{le32, Answer, Reference};
use ptx_ir_smith::hopper::copy::{Fill, Spec, Step, IN, LOADS, REGION};
use ptx_ir_smith::hopper::Launch;

impl Reference for Spec {
    fn answer(&self, launch: &Launch, trace: &Vec<Step>) -> Answer {
        let threads = launch.grid * launch.block;
        let slots = threads * LOADS * 4;
        // Per thread, the region's bytes and the loaded words.
        let mut regions = vec![vec![0u8; REGION as usize]; threads as usize];
        let mut loads = vec![Vec::new(); threads as usize];
        for op in trace {
            match *op {
                Step::Copy {
                    dst,
                    size,
                    src,
                    stride,
                    fill,
                    ..
                } => {
                    let mask = (IN - 1) & !(size - 1);
                    for g in 0..threads {
                        let t = g % launch.block;
                        let from = (src.wrapping_add(g.wrapping_mul(stride)) & mask) as usize;
                        let n = match fill {
                            Fill::Full => size,
                            Fill::Imm(n) => n,
                            Fill::Reg(m, k) => t.wrapping_mul(m).wrapping_add(k) % (size + 1),
                            Fill::Ignore(m) => {
                                if t % m == 0 {
                                    0
                                } else {
                                    size
                                }
                            }
                        } as usize;
                        let r = &mut regions[g as usize][dst as usize..(dst + size) as usize];
                        r.fill(0);
                        r[..n].copy_from_slice(&launch.input[from..from + n]);
                    }
                }
                Step::Load(off) => {
                    for g in 0..threads as usize {
                        let v = le32(&regions[g], off as usize);
                        loads[g].push(v);
                    }
                }
                Step::Commit | Step::Wait(_) | Step::WaitAll | Step::Mbar { .. } => {}
            }
        }
        let mut expected = vec![0u8; launch.out_len];
        for g in 0..threads as usize {
            for (k, v) in loads[g].iter().enumerate() {
                let at = g * (LOADS as usize) * 4 + 4 * k;
                expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            let at = slots as usize + g * REGION as usize;
            expected[at..at + REGION as usize].copy_from_slice(&regions[g]);
        }
        Answer::known(expected)
    }
}
