//! `cvt`: every integer width, f16, bf16, f32, f64, tf32, FP8 (e4m3, e5m2) and the packed forms.
//!
//! NaN rules, measured on sm_90 (CUDA 13.0) where the ISA leaves them open:
//! - float to float: when the source or the destination is `f64` the NaN keeps its sign and
//!   payload (truncated or zero-extended) and is quieted; `cvt.f32.bf16` without `.ftz` is exact
//!   (the bits shifted, so a signalling NaN stays signalling); every other conversion, `bf16` to
//!   `f16` included, gives the destination's canonical NaN (`0x7fff`, `0x7fffffff`); `.sat`
//!   gives `+0`;
//! - float to integer: the ISA says "NaN inputs are converted to 0", which holds for 8- to
//!   32-bit results from `f16`, `bf16` and `f32`; from `f64`, and into 64-bit integers from any
//!   source, a NaN gives the destination's most negative pattern `1 << (width - 1)` (`0x80` for
//!   `u8`, `0x8000_0000_0000_0000` for `u64`);
//! - `tf32`: see `tf32` below.
//!
//! Out-of-range float-to-integer results saturate. Integer results narrower than the
//! destination register are sign- or zero-extended by the destination type.

use crate::float::{self, Fmt};
use crate::int::{self, mask, sext};
use crate::narrow;
use ptx_ir_core::{Rounding, Type};
use rustc_apfloat::Round;

