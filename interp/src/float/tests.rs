//! The fast paths and the square root against apfloat, on edge values.

use super::*;
use rustc_apfloat::ieee::{Double, Single};

const F32_EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x0080_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_0001,
    0x3fff_ffff,
    0x4000_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fa0_0000,
    0x3eaa_aaab,
    0x4b80_0000,
    0x4b7f_ffff,
    0x3400_0000,
    0x3380_0000,
    0x0d80_0000,
    0x7e80_0000,
    0x3dcc_cccd,
    0x4049_0fdb,
    0x2f80_0000,
];

const F64_EDGES: &[u64] = &[
    0,
    0x8000_0000_0000_0000,
    1,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0xbff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x3fb9_9999_9999_999a,
    0x4340_0000_0000_0000,
    0x3ca0_0000_0000_0000,
    0x0000_0000_0000_0003,
    0x7fe0_0000_0000_0000,
];

fn soft32(op: BinOp, a: u32, b: u32) -> u32 {
    let (x, y) = (Single::from_bits(a as u128), Single::from_bits(b as u128));
    let r = Round::NearestTiesToEven;
    (match op {
        BinOp::Add => x.add_r(y, r),
        BinOp::Sub => x.sub_r(y, r),
        BinOp::Mul => x.mul_r(y, r),
        BinOp::Div => x.div_r(y, r),
    })
    .value
    .to_bits() as u32
}

fn soft64(op: BinOp, a: u64, b: u64) -> u64 {
    let (x, y) = (Double::from_bits(a as u128), Double::from_bits(b as u128));
    let r = Round::NearestTiesToEven;
    (match op {
        BinOp::Add => x.add_r(y, r),
        BinOp::Sub => x.sub_r(y, r),
        BinOp::Mul => x.mul_r(y, r),
        BinOp::Div => x.div_r(y, r),
    })
    .value
    .to_bits() as u64
}

fn same(a: u64, b: u64, f: Fmt) -> bool {
    a == b || (is_nan(a, f) && is_nan(b, f))
}

#[test]
fn host_round_to_nearest_matches_apfloat() {
    for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
        for &a in F32_EDGES {
            for &b in F32_EDGES {
                let fast = ieee_bin(op, Fmt::F32, a as u64, b as u64, Round::NearestTiesToEven);
                let soft = soft32(op, a, b) as u64;
                assert!(
                    same(fast, soft, Fmt::F32),
                    "{op:?} {a:08x} {b:08x}: {fast:x} vs {soft:x}"
                );
            }
        }
        for &a in F64_EDGES {
            for &b in F64_EDGES {
                let fast = ieee_bin(op, Fmt::F64, a, b, Round::NearestTiesToEven);
                let soft = soft64(op, a, b);
                assert!(same(fast, soft, Fmt::F64), "{op:?} {a:016x} {b:016x}");
            }
        }
    }
}

#[test]
fn host_fma_matches_apfloat() {
    for &a in F32_EDGES {
        for &b in F32_EDGES {
            for &c in &F32_EDGES[..12] {
                let fast = ieee_fma(
                    Fmt::F32,
                    a as u64,
                    b as u64,
                    c as u64,
                    Round::NearestTiesToEven,
                );
                let soft = Single::from_bits(a as u128)
                    .mul_add_r(
                        Single::from_bits(b as u128),
                        Single::from_bits(c as u128),
                        Round::NearestTiesToEven,
                    )
                    .value
                    .to_bits() as u64;
                assert!(same(fast, soft, Fmt::F32), "fma {a:08x} {b:08x} {c:08x}");
            }
        }
    }
}

/// The integer square root path in every mode, checked by squaring back with apfloat: the
/// result r must satisfy the rounding mode's bracket around sqrt(x).
#[test]
fn sqrt_brackets_in_every_mode() {
    let modes = [
        Round::NearestTiesToEven,
        Round::TowardZero,
        Round::TowardNegative,
        Round::TowardPositive,
    ];
    for &a in F32_EDGES {
        if is_nan(a as u64, Fmt::F32) || a & 0x8000_0000 != 0 {
            continue;
        }
        let exact = (f32::from_bits(a) as f64).sqrt();
        for r in modes {
            let v = sqrt::ieee_sqrt(a as u64, Fmt::F32, r) as u32;
            let got = f32::from_bits(v) as f64;
            match r {
                Round::TowardZero | Round::TowardNegative => assert!(got <= exact, "{a:08x} {r:?}"),
                Round::TowardPositive => assert!(got >= exact, "{a:08x} {r:?}"),
                _ => {}
            }
            let hostrn = (exact as f32).to_bits();
            if r == Round::NearestTiesToEven {
                assert_eq!(v, hostrn, "{a:08x}");
            } else {
                assert!(v.abs_diff(hostrn) <= 1, "{a:08x} {r:?}");
            }
        }
    }
    // f64: the slow path in round-to-nearest equals the host's correctly rounded sqrt.
    for &a in F64_EDGES {
        if is_nan(a, Fmt::F64) || a >> 63 == 1 {
            continue;
        }
        let slow = {
            // Force the integer path by asking for ties-to-away, which agrees with ties-to-even
            // except on exact ties, and square roots of binary floats are never exact ties.
            sqrt::ieee_sqrt(a, Fmt::F64, Round::NearestTiesToAway)
        };
        assert_eq!(slow, f64::from_bits(a).sqrt().to_bits(), "{a:016x}");
    }
}

