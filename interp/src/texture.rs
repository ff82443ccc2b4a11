//! Texture and surface objects: what a launch passes for a `cudaTextureObject_t` or
//! `cudaSurfaceObject_t` parameter, and how a texel is found, converted and filtered.
//!
//! An object is a *description* over one of the launch's buffer arguments (as a tensor map is,
//! [`crate::tmap`]): the buffer holds the texels densely, channels interleaved, x fastest, then
//! y, then z or the layer (a cube map's six faces are layers `+x, -x, +y, -y, +z, -z`, a cube
//! array's layer `6 * index + face`). The parameter receives an opaque 64-bit handle; `tex`,
//! `tld4`, `txq`, `suld`, `sust`, `sured` and `suq` read the object through it, and a surface's
//! stores land in the buffer, which is read back after the run. The GPU side of the same test
//! (`tools/hwvectors/texture.py`) copies the buffer into a CUDA array and makes the object from
//! the same description.
//!
//! The arithmetic was fitted to an H200's results (`corpus/vectors/texture.jsonl`):
//! coordinates are quantized to 1/256 of a texel (round half up) before point sampling and
//! filtering; bilinear filtering uses 8-bit fractional weights, of which only the product
//! `a * b` is rounded (so that each row's weights still sum exactly), and sums the weighted
//! texels, truncated to 4 bits past the format's precision below the largest, exactly before
//! one rounding ([`filter`]); a channel the format lacks reads 0, also in the border colour.

use crate::float::{self, Fmt};
pub use crate::lod::{Lod, Mip};
use ptx_ir_core::{AddressMode, FilterMode, OpaqueField, OpaqueMember, OpaqueValue, Rounding};

/// The tag in the upper half of every handle: a texture or surface handle never equals a
/// global address (those are below 2^48).
pub const HANDLE_TAG: u64 = 0x5458_0000_0000_0000;
/// The bit that marks a surface handle.
pub const SURFACE_BIT: u64 = 1 << 32;

/// A channel's storage type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// 8-bit unsigned.
    U8,
    /// 8-bit signed.
    S8,
    /// 16-bit unsigned.
    U16,
    /// 16-bit signed.
    S16,
    /// 32-bit unsigned.
    U32,
    /// 32-bit signed.
    S32,
    /// IEEE half.
    F16,
    /// IEEE single.
    F32,
}

impl Format {
    const ALL: [(Format, &'static str); 8] = [
        (Format::U8, "u8"),
        (Format::S8, "s8"),
        (Format::U16, "u16"),
        (Format::S16, "s16"),
        (Format::U32, "u32"),
        (Format::S32, "s32"),
        (Format::F16, "f16"),
        (Format::F32, "f32"),
    ];

    fn parse(s: &str) -> Option<Format> {
        Format::ALL.iter().find(|(_, n)| *n == s).map(|(f, _)| *f)
    }

    /// Bytes of one channel.
    pub fn bytes(self) -> u32 {
        match self {
            Format::U8 | Format::S8 => 1,
            Format::U16 | Format::S16 | Format::F16 => 2,
            Format::U32 | Format::S32 | Format::F32 => 4,
        }
    }

    /// Whether the channel holds a float.
    pub fn is_float(self) -> bool {
        matches!(self, Format::F16 | Format::F32)
    }

    fn is_signed(self) -> bool {
        matches!(self, Format::S8 | Format::S16 | Format::S32)
    }

    /// The channel's raw value (sign-extended for signed formats) from its little-endian
    /// bytes.
    fn raw(self, b: &[u8]) -> u64 {
        let mut v = [0u8; 8];
        v[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(v);
        let bits = 8 * self.bytes();
        if self.is_signed() && u >> (bits - 1) & 1 == 1 {
            u | (u64::MAX << bits)
        } else {
            u
        }
    }
}

/// What a coordinate outside the texture reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddrMode {
    /// Repeat (normalized coordinates only).
    Wrap,
    /// The nearest edge texel.
    Clamp,
    /// Repeat mirrored (normalized coordinates only).
    Mirror,
    /// The border colour.
    Border,
    /// OpenGL's `GL_CLAMP` (PTX `clamp_ogl`, a `.samplerref` member only): the coordinate is
    /// clamped to the texture's extent and the texels beyond it read the border colour, so
    /// that linear filtering at an edge blends the border in.
    ClampOgl,
}

impl AddrMode {
    fn parse(s: &str) -> Option<AddrMode> {
        Some(match s {
            "wrap" => AddrMode::Wrap,
            "clamp" => AddrMode::Clamp,
            "mirror" => AddrMode::Mirror,
            "border" => AddrMode::Border,
            _ => return None,
        })
    }
}

/// How a texture is sampled and what it returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// Address mode per dimension.
    pub addr: [AddrMode; 3],
    /// Bilinear (trilinear in 3D) filtering; otherwise nearest point.
    pub linear: bool,
    /// 8- and 16-bit integer channels read as floats in [0, 1] or [-1, 1].
    pub normalized_read: bool,
    /// Coordinates in [0, 1) rather than [0, size).
    pub normalized_coords: bool,
    /// The border colour, per channel.
    pub border: [f32; 4],
    /// How a mipmapped texture picks its levels.
    pub mip: Mip,
    /// A cube map filters across its faces' edges (CUDA's `seamlessCubemap`): a bilinear
    /// footprint that leaves a face takes the adjacent face's texels ([`cube_neighbor`]).
    pub seamless: bool,
}

/// The texels an object reads or writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The argument whose buffer holds the texels.
    pub buffer: usize,
    /// Channel type.
    pub format: Format,
    /// Channels per texel: 1, 2 or 4.
    pub channels: u32,
    /// Width, height and depth in texels (1 for absent dimensions).
    pub dims: [u32; 3],
    /// 1, 2 or 3.
    pub rank: u32,
    /// Layers of a layered (array) object; 0 when not layered.
    pub layers: u32,
    /// A cube map (rank 2, six faces per layer).
    pub cube: bool,
    /// Linear memory (`cudaResourceTypeLinear`, what `tex1Dfetch` reads) rather than an array.
    pub linear_memory: bool,
    /// Mipmap levels (1 when not mipmapped): level `k` halves every dimension `k` times
    /// (rounding down, at least 1), layers and cube faces stay; the levels lie one after
    /// another in the buffer, each dense.
    pub levels: u32,
    /// Samples per texel of a multi-sample texture (0 when not one); a texel's samples lie
    /// together.
    pub samples: u32,
}

impl Layout {
    /// Bytes of one texel.
    pub fn texel_bytes(&self) -> u64 {
        (self.format.bytes() * self.channels) as u64
    }

    /// Layers in the buffer: six per cube, at least one.
    pub fn planes(&self) -> u64 {
        let l = self.layers.max(1) as u64;
        if self.cube {
            6 * l
        } else {
            l
        }
    }

    /// Width, height and depth of mipmap level `k` (level 0 is `dims`).
    pub fn level_dims(&self, k: u32) -> [u32; 3] {
        let mut d = self.dims;
        for v in d.iter_mut().take(self.rank as usize) {
            *v = (*v >> k.min(31)).max(1);
        }
        d
    }

    fn level_bytes(&self, k: u32) -> u64 {
        let d = self.level_dims(k);
        self.texel_bytes()
            * d.iter().map(|&v| v as u64).product::<u64>()
            * self.planes()
            * self.samples.max(1) as u64
    }

    /// Byte offset of sample `s` of texel (i, j) of plane `p` of a multi-sample texture, all
    /// in range.
    pub fn sample_offset(&self, p: u64, i: u32, j: u32, s: u32) -> u64 {
        let [w, h, _] = self.dims.map(|x| x as u64);
        (((p * h + j as u64) * w + i as u64) * self.samples.max(1) as u64 + s as u64)
            * self.texel_bytes()
    }

    /// Byte offset of mipmap level `k` in the buffer.
    pub fn level_base(&self, k: u32) -> u64 {
        (0..k).map(|i| self.level_bytes(i)).sum()
    }

