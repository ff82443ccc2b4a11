//! Mipmap levels: which level a fetch reads, from `tex.level`'s operand or `tex.grad`'s
//! gradients, and the sampler's bias and clamps, as an H200's texture unit computes it.
//!
//! The level of detail is a fixed-point number in 1/256 (`corpus/vectors/mipprobe.jsonl.xz`,
//! `gradfit.jsonl.xz`, recorded by `tools/hwvectors/mipmap.py`): linear level filtering
//! weighs the upper level by its low 8 bits exactly, nearest filtering rounds it half up.

use smallvec::{smallvec, SmallVec};

/// The levels one fetch reads, with their weights in 1/256 (one or two: no allocation per
/// fetch).
pub type Levels = SmallVec<[(u32, i64); 2]>;

/// The mipmap fields of a sampler (`cudaTextureDesc`'s `mipmapFilterMode`,
/// `mipmapLevelBias`, `minMipmapLevelClamp`, `maxMipmapLevelClamp`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Mip {
    /// Blend the two nearest levels; otherwise read the nearest one.
    pub linear: bool,
    /// Added to the level of detail of `tex.level` and `tex.grad`.
    pub bias: f32,
    /// The least level of detail.
    pub min: f32,
    /// The greatest level of detail.
    pub max: f32,
    /// `maxAnisotropy`: 0 or 1 for isotropic filtering. Above 1 the level of detail of
    /// `tex.level` is sharpened toward whole levels ([`sharpen`]) while the trilinear
    /// optimisation is on.
    pub aniso: u32,
    /// CUDA's trilinear optimisation (on unless `disableTrilinearOptimization` is set): with
    /// anisotropic filtering it is what sharpens the level of detail; otherwise it changes
    /// nothing (`mipprobe.jsonl.xz`, `mip.level.linear.1d.noopt`).
    pub trilinear_opt: bool,
}

/// Where the level of detail of a fetch comes from.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Lod {
    /// `tex` and `tex.base`: level 0, the bias not applied.
    Base,
    /// `tex.level`: the operand.
    Level(f32),
    /// `tex.grad`: from the gradients, in 1/256 ([`grad_lod`]).
    Grad(i64),
    /// `tex.level` with integer coordinates: the level itself.
    Index(i64),
    /// `tex.grad` of an anisotropic texture: the raw level of detail in 1/256 (taken as
    /// [`Lod::Grad`] takes its value) and the footprint ([`crate::aniso`]).
    Aniso(crate::aniso::Grad),
}

