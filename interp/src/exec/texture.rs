//! Texture and surface instructions: `tex`, `tld4`, `txq`, `istypep`, `suld`, `sust`, `sured`,
//! `suq` on the launch's texture and surface objects ([`crate::texture`]).
//!
//! Texels live in global memory (the buffer the object was made over), so that surface stores
//! are ordinary global stores and a texture reads what the buffer holds.

use super::ctx::{lanes, AddrSpace, Ctx};
use super::flow::Flow;
use super::state::Image;
use crate::code::Opnd;
use crate::error::{Error, FaultKind};
use crate::exec::Arg;
use crate::float::{self, Fmt};
use crate::load::OpaqueVar;
use crate::lod::to_texels;
use crate::texture::{self as tx, AddrMode, Layout, SurfaceArg, TextureArg};
use ptx_ir_core::{Dim, Flag, OpaqueField, OpaqueMember, Rounding, Type, Vector};

/// The object a handle names, if it is one of this launch's (`imgs`) of the wanted kind.
fn object(imgs: &[Image], h: u64, surface: bool) -> Option<&Image> {
    if h & !(tx::SURFACE_BIT | 0xffff_ffff) != tx::HANDLE_TAG {
        return None;
    }
    if (h & tx::SURFACE_BIT != 0) != surface {
        return None;
    }
    imgs.get((h & 0xffff_ffff) as usize)
}

/// The module-scope opaque variable at address `a`, if `a` is one's.
fn opaque_var<'p>(x: &Ctx<'_, 'p>, a: u64) -> Option<&'p OpaqueVar> {
    let prog: &'p crate::load::Program = x.m.prog;
    prog.opaque.iter().find(|v| v.addr == a)
}

/// The handle an object operand's value `h` stands for: `h` itself, or, where `h` is the
/// address of a module-scope `.texref`/`.surfref` (`want`), the handle of the object the
/// launch bound to it (stored in the variable by [`crate::exec::Launch::bind`]). An unbound
/// reference, or a variable of another opaque type, is undefined.
fn bound(x: &mut Ctx<'_, '_>, h: u64, want: Type, l: usize) -> Result<u64, Error> {
    let Some(v) = opaque_var(x, h) else {
        return Ok(h);
    };
    if v.ty != want {
        return Err(x.undefined(
            l,
            format!(
                "`{}` is a `.{}` variable, where the instruction takes a `.{}`",
                v.name,
                v.ty.as_str(),
                want.as_str()
            ),
        ));
    }
    let handle = match x.m.global.read(h, 8) {
        Ok(b) => crate::mem::get_le(b),
        Err(k) => return Err(x.fault(k, AddrSpace::Global, h, 8, l)),
    };
    if handle == 0 {
        let (what, spec) = if want == Type::Texref {
            ("texture", "tex")
        } else {
            ("surface", "surf")
        };
        return Err(x.undefined(
            l,
            format!(
                "`.{}` `{}` is not bound to a {what} (bind one with `Launch::bind` or \
                 `ptx run --bind {}={spec}:...`)",
                want.as_str(),
                v.name,
                v.name
            ),
        ));
    }
    Ok(handle)
}

/// The members of the `.samplerref` variable at address `s` (a `tex`/`tld4` sampler operand).
fn sampler_of<'p>(x: &Ctx<'_, 'p>, s: u64, l: usize) -> Result<&'p [OpaqueField], Error> {
    match opaque_var(x, s) {
        Some(v) if v.ty == Type::Samplerref => Ok(&v.fields),
        Some(v) => Err(x.undefined(
            l,
            format!(
                "the sampler operand `{}` is a `.{}` variable, not a `.samplerref`",
                v.name,
                v.ty.as_str()
            ),
        )),
        None => Err(x.undefined(
            l,
            format!("the sampler operand {s:#x} is not a `.samplerref` variable of the module"),
        )),
    }
}

/// The texture `t` as sampled with the sampler operand `samp`, if the instruction has one
/// (PTX ISA 9.7.10.3: "If no sampler is specified, the sampler behavior is a property of the
/// named texture").
fn sampled<'t>(
    x: &Ctx<'_, '_>,
    t: &'t TextureArg,
    samp: Option<&Opnd>,
    l: usize,
) -> Result<std::borrow::Cow<'t, TextureArg>, Error> {
    let Some(so) = samp else {
        return Ok(std::borrow::Cow::Borrowed(t));
    };
    let fields = sampler_of(x, x.get(so, l)?, l)?;
    match t.with_sampler(fields) {
        Ok(c) => Ok(std::borrow::Cow::Owned(c)),
        Err(tx::Combine::Undefined(e)) => Err(x.undefined(l, e)),
        Err(tx::Combine::Unsupported(e)) => Err(x.unsupported(e)),
    }
}

/// The texture a handle names. The handlers take the launch's objects (`x.m.images`, shared)
/// once per instruction, so that an object is borrowed, not copied, while the lanes run.
fn texture<'a>(
    x: &mut Ctx<'_, '_>,
    imgs: &'a [Image],
    h: u64,
    l: usize,
) -> Result<(&'a TextureArg, u64), Error> {
    let h = bound(x, h, Type::Texref, l)?;
    match object(imgs, h, false) {
        Some(Image {
            base,
            arg: Arg::Texture(t),
        }) => Ok((t, *base)),
        _ => Err(x.undefined(
            l,
            format!(
                "{h:#x} is not a texture object of this launch (pass one with a `tex:` argument)"
            ),
        )),
    }
}

/// The surface a handle names (see [`texture`]).
fn surface<'a>(
    x: &mut Ctx<'_, '_>,
    imgs: &'a [Image],
    h: u64,
    l: usize,
) -> Result<(&'a SurfaceArg, u64), Error> {
    let h = bound(x, h, Type::Surfref, l)?;
    match object(imgs, h, true) {
        Some(Image {
            base,
            arg: Arg::Surface(s),
        }) => Ok((s, *base)),
        _ => Err(x.undefined(
            l,
            format!(
                "{h:#x} is not a surface object of this launch (pass one with a `surf:` argument)"
            ),
        )),
    }
}

/// `[a, c]` or `[a, b, c]`: the object, the sampler if any, the coordinate operands.
fn tuple<'p>(x: &Ctx<'_, 'p>) -> Result<(&'p Opnd, &'p [Opnd]), Error> {
    tuple_sampler(x).map(|(h, _, c)| (h, c))
}

/// [`tuple`] with the sampler operand `b` of `[a, b, c]`.
#[allow(clippy::type_complexity)]
fn tuple_sampler<'p>(x: &Ctx<'_, 'p>) -> Result<(&'p Opnd, Option<&'p Opnd>, &'p [Opnd]), Error> {
    let d: &'p crate::code::DInst = x.d;
    let t = match d.opnds.get(
        if matches!(d.op, ptx_ir_core::Opcode::Sust | ptx_ir_core::Opcode::Sured) {
            0
        } else {
            1
        },
    ) {
        Some(Opnd::Tuple(t)) => t,
        _ => return Err(x.unsupported("operand is not `[object, {coordinates}]`")),
    };
    match &t[..] {
        [h, Opnd::Vec(c)] => Ok((h, None, c)),
        [h, b, Opnd::Vec(c)] => Ok((h, Some(b), c)),
        [h, c] => Ok((h, None, std::slice::from_ref(c))),
        [h, b, c] => Ok((h, Some(b), std::slice::from_ref(c))),
        _ => Err(x.unsupported("operand is not `[object, {coordinates}]`")),
    }
}

/// Coordinates of one lane: the plane (layer, cube face, or sample), the float or integer
/// coordinates in texel units, and how many dimensions are filtered.
struct Coords {
    plane: u64,
    u: [f32; 3],
    i: [i64; 3],
    n: usize,
    int: bool,
    /// The coordinates as given (a cube face's in [0, 1]), which the other mipmap levels
    /// scale to their own size.
    raw: [f32; 3],
    /// `raw` is normalized (else in texels).
    normalized: bool,
    /// The sample of a multi-sample fetch.
    sample: Option<u32>,
    /// A cube map's face coordinates in [0, 1], exactly as the texture unit forms them
    /// ([`tx::cube_face`]; they need more bits than an `f32` has).
    face: Option<[f64; 2]>,
}

