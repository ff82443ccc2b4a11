//! Tensor maps: the interpreter's own 128-byte encoding of a `CUtensorMap`.
//!
//! The hardware's tensor-map object is 128 opaque bytes written by `cuTensorMapEncodeTiled`; PTX
//! only ever passes its address to `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` and
//! `cp.async.bulk.prefetch.tensor`. A launch supplies a tensor map as a *description* (the
//! arguments of `cuTensorMapEncodeTiled`), which the interpreter encodes in the layout below and
//! places where the kernel expects the object: in the parameter itself for a `.param .b8 p[128]`
//! (Triton's and CUTLASS's `__grid_constant__` maps), or in a 64-byte aligned global allocation
//! whose address is passed for an 8-byte parameter. The GPU side of the same test builds the real
//! object from the same description, so the two agree on meaning, not on bytes.
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..4 | magic `0x50414d54` ("TMAP" little-endian) |
//! | 4 | version (1) |
//! | 5 | rank, 1..=5 |
//! | 6 | element type, numbered as `CUtensorMapDataType` (0 u8, 1 u16, 2 u32, 3 s32, 4 u64, 5 s64, 6 f16, 7 f32, 8 f64, 9 bf16, 10 f32-ftz, 11 tf32, 12 tf32-ftz, 13 `.b4x16` = `16U4_ALIGN8B`, 14 `.b4x16_p64` = `16U4_ALIGN16B`, 15 `.b6x16_p32` = `16U6_ALIGN16B`) |
//! | 7 | swizzle span, as `tensormap.replace`'s `.swizzle_mode` (0 none, 1 32B, 2 64B, 3 128B, 4 96B) |
//! | 8 | interleave, as `CUtensorMapInterleave` (0 none, 1 16B, 2 32B) |
//! | 9 | out-of-bounds fill (0 zeros, 1 NaN) |
//! | 10 | mode: 0 tiled, 1 im2col, 2 im2col wide (`W`), 3 im2col wide (`W128`) |
//! | 11 | swizzle atomicity, as `.swizzle_atomicity` (0 16B, 1 32B, 2 32B with the 8-byte flip, 3 64B) |
//! | 16..24 | global address |
//! | 24..44 | `globalDim[5]` (u32 each) |
//! | 48..80 | `globalStrides[4]` in bytes, of dimensions 1..rank (u64 each) |
//! | 80..100 | tiled: `boxDim[5]` (u32 each); im2col: `channelsPerPixel` (u32), `pixelsPerColumn` (u32), `pixelBoxLowerCorner[3]` and `pixelBoxUpperCorner[3]` (i16 each, W, H, D order; the wide modes use W only) |
//! | 100..120 | `elementStrides[5]` (u32 each) |
//!
//! Unused entries are zero. Im2col maps are the arguments of `cuTensorMapEncodeIm2col` and
//! `cuTensorMapEncodeIm2colWide`.
//!
//! An interleaved map (`CU_TENSOR_MAP_INTERLEAVE_16B`/`_32B`, NC/8HWC8-style layouts) counts
//! dimension 0 in interleave units of 16 or 32 bytes: its `globalDim[0]`, `boxDim[0]`,
//! `elementStrides[0]` and coordinate 0 are units, unit `u` sits `u * 16` (or 32) bytes into a
//! row, and dimension `rank - 2` is one position, at its coordinate (measured on an H200:
//! `tools/hwvectors/hopper.py --family interleave` and `interleave_im2col`,
//! `corpus/vectors/interleave*.jsonl.xz`). [`TensorMap::unit_view`] turns such a map into the
//! map the copy walks. The constraints of `cuTensorMapEncodeTiled` are checked when a map
//! is made ([`TensorMap::check`]) and again when an instruction reads one.
//!
//! The sub-byte element types of sm_100 (ISA-derived, not hardware-checked: PTX ISA 5.5.1.1 and
//! 9.7.9.25.5.1, the driver's documentation of `cuTensorMapEncodeTiled`) count elements: a
//! group of 16 is 8 bytes of packed 4-bit values (`.b4x16`) or 12 of 6-bit ones in global memory,
//! and in shared memory 8 bytes (`.b4x16`) or 16 (`.b4x16_p64`, `.b6x16_p32`: the packed bytes,
//! then padding). [`ElemType::bits`] and [`ElemType::group`] give the sizes; the copy itself is
//! `exec/tensor.rs`'s. The 96-byte swizzle and the 128-byte swizzle's 32- and 64-byte
//! atomicities ([`Atom`]) are likewise ISA-derived (PTX ISA 5.5.7).

