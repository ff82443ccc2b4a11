//! The register file of one call depth of a warp: registers of up to 32 bits in 32-bit lanes,
//! wider ones in 64-bit lanes.
//!
//! Most registers of real programs are 32-bit (`%r`, `%f`, predicates); holding them in 32-bit
//! lanes puts twice as many in a vector instruction, and an `f32` needs no packing from a
//! 64-bit lane. A slot number says which file it is in ([`WIDE`] set: the 64-bit one), so an
//! operand's slot alone finds its lanes; a `.b128` register takes two consecutive 64-bit slots.

/// The mark of a slot in the 64-bit file.
pub const WIDE: u32 = 1 << 31;

/// Whether `slot` is in the 64-bit file.
#[inline(always)]
pub fn is_wide(slot: u32) -> bool {
    slot & WIDE != 0
}

/// The first lane's index of `slot` in its file.
#[inline(always)]
fn at(slot: u32) -> usize {
    (slot & !WIDE) as usize * 32
}

/// A dense number for `slot` (both files interleaved), for sets of slots.
#[inline]
pub fn dense(slot: u32) -> u32 {
    ((slot & !WIDE) << 1) | (slot >> 31)
}

/// How many slots a function's registers take in each file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slots {
    /// Slots of 32-bit lanes (registers of up to 32 bits; slot 0 is the carry flag).
    pub narrow: u32,
    /// Slots of 64-bit lanes.
    pub wide: u32,
}

impl Slots {
    /// Gives `count` (at least one) consecutive registers of `bits` bits their slots, and
    /// returns the first.
    pub fn alloc(&mut self, bits: u16, count: u32) -> u32 {
        let count = count.max(1);
        if bits <= 32 {
            let s = self.narrow;
            self.narrow = self.narrow.saturating_add(count);
            s
        } else {
            let per = if bits > 64 { 2 } else { 1 };
            let s = self.wide;
            self.wide = self.wide.saturating_add(per * count);
            s | WIDE
        }
    }

    /// Bytes of the registers of one warp.
    pub fn bytes(self) -> u64 {
        u64::from(self.narrow) * 32 * 4 + u64::from(self.wide) * 32 * 8
    }

    /// Slots in both files.
    pub fn total(self) -> u32 {
        self.narrow.saturating_add(self.wide)
    }
}

/// A lane value type of a register file: `u32` for the narrow one, `u64` for the wide one.
pub trait Word: Copy + Default + Into<u64> + 'static {
    /// `v` cut to the lane (the register's width mask has already been applied).
    fn of(v: u64) -> Self;
    /// This file's lanes of `slot`.
    fn lanes(r: &Regs, slot: u32) -> &[Self; 32];
    /// This file's lanes of `slot`, to write.
    fn lanes_mut(r: &mut Regs, slot: u32) -> &mut [Self; 32];
}

impl Word for u32 {
    #[inline(always)]
    fn of(v: u64) -> u32 {
        v as u32
    }

    #[inline(always)]
    fn lanes(r: &Regs, slot: u32) -> &[u32; 32] {
        let k = at(slot);
        r.narrow[k..k + 32].try_into().expect("a slot is 32 lanes")
    }

    #[inline(always)]
    fn lanes_mut(r: &mut Regs, slot: u32) -> &mut [u32; 32] {
        let k = at(slot);
        (&mut r.narrow[k..k + 32])
            .try_into()
            .expect("a slot is 32 lanes")
    }
}

impl Word for u64 {
    #[inline(always)]
    fn of(v: u64) -> u64 {
        v
    }

    #[inline(always)]
    fn lanes(r: &Regs, slot: u32) -> &[u64; 32] {
        let k = at(slot);
        r.wide[k..k + 32].try_into().expect("a slot is 32 lanes")
    }

    #[inline(always)]
    fn lanes_mut(r: &mut Regs, slot: u32) -> &mut [u64; 32] {
        let k = at(slot);
        (&mut r.wide[k..k + 32])
            .try_into()
            .expect("a slot is 32 lanes")
    }
}

/// The registers of one call depth: `narrow[slot * 32 + lane]` and `wide[slot * 32 + lane]`.
#[derive(Clone, Debug, Default)]
pub struct Regs {
    /// Lanes of the slots of up to 32 bits.
    pub narrow: Vec<u32>,
    /// Lanes of the 64-bit slots.
    pub wide: Vec<u64>,
}

impl Regs {
    /// Zeroed registers for `s`.
    pub fn new(s: Slots) -> Regs {
        Regs {
            narrow: vec![0; s.narrow as usize * 32],
            wide: vec![0; s.wide as usize * 32],
        }
    }

    /// The bytes needed to grow to `s` (zero when it is already as large).
    pub fn growth(&self, s: Slots) -> u64 {
        let n = (s.narrow as usize * 32).saturating_sub(self.narrow.len()) * 4;
        let w = (s.wide as usize * 32).saturating_sub(self.wide.len()) * 8;
        (n + w) as u64
    }