impl Coords {
    /// The float coordinates in texels of mipmap level `level` of `t`.
    fn at(&self, t: &Layout, level: u32) -> [f32; 3] {
        if level == 0 {
            return self.u;
        }
        let d = t.level_dims(level);
        let mut u = [0f32; 3];
        for k in 0..self.n {
            // Mipmapped textures read normalized coordinates (`settle`).
            u[k] = self.raw[k] * d[k] as f32;
        }
        u
    }
}

fn coords(
    x: &Ctx<'_, '_>,
    t: &Layout,
    sm: Option<&tx::Sampler>,
    c: &[Opnd],
    int: bool,
    l: usize,
) -> Result<Coords, Error> {
    let geom = x.d.dim.ok_or_else(|| x.unsupported("no geometry"))?;
    let w = |k: usize| -> Result<u32, Error> {
        match c.get(k) {
            Some(o) => Ok(x.get(o, l)? as u32),
            None => Err(x.unsupported("too few coordinates for the geometry")),
        }
    };
    let (first, n, layered, cube) = match geom {
        Dim::D1 => (0, 1, false, false),
        Dim::D2 => (0, 2, false, false),
        Dim::D3 => (0, 3, false, false),
        Dim::A1d => (1, 1, true, false),
        Dim::A2d => (1, 2, true, false),
        Dim::Cube => (0, 3, false, true),
        Dim::Acube => (1, 3, true, true),
        // The sample (and before it the layer) precede x and y (PTX ISA 9.7.10.3).
        Dim::D2ms => (1, 2, false, false),
        Dim::A2dms => (2, 2, true, false),
        _ => return Err(x.unsupported("geometry")),
    };
    let ms = matches!(geom, Dim::D2ms | Dim::A2dms);
    let want_rank = if cube { 2 } else { n as u32 };
    if t.rank != want_rank || (t.layers > 0) != layered || t.cube != cube || (t.samples > 0) != ms {
        let what = if t.samples > 0 { ", multi-sample" } else { "" };
        return Err(x.undefined(
            l,
            format!(
                "the instruction's .{} geometry does not match the object ({}D{}{}{what})",
                geom.as_str(),
                t.rank,
                if t.layers > 0 { ", layered" } else { "" },
                if t.cube { ", cube" } else { "" }
            ),
        ));
    }
    let mut plane = if layered { w(0)? as u64 } else { 0 };
    if layered {
        // Out-of-range layers read the last one.
        plane = plane.min(t.layers as u64 - 1);
    }
    let mut out = Coords {
        plane,
        u: [0.0; 3],
        i: [0; 3],
        n,
        int,
        raw: [0.0; 3],
        normalized: sm.is_some_and(|s| s.normalized_coords),
        sample: if ms { Some(w(first - 1)?) } else { None },
        face: None,
    };
    if cube {
        let v: Vec<f32> = (0..3)
            .map(|k| w(first + k).map(f32::from_bits))
            .collect::<Result<_, _>>()?;
        let (face, s, tc) = tx::cube_face(v[0], v[1], v[2]);
        out.plane = 6 * out.plane + face as u64;
        out.u = [
            (s * t.dims[0] as f64) as f32,
            (tc * t.dims[1] as f64) as f32,
            0.0,
        ];
        out.raw = [s as f32, tc as f32, 0.0];
        out.face = Some([s, tc]);
        out.normalized = true;
        out.n = 2;
        return Ok(out);
    }
    for k in 0..n {
        let b = w(first + k)?;
        if int {
            out.i[k] = b as i32 as i64;
        } else {
            let f = f32::from_bits(b);
            out.raw[k] = f;
            out.u[k] = match sm {
                Some(s) if s.normalized_coords => f * t.dims[k] as f32,
                _ => f,
            };
        }
    }
    Ok(out)
}

/// `n` bytes of global memory at `a`.
fn read_global(x: &mut Ctx<'_, '_>, a: u64, n: usize, l: usize) -> Result<Vec<u8>, Error> {
    match x.m.global.read(a, n) {
        Ok(b) => Ok(b.to_vec()),
        Err(k) => Err(x.fault(k, AddrSpace::Global, a, n, l)),
    }
}

/// Where a texel is: the object, its buffer's address, the plane and the mipmap level.
#[derive(Copy, Clone)]
struct Place<'t> {
    t: &'t TextureArg,
    base: u64,
    plane: u64,
    level: u32,
}

/// The raw bytes of the texel at integer coordinates `i` (before addressing) of a place, or
/// of the border colour.
fn corner_bytes(
    x: &mut Ctx<'_, '_>,
    at: Place<'_>,
    i: [i64; 3],
    n: usize,
    l: usize,
) -> Result<[u8; 16], Error> {
    let t = at.t;
    let dims = t.layout.level_dims(at.level);
    let mut pos = [0u32; 3];
    for k in 0..n {
        let mode = if t.layout.cube {
            AddrMode::Clamp
        } else {
            t.sampler.addr[k]
        };
        match tx::address(i[k], dims[k], mode) {
            Some(v) => pos[k] = v,
            None => return Ok(tx::border_bytes(t)),
        }
    }
    let (a, n) = (
        at.base + t.layout.level_offset(at.level, at.plane, pos),
        t.layout.texel_bytes() as usize,
    );
    let mut b = [0u8; 16]; // a texel is at most four 32-bit channels
    match x.m.global.read(a, n) {
        Ok(m) => b[..n].copy_from_slice(m),
        Err(k) => return Err(x.fault(k, AddrSpace::Global, a, n, l)),
    }
    Ok(b)
}

/// The texel at integer coordinates `i` of a place, or the border, in the result domain.
fn corner(
    x: &mut Ctx<'_, '_>,
    at: Place<'_>,
    i: [i64; 3],
    n: usize,
    l: usize,
) -> Result<[u32; 4], Error> {
    let b = corner_bytes(x, at, i, n, l)?;
    Ok(tx::convert_texel(at.t, &b))
}