#[test]
fn directed_rounding_differs_where_it_must() {
    // 1/3 in f32: rz and rm round down, rp rounds up.
    let one = 0x3f80_0000u64;
    let three = 0x4040_0000u64;
    let m = |r| Mode {
        rnd: Some(r),
        ..Mode::default()
    };
    let rn = bin(BinOp::Div, Fmt::F32, one, three, m(Rounding::Rn));
    let rz = bin(BinOp::Div, Fmt::F32, one, three, m(Rounding::Rz));
    let rp = bin(BinOp::Div, Fmt::F32, one, three, m(Rounding::Rp));
    assert_eq!(rn, 0x3eaa_aaab);
    assert_eq!(rz, 0x3eaa_aaaa);
    assert_eq!(rp, 0x3eaa_aaab);
    // Overflow: rz gives the largest finite value, rn infinity.
    let big = 0x7f7f_ffffu64;
    assert_eq!(
        bin(BinOp::Add, Fmt::F32, big, big, m(Rounding::Rz)),
        0x7f7f_ffff
    );
    assert_eq!(
        bin(BinOp::Add, Fmt::F32, big, big, m(Rounding::Rn)),
        0x7f80_0000
    );
}

#[test]
fn nan_rules() {
    let m = Mode::default();
    assert_eq!(
        bin(BinOp::Mul, Fmt::F32, 0x7fa0_0000, 0x3f80_0000, m),
        0x7fff_ffff
    );
    // f64 keeps the payload of the first NaN, quieted; invalid gives the default NaN.
    assert_eq!(
        bin(BinOp::Add, Fmt::F64, 0x7ff0_0000_0000_0001, 0, m),
        0x7ff8_0000_0000_0001
    );
    assert_eq!(
        bin(BinOp::Mul, Fmt::F64, 0x7ff0_0000_0000_0000, 0, m),
        0xfff8_0000_0000_0000
    );
}

/// The measured f64 NaN priorities (values from corpus/vectors/hw.jsonl.xz).
#[test]
fn f64_nan_priority() {
    let m = Mode::default();
    let (q1, s4, neg1) = (
        0x7ff8_0000_0000_0000u64,
        0x7ff4_0000_0000_0000u64,
        0xfff8_0000_0000_0001u64,
    );
    assert_eq!(bin(BinOp::Add, Fmt::F64, s4, q1, m), q1);
    assert_eq!(
        bin(BinOp::Sub, Fmt::F64, 0x7ff0_0000_0000_0001, neg1, m),
        neg1
    );
    assert_eq!(bin(BinOp::Div, Fmt::F64, s4, q1, m), 0x7ffc_0000_0000_0000);
    let one = 0x3ff0_0000_0000_0000;
    assert_eq!(fma(Fmt::F64, s4, one, neg1, m), neg1);
    assert_eq!(
        fma(Fmt::F64, 0x7ff0_0000_0000_0001, s4, one, m),
        0x7ffc_0000_0000_0000
    );
    assert_eq!(fma(Fmt::F64, one, q1, s4, m), q1);
    let mm = MinMax::default();
    assert_eq!(
        min_max(Fmt::F64, neg1, 0x7ff0_0000_0000_0001, mm),
        0x7ff8_0000_0000_0001
    );
}

#[test]
fn ftz_detects_tininess_after_rounding() {
    let m = Mode {
        ftz: true,
        ..Mode::default()
    };
    // 2^-14 (1 - 2^-11) is representable at 11 bits: tiny, flushed.
    assert_eq!(bin(BinOp::Mul, Fmt::F16, 0x0400, 0x3bff, m), 0);
    assert_eq!(bin(BinOp::Mul, Fmt::F16, 0x0400, 0x3c00, m), 0x0400);
    // 2^-14 (1 - 2^-20) rounds to 2^-14 at 11 bits: not tiny.
    assert_eq!(bin(BinOp::Mul, Fmt::F16, 0x0401, 0x3bfe, m), 0x0400);
    assert_eq!(fma(Fmt::F16, 0x0401, 0x3bfe, 0x8000, m), 0x0400);
    // f32: 2^-126 (1 - 2^-24) is representable at 24 bits: flushed in every rounding.
    assert_eq!(bin(BinOp::Mul, Fmt::F32, 0x0080_0000, 0x3f7f_ffff, m), 0);
    assert_eq!(
        bin(BinOp::Mul, Fmt::F32, 0x8080_0000, 0x3f7f_ffff, m),
        0x8000_0000
    );
    let rp = Mode {
        rnd: Some(ptx_ir_core::Rounding::Rp),
        ..m
    };
    assert_eq!(bin(BinOp::Mul, Fmt::F32, 0x0080_0000, 0x3f7f_ffff, rp), 0);
    // Half an ulp (of the wide format) below 2^-126 rounds up to it: kept.
    assert_eq!(
        bin(BinOp::Mul, Fmt::F32, 0x236a_6ae7, 0x1c8b_c8e4, rp),
        0x0080_0000
    );
}

