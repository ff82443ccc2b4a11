//! The reference of the warp-wide matrix family ([`ptx_ir_smith::hopper::matrix`]).
//!
//! The fragment layouts of the PTX ISA's figures written as index formulas
//! (9.7.14.5: for `m8n8` matrices lane `l` holds row `l / 4`, columns `2 (l % 4)` and
//! `2 (l % 4) + 1`, transposed with `.trans`; for `mma`, `groupID = l / 4`,
//! `threadID_in_group = l % 4` and the per-shape row/column rules of the integer fragments),
//! and the matrix product in `i64` arithmetic, then wrapped or saturated to `s32`.

use super::{le32, Answer, Reference};
use ptx_ir_smith::hopper::matrix::{Spec, Step, IN, REGION, SLOTS};
use ptx_ir_smith::hopper::Launch;

/// The `u16` element at shared offset `at` of a warp's region.
fn get16(m: &[u8], at: u32) -> u32 {
    u16::from_le_bytes([m[at as usize], m[at as usize + 1]]) as u32
}

/// Lane `l`'s register of an `m8n8` fragment of matrix `e(row, col)` (PTX ISA 9.7.14.5.15 and
/// the `ldmatrix` description): row `l / 4`, columns `2 (l % 4)` (low half) and `+1` (high).
fn frag(l: u32, e: impl Fn(u32, u32) -> u32) -> u32 {
    let (r, c) = (l / 4, 2 * (l % 4));
    e(r, c) | e(r, c + 1) << 16
}

impl Reference for Spec {
    fn answer(&self, launch: &Launch, trace: &Vec<Step>) -> Answer {
        let block = launch.block;
        let slot_bytes = block * SLOTS * 4;
        let mut mem: Vec<Vec<u8>> = (0..self.warps as usize)
            .map(|w| launch.input[w * REGION as usize..(w + 1) * REGION as usize].to_vec())
            .collect();
        let mut slots = vec![vec![0u32; SLOTS as usize]; block as usize];
        let mut next = 0u32;
        // Input words of the register operands: thread t's word j is word (t * 8 + j + k) of
        // the input's upper half.
        let nw = IN / 8;
        let word = |l: u32, j: u32, k: u32| {
            le32(
                &launch.input,
                (IN / 2 + ((l * 8 + j + k) % nw) * 4) as usize,
            )
        };
        for step in trace {
            match *step {
                Step::Ld {
                    num,
                    trans,
                    ref base,
                    stride,
                } => {
                    next += num;
                    for w in 0..self.warps {
                        let m = &mem[w as usize];
                        for l in 0..32 {
                            for i in 0..num {
                                let e = |r: u32, c: u32| {
                                    let (r, c) = if trans { (c, r) } else { (r, c) };
                                    get16(m, base[i as usize] + r * stride + 2 * c)
                                };
                                slots[(w * 32 + l) as usize][(next - num + i) as usize] =
                                    frag(l, e);
                            }
                        }
                    }
                }
                Step::St {
                    num,
                    trans,
                    ref base,
                    stride,
                    k,
                } => {
                    for w in 0..self.warps {
                        let m = &mut mem[w as usize];
                        for l in 0..32 {
                            for i in 0..num {
                                let v = word(w * 32 + l, i, k);
                                let (r, c) = (l / 4, 2 * (l % 4));
                                for (h, c) in [c, c + 1].into_iter().enumerate() {
                                    let (r, c) = if trans { (c, r) } else { (r, c) };
                                    let at = (base[i as usize] + r * stride + 2 * c) as usize;
                                    let half = (v >> (16 * h)) as u16;
                                    m[at..at + 2].copy_from_slice(&half.to_le_bytes());
                                }
                            }
                        }
                    }
                }
                Step::Mov(k) => {
                    next += 1;
                    for w in 0..self.warps {
                        // Element (r, c) of the source is in lane 4r + c/2, half c % 2.
                        let src = |r: u32, c: u32| {
                            word(w * 32 + 4 * r + c / 2, 0, k) >> (16 * (c % 2)) & 0xffff
                        };
                        for l in 0..32 {
                            slots[(w * 32 + l) as usize][next as usize - 1] =
                                frag(l, |r, c| src(c, r));
                        }
                    }
                }
                Step::Mma {
                    k,
                    sa,
                    sb,
                    sat,
                    shift,
                } => {
                    let na = if k == 16 { 2 } else { 4 };
                    let nb = na / 2;
                    next += 4;
                    for w in 0..self.warps {
                        let lane = |l: u32| w * 32 + l;
                        let byte = |v: u32, b: u32, s: bool| {
                            let x = (v >> (8 * b)) & 0xff;
                            if s {
                                x as u8 as i8 as i64
                            } else {
                                x as i64
                            }
                        };
                        // A (16 x k) and B (k x 8) from the fragments.
                        let mut am = vec![vec![0i64; k as usize]; 16];
                        let mut bm = vec![vec![0i64; 8]; k as usize];
                        let mut cm = vec![vec![0i64; 8]; 16];
                        for l in 0..32 {
                            let (g, t) = (l / 4, l % 4);
                            for i in 0..4 * na {
                                let row = if (i / 4) % 2 == 0 { g } else { g + 8 };
                                let col = t * 4 + i % 4 + if i >= 8 { 16 } else { 0 };
                                am[row as usize][col as usize] =
                                    byte(word(lane(l), i / 4, shift), i % 4, sa);
                            }
                            for i in 0..4 * nb {
                                let row = t * 4 + i % 4 + if i >= 4 { 16 } else { 0 };
                                bm[row as usize][g as usize] =
                                    byte(word(lane(l), i / 4, shift + 4), i % 4, sb);
                            }
                            for i in 0..4 {
                                let row = if i < 2 { g } else { g + 8 };
                                cm[row as usize][(t * 2 + i % 2) as usize] =
                                    word(lane(l), i, shift + 6) as i32 as i64;
                            }
                        }
                        for l in 0..32 {
                            let (g, t) = (l / 4, l % 4);
                            for i in 0..4 {
                                let (row, col) = (if i < 2 { g } else { g + 8 }, t * 2 + i % 2);
                                let dot: i64 = (0..k as usize)
                                    .map(|x| am[row as usize][x] * bm[x][col as usize])
                                    .sum::<i64>()
                                    + cm[row as usize][col as usize];
                                let d = if sat {
                                    dot.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                                } else {
                                    dot as i32
                                };
                                slots[lane(l) as usize][(next - 4 + i) as usize] = d as u32;
                            }
                        }
                    }
                }
            }
        }
        let mut expected = vec![0u8; launch.out_len];
        for (g, s) in slots.iter().enumerate() {
            for (j, v) in s.iter().enumerate() {
                let at = (g * SLOTS as usize + j) * 4;
                expected[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        for (w, m) in mem.iter().enumerate() {
            let at = slot_bytes as usize + w * REGION as usize;
            expected[at..at + REGION as usize].copy_from_slice(m);
        }
        Answer::known(expected)
    }
}
