//! Video instructions (PTX ISA 9.7.16): the scalar `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
//! `vshl`, `vshr`, `vmad`, `vset` with byte and half-word selectors, saturation, a secondary
//! operation or a merge into a subword of the destination; and the SIMD `vop2`/`vop4` forms
//! (`vadd2`, ..., `vset4`) on half-words and bytes chosen from the eight of `b:a`, with a
//! merge into `c` or an accumulation into it.

use super::ctx::{lanes, Ctx};
use super::flow::Flow;
use crate::code::Opnd;
use crate::error::Error;
use crate::int::{saturate, sext, wide};
use ptx_ir_core::{Compare, Flag, Op, Opcode, Selector, Type};

/// A source's selector (none for a plain register or an immediate).
fn selector(o: &Opnd) -> Selector {
    match o {
        Opnd::Selected(_, sel) => *sel,
        _ => Selector::NONE,
    }
}

/// A 32-bit source's bits in `lane` (the whole register of a selected one).
fn value(x: &Ctx<'_, '_>, o: &Opnd, lane: usize) -> Result<u32, Error> {
    let v = match o {
        Opnd::Selected(slot, _) => x.get(
            &Opnd::Reg {
                slot: *slot,
                bits: 32,
            },
            lane,
        )?,
        o => x.get(o, lane)?,
    };
    Ok(v as u32)
}

/// The destination register and its selector.
fn dest(x: &Ctx<'_, '_>, o: &Opnd) -> Result<(Opnd, Selector), Error> {
    match o {
        Opnd::Selected(slot, sel) => Ok((
            Opnd::Reg {
                slot: *slot,
                bits: 32,
            },
            *sel,
        )),
        o @ (Opnd::Reg { .. } | Opnd::Sink) => Ok((o.clone(), Selector::NONE)),
        _ => Err(x.unsupported("video destination")),
    }
}

/// The destination, `a` and `b` types (`.u32` for a comparison, which has no destination type).
fn types(x: &Ctx<'_, '_>, compare: bool) -> Result<(Type, Type, Type), Error> {
    let ts = x.types();
    let t = match (compare, ts) {
        (true, [a, b, ..]) => (Type::U32, *a, *b),
        (false, [d, a, b, ..]) => (*d, *a, *b),
        _ => return Err(x.unsupported("video instruction without its operand types")),
    };
    Ok(t)
}

/// A subword of a scalar video operand: `.b0`–`.b3`, `.h0`/`.h1` or the whole word, as its
/// position and width.
fn part(x: &Ctx<'_, '_>, sel: Selector) -> Result<(u32, u32), Error> {
    if sel.is_none() {
        return Ok((0, 32));
    }
    match sel.as_digits() {
        Some(('b', d)) if d.len() == 1 && d[0] < 4 => Ok((8 * u32::from(d[0]), 8)),
        Some(('h', d)) if d.len() == 1 && d[0] < 2 => Ok((16 * u32::from(d[0]), 16)),
        _ => Err(x.unsupported(format!("scalar video selector {sel}"))),
    }
}

/// `partSelectSignExtend`: the subword `(pos, bits)` of `v`, extended by its type.
fn select(v: u32, (pos, bits): (u32, u32), t: Type) -> i128 {
    wide(u64::from(v >> pos), bits, t.is_signed())
}

/// `v` clamped to the range of a `bits`-bit integer of the given signedness.
fn clamp(v: i128, bits: u32, signed: bool) -> i128 {
    wide(saturate(v, bits, signed), bits, signed)
}

/// Whether comparison `c` holds for `p` and `q`, by the outcome table the warp-wide `setp`
/// forms use.
fn compare(c: Compare, p: i128, q: i128) -> bool {
    let outcome = match p.cmp(&q) {
        std::cmp::Ordering::Less => 1,
        std::cmp::Ordering::Equal => 2,
        std::cmp::Ordering::Greater => 4,
    };
    crate::lanewise::outcomes(c) & outcome != 0
}

/// The comparison of a `vset`, which its form requires.
fn comparison(x: &Ctx<'_, '_>) -> Result<Compare, Error> {
    x.d.cmp
        .ok_or_else(|| x.unsupported("video comparison without its comparison"))
}

