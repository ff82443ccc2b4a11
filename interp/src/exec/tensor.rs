//! Tensor copies (PTX ISA 9.7.9.27.1, 5.5): `cp.async.bulk.tensor` (global to shared, with
//! `.multicast::cluster`, and shared to global), `cp.reduce.async.bulk.tensor` and
//! `cp.async.bulk.prefetch.tensor`, 1D to 5D, in every mode: `.tile`, `.im2col` (stores and
//! reductions `.im2col_no_offs`), `.im2col::w`, `.im2col::w::128`, `.tile::gather4` and
//! `.tile::scatter4`.
//!
//! The tensor map is read from its generic address (kernel parameter, `.const` or global
//! memory) in the interpreter's encoding ([`crate::tmap`]); the instruction's mode must be the
//! map's (tiled or im2col). A copy moves *rows* of elements contiguous in dimension 0:
//! - **tile**: the box, `ceil(boxDim / elementStride)` elements a dimension, starting at the
//!   (signed) coordinates and stepping by the traversal stride, a row for each position of
//!   dimensions 1 and up;
//! - **gather4/scatter4** (2D maps whose box is one row): four rows of the box's width at the
//!   column coordinate, one for each row coordinate;
//! - **im2col** (5.5.5; measured on an H200, `corpus/vectors/im2col.jsonl`): `pixelsPerColumn`
//!   rows of `channelsPerPixel` channels from channel `c`. The filter base `(w, h, d)` walks
//!   the bounding box `[lower, dim - 1 + upper]` of each spatial dimension from the coordinates,
//!   W fastest, stepping by the traversal strides; past the box's end a dimension restarts at
//!   its lower corner and the next one steps, and past D (or H, W for ranks 4, 3) the image `n`
//!   steps by its own traversal stride without bound. Each row reads the pixel at the base
//!   plus the im2col offsets. The filter base must start inside the box (the H200 traps);
//! - **im2col::w / ::w::128** (sm_100; ISA-derived, not hardware-checked): rows along W only,
//!   H and D fixed: `pixelsPerColumn` (or 128) positions from `w + wOffset` by the W stride, then
//!   `wHalo` more continuing the walk (`::w`), or `wHalo` after every 32 (`::w::128`); positions
//!   past the box's upper W corner (moved by `wOffset`) read as out of bounds.
//!
//! Elements outside the tensor read as zero (or the canonical NaN with NaN fill) and are not
//! written by stores. Where the rows lie in shared memory (pitch, swizzle spans and
//! atomicities, the padded sub-byte groups) is [`super::tensor_smem`]'s. The transaction count
//! is the rows' bytes as global memory holds them (packed, for the sub-byte types). Stores and
//! reductions read shared memory the same way; their coordinates (and an im2col map's lower
//! corners) must be non-negative, its upper corners non-positive (9.7.9.27.1.1; the H200 traps).
//! An interleaved map (16- or 32-byte units in dimension 0) is walked as the tiled map of
//! [`TensorMap::unit_view`]: a row per unit, rows dense in shared memory even when swizzled
//! (measured on an H200, `corpus/vectors/interleave.jsonl.xz`); an interleaved im2col map walks
//! one-unit pixels whose first spatial dimension is the units
//! (`corpus/vectors/interleave_im2col.jsonl.xz`). The wide im2col modes take no interleave (PTX
//! ISA 5.5.6; such a map cannot be made).
//!
//! The sub-byte types (sm_100; ISA-derived, not hardware-checked, PTX ISA 5.5.1.1 and
//! 9.7.9.25.5.1) count 4- or 6-bit elements: a row starts on 16 bytes as any other (32
//! elements of `.b4x16`) and, padded, on a multiple of 128 elements. `.b4x16` moves its packed
//! bytes as they are; a `.b4x16_p64`/`.b6x16_p32` load puts each 16 elements' 8 or 12 packed
//! bytes at the start of 16 shared bytes and leaves the rest (the ISA's uninitialised padding)
//! unwritten; a type-15 store is `.b6p2x16`, one element in the low 6 bits of each shared byte,
//! packed into global memory. Reductions take no sub-byte type, stores no `.b4x16_p64`, and
//! the 8-byte flip is for loads only (undefined otherwise).

use super::async_copy::{issuer, key};
use super::bulk::shared_dest;
use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::inflight;
use super::state::inflight::{Loc, Op, Part, Reduce, Src};
use super::tensor_smem::Layout;
use crate::code::Opnd;
use crate::error::{Error, FaultKind};
use crate::mem;
use crate::tmap::{Atom, ElemType, Im2colMode, TensorMap};
use ptx_ir_core::{Dim, Flag, Opcode, Space, Type};