    /// Bytes the texels take, every level.
    pub fn bytes(&self) -> u64 {
        self.level_base(self.levels)
    }

    /// Byte offset of texel (i, j, k) of plane `p` of level 0, all in range.
    pub fn offset(&self, p: u64, i: u32, j: u32, k: u32) -> u64 {
        self.level_offset(0, p, [i, j, k])
    }

    /// Byte offset of texel `i` of plane `p` of mipmap level `level`, all in range.
    pub fn level_offset(&self, level: u32, p: u64, i: [u32; 3]) -> u64 {
        let [w, h, d] = self.level_dims(level).map(|x| x as u64);
        let [i, j, k] = i.map(|x| x as u64);
        self.level_base(level) + (((p * d + k) * h + j) * w + i) * self.texel_bytes()
    }

    /// The most levels a mipmap of these dimensions has: until every dimension is 1.
    pub fn max_levels(&self) -> u32 {
        let m = self
            .dims
            .iter()
            .take(self.rank as usize)
            .copied()
            .max()
            .unwrap_or(1);
        32 - m.leading_zeros()
    }
}

/// A texture argument: texels and sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureArg {
    /// The texels.
    pub layout: Layout,
    /// How they are sampled.
    pub sampler: Sampler,
}

/// A surface argument.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceArg {
    /// The texels.
    pub layout: Layout,
}

/// Fields common to `tex:` and `surf:` specifications.
fn layout_field(l: &mut Layout, k: &str, v: &str) -> Result<bool, String> {
    match k {
        "buf" => l.buffer = v.parse().map_err(|_| format!("bad buffer index `{v}`"))?,
        "type" => l.format = Format::parse(v).ok_or_else(|| format!("unknown texel type `{v}`"))?,
        "ch" => {
            l.channels = match v {
                "1" => 1,
                "2" => 2,
                "4" => 4,
                _ => return Err(format!("channels must be 1, 2 or 4, not `{v}`")),
            }
        }
        "dims" => {
            let d = v
                .split('x')
                .map(|x| x.parse::<u32>().ok().filter(|&n| (1..=65536).contains(&n)))
                .collect::<Option<Vec<_>>>()
                .filter(|d| (1..=3).contains(&d.len()))
                .ok_or_else(|| format!("dims `{v}`: 1 to 3 sizes of 1..65536 separated by `x`"))?;
            l.rank = d.len() as u32;
            l.dims = [1; 3];
            l.dims[..d.len()].copy_from_slice(&d);
        }
        "layers" => {
            l.layers = v
                .parse::<u32>()
                .ok()
                .filter(|&n| (1..=2048).contains(&n))
                .ok_or_else(|| format!("layers `{v}`: 1..2048"))?
        }
        "cube" if v == "1" || v == "true" => l.cube = true,
        "res" if v == "linear" => l.linear_memory = true,
        "res" if v == "array" => l.linear_memory = false,
        _ => return Ok(false),
    }
    Ok(true)
}

fn fields(s: &str) -> impl Iterator<Item = Result<(&str, &str), String>> {
    s.split(',').map(|kv| {
        kv.split_once('=')
            .ok_or_else(|| format!("bad field `{kv}` (expected KEY=VALUE)"))
    })
}

fn empty_layout() -> Layout {
    Layout {
        buffer: usize::MAX,
        format: Format::F32,
        channels: 1,
        dims: [1; 3],
        rank: 0,
        layers: 0,
        cube: false,
        linear_memory: false,
        levels: 1,
        samples: 0,
    }
}

fn check_layout(l: &Layout, what: &str) -> Result<(), String> {
    if l.buffer == usize::MAX {
        return Err(format!("{what} without `buf=ARG`"));
    }
    if l.rank == 0 {
        return Err(format!("{what} without `dims=WxH..`"));
    }
    if l.cube && (l.rank != 2 || l.dims[0] != l.dims[1]) {
        return Err("a cube map has square 2D faces (dims=NxN)".into());
    }
    if l.layers > 0 && l.rank == 3 {
        return Err("layered objects are 1D or 2D".into());
    }
    if l.linear_memory && (l.rank != 1 || l.layers > 0 || l.cube) {
        return Err("a linear-memory resource is 1D".into());
    }
    Ok(())
}

impl TextureArg {
    /// Parses a `tex:` specification: `buf=ARG,type=T,ch=C,dims=W[xH[xD]]` and optionally
    /// `layers=N`, `cube=1`, `res=linear`, `addr=M[/M[/M]]` (`clamp`, `border`, `wrap`,
    /// `mirror`; default clamp), `filter=point|linear`, `read=element|normalized`,
    /// `coords=unnormalized|normalized`, `border=R/G/B/A`, and for a mipmapped texture
    /// `levels=N` (the buffer holds the levels one after another), `mipfilter=point|linear`,
    /// `samples=N` for a multi-sample texture (a texel's samples lie together),
    /// `lodbias=F`, `minlod=F`, `maxlod=F` (default: the last level), `aniso=0..16`
    /// (`maxAnisotropy`: not with a multi-sample texture; above 1 `tex.grad`
    /// reads an anisotropic footprint of 1D, 2D, layered 2D and cube textures and filters 3D
    /// and layered 1D ones isotropically, [`crate::aniso`]),
    /// `trilinopt=0|1`, and for a cube map `seamless=0|1`. As `cudaCreateTextureObject` does, wrap and mirror become clamp with
    /// unnormalized coordinates, and linear filtering (of texels or of levels) needs a float
    /// result (a float format or a normalized read of an 8- or 16-bit integer one).
    pub fn parse(s: &str) -> Result<TextureArg, String> {
        let mut layout = empty_layout();
        let mut sm = Sampler {
            addr: [AddrMode::Clamp; 3],
            linear: false,
            normalized_read: false,
            normalized_coords: false,
            border: [0.0; 4],
            mip: Mip {
                linear: false,
                bias: 0.0,
                min: 0.0,
                max: 0.0,
                aniso: 0,
                trilinear_opt: true,
            },
            seamless: false,
        };
        let mut max_lod = None;
        for kv in fields(s) {
            let (k, v) = kv?;
            if layout_field(&mut layout, k, v)? {
                continue;
            }
            match k {
                "addr" => {
                    let m = v
                        .split('/')
                        .map(AddrMode::parse)
                        .collect::<Option<Vec<_>>>()
                        .filter(|m| (1..=3).contains(&m.len()))
                        .ok_or_else(|| format!("addr `{v}`: wrap, clamp, mirror or border, per dimension separated by `/`"))?;
                    for (i, a) in sm.addr.iter_mut().enumerate() {
                        *a = m[i.min(m.len() - 1)];
                    }
                }
                "filter" => {
                    sm.linear = match v {
                        "point" => false,
                        "linear" => true,
                        _ => return Err(format!("filter `{v}`: point or linear")),
                    }
                }
                "read" => {
                    sm.normalized_read = match v {
                        "element" => false,
                        "normalized" => true,
                        _ => return Err(format!("read `{v}`: element or normalized")),
                    }
                }
                "coords" => {
                    sm.normalized_coords = match v {
                        "unnormalized" => false,
                        "normalized" => true,
                        _ => return Err(format!("coords `{v}`: unnormalized or normalized")),
                    }
                }
                "border" => {
                    let b = v
                        .split('/')
                        .map(|x| x.parse::<f32>().ok())
                        .collect::<Option<Vec<_>>>()
                        .filter(|b| b.len() == 4)
                        .ok_or_else(|| format!("border `{v}`: four floats separated by `/`"))?;
                    sm.border.copy_from_slice(&b);
                }
                "samples" => {
                    layout.samples = v
                        .parse::<u32>()
                        .ok()
                        .filter(|&n| (1..=32).contains(&n))
                        .ok_or_else(|| format!("samples `{v}`: 1..32"))?
                }
                "levels" => {
                    layout.levels = v
                        .parse::<u32>()
                        .ok()
                        .filter(|&n| (1..=17).contains(&n))
                        .ok_or_else(|| format!("levels `{v}`: 1..17"))?
                }
                "mipfilter" => {
                    sm.mip.linear = match v {
                        "point" => false,
                        "linear" => true,
                        _ => return Err(format!("mipfilter `{v}`: point or linear")),
                    }
                }
                "aniso" => {
                    sm.mip.aniso = v
                        .parse::<u32>()
                        .ok()
                        .filter(|&n| n <= 16)
                        .ok_or_else(|| format!("aniso `{v}`: 0..16"))?
                }
                // CUDA's `disableTrilinearOptimization`: an H200 blends the levels the same
                // either way (`mipprobe.jsonl.xz`, `mip.level.linear.1d.noopt`), but with
                // anisotropic filtering the optimisation sharpens the level of detail.
                "trilinopt" if v == "0" || v == "1" => sm.mip.trilinear_opt = v == "1",
                "seamless" if v == "0" || v == "1" => sm.seamless = v == "1",
                "lodbias" | "minlod" | "maxlod" => {
                    let f = v
                        .parse::<f32>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .ok_or_else(|| format!("{k} `{v}`: a finite float"))?;
                    match k {
                        "lodbias" => sm.mip.bias = f,
                        "minlod" => sm.mip.min = f,
                        _ => max_lod = Some(f),
                    }
                }
                _ => return Err(format!("unknown texture field `{k}`")),
            }
        }
        check_layout(&layout, "a texture")?;
        if layout.samples > 0
            && (layout.rank != 2 || layout.cube || layout.linear_memory || layout.levels > 1)
        {
            return Err(
                "a multi-sample texture is 2D (layered or not), an array without mipmaps".into(),
            );
        }
        if layout.levels > 1 {
            if layout.linear_memory {
                return Err("a linear-memory resource has no mipmap levels".into());
            }
            if layout.levels > layout.max_levels() {
                return Err(format!(
                    "levels={}: dims={} has at most {} levels",
                    layout.levels,
                    layout.dims[..layout.rank as usize]
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join("x"),
                    layout.max_levels()
                ));
            }
        }
        if sm.seamless && !layout.cube {
            return Err("seamless=1: seamless filtering is for cube maps".into());
        }
        if sm.mip.aniso > 1 {
            // Measured on 1D, 2D and 3D textures, layered or not, on cube maps and on 1D
            // linear memory, where it changes nothing (docs/INTERP.md, "Anisotropic
            // filtering"); a multi-sample texture has no levels to filter between.
            if layout.samples > 0 {
                return Err(format!(
                    "aniso={}: anisotropic filtering of a multi-sample texture is not modelled",
                    sm.mip.aniso
                ));
            }
        }
        // Unlike `cudaTextureDesc`, whose zero `maxMipmapLevelClamp` would pin every fetch to
        // level 0, a specification without `maxlod` reaches every level.
        sm.mip.max = max_lod.unwrap_or((layout.levels - 1) as f32);
        if sm.normalized_read && layout.format.bytes() == 4 {
            sm.normalized_read = false; // 32-bit channels are never promoted (CUDA runtime)
        }
        if sm.normalized_read && layout.format.is_float() {
            sm.normalized_read = false;
        }
        settle(&layout, &mut sm).map_err(|_| {
            "linear filtering of an integer texture needs `read=normalized` (the CUDA runtime \
             rejects it)"
                .to_string()
        })?;
        Ok(TextureArg {
            layout,
            sampler: sm,
        })
    }