/// `v` in 1/256 (the texture unit's fixed point for a level of detail), rounded by `round`;
/// NaN reads 0 and the range saturates.
fn fixed256(v: f32, round: fn(f64) -> f64) -> i64 {
    if v.is_nan() {
        return 0;
    }
    round(v as f64 * 256.0).clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

/// An operand's level of detail in 1/256, rounded down.
fn lod_fixed(v: f32) -> i64 {
    fixed256(v, f64::floor)
}

/// A bias or clamp in 1/256, rounded toward zero, as the sampler holds them.
fn lod_fixed_trunc(v: f32) -> i64 {
    fixed256(v, f64::trunc)
}

impl Mip {
    /// The level of detail a fetch uses, in 1/256: `lod`, plus the bias (not for
    /// [`Lod::Base`]), at most `max`, then at least `min` (so `min` wins when the clamps
    /// cross), and within the texture's `levels`. Each term is held in 1/256 first: the
    /// operand rounded down, the bias and clamps toward zero. Measured on an H200
    /// (`corpus/vectors/mipprobe.jsonl.xz`: dense sweeps of the operand with and without bias
    /// and clamps, nearest and linear level filtering).
    ///
    /// With anisotropic filtering (`aniso` above 1) and the trilinear optimisation on, the
    /// level of detail of `tex.level` and `tex.grad` plus the bias is sharpened ([`sharpen`])
    /// before the clamps, `tex.level`'s operand is held in 1/256 toward zero and the bias as
    /// `sharp_bias` says (`anisofit.jsonl.xz`; `anisobias.jsonl.xz`, its `ac.lod.level.*`
    /// random operands, half of them negative, with positive biases too).
    pub fn lod(&self, lod: Lod, levels: u32) -> i64 {
        let sharp = self.aniso > 1 && self.trilinear_opt;
        let bias = if sharp {
            sharp_bias(self.bias, self.aniso)
        } else {
            lod_fixed_trunc(self.bias)
        };
        let l = match lod {
            Lod::Base => 0,
            // Sharpened, the operand is held toward zero.
            Lod::Level(v) if sharp => lod_fixed_trunc(v) + bias,
            Lod::Level(v) => lod_fixed(v) + bias,
            Lod::Grad(g) => g + bias,
            Lod::Aniso(a) => a.raw + bias,
            Lod::Index(i) => i.saturating_mul(256),
        };
        let l = match lod {
            Lod::Level(_) | Lod::Grad(_) | Lod::Aniso(_) if sharp => sharpen(l, self.aniso),
            _ => l,
        };
        let l = l
            .min(lod_fixed_trunc(self.max))
            .max(lod_fixed_trunc(self.min));
        l.clamp(0, (levels.max(1) as i64 - 1) * 256)
    }

    /// The levels a fetch at level of detail `l` (in 1/256) reads, with their weights in
    /// 1/256: the nearest level (half up), or the two around `l`, the upper weighted by the
    /// fraction.
    pub fn levels(&self, l: i64) -> Levels {
        if !self.linear {
            return smallvec![(((l + 128) >> 8) as u32, 256)];
        }
        let (k, w) = ((l >> 8) as u32, l & 255);
        if w == 0 {
            smallvec![(k, 256)]
        } else {
            smallvec![(k, 256 - w), (k + 1, w)]
        }
    }
}

/// The bias in 1/256 as the sharpened level of detail takes it (`maxAnisotropy` above 1, the
/// trilinear optimisation on): with `x` the bias in 1/256 (exact), `p - trunc((c - m x) / m)`
/// with `(m, p, c)` `(3, 42, 128)` for `maxAnisotropy` 2 and 3, `(7, 54, 384)` for 4 to 7 and
/// `(2, 64, 128)` for 8 and above (`m` and `p` the slope and the plateau of [`sharpen`]'s map,
/// `m (f - p)` over its divisor). So the bias is held in 1/256, rounded toward `p + 2/3` (2,
/// 3), `p + 6/7` (4 to 7) or `p` (8 and above) 1/256: a bias from 0 to `p` 1/256 up, above
/// it down, below 0 up (with 2 to 7 from a fraction above 1/3 or 1/7 only). Measured on an
/// H200 (`tools/hwvectors/mipmap.py --family anisobias`, `anisocheck`,
/// `corpus/vectors/anisobias.jsonl.xz`): `tex.level` over every 1/256 of three levels at
/// 267 biases with `maxAnisotropy` 2 and 3 and 279 with 4 to 7, each sweep explained by one
/// whole bias, this one; random levels of detail at five biases with 2, 4, 8 and 16; the
/// sweeps of `anisofit.jsonl.xz` (eight biases, 8 and 16). Rounding the bias toward zero,
/// down or to nearest explains at most 114 of the 267 sweeps and 127 of the 279.
fn sharp_bias(b: f32, aniso: u32) -> i64 {
    if b.is_nan() {
        return 0;
    }
    let (m, p, c) = match aniso {
        0..=3 => (3.0, 42i64, 128.0),
        4..=7 => (7.0, 54, 384.0),
        _ => (2.0, 64, 128.0),
    };
    let x = (b as f64 * 256.0).clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64);
    p - ((c - m * x) / m).trunc() as i64
}