mod check;
mod spec;

pub use spec::TensorMapArg;

/// The magic number in the first four bytes.
pub const MAGIC: u32 = 0x5041_4d54;

/// An element type of a tensor map (numbered as `CUtensorMapDataType`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// `UINT8`
    U8 = 0,
    /// `UINT16`
    U16 = 1,
    /// `UINT32`
    U32 = 2,
    /// `INT32`
    S32 = 3,
    /// `UINT64`
    U64 = 4,
    /// `INT64`
    S64 = 5,
    /// `FLOAT16`
    F16 = 6,
    /// `FLOAT32`
    F32 = 7,
    /// `FLOAT64`
    F64 = 8,
    /// `BFLOAT16`
    Bf16 = 9,
    /// `FLOAT32_FTZ`
    F32Ftz = 10,
    /// `TFLOAT32`
    Tf32 = 11,
    /// `TFLOAT32_FTZ`
    Tf32Ftz = 12,
    /// `16U4_ALIGN8B`, PTX's `.b4x16`: 4-bit values packed in global and shared memory alike.
    B4x16 = 13,
    /// `16U4_ALIGN16B`, `.b4x16_p64`: 16 packed 4-bit values padded to 16 bytes in shared memory.
    B4x16P64 = 14,
    /// `16U6_ALIGN16B`, `.b6x16_p32` (loads) and `.b6p2x16` (stores): 16 packed 6-bit values
    /// padded to 16 bytes in shared memory, or 16 bytes of one value each (6 low bits) for a store.
    B6x16P32 = 15,
}

impl ElemType {
    const ALL: [ElemType; 16] = [
        ElemType::U8,
        ElemType::U16,
        ElemType::U32,
        ElemType::S32,
        ElemType::U64,
        ElemType::S64,
        ElemType::F16,
        ElemType::F32,
        ElemType::F64,
        ElemType::Bf16,
        ElemType::F32Ftz,
        ElemType::Tf32,
        ElemType::Tf32Ftz,
        ElemType::B4x16,
        ElemType::B4x16P64,
        ElemType::B6x16P32,
    ];

    /// Element size in bits (in global memory).
    pub fn bits(self) -> u32 {
        match self {
            ElemType::B4x16 | ElemType::B4x16P64 => 4,
            ElemType::B6x16P32 => 6,
            ElemType::U8 => 8,
            ElemType::U16 | ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::U32
            | ElemType::S32
            | ElemType::F32
            | ElemType::F32Ftz
            | ElemType::Tf32
            | ElemType::Tf32Ftz => 32,
            ElemType::U64 | ElemType::S64 | ElemType::F64 => 64,
        }
    }

    /// Bytes of `n` consecutive elements in global memory (rounded up).
    pub fn span(self, n: u64) -> u64 {
        (n * self.bits() as u64).div_ceil(8)
    }

    /// The padded sub-byte types' 16-element groups: their packed bytes in global memory and
    /// their bytes in shared memory (PTX ISA 5.5.1.1.1: 8 + 8 and 12 + 4 bytes of padding).
    pub fn group(self) -> Option<(u32, u32)> {
        match self {
            ElemType::B4x16P64 => Some((8, 16)),
            ElemType::B6x16P32 => Some((12, 16)),
            _ => None,
        }
    }

