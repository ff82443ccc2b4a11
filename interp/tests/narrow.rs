//! The sm_100a `cvt` formats (ISA-derived, not hardware-checked): values worked out by hand from
//! the ISA's definitions. The reference vectors `corpus/vectors/narrow.jsonl` check the same
//! code against `ml_dtypes` and an exact-fraction model (`tools/hwvectors/narrow_ref.py`).

use ptx_ir_interp::narrow::{self, Round, E2M1, E2M3, E3M2, E4M3, F16};

fn e2m1(x: f32) -> u64 {
    E2M1.encode(x.to_bits(), Round::Nearest, true, false)
}

#[test]
fn e2m1_rounds_to_nearest_even_and_saturates() {
    // Codes: 0 0.5 1 1.5 2 3 4 6 (bit 3 the sign).
    let cases = [
        (0.25, 0x0), // tie between 0 and 0.5: even
        (0.75, 0x2), // tie between 0.5 and 1: even (1.0)
        (1.25, 0x2),
        (2.5, 0x4),
        (5.0, 0x6),
        (7.0, 0x7), // rounds past 6, saturates
        (1e30, 0x7),
        (-0.1, 0x8), // -0
        (f32::NEG_INFINITY, 0xf),
        (f32::NAN, 0x7), // NaN becomes +MAX_NORM
    ];
    for (x, want) in cases {
        assert_eq!(e2m1(x), want, "{x}");
    }
    assert_eq!(
        E2M1.encode((-3.0f32).to_bits(), Round::Nearest, true, true),
        0
    );
}

#[test]
fn six_bit_formats_have_their_maxima() {
    assert_eq!(
        E2M3.encode(100f32.to_bits(), Round::Nearest, true, false),
        0x1f
    );
    assert_eq!(f32::from_bits(E2M3.decode(0x1f)), 7.5);
    assert_eq!(f32::from_bits(E3M2.decode(0x1f)), 28.0);
    assert_eq!(f32::from_bits(E3M2.decode(0x01)), 0.0625); // smallest subnormal
    assert_eq!(f32::from_bits(E2M1.decode(0xf)), -6.0);
}

#[test]
fn ue8m0_takes_the_exponent() {
    assert_eq!(narrow::to_ue8m0(1f32.to_bits(), false, false), 127);
    assert_eq!(narrow::to_ue8m0(1.5f32.to_bits(), false, false), 127);
    assert_eq!(narrow::to_ue8m0(1.5f32.to_bits(), true, false), 128);
    assert_eq!(narrow::to_ue8m0((-4f32).to_bits(), true, false), 129);
    assert_eq!(narrow::to_ue8m0(0, true, true), 0);
    assert_eq!(narrow::to_ue8m0(f32::NAN.to_bits(), false, true), 0xff);
    assert_eq!(narrow::to_ue8m0(f32::INFINITY.to_bits(), false, true), 0xfe);
    assert_eq!(
        narrow::to_ue8m0(f32::INFINITY.to_bits(), false, false),
        0xff
    );
    assert_eq!(narrow::ue8m0_to_bf16(127), 0x3f80);
    assert_eq!(narrow::ue8m0_to_bf16(0), 0x0040);
    assert_eq!(narrow::ue8m0_to_bf16(0xff), 0x7fff);
}

#[test]
fn stochastic_rounding_adds_the_random_bits_to_the_discarded_ones() {
    // 1 + 2^-11 is half an f16 step above 1.0: the 13 discarded bits are 0x1000.
    let x = (1.0f32 + 2f32.powi(-11)).to_bits();
    let rs = |r| F16.encode(x, Round::Stochastic { r, bits: 13 }, false, false);
    assert_eq!(rs(0), 0x3c00);
    assert_eq!(rs(0x0fff), 0x3c00);
    assert_eq!(rs(0x1000), 0x3c01);
    // An exact value never moves.
    assert_eq!(
        F16.encode(
            1f32.to_bits(),
            Round::Stochastic {
                r: 0x1fff,
                bits: 13
            },
            false,
            false
        ),
        0x3c00
    );
    // Past the largest finite value: infinity, or the maximum with .satfinite.
    let big = 65519f32.to_bits();
    assert_eq!(
        F16.encode(
            big,
            Round::Stochastic {
                r: 0x1fff,
                bits: 13
            },
            false,
            false
        ),
        0x7c00
    );
    assert_eq!(
        F16.encode(
            big,
            Round::Stochastic {
                r: 0x1fff,
                bits: 13
            },
            true,
            false
        ),
        0x7bff
    );
    // e4m3 keeps a NaN's sign.
    assert_eq!(
        E4M3.encode(
            0xffc0_0000,
            Round::Stochastic { r: 0, bits: 16 },
            true,
            false
        ),
        0xff
    );
}