fn dim_of(x: &Ctx<'_, '_>) -> Result<usize, Error> {
    Ok(match x.d.dim {
        Some(Dim::D1) => 1,
        Some(Dim::D2) => 2,
        Some(Dim::D3) => 3,
        Some(Dim::D4) => 4,
        Some(Dim::D5) => 5,
        Some(_) => return Err(x.unsupported("tensor dimension")),
        None => return Err(x.unsupported("tensor copy without .dim")),
    })
}

/// The instruction's copy mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    Tile,
    Four,
    Im2col,
    Wide(bool),
}

impl Mode {
    fn of(x: &Ctx<'_, '_>) -> Mode {
        if x.has(Flag::TileGather4) || x.has(Flag::TileScatter4) {
            Mode::Four
        } else if x.has(Flag::Im2colW128) {
            Mode::Wide(true)
        } else if x.has(Flag::Im2colW) {
            Mode::Wide(false)
        } else if x.has(Flag::Im2col) || x.has(Flag::Im2colNoOffs) {
            Mode::Im2col
        } else {
            Mode::Tile
        }
    }

    /// Tensor coordinates the instruction takes.
    fn coords(self, dim: usize) -> usize {
        if self == Mode::Four {
            5
        } else {
            dim
        }
    }

    /// Whether the instruction has an `im2colInfo` operand (loads and prefetches).
    fn has_info(self) -> bool {
        matches!(self, Mode::Im2col | Mode::Wide(_))
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Tile => ".tile",
            Mode::Four => ".tile::gather4/scatter4",
            Mode::Im2col => ".im2col",
            Mode::Wide(false) => ".im2col::w",
            Mode::Wide(true) => ".im2col::w::128",
        }
    }
}

/// What a copy walks: the mode with its operands.
#[derive(Copy, Clone, Debug)]
enum Walk {
    /// The box at these coordinates.
    Tile([i64; 5]),
    /// Column and four rows.
    Four(i64, [i64; 4]),
    /// Coordinates `(c, w, h, d, n)` (ranks 3 and 4 leave out `d`, `h`) and the offsets.
    Im2col([i64; 5], [i64; 3]),
    /// Coordinates, `wHalo`, `wOffset`, and `::w::128`.
    Wide([i64; 5], u64, i64, bool),
}

/// Reads and decodes the tensor map of a `[tensorMap, {coords}]` operand for one lane and
/// checks that its mode is the instruction's; returns the map, the coordinates and the map's
/// global address when it lives in global memory.
fn map_and_coords(
    x: &mut Ctx<'_, '_>,
    o: &Opnd,
    dim: usize,
    mode: Mode,
    l: usize,
) -> Result<(TensorMap, [i64; 5], Option<u64>), Error> {
    let Opnd::Tuple(t) = o else {
        return Err(x.unsupported("tensor operand is not `[tensorMap, {coordinates}]`"));
    };
    let (head, coords) = match &t[..] {
        [h, Opnd::Vec(c)] => (h, c),
        _ => return Err(x.unsupported("tensor operand is not `[tensorMap, {coordinates}]`")),
    };
    let a = x.get(head, l)?;
    let mut b = [0u8; 128];
    x.access(AddrSpace::Generic, a, 128, 64, l, false, |m| {
        b.copy_from_slice(m)
    })?;
    let map = TensorMap::decode(&b).map_err(|e| x.undefined(l, e.to_string()))?;
    if map.rank as usize != dim {
        return Err(x.undefined(
            l,
            format!(
                "the instruction is .{dim}d but the tensor map has rank {}",
                map.rank
            ),
        ));
    }
    let map_mode = map.im2col.map(|i| i.mode);
    let fits = match mode {
        Mode::Tile | Mode::Four => map_mode.is_none(),
        Mode::Im2col => map_mode == Some(Im2colMode::Box),
        Mode::Wide(false) => map_mode == Some(Im2colMode::Wide),
        Mode::Wide(true) => map_mode == Some(Im2colMode::Wide128),
    };
    if !fits {
        let what = match map_mode {
            None => "tiled (cuTensorMapEncodeTiled)",
            Some(Im2colMode::Box) => "im2col (cuTensorMapEncodeIm2col)",
            Some(Im2colMode::Wide) => "wide im2col, mode W",
            Some(Im2colMode::Wide128) => "wide im2col, mode W128",
        };
        return Err(x.undefined(
            l,
            format!(
                "a {} copy with a {what} tensor map (PTX ISA 5.5)",
                mode.name()
            ),
        ));
    }
    let n = mode.coords(dim);
    if coords.len() != n {
        return Err(x.undefined(
            l,
            format!(
                "{} tensor coordinates for a .{dim}d {} copy, not {n}",
                coords.len(),
                mode.name()
            ),
        ));
    }
    let mut c = [0i64; 5];
    for (i, co) in coords.iter().enumerate() {
        c[i] = x.get(co, l)? as u32 as i32 as i64;
    }
    let global = matches!(mem::decode_generic(a).0, mem::Region::Global).then_some(a);
    if map.interleave != 0 {
        let (unit, uc) = map.unit_view(c);
        return Ok((unit, uc, global));
    }
    Ok((map, c, global))
}