    /// Bytes of `n` consecutive elements in shared memory, padding included.
    pub fn smem_span(self, n: u64) -> u64 {
        match self.group() {
            Some((_, s)) => n.div_ceil(16) * s as u64,
            None => self.span(n),
        }
    }

    /// Whether the type is one of the sub-byte types of sm_100.
    pub fn is_sub_byte(self) -> bool {
        self.bits() < 8
    }

    /// The name used in descriptions (`f16`, `u8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::U32 => "u32",
            ElemType::S32 => "s32",
            ElemType::U64 => "u64",
            ElemType::S64 => "s64",
            ElemType::F16 => "f16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::Bf16 => "bf16",
            ElemType::F32Ftz => "f32ftz",
            ElemType::Tf32 => "tf32",
            ElemType::Tf32Ftz => "tf32ftz",
            ElemType::B4x16 => "b4x16",
            ElemType::B4x16P64 => "b4x16_p64",
            ElemType::B6x16P32 => "b6x16_p32",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<ElemType> {
        ElemType::ALL.iter().copied().find(|t| t.name() == s)
    }

    fn from_code(c: u8) -> Option<ElemType> {
        ElemType::ALL.get(c as usize).copied()
    }

    /// Whether out-of-bounds elements may be filled with NaN (floating-point types only).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16
                | ElemType::F32
                | ElemType::F64
                | ElemType::Bf16
                | ElemType::F32Ftz
                | ElemType::Tf32
                | ElemType::Tf32Ftz
        )
    }

    /// The bits written for an out-of-bounds element in NaN-fill mode. The ISA calls it
    /// "OOB-NaN" without giving its bits; an H100 writes `0x7ff77ff7` for every out-of-bounds
    /// `f32` element (`tensor.2d.f32.nanfill` in `corpus/vectors/hopper.jsonl.xz`): the 16-bit
    /// pattern `0x7ff7` repeated, which is a quiet NaN in f16, bf16, f32 and f64 alike, so the
    /// other widths use the same pattern (not measured: the f16 case faults on the H100, see
    /// `corpus/vectors/README.md`).
    pub fn nan_fill(self) -> u64 {
        match self {
            ElemType::F16 | ElemType::Bf16 => 0x7ff7,
            ElemType::F64 => 0x7ff7_7ff7_7ff7_7ff7,
            _ => 0x7ff7_7ff7,
        }
    }
}

/// The 128-byte swizzle's atomicity: the chunk a swizzle moves whole (PTX ISA 5.5.7, Table 14),
/// numbered as `tensormap.replace`'s `.swizzle_atomicity` (`CU_TENSOR_MAP_SWIZZLE_128B`,
/// `_128B_ATOM_32B`, `_128B_ATOM_32B_FLIP_8B`, `_128B_ATOM_64B`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    /// 16-byte chunks (every swizzle span's default).
    B16 = 0,
    /// 32-byte chunks.
    B32 = 1,
    /// 32-byte chunks, and the 8-byte halves of each 16 bytes swapped on odd 128-byte lines.
    B32Flip8 = 2,
    /// 64-byte chunks.
    B64 = 3,
}

impl Atom {
    const ALL: [Atom; 4] = [Atom::B16, Atom::B32, Atom::B32Flip8, Atom::B64];

    fn from_code(c: u8) -> Option<Atom> {
        Atom::ALL.get(c as usize).copied()
    }

