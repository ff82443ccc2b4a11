//! Byte-level tokens shared by the reader: whitespace and comments, identifiers, qualifier
//! words and numeric literals. Everything works on byte slices and allocates nothing.

use crate::error::{PErr, PResult};
use nom::bytes::complete::take_while;
use nom::Err;
use ptx_ir_core::names;

/// Whether `src` is PTX text at the byte level: ASCII without NUL bytes (ptxas refuses any
/// other byte, in comments and strings too). Blocks of 256 bytes that the compiler turns into
/// vector instructions; [`bad_byte`] finds the byte. The reader applies it to the comments and
/// strings it passes over ([`line_comment_end`]) rather than to its whole input up front.
pub fn is_text(src: &[u8]) -> bool {
    // `b - 1 | b` has its top bit set exactly when `b` is 0 (it wraps to 0xFF) or is not ASCII.
    let bad = |acc: u8, &b: &u8| acc | (b.wrapping_sub(1) | b);
    let mut blocks = src.chunks_exact(256);
    for block in &mut blocks {
        if block.iter().fold(0, bad) >= 0x80 {
            return false;
        }
    }
    blocks.remainder().iter().fold(0, bad) < 0x80
}

/// The offset of the first byte of `src` that is not PTX text (see [`is_text`]) and what it is.
pub fn bad_byte(src: &[u8]) -> Option<(usize, String)> {
    let at = src.iter().position(|&b| b == 0 || !b.is_ascii())?;
    let what = if at == 0 && src.starts_with(b"\xEF\xBB\xBF") {
        "UTF-8 byte-order mark (PTX is ASCII text)".to_string()
    } else if src[at] == 0 {
        "NUL byte (PTX is ASCII text)".to_string()
    } else {
        let ch = src
            .get(at..(at + 4).min(src.len()))
            .and_then(|s| match std::str::from_utf8(s) {
                Ok(t) => t.chars().next(),
                Err(e) => std::str::from_utf8(&s[..e.valid_up_to()])
                    .ok()?
                    .chars()
                    .next(),
            })
            .map(|c| format!(", of `{c}` U+{:04X}", u32::from(c)))
            .unwrap_or_default();
        format!("non-ASCII byte 0x{:02X}{ch} (PTX is ASCII text)", src[at])
    };
    Some((at, what))
}

/// Skips whitespace, `//` line comments and `/* */` block comments.
#[inline]
pub fn ws(i: &[u8]) -> PResult<'_, ()> {
    match i {
        // One space or newline before a token (after a comma, between NCCL's lines).
        [b' ' | b'\n', c, ..] if !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'/') => {
            Ok((&i[1..], ()))
        }
        [b' ' | b'\t' | b'\n' | b'\r' | b'/', ..] => ws_more(i),
        _ => Ok((i, ())),
    }
}

/// Whether `b` may start whitespace or a comment (so that a fast path must not skip past it).
#[inline(always)]
pub fn is_blank_or_slash(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'/')
}

fn ws_more(mut i: &[u8]) -> PResult<'_, ()> {
    loop {
        let skip = i
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(i.len());
        i = &i[skip..];
        if i.len() >= 2 && i[0] == b'/' {
            if i[1] == b'/' {
                i = &i[line_comment_end(i)..];
                continue;
            }
            if i[1] == b'*' {
                match block_comment_len(i) {
                    Some(n) => {
                        // Whole (`*/` can end it only past its `/*`), or cut at a bad byte.
                        let stop = !(n >= 4 && i[..n].ends_with(b"*/"));
                        i = &i[n..];
                        if stop {
                            // At a byte that is not text, inside the comment.
                            return Ok((i, ()));
                        }
                        continue;
                    }
                    None => return Err(Err::Failure(PErr::at(i, "unterminated `/*` comment"))),
                }
            }
        }
        return Ok((i, ()));
    }
}

