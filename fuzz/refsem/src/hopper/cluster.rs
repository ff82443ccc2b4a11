//! The reference of the cluster family ([`ptx_ir_smith::hopper::cluster`]): an array per CTA of
//! the cluster, the special registers computed from the launch shape (the special-register
//! chapter of the PTX ISA), `elect.sync` electing the lowest lane of the membermask (the ISA
//! only promises a deterministic choice; the lowest lane is what the H100 elected for the
//! partial masks of `corpus/vectors/hopper.jsonl.xz`, family `misc`). Each step ends at a cluster
//! barrier, so the steps apply one after the other.

use super::{le32, Answer, Reference};
use ptx_ir_core::Op;
use ptx_ir_smith::hopper::cluster::{Spec, Step, COUNTERS, IN, SLOTS, SREGS};
use ptx_ir_smith::hopper::Launch;

/// `a OP b`, or `None` for an operation the generator never draws
/// ([`ptx_ir_smith::hopper::cluster::COUNTER_OPS`]).
fn apply(op: Op, a: u32, b: u32) -> Option<u32> {
    Some(match op {
        Op::Add => a.wrapping_add(b),
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Min => a.min(b),
        Op::Max => a.max(b),
        _ => return None,
    })
}

impl Reference for Spec {
    fn answer(&self, launch: &Launch, trace: &Vec<Step>) -> Answer {
        let (c, block) = (self.csize, launch.block);
        let grid = launch.grid;
        let words = 2 * block;
        let threads = (grid * block) as usize;
        let data_at = grid * block * SLOTS * 4;
        let cnt_at = data_at + grid * words * 4;
        let mut slots = vec![vec![0u32; SLOTS as usize]; threads];
        for k in 0..SREGS.len() {
            for (g, s) in slots.iter_mut().enumerate() {
                let cta = g as u32 / block;
                s[k] = [cta % c, c, cta / c, self.clusters, cta % c, c, 1][k];
            }
        }
        let mut next = SREGS.len();
        let mut data = vec![vec![0u32; words as usize]; grid as usize];
        let mut cnt = vec![vec![0u32; COUNTERS as usize]; grid as usize];
        // Counters an operation the reference has no answer for went through.
        let mut lost = vec![vec![false; COUNTERS as usize]; grid as usize];
        let nin = IN / 4;
        let val = |g: u32, k: u32| le32(&launch.input, (((g * 5 + k) % nin) * 4) as usize);
        // The CTA of the cluster of `cta` at rank distance `d`.
        let peer = |cta: u32, d: u32| ((cta / c) * c + (cta % c + d) % c) as usize;
        for step in trace {
            match *step {
                Step::Store { d, k, .. } => {
                    for g in 0..grid * block {
                        let (cta, t) = (g / block, g % block);
                        data[peer(cta, d)][((t + k) % words) as usize] = val(g, k);
                    }
                }
                Step::Load { d, k, .. } => {
                    for g in 0..grid * block {
                        let (cta, t) = (g / block, g % block);
                        slots[g as usize][next] = data[peer(cta, d)][((t + k) % words) as usize];
                    }
                    next += 1;
                }
                Step::Atom { d, cell, op, .. } => {
                    for g in 0..grid * block {
                        let (q, k) = (peer(g / block, d), cell as usize);
                        match apply(op, cnt[q][k], val(g, cell)) {
                            Some(v) => cnt[q][k] = v,
                            None => lost[q][k] = true,
                        }
                    }
                }
                Step::Rank { d, .. } => {
                    for g in 0..grid * block {
                        slots[g as usize][next] = (g / block % c + d) % c;
                    }
                    next += 1;
                }
                Step::Elect(mask) => {
                    let leader = mask.trailing_zeros();
                    for g in 0..grid * block {
                        let lane = g % 32;
                        slots[g as usize][next] = if mask >> lane & 1 == 1 {
                            leader + 100 * (lane == leader) as u32
                        } else {
                            0
                        };
                    }
                    next += 1;
                }
            }
        }
        let mut expected = vec![0u8; launch.out_len];
        let mut known = vec![true; launch.out_len];
        let mut put = |at: usize, v: u32| expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
        for (g, s) in slots.iter().enumerate() {
            for (k, &v) in s.iter().enumerate() {
                put((g * SLOTS as usize + k) * 4, v);
            }
        }
        for q in 0..grid as usize {
            for (w, &v) in data[q].iter().enumerate() {
                put(data_at as usize + (q * words as usize + w) * 4, v);
            }
            for (w, &v) in cnt[q].iter().enumerate() {
                let at = cnt_at as usize + (q * COUNTERS as usize + w) * 4;
                put(at, v);
                if lost[q][w] {
                    known[at..at + 4].fill(false);
                }
            }
        }
        Answer { expected, known }
    }
}
