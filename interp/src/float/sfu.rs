//! The special-function unit's (`MUFU`) tables, measured on the GPU.
//!
//! `tools/hwvectors/sfu_tables.py` ran each approximate instruction on every significand of one
//! or two binades (H200, CUDA 13.0) and stored the outputs in `interp/sfu/` (see
//! `interp/sfu/tables.json`): little-endian `u32` words `d[i] = out[i] - out[i-1]` (mod 2^32,
//! `out[-1] = 0`), xz-compressed. The files are compiled in and decoded on first use.
//!
//! In memory a table keeps one signed byte per input: the output minus a reference computed
//! from the index (the correctly rounded function in `f64`, rounded to `f32`), with the few
//! outputs farther than 127 units from it in a sorted side list. The reference only has to be
//! the same at decoding and at lookup, which it is within one process, so the host's `log2`,
//! `exp2` and `sin` serve. This keeps the eight tables at 88 MB instead of 352 MB.
//!
//! The `sin`/`cos` tables (`tools/hwvectors/probes/sfu_trig.py`, H200) are indexed by the
//! reduced argument instead of an input encoding: entry `n` is the unit's result for the
//! fixed-point fraction of a turn `n * 2^-25` of the first quadrant (`n < 2^23`).

use std::io::Write;
use std::sync::OnceLock;

/// One measured table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Table {
    /// `rcp.approx.ftz.f32` on `x = 0x3f800000 + i`, `i < 2^23` (`[1, 2)`).
    Rcp,
    /// `rsqrt.approx.ftz.f32` on `x = 0x3f800000 + i`, `i < 2^24` (`[1, 4)`).
    Rsqrt,
    /// `sqrt.approx.ftz.f32` on `x = 0x3f800000 + i`, `i < 2^24` (`[1, 4)`).
    Sqrt,
    /// `lg2.approx.ftz.f32` on `x = 0x3f000000 + i`, `i < 2^24` (`[0.5, 2)`).
    Lg2,
    /// `ex2.approx.ftz.f32` on `x = i * 2^-23`, `i < 2^23` (`[0, 1)`).
    Ex2Pos,
    /// `ex2.approx.ftz.f32` on `x = -i * 2^-23`, `i < 2^23` (`(-1, 0]`).
    Ex2Neg,
    /// `MUFU.SIN` of `i * 2^-25` turns, `i < 2^23` (the first quadrant; `sin.approx.f32`).
    Sin,
    /// `MUFU.COS` of `i * 2^-25` turns, `i < 2^23` (the first quadrant; `cos.approx.f32`).
    /// Entry `i` equals entry `2^23 - 1 - i` of [`Table::Sin`] (every entry; the unit reads
    /// the first quadrant backwards), which makes that the reference its residuals are kept to.
    Cos,
    /// `MUFU.TANH` (`tanh.approx.f32`) on `1.0/256 <= x < 8`: entry `first + k` is the result
    /// for every `x` of exponent field `e` whose top `m` significand bits are `k`, for each
    /// `(e, m, first)` of [`TANH_SEGMENTS`].
    Tanh,
}

/// The layout of [`Table::Tanh`]: `(exponent field, significand bits kept, first entry)` per
/// binade, in order. The unit reads 17 to 21 significand bits depending on the binade
/// (`tools/hwvectors/probes/tanh_table.py` found the fewest bits that determine the result on
/// every input of the binade).
pub const TANH_SEGMENTS: [(u32, u32, u32); 11] = [
    (119, 17, 0),
    (120, 17, 131_072),
    (121, 17, 262_144),
    (122, 18, 393_216),
    (123, 18, 655_360),
    (124, 19, 917_504),
    (125, 19, 1_441_792),
    (126, 19, 1_966_080),
    (127, 20, 2_490_368),
    (128, 21, 3_538_944),
    (129, 20, 5_636_096),
];

