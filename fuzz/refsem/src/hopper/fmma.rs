//! The reference of the floating-point `mma.sync` family ([`ptx_ir_smith::hopper::fmma`]).
//!
//! The fragment layouts of the PTX ISA's figures (9.7.14.5.7-8, 9.7.14.5.10-11)
//! as index formulas — `groupID = lane / 4`, `threadID_in_group = lane % 4`; A's register `j`
//! holds row `groupID + 8 (j % 2)`, B's register `j` and C's element `i` likewise per shape —
//! and the tensor-core arithmetic of [`super::tcref`].

use super::tcref::{self, Fmt, V};
use super::{le32, Answer, Reference};
use ptx_ir_smith::hopper::fmma::{MmaShape, Spec, PER};
use ptx_ir_smith::hopper::Launch;

/// (row, k) of A's element `h` of register `j` in lane `l`.
pub fn a_at(sh: &MmaShape, l: u32, j: u32, h: u32) -> (u32, u32) {
    let (g, t) = (l / 4, l % 4);
    let p = MmaShape::per(sh.a);
    (g + 8 * (j % 2), t * p + h + sh.k / 2 * (j / 2))
}

/// (k, column) of B's element `h` of register `j` in lane `l`.
pub fn b_at(sh: &MmaShape, l: u32, j: u32, h: u32) -> (u32, u32) {
    let (g, t) = (l / 4, l % 4);
    let p = MmaShape::per(sh.b);
    (t * p + h + sh.k / 2 * j, g)
}

/// (row, column) of C/D's element `i` (0..4) in lane `l`.
pub fn c_at(l: u32, i: u32) -> (u32, u32) {
    let (g, t) = (l / 4, l % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

/// Element `h` (of `w` bits) of a register.
fn elem(x: u32, h: u32, w: u32) -> u32 {
    if w == 32 {
        x
    } else {
        (x >> (h * w)) & ((1 << w) - 1)
    }
}

/// The reference's `D` (per lane, `nc` registers) of one operation on `words(lane, j)`.
pub fn reference(sh: MmaShape, words: impl Fn(u32, u32) -> u32) -> Vec<Vec<u32>> {
    let (na, nb, nc) = sh.regs();
    let k = sh.k as usize;
    let mut am = vec![vec![V::zero(false); k]; 16];
    let mut bm = vec![vec![V::zero(false); 8]; k];
    let mut cm = vec![vec![0u32; 8]; 16];
    for l in 0..32 {
        for j in 0..na {
            for h in 0..32 / sh.a.width() {
                let (r, c) = a_at(&sh, l, j, h);
                am[r as usize][c as usize] =
                    tcref::decode(elem(words(l, j), h, sh.a.width()), sh.a);
            }
        }
        for j in 0..nb {
            for h in 0..32 / sh.b.width() {
                let (r, c) = b_at(&sh, l, j, h);
                bm[r as usize][c as usize] =
                    tcref::decode(elem(words(l, na + j), h, sh.b.width()), sh.b);
            }
        }
        for i in 0..4 {
            let (r, c) = c_at(l, i);
            cm[r as usize][c as usize] = if sh.acc == Fmt::F16 {
                elem(words(l, na + nb + i / 2), i % 2, 16)
            } else {
                words(l, na + nb + i)
            };
        }
    }
    let fp8 = sh.a.width() == 8;
    (0..32)
        .map(|l| {
            let d: Vec<u32> = (0..4)
                .map(|i| {
                    let (r, c) = c_at(l, i);
                    let (r, c) = (r as usize, c as usize);
                    let row = &am[r];
                    let col: Vec<V> = (0..k).map(|x| bm[x][c]).collect();
                    if fp8 {
                        tcref::fp8_mma_sync(row, &col, cm[r][c], sh.acc)
                    } else {
                        let terms: Vec<(V, V)> = (0..k).map(|x| (row[x], col[x])).collect();
                        tcref::mma_block(&terms, tcref::decode(cm[r][c], sh.acc), sh.acc)
                    }
                })
                .collect();
            if nc == 2 {
                vec![d[0] | d[1] << 16, d[2] | d[3] << 16]
            } else {
                d
            }
        })
        .collect()
}

impl Reference for Spec {
    fn answer(&self, launch: &Launch, shapes: &Vec<MmaShape>) -> Answer {
        let mut d_lane = vec![Vec::new(); 32];
        for (s, &sh) in shapes.iter().enumerate() {
            let base = s as u32 * 32 * PER * 4;
            let words = |l: u32, j: u32| le32(&launch.input, (base + (l * PER + j) * 4) as usize);
            for (l, d) in reference(sh, words).into_iter().enumerate() {
                let mut d = d;
                d.resize(4, 0);
                d_lane[l].extend(d);
            }
        }
        let mut expected = Vec::new();
        for d in d_lane {
            for x in d {
                expected.extend_from_slice(&x.to_le_bytes());
            }
        }
        Answer::known(expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference against the H100's own answers (`corpus/vectors/hopper.jsonl.xz`, family
    /// `mma`: two warps, A, B and C registers per thread in three buffers).
    #[test]
    fn reference_matches_gpu() {
        let mut checked = 0;
        for (name, arrays) in super::tcref::gpu_cases("mma.m16n8k") {
            let f: Vec<&str> = name.split(['.', '#']).collect();
            let k: u32 = f[1]
                .rsplit('k')
                .next()
                .and_then(|k| k.parse().ok())
                .expect("k");
            let (Some(acc), Some(a), Some(b)) = (
                super::tcref::fmt_named(f[2]),
                super::tcref::fmt_named(f[3]),
                super::tcref::fmt_named(f[4]),
            ) else {
                continue;
            };
            let sh = MmaShape { k, a, b, acc };
            let (na, nb, nc) = sh.regs();
            for w in 0..2 {
                let words = |l: u32, j: u32| {
                    let t = (32 * w + l) as usize;
                    if j < na {
                        arrays[0][t * na as usize + j as usize]
                    } else if j < na + nb {
                        arrays[1][t * nb as usize + (j - na) as usize]
                    } else {
                        arrays[2][t * nc as usize + (j - na - nb) as usize]
                    }
                };
                for (l, d) in reference(sh, words).into_iter().enumerate() {
                    let t = 32 * w as usize + l;
                    let got = &arrays[3][t * nc as usize..(t + 1) * nc as usize];
                    assert_eq!(d, got, "{name}: thread {t}");
                }
            }
            checked += 1;
        }
        assert!(checked >= 42, "only {checked} GPU cases checked");
    }
}