/// The scalar video instructions but `vmad`, as ptxas lowers them for sm_90 (measured on an
/// H100, `corpus/vectors/video.jsonl`; read in its SASS): the primary operation on the
/// extended subwords, saturation, then the secondary operation with `c` in 64 bits or the
/// merge into `c`. Where ptxas departs from the ISA's pseudocode, the GPU is followed:
/// - `vadd`/`vsub`, and `vshr` with `.sat`, keep 32 bits of their (saturated) result,
///   sign-extended, for the secondary operation; the other operations keep their full value;
/// - `.sat` into a whole `.u32` word clamps below at 0 only (a sum past 2^32 wraps);
/// - the secondary `.min`/`.max` compares in 64 bits, signed or unsigned by the destination
///   type, against `c` extended by that type;
/// - a merge into `.h1` takes the upper half-word of the result in place (the byte merges
///   shift the low byte into place, as the ISA says);
/// - `.sat` into a subword passes values from 0 to the subword's largest and makes every
///   other value, negative ones included, the largest;
/// - `vshl.sat` clamps 34 bits of the shifted value.
pub fn scalar(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let op = x.d.op;
    // `vset` has no destination type: its result is 0 or 1.
    let (dt, at, bt) = types(x, op == Opcode::Vset)?;
    let sat = x.has(Flag::Sat);
    let (d, dsel) = dest(x, &x.d.opnds[0])?;
    let (dpos, dbits) = part(x, dsel)?;
    let (a, b, c) = (&x.d.opnds[1], &x.d.opnds[2], x.opt(3));
    let cmp = if op == Opcode::Vset {
        Some(comparison(x)?)
    } else {
        None
    };
    let op2 = x.d.oper;
    let shift = matches!(op, Opcode::Vshl | Opcode::Vshr);
    // A shift amount is unsigned.
    let bt = if shift { Type::U32 } else { bt };
    let (apart, bpart) = (part(x, selector(a))?, part(x, selector(b))?);
    let (clamp_shift, wrap_shift) = (x.has(Flag::Clamp), x.has(Flag::Wrap));
    // `vset`, which has no destination type, meets `c` with the signedness of `a`'s type.
    let signed = if op == Opcode::Vset {
        at.is_signed()
    } else {
        dt.is_signed()
    };
    for l in lanes(x.emask) {
        let ta = select(value(x, a, l)?, apart, at);
        let tb = select(value(x, b, l)?, bpart, bt);
        let mut tmp = match (op, cmp) {
            (Opcode::Vadd, _) => ta + tb,
            (Opcode::Vsub, _) => ta - tb,
            (Opcode::Vabsdiff, _) => (ta - tb).abs(),
            (Opcode::Vmin, _) => ta.min(tb),
            (Opcode::Vmax, _) => ta.max(tb),
            (Opcode::Vset, Some(c)) => i128::from(compare(c, ta, tb)),
            (Opcode::Vshl | Opcode::Vshr, _) => {
                // `.clamp` caps the amount at 32, `.wrap` takes it mod 32.
                let n = if wrap_shift {
                    tb & 31
                } else if clamp_shift {
                    tb.min(32)
                } else {
                    tb
                };
                let k = n.clamp(0, 64) as u32;
                if op == Opcode::Vshl {
                    ta << k
                } else {
                    ta >> k
                }
            }
            _ => return Err(x.unsupported("video operation")),
        };
        if sat && op == Opcode::Vshl {
            // ptxas keeps 34 bits of the shifted value before clamping.
            tmp = i128::from(sext(tmp as u64, 34));
        }
        if sat && dbits < 32 {
            // Into a subword, only values from 0 to the subword's largest pass; every other
            // value, negative ones included, becomes the largest.
            let top = if signed {
                (1i128 << (dbits - 1)) - 1
            } else {
                (1i128 << dbits) - 1
            };
            if !(0..=top).contains(&tmp) {
                tmp = top;
            }
        } else if sat {
            tmp = match (signed, op) {
                (true, _) => clamp(tmp, 32, true),
                (false, Opcode::Vshl) => tmp.clamp(0, i128::from(u32::MAX)),
                (false, _) => tmp.max(0),
            };
        }
        if matches!(op, Opcode::Vadd | Opcode::Vsub)
            || (sat && matches!(op, Opcode::Vshr | Opcode::Vshl))
        {
            tmp = i128::from(tmp as i32);
        }
        let cv = match c {
            Some(c) => value(x, c, l)?,
            None => 0,
        };
        let ct = wide(u64::from(cv), 32, signed);
        let r = match op2 {
            Some(Op::Add) => tmp.wrapping_add(ct) as u32,
            Some(Op::Min | Op::Max) => {
                let (p, q) = if signed {
                    (tmp as i64 as i128, ct)
                } else {
                    (i128::from(tmp as u64), i128::from(ct as u64))
                };
                let lo = (p <= q) == (op2 == Some(Op::Min));
                if lo {
                    tmp as u32
                } else {
                    ct as u32
                }
            }
            _ => tmp as u32,
        };
        let r = if dbits < 32 {
            let m = ((1u32 << dbits) - 1) << dpos;
            // ptxas merges `.h1` from the result's own upper half-word.
            let placed = if dbits == 16 && dpos == 16 {
                r
            } else {
                r << dpos
            };
            (placed & m) | (cv & !m)
        } else {
            r
        };
        x.set(&d, l, u64::from(r))?;
    }
    Ok(Flow::Next)
}