/// A level of detail `l` (in 1/256) as anisotropic filtering with the trilinear optimisation
/// takes it: within each whole level the fraction `f` is stretched about the middle, so that
/// the low fractions read the level alone, the high ones the next, and the blend between the
/// two is steeper: `2 f - 128` for `maxAnisotropy` 8 and above, `(7 f - 378) / 4` for 4 to 7,
/// `(3 f - 126) / 2` for 2 and 3 (rounded down, then within `[0, 256]`). Measured on an H200
/// (`corpus/vectors/anisofit.jsonl.xz`: `tex.level` over every 1/64 of nine levels; the
/// `tex.grad` ratio sweeps of `tools/hwvectors/mipmap.py --family anisoprobe` give the same
/// map); with `disableTrilinearOptimization` the level of detail is not sharpened
/// (`anisoprobe2`, `ap2.lod.noopt.*`).
pub fn sharpen(l: i64, aniso: u32) -> i64 {
    let (q, f) = (l.div_euclid(256), l.rem_euclid(256));
    let s = match aniso {
        0..=1 => return l,
        2..=3 => (3 * f - 126).div_euclid(2),
        4..=7 => (7 * f - 378).div_euclid(4),
        _ => 2 * f - 128,
    };
    q.saturating_mul(256).saturating_add(s.clamp(0, 256))
}

/// `256 log2(1 + j/256)` as the texture unit's table has it, for the top 8 bits `j` of a
/// significand: measured on an H200 over every 16-bit significand at two exponents
/// (`gradfit.jsonl.xz`, `gfit.log2*`); each entry is `256 log2(1 + (j + 1/2)/256)` rounded,
/// except where that lies within 0.03 above a half, a table artefact no formula reproduces
/// more simply than the table itself.
pub(crate) const LOG2: [u8; 256] = [
    0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34,
    35, 36, 38, 39, 40, 42, 43, 44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64,
    65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 92,
    93, 94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114,
    115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133,
    135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152,
    153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170,
    171, 172, 173, 173, 174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187,
    188, 188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203,
    204, 205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218,
    219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232, 233, 233,
    234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248,
    248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
];

/// `256 log2(v)` for a positive `v` as the texture unit takes it: the exponent, and the table
/// entry of the significand's top 8 bits (the rest truncated). `None` for zero, which has no
/// level of detail (the least level is read).
fn log2_fixed(v: f32) -> Option<i64> {
    if v.is_nan() || v <= 0.0 {
        return None;
    }
    if v.is_infinite() {
        return Some(i64::from(i16::MAX));
    }
    let b = v.to_bits();
    let (e, m) = if b >> 23 == 0 {
        // Subnormal: normalize.
        let z = (b & 0x7f_ffff).leading_zeros() - 8;
        (-126 - z as i64, (b << (z + 1)) & 0x7f_ffff)
    } else {
        (((b >> 23) & 0xff) as i64 - 127, b & 0x7f_ffff)
    };
    Some(e * 256 + LOG2[(m >> 15) as usize] as i64)
}

/// `|v|` truncated to 9 bits after its leading one.
pub(crate) fn trunc9(v: f64) -> f64 {
    let b = v.abs().to_bits();
    f64::from_bits(b & !((1u64 << 43) - 1))
}

/// The weight of a gradient's third component in its length (3D).
const K2: f64 = 0.25;

/// The magnitudes of `v`, each truncated to 9 bits after its leading one, largest first
/// (three of them, zeros added).
fn sorted9(v: &[f64]) -> [f64; 3] {
    let mut a = [0f64; 3];
    for (o, &x) in a.iter_mut().zip(v) {
        *o = trunc9(x);
    }
    a.sort_by(|p, q| q.total_cmp(p));
    a
}

/// `2^(e - 9)` for `2^e <= x < 2^(e + 1)`: the last bit of `x` truncated to 9 bits.
pub(crate) fn ulp9(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xfff0_0000_0000_0000) / 512.0
}

/// `|v|` truncated to `bits` bits after its leading one.
fn trunc_bits(v: f64, bits: u32) -> f64 {
    f64::from_bits(v.abs().to_bits() & !((1u64 << (52 - bits)) - 1))
}

