//! Interned names: registers, variables, labels, functions, files and section labels.
//!
//! A module owns one [`Interner`]; every name in the module is a 4-byte [`Name`] into it. Names
//! keep their source spelling exactly (`%r12`, `$L__BB0_3`, `_Z3fooPf`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::num::NonZeroU32;
use std::sync::OnceLock;

/// Whether `b` may start an identifier: `[A-Za-z_$%]` (`%` for registers, `$` and `_` for
/// compiler names). The reader's lexer and the bytecode decoder's name check both use these
/// classes, so that what one reads the other accepts.
pub const fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'%'
}

/// Whether `b` may continue an identifier: `[A-Za-z0-9_$]`.
pub const fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Whether `b` may continue a qualifier or section-name word after its dot: `[A-Za-z0-9_]`
/// (parts joined by `::`).
pub const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An interned name; resolve it with [`Interner::get`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Name(NonZeroU32);

impl Name {
    /// The index of this name in its interner (0-based).
    #[inline]
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// The name with the given 0-based index. The caller keeps it within its interner.
    #[inline]
    pub fn from_index(i: usize) -> Name {
        let v = u32::try_from(i + 1).expect("more than 2^32 names");
        Name(NonZeroU32::new(v).expect("non-zero by construction"))
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({})", self.index())
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Name {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        // Small indices so that generated modules refer to names their interner holds.
        Ok(Name::from_index(u.int_in_range(0..=15)?))
    }
}

/// The string table of a module.
///
/// All spellings live in one buffer (`buf`, with `ends[i]` the end of name `i`); an
/// open-addressing table (`slots`, linear probing, at most half full) finds a spelling by its
/// hash without allocating, and without a second copy of the string. The table is an index:
/// [`Interner::shrink_to_fit`] drops it (the reader does, once a module is read, since most
/// consumers only resolve names by number) and the next lookup rebuilds it.
#[derive(Clone, Default)]
pub struct Interner {
    buf: String,
    ends: Vec<usize>,
    /// `0` is empty, otherwise `tag << 32 | (index + 1)`, where the tag holds hash bits and the
    /// spelling's length. A power of two in length once built.
    slots: OnceLock<Vec<u64>>,
}

const K: u64 = 0xf135_7aea_2e62_a9c5;

#[inline]
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(K).rotate_left(26)
}

#[inline]
fn read8(b: &[u8], k: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[k..k + 8]);
    u64::from_le_bytes(w)
}