    /// The texture as an independent-mode `tex`/`tld4` with sampler operand samples it: the
    /// texels, read mode and border colour of `self` with the filter and address modes the
    /// `.samplerref`'s initialiser assigns (`fields`), and `self`'s coordinate mode unless
    /// the sampler's `force_unnormalized_coords` is 1 (PTX ISA 5.3.2). A member the
    /// initialiser leaves out reads as zero, as every `.global` variable without an
    /// initialiser does (PTX ISA 5.4.4): `filter_mode` 0 is `nearest`, `addr_mode_N` 0 is
    /// `wrap`, `force_unnormalized_coords` 0 keeps the texture's mode. The result is settled
    /// as [`TextureArg::parse`] settles an object.
    pub fn with_sampler(&self, fields: &[OpaqueField]) -> Result<TextureArg, Combine> {
        let get = |m| ptx_ir_core::opaque::field(fields, m);
        let linear = matches!(
            get(OpaqueMember::FilterMode),
            Some(OpaqueValue::Filter(FilterMode::Linear))
        );
        let mut sm = self.sampler.clone();
        sm.linear = linear;
        let members = [
            OpaqueMember::AddrMode0,
            OpaqueMember::AddrMode1,
            OpaqueMember::AddrMode2,
        ];
        for (a, m) in sm.addr.iter_mut().zip(members) {
            *a = match get(m) {
                Some(OpaqueValue::Address(AddressMode::Mirror)) => AddrMode::Mirror,
                Some(OpaqueValue::Address(AddressMode::ClampToEdge)) => AddrMode::Clamp,
                Some(OpaqueValue::Address(AddressMode::ClampToBorder)) => AddrMode::Border,
                // OpenGL's GL_CLAMP clamps the coordinate to the texture: with nearest
                // filtering that reads the edge texel, as `clamp_to_edge` does; with linear
                // filtering it blends in the border colour ([`AddrMode::ClampOgl`]). CUDA has
                // no such mode, and the driver loads no independent-mode module (an H200 with
                // CUDA 13.0: `tools/hwvectors/mipmap.py --family oglprobe`), so this follows
                // the OpenGL definition the ISA names, unmeasured.
                Some(OpaqueValue::Address(AddressMode::ClampOgl)) if !linear => AddrMode::Clamp,
                Some(OpaqueValue::Address(AddressMode::ClampOgl)) => AddrMode::ClampOgl,
                _ => AddrMode::Wrap,
            };
        }
        if get(OpaqueMember::ForceUnnormalizedCoords) == Some(OpaqueValue::Int(1)) {
            sm.normalized_coords = false;
        }
        settle(&self.layout, &mut sm).map_err(|e| {
            Combine::Undefined(format!("{e}: the bound texture is not read normalized"))
        })?;
        Ok(TextureArg {
            layout: self.layout.clone(),
            sampler: sm,
        })
    }

    /// Whether fetches return floats (and filtering applies).
    pub fn float_result(&self) -> bool {
        self.layout.format.is_float() || self.sampler.normalized_read
    }
}

/// Why a texture and a `.samplerref` do not make a sampled texture
/// ([`TextureArg::with_sampler`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Combine {
    /// The combination is undefined (linear filtering of texels that are not read as floats).
    Undefined(String),
    /// The combination is not modelled.
    Unsupported(String),
}

/// What `cudaCreateTextureObject` makes of a sampler over `layout`: a mipmapped texture's
/// coordinates are normalized; wrap and mirror become clamp with unnormalized coordinates;
/// linear filtering needs a float result, else the error.
fn settle(layout: &Layout, sm: &mut Sampler) -> Result<(), String> {
    // A mipmapped texture reads normalized coordinates whatever the descriptor says (an H200
    // clamps unnormalized ones to the edge: `mipmap.jsonl.xz`, `*.unnorm`).
    if layout.levels > 1 {
        sm.normalized_coords = true;
    }
    if !sm.normalized_coords {
        for a in &mut sm.addr {
            if matches!(a, AddrMode::Wrap | AddrMode::Mirror) {
                *a = AddrMode::Clamp;
            }
        }
    }
    let mip_linear = sm.mip.linear && layout.levels > 1;
    if (sm.linear || mip_linear) && !layout.format.is_float() && !sm.normalized_read {
        return Err("linear filtering of an integer texture needs a normalized read".into());
    }
    Ok(())
}