#[test]
fn testp_normal_includes_zero() {
    assert!(test_class(0x8000_0000, Fmt::F32, Class::Normal));
    assert!(!test_class(0x0000_0001, Fmt::F32, Class::Normal));
}

#[test]
fn approx_models() {
    // MUFU.RCP64H reads the upper word only: 0x7ff0000000000001 is +inf.
    assert_eq!(approx::rcp_f64(0x7ff0_0000_0000_0001), 0);
    assert_eq!(
        approx::rcp_f64(0x7ff8_0000_0000_0000),
        0x7fff_ffff_0000_0000
    );
    assert_eq!(
        approx::rcp_f64(0x4009_21fb_5444_2d18),
        0x3fd4_5f30_0000_0000
    );
    assert_eq!(
        approx::rsqrt_f64(0x7fef_ffff_ffff_ffff, true),
        0x1ff0_0000_0000_0000
    );
    // sin of 2^24 - 1 turns into half a turn: -0; cos of 2^24: three quarters: +0.
    assert_eq!(approx::sincos_f32(0x4b7f_ffff, false, false), 0x8000_0000);
    assert_eq!(approx::sincos_f32(0x4b80_0000, false, true), 0);
    // sin of just above 1 (measured 0x3f576aa4; the exact value rounds to 0x3f576aa5); sin of
    // the f32 nearest π: the last entry of the cosine table, +0; cos of it: -1.
    assert_eq!(approx::sincos_f32(0x3f80_0001, false, false), 0x3f57_6aa4);
    assert_eq!(approx::sincos_f32(0x4049_0fdb, false, false), 0);
    assert_eq!(approx::sincos_f32(0x4049_0fdb, true, true), 0xbf80_0000);
    // Subnormal x: without .ftz the product is kept (n = 0), so sin keeps the sign.
    assert_eq!(approx::sincos_f32(0x8000_0001, false, false), 0x8000_0000);
    assert_eq!(approx::sincos_f32(0x8000_0001, false, true), 0x3f80_0000);
    // div.approx: b = 2^126 has a normal reciprocal; larger divisors give 0.
    assert_eq!(
        approx::div_approx_f32(0x3f80_0000, 0x7e80_0000, false),
        0x0080_0000
    );
    assert_eq!(approx::div_approx_f32(0x7f7f_ffff, 0x7f7f_ffff, false), 0);
}

/// `rsqrt.approx.f64` without `.ftz` is the refinement ptxas compiles around `MUFU.RSQ64H`,
/// subnormal inputs scaled: every recorded H200 result, subnormals and the largest values
/// included (`interp/sfu/rsqrt.approx.f64.tsv`).
#[test]
fn rsqrt_f64_matches_the_gpu() {
    let table = include_str!("../../sfu/rsqrt.approx.f64.tsv");
    let mut n = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (x, y) = line.split_once('\t').expect("input and result");
        let x = u64::from_str_radix(x, 16).expect("hex");
        let y = u64::from_str_radix(y, 16).expect("hex");
        assert_eq!(approx::rsqrt_f64(x, false), y, "rsqrt.approx.f64 {x:#018x}");
        n += 1;
    }
    assert_eq!(n, 64);
}

/// `lg2.approx.ftz.f32` below 0.5: a negative sum of the exponent and the table's value that is
/// exact comes out one unit toward zero (the unit's own value lies above the table's). H200
/// results; the whole binades of `tools/hwvectors/probes/lg2_sweep.py` agree too.
#[test]
fn lg2_below_the_table_matches_the_gpu() {
    for (x, gpu) in [
        (0x3e80_1b06u64, 0xbfff_d906u64),
        (0x3e80_1fff, 0xbfff_d1db),
        (0x3e80_2674, 0xbfff_c88d),
        (0x3e00_1fff, 0xc03f_e8ed),
        (0x3c00_1fff, 0xc0df_f476),
        (0x3200_4a35, 0xc1d7_f950),
        (0x0080_ac01, 0xc2fb_fc21),
    ] {
        assert_eq!(
            approx::lg2_f32(x, true),
            gpu,
            "lg2.approx.ftz.f32 {x:#010x}"
        );
    }
}

/// The unit's cosine table is its sine table read backwards: `C(r) = S(2^23 - 1 - r)` for
/// every entry of the first quadrant (what `sfu::Table::Cos` keeps its residuals against).
#[test]
fn cos_table_is_sin_table_mirrored() {
    use super::sfu::Table;
    let m = (1u32 << 23) - 1;
    assert_eq!(Table::Sin.get(0), Some(0));
    assert_eq!(Table::Cos.get(0), Some(0x3f80_0000));
    assert_eq!(Table::Sin.get(1 << 23), None);
    for r in 0..=m {
        assert_eq!(Table::Cos.get(r), Table::Sin.get(m - r), "entry {r}");
    }
}
