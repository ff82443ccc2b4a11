//! Integer and bit-manipulation semantics on raw bits. Values are `u64` holding the low `w` bits
//! of a `w`-bit integer; results are masked to their width. Nothing here can panic: every
//! arithmetic step wraps and every shift is checked.

/// All-ones mask of `w` bits (`w` in 1..=64).
#[inline]
pub const fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Sign-extends the low `w` bits.
#[inline]
pub const fn sext(v: u64, w: u32) -> i64 {
    if w >= 64 {
        v as i64
    } else if w == 0 {
        0
    } else {
        let s = 64 - w;
        ((v << s) as i64) >> s
    }
}

/// Value of `v` as a `w`-bit integer of the given signedness, widened to i128.
#[inline]
pub fn wide(v: u64, w: u32, signed: bool) -> i128 {
    if signed {
        sext(v, w) as i128
    } else {
        (v & mask(w)) as i128
    }
}

/// `atom.inc`/`red.inc` of `w` bits: `old + 1`, or 0 once `old` reaches `b`.
pub fn atomic_inc(old: u64, b: u64, w: u32) -> u64 {
    let (o, b) = (old & mask(w), b & mask(w));
    if o >= b {
        0
    } else {
        o + 1
    }
}

/// `atom.dec`/`red.dec` of `w` bits: `old - 1`, or `b` when `old` is 0 or above `b`.
pub fn atomic_dec(old: u64, b: u64, w: u32) -> u64 {
    let (o, b) = (old & mask(w), b & mask(w));
    if o == 0 || o > b {
        b
    } else {
        o - 1
    }
}

/// The smaller (`min`) or larger of `old` and `b` as `w`-bit integers (equal ones have the same
/// low `w` bits, which is all a caller keeps).
pub fn min_max(old: u64, b: u64, w: u32, signed: bool, min: bool) -> u64 {
    let (p, q) = (wide(old, w, signed), wide(b, w, signed));
    if (p <= q) == min {
        old
    } else {
        b
    }
}

/// Saturates a wide value into `w` bits of the given signedness.
#[inline]
pub fn saturate(v: i128, w: u32, signed: bool) -> u64 {
    let (lo, hi) = if signed {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, mask(w) as i128)
    };
    (v.clamp(lo, hi) as u64) & mask(w)
}

/// Integer division as the hardware computes it: division by zero gives all ones (unsigned) or
/// -1 (signed, which is all ones too); `MIN / -1` wraps to `MIN`.
pub fn div(a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let m = mask(w);
    if signed {
        let (x, y) = (sext(a, w), sext(b, w));
        if y == 0 {
            return m;
        }
        (x.wrapping_div(y) as u64) & m
    } else {
        let (x, y) = (a & m, b & m);
        if y == 0 {
            return m;
        }
        (x / y) & m
    }
}

/// Remainder: by zero gives all ones; `MIN % -1` is 0.
pub fn rem(a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let m = mask(w);
    if signed {
        let (x, y) = (sext(a, w), sext(b, w));
        if y == 0 {
            return m;
        }
        (x.wrapping_rem(y) as u64) & m
    } else {
        let (x, y) = (a & m, b & m);
        if y == 0 {
            return m;
        }
        (x % y) & m
    }
}

/// The full 2w-bit product as i128 (w <= 64).
#[inline]
pub fn mul_full(a: u64, b: u64, w: u32, signed: bool) -> i128 {
    let (x, y) = (wide(a, w, signed), wide(b, w, signed));
    x.wrapping_mul(y)
}

/// High w bits of the product.
#[inline]
pub fn mul_hi(a: u64, b: u64, w: u32, signed: bool) -> u64 {
    if w == 64 {
        if signed {
            (((a as i64 as i128) * (b as i64 as i128)) >> 64) as u64
        } else {
            (((a as u128) * (b as u128)) >> 64) as u64
        }
    } else {
        ((mul_full(a, b, w, signed) >> w) as u64) & mask(w)
    }
}