/// Reads the `im2colInfo` operand `o` (16-bit elements) and makes the walk, checking the rules
/// of the mode that do not depend on the direction.
fn walk(
    x: &Ctx<'_, '_>,
    t: &TensorMap,
    mode: Mode,
    c: [i64; 5],
    info: Option<&Opnd>,
    l: usize,
) -> Result<Walk, Error> {
    let r = t.rank as usize;
    let info_vals = |want: usize| -> Result<Vec<i64>, Error> {
        match info {
            Some(Opnd::Vec(v)) if v.len() == want => v
                .iter()
                .map(|o| Ok((x.get(o, l)? & 0xffff) as i64))
                .collect(),
            Some(_) => Err(x.undefined(
                l,
                format!(
                    "a {} copy of rank {r} takes {want} im2col values",
                    mode.name()
                ),
            )),
            None => Ok(vec![0; want]),
        }
    };
    // The start of a row must be 16-byte aligned: the H100 stops the kernel with an illegal
    // instruction otherwise (measured with `tools/hwvectors/hopper_probe.py`, probes
    // `tmap.*`, loads and stores alike, in bounds or not; and for im2col channel starts).
    let first = c[0];
    let bits = i64::from(t.elem.bits());
    if (first * bits) % 128 != 0 {
        let at = if bits % 8 == 0 {
            format!(
                "{} bytes into the innermost dimension (coordinate {first} of {}-byte elements)",
                first * bits / 8,
                bits / 8
            )
        } else {
            format!("{first} elements of {bits} bits into the innermost dimension")
        };
        return Err(x.undefined(
            l,
            format!(
                "the box starts {at}, not a multiple of 16 bytes; the GPU stops with an illegal instruction"
            ),
        ));
    }
    if t.elem.group().is_some() && first % 128 != 0 {
        return Err(x.undefined(
            l,
            format!(
                "the first coordinate {first} of a .{} copy is not a multiple of 128 (PTX ISA 9.7.9.25.5.1)",
                t.elem.name()
            ),
        ));
    }
    Ok(match mode {
        Mode::Tile => Walk::Tile(c),
        Mode::Four => {
            if t.boxdim[1] != 1 {
                return Err(x.undefined(l, format!("a .tile::gather4/scatter4 copy needs a box of one row (boxDim[1] = {}) (PTX ISA 5.5.3.4)", t.boxdim[1])));
            }
            Walk::Four(c[0], [c[1], c[2], c[3], c[4]])
        }
        Mode::Im2col => {
            let i = t.im2col.expect("mode checked");
            let offs = info_vals(r - 2)?;
            // 5.5.5: offsets are unsigned, 16, 8 and 5 bits for ranks 3, 4, 5.
            let lim = [0, 0, 0, 1 << 16, 1 << 8, 1 << 5][r];
            let mut o = [0i64; 3];
            for (k, &v) in offs.iter().enumerate() {
                if v >= lim {
                    return Err(x.undefined(l, format!("im2col offset {v} is out of range for a rank-{r} copy (0..{lim}, PTX ISA 5.5.5)")));
                }
                o[k] = v;
            }
            for k in 0..r - 2 {
                let (lo, hi) = (
                    i.lower[k] as i64,
                    t.dims[k + 1] as i64 - 1 + i.upper[k] as i64,
                );
                if c[k + 1] < lo || c[k + 1] > hi {
                    return Err(x.undefined(l, format!("the im2col filter base {} of spatial dimension {k} is outside the bounding box [{lo}, {hi}] (PTX ISA 5.5.5; the H200 traps)", c[k + 1])));
                }
            }
            Walk::Im2col(c, o)
        }
        Mode::Wide(w128) => {
            let i = t.im2col.expect("mode checked");
            let v = info_vals(2)?;
            let (halo, woff) = (v[0] as u64, v[1]);
            let halo_lim = if w128 { 32 } else { 512 };
            if halo >= halo_lim || woff >= 32 {
                return Err(x.undefined(l, format!("wHalo {halo} or wOffset {woff} out of range (wHalo below {halo_lim}, wOffset below 32, PTX ISA 9.7.9.27.1.2)")));
            }
            let hi = t.dims[1] as i64 - 1 + i.upper[0] as i64 + woff;
            if c[1] + woff > hi {
                return Err(x.undefined(l, format!("the first W position {} is past the bounding box's upper corner {hi} (PTX ISA 5.5.5.2: it may lie only left of the box)", c[1] + woff)));
            }
            Walk::Wide(c, halo, woff, w128)
        }
    })
}