/// `vmad` as ptxas lowers it for sm_90 (measured; read in its SASS): `a * b + c` of the operands
/// sign-extended whatever their types (a 32 x 32 → 64-bit signed multiply-add), with the
/// ISA's negations and `.po`, shifted right by the scale, keeping 32 bits; `.sat` clamps the
/// 64-bit value to `.s32` when an operand type is signed or an operand negated, else to `.u32`
/// (with a scale, the 64-bit sum shifted logically: a negative sum saturates to `u32::MAX`).
pub fn vmad(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (_, at, bt) = types(x, false)?;
    let sat = x.has(Flag::Sat);
    let po = x.has(Flag::Po);
    let shift = if x.has(Flag::Shr7) {
        7
    } else if x.has(Flag::Shr15) {
        15
    } else {
        0
    };
    let (d, dsel) = dest(x, &x.d.opnds[0])?;
    if !dsel.is_none() {
        return Err(x.unsupported("vmad with a destination selector"));
    }
    fn neg(o: &Opnd) -> (bool, &Opnd) {
        match o {
            Opnd::Neg(inner) => (true, inner),
            o => (false, o),
        }
    }
    let (na, a) = neg(&x.d.opnds[1]);
    let (nb, b) = neg(&x.d.opnds[2]);
    let (nc, c) = neg(&x.d.opnds[3]);
    let signed = at.is_signed() || bt.is_signed() || (na ^ nb) || nc;
    // A whole word is sign-extended whatever its type; a subword by its type.
    let whole = |sel: Selector, t: Type| if sel.is_none() { Type::S32 } else { t };
    let (asel, bsel) = (selector(a), selector(b));
    let (apart, bpart) = (part(x, asel)?, part(x, bsel)?);
    let (at, bt) = (whole(asel, at), whole(bsel, bt));
    for l in lanes(x.emask) {
        let ta = select(value(x, a, l)?, apart, at);
        let tb = select(value(x, b, l)?, bpart, bt);
        let cv = value(x, c, l)?;
        let mut tmp = ta * tb;
        let mut cc = cv;
        let mut lsb = 0i128;
        if po {
            lsb = 1;
        } else if na ^ nb {
            tmp = !tmp;
            lsb = 1;
        } else if nc {
            cc = !cc;
            lsb = 1;
        }
        let full = tmp + i128::from(cc as i32) + lsb;
        let sum = full >> shift;
        let r = if sat && shift > 0 && !signed {
            // ptxas shifts the 64-bit sum logically, so a negative sum saturates high.
            let v = (full as u64) >> shift;
            v.min(u64::from(u32::MAX)) as u32
        } else if sat {
            (if signed {
                clamp(sum, 32, true)
            } else {
                sum.clamp(0, i128::from(u32::MAX))
            }) as u32
        } else {
            sum as u32
        };
        x.set(&d, l, u64::from(r))?;
    }
    Ok(Flow::Next)
}