/// The weight of a gradient's second component, `m` (truncated to 9 bits): 11/32 of its
/// 10-bit significand plus 1/8 of its last bit, cut to 9 bits again (as a truncated
/// multiplier forms 5635/16384 of it; `mipfit.jsonl.xz` `gfit3.k1.*`: every switch point of
/// the product over every significand and seven binades below the largest component).
fn second(m: f64) -> f64 {
    if m == 0.0 {
        return 0.0;
    }
    let u = ulp9(m);
    trunc9((11.0 / 32.0 * (m / u) + 0.125) * u)
}

/// The length the texture unit gives a gradient (in texels): an octagonal norm of its
/// truncated magnitudes, the largest plus about 0.344 of the next ([`second`]) plus [`K2`] of
/// the third (3D).
pub(crate) fn length(v: &[f64], k2: f64) -> f64 {
    let a = sorted9(v);
    a[0] + second(a[1]) + k2 * a[2]
}

/// A normalized gradient component `g` in texels of a dimension of `d` texels. A power of two
/// scales exactly. Another size multiplies the 10-bit significand `m` of `g` truncated to 9
/// bits after its leading one in a truncated multiplier: each partial product `m 2^b` (for
/// the set bits `b` of `d`) is cut to units of `2^(n - 4)` for the bit length `n` of `d`, and
/// 7 units are added to their sum (fitted to an H200: `mipfit.jsonl.xz` `gfit3.npot.*`, 1D
/// widths 37, 100 and 255 and a 100 x 37 texture over every direction, every sample).
pub fn to_texels(g: f32, d: u32) -> f32 {
    if d.is_power_of_two() || !g.is_finite() || g == 0.0 {
        return g * d as f32;
    }
    let a = g.abs() as f64;
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let m = (a / 2f64.powi(e - 9)).floor() as u64;
    let n = 32 - d.leading_zeros() as i32;
    // In units of 2^(e - 9); the cut is to 2^(n - 4) of them (a fraction below 8 texels).
    let unit = 2f64.powi(n - 4);
    let s: f64 = (0..n)
        .filter(|b| d >> b & 1 == 1)
        .map(|b| ((m << b) as f64 / unit).floor())
        .sum();
    ((s + 7.0) * unit * 2f64.powi(e - 9)).copysign(g as f64) as f32
}

/// `p + q` for two components truncated to 9 bits after their leading one, as the texture
/// unit's adder forms a diagonal's component: the smaller magnitude is first cut to half the
/// last bit of the larger (one guard bit, no sticky bit), so a difference of magnitudes reads
/// less than half that last bit high, which shows where it cancels leading bits. A sum of like
/// signs is unchanged once the diagonal truncates it to 9 bits again. Fitted to an H200 (`mipfit.jsonl.xz`
/// `gfit.rand`, `gfit2.rand`, `mipmap.jsonl.xz` `mip.grad.2d.rand`, `.nonsquare`: every
/// sample; `tools/hwvectors/diagfit.py`): of their random pairs the exact difference misses
/// 14, the smaller operand cut to the larger's last bit 20, to a quarter of it 8; the raw
/// anisotropic levels of detail of `corpus/aniso/anisoprobe6.lod.jsonl.xz` all agree (the
/// exact difference missed 31 of 49,149).
pub(crate) fn add9(p: f64, q: f64) -> f64 {
    let (big, small) = if p.abs() >= q.abs() { (p, q) } else { (q, p) };
    if small == 0.0 || !big.is_finite() {
        return p + q;
    }
    let g = ulp9(big.abs()) / 2.0;
    big + ((small.abs() / g).floor() * g).copysign(small)
}