/// One fetch at level of detail `lod`: the four channels in the result domain. A texture
/// without mipmaps reads its one level. A mipmapped one reads the level or the two levels
/// [`tx::Mip::levels`] picks; with two, their texels are weighed by the level weight split
/// as the filter splits it ([`tx::weights_of`]) and summed once, as a 3D texture's slices are.
#[allow(clippy::too_many_arguments)]
fn fetch(
    x: &mut Ctx<'_, '_>,
    t: &TextureArg,
    base: u64,
    c: &Coords,
    offset: [i64; 3],
    lod: tx::Lod,
    l: usize,
) -> Result<[u32; 4], Error> {
    let levels = if t.layout.levels > 1 {
        t.sampler
            .mip
            .levels(t.sampler.mip.lod(lod, t.layout.levels))
    } else {
        smallvec::smallvec![(0, 256)]
    };
    let place = |level| Place {
        t,
        base,
        plane: c.plane,
        level,
    };
    if let Some(s) = c.sample {
        return sample_fetch(x, t, base, c, s, offset, l);
    }
    if c.int {
        // Integer coordinates (measured on an H200): a 1D fetch reads linear memory only (an
        // array reads 0); elsewhere they name the texel (its centre, which filtering returns
        // unchanged). Out of range reads 0 whatever the address mode. `tex.level` of a
        // mipmapped texture reads the level it names (0 outside the levels) at coordinates
        // clamped to that level, whatever the address mode (`mipmap.jsonl.xz`, `mipint.*`).
        let mut i = c.i;
        for k in 0..c.n {
            i[k] += offset[k];
        }
        if let (true, tx::Lod::Index(level)) = (t.layout.levels > 1, lod) {
            if !(0..t.layout.levels as i64).contains(&level) {
                return Ok([0; 4]);
            }
            let dims = t.layout.level_dims(level as u32);
            for k in 0..c.n {
                i[k] = i[k].clamp(0, dims[k] as i64 - 1);
            }
            if c.n == 1 && !t.layout.linear_memory {
                return Ok([0; 4]);
            }
            return corner(x, place(level as u32), i, c.n, l);
        }
        let inside = (0..c.n).all(|k| (0..t.layout.dims[k] as i64).contains(&i[k]));
        if !inside || (c.n == 1 && !t.layout.linear_memory) {
            return Ok([0; 4]);
        }
        return corner(x, place(0), i, c.n, l);
    }
    if t.layout.linear_memory {
        // Float coordinates on linear memory read 0, whatever the form, filtering or
        // `maxAnisotropy` (H200, `corpus/vectors/linaniso.jsonl.xz`).
        return Ok([0; 4]);
    }
    if let tx::Lod::Aniso(g) = lod {
        return aniso_fetch(x, place(0), c, offset, &levels, &g, l);
    }
    if !t.sampler.linear && levels.len() == 1 {
        let u = c.at(&t.layout, levels[0].0);
        let mut i = point_at(c, &t.layout, levels[0].0, &u);
        for k in 0..c.n {
            i[k] += offset[k];
        }
        return corner(x, place(levels[0].0), i, c.n, l);
    }
    // Two levels of a 3D footprint at most: 16 texels, kept inline (no allocation per lane).
    let mut ws: smallvec::SmallVec<[i64; 16]> = smallvec::SmallVec::new();
    let mut ts: smallvec::SmallVec<[[u8; 16]; 16]> = smallvec::SmallVec::new();
    for (level, wl) in levels {
        let u = c.at(&t.layout, level);
        if !t.sampler.linear {
            let mut i = point_at(c, &t.layout, level, &u);
            for k in 0..c.n {
                i[k] += offset[k];
            }
            ws.push(wl << 8);
            ts.push(corner_bytes(x, place(level), i, c.n, l)?);
            continue;
        }
        let ogl = |k: usize| !t.layout.cube && t.sampler.addr[k] == tx::AddrMode::ClampOgl;
        let (mut i0, mut fr) = footprint_at(c, &t.layout, level, &u, offset, ogl);
        // Clamped dimensions clamp the filter's coordinate, not only the texel index: outside
        // the range the fraction is 0 (measured: `corpus/vectors/texw3dclamp.jsonl.xz`,
        // one-hot texels at the edges of a 3D texture; the weights' rounding shows the
        // difference). A cube map's faces clamp so too.
        let seamless = t.layout.cube && t.sampler.seamless;
        {
            let dims = t.layout.level_dims(level);
            for k in 0..c.n {
                let clamp = if t.layout.cube {
                    !seamless
                } else {
                    t.sampler.addr[k] == tx::AddrMode::Clamp
                };
                if clamp {
                    let hi = (dims[k] as i64 - 1) * 256;
                    let q = (i0[k] * 256 + fr[k]).clamp(0, hi.max(0));
                    i0[k] = q.div_euclid(256);
                    fr[k] = q.rem_euclid(256);
                }
            }
        }
        let mut w = tx::weights_of(wl, &fr[..c.n]);
        if seamless {
            let (texels, corner) = seamless_footprint(x, place(level), i0, l)?;
            if let Some(k) = corner {
                tx::corner_weights(&mut w, k);
            }
            ws.extend(w);
            ts.extend(texels);
            continue;
        }
        ws.extend(w);
        for corner_bits in 0..(1usize << c.n) {
            let mut i = i0;
            for (k, v) in i.iter_mut().enumerate().take(c.n) {
                *v += (corner_bits >> k & 1) as i64;
            }
            ts.push(corner_bytes(x, place(level), i, c.n, l)?);
        }
    }
    let group = if t.sampler.linear { 1 << c.n } else { 1 };
    if c.n == 3 && !t.layout.cube && t.sampler.linear {
        // A 3D fetch sums its value as the anisotropic path sums taps: each z slice's four
        // texels (a bilinear tap, two per level) are truncated by their own largest and
        // their sum cut to the accumulator's last bit (set by the largest texel so far, each
        // level's two slices a group of taps) as it is added
        // (`tx::Runs::Taps`; H200, `iso3d.jsonl.xz` and `anisogeom.jsonl.xz`: every random
        // 3D fetch, with or without anisotropy; each level's texels summed exactly missed 9).
        let runs: smallvec::SmallVec<[usize; 4]> = smallvec::smallvec![4; ws.len() / 4];
        // Two slices per level read.
        let slices: smallvec::SmallVec<[u32; 4]> = (0..runs.len() as u32).map(|r| r / 2).collect();
        return Ok(tx::filter_in(
            t,
            &ws,
            &ts,
            tx::Runs::Taps(&runs, &slices),
            16,
        ));
    }
    Ok(tx::filter(t, &ws, &ts, group))
}

/// An anisotropic fetch (`tex.grad`, [`crate::aniso`]) of the 2D texture at `at` (its
/// level ignored) reading `levels`. With linear texel filtering each tap's position is the
/// coordinate less half a texel in 1/256 at its level's size plus the tap's offset (and
/// `offset` texels), clamped to the level in a clamped dimension, and its weight is split over
/// its four texels as a bilinear tap's (`anisofit.py`, `fetch_f32`); with point filtering the
/// tap reads, at its whole weight, the texel its position (the coordinate rounded down to
/// 1/256, plus the offset) falls in. Texels past the edge are addressed as the sampler says
/// (clamped, wrapped, mirrored or the border colour: `anisoaddr`); on a seamless cube map
/// past the face's edges onto the adjacent faces ([`seamless_tap`]). The taps of both levels
/// are summed once as [`tx::filter_in`] sums an anisotropic footprint ([`tx::Runs::Taps`]):
/// `f32` and `f16` texels each tap truncated by its own largest texel, each tap's sum
/// truncated to the accumulator's last bit; where the ratio is 1 (the two taps of a level
/// coincide) a level's taps are one (`ap6.rand#f16x2.*`: two fetches show it, none refutes it).
fn aniso_fetch(
    x: &mut Ctx<'_, '_>,
    at: Place<'_>,
    c: &Coords,
    offset: [i64; 3],
    levels: &crate::lod::Levels,
    g: &crate::aniso::Grad,
    l: usize,
) -> Result<[u32; 4], Error> {
    let t = at.t;
    let linear = t.sampler.linear;
    // A 1D texture reads as a 2D texture one texel high at y = 0, half a texel above its
    // texels' centre (so its taps, along x as both gradients are, take half their weight from
    // the row above, the border colour with border addressing); a cube map's taps lie on the
    // face the direction picks, clamped to it unless the map is seamless.
    let rank1 = t.layout.rank == 1;
    let mut ws: Vec<i64> = Vec::new();
    let mut ts: Vec<[u8; 16]> = Vec::new();
    // The taps' runs of texels (`tx::Runs::Taps`): one per tap, or one per level where the
    // footprint's ratio is 1 (its two taps coincide and are summed as one).
    let mut runs: Vec<usize> = Vec::new();
    // Each run's level (the taps are accumulated four at a time within a level).
    let mut run_levels: Vec<u32> = Vec::new();
    for lv in crate::aniso::footprint(g, levels) {
        let start = ts.len();
        let place = Place {
            level: lv.level,
            ..at
        };
        let dims = t.layout.level_dims(lv.level);
        let clamp = |k: usize, p: i64| {
            if t.layout.cube || t.sampler.addr[k] == tx::AddrMode::Clamp {
                p.clamp(0, (dims[k] as i64 - 1) * 256)
            } else {
                p
            }
        };
        // In 1/(256 * 1024): the split of a weight in 1/T is in 1/(256 T), T 512 or 1024.
        let scale = 1024 / lv.unit;
        let mut centre = [0i64; 2];
        for k in 0..2 {
            // Normalized coordinates scaled as the texture unit scales them: floored to 2^-21,
            // then multiplied exactly (`tx::scale`).
            let u = match c.face {
                Some(f) => tx::scale(f[k], dims[k]),
                None if rank1 && k == 1 => 0.0,
                None if c.normalized => tx::scale(c.raw[k] as f64, dims[k]),
                None => c.raw[k] as f64,
            };
            let p = if linear {
                crate::aniso::position(u)
            } else {
                crate::aniso::point_position(u)
            };
            centre[k] = p + offset[k].clamp(-(1 << 20), 1 << 20) * 256;
        }
        for tap in &lv.taps {
            let p = [centre[0] + tap.dx, centre[1] + tap.dy];
            if !linear {
                let i = [0, 1].map(|k| clamp(k, p[k]) >> 8);
                ws.push(tap.w * scale * 256);
                ts.push(corner_bytes(x, place, [i[0], i[1], 0], 2, l)?);
                runs.push(1);
                continue;
            }
            if t.layout.cube && t.sampler.seamless {
                let p = seamless_tap(p, dims[0] as i64);
                let mut w = tx::weights_of(tap.w, &[p[0] & 255, p[1] & 255]);
                let (texels, corner) = seamless_footprint(x, place, [p[0] >> 8, p[1] >> 8, 0], l)?;
                if let Some(k) = corner {
                    tx::corner_weights(&mut w, k);
                }
                ws.extend(w.into_iter().map(|wc| wc * scale));
                ts.extend(texels);
                runs.push(4);
                continue;
            }
            // A clamped dimension clamps the position; the others address each texel
            // (`corner_bytes`: wrapped, mirrored or the border).
            let p = [0, 1].map(|k| clamp(k, p[k]));
            let w = tx::weights_of(tap.w, &[p[0] & 255, p[1] & 255]);
            for (corner, wc) in w.into_iter().enumerate() {
                let i = [
                    (p[0] >> 8) + (corner & 1) as i64,
                    (p[1] >> 8) + (corner >> 1) as i64,
                    0,
                ];
                ws.push(wc * scale);
                ts.push(corner_bytes(x, place, i, 2, l)?);
            }
            runs.push(4);
        }
        if g.ratio == 0 {
            let n = lv.taps.len();
            runs.truncate(runs.len() - n);
            runs.push(ts.len() - start);
        }
        run_levels.resize(runs.len(), lv.level);
    }
    Ok(tx::filter_in(
        t,
        &ws,
        &ts,
        tx::Runs::Taps(&runs, &run_levels),
        18,
    ))
}

