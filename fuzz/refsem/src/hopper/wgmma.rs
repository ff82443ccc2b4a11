//! The reference of the `wgmma.mma_async` family ([`ptx_ir_smith::hopper::wgmma`]).
//!
//! The PTX ISA's canonical K-major layout without swizzle (9.7.15.5.1.2: an 8-row
//! by 16-byte core matrix is 128 contiguous bytes; element `(row, k)` is at
//! `start + (row / 8) · SBO + (16-byte chunk of k) · LBO + (row % 8) · 16 + byte in chunk`;
//! MN-major, a core matrix is 8 K-rows of 16 bytes of MN, element `(mn, k)` at
//! `start + (16-byte chunk of mn) · SBO + (k / 8) · LBO + (k % 8) · 16 + byte in chunk`),
//! the descriptor fields of 9.7.15.5.1.2 (start, LBO, SBO >> 4 at bits 0, 16, 32), the
//! register fragments of 9.7.15.5.1 (warp `w` holds rows `16 w ..`, as `mma.m16n8`: `D`
//! element `i` at row `16 w + groupID + 8 ((i / 2) % 2)`, column `8 (i / 4) + 2
//! threadID_in_group + i % 2`) and the arithmetic of [`super::tcref`].

use super::tcref::{self, Fmt, V};
use super::{le32, Answer, Reference};
use ptx_ir_smith::hopper::wgmma::Spec;
use ptx_ir_smith::hopper::Launch;

/// Byte of element `(row, k)` of an operand of `rows` rows and `esize`-byte elements.
fn at(sp: &Spec, rows: u32, row: u32, k: u32, ebits: u32, mn: bool) -> u32 {
    let (lbo, sbo) = sp.lbo_sbo(rows, mn);
    if mn {
        let rb = row * ebits / 8;
        let kper = 8;
        return rb / 16 * sbo + k / kper * lbo + k % kper * 16 + rb % 16;
    }
    let kb = k * ebits / 8;
    row / 8 * sbo + kb / 16 * lbo + row % 8 * 16 + kb % 16
}

/// The reference: per thread, its D registers.
pub fn reference(sp: &Spec, input: &[u8]) -> Vec<Vec<u32>> {
    let (sa, sb) = sp.sizes();
    let (_, c_at, ar_at) = sp.layout();
    let (k, n, nd) = (sp.k() as usize, sp.n as usize, sp.nd());
    let (wa, wb) = (sp.a.width(), sp.b.width());
    let elem = |at: u32, w: u32| -> u32 {
        let at = at as usize;
        match w {
            8 => input[at] as u32,
            16 => u16::from_le_bytes([input[at], input[at + 1]]) as u32,
            _ => le32(input, at),
        }
    };
    // D element i of thread t: (row, column).
    let d_at = |t: u32, i: u32| {
        let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
        (16 * w + g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * q + i % 2)
    };
    let per_c = if sp.acc == Fmt::F16 { 2 } else { 1 };
    let mut d = vec![vec![0u32; n]; 64];
    for t in 0..128 {
        for i in 0..sp.n / 2 {
            let (r, c) = d_at(t, i);
            let word = le32(input, (c_at + (t * nd + i / per_c) * 4) as usize);
            d[r as usize][c as usize] = if per_c == 2 {
                word >> (16 * (i % 2)) & 0xffff
            } else {
                word
            };
        }
    }
    for (s, st) in sp.steps.iter().enumerate() {
        let base = s as u32 * (sa + sb);
        let mut am = vec![vec![V::zero(false); k]; 64];
        if st.a_regs {
            let p = 32 / wa;
            for t in 0..128 {
                let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
                for j in 0..4 {
                    let x = le32(input, (ar_at + ((s as u32 * 128 + t) * 4 + j) * 4) as usize);
                    for h in 0..p {
                        let r = 16 * w + g + 8 * (j % 2);
                        let c = q * p + h + sp.k() / 2 * (j / 2);
                        let e = if wa == 32 {
                            x
                        } else {
                            x >> (h * wa) & ((1 << wa) - 1)
                        };
                        am[r as usize][c as usize] = tcref::decode(e, sp.a);
                    }
                }
            }
        } else {
            for (r, row) in am.iter_mut().enumerate() {
                for (x, v) in row.iter_mut().enumerate() {
                    let at = base + at(sp, 64, r as u32, x as u32, wa, sp.mn_major.0);
                    *v = tcref::decode(elem(at, wa), sp.a);
                }
            }
        }
        let mut bm = vec![vec![V::zero(false); k]; n];
        for (r, row) in bm.iter_mut().enumerate() {
            for (x, v) in row.iter_mut().enumerate() {
                let at = base + sa + at(sp, sp.n, r as u32, x as u32, wb, sp.mn_major.1);
                *v = tcref::decode(elem(at, wb), sp.b);
            }
        }
        let keep = s > 0 || sp.scale_d;
        for r in 0..64 {
            for c in 0..n {
                let terms: Vec<(V, V)> = (0..k)
                    .map(|x| {
                        let (a, b) = (am[r][x], bm[c][x]);
                        (
                            if st.neg_a { a.negated() } else { a },
                            if st.neg_b { b.negated() } else { b },
                        )
                    })
                    .collect();
                let acc = if keep {
                    tcref::decode(d[r][c], sp.acc)
                } else {
                    V::zero(false)
                };
                d[r][c] = if wa == 8 {
                    tcref::fp8_wgmma(&terms, acc, sp.acc)
                } else {
                    tcref::mma_block(&terms, acc, sp.acc)
                };
            }
        }
    }
    (0..128)
        .map(|t| {
            let mut regs = vec![0u32; nd as usize];
            for i in 0..sp.n / 2 {
                let (r, c) = d_at(t, i);
                let x = d[r as usize][c as usize];
                regs[(i / per_c) as usize] |= if per_c == 2 { x << (16 * (i % 2)) } else { x };
            }
            regs
        })
        .collect()
}

