//! The sm_120 `mma` kinds (ISA-derived, not hardware-checked): `.kind::f8f6f4`,
//! `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4` and their sparse forms, against an
//! independent reference written from the ISA's fragment formulas (PTX ISA 9.7.14.5.10-11),
//! its scale-factor selection (9.7.14.3) and an exact sum. The inputs keep every sum exact in
//! `f32`, where the interpreter's tensor-core model must agree with the exact sum bit for bit.

use ptx_ir_interp::{Arg, Program};

mod common;

use common::{format, value, Rng};

/// A random finite code of `t` of modest magnitude (so that sums stay exact in `f32`).
fn random_code(r: &mut Rng, t: &str) -> u64 {
    let (e, m, _) = format(t);
    loop {
        let c = r.below(1 << (1 + e + m));
        let v = value(t, c);
        if v.is_finite()
            && (v == 0.0 || (0.0625..=8.0).contains(&v.abs()))
            && (t != "e4m3" || c & 0x7f != 0x7f)
        {
            return c;
        }
    }
}

/// The code as it sits in an 8-bit container (`e2m1` in bits 5..2, 6-bit codes in 5..0).
fn container(t: &str, c: u64) -> u64 {
    if t == "e2m1" {
        c << 2
    } else {
        c
    }
}

/// Runs `inst` (operands `{%r10..}` D, `{%r20..}` A, `{%r30..}` B, `{%r40..}` C, `%r50` e,
/// `%r51`/`%r52` scale data) with 16 input words per lane (A 0..4, B 4..8, C 8..12, e 12,
/// scales 13, 14) and returns D's four words per lane.
fn run(inst: &str, input: &[u32]) -> Result<Vec<u32>, String> {
    let src = format!(
        ".version 8.7\n.target sm_120a\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out) {{\n\
         .reg .b32 %r<64>; .reg .f32 %f<16>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 64; add.s64 %rd4, %rd1, %rd3;\n\
         ld.global.v4.u32 {{%r20, %r21, %r22, %r23}}, [%rd4];\n\
         ld.global.v4.u32 {{%r30, %r31, %r32, %r33}}, [%rd4+16];\n\
         ld.global.v4.u32 {{%r40, %r41, %r42, %r43}}, [%rd4+32];\n\
         ld.global.v4.u32 {{%r50, %r51, %r52, %r53}}, [%rd4+48];\n\
         mov.u32 %r10, 0; mov.u32 %r11, 0; mov.u32 %r12, 0; mov.u32 %r13, 0;\n\
         {inst}\n\
         mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd2, %rd5;\n\
         st.global.v4.u32 [%rd6], {{%r10, %r11, %r12, %r13}};\n\
         ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let o = p
        .launch("k")
        .block([32, 1, 1])
        .args(vec![Arg::Buffer(bytes), Arg::Buffer(vec![0; 32 * 16])])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[1]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// One case: dense or sparse, the kind's element width, types, scales.
struct Case<'a> {
    kind: &'a str,
    at: &'a str,
    bt: &'a str,
    /// 8 (containers) or 4 (packed `e2m1`).
    bits: usize,
    sparse: bool,
    /// (scale type, factors per row, byte-id a, thread-id a, byte-id b, thread-id b)
    scale: Option<(&'a str, usize, u64, u64, u64, u64)>,
    /// `.f16` accumulators (`kind::f8f6f4` only).
    f16: bool,
}

// Registers are indexed as the ISA's formulas number them.
#[allow(clippy::needless_range_loop)]
fn check(case: &Case, seed: u64) {
    let mut r = Rng(seed);
    let k = if case.bits == 8 { 32 } else { 64 } * if case.sparse { 2 } else { 1 };
    let (m, n) = (16usize, 8usize);
    // A (logical, with the 2:4 or pair-wise 4:8 zeros for sparse), B, C.
    let mut a = vec![0u64; m * k];
    let mut meta = vec![[0u64; 16]; m]; // per row, per chunk: nibble
    for i in 0..m {
        if case.sparse {
            let (chunk, unit) = if case.bits == 8 { (4, 1) } else { (8, 2) };
            for j in 0..k / chunk {
                let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
                let (i0, i1) = pairs[r.below(6) as usize];
                meta[i][j] = i0 | (i1 << 2);
                for idx in [i0, i1] {
                    for u in 0..unit {
                        a[i * k + j * chunk + idx as usize * unit + u] =
                            random_code(&mut r, case.at);
                    }
                }
            }
        } else {
            for kk in 0..k {
                a[i * k + kk] = random_code(&mut r, case.at);
            }
        }
    }
    let b: Vec<u64> = (0..k * n).map(|_| random_code(&mut r, case.bt)).collect();
    let c: Vec<f32> = (0..m * n)
        .map(|_| (r.below(64) as f32 - 32.0) * 0.25)
        .collect();
    // Scale factors: SFA[m][s], SFB[n][s] as codes and values.
    let (s, st) = case.scale.map_or((1, ""), |sc| (sc.1, sc.0));
    let scode = |r: &mut Rng| -> u64 {
        if st == "ue8m0" {
            124 + r.below(6) // 2^-3 .. 2^2
        } else {
            0x30 + r.below(0x18) // ue4m3 0.5 .. 3.75
        }
    };
    let sval = |c: u64| -> f64 {
        if st == "ue8m0" {
            2f64.powi(c as i32 - 127)
        } else {
            value("e4m3", c)
        }
    };
    let sfa: Vec<u64> = (0..m * s).map(|_| scode(&mut r)).collect();
    let sfb: Vec<u64> = (0..n * s).map(|_| scode(&mut r)).collect();
    // Lane registers from the ISA's formulas.
    let mut input = vec![0u32; 32 * 16];
    for lane in 0..32usize {
        let (g, p) = (lane >> 2, lane & 3);
        let w = &mut input[16 * lane..16 * lane + 16];
        let per = 32 / case.bits;
        for reg in 0..4 {
            for j in 0..per {
                // A element: dense (row, k) or sparse (row, compressed column).
                let row = g + 8 * (reg & 1);
                let code = if case.sparse {
                    // Compressed columns: the half-width dense fragment's column.
                    let cc = per * p + j + 4 * per * (reg >> 1);
                    // The cc-th stored element of the row.
                    let stored: Vec<u64> = (0..k)
                        .filter(|&kk| {
                            let (chunk, unit) = if case.bits == 8 { (4, 1) } else { (8, 2) };
                            let nib = meta[row][kk / chunk];
                            let idx = ((kk % chunk) / unit) as u64;
                            idx == nib & 3 || idx == nib >> 2
                        })
                        .map(|kk| a[row * k + kk])
                        .collect();
                    stored[cc]
                } else {
                    let col = per * p + j + 4 * per * (reg >> 1);
                    a[row * k + col]
                };
                let v = if case.bits == 8 {
                    container(case.at, code)
                } else {
                    code
                };
                w[reg] |= (v as u32) << (case.bits * j);
            }
        }
        let bregs = if case.sparse { 4 } else { 2 };
        for reg in 0..bregs {
            for j in 0..per {
                let kk = per * p + j + 4 * per * reg;
                let code = b[kk * n + g];
                let v = if case.bits == 8 {
                    container(case.bt, code)
                } else {
                    code
                };
                w[4 + reg] |= (v as u32) << (case.bits * j);
            }
        }
        for i in 0..4 {
            let (row, col) = (g + 8 * (i >> 1), 2 * p + (i & 1));
            let v = c[row * n + col];
            if case.f16 {
                let h = half_bits(v) as u32;
                w[8 + (i >> 1)] |= h << (16 * (i & 1));
            } else {
                w[8 + i] = v.to_bits();
            }
        }
        // Sparse metadata: lane covers row g + 8 (lane & 1), chunks 8 ((lane >> 1) & 1) ...
        if case.sparse {
            let row = g + 8 * (lane & 1);
            let base = 8 * ((lane >> 1) & 1);
            for j in 0..8 {
                w[12] |= (meta[row][base + j] as u32) << (4 * j);
            }
        }
        if let Some((_, s, bida, tida, bidb, tidb)) = case.scale {
            // SF_A: lane 4 (m % 8) + 2 tid_a + m / 8 holds row m; SF_B: lane 4 n + tid_b.
            if p as u64 / 2 == tida {
                let row = g + 8 * (p & 1);
                for cidx in 0..s {
                    w[13] |= (sfa[row * s + cidx] as u32) << (8 * (bida as usize + cidx));
                }
            } else {
                w[13] = 0xffff_ffff; // must not be read
            }
            if p as u64 == tidb {
                for cidx in 0..s {
                    w[14] |= (sfb[g * s + cidx] as u32) << (8 * (bidb as usize + cidx));
                }
            } else {
                w[14] = 0xffff_ffff;
            }
        }
    }
    // The instruction.
    let acc = if case.f16 { "f16" } else { "f32" };
    let dregs = if case.f16 {
        "{%r10, %r11}"
    } else {
        "{%r10, %r11, %r12, %r13}"
    };
    let cregs = if case.f16 {
        "{%r40, %r41}"
    } else {
        "{%r40, %r41, %r42, %r43}"
    };
    let bregs = if case.sparse {
        "{%r30, %r31, %r32, %r33}"
    } else {
        "{%r30, %r31}"
    };
    let head = if case.sparse {
        "mma.sp::ordered_metadata"
    } else {
        "mma"
    };
    let (scale_q, scale_ops, stype) = match case.scale {
        Some((st, s, bida, tida, bidb, tidb)) => (
            format!(".block_scale.scale_vec::{s}X"),
            format!(", %r51, {{{bida}, {tida}}}, %r52, {{{bidb}, {tidb}}}"),
            format!(".{st}"),
        ),
        None => (String::new(), String::new(), String::new()),
    };
    let meta_ops = if case.sparse { ", %r50, 0" } else { "" };
    let inst = format!(
        "{head}.sync.aligned.m16n8k{k}.row.col.kind::{}{scale_q}.{acc}.{}.{}.{acc}{stype} {dregs}, {{%r20, %r21, %r22, %r23}}, {bregs}, {cregs}{meta_ops}{scale_ops};",
        case.kind, case.at, case.bt
    );
    let out = run(&inst, &input).unwrap_or_else(|e| panic!("{inst}: {e}"));
    // Exact reference.
    for lane in 0..32usize {
        let (g, p) = (lane >> 2, lane & 3);
        for i in 0..4 {
            let (row, col) = (g + 8 * (i >> 1), 2 * p + (i & 1));
            let mut sum = c[row * n + col] as f64;
            for kk in 0..k {
                let (sa, sb) = if case.scale.is_some() {
                    (
                        sval(sfa[row * s + kk / (k / s)]),
                        sval(sfb[col * s + kk / (k / s)]),
                    )
                } else {
                    (1.0, 1.0)
                };
                sum += value(case.at, a[row * k + kk]) * sa * value(case.bt, b[kk * n + col]) * sb;
            }
            let got = if case.f16 {
                (out[4 * lane + (i >> 1)] >> (16 * (i & 1))) as u64 & 0xffff
            } else {
                out[4 * lane + i] as u64
            };
            let want = if case.f16 {
                half_bits(sum as f32)
            } else {
                assert_eq!(
                    sum as f32 as f64, sum,
                    "the test's sums must be exact in f32"
                );
                (sum as f32).to_bits() as u64
            };
            assert_eq!(
                got, want,
                "{inst}: D[{row}][{col}] (lane {lane}), exact {sum}"
            );
        }
    }
}

/// `f32` to `f16` bits, to nearest even (the test's values are exact or round once).
fn half_bits(v: f32) -> u64 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u64;
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    let e = a.log2().floor() as i32;
    let e = e.max(-14);
    let scale = 2f64.powi(10 - e);
    let m = (a as f64 * scale).round_ties_even() as u64;
    let (m, e) = if m >= 2048 { (m >> 1, e + 1) } else { (m, e) };
    if m < 1024 {
        return sign | m;
    }
    sign | (((e + 15) as u64) << 10) | (m & 0x3ff)
}

#[test]
fn f8f6f4_every_type_pair() {
    let types = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"];
    let mut seed = 7;
    for at in types {
        for bt in types {
            seed += 1;
            check(
                &Case {
                    kind: "f8f6f4",
                    at,
                    bt,
                    bits: 8,
                    sparse: false,
                    scale: None,
                    f16: false,
                },
                seed,
            );
        }
    }
    check(
        &Case {
            kind: "f8f6f4",
            at: "e2m1",
            bt: "e2m1",
            bits: 8,
            sparse: false,
            scale: None,
            f16: true,
        },
        99,
    );
}

#[test]
fn block_scaled_kinds_select_their_factors() {
    let cases = [
        ("mxf8f6f4", "e4m3", "e2m3", 8, ("ue8m0", 1, 2, 1, 3, 2)),
        ("mxf8f6f4", "e3m2", "e2m1", 8, ("ue8m0", 1, 0, 0, 1, 3)),
        ("mxf4", "e2m1", "e2m1", 4, ("ue8m0", 2, 2, 1, 0, 1)),
        ("mxf4nvf4", "e2m1", "e2m1", 4, ("ue8m0", 2, 0, 0, 2, 3)),
        ("mxf4nvf4", "e2m1", "e2m1", 4, ("ue4m3", 4, 0, 1, 0, 2)),
    ];
    for (i, (kind, at, bt, bits, scale)) in cases.into_iter().enumerate() {
        let case = Case {
            kind,
            at,
            bt,
            bits,
            sparse: false,
            scale: Some(scale),
            f16: false,
        };
        check(&case, 100 + i as u64);
    }
}

#[test]
fn sparse_kinds_decompress_a() {
    check(
        &Case {
            kind: "f8f6f4",
            at: "e2m3",
            bt: "e4m3",
            bits: 8,
            sparse: true,
            scale: None,
            f16: false,
        },
        200,
    );
    check(
        &Case {
            kind: "mxf8f6f4",
            at: "e2m1",
            bt: "e3m2",
            bits: 8,
            sparse: true,
            scale: Some(("ue8m0", 1, 1, 0, 2, 1)),
            f16: false,
        },
        201,
    );
    check(
        &Case {
            kind: "mxf4nvf4",
            at: "e2m1",
            bt: "e2m1",
            bits: 4,
            sparse: true,
            scale: Some(("ue4m3", 4, 0, 0, 0, 3)),
            f16: false,
        },
        202,
    );
}

#[test]
fn invalid_selectors_are_reported() {
    let input = vec![0u32; 32 * 16];
    let bad = [
        // 2X takes byte-id 0 or 2 only.
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {%r10, %r11, %r12, %r13}, {%r20, %r21, %r22, %r23}, {%r30, %r31}, {%r40, %r41, %r42, %r43}, %r51, {%h1, %h2}, %r52, {0, 0};",
    ];
    for inst in bad {
        let inst = format!(".reg .b16 %h<4>; mov.b16 %h1, 1; mov.b16 %h2, 0;\n{inst}");
        let e = run(&inst, &input).unwrap_err();
        assert!(e.contains("Table 37"), "{e}");
    }
    // A ue4m3 scale with its top bit set.
    let mut input = vec![0u32; 32 * 16];
    for l in 0..32 {
        input[16 * l + 13] = 0x80;
    }
    let e = run("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%r10, %r11, %r12, %r13}, {%r20, %r21, %r22, %r23}, {%r30, %r31}, {%r40, %r41, %r42, %r43}, %r51, {0, 0}, %r52, {0, 0};", &input).unwrap_err();
    assert!(e.contains("ue4m3"), "{e}");
}