impl Walk {
    /// Rows the copy moves.
    fn rows(&self, t: &TensorMap) -> u64 {
        match self {
            Walk::Tile(_) => (1..t.rank as usize)
                .map(|i| t.box_elems(i) as u64)
                .product(),
            Walk::Four(..) => 4,
            Walk::Im2col(..) => t.im2col.map_or(0, |i| i.ppc as u64),
            Walk::Wide(_, halo, _, true) => 128 + 4 * halo,
            Walk::Wide(_, halo, _, false) => t.im2col.map_or(0, |i| i.ppc as u64) + halo,
        }
    }

    /// The `(c, w, h, d, n)`-style coordinates of row `r`'s first element, or `None` if the
    /// row is out of bounds in a dimension other than 0.
    fn row_start(&self, t: &TensorMap, idx: &[u64; 5], r: u64) -> Option<[i64; 5]> {
        let rank = t.rank as usize;
        let inb = |c: &[i64; 5]| (1..rank).all(|i| c[i] >= 0 && c[i] < t.dims[i] as i64);
        let c = match *self {
            Walk::Tile(start) => {
                let mut c = start;
                for i in 1..rank {
                    c[i] = start[i] + (idx[i] * t.estrides[i] as u64) as i64;
                }
                c
            }
            Walk::Four(col, rows) => [col, rows[r as usize], 0, 0, 0],
            Walk::Im2col(_, offs) => {
                // `idx` holds the traversed filter base; add the offsets.
                let mut c = [0i64; 5];
                for (i, v) in c.iter_mut().enumerate().take(rank) {
                    *v = idx[i] as i64;
                }
                for k in 0..rank - 2 {
                    c[k + 1] += offs[k];
                }
                c
            }
            Walk::Wide(start, halo, woff, w128) => {
                let i = t.im2col.expect("mode checked");
                let k = if w128 {
                    let (g, j) = (r / (32 + halo), r % (32 + halo));
                    32 * g + j
                } else {
                    r
                } as i64;
                let mut c = start;
                c[1] = start[1] + woff + k * t.estrides[1] as i64;
                let hi = t.dims[1] as i64 - 1 + i.upper[0] as i64 + woff;
                if c[1] > hi {
                    return None;
                }
                c
            }
        };
        inb(&c).then_some(c)
    }
}

/// The filter bases an im2col walk visits, as `(c, w, h, d, n)` with the absent spatial
/// dimensions left out (rank 3: `(c, w, n)`), one per row.
fn im2col_bases(t: &TensorMap, start: [i64; 5], rows: u64) -> Vec<[i64; 5]> {
    let r = t.rank as usize;
    let i = t.im2col.expect("im2col map");
    let mut cur = start;
    let mut out = Vec::with_capacity(rows as usize);
    for _ in 0..rows {
        out.push(cur);
        // Step W; past the box, restart it and step the next dimension; the image has no box.
        let mut k = 1;
        loop {
            cur[k] += t.estrides[k] as i64;
            if k == r - 1 {
                break;
            }
            let hi = t.dims[k] as i64 - 1 + i.upper[k - 1] as i64;
            if cur[k] <= hi {
                break;
            }
            cur[k] = i.lower[k - 1] as i64;
            k += 1;
        }
    }
    out
}

/// Visits the rows: for each run of elements contiguous in dimension 0, calls `f` with the
/// byte offset in the dense (unpadded, unswizzled) rows, the run's bytes, and the global byte
/// offset of the run's first element or `None` if the run is out of bounds. `dim0` is the
/// bound of dimension 0. Runs start and end on whole bytes: the sub-byte types' coordinates
/// and bounds are multiples of 32 (`.b4x16`: 16 bytes) or 128 elements, and `.b4x16`'s
/// `globalDim[0]` is even ([`TensorMap::check`]).
fn for_runs(w: &Walk, t: &TensorMap, dim0: u64, mut f: impl FnMut(u64, u64, Option<u64>)) {
    let rank = t.rank as usize;
    let rows = w.rows(t);
    let n0 = t.row_elems() as u64;
    let by = |n: u64| t.elem.span(n);
    let bases = match w {
        Walk::Im2col(start, _) => im2col_bases(t, *start, rows),
        _ => Vec::new(),
    };
    let be: Vec<u64> = (0..5)
        .map(|i| if i < rank { t.box_elems(i) as u64 } else { 1 })
        .collect();
    let mut idx = [0u64; 5];
    for r in 0..rows {
        let boff = r * by(n0);
        let start = match w {
            Walk::Im2col(..) => {
                let b = bases[r as usize];
                let mut ix = [0u64; 5];
                // Out-of-range bases (n past N, negative corners) are caught by the bounds
                // check through wrapping to huge values.
                for (i, v) in ix.iter_mut().enumerate().take(rank) {
                    *v = b[i] as u64;
                }
                w.row_start(t, &ix, r)
            }
            _ => w.row_start(t, &idx, r),
        };
        match start {
            None => f(boff, by(n0), None),
            Some(c) => {
                let s0 = c[0];
                let lo = (-s0).clamp(0, n0 as i64) as u64;
                let hi = (dim0 as i64 - s0).clamp(0, n0 as i64) as u64;
                let hi = hi.max(lo);
                if lo > 0 {
                    f(boff, by(lo), None);
                }
                if hi > lo {
                    let mut g = [0u64; 5];
                    for i in 1..rank {
                        g[i] = c[i] as u64;
                    }
                    g[0] = (s0 + lo as i64) as u64;
                    f(boff + by(lo), by(hi - lo), Some(t.offset(&g)));
                }
                if n0 > hi {
                    f(boff + by(hi), by(n0 - hi), None);
                }
            }
        }
        // Next tile row.
        if let Walk::Tile(_) = w {
            for i in 1..5 {
                idx[i] += 1;
                if idx[i] < be[i] {
                    break;
                }
                idx[i] = 0;
            }
        }
    }
}

