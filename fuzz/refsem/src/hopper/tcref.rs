//! The reference's tensor-core arithmetic, written from the model of `docs/INTERP.md`
//! ("Tensor-core arithmetic", fitted to the H100) in exact integer arithmetic: every value is
//! `±m · 2^e` with an integer `m`, a block's terms are truncated to a common grid and summed
//! in `i128`, and the sum is rounded to the destination format by one generic routine. No code
//! is shared with `interp/`. (The element formats and the operands' draw are the generator's:
//! `ptx_ir_smith::hopper::values`.)

pub use ptx_ir_smith::hopper::values::Fmt;

/// An exact value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum V {
    /// Not a number.
    Nan,
    /// An infinity (negative when true).
    Inf(bool),
    /// `(-1)^neg · m · 2^e`.
    Fin {
        /// Sign.
        neg: bool,
        /// Significand (an integer; zero for a zero).
        m: u64,
        /// Exponent of the significand's unit.
        e: i32,
    },
}

impl V {
    /// The zero of sign `neg`.
    pub fn zero(neg: bool) -> V {
        V::Fin { neg, m: 0, e: 0 }
    }

    /// The negated value.
    pub fn negated(self) -> V {
        match self {
            V::Nan => V::Nan,
            V::Inf(n) => V::Inf(!n),
            V::Fin { neg, m, e } => V::Fin { neg: !neg, m, e },
        }
    }
}

/// Decodes the encoding `x` of format `f`.
pub fn decode(x: u32, f: Fmt) -> V {
    let x = if f == Fmt::Tf32 { x & !0x1fff } else { x };
    let (eb, mb) = f.bits();
    let neg = (x >> (eb + mb)) & 1 == 1;
    let be = (x >> mb) & ((1 << eb) - 1);
    let frac = (x & ((1 << mb) - 1)) as u64;
    let bias = (1i32 << (eb - 1)) - 1;
    let top = (1 << eb) - 1;
    if f == Fmt::E4m3 {
        if be == top && frac == (1 << mb) - 1 {
            return V::Nan;
        }
    } else if be == top {
        return if frac == 0 { V::Inf(neg) } else { V::Nan };
    }
    if be == 0 {
        V::Fin {
            neg,
            m: frac,
            e: 1 - bias - mb as i32,
        }
    } else {
        V::Fin {
            neg,
            m: frac | 1 << mb,
            e: be as i32 - bias - mb as i32,
        }
    }
}

/// How [`encode`] rounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Round {
    /// Toward zero.
    Zero,
    /// To nearest, ties to even.
    Nearest,
}

/// The canonical NaN of an accumulator format.
pub fn nan(f: Fmt) -> u32 {
    if f == Fmt::F16 {
        0x7fff
    } else {
        0x7fff_ffff
    }
}

/// Encodes `(-1)^neg · mag · 2^q` in `f` (`F16` or `F32`), rounding as `r`; past the range an
/// infinity.
pub fn encode(neg: bool, mag: u128, q: i32, f: Fmt, r: Round) -> u32 {
    let (eb, mb) = f.bits();
    let sign = (neg as u32) << (eb + mb);
    if mag == 0 {
        return sign;
    }
    let bias = (1i32 << (eb - 1)) - 1;
    let emin = 1 - bias;
    let lead = 127 - mag.leading_zeros() as i32 + q;
    let mut ue = lead.max(emin) - mb as i32;
    let (mut n, rem_half) = if q >= ue {
        (mag << (q - ue), std::cmp::Ordering::Less)
    } else {
        let s = (ue - q) as u32;
        if s >= 128 {
            (0, std::cmp::Ordering::Less)
        } else {
            let n = mag >> s;
            let rem = mag & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            (n, rem.cmp(&half))
        }
    };
    if r == Round::Nearest
        && (rem_half == std::cmp::Ordering::Greater
            || (rem_half == std::cmp::Ordering::Equal && n & 1 == 1))
    {
        n += 1;
        if n == 1 << (mb + 1) {
            n >>= 1;
            ue += 1;
        }
    }
    let top = (1u32 << eb) - 1;
    if n < 1 << mb {
        return sign | n as u32;
    }
    let be = ue + mb as i32 + bias;
    if be >= top as i32 {
        return sign | top << mb;
    }
    sign | (be as u32) << mb | (n as u32 & ((1 << mb) - 1))
}

/// The position of the leading bit of a nonzero finite value.
fn lead(m: u64, e: i32) -> i32 {
    63 - m.leading_zeros() as i32 + e
}