/// The position (in 1/256 texel, less half a texel) of a linear tap of an anisotropic
/// footprint on a seamless cube map's face of `n` x `n` texels. It is not clamped to the face:
/// its texels past an edge are the adjacent face's, as far in as they lie past it
/// ([`tx::cube_neighbor`]), and one past a corner of the cube has its weight spread as
/// seamless bilinear filtering spreads it. A tap whose footprint would hold two or more
/// texels past a corner has both coordinates clamped to `[-256, 256 n - 1]` (its lower texel
/// at least one before the face, its upper one at most one past it: then it holds one such
/// texel at most). H200 (`corpus/vectors/seamcorner2.jsonl.xz`, `seamcornerprobe.jsonl.xz`:
/// impulse probes at the four corners of a face, every weight; docs/INTERP.md "Anisotropic
/// filtering").
fn seamless_tap(p: [i64; 2], n: i64) -> [i64; 2] {
    let out = |v: i64| !(0..n).contains(&v);
    let past_corner = (0..4)
        .filter(|&c| out((p[0] >> 8) + (c & 1)) && out((p[1] >> 8) + (c >> 1)))
        .count();
    if past_corner >= 2 {
        p.map(|v| v.clamp(-256, n * 256 - 1))
    } else {
        p
    }
}

/// The four texels of a seamless cube map's bilinear footprint with lower corner `i0` on the
/// face of `at`: a texel past one edge of the face is the adjacent face's
/// ([`tx::cube_neighbor`]); the one past a corner of the cube, where three faces meet and no
/// face has it, is returned as its index (its weight goes to the others:
/// [`tx::corner_weights`]).
fn seamless_footprint(
    x: &mut Ctx<'_, '_>,
    at: Place<'_>,
    i0: [i64; 3],
    l: usize,
) -> Result<([[u8; 16]; 4], Option<usize>), Error> {
    let n = at.t.layout.level_dims(at.level)[0] as i64;
    let (layer, face) = (at.plane / 6, (at.plane % 6) as u32);
    let mut ts = [[0u8; 16]; 4];
    let mut missing = None;
    for (k, t) in ts.iter_mut().enumerate() {
        let (i, j) = (i0[0] + (k & 1) as i64, i0[1] + (k >> 1) as i64);
        match tx::cube_neighbor(face, n, i, j) {
            Some((f, i, j)) => {
                let p = Place {
                    plane: layer * 6 + f as u64,
                    ..at
                };
                *t = corner_bytes(x, p, [i, j, 0], 2, l)?;
            }
            None => missing = Some(k),
        }
    }
    Ok((ts, missing))
}

/// A multi-sample fetch (`tex.2dms`, `tex.a2dms`): sample `s` of the texel the integer
/// coordinates name, 0 outside the texture as for other integer coordinates. The CUDA runtime
/// makes no multi-sample textures, so this follows the ISA's text, unmeasured; a sample the
/// texture lacks is undefined (the ISA does not say what it reads).
fn sample_fetch(
    x: &mut Ctx<'_, '_>,
    t: &TextureArg,
    base: u64,
    c: &Coords,
    s: u32,
    offset: [i64; 3],
    l: usize,
) -> Result<[u32; 4], Error> {
    if !c.int {
        return Err(x.undefined(l, "multi-sample textures take `.s32` coordinates"));
    }
    if s >= t.layout.samples {
        return Err(x.undefined(
            l,
            format!(
                "sample {s} of a texture of {} samples per texel",
                t.layout.samples
            ),
        ));
    }
    let i = [c.i[0] + offset[0], c.i[1] + offset[1]];
    if (0..2).any(|k| !(0..t.layout.dims[k] as i64).contains(&i[k])) {
        return Ok([0; 4]);
    }
    let a = base + t.layout.sample_offset(c.plane, i[0] as u32, i[1] as u32, s);
    let n = t.layout.texel_bytes() as usize;
    let mut b = [0u8; 16];
    b[..n].copy_from_slice(&read_global(x, a, n, l)?);
    Ok(tx::convert_texel(t, &b))
}

/// Coordinate `k` of `c` in texels of mipmap level `level` of `t` where it is normalized (a
/// cube map's face coordinate, or a normalized one), floored to `2^-21` and scaled exactly
/// ([`tx::scale`]: the product can take more bits than an `f32` has); `None` for an
/// unnormalized coordinate, whose `f32` value ([`Coords::at`]) is the texture unit's.
fn exact_at(c: &Coords, t: &Layout, level: u32, k: usize) -> Option<f64> {
    let d = t.level_dims(level)[k];
    match c.face {
        Some(st) => Some(tx::scale(st[k], d)),
        None if c.normalized => Some(tx::scale(c.raw[k] as f64, d)),
        None => None,
    }
}

/// The lower corner and the fractions (in 1/256) of the bilinear footprint of the coordinates
/// `c` at mipmap level `level` of `t` (`u`: [`Coords::at`] of that level), the texel
/// coordinates [`exact_at`] gives where it gives one. A dimension for which `ogl` holds
/// (`clamp_ogl`) first clamps its coordinate to the level's extent.
fn footprint_at(
    c: &Coords,
    t: &Layout,
    level: u32,
    u: &[f32; 3],
    offset: [i64; 3],
    ogl: impl Fn(usize) -> bool,
) -> ([i64; 3], [i64; 3]) {
    let d = t.level_dims(level);
    let mut i0 = [0i64; 3];
    let mut fr = [0i64; 3];
    for k in 0..c.n {
        let q = match exact_at(c, t, level, k) {
            Some(v) => {
                // A NaN normalized coordinate reads as 0 as the `f32` ones do (a cube map's face
                // coordinate quantizes to 0 itself).
                let v = if v.is_nan() && c.face.is_none() {
                    0.0
                } else {
                    v
                };
                let v = if ogl(k) { v.clamp(0.0, d[k] as f64) } else { v };
                tx::fixed_f64(v - 0.5)
            }
            None => {
                let v = if u[k].is_nan() { 0.0 } else { u[k] };
                let v = if ogl(k) { v.clamp(0.0, d[k] as f32) } else { v };
                tx::fixed(v - 0.5)
            }
        };
        i0[k] = q.div_euclid(256) + offset[k];
        fr[k] = q.rem_euclid(256);
    }
    (i0, fr)
}