/// The bound of dimension 0 for a store or reduction: the H100 writes a row's last 16-byte
/// chunk whole, so elements past the end of dimension 0 inside it are written too (measured
/// with generated tensor stores: a `u16` row of 14 elements also got elements 14 and 15; 10 of
/// 17 differing kernels of a batch agree with this rule and no recorded vector disagrees).
/// Loads fill those elements as usual (`tensor.2d.f16.padded`).
fn store_dim0(t: &TensorMap) -> u64 {
    let bits = t.elem.bits() as u64;
    t.elem.span(t.dims[0] as u64).div_ceil(16) * 128 / bits
}

fn reduce_type(e: ElemType) -> Option<Type> {
    Some(match e {
        ElemType::U32 => Type::U32,
        ElemType::S32 => Type::S32,
        ElemType::U64 => Type::U64,
        ElemType::S64 => Type::S64,
        ElemType::F16 => Type::F16,
        ElemType::Bf16 => Type::Bf16,
        ElemType::F32 | ElemType::F32Ftz => Type::F32,
        ElemType::F64 => Type::F64,
        _ => return None,
    })
}

/// `cp.async.bulk.tensor` and `cp.reduce.async.bulk.tensor`
pub fn tensor(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let dim = dim_of(x)?;
    let mode = Mode::of(x);
    let to_global = x.d.space == Some(Space::Global);
    if to_global {
        return store(x, dim, mode);
    }
    let cluster = x.d.space == Some(Space::SharedCluster);
    let multicast = x.has(Flag::MulticastCluster);
    let pair = x.has(Flag::CtaGroup2);
    // `[dst], [tensorMap, coords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}`
    let [dst, to, mbar] = x.ops();
    let info = mode.has_info().then(|| x.d.opnds.get(3)).flatten();
    let mask_at = 3 + mode.has_info() as usize;
    for l in lanes(x.emask) {
        let da = x.addr(dst, l)?;
        let (t, start, gmap) = map_and_coords(x, to, dim, mode, l)?;
        let w = walk(x, &t, mode, start, info, l)?;
        check_direction(x, &t, Direction::Load, l)?;
        let lay = Layout::new(w.rows(&t), &t);
        let ma = x.addr(mbar, l)?;
        let mask = if multicast {
            let o = x.d.opnds.get(mask_at).ok_or_else(|| {
                x.unsupported("a .multicast::cluster tensor copy without its ctaMask")
            })?;
            Some(x.get(o, l)?)
        } else {
            None
        };
        let total = lay.bytes();
        let extent = lay.extent();
        if da % 16 != 0 {
            return Err(x.undefined(
                l,
                format!("tensor copy destination {da:#x} is not 16-byte aligned (PTX ISA 5.5.3.1)"),
            ));
        }
        if da % 128 != 0 {
            // An H200 faults with a misaligned address for every tensor copy whose shared
            // side is not 128-byte aligned, swizzled or not (`tools/hwvectors/hopper.py
            // --family swzalign`: offsets 16 to 96 of every swizzle span; `--family tmaalign`:
            // tile, im2col and interleaved loads, stores and tile reductions at offsets 16,
            // 32, 64 and 96, every one, while 128 and 256 run; `fuzz/oracles/examples/
            // tensor_probe.rs`, family `Beyond`: 12 of 12 tile loads).
            return Err(x.fault(
                FaultKind::Misaligned,
                AddrSpace::Shared,
                da,
                extent as usize,
                l,
            ));
        }
        // With cta_group::2 the mbarrier may be in the destination's peer CTA.
        let sd = match shared_dest(x, l, da, ma, extent as u32, cluster, false, mask) {
            Err(Error::Undefined { .. }) if pair && mask.is_none() => {
                let sp = if cluster {
                    AddrSpace::SharedCluster
                } else {
                    AddrSpace::Shared
                };
                let (dr, doff) = x.shared_loc(sp, da, extent as usize, l, !cluster)?;
                let (mr, moff) = x.shared_loc(sp, ma, 8, l, false)?;
                if mr != dr ^ 1 {
                    return Err(x.undefined(l, "with .cta_group::2 the mbarrier must be in the destination CTA or its peer (PTX ISA 9.7.9.27.1.2)"));
                }
                super::bulk::SharedDest {
                    dests: vec![(dr, doff)],
                    mbars: vec![(mr, moff)],
                }
            }
            r => r?,
        };
        // Gather the rows.
        let mut boxb = vec![0u8; total as usize];
        let mut srcs: Vec<Src> = Vec::new();
        let mut fault = None;
        {
            let global = &mut x.m.global;
            for_runs(&w, &t, t.dims[0] as u64, |boff, n, g| {
                let len = n as usize;
                let dst = &mut boxb[boff as usize..boff as usize + len];
                match g {
                    Some(go) => {
                        let a = t.addr.wrapping_add(go);
                        match global.read(a, len) {
                            Ok(s) => dst.copy_from_slice(s),
                            Err(_) => {
                                fault.get_or_insert(a);
                            }
                        }
                        match srcs.last_mut() {
                            Some(Src::Global { addr, len: sl }) if *addr + *sl == a => {
                                *sl += len as u64
                            }
                            _ => srcs.push(Src::Global {
                                addr: a,
                                len: len as u64,
                            }),
                        }
                    }
                    None => {
                        // Only floating-point types, whole bytes each, have NaN fill.
                        if t.nan_fill {
                            let v = t.elem.nan_fill();
                            for e in dst.chunks_mut(t.elem.bits() as usize / 8) {
                                mem::put_le(e, v);
                            }
                        }
                    }
                }
            });
        }
        if let Some(a) = fault {
            return Err(x.undefined(
                l,
                format!(
                    "the tensor map describes global memory at {a:#x}, outside every allocation"
                ),
            ));
        }
        super::proxy::check_reads(x, l, &srcs)?;
        if let Some(g) = gmap {
            srcs.push(Src::Global { addr: g, len: 128 });
        }
        let mut parts = Vec::new();
        for (&(rank, off), &mb) in sd.dests.iter().zip(&sd.mbars) {
            for (k, (o, data)) in lay.pieces(off, &boxb).into_iter().enumerate() {
                parts.push(Part {
                    dest: Loc::Shared { rank, off: o },
                    data,
                    byte_mask: None,
                    reduce: None,
                    mbar: (k == 0).then_some(mb),
                    tx: if k == 0 { total as u32 } else { 0 },
                });
            }
        }
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs,
        };
        inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
    }
    Ok(Flow::Next)
}

