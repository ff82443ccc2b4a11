//! A direct-mapped cache of short spellings (register names, instruction words) in front of the
//! interners.
//!
//! Most operands are registers of a few bytes (`%rd12`) and most instruction words are short
//! (`add.s32`). Their bytes, zero-padded into machine words, are an exact key: PTX spellings
//! never contain a NUL byte, so the padding cannot collide with a real byte. A hit costs one
//! multiply, one load and a compare of whole words; the interner's hash, probe and byte
//! comparison run only on a miss.

/// Bytes of a spelling kept as `W` little-endian words; longer spellings are not cached.
#[derive(Clone)]
pub(crate) struct ShortCache<const W: usize> {
    slots: Box<[Slot<W>]>,
    /// `64 - log2(slots)`: the slot is the top bits of the key's product.
    shift: u32,
}

/// A key and its value side by side: a lookup touches one cache line, not one in each of two
/// arrays (NCCL's register cache is larger than the first-level data cache).
#[derive(Clone, Copy)]
struct Slot<const W: usize> {
    key: [u64; W],
    val: u32,
}

impl<const W: usize> Slot<W> {
    /// An all-zero key is no spelling's (spellings are not empty).
    const EMPTY: Self = Slot {
        key: [0; W],
        val: 0,
    };
}

/// The key of `s` (at most `8 * W` bytes, none of them NUL), or `None` if `s` is longer or
/// empty. `after` is the input from the start of `s` on, read in whole words where it is long
/// enough.
#[inline(always)]
fn key<const W: usize>(s: &[u8], after: &[u8]) -> Option<[u64; W]> {
    let n = s.len();
    if n == 0 || n > 8 * W {
        return None;
    }
    let mut k = [0u64; W];
    if after.len() >= 8 * W && after.as_ptr() == s.as_ptr() {
        for (w, slot) in k.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&after[8 * w..8 * w + 8]);
            let keep = n.saturating_sub(8 * w).min(8);
            *slot = if keep == 0 {
                0
            } else {
                u64::from_le_bytes(b) & (u64::MAX >> (64 - 8 * keep))
            };
        }
    } else {
        for (j, &b) in s.iter().enumerate() {
            k[j / 8] |= u64::from(b) << (8 * (j % 8));
        }
    }
    Some(k)
}

/// Whole-word equality of two keys. Written as one test of the words' differences: an array
/// comparison becomes a 16-byte vector load of the key just built, which waits for the key's
/// 8-byte stores to reach the cache (a store-forwarding stall on every lookup).
#[inline(always)]
fn same<const W: usize>(a: &[u64; W], b: &[u64; W]) -> bool {
    let mut diff = 0;
    for w in 0..W {
        diff |= a[w] ^ b[w];
    }
    diff == 0
}

impl<const W: usize> ShortCache<W> {
    /// An empty cache of `2^bits` slots.
    pub(crate) fn new(bits: u32) -> Self {
        ShortCache {
            slots: vec![Slot::EMPTY; 1 << bits].into_boxed_slice(),
            shift: 64 - bits,
        }
    }

    /// A cache of no slots, which finds nothing and keeps nothing (no allocation).
    pub(crate) fn empty() -> Self {
        ShortCache {
            slots: Box::default(),
            // The slot of a key is then 0 or 1, past the end of no slots.
            shift: 63,
        }
    }

    /// An empty cache of `2^bits` slots, made from `old` when it has that many.
    pub(crate) fn reuse(old: Option<Self>, bits: u32) -> Self {
        match old {
            Some(mut c) if c.shift == 64 - bits => {
                c.slots.fill(Slot::EMPTY);
                c
            }
            _ => Self::new(bits),
        }
    }

    /// `old` with its entries if it has at least `2^bits` slots, else an empty cache of
    /// `2^bits` slots (for a cache whose values stay valid from one module to the next).
    pub(crate) fn at_least(old: Option<Self>, bits: u32) -> Self {
        match old {
            Some(c) if c.shift <= 64 - bits => c,
            _ => Self::new(bits),
        }
    }

    #[inline(always)]
    fn slot(&self, k: &[u64; W]) -> usize {
        let mut h = 0u64;
        for &w in k {
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (h >> self.shift) as usize
    }

    /// The value cached for `s` (see [`key`] for `after`); `0` is never stored.
    #[inline(always)]
    pub(crate) fn get(&self, s: &[u8], after: &[u8]) -> Option<u32> {
        let k = key::<W>(s, after)?;
        let at = self.slot(&k);
        match self.slots.get(at) {
            Some(slot) if same(&slot.key, &k) => Some(slot.val),
            _ => None,
        }
    }

    /// The value cached for the key `k` (a spelling's bytes, zero-padded), if any.
    #[inline(always)]
    pub(crate) fn get_key(&self, k: [u64; W]) -> Option<u32> {
        match self.slots.get(self.slot(&k)) {
            Some(slot) if same(&slot.key, &k) => Some(slot.val),
            _ => None,
        }
    }

    /// Caches `v` (non-zero) for `s`, replacing whatever shared its slot.
    #[inline]
    pub(crate) fn put(&mut self, s: &[u8], v: u32) {
        self.put_at(s, &[], v);
    }

    /// [`ShortCache::put`] for `s` read at `after` (see [`key`]): its key built from whole
    /// words where the text allows.
    #[inline]
    pub(crate) fn put_at(&mut self, s: &[u8], after: &[u8], v: u32) {
        debug_assert_ne!(v, 0);
        if let Some(k) = key::<W>(s, after) {
            let at = self.slot(&k);
            if let Some(slot) = self.slots.get_mut(at) {
                *slot = Slot { key: k, val: v };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ShortCache;

    #[test]
    fn hits_only_the_exact_spelling() {
        let mut c = ShortCache::<2>::new(11);
        let src = b"%rd12, %rd1, %rd123456789012345;";
        c.put(b"%rd12", 7);
        assert_eq!(c.get(&src[..5], src), Some(7));
        // A prefix or an extension of a cached spelling is a different key.
        assert_eq!(c.get(&src[7..10], &src[7..]), None);
        assert_eq!(c.get(b"%rd1", b"%rd1"), None);
        c.put(b"%rd1", 9);
        assert_eq!(c.get(&src[7..11], &src[7..]), Some(9));
        assert_eq!(c.get(&src[..5], src), Some(7));
        // Longer than 16 bytes: never cached.
        let long = &src[13..31];
        c.put(long, 3);
        assert_eq!(c.get(long, &src[13..]), None);
        // Whole-word reads and byte-by-byte reads give the same key.
        c.put_at(&src[..5], src, 13);
        assert_eq!(c.get(b"%rd12", b"%rd12"), Some(13));
        let w = b"%rd1234567890";
        c.put(w, 11);
        assert_eq!(
            c.get(&b"%rd1234567890, %r1;"[..13], b"%rd1234567890, %r1;"),
            Some(11)
        );
    }
}