/// What `txq` answers for a sampler query of a `.samplerref` whose initialiser assigns
/// `fields` (PTX ISA 9.7.10.5: `force_unnormalized_coords` 1 or 0, `filter_mode` and
/// `addr_mode_N` the position in their enumerations), a member left out reading 0 (PTX ISA
/// 5.4.4); `None` for a query that is not one of a sampler's.
pub fn sampler_query(fields: &[OpaqueField], q: OpaqueMember) -> Option<u32> {
    match q {
        OpaqueMember::ForceUnnormalizedCoords
        | OpaqueMember::FilterMode
        | OpaqueMember::AddrMode0
        | OpaqueMember::AddrMode1
        | OpaqueMember::AddrMode2 => {}
        _ => return None,
    }
    Some(match ptx_ir_core::opaque::field(fields, q) {
        Some(OpaqueValue::Int(v)) => v as u32,
        Some(OpaqueValue::Filter(f)) => f as u32,
        Some(OpaqueValue::Address(a)) => a as u32,
        None => 0,
    })
}

impl SurfaceArg {
    /// Parses a `surf:` specification: `buf=ARG,type=T,ch=C,dims=W[xH[xD]]` and optionally
    /// `layers=N`, `cube=1`.
    pub fn parse(s: &str) -> Result<SurfaceArg, String> {
        let mut layout = empty_layout();
        for kv in fields(s) {
            let (k, v) = kv?;
            if !layout_field(&mut layout, k, v)? {
                return Err(format!("unknown surface field `{k}`"));
            }
        }
        check_layout(&layout, "a surface")?;
        if layout.linear_memory {
            return Err("surfaces are CUDA arrays, not linear memory".into());
        }
        Ok(SurfaceArg { layout })
    }
}

/// A texel's channels in the result domain: `f32` bits for a float result, the raw integer
/// (sign-extended to 32 bits) otherwise.
pub fn convert_texel(t: &TextureArg, bytes: &[u8]) -> [u32; 4] {
    let f = t.layout.format;
    let n = f.bytes() as usize;
    let mut out = [0u32; 4];
    for (c, o) in out.iter_mut().enumerate().take(t.layout.channels as usize) {
        let raw = f.raw(&bytes[c * n..(c + 1) * n]);
        *o = match f {
            Format::F32 => raw as u32,
            Format::F16 => float::convert_bits(raw, Fmt::F16, Fmt::F32, Rounding::Rn) as u32,
            _ if t.sampler.normalized_read => normalize(f, raw).to_bits(),
            _ => raw as u32,
        };
    }
    out
}

/// An 8- or 16-bit integer as a normalized float: unsigned over [0, 1], signed over [-1, 1]
/// (the most negative value reads -1, as the next one does).
fn normalize(f: Format, raw: u64) -> f32 {
    let max = ((1u64 << (8 * f.bytes() - f.is_signed() as u32)) - 1) as f64;
    let v = if f.is_signed() {
        raw as i64 as f64
    } else {
        raw as f64
    };
    ((v / max).max(-1.0)) as f32
}

/// The border colour as the bytes of a texel (0 for the channels the format lacks). The
/// colour is first stored in the texel format, as a texel would be (an H200 returns 127/255
/// for a border of 0.5 in a normalized `u8` texture): `f16` rounds toward zero, element reads
/// of integer formats take the colour's bits, normalized ones go through `f16` and then scale
/// and round to nearest with ties toward zero.
pub fn border_bytes(t: &TextureArg) -> [u8; 16] {
    let f = t.layout.format;
    let n = f.bytes() as usize;
    let mut bytes = [0u8; 16];
    for c in 0..t.layout.channels as usize {
        let b = t.sampler.border[c];
        let raw: u64 = match f {
            Format::F32 => b.to_bits() as u64,
            Format::F16 => {
                float::convert_bits(b.to_bits() as u64, Fmt::F32, Fmt::F16, Rounding::Rz)
            }
            // Element reads of integer formats take the colour's bits (CUDA: "integer border
            // colour values need to be reinterpret_cast to float").
            _ if !t.sampler.normalized_read => b.to_bits() as u64,
            _ => {
                let bits = 8 * f.bytes();
                let (lo, hi) = if f.is_signed() {
                    (
                        -(1i64 << (bits - 1)) as f64,
                        ((1i64 << (bits - 1)) - 1) as f64,
                    )
                } else {
                    (0.0, ((1u64 << bits) - 1) as f64)
                };
                // Through f16 (toward zero), then nearest with ties toward zero: 0.5 reads
                // 127/255 in u8, 0.001 reads 65/65535 in u16 and 33/32767 in s16.
                let h = float::convert_bits(b.to_bits() as u64, Fmt::F32, Fmt::F16, Rounding::Rz);
                let h =
                    f32::from_bits(float::convert_bits(h, Fmt::F16, Fmt::F32, Rounding::Rn) as u32);
                let scaled = h as f64 * hi;
                let v = if scaled.is_nan() {
                    0.0
                } else {
                    (scaled.abs() - 0.5).ceil().copysign(scaled).clamp(lo, hi)
                };
                v as i64 as u64
            }
        };
        bytes[c * n..(c + 1) * n].copy_from_slice(&raw.to_le_bytes()[..n]);
    }
    bytes
}

/// The texel index a point sample at `u` reads: the floor, with NaN as 0 and the range
/// saturated (point sampling does not quantize the coordinate as filtering does).
pub fn point(u: f32) -> i64 {
    point_f64(u as f64)
}

/// [`point`] of a coordinate that takes more bits than an `f32` has ([`scale`]).
pub fn point_f64(u: f64) -> i64 {
    if u.is_nan() {
        return 0;
    }
    u.floor().clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

/// A coordinate in 1/256 texel units, as the texture unit quantizes it for filtering (round
/// half up); the range saturates. A NaN coordinate reads as 0 (before the half-texel shift:
/// the caller maps it).
pub fn fixed(u: f32) -> i64 {
    fixed_f64(u as f64)
}

/// [`fixed`] of a coordinate that takes more bits than an `f32` has ([`scale`]).
pub fn fixed_f64(u: f64) -> i64 {
    if u.is_nan() {
        return 0;
    }
    let s = (u * 256.0 + 0.5).floor();
    s.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

/// The fraction bits a normalized coordinate keeps before it is scaled to texels ([`scale`]).
pub const COORD_FRACTION_BITS: i32 = 21;

/// A normalized coordinate `u` in texels of a dimension of `n` texels, as an H200's texture
/// unit forms it: `u` floored to a multiple of `2^-21` (a fixed-point coordinate of 21
/// fraction bits), then multiplied exactly (the product can take more bits than an `f32`
/// has: the callers keep it in `f64`). On a size that is a power of two up to 4096 the floor
/// never moves a position across a rounding boundary (half a 1/256 texel lies on its grid);
/// on another size, or from 8192 on, a position just above a rounding boundary of the filter
/// (half a 1/256 texel, rounded up) or of point sampling (a whole texel) falls below it when
/// the floor takes off more than its excess (up to `n 2^-21` texels). Every filter and
/// geometry takes it: measured with coordinates just above such boundaries on ramp textures
/// (`corpus/aniso/npotpos.jsonl.xz`, `mipmap.py --family npotpos`: 2D textures of 48 x 20,
/// 40 x 24 and 12 x 20, cube maps of 40, 24 and 12): of 6,144 isotropic fetches (linear,
/// clamped and wrapped from -2 to 2, point, cube maps) the exact product agrees with 5,173,
/// this rule with every one (rounding the product to `f32`, as a 2D coordinate was kept:
/// 6,136); of 7,680 anisotropic ones (`tex.grad`, linear and point texels, clamped
/// and wrapped) the exact product with 6,756, this rule with every one, flooring to `2^-20` or
/// `2^-22` with 6,510 and 7,114, truncating toward zero with 7,599 (not the wrapped negative
/// coordinates). `npotpos2.jsonl.xz`: widths of 100, 1000, 6000, 4096 and 8192 (8192: the
/// exact product agrees with 265 of 512 linear fetches, flooring to `2^-20` or `2^-22` with 262
/// and 265, this rule with every one), 1D, 3D, layered 2D and mipmap levels 1 and 2: every
/// fetch. It is what moved the taps of the anisotropic footprints on cube faces of 10 to 48
/// texels (`corpus/vectors/seamnpot*.jsonl.xz`, `seamcfgsize*.jsonl.xz`: 21 fetches, each with
/// a coordinate just above a boundary; the impulse replays of
/// `corpus/aniso/seamcfgmiss.jsonl.xz` read every weight so). NaN and infinities are left to
/// the callers.
pub fn scale(u: f64, n: u32) -> f64 {
    if !u.is_finite() {
        return u * n as f64;
    }
    let q = f64::from(1u32 << COORD_FRACTION_BITS);
    (u * q).floor() / q * n as f64
}

/// Where index `i` of a dimension of `n` texels reads under mode `m`: `None` for the border.
pub fn address(i: i64, n: u32, m: AddrMode) -> Option<u32> {
    let n = n as i64;
    match m {
        AddrMode::Clamp => Some(i.clamp(0, n - 1) as u32),
        AddrMode::Border | AddrMode::ClampOgl => (0..n).contains(&i).then_some(i as u32),
        AddrMode::Wrap => Some(i.rem_euclid(n) as u32),
        AddrMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m } as u32)
        }
    }
}