    /// The name used in descriptions (`16`, `32`, `32flip`, `64`).
    pub fn name(self) -> &'static str {
        match self {
            Atom::B16 => "16",
            Atom::B32 => "32",
            Atom::B32Flip8 => "32flip",
            Atom::B64 => "64",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<Atom> {
        Atom::ALL.iter().copied().find(|a| a.name() == s)
    }
}

/// A tensor map's description (the arguments of `cuTensorMapEncodeTiled`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// Element type.
    pub elem: ElemType,
    /// Number of dimensions, 1..=5.
    pub rank: u32,
    /// Global address of element 0.
    pub addr: u64,
    /// Elements in each dimension (dimension 0 innermost).
    pub dims: [u32; 5],
    /// Byte strides of dimensions 1..rank (`strides[0]` is dimension 1's).
    pub strides: [u64; 4],
    /// Box (bounding box) size in each dimension, in elements.
    pub boxdim: [u32; 5],
    /// Traversal stride in each dimension.
    pub estrides: [u32; 5],
    /// Swizzle span in bytes: 0, 32, 64, 96 or 128.
    pub swizzle: u32,
    /// The 128-byte swizzle's atomicity ([`Atom::B16`] for the other spans).
    pub atom: Atom,
    /// Out-of-bounds elements read as NaN instead of zero.
    pub nan_fill: bool,
    /// The im2col description of a map made by `cuTensorMapEncodeIm2col{Wide}` (`boxdim` is
    /// then unused); `None` for a tiled map.
    pub im2col: Option<Im2col>,
    /// Interleave unit in bytes: 0 (none), 16 or 32.
    pub interleave: u32,
}

/// Which im2col encoding a map has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Im2colMode {
    /// `cuTensorMapEncodeIm2col`: a bounding box in every spatial dimension.
    Box,
    /// `cuTensorMapEncodeIm2colWide`, `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W`.
    Wide,
    /// `cuTensorMapEncodeIm2colWide`, `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128`.
    Wide128,
}

/// The im2col part of a tensor map (PTX ISA 5.5.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Im2col {
    /// The encoding.
    pub mode: Im2colMode,
    /// `pixelBoxLowerCorner` in W, H, D order (the wide modes use W only).
    pub lower: [i32; 3],
    /// `pixelBoxUpperCorner` in W, H, D order, relative to the last element.
    pub upper: [i32; 3],
    /// `channelsPerPixel`.
    pub cpp: u32,
    /// `pixelsPerColumn`.
    pub ppc: u32,
}

impl TensorMap {
    /// Elements of the box actually transferred in dimension `i` (the box size divided by the
    /// traversal stride, rounded up).
    pub fn box_elems(&self, i: usize) -> u32 {
        self.boxdim[i].div_ceil(self.estrides[i].max(1))
    }

    /// Bytes of a tiled box (the transaction count of a tile-mode load).
    pub fn box_bytes(&self) -> u64 {
        (0..self.rank as usize)
            .map(|i| self.box_elems(i) as u64)
            .product::<u64>()
            * self.elem.bits() as u64
            / 8
    }

    /// The map and coordinates an interleaved map's copy walks: dimension 0 becomes the
    /// elements of one interleave unit (always in bounds), dimension 1 the units (stride the
    /// unit), then the map's dimensions 1 and up without dimension `rank - 2`, whose
    /// coordinate moves the address (or puts the whole box out of bounds: the last dimension
    /// becomes empty). The result has the same rank and keeps `interleave` set, which makes
    /// its rows dense in shared memory. An im2col map stays one, of one-unit pixels: its
    /// spatial dimensions are now the units and the map's spatial dimensions but the dropped
    /// one, in that order, and the corners, offsets and traversal strides go with them
    /// (measured: `corpus/vectors/interleave_im2col.jsonl.xz`).
    pub fn unit_view(&self, c: [i64; 5]) -> (TensorMap, [i64; 5]) {
        let r = self.rank as usize;
        let il = self.interleave;
        let unit_elems = il * 8 / self.elem.bits();
        let fixed = r - 2;
        let mut t = self.clone();
        let mut tc = [0i64; 5];
        t.dims[0] = unit_elems;
        t.boxdim[0] = unit_elems;
        t.estrides[0] = 1;
        t.dims[1] = self.dims[0];
        t.boxdim[1] = self.boxdim[0];
        t.estrides[1] = self.estrides[0];
        t.strides[0] = il as u64;
        tc[1] = c[0];
        for (k, j) in (2..).zip((1..r).filter(|&j| j != fixed)) {
            t.dims[k] = self.dims[j];
            t.boxdim[k] = self.boxdim[j];
            t.estrides[k] = self.estrides[j];
            t.strides[k - 1] = self.strides[j - 1];
            tc[k] = c[j];
        }
        if let Some(i) = t.im2col.as_mut() {
            i.cpp = unit_elems;
        }
        let cf = c[fixed];
        if cf >= 0 && cf < self.dims[fixed] as i64 {
            t.addr = self
                .addr
                .wrapping_add((cf as u64).wrapping_mul(self.strides[fixed - 1]));
        } else {
            // No unit is in bounds (the last dimension has no box to check).
            t.dims[r - 1] = 0;
        }
        (t, tc)
    }

