//! Where a tensor copy's rows lie in shared memory (PTX ISA 5.5.1.1, 5.5.7): row pitch,
//! swizzle, and the padded sub-byte types' 16-byte groups.
//!
//! A copy gathers (or scatters) *dense* rows: the bytes of the elements as global memory holds
//! them, back to back; their count is the transaction count. [`Layout`] maps the dense bytes to
//! shared memory in *chunks*: 16 bytes, or for the padded sub-byte types one group of 16
//! elements (8 bytes of `.b4x16_p64`, 12 of `.b6x16_p32`) at the start of its own 16 bytes,
//! whose other bytes (the ISA's uninitialised padding) a load does not write. Row `r` starts at
//! `r * pitch`, the pitch being the row's shared bytes, or the swizzle span when a swizzled row
//! is narrower than it (measured on an H200 for 32, 64 and 128 bytes).
//!
//! The swizzle moves each chunk by the bits of its shared address (the base offset of PTX ISA
//! 5.5.7 is that formula on the absolute address): with the 128-byte line `l = a >> 7`,
//! - 32- and 96-byte spans: 16-byte chunk index `^= l & 1` (the ISA's two-row tables; the 96-byte
//!   span repeats every 256 bytes, base offset `(a / 128) % 2`);
//! - 64 bytes: `^= l & 3`; 128 bytes with 16-byte atoms: `^= l & 7`;
//! - 128 bytes with 32-byte atoms (and the 8-byte flip): 32-byte chunk index `^= l & 3`
//!   (CUTLASS's `Swizzle<2,5,2>` for `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`);
//! - 128 bytes with 64-byte atoms: 64-byte chunk index `^= l & 1`;
//! - the 8-byte flip also swaps the two 8-byte halves of every 16 bytes on odd lines
//!   ("at every alternate shared memory line", PTX ISA 5.5.7).
//!
//! The 32-, 64- and 128-byte/16-byte-atom patterns are measured on an H200; the 96-byte span,
//! the atomicities and the flip are ISA-derived, not hardware-checked. That a row narrower than
//! 96 bytes is padded to 96 follows the measured rule for the other spans (the ISA's figure of
//! the 96-byte mode is not in its text): the least certain rule here.

use crate::tmap::{Atom, ElemType, TensorMap};

/// The shared address of the chunk at `a` (a multiple of 16) under `span`-byte swizzling.
fn swizzle(a: u64, span: u32, atom: Atom) -> u64 {
    let line = a >> 7;
    match (span, atom) {
        (32 | 96, _) => a ^ ((line & 1) << 4),
        (64, _) => a ^ ((line & 3) << 4),
        (128, Atom::B16) => a ^ ((line & 7) << 4),
        (128, Atom::B32 | Atom::B32Flip8) => a ^ ((line & 3) << 5),
        (128, Atom::B64) => a ^ ((line & 1) << 6),
        _ => a,
    }
}

/// Where the rows sit in shared memory: `rows` rows of `row` dense bytes each, `pitch` apart.
#[derive(Copy, Clone, Debug)]
pub(super) struct Layout {
    rows: u64,
    row: u64,
    /// Dense bytes of one chunk (16, or a padded type's group).
    unit: u64,
    pitch: u64,
    span: u32,
    atom: Atom,
}

impl Layout {
    /// The layout of `rows` rows of `t`'s box.
    pub(super) fn new(rows: u64, t: &TensorMap) -> Layout {
        let n = t.row_elems() as u64;
        let row = t.elem.span(n);
        let srow = t.elem.smem_span(n);
        let unit = t.elem.group().map_or(16, |(g, _)| g as u64);
        // An interleaved map's units are dense (measured); other narrow rows are padded.
        let pitch = if t.swizzle != 0 && srow < t.swizzle as u64 && t.interleave == 0 {
            t.swizzle as u64
        } else {
            srow
        };
        Layout {
            rows,
            row,
            unit,
            pitch,
            span: t.swizzle,
            atom: t.atom,
        }
    }

    /// Bytes of the rows without padding: the transaction count.
    pub(super) fn bytes(&self) -> u64 {
        self.rows * self.row
    }

    /// Dense bytes of one chunk.
    pub(super) fn unit(&self) -> usize {
        self.unit as usize
    }

    /// Bytes of shared memory the rows reach.
    pub(super) fn extent(&self) -> u64 {
        self.rows * self.pitch
    }

    /// The shared offset of the chunk at dense byte `i` (a multiple of the unit) for rows
    /// starting at `base`.
    pub(super) fn at(&self, base: u64, i: u64) -> u64 {
        let (r, j) = (i / self.row, i % self.row);
        swizzle(
            base + r * self.pitch + (j / self.unit) * 16 + j % self.unit,
            self.span,
            self.atom,
        )
    }

