//! Generic-proxy writes that no proxy fence has followed yet: a bitmap per CTA of a cluster's
//! shared memory and merged ranges of global memory. `exec/proxy.rs` describes the rule and
//! checks it.

use std::collections::BTreeMap;

/// Generic-proxy writes to shared memory not yet followed by a proxy fence, per CTA of a
/// cluster.
#[derive(Clone, Debug, Default)]
pub struct SharedWrites {
    /// One bit per 4-byte word, per CTA rank (empty until written).
    bits: Vec<Vec<u64>>,
    /// Whether any bit is set.
    dirty: bool,
}

/// Generic-proxy writes to global memory not yet followed by a proxy fence: `[lo, hi)` by
/// `lo`, disjoint and not adjacent.
#[derive(Clone, Debug, Default)]
pub struct GlobalWrites {
    ranges: BTreeMap<u64, u64>,
}

impl SharedWrites {
    /// Marks `[off, off + len)` of CTA `rank`, whose shared memory has `size` bytes.
    pub fn mark(&mut self, rank: u32, off: u64, len: usize, size: usize) {
        let r = rank as usize;
        if self.bits.len() <= r {
            self.bits.resize(r + 1, Vec::new());
        }
        let b = &mut self.bits[r];
        if b.is_empty() {
            b.resize(size.div_ceil(4).div_ceil(64), 0);
        }
        let lo = off as usize / 4;
        // Only words the bitmap holds: a range past the end marks nothing more.
        let hi = (off as usize)
            .saturating_add(len)
            .div_ceil(4)
            .min(b.len() * 64);
        for w in lo..hi {
            if let Some(x) = b.get_mut(w / 64) {
                *x |= 1 << (w % 64);
            }
        }
        self.dirty = true;
    }

    /// The first marked byte offset in `[off, off + len)` of CTA `rank`.
    pub fn first(&self, rank: u32, off: u32, len: u32) -> Option<u32> {
        if !self.dirty {
            return None;
        }
        let b = self.bits.get(rank as usize)?;
        let lo = off as usize / 4;
        let hi = (off as usize + len as usize).div_ceil(4);
        (lo..hi)
            .find(|&w| b.get(w / 64).is_some_and(|x| x >> (w % 64) & 1 != 0))
            .map(|w| (w * 4).max(off as usize) as u32)
    }

    /// A proxy fence: forgets every write.
    pub fn clear(&mut self) {
        if self.dirty {
            for b in &mut self.bits {
                b.iter_mut().for_each(|x| *x = 0);
            }
            self.dirty = false;
        }
    }
}

impl GlobalWrites {
    /// Marks `[a, a + n)`.
    pub fn mark(&mut self, a: u64, n: u64) {
        let (mut lo, mut hi) = (a, a.saturating_add(n));
        // Merge with every range that overlaps or touches [lo, hi).
        if let Some((&l, &h)) = self.ranges.range(..=lo).next_back() {
            if h >= lo {
                lo = l;
                hi = hi.max(h);
                self.ranges.remove(&l);
            }
        }
        while let Some((&l, &h)) = self.ranges.range(lo..=hi).next() {
            hi = hi.max(h);
            self.ranges.remove(&l);
        }
        self.ranges.insert(lo, hi);
    }

    /// The first marked address in `[a, a + n)`.
    pub fn first(&self, a: u64, n: u64) -> Option<u64> {
        let end = a.saturating_add(n);
        if let Some((_, &h)) = self.ranges.range(..=a).next_back() {
            if h > a {
                return Some(a);
            }
        }
        self.ranges.range(a..end).next().map(|(&l, _)| l)
    }

    /// A proxy fence: forgets every write.
    pub fn clear(&mut self) {
        self.ranges.clear();
    }
}