/// Which way a tensor copy moves data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Direction {
    Load,
    Store,
    Reduce,
}

/// The rules of PTX ISA 9.7.9.25.5.1 that depend on the direction: no sub-byte type in a
/// reduction, no `.b4x16_p64` store, the 8-byte flip for global-to-shared copies only; and
/// `cuTensorMapEncodeTiled`'s "Store only" for `16U6_ALIGN16B` with 64-byte atoms.
fn check_direction(x: &Ctx<'_, '_>, t: &TensorMap, d: Direction, l: usize) -> Result<(), Error> {
    let name = t.elem.name();
    let why = match d {
        Direction::Reduce if t.elem.is_sub_byte() => format!(
            "cp.reduce.async.bulk.tensor does not take the sub-byte type .{name} (PTX ISA 9.7.9.25.5.1)"
        ),
        Direction::Store if t.elem == ElemType::B4x16P64 => {
            "a .global.shared::cta tensor copy does not take .b4x16_p64 (PTX ISA 9.7.9.25.5.1)"
                .to_string()
        }
        Direction::Store | Direction::Reduce if t.atom == Atom::B32Flip8 => {
            "the 128-byte swizzle with 32-byte atoms and the 8-byte flip is for global-to-shared copies only (PTX ISA 9.7.9.25.5.1)".to_string()
        }
        Direction::Load if t.elem == ElemType::B6x16P32 && t.atom == Atom::B64 => {
            "a 16U6_ALIGN16B (.b6x16_p32) map with 64-byte swizzle atoms is for stores only (cuTensorMapEncodeTiled)".to_string()
        }
        _ => return Ok(()),
    };
    Err(x.undefined(l, why))
}