#[inline]
fn read4(b: &[u8], k: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[k..k + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// A fast hash of a short byte string (FxHash-style over 8-byte words; short strings read
/// as two overlapping words, the length kept apart).
#[inline(always)]
fn mix_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    let mut h = (n as u64).wrapping_mul(K);
    if n > 8 {
        let mut k = 0;
        while k + 8 < n {
            h = mix(h, read8(b, k));
            k += 8;
        }
        h = mix(h, read8(b, n - 8));
    } else if n >= 4 {
        h = mix(h, (read4(b, 0) << 32) | read4(b, n - 4));
    } else if n > 0 {
        h = mix(
            h,
            (u64::from(b[0]) << 16) | (u64::from(b[n / 2]) << 8) | u64::from(b[n - 1]),
        );
    }
    // Finalise so that the top bits (the slot) depend on every input bit.
    let h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The hash of a spelling. A spelling that ends in a digit is hashed without it, and the
/// digit (plus one) is kept in the low 4 bits, which place it next to its siblings (see
/// [`home`]): registers are mostly met in numbering order (`%r12`, `%r13`, ...), so that new
/// names go to slots in a few cache lines rather than to a random one each, a cache miss per
/// name in a table larger than the cache.
#[inline(always)]
fn hash_bytes(b: &[u8]) -> u64 {
    match b {
        [head @ .., d @ b'0'..=b'9'] if !head.is_empty() => {
            (mix_bytes(head) & !0xf) | u64::from(d - b'0' + 1)
        }
        _ => mix_bytes(b) & !0xf,
    }
}

/// The slot tag of a spelling of length `n` with hash `h`: the hash's top 20 bits, its digit
/// bits and the length.
#[inline]
fn tag(h: u64, n: usize) -> u64 {
    ((h >> 44) << 12) | ((h & 0xf) << 8) | (n.min(0xff) as u64)
}

/// The slots of a table for `n` names: the smallest power of two at least `2n` (and 64).
fn table_len(n: usize) -> usize {
    (2 * n).next_power_of_two().max(64)
}

/// Tables up to this many slots can grow from their tags alone.
const TAGGED_BITS: u32 = 20;

/// The home slot of hash `h` in a table of `len` slots (a power of two): the hash's top bits
/// plus its digit bits, both of which a slot's tag keeps, so that a growing table moves its
/// entries without their spellings and in about the order they sit.
#[inline(always)]
fn home(h: u64, len: usize) -> usize {
    place(h >> (64 - len.trailing_zeros()), h & 0xf, len)
}

/// The slot of a spelling whose hash has the top bits `top` (as many as the table's size
/// takes) and the digit bits `digit`.
#[inline(always)]
fn place(top: u64, digit: u64, len: usize) -> usize {
    (top + digit) as usize & (len - 1)
}

/// Byte equality without a library call for the short spellings names have.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => read8(a, 0) == read8(b, 0) && read8(a, n - 8) == read8(b, n - 8),
        4..=7 => read4(a, 0) == read4(b, 0) && read4(a, n - 4) == read4(b, n - 4),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty interner with room for about `names` names of `bytes` bytes in all.
    pub fn with_capacity(names: usize, bytes: usize) -> Self {
        let mut me = Interner {
            buf: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
            slots: OnceLock::new(),
        };
        if names > 0 {
            me.slots = OnceLock::from(vec![0; table_len(names)]);
        }
        me
    }

    #[inline(always)]
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        start..self.ends[i]
    }

    /// The slot table for `n` names: the smallest power of two at least `2n` (and 64).
    fn build_slots(&self, n: usize) -> Vec<u64> {
        self.fill_slots(n, false).0
    }

    /// [`Interner::build_slots`]; with `check`, each name is looked up before it goes in, and
    /// the first one that repeats an earlier spelling is returned too.
    fn fill_slots(&self, n: usize, check: bool) -> (Vec<u64>, Option<usize>) {
        let cap = table_len(n);
        let mut slots = vec![0u64; cap];
        let mask = cap - 1;
        let bytes = self.buf.as_bytes();
        for i in 0..self.ends.len() {
            let s = &bytes[self.span(i)];
            let h = hash_bytes(s);
            let t = tag(h, s.len());
            let mut k = home(h, cap);
            while slots[k] != 0 {
                let v = slots[k];
                if check && v >> 32 == t && same(&bytes[self.span((v as u32 - 1) as usize)], s) {
                    return (slots, Some(i));
                }
                k = (k + 1) & mask;
            }
            slots[k] = (t << 32) | (i as u64 + 1);
        }
        (slots, None)
    }

    /// The slot table, built if it was dropped.
    #[inline(always)]
    fn slots(&self) -> &[u64] {
        self.slots.get_or_init(|| self.build_slots(self.ends.len()))
    }

    /// Number of slots in the table as it stands (0 if dropped).
    #[inline(always)]
    fn slot_count(&self) -> usize {
        self.slots.get().map_or(0, Vec::len)
    }

    /// The slot of `s` (hash `h`): `Ok(name)` if present, `Err(empty slot)` otherwise.
    #[inline(always)]
    fn probe(&self, s: &[u8], h: u64) -> Result<Name, usize> {
        let slots = self.slots();
        let mask = slots.len() - 1;
        let t = tag(h, s.len());
        let mut k = home(h, slots.len());
        loop {
            let v = slots[k];
            if v == 0 {
                return Err(k);
            }
            if v >> 32 == t {
                let idx = v as u32;
                if same(&self.buf.as_bytes()[self.span(idx as usize - 1)], s) {
                    if let Some(n) = NonZeroU32::new(idx) {
                        return Ok(Name(n));
                    }
                }
            }
            k = (k + 1) & mask;
        }
    }

    /// Rebuilds the table with room for one more name (or builds a dropped one).
    fn grow(&mut self) {
        let cap = table_len(self.ends.len() + 1);
        let slots = match self.slots.get() {
            Some(old) if cap.trailing_zeros() <= TAGGED_BITS => {
                let mut slots = vec![0u64; cap];
                let mask = cap - 1;
                let shift = TAGGED_BITS - cap.trailing_zeros();
                for &v in old.iter().filter(|&&v| v != 0) {
                    // The tag (see `tag`): the hash's top bits, then its digit bits.
                    let t = v >> 32;
                    let mut k = place((t >> 12) >> shift, (t >> 8) & 0xf, cap);
                    while slots[k] != 0 {
                        k = (k + 1) & mask;
                    }
                    slots[k] = v;
                }
                slots
            }
            _ => self.build_slots(self.ends.len() + 1),
        };
        self.slots = OnceLock::from(slots);
    }

    fn insert_at(&mut self, s: &str, h: u64, slot: usize) -> Name {
        self.buf.push_str(s);
        self.record(h, s.len(), slot)
    }

    /// Makes the spelling of `len` bytes just appended to the buffer a name, in `slot`.
    #[inline]
    fn record(&mut self, h: u64, len: usize, slot: usize) -> Name {
        let n = Name::from_index(self.ends.len());
        self.ends.push(self.buf.len());
        if let Some(slots) = self.slots.get_mut() {
            slots[slot] = (tag(h, len) << 32) | (n.index() as u64 + 1);
        }
        n
    }

    /// Interns `s`, returning the existing name if it was seen before.
    pub fn intern(&mut self, s: &str) -> Name {
        if 2 * (self.ends.len() + 1) > self.slot_count() {
            self.grow();
        }
        let h = hash_bytes(s.as_bytes());
        // The table through one mutable borrow: found or inserted without looking it up again
        // (a reader interns a new register in nearly every NCCL instruction).
        let Interner { buf, ends, slots } = self;
        let Some(table) = slots.get_mut() else {
            return self.insert_unindexed(s, h);
        };
        let mask = table.len() - 1;
        let t = tag(h, s.len());
        let mut k = home(h, table.len());
        loop {
            let v = table[k];
            if v == 0 {
                break;
            }
            if v >> 32 == t {
                let i = (v as u32 - 1) as usize;
                let start = if i == 0 { 0 } else { ends[i - 1] };
                if same(&buf.as_bytes()[start..ends[i]], s.as_bytes()) {
                    return Name::from_index(i);
                }
            }
            k = (k + 1) & mask;
        }
        let n = Name::from_index(ends.len());
        buf.push_str(s);
        ends.push(buf.len());
        table[k] = (t << 32) | (n.index() as u64 + 1);
        n
    }

    /// [`Interner::intern`] where the table is gone (after `grow` it never is).
    #[cold]
    fn insert_unindexed(&mut self, s: &str, h: u64) -> Name {
        match self.probe(s.as_bytes(), h) {
            Ok(n) => n,
            Err(slot) => self.insert_at(s, h, slot),
        }
    }

    /// Interns a spelling given as bytes; fails if it is new and not UTF-8. Looking up a known
    /// spelling neither allocates nor validates.
    #[inline]
    pub fn intern_bytes(&mut self, s: &[u8]) -> Result<Name, std::str::Utf8Error> {
        if 2 * (self.ends.len() + 1) > self.slot_count() {
            self.grow();
        }
        let h = hash_bytes(s);
        match self.probe(s, h) {
            Ok(n) => Ok(n),
            Err(slot) => {
                let s = std::str::from_utf8(s)?;
                Ok(self.insert_at(s, h, slot))
            }
        }
    }

    /// The name for `s`, if it was interned.
    pub fn find(&self, s: &str) -> Option<Name> {
        self.find_bytes(s.as_bytes())
    }

    /// The name for the spelling `s`, if it was interned.
    #[inline]
    pub fn find_bytes(&self, s: &[u8]) -> Option<Name> {
        if self.ends.is_empty() {
            return None;
        }
        self.probe(s, hash_bytes(s)).ok()
    }

    /// The spelling of `n`. Panics if `n` does not belong to this interner; use
    /// [`Interner::try_get`] for names of unknown origin.
    pub fn get(&self, n: Name) -> &str {
        &self.buf[self.span(n.index())]
    }

    /// The spelling of `n`, or `None` if it does not belong to this interner.
    #[inline]
    pub fn try_get(&self, n: Name) -> Option<&str> {
        (n.index() < self.ends.len()).then(|| &self.buf[self.span(n.index())])
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no name has been interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// All names in interning order.
    pub fn iter(&self) -> impl Iterator<Item = (Name, &str)> {
        (0..self.ends.len()).map(|i| (Name::from_index(i), &self.buf[self.span(i)]))
    }

    /// Builds an interner from strings in order. Fails on a duplicate, which would make two
    /// names with one spelling ([`ConcatError::Duplicate`] gives its index).
    pub fn from_strings<I: IntoIterator<Item = String>>(strings: I) -> Result<Self, ConcatError> {
        let mut me = Interner::new();
        for s in strings {
            let before = me.len();
            if me.intern(&s).index() != before {
                return Err(ConcatError::Duplicate(before));
            }
        }
        Ok(me)
    }

    /// Builds an interner from its spellings laid end to end in `buf`, name `i` ending at byte
    /// `ends[i]`, as a serialized string table holds them: one hash per name (to find
    /// duplicates) and no copying. The lookup table is dropped afterwards, as after
    /// [`Interner::shrink_to_fit`].
    pub fn from_concatenated(buf: String, ends: Vec<usize>) -> Result<Self, ConcatError> {
        let mut prev = 0;
        for (i, &e) in ends.iter().enumerate() {
            if e < prev || !buf.is_char_boundary(e) {
                return Err(ConcatError::BadEnd(i));
            }
            prev = e;
        }
        if prev != buf.len() {
            return Err(ConcatError::TrailingBytes(buf.len() - prev));
        }
        let me = Interner {
            buf,
            ends,
            slots: OnceLock::new(),
        };
        // The lookup table is only needed for the check: dropped, as after reading text.
        match me.fill_slots(me.ends.len(), true).1 {
            Some(i) => Err(ConcatError::Duplicate(i)),
            None => Ok(me),
        }
    }

    /// Gives back spare capacity of the spelling buffer (after a reader's estimate) and drops
    /// the lookup table, which the next [`Interner::find`] or [`Interner::intern`] rebuilds.
    pub fn shrink_to_fit(&mut self) {
        self.buf.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.slots = OnceLock::new();
    }

    /// Heap bytes held by the table (for IR size reports).
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.slots.get().map_or(0, Vec::capacity) * std::mem::size_of::<u64>()
    }
}