/// The length of the run of spaces at the start of `i`, eight at a time from three on: LLVM
/// pads the comment that ends most of its lines to column 40.
#[inline]
fn spaces_len(i: &[u8]) -> usize {
    if !i.starts_with(b"   ") {
        return 0;
    }
    let mut n = 0;
    while let Some(chunk) = i.get(n..n + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        // Zero bytes where there are spaces; the lowest other byte ends the run.
        let other = u64::from_le_bytes(w) ^ 0x2020_2020_2020_2020;
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + i[n..].iter().take_while(|&&b| b == b' ').count()
}

/// The offset of the newline that ends the `//` comment at the start of `i` (or its length):
/// LLVM's PTX (Triton's) ends most lines with a comment, and its debug sections most values.
///
/// A comment is the one place the reader passes over bytes without reading them as tokens, so
/// it stops at a byte that is not PTX text (see [`is_text`]): the reader then fails there, and
/// the error names the byte ([`bad_byte`]). Checking here, on bytes the search has just
/// brought into cache, costs a fraction of a separate pass over the whole input.
#[inline]
pub fn line_comment_end(i: &[u8]) -> usize {
    let end = memchr::memchr(b'\n', i).unwrap_or(i.len());
    if is_text(&i[..end]) {
        end
    } else {
        first_bad(&i[..end])
    }
}

/// The length of the `/* */` comment at the start of `i` (which starts with `/*`), or, if it
/// holds a byte that is not PTX text, the offset of that byte (see [`line_comment_end`]);
/// `None` if it is not terminated.
#[inline]
pub fn block_comment_len(i: &[u8]) -> Option<usize> {
    let end = i.get(2..)?.windows(2).position(|w| w == b"*/")? + 4;
    Some(if is_text(&i[..end]) {
        end
    } else {
        first_bad(&i[..end])
    })
}

/// The offset of the first byte of `i` that is not PTX text (its length if there is none).
fn first_bad(i: &[u8]) -> usize {
    i.iter()
        .position(|&b| b == 0 || !b.is_ascii())
        .unwrap_or(i.len())
}

/// The rest of the line at `i` if nothing but spaces, tabs and a `//` comment is left on it:
/// the text from its newline. `None` otherwise (and at the end of the input without one).
#[inline]
pub fn line_end(i: &[u8]) -> Option<&[u8]> {
    let spaces = spaces_len(i);
    let n = spaces
        + i[spaces..]
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(i.len() - spaces);
    let r = &i[n..];
    match r {
        [b'\n', ..] => Some(r),
        [b'/', b'/', ..] => {
            // Not at a newline: the comment holds a byte that is not text, where the general
            // path stops.
            let end = line_comment_end(r);
            (r.get(end) == Some(&b'\n')).then(|| &r[end..])
        }
        _ => None,
    }
}

/// Byte classes, one bit each (see [`CLASS`]).
const IDENT: u8 = 1;
const IDENT_START: u8 = 2;
const WORD: u8 = 4;
const INST: u8 = 8;

/// The classes of each byte, from the IR's name grammar ([`names::is_ident_byte`] and its
/// siblings): `IDENT` continues an identifier, `IDENT_START` starts one, `WORD` continues a
/// qualifier word, `INST` continues an instruction word (a word byte, `.` or `:`).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if names::is_ident_byte(c) {
            k |= IDENT;
        }
        if names::is_ident_start(c) {
            k |= IDENT_START;
        }
        if names::is_word_byte(c) {
            k |= WORD;
        }
        if names::is_word_byte(c) || c == b'.' || c == b':' {
            k |= INST;
        }
        t[b] = k;
        b += 1;
    }
    t
};

/// The value of each hex digit; 0xff for other bytes.
static HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 0xff,
        };
        b += 1;
    }
    t
};

/// Whether `b` may continue an identifier.
#[inline]
pub fn is_ident_char(b: u8) -> bool {
    CLASS[b as usize] & IDENT != 0
}

/// Whether `b` may start an identifier (`%` for registers, `$` and `_` for compiler names).
#[inline]
pub fn is_ident_start(b: u8) -> bool {
    CLASS[b as usize] & IDENT_START != 0
}