/// The texel a point sample of the coordinates `c` reads at level `level` of `t`, per
/// dimension, before the offset (from [`exact_at`]'s texel coordinates where it gives them).
fn point_at(c: &Coords, t: &Layout, level: u32, u: &[f32; 3]) -> [i64; 3] {
    let mut i = [0i64; 3];
    for k in 0..c.n {
        i[k] = match exact_at(c, t, level, k) {
            Some(v) => tx::point_f64(v),
            None => tx::point(u[k]),
        };
    }
    i
}

/// The trailing operands of `tex`/`tld4` after the mipmap ones: the offset vector and the
/// depth-compare value.
fn offset_of(x: &Ctx<'_, '_>, rest: &[Opnd], l: usize) -> Result<[i64; 3], Error> {
    let mut off = [0i64; 3];
    if let Some(Opnd::Vec(v)) = rest.iter().find(|o| matches!(o, Opnd::Vec(_))) {
        for (k, o) in v.iter().enumerate().take(3) {
            off[k] = x.get(o, l)? as u32 as i32 as i64;
        }
    }
    Ok(off)
}

/// Writes the result vector `v` (32-bit words, or f16 halves for `.f16`) and the residency
/// predicate, if the destination has one.
fn write_result(x: &mut Ctx<'_, '_>, v: &[u64], resident: bool, l: usize) -> Result<(), Error> {
    let d =
        x.d.opnds
            .first()
            .ok_or_else(|| x.unsupported("no destination"))?;
    let (vec, pred) = match d {
        Opnd::Pair(p) => (&p[0], Some(&p[1])),
        o => (o, None),
    };
    match vec {
        Opnd::Vec(items) => {
            for (o, &b) in items.iter().zip(v) {
                x.set(o, l, b)?;
            }
        }
        o => x.set(o, l, v[0])?,
    }
    if let Some(p) = pred {
        x.set(p, l, resident as u64)?;
    }
    Ok(())
}

/// The result channels as the destination type has them.
fn as_dtype(t: &TextureArg, dtype: Type, v: [u32; 4]) -> Vec<u64> {
    let float = t.float_result();
    let h = |b: u32| {
        if float && f32::from_bits(b).is_nan() {
            0x7fff // the GPU's canonical f16 NaN
        } else if float {
            float::convert_bits(b as u64, Fmt::F32, Fmt::F16, Rounding::Rn)
        } else {
            b as u64 & 0xffff
        }
    };
    match dtype {
        Type::F16 => v.iter().map(|&b| h(b)).collect(),
        Type::F16x2 => vec![h(v[0]) | h(v[1]) << 16, h(v[2]) | h(v[3]) << 16],
        _ => v.iter().map(|&b| b as u64).collect(),
    }
}

/// The level of detail a `tex` asks for: `.level`'s operand, `.grad`'s gradients (scaled to
/// level-0 texels as the coordinates are), or level 0. A cube map's gradients are taken in
/// its face's coordinates: divided by the major axis, as the direction is.
fn lod_of(
    x: &Ctx<'_, '_>,
    t: &TextureArg,
    co: &Coords,
    c: &[Opnd],
    ops: &[Opnd],
    l: usize,
) -> Result<tx::Lod, Error> {
    match ops {
        // With integer coordinates the operand is the level (ptxas takes only `.s32` there).
        [o] if co.int => Ok(tx::Lod::Index(x.get(o, l)? as u32 as i32 as i64)),
        [o] => Ok(tx::Lod::Level(f32::from_bits(x.get(o, l)? as u32))),
        [a, b] => {
            // Anisotropic footprints (every format's weighted taps measured: `tx::filter_in`):
            // 2D textures, each layer of a layered one, cube maps (on
            // the face, with the face's gradients) and 1D textures (both gradients along x);
            // 3D and layered 1D textures filter isotropically (docs/INTERP.md, "Anisotropic
            // filtering").
            let aniso = t.sampler.mip.aniso > 1
                && (t.layout.rank == 2 || (t.layout.rank == 1 && t.layout.layers == 0));
            let n = if t.layout.cube { 3 } else { co.n };
            let grad = |o: &Opnd| -> Result<Vec<f32>, Error> {
                let items: &[Opnd] = match o {
                    Opnd::Vec(v) => v,
                    o => std::slice::from_ref(o),
                };
                (0..n)
                    .map(|k| match items.get(k) {
                        Some(o) => x.get(o, l).map(|v| f32::from_bits(v as u32)),
                        None => Err(x.unsupported("too few gradient components")),
                    })
                    .collect()
            };
            let (mut dx, mut dy) = (grad(a)?, grad(b)?);
            if t.layout.cube {
                let first = usize::from(t.layout.layers > 0);
                let v: Vec<f32> = (0..3)
                    .map(|k| match c.get(first + k) {
                        Some(o) => x.get(o, l).map(|v| f32::from_bits(v as u32)),
                        None => Err(x.unsupported("too few coordinates for the geometry")),
                    })
                    .collect::<Result<_, _>>()?;
                let d = [t.layout.dims[0], t.layout.dims[1]];
                let (sx, sy) = (
                    cube_gradient(&v, &dx, aniso, d),
                    cube_gradient(&v, &dy, aniso, d),
                );
                let (CubeGrad::Face(gx) | CubeGrad::Across(gx)) = sx else {
                    // Ending on the opposite face: the last level (docs/INTERP.md, "Mipmaps").
                    return Ok(tx::Lod::Grad(i64::from(i16::MAX)));
                };
                let (CubeGrad::Face(gy) | CubeGrad::Across(gy)) = sy else {
                    return Ok(tx::Lod::Grad(i64::from(i16::MAX)));
                };
                (dx, dy) = (gx.to_vec(), gy.to_vec());
                if matches!(sx, CubeGrad::Across(_)) || matches!(sy, CubeGrad::Across(_)) {
                    // A gradient ending on another face: the longer length alone, isotropic
                    // (sharpened as `tex.level` is with anisotropy, by `Sampler::lod`).
                    return Ok(match crate::lod::cross_lod(&dx, &dy) {
                        Some(l) => tx::Lod::Grad(l),
                        None => tx::Lod::Grad(-(1i64 << 40)),
                    });
                }
            } else {
                // A 3D texture's gradient is taken as the change it makes to the coordinate,
                // `(c + g) - c` in f32, as a cube map's is taken from the direction: bits of
                // the gradient below `c + g`'s last bit read rounded there (H200:
                // corpus/lod/len3d.json.xz, the two 3D lengths of `mipfit.jsonl.xz` that
                // missed, over every order, sign and truncation of their components, 3,108
                // of 3,108). 1D and 2D textures take the gradient itself: the change there
                // disagrees with 8 recorded cases (docs/INTERP.md, "Mipmaps").
                if !co.int && t.layout.rank == 3 {
                    for k in 0..n {
                        let ck = co.raw[k];
                        dx[k] = (ck + dx[k]) - ck;
                        dy[k] = (ck + dy[k]) - ck;
                    }
                }
                if co.normalized {
                    for k in 0..n {
                        dx[k] = to_texels(dx[k], t.layout.dims[k]);
                        dy[k] = to_texels(dy[k], t.layout.dims[k]);
                    }
                }
            }
            // No footprint at all reads the least level (an anisotropic one too: its two taps
            // coincide, which is the one bilinear tap).
            let Some(lod) = crate::lod::grad_lod(&dx, &dy) else {
                return Ok(tx::Lod::Grad(-(1i64 << 40)));
            };
            if !aniso {
                return Ok(tx::Lod::Grad(lod));
            }
            let g = |v: &[f32]| [0, 1].map(|k| v.get(k).map_or(0.0, |&c| c as f64));
            Ok(tx::Lod::Aniso(crate::aniso::grad(
                lod,
                g(&dx),
                g(&dy),
                t.sampler.mip.aniso,
            )))
        }
        _ => Ok(tx::Lod::Base),
    }
}