/// Why [`Interner::from_concatenated`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConcatError {
    /// Name `i` ends before the previous one, past the buffer or inside a character.
    BadEnd(usize),
    /// The buffer holds this many bytes after the last name.
    TrailingBytes(usize),
    /// Name `i` repeats an earlier spelling.
    Duplicate(usize),
}

impl fmt::Display for ConcatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConcatError::BadEnd(i) => write!(
                f,
                "name {i} ends before the previous one, past the table or inside a character"
            ),
            ConcatError::TrailingBytes(n) => write!(f, "{n} bytes after the last name"),
            ConcatError::Duplicate(i) => write!(f, "name {i} repeats an earlier name"),
        }
    }
}

impl std::error::Error for ConcatError {}

impl PartialEq for Interner {
    fn eq(&self, other: &Self) -> bool {
        self.ends == other.ends && self.buf == other.buf
    }
}

impl Eq for Interner {}

impl fmt::Debug for Interner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().map(|(_, s)| s)).finish()
    }
}

impl Serialize for Interner {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|(_, name)| name))
    }
}

impl<'de> Deserialize<'de> for Interner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        Interner::from_strings(v).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Interner {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        // Sixteen distinct, valid identifiers so that every arbitrary Name resolves.
        let mut me = Interner::new();
        for i in 0..16 {
            let prefix = *u.choose(&["%r", "%rd", "%p", "%f", "L", "$L__BB", "sym", "_Z3f"])?;
            me.intern(&format!("{prefix}{i}"));
        }
        Ok(me)
    }
}