/// Length of the prefix of `i` whose bytes all have class `k`.
#[inline]
fn span_of(i: &[u8], k: u8) -> usize {
    i.iter()
        .position(|&b| CLASS[b as usize] & k == 0)
        .unwrap_or(i.len())
}

/// An identifier: `[A-Za-z_$%][A-Za-z0-9_$]*`.
#[inline]
pub fn ident(i: &[u8]) -> PResult<'_, &[u8]> {
    match i.first() {
        Some(&b) if is_ident_start(b) => {
            let n = 1 + span_of(&i[1..], IDENT);
            Ok((&i[n..], &i[..n]))
        }
        _ => Err(Err::Error(PErr::at(i, "expected an identifier"))),
    }
}

/// A qualifier word after a dot: letters, digits, `_` and `::` (`L2::cache_hint`, `2d`,
/// `16x64b`).
#[inline]
pub fn qual_word(i: &[u8]) -> PResult<'_, &[u8]> {
    let mut n = 0;
    while n < i.len() {
        let b = i[n];
        if CLASS[b as usize] & WORD != 0 {
            n += 1;
        } else if b == b':' && i.get(n + 1) == Some(&b':') && n > 0 {
            n += 2;
        } else {
            break;
        }
    }
    if n == 0 {
        return Err(Err::Error(PErr::at(i, "expected a qualifier after `.`")));
    }
    Ok((&i[n..], &i[..n]))
}

/// A dotted instruction word: `cp.async.bulk.tensor.2d.shared::cluster`.
#[inline]
pub fn inst_word(i: &[u8]) -> PResult<'_, &[u8]> {
    let n = span_of(i, INST);
    if n == 0 {
        return Err(Err::Error(PErr::at(i, "expected an instruction")));
    }
    Ok((&i[n..], &i[..n]))
}

/// A plain decimal byte at the start of `r`: 1 to 3 digits without a leading zero (`010` is
/// octal), at most 255, then a non-digit. Returns the value and the number of digits.
///
/// Byte tables (cuRAND's 100 KB initialisers) and debug sections are mostly such values, 1 to 3
/// digits in random order: a digit loop would mispredict its exit once per value, so the
/// digits are found in one 4-byte word.
#[inline(always)]
pub fn plain_byte(r: &[u8]) -> Option<(u8, usize)> {
    match r.get(..4) {
        Some(&[b0, b1, b2, b3]) => plain_byte_in([b0, b1, b2, b3]),
        // Zero padding reads as a non-digit.
        _ => {
            let mut b = [0u8; 4];
            b[..r.len()].copy_from_slice(r);
            plain_byte_in(b)
        }
    }
}

/// [`plain_byte`] in the first four bytes of the text, `b`.
#[inline(always)]
pub fn plain_byte_in(b: [u8; 4]) -> Option<(u8, usize)> {
    let t = u32::from_le_bytes(b) ^ 0x3030_3030;
    // The high bit of each byte that is not a digit: a digit's byte of `t` is below 10, so
    // adding 0x76 leaves the bit clear (carries only come out of non-digit bytes, and only the
    // first non-digit matters).
    let non_digit = (t.wrapping_add(0x7676_7676) | t) & 0x8080_8080;
    let k = (non_digit.trailing_zeros() / 8) as usize;
    if k == 0 || k == 4 || (k > 1 && b[0] == b'0') {
        return None;
    }
    // The digits moved to the top bytes: hundreds, tens, units.
    let u = t << (32 - 8 * k as u32);
    let v = ((u >> 8) & 0xff) * 100 + ((u >> 16) & 0xff) * 10 + (u >> 24);
    if v > 255 {
        return None;
    }
    Some((v as u8, k))
}

/// Expects the byte `c` (after whitespace is skipped by the caller).
#[inline]
pub fn expect<'a>(i: &'a [u8], c: u8, what: &'static str) -> PResult<'a, ()> {
    match i.first() {
        Some(&b) if b == c => Ok((&i[1..], ())),
        _ => Err(Err::Failure(PErr::at(i, what))),
    }
}