/// A cube map's gradient as [`cube_gradient`] takes it, in texels of the face of the
/// direction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CubeGrad {
    /// The direction plus the gradient lies on the direction's own face.
    Face([f32; 2]),
    /// It lies on an adjacent face: the gradient unfolded across the edge.
    Across([f32; 2]),
    /// It lies on the opposite face (or is NaN there).
    Opposite,
}

/// A direction's gradient `g` as the change of its cube face's coordinates, in texels of the
/// face (`size`: its width and height; fitted to an H200, `gradfit2.jsonl.xz` `gfit2.cube`,
/// `gfit3.cube.*`, `cubegrad.jsonl.xz`, `cubenpot.jsonl.xz`). With `v + g` on the face of `v`
/// (major axis `i`): a finite difference, `(Q_j / |Q_i|, Q_k / |Q_i|)` at `v + g` less at
/// `v`, halved (the derivative, with or without the major axis's own change, fits a fifth as
/// many), then in texels ([`to_texels`]). With `v + g` on an adjacent face (major axis `a`,
/// sign `tau`; `sigma` the sign of `v`'s): the face unfolded across their edge, the change
/// along `a` in two pieces, from `v` to the edge on `v`'s face (`tau - v_a / |v_i|`) and from
/// the edge to `v + g` on the other face (`tau (1 - sigma q_i / |q_a|)`), each halved, in
/// texels ([`to_texels`]'s truncated multiplier where the size is not a power of two) and
/// truncated to 9 bits after its leading one, then added; along the edge's own axis `o` the
/// difference `q_o / |q_a| - v_o / |v_i|`, halved, in texels. `oriented`: in the face's own
/// s and t axes (as its texels lie), else in the axes after `i`.
fn cube_gradient(v: &[f32], g: &[f32], oriented: bool, size: [u32; 2]) -> CubeGrad {
    let i = tx::major_axis([v[0], v[1], v[2]].map(f64::from));
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let neg = v[i] < 0.0;
    // The face's coordinates of a vector `q` whose component `i` has magnitude `m`.
    let face = |q: [f64; 3], m: f64| {
        if !oriented {
            return (q[j] / m, q[k] / m);
        }
        // The face's own axes (`tx::cube_face`): its s and t as the texels lie.
        let (sc, tc) = match (i, neg) {
            (0, false) => (-q[2], -q[1]),
            (0, true) => (q[2], -q[1]),
            (1, false) => (q[0], q[2]),
            (1, true) => (q[0], -q[2]),
            (_, false) => (q[0], -q[1]),
            (_, true) => (-q[0], -q[1]),
        };
        (sc / m, tc / m)
    };
    let texels = |(s, t): (f64, f64)| [to_texels(s as f32, size[0]), to_texels(t as f32, size[1])];
    let p = [v[0] as f64, v[1] as f64, v[2] as f64];
    let q = [p[0] + g[0] as f64, p[1] + g[1] as f64, p[2] + g[2] as f64];
    let m0 = p[i].abs();
    let a = tx::major_axis(q);
    if a == i {
        if q[i].is_nan() || (q[i] < 0.0) != neg {
            return CubeGrad::Opposite;
        }
        let ((u0, w0), (u1, w1)) = (face(p, m0), face(q, q[i].abs()));
        return CubeGrad::Face(texels(((u1 - u0) / 2.0, (w1 - w0) / 2.0)));
    }
    let sigma = if neg { -1.0 } else { 1.0 };
    let tau = if q[a] < 0.0 { -1.0 } else { 1.0 };
    let m = q[a].abs();
    let o = 3 - i - a;
    // One piece along the axis `x` of the direction's space, in texels of the face.
    let piece = |x: usize, c: f64| {
        let mut d = [0.0f64; 3];
        d[x] = c;
        texels(face(d, 1.0))
    };
    let to_edge = piece(a, (tau - p[a] / m0) / 2.0);
    let from_edge = piece(a, tau * (1.0 - sigma * q[i] / m) / 2.0);
    let along = piece(o, (q[o] / m - p[o] / m0) / 2.0);
    let t9 = |x: f32| crate::lod::trunc9(x as f64).copysign(x as f64);
    CubeGrad::Across([0, 1].map(|c| (t9(to_edge[c]) + t9(from_edge[c]) + along[c] as f64) as f32))
}

/// `tex`
pub fn tex(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let types = x.types();
    let (dtype, ctype) = match types {
        [d, c] => (*d, *c),
        _ => return Err(x.unsupported("tex without destination and coordinate types")),
    };
    let (head, samp, c) = tuple_sampler(x)?;
    let all: &[Opnd] = x.d.opnds.get(2..).unwrap_or(&[]);
    let (lod_ops, rest) = if x.has(Flag::Level) {
        all.split_at(1.min(all.len()))
    } else if x.has(Flag::Grad) {
        all.split_at(2.min(all.len()))
    } else {
        all.split_at(0)
    };
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.get(head, l)?;
        let (t, base) = texture(x, &imgs, h, l)?;
        let t = sampled(x, t, samp, l)?;
        let t = t.as_ref();
        let co = coords(x, &t.layout, Some(&t.sampler), c, ctype == Type::S32, l)?;
        let off = offset_of(x, rest, l)?;
        let lod = lod_of(x, t, &co, c, lod_ops, l)?;
        let v = fetch(x, t, base, &co, off, lod, l)?;
        let out = as_dtype(t, dtype, v);
        write_result(x, &out, true, l)?;
    }
    Ok(Flow::Next)
}

/// `tld4`: one channel of the four texels of the bilinear footprint.
pub fn tld4(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let ch = if x.has(Flag::R) {
        0
    } else if x.has(Flag::G) {
        1
    } else if x.has(Flag::B) {
        2
    } else {
        3
    };
    let (head, samp, c) = tuple_sampler(x)?;
    let rest: &[Opnd] = x.d.opnds.get(2..).unwrap_or(&[]);
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.get(head, l)?;
        let (t, base) = texture(x, &imgs, h, l)?;
        let t = sampled(x, t, samp, l)?;
        let t = t.as_ref();
        let co = coords(x, &t.layout, Some(&t.sampler), c, false, l)?;
        let off = offset_of(x, rest, l)?;
        let (i0, _) = footprint_at(&co, &t.layout, 0, &co.u, off, |_| false);
        let at = Place {
            t,
            base,
            plane: co.plane,
            level: 0,
        };
        let mut out = [0u64; 4];
        let seamless = t.layout.cube && t.sampler.seamless;
        let texels = if seamless {
            Some(seamless_footprint(x, at, i0, l)?)
        } else {
            None
        };
        // Counter-clockwise from the lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        for (k, (di, dj)) in [(0, 1), (1, 1), (1, 0), (0, 0)].into_iter().enumerate() {
            out[k] = match &texels {
                Some((ts, missing)) => {
                    let q = di + 2 * dj;
                    if *missing == Some(q)
                        && !(t.layout.format.is_float() || t.sampler.normalized_read)
                    {
                        // Integer texels read as integers: the same spread, summed exactly
                        // and rounded (`seamtld4int`, every lane exact).
                        tx::corner_gather_int(t, ts, q, ch) as u64
                    } else if *missing == Some(q) {
                        // The texel past the cube's corner: the filter's value with the whole
                        // weight on it, spread as `corner_weights` spreads it (86/256 on the
                        // texel across, 85/256 on each beside: `seamtld4`, every lane exact).
                        let mut w = [0i64; 4];
                        w[q] = 256 << 8;
                        tx::corner_weights(&mut w, q);
                        tx::filter(t, &w, ts, 4)[ch] as u64
                    } else {
                        tx::convert_texel(t, &ts[q])[ch] as u64
                    }
                }
                None => corner(x, at, [i0[0] + di as i64, i0[1] + dj as i64, 0], 2, l)?[ch] as u64,
            };
        }
        write_result(x, &out, true, l)?;
    }
    Ok(Flow::Next)
}