    /// Grows to hold `s` and zeroes the lanes of `mask` of its slots.
    pub fn reset(&mut self, s: Slots, mask: u32) {
        let (n, w) = (s.narrow as usize * 32, s.wide as usize * 32);
        if self.narrow.len() < n {
            self.narrow.resize(n, 0);
        }
        if self.wide.len() < w {
            self.wide.resize(w, 0);
        }
        if mask == u32::MAX {
            self.narrow[..n].fill(0);
            self.wide[..w].fill(0);
            return;
        }
        for c in self.narrow[..n].chunks_exact_mut(32) {
            for (l, r) in c.iter_mut().enumerate() {
                if mask >> l & 1 != 0 {
                    *r = 0;
                }
            }
        }
        for c in self.wide[..w].chunks_exact_mut(32) {
            for (l, r) in c.iter_mut().enumerate() {
                if mask >> l & 1 != 0 {
                    *r = 0;
                }
            }
        }
    }

    /// Lane `lane` of `slot`; `None` outside the file.
    #[inline(always)]
    pub fn try_get(&self, slot: u32, lane: usize) -> Option<u64> {
        let i = at(slot) + lane;
        if is_wide(slot) {
            self.wide.get(i).copied()
        } else {
            self.narrow.get(i).map(|&v| u64::from(v))
        }
    }

    /// Lane `lane` of `slot` (a slot the loader gave out).
    #[inline(always)]
    pub fn get(&self, slot: u32, lane: usize) -> u64 {
        let i = at(slot) + lane;
        if is_wide(slot) {
            self.wide[i]
        } else {
            u64::from(self.narrow[i])
        }
    }

    /// Sets lane `lane` of `slot` to `v`, already masked to the register's width; `false`
    /// outside the file.
    #[inline(always)]
    pub fn try_set(&mut self, slot: u32, lane: usize, v: u64) -> bool {
        let i = at(slot) + lane;
        let r = if is_wide(slot) {
            self.wide.get_mut(i).map(|r| *r = v)
        } else {
            self.narrow.get_mut(i).map(|r| *r = v as u32)
        };
        r.is_some()
    }

    /// Sets lane `lane` of `slot` (a slot the loader gave out) to `v`, already masked.
    #[inline(always)]
    pub fn set(&mut self, slot: u32, lane: usize, v: u64) {
        let i = at(slot) + lane;
        if is_wide(slot) {
            self.wide[i] = v;
        } else {
            self.narrow[i] = v as u32;
        }
    }

    /// Every lane of `slot`; `None` outside the file.
    #[inline]
    pub fn lanes(&self, slot: u32) -> Option<[u64; 32]> {
        let k = at(slot);
        Some(if is_wide(slot) {
            self.wide.get(k..k + 32)?.try_into().ok()?
        } else {
            let r = self.narrow.get(k..k + 32)?;
            std::array::from_fn(|l| u64::from(r[l]))
        })
    }

    /// Writes `v[l] & m` to the lanes `l` of `mask` of `slot` (a slot the loader gave out).
    #[inline]
    pub fn write(&mut self, slot: u32, v: &[u64; 32], m: u64, mask: u32) {
        if is_wide(slot) {
            merge(u64::lanes_mut(self, slot), v, m, mask);
        } else {
            merge(u32::lanes_mut(self, slot), v, m, mask);
        }
    }
}

/// `dst[l] = v[l] & m` for the lanes of `mask`.
#[inline(always)]
fn merge<W: Word>(dst: &mut [W; 32], v: &[u64; 32], m: u64, mask: u32) {
    if mask == u32::MAX {
        for (r, x) in dst.iter_mut().zip(v) {
            *r = W::of(x & m);
        }
    } else {
        for (l, (r, x)) in dst.iter_mut().zip(v).enumerate() {
            if mask >> l & 1 != 0 {
                *r = W::of(x & m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_in_the_file_of_their_width() {
        let mut s = Slots { narrow: 1, wide: 0 };
        let p = s.alloc(1, 1);
        let r = s.alloc(32, 4);
        let d = s.alloc(64, 1);
        let q = s.alloc(128, 2);
        assert_eq!((p, r), (1, 2));
        assert_eq!((d, q), (WIDE, WIDE | 1));
        assert_eq!(s, Slots { narrow: 6, wide: 5 });
        assert_eq!(s.bytes(), 6 * 128 + 5 * 256);
        let mut regs = Regs::new(s);
        regs.set(r + 3, 31, 0xdead_beef);
        regs.set(q + 3, 0, u64::MAX);
        assert_eq!(regs.get(r + 3, 31), 0xdead_beef);
        assert_eq!(regs.try_get(q + 3, 0), Some(u64::MAX));
        assert_eq!(regs.try_get(q + 4, 0), None);
        assert_eq!(regs.try_get(6, 0), None);
        assert!(!regs.try_set(WIDE | 5, 0, 1));
        regs.reset(s, 1 << 31);
        assert_eq!(regs.get(r + 3, 31), 0);
        assert_eq!(regs.get(q + 3, 0), u64::MAX);
        assert_ne!(dense(d), dense(0));
        assert_ne!(dense(WIDE | 1), dense(1));
    }
}