/// A numeric literal.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Number {
    /// Signed integer.
    Int(i64),
    /// Unsigned integer (`U` suffix or above `i64::MAX`).
    Uint(u64),
    /// `0f` bits.
    F32(u32),
    /// `0d` bits.
    F64(u64),
    /// Decimal float, as `f64` bits.
    Dec(u64),
}

/// An unsigned decimal integer that fits `u32` (directive arguments).
pub fn uint_u32(i: &[u8]) -> PResult<'_, u32> {
    let (r, n) = number(i)?;
    match n {
        Number::Int(v) if (0..=u32::MAX as i64).contains(&v) => Ok((r, v as u32)),
        _ => Err(Err::Failure(PErr::at(
            i,
            "expected an unsigned 32-bit integer",
        ))),
    }
}

/// An unsigned integer that fits `u64`.
pub fn uint_u64(i: &[u8]) -> PResult<'_, u64> {
    let (r, n) = number(i)?;
    match n {
        Number::Int(v) if v >= 0 => Ok((r, v as u64)),
        Number::Uint(v) => Ok((r, v)),
        _ => Err(Err::Failure(PErr::at(i, "expected an unsigned integer"))),
    }
}

fn hex_val(b: u8) -> Option<u64> {
    (b as char).to_digit(16).map(u64::from)
}

/// A numeric literal without sign: integers in decimal, hex (`0x`), octal (leading `0`) or
/// binary (`0b`) with an optional `U` suffix; `0f`/`0d` hex floats; decimal floats.
#[inline]
pub fn number(i: &[u8]) -> PResult<'_, Number> {
    // Fast path: a decimal integer of up to 19 digits (no overflow) without a leading zero,
    // followed by a delimiter; anything else takes the general path.
    if let Some(&d0) = i.first() {
        if d0.is_ascii_digit() {
            let mut v = u64::from(d0 - b'0');
            let mut k = 1;
            if d0 != b'0' {
                while k < 19 && k < i.len() && i[k].is_ascii_digit() {
                    v = v * 10 + u64::from(i[k] - b'0');
                    k += 1;
                }
            }
            if !i.get(k).is_some_and(|&b| is_ident_char(b) || b == b'.') {
                let n = if v > i64::MAX as u64 {
                    Number::Uint(v)
                } else {
                    Number::Int(v as i64)
                };
                return Ok((&i[k..], n));
            }
            // `0f` + 8 / `0d` + 16 hex digits.
            let want = match i.get(1) {
                Some(b'f' | b'F') if d0 == b'0' => 8,
                Some(b'd' | b'D') if d0 == b'0' => 16,
                _ => 0,
            };
            if want > 0 && i.len() >= 2 + want {
                let mut v = 0u64;
                let mut ok = true;
                for &b in &i[2..2 + want] {
                    let d = HEX[b as usize];
                    ok &= d != 0xff;
                    v = (v << 4) | u64::from(d & 0xf);
                }
                if ok && !i.get(2 + want).is_some_and(|&b| is_ident_char(b)) {
                    let n = if want == 8 {
                        Number::F32(v as u32)
                    } else {
                        Number::F64(v)
                    };
                    return Ok((&i[2 + want..], n));
                }
            }
        }
    }
    number_general(i)
}

