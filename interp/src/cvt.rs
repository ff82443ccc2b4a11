//! `cvt`: every integer width, f16, bf16, f32, f64, tf32, FP8 (e4m3, e5m2) and the packed forms.
//!
//! NaN rules measured on the hardware: conversions from `f64` and `bf16` keep the NaN payload
//! (truncated, quieted); conversions from `f32` and `f16` produce the destination's canonical
//! NaN. Float-to-integer conversions saturate and map NaN to 0. Integer results narrower than
//! the destination register are sign- or zero-extended by the destination type.

use crate::float::{self, Fmt};
use crate::int::{self, mask, sext};
use ptx_ir_core::{Rounding, Type};
use rustc_apfloat::Round;

/// Modifiers of a conversion.
#[derive(Copy, Clone, Debug, Default)]
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
        _ => false,
    }
}

/// Float to float of a different format with PTX's NaN and saturation rules.
fn f2f(b: u64, from: Fmt, to: Fmt, o: Opts) -> u64 {
    let mut b = b & from.mask();
    if o.ftz && from == Fmt::F32 {
        b = float::flush(b, from);
    }
    if float::is_nan(b, from) {
        if o.sat {
            return 0;
        }
        if o.relu || matches!(to, Fmt::E4m3 | Fmt::E5m2) {
            return to.canonical_nan();
        }
        return match from {
            Fmt::F64 | Fmt::Bf16 => float::convert_round(b, from, to, Round::NearestTiesToEven),
            _ => to.canonical_nan(),
        };
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

/// Rounds an f32 to tf32 (10 fraction bits), result in an f32 container.
fn tf32(b: u64, o: Opts) -> u64 {
    let b = b & 0xffff_ffff;
    if float::is_nan(b, Fmt::F32) {
        return 0x7fff_ffff;
    }
    if float::is_inf(b, Fmt::F32) {
        return if o.satfinite {
            (b & 0x8000_0000) | 0x7f7f_e000
        } else {
            b
        };
    }
    let sign = b & 0x8000_0000;
    let mag = b & 0x7fff_ffff;
    let lo = mag & 0x1fff;
    let t = mag & !0x1fff;
    let r = match o.rnd {
        Some(Rounding::Rz) => t,
        Some(Rounding::Rn) => {
            if lo > 0x1000 || (lo == 0x1000 && t & 0x2000 != 0) {
                t + 0x2000
            } else {
                t
            }
        }
        _ => {
            if lo >= 0x1000 {
                t + 0x2000
            } else {
                t
            }
        }
    };
    let r = if o.satfinite && r >= 0x7f80_0000 {
        0x7f7f_e000
    } else {
        r
    };
    let mut r = r | sign;
    if o.relu && sign != 0 {
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
        _ => scalar(dt, st, a, o),
    }
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
                    return to.canonical_nan();
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
