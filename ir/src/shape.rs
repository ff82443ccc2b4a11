//! Matrix and tensor-memory shapes (`.m16n8k16`, `.m64n128k16`, `.16x64b`, ...).
//!
//! Shapes are a modifier class of their own: the set is large (every `wgmma` N from 8 to 256) but
//! fixed by the ISA, so a shape is an index into one generated table.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

/// The `k` values of the `m64nNkK` shapes of `wgmma` (dense and sparse).
const WGMMA_K: [u16; 5] = [8, 16, 32, 64, 256];
/// Number of `m64nNkK` shapes: N in 8, 16, ..., 256 for each K.
const WGMMA_COUNT: usize = 32 * WGMMA_K.len();

/// Shapes of the warp-level MMA families, `ldmatrix`/`stmatrix`/`movmatrix` and `tcgen05`
/// tensor-memory access, as `(m, n, k)` (`k` = 0 for two-dimensional shapes).
const MNK: &[(u16, u16, u16)] = &[
    (8, 8, 4),
    (8, 8, 16),
    (8, 8, 32),
    (8, 8, 128),
    (16, 8, 4),
    (16, 8, 8),
    (16, 8, 16),
    (16, 8, 32),
    (16, 8, 64),
    (16, 8, 128),
    (16, 8, 256),
    (16, 16, 16),
    (16, 16, 8),
    (32, 8, 16),
    (8, 32, 16),
    (8, 8, 0),
    (16, 16, 0),
    (8, 16, 0),
    (16, 8, 0),
];

/// Tensor-memory access shapes of `tcgen05.ld/st/cp`, as (lanes, bits, repeat-suffix).
const TMEM: &[&str] = &[
    "16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2", "128x256b", "4x256b", "128x128b",
    "64x128b", "32x128b",
];

/// A shape qualifier; an index into the ISA's table of shapes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shape(u8);

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Shape {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Shape(u.int_in_range(0..=(Shape::COUNT - 1) as u8)?))
    }
}

struct Table {
    names: Vec<&'static str>,
    dims: Vec<(u16, u16, u16)>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut names = Vec::with_capacity(Shape::COUNT);
        let mut dims = Vec::with_capacity(Shape::COUNT);
        let mut push = |name: String, d: (u16, u16, u16)| {
            names.push(&*Box::leak(name.into_boxed_str()));
            dims.push(d);
        };
        for &(m, n, k) in MNK {
            let name = if k == 0 {
                format!("m{m}n{n}")
            } else {
                format!("m{m}n{n}k{k}")
            };
            push(name, (m, n, k));
        }
        for &k in &WGMMA_K {
            for n in (8..=256).step_by(8) {
                push(format!("m64n{n}k{k}"), (64, n, k));
            }
        }
        for &t in TMEM {
            // lanes x bits; the x2 suffix of 16x32bx2 is kept in the name only.
            let (lanes, rest) = t.split_once('x').expect("tmem shape");
            let bits = rest.trim_end_matches("x2").trim_end_matches('b');
            push(
                t.to_string(),
                (lanes.parse().unwrap_or(0), bits.parse().unwrap_or(0), 0),
            );
        }
        debug_assert_eq!(names.len(), Shape::COUNT);
        Table { names, dims }
    })
}

impl Shape {
    /// Number of shapes in the table.
    pub const COUNT: usize = MNK.len() + WGMMA_COUNT + TMEM.len();

    /// Index of this shape in the table.
    pub const fn ordinal(self) -> u8 {
        self.0
    }

    /// The shape with the given index, if any.
    pub fn from_ordinal(i: u8) -> Option<Shape> {
        ((i as usize) < Shape::COUNT).then_some(Shape(i))
    }

    /// The spelling without the leading dot.
    pub fn as_str(self) -> &'static str {
        table().names[self.0 as usize]
    }

    /// `(m, n, k)` for matrix shapes; `(lanes, bits, 0)` for tensor-memory shapes; `k` is 0 for
    /// two-dimensional matrix shapes.
    pub fn dims(self) -> (u16, u16, u16) {
        table().dims[self.0 as usize]
    }

    /// Whether this is a tensor-memory access shape (`.16x64b`, ...).
    pub fn is_tmem(self) -> bool {
        self.0 as usize >= MNK.len() + WGMMA_COUNT
    }

    /// Every shape.
    pub fn all() -> impl Iterator<Item = Shape> {
        (0..Shape::COUNT as u8).map(Shape)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        const { assert!(Shape::COUNT <= 256) };
        let names: std::collections::HashSet<_> = Shape::all().map(|s| s.as_str()).collect();
        assert_eq!(names.len(), Shape::COUNT, "duplicate shape spellings");
        let s = Shape::all().find(|s| s.as_str() == "m64n128k16").unwrap();
        assert_eq!(s.dims(), (64, 128, 16));
        assert!(Shape::all().any(|s| s.as_str() == "16x32bx2" && s.is_tmem()));
    }
}