/// Bilinear (or trilinear) weights for fractions `f` (in 1/256) of the filtered dimensions:
/// one weight per corner, corner bit `d` set for the upper texel of dimension `d`, in 1/65536.
/// Measured on an H200 (`corpus/vectors/texw3d.jsonl.xz`: every corner weight of 8192 random
/// fraction triples, one-hot texels; `texture.jsonl.xz`): the weights are multiples of 1/256,
/// split one dimension at a time from z, whose split is exact. Each z slice's weight `wz` is
/// split by x, the upper part rounded half up (`(a wz + 128) >> 8`); each of those by y, the
/// part whose y bit equals the x bit rounded half up, the other the remainder. In 2D (and 1D)
/// the z slice is the whole weight.
pub fn weights(f: &[i64]) -> Vec<i64> {
    weights_of(256, f)
}

/// [`weights`] of a total weight `total` in 1/256 (a mipmap level's share, which the
/// dimensions split as they split the whole): z's split of it rounded half up too.
pub fn weights_of(total: i64, f: &[i64]) -> Vec<i64> {
    let round = |frac: i64, w: i64| (frac * w + 128) >> 8;
    let a = f.first().copied().unwrap_or(0);
    let slices: Vec<i64> = match f.get(2) {
        Some(&c) => {
            let hi = (c * total + 127) >> 8;
            vec![total - hi, hi]
        }
        None => vec![total],
    };
    let mut w = Vec::with_capacity(1 << f.len());
    for wz in slices {
        let x1 = round(a, wz);
        let x0 = wz - x1;
        match f.get(1) {
            None => w.extend([x0 << 8, x1 << 8]),
            Some(&b) => {
                let y00 = round(256 - b, x0);
                let y11 = round(b, x1);
                w.extend([y00 << 8, (x1 - y11) << 8, (x0 - y00) << 8, y11 << 8]);
            }
        }
    }
    w
}

/// A float's value as `m * 2^e` (`None` for NaN and infinities).
fn parts(v: f64) -> Option<(i128, i32)> {
    if !v.is_finite() {
        return None;
    }
    if v == 0.0 {
        return Some((0, 0));
    }
    let b = v.to_bits();
    let exp = ((b >> 52) & 0x7ff) as i32;
    let frac = (b & ((1 << 52) - 1)) as i128;
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    Some((if v < 0.0 { -m } else { m }, e))
}

/// `s * 2^e` rounded to `p` significant bits, ties away from zero, with the quantum at least
/// `2^min_e` (the format's subnormal step), as an `f64`.
fn round_away(s: i128, e: i32, p: u32, min_e: i32) -> f64 {
    if s == 0 {
        return 0.0;
    }
    let mag = s.unsigned_abs();
    let bits = 128 - mag.leading_zeros() as i32;
    let shift = (bits - p as i32).max(min_e - e).max(0);
    let m = if shift == 0 {
        mag
    } else if shift >= 127 {
        0
    } else {
        (mag + (1u128 << (shift - 1))) >> shift
    };
    let v = m as f64 * 2f64.powi(e + shift);
    if s < 0 {
        -v
    } else {
        v
    }
}

/// The exponent `E` (`2^(E-1) <= |v| < 2^E`) of the largest finite nonzero texel of nonzero
/// weight of a run of texels, which sets the run's truncation quantum; `None` if there is none.
fn run_top(ws: &[i64], vs: &[f64]) -> Option<i32> {
    ws.iter()
        .zip(vs)
        .filter(|(&w, v)| w != 0 && v.is_finite() && **v != 0.0)
        .filter_map(|(_, &v)| {
            parts(v).map(|(m, e)| e + 128 - m.unsigned_abs().leading_zeros() as i32)
        })
        .max()
}

/// The sum of `w_k / 65536 * v_k` as the texture unit forms it: each texel of nonzero weight
/// truncated toward zero to `p + 4` bits below the leading-bit position of the largest of them
/// (`2^E` above it: the quantum is `2^(E - p - 4)`), the weighted texels summed exactly and
/// rounded once to `p` bits with ties away from zero (dense H200 sweeps of every weight,
/// `corpus/vectors/texfit.jsonl.xz`: every `f32` and `f16` sample); NaN if a weighted value is
/// NaN. Terms 2^100 times below the largest cannot change it. Each mipmap level's taps (the
/// consecutive runs of `group` taps) are truncated by their own largest texel and all summed
/// once (an H200: `corpus/vectors/mipmap.jsonl.xz`). The weights are in `1/2^shift` (16 here;
/// an anisotropic footprint's finer: [`filter_in`]).
fn weighted_sum(ws: &[i64], vs: &[f64], group: usize, p: u32, min_e: i32, shift: i32) -> f64 {
    let mut terms = Vec::with_capacity(ws.len());
    let mut inf = 0f64;
    let group = group.max(1);
    for (ws, vs) in ws.chunks(group).zip(vs.chunks(group)) {
        // This level's truncation quantum.
        let quantum = run_top(ws, vs).map(|t| t - p as i32 - 4);
        for (&w, &v) in ws.iter().zip(vs) {
            if w == 0 {
                continue;
            }
            match parts(v) {
                Some((m, e)) if m != 0 => {
                    let (m, e) = match quantum {
                        Some(q) if e < q => {
                            let sh = (q - e).min(127) as u32;
                            let mag = m.unsigned_abs() >> sh;
                            (if m < 0 { -(mag as i128) } else { mag as i128 }, q)
                        }
                        _ => (m, e),
                    };
                    if m != 0 {
                        terms.push((m * w as i128, e - shift));
                    }
                }
                Some(_) => {}
                None if v.is_nan() => return f64::NAN,
                None => {
                    if inf != 0.0 && inf != v {
                        return f64::NAN;
                    }
                    inf = v;
                }
            }
        }
    }
    if inf != 0.0 {
        return inf;
    }
    let Some(top) = terms
        .iter()
        .map(|&(m, e)| e + 128 - m.unsigned_abs().leading_zeros() as i32)
        .max()
    else {
        return 0.0;
    };
    let floor = top - 100;
    let base = terms
        .iter()
        .map(|&(_, e)| e)
        .filter(|&e| e >= floor)
        .min()
        .unwrap_or(floor);
    let mut s: i128 = 0;
    for (m, e) in terms {
        if e >= base {
            s += m << (e - base);
        }
    }
    round_away(s, base, p, min_e)
}