/// The exact sum of a block, before the final rounding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sum {
    /// A NaN.
    Nan,
    /// An infinity.
    Inf(bool),
    /// `sum · 2^q` (`zero_neg`: the sign of a zero sum).
    Fin(i128, i32, bool),
}

/// One block of the model: the products `a · b` and the accumulator `c` aligned to the largest
/// of `c`'s exponent and the products' operand-exponent sums, each truncated toward zero to
/// `width` bits below it, summed exactly.
pub fn block(terms: &[(V, V)], c: V, width: i32) -> Sum {
    let mut inf: Option<bool> = None;
    let mut nan = false;
    let mut add_inf = |n: bool, nan: &mut bool| match inf {
        Some(m) if m != n => *nan = true,
        _ => inf = Some(n),
    };
    let mut fins: Vec<(bool, u64, i32, i32)> = Vec::new(); // sign, m, e, alignment exponent
    for &(a, b) in terms {
        match (a, b) {
            (V::Nan, _) | (_, V::Nan) => nan = true,
            (V::Inf(x), V::Inf(y)) => add_inf(x != y, &mut nan),
            (V::Inf(x), V::Fin { neg, m, .. }) | (V::Fin { neg, m, .. }, V::Inf(x)) => {
                if m == 0 {
                    nan = true;
                } else {
                    add_inf(x != neg, &mut nan);
                }
            }
            (
                V::Fin {
                    neg: n1,
                    m: m1,
                    e: e1,
                },
                V::Fin {
                    neg: n2,
                    m: m2,
                    e: e2,
                },
            ) => {
                if m1 != 0 && m2 != 0 {
                    fins.push((n1 != n2, m1 * m2, e1 + e2, lead(m1, e1) + lead(m2, e2)));
                } else {
                    fins.push((n1 != n2, 0, 0, i32::MIN));
                }
            }
        }
    }
    match c {
        V::Nan => nan = true,
        V::Inf(n) => add_inf(n, &mut nan),
        V::Fin { neg, m, e } => {
            let al = if m == 0 { i32::MIN } else { lead(m, e) };
            fins.push((neg, m, e, al));
        }
    }
    if nan {
        return Sum::Nan;
    }
    if let Some(n) = inf {
        return Sum::Inf(n);
    }
    let zero_neg = fins.iter().all(|t| t.0);
    let big = fins.iter().map(|t| t.3).max().unwrap_or(i32::MIN);
    if big == i32::MIN {
        return Sum::Fin(0, 0, zero_neg);
    }
    let q = big - width;
    let mut s: i128 = 0;
    for (neg, m, e, _) in fins {
        if m == 0 {
            continue;
        }
        let t: i128 = if e >= q {
            (m as i128) << (e - q)
        } else if q - e >= 64 {
            0
        } else {
            (m >> (q - e)) as i128
        };
        s += if neg { -t } else { t };
    }
    Sum::Fin(s, q, zero_neg)
}

/// Rounds a block's sum to `f` as `r` (a NaN is canonical).
pub fn finish(s: Sum, f: Fmt, r: Round) -> u32 {
    match s {
        Sum::Nan => nan(f),
        Sum::Inf(n) => encode(n, 0, 0, f, r) | if f == Fmt::F16 { 0x7c00 } else { 0x7f80_0000 },
        Sum::Fin(0, _, zn) => encode(zn, 0, 0, f, r),
        Sum::Fin(x, q, _) => encode(x < 0, x.unsigned_abs(), q, f, r),
    }
}

/// Converts an encoding of `from` (`F32`/`F16`) to `to`, rounding to nearest.
pub fn convert(x: u32, from: Fmt, to: Fmt) -> u32 {
    match decode(x, from) {
        V::Nan => nan(to),
        V::Inf(n) => finish(Sum::Inf(n), to, Round::Nearest),
        V::Fin { neg, m, e } => encode(neg, m as u128, e, to, Round::Nearest),
    }
}

/// One f16/bf16/tf32 MMA block (alignment to 25 bits): the `f32` result truncated, or with an
/// `f16` accumulator the aligned sum rounded to nearest `f16` directly (no `f32` step).
pub fn mma_block(terms: &[(V, V)], c: V, acc: Fmt) -> u32 {
    let s = block(terms, c, 25);
    if acc == Fmt::F16 {
        finish(s, Fmt::F16, Round::Nearest)
    } else {
        finish(s, Fmt::F32, Round::Zero)
    }
}