/// What `txq`/`suq` answer for a query flag of an object's layout.
fn size_query(x: &Ctx<'_, '_>, t: &Layout, texture: bool) -> Option<u32> {
    Some(if x.has(Flag::Width) {
        t.dims[0]
    } else if x.has(Flag::Height) {
        match t.rank {
            1 if texture && !t.linear_memory => 1,
            1 => 0,
            _ => t.dims[1],
        }
    } else if x.has(Flag::Depth) {
        if t.rank == 3 {
            t.dims[2]
        } else {
            t.layers
        }
    } else if x.has(Flag::ChannelOrder) {
        tx::channel_order(t.channels)
    } else if x.has(Flag::ArraySize) {
        t.layers
    } else {
        return None;
    })
}

/// `txq`
pub fn txq(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d, a] = x.ops();
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.addr(a, l)?;
        if let Some(v) = opaque_var(x, h).filter(|v| v.ty == Type::Samplerref) {
            // A `.samplerref` answers the sampler queries from its initialiser.
            let q = query_member(x);
            match q.and_then(|q| tx::sampler_query(&v.fields, q)) {
                Some(r) => x.set(d, l, r as u64)?,
                None => {
                    return Err(x.undefined(
                        l,
                        format!(
                            "`txq` of a texture attribute of `{}`, a `.samplerref` (texture \
                             attributes are queried through a `.texref`)",
                            v.name
                        ),
                    ))
                }
            }
            continue;
        }
        let (t, _) = texture(x, &imgs, h, l)?;
        let sm = &t.sampler;
        let level = if x.has(Flag::Level) {
            x.get(x.opt(2).unwrap_or(&crate::code::MISSING), l)? as u32
        } else {
            0
        };
        let v = match size_query(x, &t.layout, true) {
            // Levels the texture lacks measure 0 (a non-mipmapped texture has one).
            Some(_) if level >= t.layout.levels => 0,
            Some(v) if level == 0 => v,
            Some(v) => {
                let d = t.layout.level_dims(level);
                if x.has(Flag::Width) {
                    d[0]
                } else if x.has(Flag::Height) && t.layout.rank > 1 {
                    d[1]
                } else if x.has(Flag::Depth) && t.layout.rank == 3 {
                    d[2]
                } else {
                    v
                }
            }
            None if x.has(Flag::ChannelDataType) => {
                tx::channel_data_type(t.layout.format, sm.normalized_read)
            }
            None if x.has(Flag::NormalizedCoords) => sm.normalized_coords as u32,
            None if x.has(Flag::FilterMode) => sm.linear as u32,
            None if x.has(Flag::AddrMode0) => tx::addr_mode_code(sm.addr[0]),
            None if x.has(Flag::AddrMode1) => tx::addr_mode_code(sm.addr[1]),
            None if x.has(Flag::AddrMode2) => tx::addr_mode_code(sm.addr[2]),
            None if x.has(Flag::NumMipmapLevels) && t.layout.levels > 1 => t.layout.levels,
            None if x.has(Flag::NumSamples) => t.layout.samples,
            // Not mipmapped, and unified mode has no separate sampler.
            None => 0,
        };
        x.set(d, l, v as u64)?;
    }
    Ok(Flow::Next)
}

/// The member a `txq` query names.
fn query_member(x: &Ctx<'_, '_>) -> Option<OpaqueMember> {
    [
        (Flag::Width, OpaqueMember::Width),
        (Flag::Height, OpaqueMember::Height),
        (Flag::Depth, OpaqueMember::Depth),
        (Flag::ChannelDataType, OpaqueMember::ChannelDataType),
        (Flag::ChannelOrder, OpaqueMember::ChannelOrder),
        (Flag::NormalizedCoords, OpaqueMember::NormalizedCoords),
        (
            Flag::ForceUnnormalizedCoords,
            OpaqueMember::ForceUnnormalizedCoords,
        ),
        (Flag::FilterMode, OpaqueMember::FilterMode),
        (Flag::AddrMode0, OpaqueMember::AddrMode0),
        (Flag::AddrMode1, OpaqueMember::AddrMode1),
        (Flag::AddrMode2, OpaqueMember::AddrMode2),
        (Flag::ArraySize, OpaqueMember::ArraySize),
        (Flag::NumMipmapLevels, OpaqueMember::NumMipmapLevels),
        (Flag::NumSamples, OpaqueMember::NumSamples),
    ]
    .into_iter()
    .find(|(f, _)| x.has(*f))
    .map(|(_, m)| m)
}

/// `suq`
pub fn suq(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d, a] = x.ops();
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.addr(a, l)?;
        let (s, _) = surface(x, &imgs, h, l)?;
        let v = match size_query(x, &s.layout, false) {
            Some(v) => v,
            None if x.has(Flag::ChannelDataType) => tx::channel_data_type(s.layout.format, false),
            // `.memory_layout`: CUDA arrays are not linear.
            None => 0,
        };
        x.set(d, l, v as u64)?;
    }
    Ok(Flow::Next)
}

/// `istypep`: whether the value points to an opaque variable of the type (PTX ISA 9.7.10.6):
/// true for the address of a module-scope variable of that type (`mov.u64 %rd, tex1;`).
/// Texture and surface object handles are not such addresses (an H200 answers false for
/// both, for every type).
pub fn istypep(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let [d, a] = x.ops();
    let want = x.d.ty.or_else(|| x.types().first().copied());
    for l in lanes(x.emask) {
        let v = x.get(a, l)?;
        let yes = opaque_var(x, v).is_some_and(|o| Some(o.ty) == want);
        x.set(d, l, yes as u64)?;
    }
    Ok(Flow::Next)
}

/// Where a surface access lands: the byte offset in the buffer, or `None` to drop it (`.zero`).
fn surface_at(
    x: &Ctx<'_, '_>,
    s: &Layout,
    c: &[Opnd],
    size: u64,
    sample: bool,
    l: usize,
) -> Result<Option<u64>, Error> {
    let geom = x.d.dim.ok_or_else(|| x.unsupported("no geometry"))?;
    let w = |k: usize| -> Result<i64, Error> {
        match c.get(k) {
            Some(o) => Ok(x.get(o, l)? as u32 as i32 as i64),
            None => Err(x.unsupported("too few coordinates for the geometry")),
        }
    };
    let (first, n, layered) = match geom {
        Dim::D1 => (0, 1, false),
        Dim::D2 => (0, 2, false),
        Dim::D3 => (0, 3, false),
        Dim::A1d => (1, 1, true),
        Dim::A2d => (1, 2, true),
        _ => return Err(x.unsupported("surface geometry")),
    };
    if s.rank != n as u32 || (s.layers > 0) != layered {
        return Err(x.undefined(
            l,
            format!(
                "the instruction's .{} geometry does not match the surface ({}D{})",
                geom.as_str(),
                s.rank,
                if s.layers > 0 { ", layered" } else { "" }
            ),
        ));
    }
    let eb = s.texel_bytes() as i64;
    let mut xb = w(first)?;
    if sample {
        xb *= size as i64;
    }
    if xb.rem_euclid(size as i64) != 0 {
        return Err(Error::Memory {
            kind: FaultKind::Misaligned,
            space: "surface".into(),
            addr: xb as u64,
            size: size as u32,
            site: x.site(),
            thread: x.thread(l),
        });
    }
    let row = s.dims[0] as i64 * eb;
    let mut pos = [xb, 0, 0];
    for (k, p) in pos.iter_mut().enumerate().take(n).skip(1) {
        *p = w(first + k)?;
    }
    let mut layer = if layered { w(0)? as u32 as i64 } else { 0 };
    let inside = xb >= 0
        && xb + size as i64 <= row
        && (1..n).all(|k| (0..s.dims[k] as i64).contains(&pos[k]))
        && (!layered || layer < s.layers as i64);
    if !inside {
        if x.has(Flag::Zero) {
            return Ok(None);
        }
        if !x.has(Flag::Clamp) {
            return Err(Error::Trap {
                site: x.site(),
                thread: x.thread(l),
            });
        }
        pos[0] = pos[0].clamp(0, row - size as i64);
        for (p, &d) in pos.iter_mut().zip(&s.dims).take(n).skip(1) {
            *p = (*p).clamp(0, d as i64 - 1);
        }
        layer = layer.clamp(0, s.layers.max(1) as i64 - 1);
    }
    let texel = s.offset(layer as u64, 0, pos[1] as u32, pos[2] as u32);
    Ok(Some(texel + pos[0] as u64))
}