    /// Elements of one row of the box in shared memory: `boxDim[0]` over its traversal stride,
    /// or `channelsPerPixel` of an im2col map.
    pub fn row_elems(&self) -> u32 {
        match &self.im2col {
            Some(i) => i.cpp,
            None => self.box_elems(0),
        }
    }

    /// The 128-byte object.
    pub fn encode(&self) -> [u8; 128] {
        let mut b = [0u8; 128];
        b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        b[4] = 1;
        b[5] = self.rank as u8;
        b[6] = self.elem as u8;
        b[7] = match self.swizzle {
            32 => 1,
            64 => 2,
            128 => 3,
            96 => 4,
            _ => 0,
        };
        b[11] = self.atom as u8;
        b[8] = match self.interleave {
            16 => 1,
            32 => 2,
            _ => 0,
        };
        b[9] = self.nan_fill as u8;
        b[16..24].copy_from_slice(&self.addr.to_le_bytes());
        for i in 0..5 {
            b[24 + 4 * i..28 + 4 * i].copy_from_slice(&self.dims[i].to_le_bytes());
            b[80 + 4 * i..84 + 4 * i].copy_from_slice(&self.boxdim[i].to_le_bytes());
            b[100 + 4 * i..104 + 4 * i].copy_from_slice(&self.estrides[i].to_le_bytes());
        }
        if let Some(i) = &self.im2col {
            b[10] = match i.mode {
                Im2colMode::Box => 1,
                Im2colMode::Wide => 2,
                Im2colMode::Wide128 => 3,
            };
            b[80..84].copy_from_slice(&i.cpp.to_le_bytes());
            b[84..88].copy_from_slice(&i.ppc.to_le_bytes());
            for k in 0..3 {
                b[88 + 2 * k..90 + 2 * k].copy_from_slice(&(i.lower[k] as i16).to_le_bytes());
                b[94 + 2 * k..96 + 2 * k].copy_from_slice(&(i.upper[k] as i16).to_le_bytes());
            }
        }
        for i in 0..4 {
            b[48 + 8 * i..56 + 8 * i].copy_from_slice(&self.strides[i].to_le_bytes());
        }
        b
    }