/// The extent the footprint's diagonal `v` (the sum or difference of the two truncated
/// gradients) adds, 11/16 of its length as truncated multipliers form it, one per magnitude,
/// then added: for its truncated magnitudes `M >= x >= y` in units `u` of M's last bit,
/// `G = (11 M + 4) / 16` cut to 9 significant bits (whole units above 512, half units below),
/// plus `X`, 121/512 (11/16 of 11/32) of `x` cut to 11 bits and 1/16 of x's own last bit
/// (`mipfit.jsonl.xz` `gfit3.diag.*`: the diagonal over its second component for ten largest
/// components, every sample), plus in 3D `Y`, 11/16 [`K2`] (11/64) of `y` and 1/16 of y's own
/// last bit (a product of the form of `X`), cut to the last bit of `X` (9 bits after its
/// leading one, no guard bit) by the adder that adds it to `X`. Fitted to an H200
/// (`corpus/lod/diag3d.json.xz`, `diag3dx.json.xz`: every one of their 35,040 3D samples; a
/// third term `11/64 y` added exactly, as the lengths add theirs, read one or two 1/256 steps
/// high in 351 of them; cut to a quarter of x's last bit instead, 11) and checked on samples
/// recorded after the fit (`diag3dc.json.xz`: 8,192 random half diagonals and pairs, every
/// one; `tools/hwvectors/diagfit.py --probe`).
pub(crate) fn diagonal(v: &[f64], k2: f64) -> f64 {
    let a = sorted9(v);
    if a[0] == 0.0 || !a[0].is_finite() {
        return a[0];
    }
    let g = eleven16(a[0]);
    let mut h = 0.0;
    if a[1] > 0.0 {
        h = trunc_bits(121.0 / 512.0 * a[1], 11) + ulp9(a[1]) / 16.0;
        if a[2] > 0.0 && k2 > 0.0 {
            let y = 11.0 / 16.0 * k2 * a[2] + ulp9(a[2]) / 16.0;
            let w = ulp9(h);
            h += (y / w).floor() * w;
        }
    }
    g + h
}

/// `G` of [`diagonal`]: 11/16 of a magnitude `m` as the truncated multiplier forms the
/// diagonal's largest term, `m` truncated to 9 bits after its leading one, `(11 M + 4) / 16`
/// of units `u` of its last bit, cut to half units (whole units from 512 `u` on). The
/// anisotropic footprint weights each component of a diagonal's vector so
/// (`aniso::major_axis`).
pub(crate) fn eleven16(m: f64) -> f64 {
    let m = trunc9(m);
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    let u = ulp9(m);
    let g = (11.0 * (m / u) + 4.0) / 16.0;
    let g = if g >= 512.0 {
        g.floor()
    } else {
        (2.0 * g).floor() / 2.0
    };
    g * u
}

/// The level of detail of `tex.grad` in 1/256, before bias and clamps, from the gradients
/// `dx` and `dy` in texels (one to three components each): `256 log2` of the footprint's
/// extent, the largest of the two gradients' lengths (`length`) and of the extents of their
/// sum and difference (`diagonal`; each component of them as `add9` forms it). `None` (the
/// least level) when there is no footprint or a gradient is NaN. Fitted to an H200
/// (`gradfit.jsonl.xz`, `gradfit2.jsonl.xz`: dense sweeps of one gradient's length over every
/// direction, of the two gradients' angle, of the diagonal's components; random pairs): exact
/// on every sample, a 3D texture's gradients taken as their coordinates' change by the caller
/// (`exec::texture`; docs/INTERP.md, "Mipmaps").
pub fn grad_lod(dx: &[f32], dy: &[f32]) -> Option<i64> {
    let k2 = if dx.len() >= 3 { K2 } else { 0.0 };
    let gx: Vec<f64> = dx.iter().map(|&v| v as f64).collect();
    let gy: Vec<f64> = dy.iter().map(|&v| v as f64).collect();
    if gx.iter().chain(&gy).any(|v| v.is_nan()) {
        return None;
    }
    let signed9 = |v: f64| trunc9(v).copysign(v);
    let s: Vec<f64> = gx
        .iter()
        .zip(&gy)
        .map(|(&a, &b)| add9(signed9(a), signed9(b)))
        .collect();
    let d: Vec<f64> = gx
        .iter()
        .zip(&gy)
        .map(|(&a, &b)| add9(signed9(a), -signed9(b)))
        .collect();
    let rho = length(&gx, k2)
        .max(length(&gy, k2))
        .max(diagonal(&s, k2))
        .max(diagonal(&d, k2));
    log2_fixed(rho as f32)
}