/// Which of the `2n` subwords of `b:a` (half-words for `n` = 2, bytes for 4) each of the `n`
/// elements of a SIMD operand is, by its selector `sel` (`def` when none; digits of the
/// elements `< lim`).
fn picks(sel: Selector, def: &[u8], n: usize, lim: u8) -> Option<[u8; 4]> {
    let digits = match sel.as_digits() {
        None if sel.is_none() => def.iter().copied().collect(),
        Some((letter, d)) if (letter == 'h') == (n == 2) && d.len() == n => d,
        _ => return None,
    };
    let mut out = [0u8; 4];
    // The selector names element n-1 first.
    for (i, o) in out.iter_mut().enumerate().take(n) {
        *o = digits[n - 1 - i];
        if *o >= lim {
            return None;
        }
    }
    Some(out)
}

/// The elements of a SIMD operand: the subwords `picks` of `b:a`, `w` bits each, extended by
/// type.
fn elems(a: u32, b: u32, picks: &[u8; 4], n: usize, w: u32, signed: bool) -> [i128; 4] {
    let pool = u64::from(a) | u64::from(b) << 32;
    let mut out = [0i128; 4];
    for (o, &k) in out.iter_mut().zip(picks).take(n) {
        *o = wide(pool >> (u32::from(k) * w), w, signed);
    }
    out
}

/// The SIMD video instructions `vop2` and `vop4`.
pub fn simd(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    use Opcode::*;
    let op = x.d.op;
    let n = match op {
        Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 => 2,
        _ => 4,
    };
    let w = 32 / n as u32;
    let (dt, at, bt) = types(x, matches!(op, Vset2 | Vset4))?;
    let (adef, bdef, mdef): (&[u8], &[u8], &[u8]) = if n == 2 {
        (&[1, 0], &[3, 2], &[1, 0])
    } else {
        (&[3, 2, 1, 0], &[7, 6, 5, 4], &[3, 2, 1, 0])
    };
    let sat = x.has(Flag::Sat);
    let acc = x.d.oper == Some(Op::Add);
    let cmp = if matches!(op, Vset2 | Vset4) {
        Some(comparison(x)?)
    } else {
        None
    };
    let (d, msel) = dest(x, &x.d.opnds[0])?;
    // The mask's digits name elements; which digits it has, not their order, matters.
    let mut on = [false; 4];
    match msel.as_digits() {
        None if msel.is_none() => mdef.iter().for_each(|&k| on[k as usize] = true),
        Some((letter, m)) if (letter == 'h') == (n == 2) && m.iter().all(|&k| (k as usize) < n) => {
            m.iter().for_each(|&k| on[k as usize] = true)
        }
        _ => return Err(x.unsupported(format!("SIMD video mask {msel}"))),
    }
    let (a, b, c) = (&x.d.opnds[1], &x.d.opnds[2], &x.d.opnds[3]);
    let bad = || x.unsupported("SIMD video selector");
    let lim = 2 * n as u8;
    let ap = picks(selector(a), adef, n, lim).ok_or_else(bad)?;
    let bp = picks(selector(b), bdef, n, lim).ok_or_else(bad)?;
    for l in lanes(x.emask) {
        let (av, bv, cv) = (value(x, a, l)?, value(x, b, l)?, value(x, c, l)?);
        let va = elems(av, bv, &ap, n, w, at.is_signed());
        let vb = elems(av, bv, &bp, n, w, bt.is_signed());
        let mut r = if acc { cv } else { 0 };
        for i in 0..n {
            let (p, q) = (va[i], vb[i]);
            let mut t = match op {
                Vadd2 | Vadd4 => p + q,
                Vsub2 | Vsub4 => p - q,
                Vavrg2 | Vavrg4 => {
                    let s = p + q;
                    if s >= 0 {
                        (s + 1) >> 1
                    } else {
                        s >> 1
                    }
                }
                Vabsdiff2 | Vabsdiff4 => (p - q).abs(),
                Vmin2 | Vmin4 => p.min(q),
                Vmax2 | Vmax4 => p.max(q),
                _ => match cmp {
                    Some(c) => i128::from(compare(c, p, q)),
                    None => return Err(x.unsupported("video operation")),
                },
            };
            if sat {
                t = clamp(t, w, dt.is_signed());
            }
            if acc {
                if on[i] {
                    r = r.wrapping_add(t as u32);
                }
            } else {
                let field = if on[i] {
                    t as u32
                } else {
                    cv >> (i as u32 * w)
                };
                r |= (field & ((1u32 << w) - 1)) << (i as u32 * w);
            }
        }
        x.set(&d, l, u64::from(r))?;
    }
    Ok(Flow::Next)
}