/// The sum of an anisotropic footprint's weighted texels (weights `w_k / 2^shift`) as the
/// texture unit forms it: each tap's texels (the consecutive runs of `runs`' lengths, run `k`
/// on level `levels[k]`) of nonzero weight truncated toward zero to `p + 4` bits below the
/// leading bit of the tap's largest, as [`weighted_sum`] truncates a level's, and summed
/// exactly; the taps then accumulated in order, four at a time (each level's taps in groups of
/// four from its first), into an accumulator whose last bit follows the largest texel read so
/// far: `2^K` with `K = 4 floor((T + 2) / 4) - p - 14` for the largest texel of the taps up to
/// and including the group, `2^(T-1) <= |v| < 2^T` (its exponent taken in steps of four:
/// `2^(T - p - 12)` where `T` is 2 mod 4, a texel in [2, 4) for instance). Each tap's sum is
/// truncated toward minus infinity (two's complement) to `2^K` as it is added, and where a
/// group raises `K` the accumulated sum is truncated so too first; the sum is rounded once to
/// `p` bits, ties away from zero. NaN if a weighted value is NaN; an infinite one (of one
/// sign) is the result.
///
/// H200 (docs/INTERP.md "Anisotropic filtering", *Value*): `corpus/vectors/seamcut.jsonl.xz`
/// (two-level fetches whose result, about 2^-15 of the largest texel, holds the cut sum
/// exactly: every one of 5,120 `f32` and `f16` fetches) and every recorded random `f32`
/// anisotropic fetch (2D, seamless cube maps). The accumulator's last bit 8 bits below the
/// largest texel's truncation quantum of the whole fetch, each tap cut to it (the former
/// rule), agreed with 69 of the 5,120.
fn tap_sum(
    ws: &[i64],
    vs: &[f64],
    runs: &[usize],
    levels: &[u32],
    p: u32,
    min_e: i32,
    shift: i32,
) -> f64 {
    let mut inf = 0f64;
    // Each tap's exact sum `s * 2^base` and its largest texel's `T`, its texels truncated by
    // that largest (`None`: no finite nonzero texel of nonzero weight).
    let mut taps: Vec<Option<(i128, i32, i32)>> = Vec::with_capacity(runs.len());
    let mut k = 0;
    for &n in runs {
        let (ws, vs) = (&ws[k..(k + n).min(ws.len())], &vs[k..(k + n).min(vs.len())]);
        k += n;
        let Some(top) = run_top(ws, vs) else {
            // No finite nonzero texel of nonzero weight: only NaN and infinities matter.
            for (&w, &v) in ws.iter().zip(vs) {
                if w != 0 && v.is_nan() {
                    return f64::NAN;
                }
                if w != 0 && v.is_infinite() {
                    if inf != 0.0 && inf != v {
                        return f64::NAN;
                    }
                    inf = v;
                }
            }
            taps.push(None);
            continue;
        };
        let q = top - p as i32 - 4;
        let mut s: i128 = 0;
        for (&w, &v) in ws.iter().zip(vs) {
            if w == 0 {
                continue;
            }
            match parts(v) {
                Some((m, e)) => {
                    // `v` truncated toward zero to units of `2^q` (an `f64` holding an `f32`
                    // or `f16` has its last bit far below `q`; a larger `e` is shifted up).
                    let mag = m.unsigned_abs();
                    let t = if e < q {
                        (mag >> (q - e).min(127) as u32) as i128
                    } else {
                        (mag as i128) << (e - q).min(64)
                    };
                    s += if m < 0 { -t } else { t } * w as i128;
                }
                None if v.is_nan() => return f64::NAN,
                None => {
                    if inf != 0.0 && inf != v {
                        return f64::NAN;
                    }
                    inf = v;
                }
            }
        }
        taps.push(Some((s, q - shift, top)));
    }
    if inf != 0.0 {
        return inf;
    }
    // The accumulator's last bit for a largest texel of `T`.
    let last_bit = |t: i32| 4 * (t + 2).div_euclid(4) - p as i32 - 14;
    // `s * 2^base` truncated toward minus infinity to units of `2^to`.
    let cut = |s: i128, base: i32, to: i32| {
        if to >= base {
            s >> (to - base).min(127)
        } else {
            s << (base - to).min(64)
        }
    };
    let (mut acc, mut bit, mut seen): (i128, Option<i32>, Option<i32>) = (0, None, None);
    let mut i = 0;
    while i < taps.len() {
        // The group: up to four consecutive taps of one level.
        let level = levels.get(i).copied().unwrap_or(0);
        let mut j = i + 1;
        while j < taps.len() && j - i < 4 && levels.get(j).copied().unwrap_or(0) == level {
            j += 1;
        }
        let group = &taps[i..j];
        i = j;
        let Some(top) = group.iter().flatten().map(|t| t.2).max() else {
            continue;
        };
        let top = seen.map_or(top, |t| t.max(top));
        seen = Some(top);
        let b = last_bit(top);
        if let Some(old) = bit {
            acc = cut(acc, old, b.max(old));
        }
        let b = bit.map_or(b, |old| b.max(old));
        bit = Some(b);
        for &(s, base, _) in group.iter().flatten() {
            acc += cut(s, base, b);
        }
    }
    match bit {
        Some(b) => round_away(acc, b, p, min_e),
        None => 0.0,
    }
}

/// One channel value of an `f16` or `f32` texel (its raw bits) as the filter reads it.
fn filter_value(f: Format, raw: u64) -> f64 {
    match f {
        Format::F16 => {
            f32::from_bits(float::convert_bits(raw, Fmt::F16, Fmt::F32, Rounding::Rn) as u32) as f64
        }
        _ => f32::from_bits(raw as u32) as f64,
    }
}

/// The filtered value of normalized `s8` texels `ts` with weights `ws` in 1/65536, as an
/// H200's texture unit forms it, in units of 1/32767 before the clamp to -1. The weights are
/// multiples of 1/256 (`weights`), so the texels' weighted sum is an integer `S = sum (w/256) t`
/// in units of 1/(127 * 256) (-128 not clamped first); it is widened to 16 bits as
/// `S (1 + 2^-7 + 2^-15)` is approximated by `S + S/128 + floor(S/4096)/8`, rounded half up:
/// `q = (129 S + 16 floor(S / 4096) + 64) >> 7` (the exact `S * 32767/32512` rounded differs by
/// one in about 6% of the distinct sums). Dense H200 sweeps of s8 pairs at every weight
/// (`corpus/vectors/texfit.jsonl.xz`: (0, t) and random pairs; `texfit2.jsonl.xz`: (t, t),
/// (t, 0), (127, t), (-127, t)): the 6 x 65536 samples hold 53427 distinct sums `S`, and the
/// result is a function of `S` alone that this rule matches in every sample (among the
/// variants `floor((S + c) / 4096)`, half-up offsets 63..65, only this one does); it also
/// explains the single texel -64 reading -16512 (`S = -16384`) and the `s8` cases of
/// `texture.jsonl.xz` (2D clamp and border, a 1D probe of every fraction).
///
/// With weights in `1/2^shift` finer than 1/65536 (an anisotropic footprint's, whose taps'
/// weights are in 1/512 or 1/1024: [`filter_in`]) `S` is a fraction `N / D`, `D = 2^(shift -
/// 8)`, taken exactly: `q = floor((129 N + D (16 floor(N / (4096 D)) + 64)) / (128 D))`, the
/// same rule for a whole `S` (`anisoprobe4.jsonl.xz` `ap4.val.s8.*`: 4,090 of 4,096 random
/// fetches of taps along x; rounding `S` to an integer first gives 2,291).
fn s8_filtered(ws: &[i64], ts: &[i64], shift: i32) -> i64 {
    let n: i64 = ws.iter().zip(ts).map(|(&w, &t)| w * t).sum();
    let d = 1i64 << (shift - 8);
    (129 * n + d * (16 * n.div_euclid(4096 * d) + 64)).div_euclid(128 * d)
}