/// The rules of the `.global.shared::cta` direction (PTX ISA 9.7.9.27.1.1): non-negative
/// coordinates, and for im2col non-negative lower and non-positive upper corners (the H200
/// traps otherwise, even when no row would leave the tensor).
fn check_store(x: &Ctx<'_, '_>, t: &TensorMap, w: &Walk, l: usize) -> Result<(), Error> {
    let rule =
        "the .global.shared::cta direction needs non-negative coordinates (PTX ISA 9.7.9.27.1.1)";
    let bad = |what: String| Err(x.undefined(l, format!("tensor store {what}; {rule}")));
    match *w {
        Walk::Tile(c) | Walk::Im2col(c, _) | Walk::Wide(c, ..) => {
            if let Some(i) = (0..t.rank as usize).find(|&i| c[i] < 0) {
                return bad(format!("coordinate {i} is negative ({})", c[i]));
            }
        }
        Walk::Four(col, rows) => {
            if col < 0 || rows.iter().any(|&r| r < 0) {
                return bad(format!(
                    "coordinates {col}, {rows:?} include a negative one"
                ));
            }
        }
    }
    if let (Walk::Im2col(..), Some(i)) = (w, t.im2col) {
        for k in 0..t.rank as usize - 2 {
            if i.lower[k] < 0 || i.upper[k] > 0 {
                return bad(format!(
                    "with pixel box corners {} and {} in spatial dimension {k} (lower corners must be non-negative and upper ones non-positive)",
                    i.lower[k], i.upper[k]
                ));
            }
        }
    }
    Ok(())
}

fn store(x: &mut Ctx<'_, '_>, dim: usize, mode: Mode) -> Result<Flow, Error> {
    let reduce = x.d.op == Opcode::CpReduceAsyncBulkTensor;
    let red_op = if reduce {
        Some(
            x.d.oper
                .ok_or_else(|| x.unsupported("reduction without an operation"))?,
        )
    } else {
        None
    };
    // `[tensorMap, coords], [src]{, cache-policy}`
    let [to, src] = x.ops();
    for l in lanes(x.emask) {
        let (t, start, gmap) = map_and_coords(x, to, dim, mode, l)?;
        let w = walk(x, &t, mode, start, None, l)?;
        check_store(x, &t, &w, l)?;
        let dir = if red_op.is_some() {
            Direction::Reduce
        } else {
            Direction::Store
        };
        check_direction(x, &t, dir, l)?;
        let lay = Layout::new(w.rows(&t), &t);
        let red = match red_op {
            Some(op) => Some(Reduce {
                op,
                ty: reduce_type(t.elem).ok_or_else(|| {
                    x.undefined(
                        l,
                        format!(
                            "a tensor reduction on .{} elements (cp.reduce.async.bulk.tensor \
                             reduces 16-, 32- and 64-bit integer and float elements only, \
                             PTX ISA 9.7.9.25.5.2)",
                            t.elem.name()
                        ),
                    )
                })?,
            }),
            None => None,
        };
        // The ISA's reduction types have `add` on `.u64` and the bitwise operations on `.b64`,
        // not on signed 64-bit elements; the H100 stops such a copy with an illegal
        // instruction (probes `tred.s64.*`: add/and/or/xor trap, min/max run).
        if let Some(r) = &red {
            use ptx_ir_core::Op as R;
            if r.ty == Type::S64 && !matches!(r.op, R::Min | R::Max) {
                return Err(x.undefined(
                    l,
                    format!(
                        "tensor reduction .{} on a tensor map of .s64 elements (only min and max take .s64; the H100 traps)",
                        r.op.as_str()
                    ),
                ));
            }
        }
        let sa = x.addr(src, l)?;
        let (total, extent) = (lay.bytes(), lay.extent());
        if sa % 16 != 0 {
            return Err(x.undefined(
                l,
                format!("tensor copy source {sa:#x} is not 16-byte aligned (PTX ISA 5.5.3.1)"),
            ));
        }
        if sa % 128 != 0 {
            // As a load to such an address faults on an H200 (`hopper.py --family tmaalign`:
            // tile, im2col and interleaved stores and tile reductions, every unaligned one).
            return Err(x.fault(
                FaultKind::Misaligned,
                AddrSpace::Shared,
                sa,
                extent as usize,
                l,
            ));
        }
        let (rank, off) = x.shared_loc(AddrSpace::Shared, sa, extent as usize, l, true)?;
        // Read the rows (unpadding, unswizzling).
        let mut boxb = vec![0u8; total as usize];
        lay.gather(&x.cl.shared[rank as usize], off as u64, t.elem, &mut boxb);
        let mut parts = Vec::new();
        let mut bad = None;
        {
            let global = &mut x.m.global;
            for_runs(&w, &t, store_dim0(&t), |boff, n, g| {
                if let Some(go) = g {
                    let a = t.addr.wrapping_add(go);
                    let len = n as usize;
                    if global.check(a, len).is_err() {
                        bad.get_or_insert(a);
                    }
                    parts.push(Part {
                        dest: Loc::Global(a),
                        data: boxb[boff as usize..boff as usize + len].to_vec(),
                        byte_mask: None,
                        reduce: red,
                        mbar: None,
                        tx: 0,
                    });
                }
            });
        }
        if let Some(a) = bad {
            return Err(x.undefined(
                l,
                format!(
                    "the tensor map describes global memory at {a:#x}, outside every allocation"
                ),
            ));
        }
        let mut srcs = vec![Src::Shared {
            rank,
            off,
            len: extent as u32,
        }];
        super::proxy::check_reads(x, l, &srcs)?;
        if let Some(g) = gmap {
            srcs.push(Src::Global { addr: g, len: 128 });
        }
        let op = Op {
            id: 0,
            issuer: issuer(x, l),
            parts,
            srcs,
        };
        let id = inflight::issue(x.m, x.cl, op).map_err(|r| x.undefined(l, r))?;
        let k = key(x, l);
        x.cl.inflight.groups(true, k).uncommitted.push(id);
    }
    Ok(Flow::Next)
}