/// `bfe`: extract `len` bits at `pos`, sign- or zero-extended. The 32-bit form takes position
/// and length from the low 8 bits of their operands; the 64-bit form (emulated by the compiler
/// on current GPUs) compares the whole 32-bit operands, as measured.
pub fn bfe(a: u64, pos: u64, len: u64, w: u32, signed: bool) -> u64 {
    let (pos, len) = if w == 64 {
        (pos & 0xffff_ffff, len & 0xffff_ffff)
    } else {
        (pos & 0xff, len & 0xff)
    };
    let a = a & mask(w);
    let msb = (w - 1) as u64;
    let sbit = if !signed || len == 0 {
        false
    } else {
        let bit = (pos + len - 1).min(msb);
        (a >> bit) & 1 == 1
    };
    let mut d = 0u64;
    for i in 0..w as u64 {
        let b = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1 == 1
        } else {
            sbit
        };
        if b {
            d |= 1 << i;
        }
    }
    d
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`. Like [`bfe`], the 32-bit form
/// takes position and length from the low 8 bits of their operands (the ISA's rule) and the
/// 64-bit form, which the compiler emulates, uses the whole 32-bit operands (measured:
/// `bfi.b64` with length `0x8000` inserts all 64 bits rather than none).
pub fn bfi(a: u64, b: u64, pos: u64, len: u64, w: u32) -> u64 {
    let (pos, len) = if w == 64 {
        (pos & 0xffff_ffff, len & 0xffff_ffff)
    } else {
        (pos & 0xff, len & 0xff)
    };
    let mut f = b & mask(w);
    let mut i = 0u64;
    while i < len && pos + i < w as u64 {
        let bit = 1u64 << (pos + i);
        if (a >> i) & 1 == 1 {
            f |= bit;
        } else {
            f &= !bit;
        }
        i += 1;
    }
    f
}

/// `bfind`: position of the most significant non-sign bit, or all ones if none; with
/// `.shiftamt`, the left shift that would normalise it instead.
pub fn bfind(a: u64, w: u32, signed: bool, shiftamt: bool) -> u64 {
    let mut a = a & mask(w);
    if signed && (a >> (w - 1)) & 1 == 1 {
        a = !a & mask(w);
    }
    if a == 0 {
        return 0xffff_ffff;
    }
    let msb = 63 - a.leading_zeros();
    let d = if shiftamt { w - 1 - msb } else { msb };
    d as u64
}

/// `brev`
pub fn brev(a: u64, w: u32) -> u64 {
    if w == 64 {
        a.reverse_bits()
    } else {
        ((a as u32).reverse_bits()) as u64
    }
}

/// `clz`
pub fn clz(a: u64, w: u32) -> u64 {
    if w == 64 {
        a.leading_zeros() as u64
    } else {
        (a as u32).leading_zeros() as u64
    }
}

/// `popc`
pub fn popc(a: u64, w: u32) -> u64 {
    (a & mask(w)).count_ones() as u64
}

/// `shl`: amounts >= width give 0.
pub fn shl(a: u64, n: u64, w: u32) -> u64 {
    let n = n & 0xffff_ffff;
    if n >= w as u64 {
        0
    } else {
        (a << n) & mask(w)
    }
}

/// `shr`: amounts >= width give 0 or the sign fill.
pub fn shr(a: u64, n: u64, w: u32, signed: bool) -> u64 {
    let n = (n & 0xffff_ffff).min(w as u64) as u32;
    if signed {
        let v = sext(a, w);
        let r = if n >= 64 { v >> 63 } else { v >> n.min(63) };
        (r as u64) & mask(w)
    } else if n >= w {
        0
    } else {
        (a & mask(w)) >> n
    }
}

/// `shf.l`/`shf.r` with `.clamp` or `.wrap`.
pub fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let n = if clamp {
        (c as u32).min(32)
    } else {
        (c as u32) & 31
    };
    let x = ((b as u32 as u64) << 32) | (a as u32 as u64);
    if left {
        ((x << n) >> 32) & 0xffff_ffff
    } else {
        (x >> n) & 0xffff_ffff
    }
}

/// `prmt` in the default or a named mode.
pub fn prmt(a: u64, b: u64, c: u64, mode: Option<PrmtMode>) -> u64 {
    let bytes = ((b as u32 as u64) << 32) | (a as u32 as u64);
    let byte = |i: u64| ((bytes >> (8 * (i & 7))) & 0xff) as u8;
    let c = c as u32;
    let mut out = [0u8; 4];
    match mode {
        None => {
            for (i, o) in out.iter_mut().enumerate() {
                let sel = (c >> (4 * i)) & 0xf;
                let v = byte((sel & 7) as u64);
                *o = if sel & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                };
            }
        }
        Some(m) => {
            let s = (c & 3) as u64;
            let idx: [u64; 4] = match m {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
                PrmtMode::Rc8 => [s, s, s, s],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                PrmtMode::Rc16 => {
                    let lo = (c & 1) as u64 * 2;
                    [lo, lo + 1, lo, lo + 1]
                }
            };
            for (o, i) in out.iter_mut().zip(idx) {
                *o = byte(i);
            }
        }
    }
    u32::from_le_bytes(out) as u64
}

/// The named modes of `prmt`.
#[derive(Copy, Clone, Debug)]
pub enum PrmtMode {
    /// forward 4 extract
    F4e,
    /// backward 4 extract
    B4e,
    /// replicate 8
    Rc8,
    /// edge clamp left
    Ecl,
    /// edge clamp right
    Ecr,
    /// replicate 16
    Rc16,
}

/// `lop3` with immediate lookup table `lut`.
pub fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    let mut d = 0u64;
    for i in 0..32 {
        let k = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d |= ((lut >> k) & 1) << i;
    }
    d
}

/// `bmsk`: a mask of `b` ones starting at bit `a`.
pub fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let (mut pos, mut len) = (a as u32, b as u32);
    if clamp {
        pos = pos.min(32);
        len = len.min(32);
    } else {
        pos &= 31;
        len &= 31;
    }
    let m = if len >= 32 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    ((m << pos.min(63)) & 0xffff_ffff) as u32 as u64
}

/// `szext`: sign- or zero-extend the low `b` bits of `a`.
pub fn szext(a: u64, b: u64, clamp: bool, signed: bool) -> u64 {
    let mut n = b as u32;
    if clamp {
        n = n.min(32);
    } else {
        n &= 31;
    }
    if n == 0 {
        return 0;
    }
    if n >= 32 {
        return a & 0xffff_ffff;
    }
    let v = a & mask(n);
    if signed {
        (sext(v, n) as u64) & 0xffff_ffff
    } else {
        v
    }
}

/// `dp4a`: four-way byte dot product plus accumulator.
pub fn dp4a(a: u64, b: u64, c: u64, sa: bool, sb: bool) -> u64 {
    let mut acc = c as u32 as i64;
    for i in 0..4 {
        let x = (a >> (8 * i)) & 0xff;
        let y = (b >> (8 * i)) & 0xff;
        let x = if sa { sext(x, 8) } else { x as i64 };
        let y = if sb { sext(y, 8) } else { y as i64 };
        acc = acc.wrapping_add(x.wrapping_mul(y));
    }
    (acc as u64) & 0xffff_ffff
}

/// `dp2a.lo`/`.hi`: two 16-bit halves of `a` times two bytes of `b` (low or high pair).
pub fn dp2a(a: u64, b: u64, c: u64, sa: bool, sb: bool, hi: bool) -> u64 {
    let mut acc = c as u32 as i64;
    let base = if hi { 2 } else { 0 };
    for i in 0..2 {
        let x = (a >> (16 * i)) & 0xffff;
        let y = (b >> (8 * (base + i))) & 0xff;
        let x = if sa { sext(x, 16) } else { x as i64 };
        let y = if sb { sext(y, 8) } else { y as i64 };
        acc = acc.wrapping_add(x.wrapping_mul(y));
    }
    (acc as u64) & 0xffff_ffff
}

/// `fns`: the bit position of the `offset`-th set bit of `mask` searching from `base`.
pub fn fns(m: u64, base: u64, offset: u64) -> u64 {
    let m = m as u32;
    let base = base as u32;
    let off = offset as i32;
    if base > 31 {
        return 0xffff_ffff;
    }
    // Measured on an H100: an offset of i32::MIN (whose magnitude does not fit) gives 0 for
    // every mask and base (`fns.b32.far` in corpus/vectors/probe.jsonl.xz).
    if off == i32::MIN {
        return 0;
    }
    if off == 0 {
        return if (m >> base) & 1 == 1 {
            base as u64
        } else {
            0xffff_ffff
        };
    }
    let mut count = off.unsigned_abs();
    if off > 0 {
        let mut i = base;
        loop {
            if (m >> i) & 1 == 1 {
                count -= 1;
                if count == 0 {
                    return i as u64;
                }
            }
            if i == 31 {
                return 0xffff_ffff;
            }
            i += 1;
        }
    } else {
        let mut i = base as i32;
        while i >= 0 {
            if (m >> i) & 1 == 1 {
                count -= 1;
                if count == 0 {
                    return i as u64;
                }
            }
            i -= 1;
        }
        0xffff_ffff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_edges() {
        assert_eq!(bfe(0xf0, 4, 4, 32, false), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, 32, true), 0xffff_ffff);
        assert_eq!(bfe(0x8000_0000, 40, 4, 32, true), 0xffff_ffff);
        assert_eq!(bfe(0x8000_0000, 40, 4, 32, false), 0);
        assert_eq!(bfe(0x1234, 0, 0, 32, true), 0);
    }

    #[test]
    fn prmt_default_and_modes() {
        assert_eq!(prmt(0x33221100, 0x77665544, 0x3210, None), 0x33221100);
        assert_eq!(prmt(0x33221100, 0x77665544, 0x7654, None), 0x77665544);
        assert_eq!(prmt(0x000000ff, 0, 0x8888, None), 0xffffffff);
        assert_eq!(
            prmt(0x33221100, 0x77665544, 1, Some(PrmtMode::F4e)),
            0x44332211
        );
    }

    #[test]
    fn div_by_zero_is_all_ones() {
        assert_eq!(div(5, 0, 32, false), 0xffff_ffff);
        assert_eq!(div(0x8000_0000, 0xffff_ffff, 32, true), 0x8000_0000);
        assert_eq!(rem(0x8000_0000, 0xffff_ffff, 32, true), 0);
    }
}