/// Modifiers of a conversion.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Opts {
    /// Rounding modifier.
    pub rnd: Option<Rounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.satfinite`
    pub satfinite: bool,
    /// `.relu`
    pub relu: bool,
}

fn is_int(t: Type) -> bool {
    t.is_signed() || t.is_unsigned() || t.is_bits()
}

fn scalar_float(t: Type) -> Option<Fmt> {
    match t {
        Type::F16 => Some(Fmt::F16),
        Type::Bf16 => Some(Fmt::Bf16),
        Type::F32 | Type::Tf32 => Some(Fmt::F32),
        Type::F64 => Some(Fmt::F64),
        Type::E4m3 => Some(Fmt::E4m3),
        Type::E5m2 => Some(Fmt::E5m2),
        _ => None,
    }
}

/// Whether `cvt.dt.st` with `nsrc` sources is implemented.
pub fn supported(dt: Type, st: Type, nsrc: usize) -> bool {
    use Type::*;
    let simple = |t: Type| {
        is_int(t) && t.bits() <= 64 && t.bits() >= 8 || matches!(t, F16 | Bf16 | F32 | F64)
    };
    match (dt, st, nsrc) {
        (_, _, 1) if simple(dt) && simple(st) => true,
        (Tf32, F32, 1) => true,
        (F16x2 | Bf16x2, F32, 2) => true,
        (E4m3x2 | E5m2x2, F32, 2) => true,
        (E4m3x2 | E5m2x2, F16x2, 1) => true,
        (F16x2, E4m3x2 | E5m2x2, 1) => true,
        // sm_100a (`crate::narrow`): FP4/FP6 pairs, ue8m0, stochastic rounding into f16x2/bf16x2
        (E2m1x2 | E2m3x2 | E3m2x2, F32, 2) => true,
        (F16x2, E2m1x2 | E2m3x2 | E3m2x2, 1) => true,
        (Ue8m0x2, F32, 2) | (Ue8m0x2, Bf16x2, 1) | (Bf16x2, Ue8m0x2, 1) => true,
        (F16x2 | Bf16x2, F32, 3) => true,
        _ => false,
    }
}

/// Float to float of a different format with PTX's NaN and saturation rules.
fn f2f(b: u64, from: Fmt, to: Fmt, o: Opts) -> u64 {
    let mut b = b & from.mask();
    // `.ftz` flushes `f32` subnormal inputs, except into `f16` (measured: `cvt.rm.ftz.f16.f32`
    // of `-2^-149` gives `0x8001`, and `cvt.rp.ftz.f16.f32` of `2^-127` gives `0x0001`).
    if o.ftz && from == Fmt::F32 && to != Fmt::F16 {
        b = float::flush(b, from);
    }
    if from == Fmt::Bf16 && to == Fmt::F32 && !o.ftz && !o.sat && !o.relu {
        // Exact: the bits move up by 16 (a signalling NaN is not quieted; measured).
        return b << 16;
    }
    if float::is_nan(b, from) {
        if o.sat {
            return 0;
        }
        if o.relu || matches!(to, Fmt::E4m3 | Fmt::E5m2) {
            return to.canonical_nan();
        }
        if from == Fmt::F64 || to == Fmt::F64 {
            // Payload kept (truncated or widened), sign kept, quieted.
            return float::quiet(
                float::convert_round(b, from, to, Round::NearestTiesToEven),
                to,
            ) & to.mask();
        }
        return to.canonical_nan();
    }
    let r = if from == to {
        b
    } else {
        float::convert_round(b, from, to, float::round(o.rnd))
    };
    let mut r = r & to.mask();
    if o.satfinite && (float::is_inf(r, to) || float::is_nan(r, to)) {
        r = max_finite(to) | if float::neg(b, from) { to.sign() } else { 0 };
    }
    finish(r, to, o)
}

fn max_finite(f: Fmt) -> u64 {
    match f {
        Fmt::E4m3 => 0x7e,
        Fmt::E5m2 => 0x7b,
        Fmt::F16 => 0x7bff,
        Fmt::Bf16 => 0x7f7f,
        Fmt::F32 => 0x7f7f_ffff,
        Fmt::F64 => 0x7fef_ffff_ffff_ffff,
    }
}

fn finish(mut r: u64, to: Fmt, o: Opts) -> u64 {
    if o.ftz && to == Fmt::F32 {
        r = float::flush(r, to);
    }
    if o.sat {
        r = float::saturate(r, to);
    }
    if o.relu && float::neg(r, to) && !float::is_nan(r, to) {
        r = 0;
    }
    r
}

/// Rounds an f32 to tf32 (10 fraction bits), result in an f32 container with the low 13 bits
/// clear. Measured on sm_90:
/// - `.rn`/`.rz` (and `.relu`): a NaN gives `0x7fffe000`; `.relu` maps every negative value,
///   `-inf` included, to `+0`;
/// - `.rna`: infinities and NaNs are truncated, not rounded or quieted (`0x7f800001` gives
///   `0x7f800000`, `0xffbfffff` gives `0xffbfe000`);
/// - `.rna.satfinite`: any result whose exponent is all ones (an infinity, an overflow or a
///   NaN) is decremented by one tf32 ulp: `±inf` and overflows give `±0x7f7fe000` as the ISA
///   says, and a NaN gives its truncation minus `0x2000` (`0x7fc00000` gives `0x7fbfe000`).
fn tf32(b: u64, o: Opts) -> u64 {
    let b = b & 0xffff_ffff;
    let sign = b & 0x8000_0000;
    let mag = b & 0x7fff_ffff;
    let nan = float::is_nan(b, Fmt::F32);
    let rna = !matches!(o.rnd, Some(Rounding::Rn | Rounding::Rz));
    let r = if mag >= 0x7f80_0000 {
        if rna {
            b & !0x1fff
        } else if nan {
            return 0x7fff_e000;
        } else {
            b
        }
    } else {
        let lo = mag & 0x1fff;
        let t = mag & !0x1fff;
        let up = match o.rnd {
            Some(Rounding::Rz) => false,
            Some(Rounding::Rn) => lo > 0x1000 || (lo == 0x1000 && t & 0x2000 != 0),
            _ => lo >= 0x1000,
        };
        (if up { t + 0x2000 } else { t }) | sign
    };
    let mut r = r;
    if o.satfinite && r & 0x7f80_0000 == 0x7f80_0000 {
        r = if rna { r - 0x2000 } else { sign | 0x7f7f_e000 };
    }
    if o.relu && r & 0x8000_0000 != 0 {
        r = 0;
    }
    r
}

/// `cvt.dt.st d, a{, b}`
pub fn cvt(dt: Type, st: Type, a: u64, b: u64, o: Opts) -> u64 {
    use Type::*;
    match (dt, st) {
        (Tf32, F32) => tf32(a, o),
        (F16x2 | Bf16x2, F32) => {
            let to = if dt == F16x2 { Fmt::F16 } else { Fmt::Bf16 };
            let hi = f2f(a, Fmt::F32, to, o);
            let lo = f2f(b, Fmt::F32, to, o);
            (hi << 16) | lo
        }
        (E4m3x2 | E5m2x2, F32) => {
            let to = if dt == E4m3x2 { Fmt::E4m3 } else { Fmt::E5m2 };
            let o = Opts {
                satfinite: true,
                ..o
            };
            let hi = f2f(a, Fmt::F32, to, o);
            let lo = f2f(b, Fmt::F32, to, o);
            (hi << 8) | lo
        }
        (E4m3x2 | E5m2x2, F16x2) => {
            let to = if dt == E4m3x2 { Fmt::E4m3 } else { Fmt::E5m2 };
            let o = Opts {
                satfinite: true,
                ..o
            };
            let hi = f2f((a >> 16) & 0xffff, Fmt::F16, to, o);
            let lo = f2f(a & 0xffff, Fmt::F16, to, o);
            (hi << 8) | lo
        }
        (F16x2, E4m3x2 | E5m2x2) => {
            let from = if st == E4m3x2 { Fmt::E4m3 } else { Fmt::E5m2 };
            let o = Opts {
                rnd: Some(Rounding::Rn),
                ..o
            };
            let hi = f2f((a >> 8) & 0xff, from, Fmt::F16, o);
            let lo = f2f(a & 0xff, from, Fmt::F16, o);
            (hi << 16) | lo
        }
        (E2m1x2 | E2m3x2 | E3m2x2, F32) => {
            let Some((m, w)) = narrow::mini_of(dt) else {
                return 0;
            };
            let enc = |v: u64| m.encode(v as u32, narrow::Round::Nearest, true, o.relu);
            (enc(a) << w) | enc(b)
        }
        (F16x2, E2m1x2 | E2m3x2 | E3m2x2) => {
            let Some((m, w)) = narrow::mini_of(st) else {
                return 0;
            };
            let bits = m.ebits + m.mbits + 1;
            let half = |c: u64| {
                let f = m.decode(c & ((1 << bits) - 1)) as u64;
                let f = if o.relu && f >> 31 == 1 { 0 } else { f };
                float::convert_bits(f, Fmt::F32, Fmt::F16, Rounding::Rn)
            };
            (half(a >> w) << 16) | half(a & ((1 << w) - 1))
        }
        (Ue8m0x2, F32) => {
            let up = o.rnd == Some(Rounding::Rp);
            (narrow::to_ue8m0(a as u32, up, o.satfinite) << 8)
                | narrow::to_ue8m0(b as u32, up, o.satfinite)
        }
        (Ue8m0x2, Bf16x2) => {
            let up = o.rnd == Some(Rounding::Rp);
            (narrow::bf16_to_ue8m0((a >> 16) as u32, up, o.satfinite) << 8)
                | narrow::bf16_to_ue8m0(a as u32, up, o.satfinite)
        }
        (Bf16x2, Ue8m0x2) => (narrow::ue8m0_to_bf16(a >> 8) << 16) | narrow::ue8m0_to_bf16(a),
        _ => scalar(dt, st, a, o),
    }
}

/// `cvt.rs{.relu}{.satfinite}.(f16x2|bf16x2).f32 d, a, b, rbits`: `a` into the upper half with
/// the upper half of `rbits` (13 bits for `f16`), `b` into the lower.
pub fn cvt_rs_pair(dt: Type, a: u64, b: u64, rbits: u64, o: Opts) -> u64 {
    let (m, bits) = if dt == Type::F16x2 {
        (narrow::F16, 13)
    } else {
        (narrow::BF16, 16)
    };
    let mask = (1u32 << bits) - 1;
    let enc = |v: u64, r: u32| {
        m.encode(
            v as u32,
            narrow::Round::Stochastic { r: r & mask, bits },
            o.satfinite,
            o.relu,
        )
    };
    (enc(a, (rbits >> 16) as u32) << 16) | enc(b, rbits as u32)
}

/// `cvt.rs{.relu}.satfinite.(e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4).f32 d, {a, b, e, f}, rbits`.
pub fn cvt_rs_x4(dt: Type, v: [u64; 4], rbits: u64, relu: bool) -> u64 {
    let Some((m, w)) = narrow::mini_of(dt) else {
        return 0;
    };
    let fp4 = w == 4;
    let mut d = 0;
    for (k, &x) in v.iter().enumerate() {
        let r = narrow::x4_random(rbits as u32, k, fp4);
        let c = m.encode(
            x as u32,
            narrow::Round::Stochastic { r, bits: 16 },
            true,
            relu,
        );
        d |= c << (w * (3 - k as u32));
    }
    d
}

fn scalar(dt: Type, st: Type, a: u64, o: Opts) -> u64 {
    let (df, sf) = (scalar_float(dt), scalar_float(st));
    match (df, sf) {
        (None, None) => {
            let (dw, ds) = (dt.bits().min(64), dt.is_signed());
            let (sw, ss) = (st.bits().min(64), st.is_signed());
            let v = int::wide(a, sw, ss);
            let r = if o.sat {
                int::saturate(v, dw, ds)
            } else {
                (v as u64) & mask(dw)
            };
            extend(r, dw, ds)
        }
        (None, Some(f)) => {
            let (dw, ds) = (dt.bits().min(64), dt.is_signed());
            let mut a = a & f.mask();
            if o.ftz && f == Fmt::F32 {
                a = float::flush(a, f);
            }
            if float::is_nan(a, f) {
                // "NaN inputs are converted to 0" (ISA) holds for f16/bf16/f32 into 8- to
                // 32-bit integers; f64 sources and 64-bit destinations give the most negative
                // pattern instead (measured).
                let r = if f == Fmt::F64 || dw == 64 {
                    1u64 << (dw - 1)
                } else {
                    0
                };
                return extend(r, dw, ds);
            }
            let rnd = o.rnd.or(Some(Rounding::Rzi));
            let r = float::to_int(a, f, ds, dw, float::round(rnd)) & mask(dw);
            extend(r, dw, ds)
        }
        (Some(f), None) => {
            let (sw, ss) = (st.bits().min(64), st.is_signed());
            let r = float::from_int(a, ss, sw, f, float::round(o.rnd));
            finish(r & f.mask(), f, o)
        }
        (Some(to), Some(from)) => {
            if to == from {
                let mut b = a & to.mask();
                if o.ftz && to == Fmt::F32 {
                    b = float::flush(b, to);
                }
                if float::is_nan(b, to) {
                    // f64 keeps the NaN, quieted (measured); the others give the canonical NaN.
                    return if o.sat {
                        0
                    } else if to == Fmt::F64 {
                        float::quiet(b, to)
                    } else {
                        to.canonical_nan()
                    };
                }
                let r = match o.rnd {
                    Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi) => {
                        float::round_integral(b, to, float::round(o.rnd))
                    }
                    _ => b,
                };
                finish(r, to, o)
            } else {
                f2f(a, from, to, o)
            }
        }
    }
}

/// Extends a `w`-bit integer result to 64 bits by the destination's signedness.
fn extend(r: u64, w: u32, signed: bool) -> u64 {
    if signed {
        sext(r, w) as u64
    } else {
        r & mask(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(dt: Type, st: Type, a: u64, o: Opts) -> u64 {
        cvt(dt, st, a, 0, o)
    }

    fn rnd(r: Rounding) -> Opts {
        Opts {
            rnd: Some(r),
            ..Opts::default()
        }
    }

    /// The measured NaN rules (values from corpus/vectors/hw.jsonl.xz).
    #[test]
    fn nan_rules() {
        use Type::*;
        let rzi = rnd(Rounding::Rzi);
        assert_eq!(c(S32, F32, 0x7fc0_0000, rzi), 0);
        assert_eq!(
            c(S32, F64, 0x7ff8_0000_0000_0000, rzi) & 0xffff_ffff,
            0x8000_0000
        );
        assert_eq!(c(U8, F64, 0x7ff8_0000_0000_0000, rzi), 0x80);
        assert_eq!(c(S8, F64, 0x7ff8_0000_0000_0000, rzi) & 0xffff, 0xff80);
        assert_eq!(c(U64, F16, 0x7e00, rzi), 0x8000_0000_0000_0000);
        assert_eq!(
            c(F64, F32, 0xffbf_ffff, Opts::default()),
            0xffff_ffff_e000_0000
        );
        assert_eq!(c(F64, F16, 0x7c01, Opts::default()), 0x7ff8_0400_0000_0000);
        assert_eq!(
            c(F64, F64, 0x7ff4_0000_0000_0000, rnd(Rounding::Rni)),
            0x7ffc_0000_0000_0000
        );
        assert_eq!(c(F32, Bf16, 0x7f81, Opts::default()), 0x7f81_0000);
        let ftz = Opts {
            ftz: true,
            ..Opts::default()
        };
        assert_eq!(c(F32, Bf16, 0x7f81, ftz), 0x7fff_ffff);
        assert_eq!(c(F16, Bf16, 0x7fa0, rnd(Rounding::Rn)), 0x7fff);
    }

    #[test]
    fn ftz_into_f16_keeps_f32_subnormals() {
        let o = Opts {
            rnd: Some(Rounding::Rm),
            ftz: true,
            ..Opts::default()
        };
        assert_eq!(c(Type::F16, Type::F32, 0x8000_0001, o), 0x8001);
        assert_eq!(c(Type::Bf16, Type::F32, 0x8000_0001, o), 0x8000);
    }

    #[test]
    fn tf32_rules() {
        let (t, f) = (Type::Tf32, Type::F32);
        assert_eq!(c(t, f, 0x7f80_0001, rnd(Rounding::Rna)), 0x7f80_0000);
        assert_eq!(c(t, f, 0xffbf_ffff, rnd(Rounding::Rna)), 0xffbf_e000);
        assert_eq!(c(t, f, 0x7fc0_0000, rnd(Rounding::Rn)), 0x7fff_e000);
        let sf = Opts {
            rnd: Some(Rounding::Rna),
            satfinite: true,
            ..Opts::default()
        };
        assert_eq!(c(t, f, 0x7fc0_0000, sf), 0x7fbf_e000);
        assert_eq!(c(t, f, 0xff80_0000, sf), 0xff7f_e000);
        let relu = Opts {
            rnd: Some(Rounding::Rn),
            relu: true,
            ..Opts::default()
        };
        assert_eq!(c(t, f, 0xff80_0000, relu), 0);
    }
}