/// `cp.async.bulk.prefetch.tensor`: checks the tensor map, coordinates and im2col values; no
/// cache is modelled.
pub fn prefetch(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let dim = dim_of(x)?;
    let mode = Mode::of(x);
    // `[tensorMap, coords]{, im2colInfo}{, cache-policy}`
    let [to] = x.ops();
    let info = mode.has_info().then(|| x.d.opnds.get(1)).flatten();
    for l in lanes(x.emask) {
        let (t, start, _) = map_and_coords(x, to, dim, mode, l)?;
        walk(x, &t, mode, start, info, l)?;
    }
    Ok(Flow::Next)
}

/// `tensormap.replace.tile.FIELD{.ss}.b1024.type [addr], {ord,} new_val`: rewrites one field of
/// the tensor map at `addr` ([`crate::tmap::replace`]), a weak write of the object.
pub fn replace(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    use crate::tmap::Field;
    let fields = [
        (Flag::GlobalAddress, Field::GlobalAddress),
        (Flag::Rank, Field::Rank),
        (Flag::BoxDim, Field::BoxDim),
        (Flag::GlobalDim, Field::GlobalDim),
        (Flag::GlobalStride, Field::GlobalStride),
        (Flag::ElementStride, Field::ElementStride),
        (Flag::Elemtype, Field::Elemtype),
        (Flag::InterleaveLayout, Field::InterleaveLayout),
        (Flag::SwizzleMode, Field::SwizzleMode),
        (Flag::SwizzleAtomicity, Field::SwizzleAtomicity),
        (Flag::FillMode, Field::FillMode),
    ];
    let field = fields
        .iter()
        .find(|(f, _)| x.has(*f))
        .map(|(_, f)| *f)
        .ok_or_else(|| x.unsupported("tensormap.replace without a field"))?;
    let n = x.d.opnds.len();
    let addr_o = &x.d.opnds[0];
    let space = AddrSpace::of(x.d.space);
    let wide = x.types().last() == Some(&Type::B64);
    for l in lanes(x.emask) {
        let a = x.addr(addr_o, l)?;
        let ord = if n == 3 {
            x.get(&x.d.opnds[1], l)? as u32
        } else {
            0
        };
        let mut v = x.get(&x.d.opnds[n - 1], l)?;
        if !wide {
            v &= 0xffff_ffff;
        }
        let mut b = [0u8; 128];
        x.access(space, a, 128, 64, l, false, |m| b.copy_from_slice(m))?;
        crate::tmap::replace(&mut b, field, ord, v).map_err(|e| x.undefined(l, e))?;
        x.access(space, a, 128, 64, l, true, |m| m.copy_from_slice(&b))?;
    }
    Ok(Flow::Next)
}

/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
/// [dst], [src], 128`: copies the tensor map from shared to global memory. The release fence
/// it adds orders the copy before later tensormap-proxy reads, which every access here is.
pub fn cp_fenceproxy(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [dst, src, size] = x.ops();
    for l in lanes(x.emask) {
        let n = x.get(size, l)?;
        if n != 128 {
            return Err(x.undefined(
                l,
                format!(
                    "tensormap.cp_fenceproxy size {n}: the valid value is 128 (PTX ISA 9.7.13.16)"
                ),
            ));
        }
        let (d, s) = (x.addr(dst, l)?, x.addr(src, l)?);
        let mut b = [0u8; 128];
        x.access(AddrSpace::Shared, s, 128, 64, l, false, |m| {
            b.copy_from_slice(m)
        })?;
        x.access(AddrSpace::Global, d, 128, 64, l, true, |m| {
            m.copy_from_slice(&b)
        })?;
    }
    Ok(Flow::Next)
}