/// The level of detail of a cube map's `tex.grad` whose direction plus a gradient ends on
/// another face (`gx`, `gy` in texels of the direction's face, [`grad_lod`]'s units): the
/// longer of the two gradients' lengths alone, without the diagonal extents (H200:
/// `corpus/vectors/cubegrad.jsonl.xz`, `cubenpot.jsonl.xz` and `mipfit.jsonl.xz` `gfit2.cube`,
/// every sample that crosses, on faces of 24 to 100 texels). `None` for no footprint or a
/// NaN.
pub fn cross_lod(gx: &[f32], gy: &[f32]) -> Option<i64> {
    let gx: Vec<f64> = gx.iter().map(|&v| v as f64).collect();
    let gy: Vec<f64> = gy.iter().map(|&v| v as f64).collect();
    if gx.iter().chain(&gy).any(|v| v.is_nan()) {
        return None;
    }
    log2_fixed(length(&gx, 0.0).max(length(&gy, 0.0)) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_is_exact_on_powers_of_two() {
        assert_eq!(log2_fixed(1.0), Some(0));
        assert_eq!(log2_fixed(8.0), Some(768));
        assert_eq!(log2_fixed(0.25), Some(-512));
        assert_eq!(log2_fixed(0.0), None);
        assert_eq!(log2_fixed(f32::from_bits(1)), Some(-149 * 256));
    }

    #[test]
    fn diagonal_adder_keeps_one_guard_bit() {
        // 306 - 20.625 (last bit of 306: 1/2): 20.625 is cut to 20.5 first.
        assert_eq!(add9(306.0, -20.625), 285.5);
        assert_eq!(add9(-20.625, 306.0), 285.5);
        assert_eq!(add9(1.5, 1.0 / 4096.0), 1.5);
        assert_eq!(add9(-3.0, 3.0), 0.0);
        assert_eq!(add9(2.0, 0.0), 2.0);
        assert_eq!(add9(f32::INFINITY as f64, -1.0), f64::INFINITY);
        // mipfit.jsonl.xz gfit2.rand: the sum's extent decides, its x component -18.89 + 0.878
        // a difference of magnitudes (the exact one reads 1198).
        let gx = [f32::from_bits(0xc197_1a45), f32::from_bits(0xc11f_4092)];
        let gy = [f32::from_bits(0x3f60_b9bd), f32::from_bits(0xc1aa_01f1)];
        assert_eq!(grad_lod(&gx, &gy), Some(1199));
    }

    #[test]
    fn third_component_of_a_diagonal_is_cut_to_the_second_terms_last_bit() {
        // corpus/lod/diag3d.json.xz d3.diag.m529.x200: both gradients half the diagonal
        // (529, 200, z) in units of 2^-7 texels. X = 47.28125 (last bit 1/16), G = 363.5.
        let half = |z: f32| [529.0 / 256.0, 200.0 / 256.0, z / 256.0];
        // z = 7.25: 11/64 z + 1/2048 = 1.2466 is cut to 1.1875 (412.02 exact reads 432).
        let g = half(7.25);
        assert_eq!(grad_lod(&g, &g), Some(431));
        // z = 71.25: 12.2461 + 1/128 = 12.2539 is cut to 12.25, reaching 423.
        let g = half(71.25);
        assert_eq!(grad_lod(&g, &g), Some(442));
        // Without a third component the 2D rule is unchanged.
        assert_eq!(diagonal(&[4.0, 1.5, 0.0], K2), diagonal(&[4.0, 1.5], 0.0));
    }

    #[test]
    fn sharpened_bias_rounding() {
        // `maxAnisotropy` 2: exact up to 42/256, then one 1/256 less (anisobias.jsonl.xz).
        assert_eq!(sharp_bias(42.0 / 256.0, 2), 42);
        assert_eq!(sharp_bias(43.0 / 256.0, 2), 42);
        assert_eq!(sharp_bias(0.5, 3), 127);
        assert_eq!(sharp_bias(0.3, 2), 76);
        assert_eq!(sharp_bias(-0.92705, 2), -237);
        assert_eq!(sharp_bias(-0.43888, 2), -113);
        // 4 to 7: toward 54 + 6/7.
        assert_eq!(sharp_bias(0.3, 4), 75);
        assert_eq!(sharp_bias(0.2, 7), 51);
        // 8 and above: toward 64/256.
        assert_eq!(sharp_bias(0.1, 16), 26);
        assert_eq!(sharp_bias(0.7, 8), 179);
        assert_eq!(sharp_bias(-0.3, 16), -76);
        assert_eq!(sharp_bias(f32::NAN, 4), 0);
        assert_eq!(sharp_bias(f32::MAX, 4), sharp_bias(1e30, 4));
        let m = Mip {
            linear: true,
            bias: 0.5,
            min: 0.0,
            max: 8.0,
            aniso: 2,
            trilinear_opt: true,
        };
        // The operand toward zero: -0.3 is -76/256, plus 127, sharpened: (3 * 51 - 126) / 2.
        assert_eq!(m.lod(Lod::Level(-0.3), 9), 13);
    }

    #[test]
    fn level_rules() {
        let m = Mip {
            linear: true,
            bias: -1.3,
            min: 0.0,
            max: 100.0,
            aniso: 0,
            trilinear_opt: true,
        };
        // The bias is held as -332/256: 1.3125 - 1.296875 = 4/256.
        assert_eq!(m.lod(Lod::Level(1.3125), 7), 4);
        assert_eq!(m.lod(Lod::Base, 7), 0);
        assert_eq!(m.lod(Lod::Level(50.0), 7), 6 * 256);
        let crossed = Mip {
            linear: false,
            bias: 0.0,
            min: 2.5,
            max: 1.0,
            aniso: 0,
            trilinear_opt: true,
        };
        assert_eq!(crossed.lod(Lod::Level(-2.0), 7), 640);
        assert_eq!(crossed.levels(640).to_vec(), vec![(3, 256)]);
        assert_eq!(m.levels(4).to_vec(), vec![(0, 252), (1, 4)]);
    }

    #[test]
    fn anisotropic_sharpening() {
        // maxAnisotropy 16: fractions below 64 read the level, above 192 the next one.
        assert_eq!(sharpen(256 + 60, 16), 256);
        assert_eq!(sharpen(256 + 100, 16), 256 + 72);
        assert_eq!(sharpen(256 + 200, 16), 512);
        // 2 and 4 (measured transitions of the `tex.level` sweeps).
        assert_eq!(sharpen(44, 2), 3);
        assert_eq!(sharpen(55, 2), 19);
        assert_eq!(sharpen(56, 4), 3);
        assert_eq!(sharpen(57, 4), 5);
        assert_eq!(sharpen(-10, 16), 0);
        assert_eq!(sharpen(300, 1), 300);
        let mut m = Mip {
            linear: true,
            bias: 0.1,
            min: 0.0,
            max: 8.0,
            aniso: 16,
            trilinear_opt: true,
        };
        // The bias is held as 26/256 (the nearest 1/128): 40 + 26 = 66, sharpened to 4.
        assert_eq!(m.lod(Lod::Level(40.0 / 256.0), 9), 4);
        assert_eq!(m.lod(Lod::Base, 9), 0);
        m.trilinear_opt = false;
        assert_eq!(m.lod(Lod::Level(40.0 / 256.0), 9), 65);
        assert_eq!(sharpen(1 << 40, 16), 1 << 40);
    }
}