    /// Whether the chunk at shared offset `a` has its 8-byte halves swapped.
    pub(super) fn flipped(&self, a: u64) -> bool {
        self.atom == Atom::B32Flip8 && self.span == 128 && (a >> 7) & 1 == 1
    }

    /// Splits the dense rows `bytes` destined for shared offset `base` into contiguous
    /// (offset, bytes) pieces; padding between the chunks is left out (not written).
    pub(super) fn pieces(&self, base: u32, bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut chunks: Vec<(u64, Vec<u8>)> = bytes
            .chunks(self.unit())
            .enumerate()
            .map(|(i, c)| {
                let a = self.at(base as u64, (self.unit() * i) as u64);
                let mut c = c.to_vec();
                if self.flipped(a) && c.len() == 16 {
                    c.rotate_left(8);
                }
                (a, c)
            })
            .collect();
        chunks.sort_by_key(|c| c.0);
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        for (a, c) in chunks {
            match out.last_mut() {
                Some((o, v)) if *o as u64 + v.len() as u64 == a => v.extend_from_slice(&c),
                _ => out.push((a as u32, c)),
            }
        }
        out
    }

    /// Reads the dense rows back from shared memory `sh` at `base` (stores and reductions):
    /// each chunk from its place, unflipped; a `.b6p2x16` store (type `.b6x16_p32` in the store
    /// direction, PTX ISA 5.5.1.1.1) packs the low 6 bits of each of a group's 16 shared bytes.
    /// Bytes past the end of `sh` read as zero (the caller has checked the extent).
    pub(super) fn gather(&self, sh: &[u8], base: u64, elem: ElemType, out: &mut [u8]) {
        let unit = self.unit();
        for (i, c) in out.chunks_mut(unit).enumerate() {
            let a = self.at(base, (unit * i) as u64) as usize;
            if elem == ElemType::B6x16P32 {
                let mut g = [0u8; 16];
                if let Some(s) = sh.get(a..a + 16) {
                    g.copy_from_slice(s);
                }
                c.copy_from_slice(&pack6(&g)[..c.len()]);
                continue;
            }
            let mut chunk = [0u8; 16];
            if let Some(s) = sh.get(a..a + c.len()) {
                chunk[..c.len()].copy_from_slice(s);
            }
            if self.flipped(a as u64) && c.len() == 16 {
                chunk.rotate_left(8);
            }
            c.copy_from_slice(&chunk[..c.len()]);
        }
    }
}

/// Packs the low 6 bits of 16 bytes into 12, element `k` at bits `6k..6k + 6` (little-endian,
/// the packing `.b6x16_p32` and the MMAs' FP6 operands use).
fn pack6(g: &[u8; 16]) -> [u8; 12] {
    let mut v: u128 = 0;
    for (k, &b) in g.iter().enumerate() {
        v |= ((b & 0x3f) as u128) << (6 * k);
    }
    let mut out = [0u8; 12];
    out.copy_from_slice(&v.to_le_bytes()[..12]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_patterns_follow_the_isa_tables() {
        // PTX ISA 5.5.7: line l of the 32-byte table swaps 16-byte chunks pairwise when odd.
        let row = |span, atom, l: u64| -> Vec<u64> {
            (0..8)
                .map(|c| (swizzle(128 * l + 16 * c, span, atom) - 128 * l) / 16)
                .collect()
        };
        assert_eq!(row(96, Atom::B16, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(row(96, Atom::B16, 2), [0, 1, 2, 3, 4, 5, 6, 7]);
        // 32-byte atoms: pairs of chunks move together, the pair index XOR the line.
        assert_eq!(row(128, Atom::B32, 1), [2, 3, 0, 1, 6, 7, 4, 5]);
        assert_eq!(row(128, Atom::B32, 3), [6, 7, 4, 5, 2, 3, 0, 1]);
        assert_eq!(row(128, Atom::B32, 4), [0, 1, 2, 3, 4, 5, 6, 7]);
        // 64-byte atoms: halves of the line swap on odd lines.
        assert_eq!(row(128, Atom::B64, 1), [4, 5, 6, 7, 0, 1, 2, 3]);
        assert_eq!(row(128, Atom::B64, 2), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(row(128, Atom::B16, 5), [5, 4, 7, 6, 1, 0, 3, 2]);
    }

    #[test]
    fn six_bit_packing() {
        let mut g = [0u8; 16];
        for (k, b) in g.iter_mut().enumerate() {
            *b = 0xc0 | k as u8; // the two high bits are dropped
        }
        let p = pack6(&g);
        for k in 0..16 {
            let bit = 6 * k;
            let w = u32::from_le_bytes([
                p[bit / 8],
                *p.get(bit / 8 + 1).unwrap_or(&0),
                *p.get(bit / 8 + 2).unwrap_or(&0),
                0,
            ]);
            assert_eq!((w >> (bit % 8)) & 0x3f, k as u32);
        }
    }
}