impl Reference for Spec {
    fn answer(&self, launch: &Launch, _: &()) -> Answer {
        let mut expected = Vec::new();
        for regs in reference(self, &launch.input) {
            for x in regs {
                expected.extend_from_slice(&x.to_le_bytes());
            }
        }
        Answer::known(expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ir_smith::hopper::values::Draw;
    use ptx_ir_smith::hopper::wgmma::Step;

    /// The reference against the H100's own answers (`corpus/vectors/hopper.jsonl.xz`, family
    /// `wgmma`): the cases with one `mma_async`, A and B K-major without swizzle (A, B and C
    /// in three buffers, LBO 128 and SBO 256 as here with `k_inner`).
    #[test]
    fn reference_matches_gpu() {
        let mut checked = 0;
        for (name, arrays) in super::tcref::gpu_cases("wgmma.m64n") {
            let f: Vec<&str> = name.split('.').collect();
            if f[5..9] != ["aK", "bK", "sw0", "k1"] {
                continue;
            }
            let (Some(acc), Some(a), Some(b)) = (
                super::tcref::fmt_named(f[2]),
                super::tcref::fmt_named(f[3]),
                super::tcref::fmt_named(f[4]),
            ) else {
                continue;
            };
            let n: u32 = f[1][4..f[1].find('k').expect("k")].parse().expect("n");
            let neg = f[9..]
                .iter()
                .find_map(|x| x.strip_prefix("neg"))
                .unwrap_or("11");
            let spec = Spec {
                n,
                a,
                b,
                acc,
                k_inner: true,
                mn_major: (false, false),
                scale_d: !f[9..].contains(&"nod"),
                c_draw: Draw::default(),
                steps: vec![Step {
                    draw: Draw::default(),
                    a_regs: false,
                    neg_a: neg.starts_with('-'),
                    neg_b: neg.ends_with("-1"),
                }],
            };
            let (sa, sb) = spec.sizes();
            let nd = spec.nd();
            let bytes = |w: &[u32], n: u32| -> Vec<u8> {
                w.iter()
                    .flat_map(|x| x.to_le_bytes())
                    .take(n as usize)
                    .collect()
            };
            let mut input = bytes(&arrays[0], sa);
            input.extend(bytes(&arrays[1], sb));
            input.extend(bytes(&arrays[2], 128 * nd * 4));
            let got: Vec<u32> = reference(&spec, &input).concat();
            assert_eq!(got, arrays[3][..got.len()], "{name}");
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} GPU cases checked");
    }
}