    /// Reads a 128-byte object; `Err` says why the bytes are not a tensor map.
    pub fn decode(b: &[u8]) -> Result<TensorMap, TensorMapError> {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(a)
        };
        if b.len() < 128 || u32_at(0) != MAGIC || b[4] != 1 {
            return Err(TensorMapError::NotATensorMap);
        }
        let elem = ElemType::from_code(b[6]).ok_or(TensorMapError::UnknownCode("element type"))?;
        let mut t = TensorMap {
            elem,
            rank: b[5] as u32,
            addr: u64_at(16),
            dims: [0; 5],
            strides: [0; 4],
            boxdim: [0; 5],
            estrides: [0; 5],
            swizzle: match b[7] {
                0 => 0,
                1 => 32,
                2 => 64,
                3 => 128,
                4 => 96,
                _ => return Err(TensorMapError::UnknownCode("swizzle mode")),
            },
            atom: Atom::from_code(b[11]).ok_or(TensorMapError::UnknownCode("swizzle atomicity"))?,
            nan_fill: b[9] != 0,
            im2col: None,
            interleave: match b[8] {
                0 => 0,
                1 => 16,
                2 => 32,
                _ => return Err(TensorMapError::UnknownCode("interleave")),
            },
        };
        for i in 0..5 {
            t.dims[i] = u32_at(24 + 4 * i);
            t.boxdim[i] = u32_at(80 + 4 * i);
            t.estrides[i] = u32_at(100 + 4 * i);
        }
        let mode = match b[10] {
            0 => None,
            1 => Some(Im2colMode::Box),
            2 => Some(Im2colMode::Wide),
            3 => Some(Im2colMode::Wide128),
            _ => return Err(TensorMapError::UnknownCode("mode")),
        };
        if let Some(mode) = mode {
            let i16_at = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]) as i32;
            t.boxdim = [0; 5];
            t.im2col = Some(Im2col {
                mode,
                cpp: u32_at(80),
                ppc: u32_at(84),
                lower: [i16_at(88), i16_at(90), i16_at(92)],
                upper: [i16_at(94), i16_at(96), i16_at(98)],
            });
        }
        for i in 0..4 {
            t.strides[i] = u64_at(48 + 8 * i);
        }
        t.check()?;
        Ok(t)
    }

    /// Byte offset of the element at in-bounds coordinates `c` from the global address.
    pub fn offset(&self, c: &[u64; 5]) -> u64 {
        let r = self.rank as usize;
        c[0] * self.elem.bits() as u64 / 8
            + c[1..r]
                .iter()
                .zip(&self.strides)
                .map(|(x, s)| x * s)
                .sum::<u64>()
    }
}

/// A field `tensormap.replace` writes (PTX ISA 9.7.9.28).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// `.global_address` (`.b64`).
    GlobalAddress,
    /// `.rank`: the new value is the rank less one.
    Rank,
    /// `.box_dim` of dimension `ord`.
    BoxDim,
    /// `.global_dim` of dimension `ord`.
    GlobalDim,
    /// `.global_stride` (`.b64`, bytes) of dimension `ord + 1`, as `globalStrides[ord]` of
    /// `cuTensorMapEncodeTiled`.
    GlobalStride,
    /// `.element_stride` of dimension `ord`.
    ElementStride,
    /// `.elemtype`, numbered as the ISA's table 33 (not as `CUtensorMapDataType`).
    Elemtype,
    /// `.interleave_layout`.
    InterleaveLayout,
    /// `.swizzle_mode`.
    SwizzleMode,
    /// `.swizzle_atomicity` (sm_100).
    SwizzleAtomicity,
    /// `.fill_mode`.
    FillMode,
}