/// Filtered channels (`f32` bits) of the corner texels `ts` (raw bytes) with weights `ws` in
/// 1/65536, as an H200's texture unit computes them: `f32` and `f16` texels as
/// `weighted_sum` says; normalized `u8`, `u16`, `s16` texels widened to 16 bits, summed,
/// rounded to an integer (half up) and divided; `s8` as `s8_filtered` says. The taps come in
/// runs of `group`, one run per mipmap level read.
pub fn filter(t: &TextureArg, ws: &[i64], ts: &[[u8; 16]], group: usize) -> [u32; 4] {
    filter_in(t, ws, ts, Runs::Levels(group), 16)
}

/// How [`filter_in`] groups `f32` and `f16` texels.
#[derive(Copy, Clone, Debug)]
pub enum Runs<'a> {
    /// Consecutive runs of this many texels, one per mipmap level read (a bilinear or
    /// trilinear footprint), each truncated by its own largest texel, all summed exactly
    /// (`weighted_sum`).
    Levels(usize),
    /// An anisotropic footprint's taps, consecutive runs of these lengths (4 texels for a
    /// linear tap, 1 for a point one; more for taps summed as one; the four texels of each z
    /// slice of a 3D texture), each on the level the second slice gives: each truncated by
    /// its own largest texel, the taps accumulated four at a time, each tap's sum truncated
    /// to the accumulator's last bit (`tap_sum`).
    Taps(&'a [usize], &'a [u32]),
}

/// [`filter`] with the weights in `1/2^shift` (16 to 24): an anisotropic footprint's are in
/// 1/(256 T) of a tap's weight in 1/T (T 512 or 1024), so 1/2^18. The rules are the same,
/// each sum taken exactly (`anisofit.py`, `fetch`; the normalized `u8` and `s8` fetches of
/// `anisoprobe4.jsonl.xz` and `anisoprobe6.rand.jsonl.xz`, docs/INTERP.md "Anisotropic
/// filtering"), but for `f32` and `f16` texels, whose taps ([`Runs::Taps`]) are each cut to
/// the accumulator's last bit (set by the largest texel read so far) as they are added
/// (`tap_sum`). A normalized `s16` texel of -32768 is summed as it is, in a
/// bilinear tap as in an anisotropic footprint (`aniso16.jsonl.xz`, `aniso16#s16x2.edge.*`,
/// and `corpus/vectors/s16clamp.jsonl.xz`: bilinear fetches of textures of -32768 beside
/// other values; clamping it to -32767 first misses 855 of their 2,048 channel values).
/// Integer texels read as integers (an anisotropic footprint's point-filtered taps,
/// the only filtering they allow) are summed exactly and rounded once: down (toward minus
/// infinity) for 32-bit channels, to nearest (half up) for 8- and 16-bit ones, as `tld4`
/// rounds the spread past a cube's corner ([`corner_gather_int`]; `aniso16#int.*`).
pub fn filter_in(
    t: &TextureArg,
    ws: &[i64],
    ts: &[[u8; 16]],
    runs: Runs<'_>,
    shift: i32,
) -> [u32; 4] {
    let f = t.layout.format;
    let n = f.bytes() as usize;
    let mut out = [0u32; 4];
    // The weighted sum of whole texels `vs`, exact, in units of 1/2^shift.
    let exact = |vs: &[i64]| -> i128 {
        ws.iter()
            .zip(vs)
            .map(|(&w, &v)| w as i128 * v as i128)
            .sum()
    };
    let half = 1i128 << (shift - 1).clamp(0, 100);
    for (ch, o) in out.iter_mut().enumerate().take(t.layout.channels as usize) {
        let raws: Vec<i64> = ts
            .iter()
            .map(|b| f.raw(&b[ch * n..(ch + 1) * n]) as i64)
            .collect();
        *o = if f.is_float() {
            let vs: Vec<f64> = raws.iter().map(|&r| filter_value(f, r as u64)).collect();
            let (p, min_e) = if f == Format::F16 {
                (11, -24)
            } else {
                (24, -149)
            };
            let v = match runs {
                Runs::Levels(group) => weighted_sum(ws, &vs, group, p, min_e, shift),
                Runs::Taps(runs, levels) => tap_sum(ws, &vs, runs, levels, p, min_e, shift),
            };
            (v as f32).to_bits()
        } else if !t.sampler.normalized_read {
            let s = exact(&raws);
            let q = if n == 4 { s } else { s + half };
            (q >> shift) as u32
        } else if f == Format::S8 {
            ((s8_filtered(ws, &raws, shift) as f64 / 32767.0).max(-1.0) as f32).to_bits()
        } else {
            // Widened to 16 bits: `u8` times 257; `s16` -32768 summed as it is.
            let (vs, den): (Vec<i64>, f64) = match f {
                Format::U8 => (raws.iter().map(|&v| v * 257).collect(), 65535.0),
                Format::S16 => (raws, 32767.0),
                _ => (raws, 65535.0),
            };
            let q = (exact(&vs) + half) >> shift;
            ((q as f64 / den).max(-1.0) as f32).to_bits()
        };
    }
    out
}

/// The axis (0, 1, 2 for x, y, z) of a cube direction's largest component, the one that picks
/// its face: ties go to z, then y (an H200 reads face +z for (1, 1, 1)); NaN components lose.
/// In `f64`, which holds an `f32` direction exactly and a sum of two (direction plus gradient)
/// too.
pub fn major_axis(v: [f64; 3]) -> usize {
    let a = v.map(f64::abs);
    if a[2] >= a[0] && a[2] >= a[1] {
        2
    } else if a[1] >= a[0] {
        1
    } else {
        0
    }
}

/// The cube face and the (s, t) coordinates in [0, 1] a direction selects (the major axis picks
/// the face; the others are divided by its magnitude), as `(face, s, t)`. A zero direction
/// reads face +z. The division is the texture unit's: each other component times the
/// special-function unit's approximate reciprocal of the major axis (`MUFU.RCP`, what
/// `rcp.approx.ftz.f32` runs), rounded to `f32`, then `(r + 1) / 2` exactly (an H200:
/// `corpus/vectors/mipfit.jsonl.xz` `tex.cube.fit`, 4096 directions on 256-texel faces whose
/// texels hold their coordinates, every filter coordinate exact; the exact quotient misses 10).
pub fn cube_face(x: f32, y: f32, z: f32) -> (u32, f64, f64) {
    let (face, sc, tc, ma) = match major_axis([x, y, z].map(f64::from)) {
        2 if z >= 0.0 => (4, x, -y, z.abs()),
        2 => (5, -x, -y, z.abs()),
        1 if y >= 0.0 => (2, x, z, y.abs()),
        1 => (3, x, -z, y.abs()),
        _ if x >= 0.0 => (0, -z, -y, x.abs()),
        _ => (1, z, -y, x.abs()),
    };
    if ma == 0.0 {
        return (face, 0.5, 0.5);
    }
    let r = f32::from_bits(float::approx::rcp_f32(ma.to_bits() as u64, true) as u32);
    let side = |c: f32| ((c * r) as f64 + 1.0) / 2.0;
    (face, side(sc), side(tc))
}