/// Entries of [`Table::Tanh`]: the last segment's first entry and its `2^m` entries.
const TANH_ENTRIES: usize = {
    let (_, m, first) = TANH_SEGMENTS[TANH_SEGMENTS.len() - 1];
    first as usize + (1 << m)
};

impl Table {
    fn count(self) -> usize {
        match self {
            Table::Rcp | Table::Ex2Pos | Table::Ex2Neg | Table::Sin | Table::Cos => 1 << 23,
            Table::Rsqrt | Table::Sqrt | Table::Lg2 => 1 << 24,
            Table::Tanh => TANH_ENTRIES,
        }
    }

    fn data(self) -> &'static [u8] {
        match self {
            Table::Rcp => include_bytes!("../../sfu/rcp.approx.ftz.f32.u32.xz"),
            Table::Rsqrt => include_bytes!("../../sfu/rsqrt.approx.ftz.f32.u32.xz"),
            Table::Sqrt => include_bytes!("../../sfu/sqrt.approx.ftz.f32.u32.xz"),
            Table::Lg2 => include_bytes!("../../sfu/lg2.approx.ftz.f32.u32.xz"),
            Table::Ex2Pos => include_bytes!("../../sfu/ex2.approx.ftz.f32.pos.u32.xz"),
            Table::Ex2Neg => include_bytes!("../../sfu/ex2.approx.ftz.f32.neg.u32.xz"),
            Table::Sin => include_bytes!("../../sfu/sin.approx.f32.q0.u32.xz"),
            Table::Cos => include_bytes!("../../sfu/cos.approx.f32.q0.u32.xz"),
            Table::Tanh => include_bytes!("../../sfu/tanh.approx.f32.u32.xz"),
        }
    }

    fn cell(self) -> &'static OnceLock<Option<Packed>> {
        static CELLS: [OnceLock<Option<Packed>>; 9] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        &CELLS[self as usize]
    }

    /// The input of entry `i`, as `f64`.
    fn input(self, i: u32) -> f64 {
        let bits = |b: u32| f32::from_bits(b) as f64;
        let grid = i as f64 * (1.0 / (1u64 << 23) as f64);
        match self {
            Table::Rcp | Table::Rsqrt | Table::Sqrt => bits(0x3f80_0000 + i),
            Table::Lg2 => bits(0x3f00_0000 + i),
            Table::Ex2Pos => grid,
            Table::Ex2Neg => -grid,
            // A fraction of a turn, in radians.
            Table::Sin => i as f64 * (std::f64::consts::TAU / (1u64 << 25) as f64),
            Table::Cos => Table::Sin.input((1 << 23) - 1 - i),
            Table::Tanh => bits(tanh_entry_input(i)),
        }
    }

    /// The reference the stored bytes are relative to: the function in `f64` rounded to `f32`.
    fn reference(self, i: u32) -> u32 {
        let x = self.input(i);
        let y = match self {
            Table::Rcp => 1.0 / x,
            Table::Rsqrt => 1.0 / x.sqrt(),
            Table::Sqrt => x.sqrt(),
            Table::Lg2 => x.log2(),
            Table::Ex2Pos | Table::Ex2Neg => x.exp2(),
            Table::Sin | Table::Cos => x.sin(),
            Table::Tanh => x.tanh(),
        };
        (y as f32).to_bits()
    }

    /// The unit's output for entry `i`, or `None` if `i` is outside the table or the table
    /// could not be decoded (callers then fall back to the correctly rounded function).
    pub fn get(self, i: u32) -> Option<u32> {
        let p = self.cell().get_or_init(|| decode(self)).as_ref()?;
        let r = *p.residual.get(i as usize)?;
        if r == ESCAPE {
            let k = p.far.binary_search_by_key(&i, |&(j, _)| j).ok()?;
            return Some(p.far[k].1);
        }
        Some(self.reference(i).wrapping_add(r as i32 as u32))
    }
}

