//! The reference of the tensor-copy family ([`ptx_ir_smith::hopper::tensor`]).
//!
//! Written from the ISA text (independent of `interp/src/exec/tensor.rs`): the box has
//! `ceil(box[i] / estride[i])` elements in dimension i at coordinates `c[i] + j * estride[i]`,
//! stored with dimension 0 innermost, rows of dimension 0 a swizzle span apart when a swizzled
//! row is narrower than the span (measured on an H200), else densely; elements outside the tensor read as zero or, with
//! NaN fill, as the canonical bits `0x7ff7` repeated (docs/INTERP.md, measured on an H100 for
//! f32); the 16-byte chunk at shared address `a` lands at `a ^ (((a >> 7) & m) << 4)`, `m` =
//! 1, 3, 7 for 32, 64, 128-byte swizzle. Stores write only the in-bounds elements; reductions
//! combine element-wise in the map's type.

use super::bulk::reduce;
use super::{Answer, Reference};
use ptx_ir_smith::hopper::tensor::{Map, Spec, Step, SCRATCH, SMEM};
use ptx_ir_smith::hopper::Launch;

/// Shared offset (from a 1024-aligned base) where dense box byte `p` lives for a box at `dst`.
fn place(m: &Map, dst: u32, p: usize) -> usize {
    let row = m.row_bytes() as usize;
    let a = dst as usize + p / row * m.pitch() as usize + p % row;
    let m = match m.swizzle {
        32 => 1,
        64 => 3,
        128 => 7,
        _ => 0,
    };
    a ^ (((a >> 7) & m) << 4)
}

/// The bits an out-of-bounds element reads as: zero, or with NaN fill `0x7ff7` repeated.
fn fill_bits(m: &Map) -> u64 {
    if !m.nan {
        0
    } else {
        match m.elem.bytes {
            2 => 0x7ff7,
            8 => 0x7ff7_7ff7_7ff7_7ff7,
            _ => 0x7ff7_7ff7,
        }
    }
}

impl Reference for Spec {
    fn answer(&self, launch: &Launch, _: &()) -> Answer {
        let (lm, sm_) = (&self.load, &self.store);
        let mut smem = launch.input[..SMEM as usize].to_vec();
        let mut scratch = vec![0u8; SCRATCH as usize];
        // Scratch bytes a reduction the reference has no answer for wrote.
        let mut lost = vec![false; SCRATCH as usize];
        for step in &self.steps {
            match step {
                Step::Load(c, dst) => {
                    let eb = lm.elem.bytes as usize;
                    let fill = fill_bits(lm).to_le_bytes();
                    lm.each(c, |p, g| {
                        for k in 0..eb {
                            let v = match g {
                                Some(g) => launch.input[g + k],
                                None => fill[k],
                            };
                            smem[place(lm, *dst, p + k)] = v;
                        }
                    });
                }
                Step::Store(c, src) | Step::Reduce(_, c, src) => {
                    let eb = sm_.elem.bytes as usize;
                    sm_.each_store(c, |p, g| {
                        let Some(g) = g else { return };
                        let mut v = [0u8; 8];
                        for (k, b) in v.iter_mut().enumerate().take(eb) {
                            *b = smem[place(sm_, *src, p + k)];
                        }
                        let v = match step {
                            Step::Reduce(op, ..) => {
                                let mut o = [0u8; 8];
                                o[..eb].copy_from_slice(&scratch[g..g + eb]);
                                let old = u64::from_le_bytes(o);
                                match reduce(*op, sm_.elem.ty, old, u64::from_le_bytes(v)) {
                                    Some(r) => r.to_le_bytes(),
                                    None => {
                                        lost[g..g + eb].fill(true);
                                        return;
                                    }
                                }
                            }
                            _ => v,
                        };
                        scratch[g..g + eb].copy_from_slice(&v[..eb]);
                        lost[g..g + eb].fill(false);
                    });
                }
                Step::Prefetch(_) | Step::Wait(_) => {}
            }
        }
        let mut known = vec![true; smem.len()];
        known.extend(lost.iter().map(|&l| !l));
        let mut expected = smem;
        expected.extend_from_slice(&scratch);
        Answer { expected, known }
    }
}