/// Writes `v` into field `f` (of dimension `ord`) of the 128-byte tensor-map object `b`, as
/// `tensormap.replace` does. The object is checked when a copy reads it, not here: a program
/// may pass through inconsistent states (a rank changed before its dimensions).
pub fn replace(b: &mut [u8], f: Field, ord: u32, v: u64) -> Result<(), String> {
    if b.len() < 128 || u32::from_le_bytes([b[0], b[1], b[2], b[3]]) != MAGIC || b[4] != 1 {
        return Err("tensormap.replace on bytes that are not a tensor map (supply one with a `tmap:` launch argument)".into());
    }
    let per_dim = |limit: u32| -> Result<usize, String> {
        if ord < limit {
            Ok(ord as usize)
        } else {
            Err(format!(
                "ordinal {ord} is past the tensor map's {limit} entries"
            ))
        }
    };
    let put32 = |b: &mut [u8], o: usize| b[o..o + 4].copy_from_slice(&(v as u32).to_le_bytes());
    match f {
        Field::GlobalAddress => b[16..24].copy_from_slice(&v.to_le_bytes()),
        Field::Rank => {
            if v > 4 {
                return Err(format!("rank field {v}: the rank less one, 0..=4"));
            }
            b[5] = v as u8 + 1;
        }
        Field::BoxDim if b[10] != 0 => {
            return Err("tensormap.replace.tile.box_dim on an im2col tensor map (the interpreter keeps its pixel box there; what the GPU does is not measured)".into())
        }
        Field::BoxDim => put32(b, 80 + 4 * per_dim(5)?),
        Field::GlobalDim => put32(b, 24 + 4 * per_dim(5)?),
        Field::ElementStride => put32(b, 100 + 4 * per_dim(5)?),
        Field::GlobalStride => {
            let o = 48 + 8 * per_dim(4)?;
            b[o..o + 8].copy_from_slice(&v.to_le_bytes());
        }
        Field::Elemtype => {
            // Table 33: u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz b4x16
            // b4x16_p64 b6x16_p32 (or b6p2x16: the same map, read by stores).
            const CODES: [ElemType; 16] = [
                ElemType::U8,
                ElemType::U16,
                ElemType::U32,
                ElemType::S32,
                ElemType::U64,
                ElemType::S64,
                ElemType::F16,
                ElemType::F32,
                ElemType::F32Ftz,
                ElemType::F64,
                ElemType::Bf16,
                ElemType::Tf32,
                ElemType::Tf32Ftz,
                ElemType::B4x16,
                ElemType::B4x16P64,
                ElemType::B6x16P32,
            ];
            let e = CODES
                .get(v as usize)
                .ok_or_else(|| format!("element type {v}: Table 33 numbers 0..=15"))?;
            b[6] = *e as u8;
        }
        Field::InterleaveLayout => b[8] = v as u8,
        Field::SwizzleMode => {
            if v > 4 {
                return Err(format!("swizzle mode {v}: Table 33 numbers 0..=4"));
            }
            b[7] = v as u8;
        }
        Field::SwizzleAtomicity => {
            if v > 3 {
                return Err(format!("swizzle atomicity {v}: Table 33 numbers 0..=3"));
            }
            b[11] = v as u8;
        }
        Field::FillMode => {
            if v > 1 {
                return Err(format!("fill mode {v}: 0 (zeros) or 1 (NaN)"));
            }
            b[9] = v as u8;
        }
    }
    Ok(())
}