/// The smallest input (bits) of [`Table::Tanh`] entry `i`.
fn tanh_entry_input(i: u32) -> u32 {
    let k = TANH_SEGMENTS.partition_point(|&(_, _, first)| first <= i) - 1;
    let (e, m, first) = TANH_SEGMENTS[k];
    (e << 23) | ((i - first) << (23 - m))
}

/// The [`Table::Tanh`] entry for a positive `x` (bits) of exponent field 119..=129.
pub fn tanh_entry(x: u32) -> Option<u32> {
    let e = x >> 23;
    let &(_, m, first) = TANH_SEGMENTS.iter().find(|s| s.0 == e)?;
    Some(first + ((x & 0x7f_ffff) >> (23 - m)))
}

/// Marks an entry kept in the side list.
const ESCAPE: i8 = i8::MIN;

struct Packed {
    residual: Vec<i8>,
    far: Vec<(u32, u32)>,
}

/// Receives the decompressed words and packs them as they arrive, so the full `u32` table
/// never exists in memory.
struct Packer {
    table: Table,
    partial: [u8; 4],
    have: usize,
    prev: u32,
    out: Packed,
}

impl Packer {
    fn word(&mut self, d: u32) {
        let v = self.prev.wrapping_add(d);
        self.prev = v;
        let i = self.out.residual.len() as u32;
        let r = v.wrapping_sub(self.table.reference(i)) as i32;
        if r > i8::MIN as i32 && r <= i8::MAX as i32 {
            self.out.residual.push(r as i8);
        } else {
            self.out.residual.push(ESCAPE);
            self.out.far.push((i, v));
        }
    }
}

impl Write for Packer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            self.partial[self.have] = b;
            self.have += 1;
            if self.have == 4 {
                self.have = 0;
                self.word(u32::from_le_bytes(self.partial));
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn decode(table: Table) -> Option<Packed> {
    let mut p = Packer {
        table,
        partial: [0; 4],
        have: 0,
        prev: 0,
        out: Packed {
            residual: Vec::with_capacity(table.count()),
            far: Vec::new(),
        },
    };
    lzma_rs::xz_decompress(&mut table.data(), &mut p).ok()?;
    (p.have == 0 && p.out.residual.len() == table.count()).then_some(p.out)
}

/// A half-precision function measured on every 16-bit input (`tools/hwvectors/sfu_tables.py`,
/// `HALF_TABLES`; H100, CUDA 13.0): the result for input `x` is entry `x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HalfTable {
    /// `ex2.approx.f16`.
    Ex2F16,
    /// `ex2.approx.ftz.bf16`.
    Ex2Bf16,
    /// `tanh.approx.f16`.
    TanhF16,
    /// `tanh.approx.bf16`.
    TanhBf16,
}

impl HalfTable {
    fn data(self) -> &'static [u8] {
        match self {
            HalfTable::Ex2F16 => include_bytes!("../../sfu/ex2.approx.f16.u32.xz"),
            HalfTable::Ex2Bf16 => include_bytes!("../../sfu/ex2.approx.ftz.bf16.u32.xz"),
            HalfTable::TanhF16 => include_bytes!("../../sfu/tanh.approx.f16.u32.xz"),
            HalfTable::TanhBf16 => include_bytes!("../../sfu/tanh.approx.bf16.u32.xz"),
        }
    }

    /// The unit's output for input `x`, or `None` if the table could not be decoded.
    pub fn get(self, x: u16) -> Option<u16> {
        static CELLS: [OnceLock<Option<Vec<u16>>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let t = CELLS[self as usize].get_or_init(|| {
            let mut raw = Vec::new();
            lzma_rs::xz_decompress(&mut self.data(), &mut raw).ok()?;
            if raw.len() != 4 << 16 {
                return None;
            }
            let mut prev = 0u32;
            Some(
                raw.chunks_exact(4)
                    .map(|w| {
                        prev = prev.wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                        prev as u16
                    })
                    .collect(),
            )
        });
        t.as_ref().map(|t| t[x as usize])
    }
}