fn number_general(i: &[u8]) -> PResult<'_, Number> {
    let fail = |msg| Err(Err::Failure(PErr::at(i, msg)));
    match i.first() {
        Some(b) if b.is_ascii_digit() => {}
        Some(b'.') if i.get(1).is_some_and(u8::is_ascii_digit) => {}
        _ => return Err(Err::Error(PErr::at(i, "expected a number"))),
    }
    // Hex float forms.
    if i.len() >= 2 && i[0] == b'0' && matches!(i[1], b'f' | b'F' | b'd' | b'D') {
        let want = if matches!(i[1], b'f' | b'F') { 8 } else { 16 };
        let (rest, digits) = take_while(|b: u8| b.is_ascii_hexdigit())(&i[2..])?;
        if digits.len() != want {
            return fail(if want == 8 {
                "`0f` literal needs exactly 8 hex digits"
            } else {
                "`0d` literal needs exactly 16 hex digits"
            });
        }
        let v = digits
            .iter()
            .fold(0u64, |a, &b| (a << 4) | hex_val(b).unwrap_or(0));
        if rest.first().is_some_and(|&b| is_ident_char(b)) {
            return fail("malformed floating-point literal");
        }
        return Ok((
            rest,
            if want == 8 {
                Number::F32(v as u32)
            } else {
                Number::F64(v)
            },
        ));
    }
    // Integers with a radix prefix.
    let (radix, start) = if i.len() >= 2 && i[0] == b'0' && matches!(i[1], b'x' | b'X') {
        (16, 2)
    } else if i.len() >= 2 && i[0] == b'0' && matches!(i[1], b'b' | b'B') {
        (2, 2)
    } else {
        (10, 0)
    };
    if radix == 10 {
        // Decimal float?
        let int_end = i
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(i.len());
        let mut j = int_end;
        let mut is_float = false;
        if i.get(j) == Some(&b'.') && i.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j += 1;
            j += i[j..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(i.len() - j);
            is_float = true;
        }
        if matches!(i.get(j), Some(b'e' | b'E')) {
            let mut k = j + 1;
            if matches!(i.get(k), Some(b'+' | b'-')) {
                k += 1;
            }
            if i.get(k).is_some_and(u8::is_ascii_digit) {
                k += i[k..]
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .unwrap_or(i.len() - k);
                j = k;
                is_float = true;
            }
        }
        if is_float {
            let text = std::str::from_utf8(&i[..j]).unwrap_or("");
            return match text.parse::<f64>() {
                Ok(v) => Ok((&i[j..], Number::Dec(v.to_bits()))),
                Err(_) => fail("malformed floating-point literal"),
            };
        }
    }
    let body = &i[start..];
    let n = body
        .iter()
        .position(|&b| !b.is_ascii_hexdigit())
        .unwrap_or(body.len());
    let digits = &body[..n];
    if digits.is_empty() {
        return fail("expected digits after the radix prefix");
    }
    let radix = if radix == 10 && digits.len() > 1 && digits[0] == b'0' {
        8
    } else {
        radix
    };
    let mut v: u64 = 0;
    for &d in digits {
        let dv = match hex_val(d) {
            Some(x) if x < radix => x,
            _ => return fail("invalid digit in integer literal"),
        };
        v = match v.checked_mul(radix).and_then(|v| v.checked_add(dv)) {
            Some(v) => v,
            None => return fail("integer literal does not fit in 64 bits"),
        };
    }
    let mut rest = &body[n..];
    let unsigned = if matches!(rest.first(), Some(b'U' | b'u')) {
        rest = &rest[1..];
        true
    } else {
        false
    };
    if rest.first().is_some_and(|&b| is_ident_char(b)) {
        return fail("malformed integer literal");
    }
    let num = if unsigned || v > i64::MAX as u64 {
        Number::Uint(v)
    } else {
        Number::Int(v as i64)
    };
    Ok((rest, num))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_text_finds_every_bad_byte_anywhere() {
        let mut buf = vec![b'a'; 600];
        assert!(is_text(&buf));
        for at in [0, 1, 63, 255, 256, 511, 512, 599] {
            for b in 0..=255u8 {
                buf[at] = b;
                let want = b != 0 && b.is_ascii();
                assert_eq!(is_text(&buf), want, "byte {b:#x} at {at}");
                assert_eq!(bad_byte(&buf).map(|(o, _)| o), (!want).then_some(at));
            }
            buf[at] = b'a';
        }
    }

    /// `ws`'s one-byte fast path skips what the general loop skips, on every string of up to
    /// five bytes over whitespace, comment and token characters.
    #[test]
    fn ws_fast_path_agrees() {
        let alphabet = [b' ', b'\t', b'\n', b'\r', b'/', b'*', b'x'];
        let mut s = Vec::new();
        for len in 0..=5u32 {
            for mut k in 0..alphabet.len().pow(len) {
                s.clear();
                for _ in 0..len {
                    s.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                let fast = ws(&s).map(|(r, ())| r.len()).map_err(|_| ());
                let slow = ws_more(&s).map(|(r, ())| r.len()).map_err(|_| ());
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&s));
            }
        }
    }

    /// The end of a line after any run of spaces and tabs (the word-at-a-time run included,
    /// at every length around its 8-byte steps), with or without a `//` comment.
    #[test]
    fn line_ends() {
        for n in 0..30 {
            for pad in [" ", "\t", " \t"] {
                let blank = pad.repeat(n);
                for (tail, rest) in [
                    ("\nx", Some("\nx")),
                    ("// c, 1\nx", Some("\nx")),
                    ("x\n", None),
                    ("/* c */\n", None),
                    ("// no newline", None),
                    ("", None),
                ] {
                    let s = format!("{blank}{tail}");
                    let got = line_end(s.as_bytes()).map(|r| std::str::from_utf8(r).unwrap());
                    assert_eq!(got, rest, "{s:?}");
                }
            }
        }
    }

    fn num(s: &str) -> Number {
        let (r, n) = number(s.as_bytes()).unwrap();
        assert!(r.is_empty(), "{s}: left {:?}", std::str::from_utf8(r));
        n
    }

    #[test]
    fn literals() {
        assert_eq!(num("0"), Number::Int(0));
        assert_eq!(num("42"), Number::Int(42));
        assert_eq!(num("010"), Number::Int(8));
        assert_eq!(num("0x1F"), Number::Int(31));
        assert_eq!(num("0b101"), Number::Int(5));
        assert_eq!(num("7U"), Number::Uint(7));
        assert_eq!(num("0xFFFFFFFFFFFFFFFF"), Number::Uint(u64::MAX));
        assert_eq!(num("0f3F800000"), Number::F32(0x3F80_0000));
        assert_eq!(
            num("0d3FF0000000000000"),
            Number::F64(0x3FF0_0000_0000_0000)
        );
        assert_eq!(num("0.25"), Number::Dec(0.25f64.to_bits()));
        assert_eq!(num("1e-3"), Number::Dec(1e-3f64.to_bits()));
        assert!(number(b"0f3F80").is_err());
        assert!(number(b"0f3F8000001").is_err());
        assert!(number(b"0f3F80000g").is_err());
        assert_eq!(num("0F3f800000"), Number::F32(0x3F80_0000));
        assert_eq!(
            num("0d7FF0000000000000"),
            Number::F64(0x7FF0_0000_0000_0000)
        );
        assert_eq!(num("9223372036854775807"), Number::Int(i64::MAX));
        assert_eq!(num("9223372036854775808"), Number::Uint(1 << 63));
        assert_eq!(
            num("9999999999999999999"),
            Number::Uint(9_999_999_999_999_999_999)
        );
        assert_eq!(
            num("12345678901234567890"),
            Number::Uint(12_345_678_901_234_567_890)
        );
        assert!(number(b"99999999999999999999").is_err());
        assert!(number(b"12ab").is_err());
        assert_eq!(number(b"7,").unwrap(), (&b","[..], Number::Int(7)));
        assert_eq!(number(b"0]").unwrap(), (&b"]"[..], Number::Int(0)));
        assert_eq!(number(b"5.").unwrap(), (&b"."[..], Number::Int(5)));
        assert!(number(b"09").is_err());
        assert!(number(b"18446744073709551616").is_err());
    }

    #[test]
    fn comments_and_words() {
        let (r, ()) = ws(b"  // c\n /* x\n y */ add").unwrap();
        assert_eq!(r, b"add");
        assert!(ws(b"/* open").is_err());
        assert_eq!(qual_word(b"L2::cache_hint ").unwrap().1, b"L2::cache_hint");
        assert_eq!(qual_word(b"2d.").unwrap().1, b"2d");
        assert_eq!(
            inst_word(b"tcgen05.fence::before_thread_sync;").unwrap().1,
            b"tcgen05.fence::before_thread_sync"
        );
    }
}