/// The texel of a seamless cube map's level of `n` x `n` texels that texel `(i, j)` of face
/// `face` stands for when `(i, j)` lies outside the face across one edge: the texel of the
/// adjacent face along that edge as far in from it as `(i, j)` lies past it (the cube folded: a
/// point one texel past the edge is the edge texel of the face it turns onto; an anisotropic
/// footprint's taps reach further, held on the adjacent face). Inside the face it is itself;
/// past a corner (both coordinates outside) there is none (`None`).
pub fn cube_neighbor(face: u32, n: i64, i: i64, j: i64) -> Option<(u32, i64, i64)> {
    let out = |k: i64| !(0..n).contains(&k);
    if out(i) && out(j) {
        return None;
    }
    if !out(i) && !out(j) {
        return Some((face, i, j));
    }
    // Texel centres in half-texel units from the face's centre: the face's plane lies at
    // distance n, its centres at odd offsets up to n - 1; `d` (odd) is how far past the
    // face's edge the texel's centre lies, at most across the adjacent face.
    let (u, v) = (2 * i + 1 - n, 2 * j + 1 - n);
    let d = (u.abs().max(v.abs()) - n).min(2 * n - 1);
    let (u, v) = (u.clamp(-n - d, n + d), v.clamp(-n - d, n + d));
    // The point on the cube (x, y, z), from the face's (sc, tc) axes (see [`cube_face`]).
    let mut p = match face {
        0 => [n, -v, -u],
        1 => [-n, -v, u],
        2 => [u, n, v],
        3 => [u, -n, -v],
        4 => [u, -v, n],
        _ => [-u, -v, -n],
    };
    // The axis that left the face (|u| or |v| = n + d) becomes the major one; the old major
    // axis moves in by `d`, to the new face's texels as far in from its edge.
    let major = (face / 2) as usize;
    p[major] -= p[major].signum() * d;
    let (nf, sc, tc) = if major != 2 && p[2].abs() == n + d {
        if p[2] > 0 {
            (4, p[0], -p[1])
        } else {
            (5, -p[0], -p[1])
        }
    } else if major != 1 && p[1].abs() == n + d {
        if p[1] > 0 {
            (2, p[0], p[2])
        } else {
            (3, p[0], -p[2])
        }
    } else if p[0] > 0 {
        (0, -p[2], -p[1])
    } else {
        (1, p[2], -p[1])
    };
    Some((nf, (sc + n - 1) / 2, (tc + n - 1) / 2))
}

/// A seamless cube map's bilinear weights `w` (as [`weights_of`] gives them) when footprint
/// texel `k` lies past a corner of the cube, where no face has it: its weight goes to the other
/// three, a third (in 1/256, rounded to nearest) to each of the two beside it and the rest to
/// the one across. Measured on an H200 (`corpus/vectors/seamless.jsonl.xz`, `seamcorner`:
/// one-hot texels at the three faces' corner texels, 8192 fraction pairs at two corners, every
/// weight exact).
pub fn corner_weights(w: &mut [i64], k: usize) {
    let wc = w[k] >> 8;
    let third = (wc + 1) / 3;
    w[k ^ 1] += third << 8;
    w[k ^ 2] += third << 8;
    w[3 - k] += (wc - 2 * third) << 8;
    w[k] = 0;
}

/// `tld4`'s answer, channel `ch`, for footprint texel `k` of a seamless cube map of integer
/// texels read as integers when `k` lies past a corner of the cube (`ts`: the footprint's raw
/// texels, `ts[k]` unused): the other three weighed as [`corner_weights`] spreads a whole
/// weight (85/256 on each texel beside, 86/256 on the one across), summed exactly, then
/// rounded down for 32-bit channels and to nearest (half up) for 8- and 16-bit ones. Measured
/// on an H200 (`corpus/vectors/seamless.jsonl.xz`, `seamtld4int`: every corner lane of `u32`,
/// `s32`, `u8` and `s16` maps, each channel).
pub fn corner_gather_int(t: &TextureArg, ts: &[[u8; 16]; 4], k: usize, ch: usize) -> u32 {
    let mut w = [0i64; 4];
    w[k] = 256 << 8;
    corner_weights(&mut w, k);
    let others = (0..4).filter(|&q| q != k);
    let ws: Vec<i64> = others.clone().map(|q| w[q] >> 8).collect();
    let texels: Vec<[u8; 16]> = others.map(|q| ts[q]).collect();
    // `filter_in`'s rule for integer texels read as integers, the weights in 1/256.
    filter_in(t, &ws, &texels, Runs::Levels(1), 8)[ch]
}

/// `txq`/`suq` `.channel_data_type`: the OpenCL constant the ISA names (PTX ISA 5.3.3).
pub fn channel_data_type(f: Format, normalized_read: bool) -> u32 {
    match (f, normalized_read) {
        (Format::S8, true) => 0x10D0,
        (Format::S16, true) => 0x10D1,
        (Format::U8, true) => 0x10D2,
        (Format::U16, true) => 0x10D3,
        (Format::S8, false) => 0x10D7,
        (Format::S16, false) => 0x10D8,
        (Format::S32, _) => 0x10D9,
        (Format::U8, false) => 0x10DA,
        (Format::U16, false) => 0x10DB,
        (Format::U32, _) => 0x10DC,
        (Format::F16, _) => 0x10DD,
        (Format::F32, _) => 0x10DE,
    }
}

/// `txq`/`suq` `.channel_order`: `CL_R`, `CL_RG` or `CL_RGBA`.
pub fn channel_order(channels: u32) -> u32 {
    match channels {
        1 => 0x10B0,
        2 => 0x10B2,
        _ => 0x10B5,
    }
}

/// `txq` `.addr_mode_N`: the ISA's `enum { wrap, mirror, clamp_ogl, clamp_to_edge,
/// clamp_to_border }`.
pub fn addr_mode_code(m: AddrMode) -> u32 {
    match m {
        AddrMode::Wrap => 0,
        AddrMode::Mirror => 1,
        AddrMode::Clamp => 3,
        AddrMode::Border => 4,
        AddrMode::ClampOgl => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anisotropic_taps_are_cut_to_the_accumulator() {
        let t = |k: i32| 2f64.powi(k);
        let sum = |ws: &[i64], vs: &[f64], runs: &[usize], levels: &[u32]| {
            tap_sum(ws, vs, runs, levels, 24, -149, 18)
        };
        // Point taps of 0.5 (1/2 of 1.0), 2^-25 (2^-18 of 2^-7: half a unit of 0.5's last
        // place, a tie), -2^-37 and 2^-37. The largest texel, 1.0, puts the accumulator's last
        // bit at 2^-38 (its exponent in steps of four): every tap is kept, the sum lies on the
        // tie and rounds away from zero.
        let ws = [1 << 17, 1, 1, 1];
        let vs = [1.0, t(-7), -t(-19), t(-19)];
        assert_eq!(sum(&ws, &vs, &[1; 4], &[0; 4]), 0.5 + t(-24));
        // The same taps with a largest texel of 2.0 (a quarter of it: 0.5 again): the last bit
        // is 2^-34, the third tap is cut to -2^-34 and the fourth to 0, below the tie.
        let ws2 = [1 << 16, 1, 1, 1];
        let vs2 = [2.0, t(-7), -t(-19), t(-19)];
        assert_eq!(sum(&ws2, &vs2, &[1; 4], &[0; 4]), 0.5);
        assert_eq!(weighted_sum(&ws2, &vs2, 1, 24, -149, 18), 0.5 + t(-24));
        // Taps summed as one (a ratio of 1) are cut once: the third and fourth cancel.
        assert_eq!(sum(&ws2, &vs2, &[1, 1, 2], &[0; 3]), 0.5 + t(-24));
        // The alignment follows the largest texel read so far, four taps at a time: with
        // 2.0 in a later group (the fifth tap), or on the next level, the small taps are
        // summed at 2^-42 (largest 2^-7), exactly, and that sum is cut once where the
        // alignment rises; in the first group, each is cut at 2^-34.
        let ws3 = [1, 1, 1, 1, 1 << 16];
        let vs3 = [t(-7), -t(-19), t(-19), 0.0, 2.0];
        assert_eq!(sum(&ws3, &vs3, &[1; 5], &[0; 5]), 0.5 + t(-24));
        let (ws4, vs4) = ([1, 1, 1, 1 << 16], [t(-7), -t(-19), t(-19), 2.0]);
        assert_eq!(sum(&ws4, &vs4, &[1; 4], &[0, 0, 0, 1]), 0.5 + t(-24));
        assert_eq!(sum(&ws4, &vs4, &[1; 4], &[0; 4]), 0.5);
        // NaN and infinities as in a bilinear tap.
        assert!(sum(&[1, 1], &[f64::NAN, 1.0], &[2], &[0]).is_nan());
        assert_eq!(
            sum(&[1, 1], &[f64::INFINITY, 1.0], &[1, 1], &[0; 2]),
            f64::INFINITY
        );
    }
}