/// `%r12` -> (`%r`, 12): a register range's prefix and index, as the verifier and the builder
/// split a name (a number with a leading zero, `%r012`, is no range member).
pub(crate) fn split_range(s: &str) -> Option<(&str, u64)> {
    let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits == s.len() {
        return None;
    }
    let (prefix, num) = s.split_at(s.len() - digits);
    if num.len() > 1 && num.starts_with('0') {
        return None;
    }
    num.parse().ok().map(|n| (prefix, n))
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_grown_from_tags_find_every_name() {
        // Grown from tags many times over, after a table dropped and rebuilt from the
        // spellings, and from a presized table: each finds every name and no other.
        let names: Vec<String> = (0..70_000).map(|i| format!("n{i}")).collect();
        let mut t = Interner::new();
        for (i, s) in names.iter().enumerate() {
            assert_eq!(t.intern(s).index(), i);
            if i == 1000 {
                t.shrink_to_fit();
            }
        }
        let mut sized = Interner::with_capacity(100, 1000);
        for s in &names {
            sized.intern(s);
        }
        for u in [&t, &sized] {
            assert!(u.slot_count() >= 2 * names.len());
            for (i, s) in names.iter().enumerate() {
                assert_eq!(u.find(s), Some(Name::from_index(i)), "{s}");
            }
            assert_eq!(u.find("n70000"), None);
        }
        assert_eq!(t, sized);
    }

    #[test]
    fn interns_in_order_and_finds() {
        let mut t = Interner::new();
        let names: Vec<String> = (0..5000).map(|i| format!("%r{i}")).collect();
        for (i, s) in names.iter().enumerate() {
            assert_eq!(t.intern(s).index(), i);
        }
        for (i, s) in names.iter().enumerate() {
            assert_eq!(t.intern_bytes(s.as_bytes()), Ok(Name::from_index(i)));
            assert_eq!(t.find(s), Some(Name::from_index(i)));
            assert_eq!(t.get(Name::from_index(i)), s);
        }
        assert_eq!(t.len(), names.len());
        assert_eq!(t.find("%r5000"), None);
        assert_eq!(t.try_get(Name::from_index(5000)), None);
        assert!(t.intern_bytes(&[0xff]).is_err());
        assert_eq!(t.len(), names.len());
        let u = Interner::from_strings(names.iter().cloned()).unwrap();
        assert_eq!(t, u);
        let mut v = u.clone();
        v.intern("x");
        assert_ne!(t, v);
        assert!(Interner::from_strings(["a".to_string(), "a".to_string()]).is_err());
        let ends: Vec<usize> = names
            .iter()
            .scan(0, |e, s| {
                *e += s.len();
                Some(*e)
            })
            .collect();
        let c = Interner::from_concatenated(names.concat(), ends.clone()).unwrap();
        assert_eq!(c, t);
        assert_eq!(c.find("%r4321"), Some(Name::from_index(4321)));
        let dup = Interner::from_concatenated("abab".into(), vec![2, 4]);
        assert_eq!(dup, Err(ConcatError::Duplicate(1)));
        let e = |b: &str, ends: Vec<usize>| Interner::from_concatenated(b.into(), ends);
        assert_eq!(e("ab", vec![2, 1]), Err(ConcatError::BadEnd(1)));
        assert_eq!(e("ab", vec![3]), Err(ConcatError::BadEnd(0)));
        assert_eq!(e("é", vec![1, 2]), Err(ConcatError::BadEnd(0)));
        assert_eq!(e("abc", vec![2]), Err(ConcatError::TrailingBytes(1)));
        assert_eq!(e("", vec![0, 0]), Err(ConcatError::Duplicate(1)));
        assert_eq!(e("", vec![]).map(|i| i.len()), Ok(0));
        assert_eq!(Interner::new().find("a"), None);
        // Dropping the table keeps every lookup working.
        let mut w = t.clone();
        w.shrink_to_fit();
        assert_eq!(w.find("%r4999"), Some(Name::from_index(4999)));
        let mut w = t.clone();
        w.shrink_to_fit();
        assert_eq!(w.intern("%r17"), Name::from_index(17));
        assert_eq!(w.intern("new").index(), names.len());
        assert_eq!(w.find("%r3"), Some(Name::from_index(3)));
    }

    /// Against a map, on registers of many prefixes and numbers, with leading zeros, and other
    /// names; with the table dropped and rebuilt along the way.
    #[test]
    fn agrees_with_a_map() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let prefixes = [
            "%r", "%rd", "%f", "%p", "%rs", "%fd", "%h", "%hh", "%a", "%b", "%c", "%d", "%e", "%g",
            "%i", "%j", "%k", "%l", "%m", "%n", "%",
        ];
        let mut t = Interner::with_capacity(100, 800);
        let mut model: std::collections::HashMap<String, Name> = Default::default();
        for step in 0..40_000 {
            let s = match next(10) {
                0 => format!("$L__BB{}", next(500)),
                1 => format!("%r0{}", next(50)),
                2 => format!(
                    "{}{}",
                    prefixes[next(prefixes.len() as u64) as usize],
                    next(9_000_000)
                ),
                _ => format!(
                    "{}{}",
                    prefixes[next(prefixes.len() as u64) as usize],
                    next(3000)
                ),
            };
            let n = t.intern(&s);
            let fresh = Name::from_index(model.len());
            let want = *model.entry(s.clone()).or_insert(fresh);
            assert_eq!(n, want, "{s}");
            assert_eq!(t.get(n), s);
            if step % 9973 == 0 {
                t.shrink_to_fit();
            }
            let probe = format!(
                "{}{}",
                prefixes[next(prefixes.len() as u64) as usize],
                next(4000)
            );
            assert_eq!(t.find(&probe), model.get(&probe).copied(), "{probe}");
        }
        let rebuilt = Interner::from_strings(t.iter().map(|(_, s)| s.to_string())).unwrap();
        assert_eq!(rebuilt, t);
        for (n, s) in t.iter() {
            assert_eq!(rebuilt.find(s), Some(n));
        }
    }
}