/// The IEEE sum of two encodings of `f` (`F32` or `F16`), rounded to nearest (canonical NaN).
pub fn ieee_add(x: u32, y: u32, f: Fmt) -> u32 {
    if f == Fmt::F32 {
        // The host's binary32 addition is IEEE, rounding to nearest, subnormals kept.
        let r = f32::from_bits(x) + f32::from_bits(y);
        return if r.is_nan() { nan(f) } else { r.to_bits() };
    }
    let one = V::Fin {
        neg: false,
        m: 1,
        e: 0,
    };
    let (a, b) = (decode(x, f), decode(y, f));
    // Exact: the f16 grid spans 40 bits, so an alignment 64 bits wide keeps every bit.
    let s = match block(&[(a, one), (b, one)], V::zero(true), 64) {
        // x + (-x) is +0 when rounding to nearest; -0 + -0 is -0.
        Sum::Fin(0, q, _) => {
            let neg = |v: V| matches!(v, V::Fin { neg: true, .. });
            Sum::Fin(0, q, neg(a) && neg(b))
        }
        s => s,
    };
    finish(s, f, Round::Nearest)
}

/// FP8 `mma.sync` on sm_90: two `f16` MMAs (k % 4 in {0, 1} with a zero accumulator, then
/// k % 4 in {2, 3} onto the first), then `C` added by an IEEE add in the accumulator format.
/// `row[k]`/`col[k]` are the operands (exact), `c` the accumulator's encoding.
pub fn fp8_mma_sync(row: &[V], col: &[V], c: u32, acc: Fmt) -> u32 {
    let half = |lo: bool| -> Vec<(V, V)> {
        (0..row.len())
            .filter(|k| (k % 4 < 2) == lo)
            .map(|k| (row[k], col[k]))
            .collect()
    };
    let first = mma_block(&half(true), V::zero(false), acc);
    let second = mma_block(&half(false), decode(first, acc), acc);
    ieee_add(second, c, acc)
}

/// An FP8 `wgmma` block (alignment to 13 bits): into `f32` the truncated result keeps 13 bits
/// below its leading bit; into `f16` the aligned sum is rounded to nearest directly.
pub fn fp8_wgmma(terms: &[(V, V)], c: V, acc: Fmt) -> u32 {
    let s = block(terms, c, 13);
    if acc == Fmt::F16 {
        return finish(s, Fmt::F16, Round::Nearest);
    }
    let r = finish(s, Fmt::F32, Round::Zero);
    match decode(r, Fmt::F32) {
        V::Fin { neg, m, e } if m != 0 => {
            let l = 63 - m.leading_zeros() as i32;
            let drop = (l - 13).max(0);
            encode(neg, ((m >> drop) << drop) as u128, e, Fmt::F32, Round::Zero)
        }
        _ => r,
    }
}

/// The format named `s` in PTX.
#[cfg(test)]
pub fn fmt_named(s: &str) -> Option<Fmt> {
    Some(match s {
        "f16" => Fmt::F16,
        "bf16" => Fmt::Bf16,
        "tf32" => Fmt::Tf32,
        "e4m3" => Fmt::E4m3,
        "e5m2" => Fmt::E5m2,
        "f32" => Fmt::F32,
        _ => return None,
    })
}

/// GPU-recorded cases of `corpus/vectors/hopper.jsonl.xz` for the reference's own tests: per
/// case its name and its `hex` word arrays in order (the arguments, then the output).
#[cfg(test)]
pub fn gpu_cases(prefix: &str) -> Vec<(String, Vec<Vec<u32>>)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/vectors/hopper.jsonl.xz"
    );
    let data = std::fs::read(path).expect("corpus/vectors/hopper.jsonl.xz");
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut &data[..], &mut raw).expect("hopper.jsonl.xz: xz");
    let text = String::from_utf8(raw).expect("hopper.jsonl.xz: UTF-8");
    let mut v = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("{\"name\": \"") else {
            continue;
        };
        let name = &rest[..rest.find('"').expect("name")];
        if !name.starts_with(prefix) {
            continue;
        }
        let arrays = line
            .split("\"hex\": [")
            .skip(1)
            .map(|a| {
                a[..a.find(']').expect("array")]
                    .split(',')
                    .map(|w| {
                        u64::from_str_radix(w.trim().trim_matches('"'), 16).expect("hex word")
                            as u32
                    })
                    .collect()
            })
            .collect();
        v.push((name.to_string(), arrays));
    }
    v
}