fn access_size(x: &Ctx<'_, '_>) -> (u64, usize) {
    let n = match x.d.vector {
        Some(Vector::V2) => 2,
        Some(Vector::V4) => 4,
        Some(Vector::V8) => 8,
        None => 1,
    };
    let eb = x.d.ty.map_or(4, |t| t.bits() / 8) as u64;
    (eb, n)
}

/// `suld.b`
pub fn suld(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (head, c) = tuple(x)?;
    let (eb, n) = access_size(x);
    let d = &x.d.opnds[0];
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.get(head, l)?;
        let (s, base) = surface(x, &imgs, h, l)?;
        let s = &s.layout;
        let at = surface_at(x, s, c, eb * n as u64, false, l)?;
        // Through the checked path: a surface's texels are plain global memory, which the
        // `init` and `race` checks and the watch of asynchronous writes see as any load.
        let bytes = match at {
            Some(off) => x.access(
                AddrSpace::Global,
                base + off,
                eb as usize * n,
                1,
                l,
                false,
                |m| m.to_vec(),
            )?,
            None => vec![0; eb as usize * n],
        };
        let vals: Vec<u64> = bytes
            .chunks(eb as usize)
            .map(|b| {
                let mut w = [0u8; 8];
                w[..b.len()].copy_from_slice(b);
                u64::from_le_bytes(w)
            })
            .collect();
        match d {
            Opnd::Vec(items) => {
                for (o, &v) in items.iter().zip(&vals) {
                    x.set(o, l, v)?;
                }
            }
            o => x.set(o, l, vals[0])?,
        }
    }
    Ok(Flow::Next)
}

/// A 32-bit source value converted to a channel of a formatted surface (`sust.p`), as an
/// H200 does: `.u32` and `.s32` sources saturate to the channel, `f32` to `f16` rounds toward
/// zero.
fn format_channel(f: tx::Format, v: u32) -> u64 {
    let bits = 8 * f.bytes();
    match f {
        tx::Format::F32 => v as u64,
        tx::Format::F16 => float::convert_bits(v as u64, Fmt::F32, Fmt::F16, Rounding::Rz),
        tx::Format::U8 | tx::Format::U16 | tx::Format::U32 => (v as u64).min((1u64 << bits) - 1),
        _ => {
            let lim = 1i64 << (bits - 1);
            (v as i32 as i64).clamp(-lim, lim - 1) as u64
        }
    }
}

/// `sust.b` and `sust.p`
pub fn sust(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (head, c) = tuple(x)?;
    let formatted = x.has(Flag::P);
    let (eb, n) = access_size(x);
    let src = x.d.opnds.get(1).ok_or_else(|| x.unsupported("no source"))?;
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.get(head, l)?;
        let (s, base) = surface(x, &imgs, h, l)?;
        let s = &s.layout;
        let vals: Vec<u64> = match src {
            Opnd::Vec(items) => items
                .iter()
                .map(|o| x.get(o, l))
                .collect::<Result<_, _>>()?,
            o => vec![x.get(o, l)?],
        };
        let (bytes, size) = if formatted {
            let cb = s.format.bytes() as usize;
            let mut b = vec![0u8; s.texel_bytes() as usize];
            for (ch, v) in vals.iter().enumerate().take(s.channels as usize) {
                let f = format_channel(s.format, *v as u32);
                b[ch * cb..(ch + 1) * cb].copy_from_slice(&f.to_le_bytes()[..cb]);
            }
            let tb = s.texel_bytes();
            (b, tb)
        } else {
            let mut b = Vec::with_capacity(eb as usize * n);
            for v in &vals {
                b.extend_from_slice(&v.to_le_bytes()[..eb as usize]);
            }
            (b, eb * n as u64)
        };
        let Some(off) = surface_at(x, s, c, size, formatted, l)? else {
            continue;
        };
        let a = base + off;
        x.access(AddrSpace::Global, a, bytes.len(), 1, l, true, |m| {
            m.copy_from_slice(&bytes)
        })?;
    }
    Ok(Flow::Next)
}

/// `sured.b` and `sured.p`: an atomic reduction on one element.
pub fn sured(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let (head, c) = tuple(x)?;
    let sample = x.has(Flag::P);
    let ty =
        x.d.ty
            .ok_or_else(|| x.unsupported("sured without a type"))?;
    let op =
        x.d.oper
            .ok_or_else(|| x.unsupported("sured without an operation"))?;
    let size = ty.bits() as u64 / 8;
    let src = x.d.opnds.get(1).ok_or_else(|| x.unsupported("no source"))?;
    let imgs = x.m.images.clone();
    for l in lanes(x.emask) {
        let h = x.get(head, l)?;
        let (s, base) = surface(x, &imgs, h, l)?;
        let s = &s.layout;
        let v = x.get(src, l)?;
        let Some(off) = surface_at(x, s, c, size, sample, l)? else {
            continue;
        };
        // `.b32`/`.b64` of `sured.p` follow the surface's signedness; `.b32` of `sured.b` takes
        // only the bitwise operations, for which it does not matter.
        let signed = matches!(ty, Type::S32 | Type::S64)
            || (sample && matches!(s.format, tx::Format::S8 | tx::Format::S16 | tx::Format::S32));
        let bits = ty.bits();
        // The element's type for the atomic step: `.b32`/`.b64` of `sured.p` take the
        // surface's signedness.
        let et = match (signed, bits) {
            (true, 64) => Type::S64,
            (true, _) => Type::S32,
            (false, 64) => Type::U64,
            (false, _) => Type::U32,
        };
        let a = base + off;
        let mut bad = None;
        x.access(AddrSpace::Global, a, size as usize, 1, l, true, |m| {
            let old = crate::mem::get_le(m);
            match super::memops::element(et, op, None, false, bits, (old, v, 0)) {
                Ok(new) => crate::mem::put_le(m, new),
                Err(e) => bad = Some(e),
            }
        })?;
        if let Some(e) = bad {
            return Err(x.unsupported(format!("sured: {e}")));
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The level of detail of a gradient crossing the edge of a 48-texel face: each piece of
    /// the unfolded gradient through the truncated multiplier, then truncated to 9 bits
    /// (H200, `cubegrad.jsonl.xz` `cg.sweep.48`, samples where truncating the pieces before
    /// the scaling reads one or two 1/256 high).
    #[test]
    fn crossing_gradient_on_a_face_not_a_power_of_two() {
        let v = [1.0f32, 0.9, 0.3];
        for (bits, want) in [
            (0x3dd9_3333u32, 346),
            (0x3ddc_3333, 351),
            (0x3de4_999a, 367),
            (0x3df3_0000, 391),
        ] {
            let g = [0.0, f32::from_bits(bits), 0.0];
            let CubeGrad::Across(dx) = cube_gradient(&v, &g, true, [48, 48]) else {
                panic!("the gradient crosses the edge");
            };
            assert_eq!(crate::lod::cross_lod(&dx, &[0.0, 0.0]), Some(want));
        }
        // A power of two scales exactly: the same as the pieces truncated in face units.
        let g = [0.0, f32::from_bits(0x3dd9_3333), 0.0];
        let CubeGrad::Across(d64) = cube_gradient(&v, &g, false, [64, 64]) else {
            panic!("the gradient crosses the edge");
        };
        let to_edge = crate::lod::trunc9((1.0 - 0.9f32 as f64) / 2.0) * 64.0;
        let from_edge = crate::lod::trunc9((1.0 - 1.0 / (0.9f32 as f64 + g[1] as f64)) / 2.0);
        assert_eq!(d64[0] as f64, to_edge + from_edge * 64.0);
        assert_eq!(
            cube_gradient(&v, &[-3.0, 0.0, 0.0], true, [48, 48]),
            CubeGrad::Opposite
        );
    }
}