/// Why a tensor map cannot be made or read.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum TensorMapError {
    /// The description breaks a constraint of `cuTensorMapEncodeTiled` (the message names it).
    #[error("{0}")]
    Constraint(String),
    /// The bytes at the tensor-map address are not a tensor map.
    #[error(
        "the 128 bytes at the tensor-map address are not a tensor map (supply one with a \
         `tmap:` launch argument)"
    )]
    NotATensorMap,
    /// An element type or swizzle code that no tensor map has.
    #[error("unknown tensor-map {0}")]
    UnknownCode(&'static str),
    /// A `tmap:` specification that does not describe a tensor map (the message says why).
    #[error("{0}")]
    Spec(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The strides of a packed tensor are products of its dimensions, which can pass `u64`.
    #[test]
    fn packed_strides_past_u64_are_an_error() {
        let e =
            TensorMapArg::parse("buf=1,type=f64,dims=4294967295x4294967295x4294967295,box=8x1x1")
                .expect_err("strides past 2^64");
        assert!(
            matches!(&e, TensorMapError::Spec(m) if m.contains("2^64")),
            "{e}"
        );
    }

    #[test]
    fn round_trip_and_checks() {
        let a = TensorMapArg::parse("buf=1,type=f16,dims=64x128,box=64x32,swizzle=128").unwrap();
        assert_eq!(a.map.strides[0], 128);
        let mut m = a.map.clone();
        m.addr = 0x1_0000_0100;
        let b = m.encode();
        assert_eq!(TensorMap::decode(&b).unwrap(), m);
        assert_eq!(m.box_bytes(), 64 * 32 * 2);
        m.swizzle = 64;
        assert!(m.check().is_err());
        assert!(TensorMap::decode(&[0u8; 128]).is_err());
    }

    #[test]
    fn interleaved_maps() {
        let parse = |s: &str| TensorMapArg::parse(s).map(|a| a.map);
        let m = parse("buf=1,type=f16,dims=8x10x6x3,strides=256x2560x15360,box=8x4x2x2,estrides=2x1x1x3,interleave=16").unwrap();
        assert_eq!(m.interleave, 16);
        assert!(m.check().is_ok(), "a unit traversal stride is allowed");
        assert_eq!(TensorMap::decode(&m.encode()).unwrap(), m);
        // The walked map: one unit per row, the units as dimension 1, dimension 2 (rank - 2)
        // fixed at its coordinate, which moves the address.
        let (t, c) = m.unit_view([3, 1, 5, 2, 0]);
        assert_eq!(t.rank, 4);
        assert_eq!(t.dims[..4], [8, 8, 10, 3]);
        assert_eq!(t.boxdim[..4], [8, 8, 4, 2]);
        assert_eq!(t.estrides[..4], [1, 2, 1, 3]);
        assert_eq!(t.strides[..3], [16, 256, 15360]);
        assert_eq!(c[..4], [0, 3, 1, 2]);
        assert_eq!(t.addr, 5 * 2560);
        // Out of bounds in the fixed dimension: no unit is in bounds.
        assert_eq!(m.unit_view([0, 1, 6, 0, 0]).0.dims[3], 0);
        assert_eq!(m.unit_view([0, 1, -1, 0, 0]).0.dims[3], 0);
        // The driver's rules.
        for bad in [
            "buf=1,type=f16,dims=8x10,box=8x4,interleave=16",
            "buf=1,type=f16,dims=8x10x6,box=4x4x2,interleave=16",
            "buf=1,type=f16,dims=8x10x6,box=12x4x2,interleave=16",
            "buf=1,type=f16,dims=16x10x6,box=16x4x2,interleave=32",
            "buf=1,type=f16,dims=8x10x6,box=8x4x2,interleave=32,swizzle=32",
            "buf=1,type=f16,dims=8x10x6,box=8x4x2,interleave=8",
        ] {
            assert!(parse(bad).unwrap().check().is_err(), "{bad}");
        }
        let ok = parse("buf=1,type=f16,dims=16x10x6,box=16x4x2,interleave=32,swizzle=32").unwrap();
        assert!(ok.check().is_ok());
        let mut b = ok.encode();
        b[8] = 3;
        assert!(TensorMap::decode(&b).is_err());
        // An interleaved im2col map: one-unit pixels, the units a spatial dimension.
        let im = parse("buf=1,type=f16,dims=8x5x4x2,strides=256x1280x5120,mode=im2col,cpp=32,ppc=12,lower=-1:0,upper=0:-1,interleave=16").unwrap();
        assert!(im.check().is_ok());
        let (t, c) = im.unit_view([3, 1, 2, 1, 0]);
        assert_eq!(t.dims[..4], [8, 8, 5, 2]);
        assert_eq!(c[..4], [0, 3, 1, 1]);
        assert_eq!(t.addr, 2 * 1280);
        assert_eq!(t.im2col.map(|i| (i.cpp, i.ppc)), Some((8, 12)));
        // PTX ISA 5.5.6: the wide modes take no interleave; a constraint of the map.
        let mut wide =
            parse("buf=1,type=f16,dims=8x10x6,mode=im2col_w,cpp=8,ppc=4,swizzle=64").unwrap();
        assert!(wide.check().is_ok());
        wide.interleave = 16;
        assert!(
            matches!(wide.check(), Err(TensorMapError::Constraint(m)) if m.contains("5.5.6")),
            "{:?}",
            wide.check()
        );
        assert!(parse(
            "buf=1,type=f16,dims=8x10x6,mode=im2col_w128,cpp=8,ppc=4,swizzle=64,interleave=16"
        )
        .unwrap()
        .check()
        .is_err());
    }
}
