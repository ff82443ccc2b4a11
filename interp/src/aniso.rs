//! Anisotropic filtering of `tex.grad` (`maxAnisotropy` above 1) as an H200's texture unit
//! forms it: the level of detail from the footprint's major and minor axes, and the footprint
//! itself, a row of bilinear taps along the major axis on one level or on each of two levels.
//!
//! Each rule is the one of `tools/hwvectors/anisofit.py` (the model fitted to the recordings
//! of `corpus/aniso/`, docs/INTERP.md "Anisotropic filtering"), in the same arithmetic: the
//! integer steps as integers, the float steps as the same `f64` operations in the same order.
//! The gradients are in texels of level 0 (as [`crate::lod::grad_lod`] takes them), two
//! components each: a 2D texture's (each layer of a layered one alike), a cube face's, or a 1D
//! texture's `(d, 0)` (read as a 2D texture one texel high; `exec/texture.rs`).

use crate::lod::{add9, diagonal, eleven16, length, trunc9, ulp9, Levels, LOG2};
use smallvec::SmallVec;

/// The level of detail that stands for "no minor axis" (a zero determinant): below any
/// `Lmaj - 256 log2 A`, so that the major axis decides.
const NO_MINOR: i64 = -(1 << 30);

/// What `tex.grad` of an anisotropic texture takes from its gradients ([`grad`]): the raw
/// level of detail (the sampler's bias, sharpening and clamps still to apply, as for the
/// isotropic one), the footprint's log2 ratio and the taps' step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Grad {
    /// The raw level of detail in 1/256: `max(Lmin, Lmaj - 256 log2 A)`, at most `Lmaj`
    /// ([`lod_parts`]).
    pub raw: i64,
    /// The one-level footprint's log2 ratio in 1/256: `Lmaj - max(raw, 0)`, at least 0.
    pub ratio: i64,
    /// The step between taps along the major axis, in 1/64 of a texel ([`direction`]).
    pub step: [i64; 2],
}

/// One tap of a footprint: its offset from the coordinate in 1/256 of its level's texel and
/// its weight in units of the footprint's `1/T`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tap {
    /// Offset along x (1/256 texel).
    pub dx: i64,
    /// Offset along y (1/256 texel).
    pub dy: i64,
    /// Weight in `1/T` (the level's share applied).
    pub w: i64,
}

/// The taps one level contributes to a fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelTaps {
    /// The mipmap level.
    pub level: u32,
    /// The taps (at most 32 on one level: `maxAnisotropy` 16 covers 16 minor axes with two
    /// taps per pair of them).
    pub taps: SmallVec<[Tap; 16]>,
    /// `T`, the unit of the weights: 512 or 1024.
    pub unit: i64,
}

/// `256 2^(-f/256)` rounded to an integer, for `f` in `0..=256`: the texture unit's 8-bit
/// exp2 table as `anisofit.py` (`e8`) states it (`floor(256 2^(-f/256) + 1/2)`, tabulated
/// here so that no `powf` can round it differently).
const E8: [u16; 257] = [
    256, 255, 255, 254, 253, 253, 252, 251, 251, 250, 249, 248, 248, 247, 246, 246, 245, 244, 244,
    243, 243, 242, 241, 241, 240, 239, 239, 238, 237, 237, 236, 235, 235, 234, 233, 233, 232, 232,
    231, 230, 230, 229, 228, 228, 227, 227, 226, 225, 225, 224, 224, 223, 222, 222, 221, 221, 220,
    219, 219, 218, 218, 217, 216, 216, 215, 215, 214, 214, 213, 212, 212, 211, 211, 210, 210, 209,
    208, 208, 207, 207, 206, 206, 205, 204, 204, 203, 203, 202, 202, 201, 201, 200, 200, 199, 198,
    198, 197, 197, 196, 196, 195, 195, 194, 194, 193, 193, 192, 192, 191, 191, 190, 190, 189, 189,
    188, 188, 187, 186, 186, 185, 185, 184, 184, 183, 183, 182, 182, 182, 181, 181, 180, 180, 179,
    179, 178, 178, 177, 177, 176, 176, 175, 175, 174, 174, 173, 173, 172, 172, 171, 171, 171, 170,
    170, 169, 169, 168, 168, 167, 167, 166, 166, 166, 165, 165, 164, 164, 163, 163, 162, 162, 162,
    161, 161, 160, 160, 159, 159, 159, 158, 158, 157, 157, 156, 156, 156, 155, 155, 154, 154, 153,
    153, 153, 152, 152, 151, 151, 151, 150, 150, 149, 149, 149, 148, 148, 147, 147, 147, 146, 146,
    145, 145, 145, 144, 144, 143, 143, 143, 142, 142, 141, 141, 141, 140, 140, 140, 139, 139, 138,
    138, 138, 137, 137, 137, 136, 136, 135, 135, 135, 134, 134, 134, 133, 133, 133, 132, 132, 132,
    131, 131, 130, 130, 130, 129, 129, 129, 128, 128,
];

/// [`E8`] of `f`, held within the table.
fn e8(f: i64) -> i64 {
    E8[f.clamp(0, 256) as usize] as i64
}

/// `x` as `(m, e)` with `x = m 2^e` and `m` its 53-bit significand (`2^52 <= m < 2^53`), for a
/// finite nonzero `x`; subnormals normalized.
fn unpack(x: f64) -> (u64, i32) {
    let b = x.abs().to_bits();
    let (exp, frac) = ((b >> 52) as i32, b & ((1 << 52) - 1));
    if exp == 0 {
        let z = frac.leading_zeros() as i32 - 11;
        (frac << z, -1074 - z)
    } else {
        (frac | 1 << 52, exp - 1075)
    }
}

/// `|x y|` as the texture unit's truncated multiplier forms it (`anisofit.py`, `tmul`): the
/// significands of `|x|` and `|y|` cut to their top 10 bits (`a`, `b`, as `trunc9`), each
/// partial product `a 2^j` (for the set bits `j` of `b`) cut to units of `2^6`, and 7 units
/// added to their sum: the multiplier [`crate::lod::to_texels`] uses, with 10-bit operands.
/// Fitted on every axis-aligned level-of-detail sample of `anisoprobe6.lod.jsonl.xz` (the
/// determinant one product). A non-finite operand gives infinity (0 if the other is 0).
pub fn tmul(x: f64, y: f64) -> f64 {
    if x == 0.0 || y == 0.0 || x.is_nan() || y.is_nan() {
        return 0.0;
    }
    if x.is_infinite() || y.is_infinite() {
        return f64::INFINITY;
    }
    let ((ma, ea), (mb, eb)) = (unpack(x), unpack(y));
    // The top 10 bits: `x = a 2^(ea + 43)` truncated.
    let (a, b) = (ma >> 43, mb >> 43);
    let s: u64 = (0..10)
        .filter(|j| b >> j & 1 == 1)
        .map(|j| (a << j) >> 6)
        .sum();
    // `a b 2^(ea + eb + 86)`, the sum in units of 2^6.
    (s + 7) as f64 * 2f64.powi(ea + eb + 86 + 6)
}

/// `|gx.x gy.y - gx.y gy.x|` as the texture unit forms it (`anisofit.py`, `det_hw`): each
/// product by [`tmul`] cut to 10 bits, the smaller one cut to half the larger's last bit (one
/// guard bit), then the two added or subtracted by their signs, exactly. On the 12,317 samples
/// of `anisoprobe6.lod.jsonl.xz` where the minor axis decides the level of detail, every miss
/// left is the isotropic extent's own (a diagonal one step low).
pub fn det(gx: [f64; 2], gy: [f64; 2]) -> f64 {
    let (mut p, mut q) = (trunc9(tmul(gx[0], gy[1])), trunc9(tmul(gx[1], gy[0])));
    let same = ((gx[0] < 0.0) != (gy[1] < 0.0)) == ((gx[1] < 0.0) != (gy[0] < 0.0));
    if p < q {
        std::mem::swap(&mut p, &mut q);
    }
    if q == 0.0 || !p.is_finite() {
        return p;
    }
    let h = ulp9(p) / 2.0;
    let q = (q / h).floor() * h;
    if same {
        p - q
    } else {
        p + q
    }
}

/// `256 log2 v` as the texture unit takes it (the exponent and the table entry of the top 8
/// bits after the leading one), for a positive finite `v`; `None` otherwise.
fn log2_256(v: f64) -> Option<i64> {
    if v.is_nan() || v <= 0.0 || v.is_infinite() {
        return None;
    }
    let (m, e) = unpack(v);
    Some((e as i64 + 52) * 256 + LOG2[((m >> 44) & 255) as usize] as i64)
}

/// `log2` of `maxAnisotropy` rounded down to a power of two (3 acts as 2, 5 to 7 as 4).
fn log2_aniso(aniso: u32) -> i64 {
    (31 - aniso.max(1).leading_zeros()) as i64
}

/// `(Lmaj, raw)`: the major axis's level of detail `Lmaj` (the isotropic one, `256 log2 rho`,
/// given) and the raw level of detail `max(Lmin, Lmaj - 256 log2 A)`, with the minor axis
/// `Lmin = L(det) - Lmaj` (`det / rho` as a difference of two table logarithms; `anisofit.py`
/// `lod_parts`), held at most `Lmaj` (where the two tables' roundings put `Lmin` above it).
pub fn lod_parts(lmaj: i64, gx: [f64; 2], gy: [f64; 2], aniso: u32) -> i64 {
    let lmin = log2_256(det(gx, gy)).map_or(NO_MINOR, |l| l - lmaj);
    lmin.max(lmaj.saturating_sub(256 * log2_aniso(aniso)))
        .min(lmaj)
}

/// `|v|` truncated to 9 bits after its leading one, with `v`'s sign.
fn signed9(v: f64) -> f64 {
    trunc9(v).copysign(v)
}

/// The vector whose direction the taps follow (`anisofit.py`, `major_axis`): of the four
/// extents the isotropic level of detail takes the largest of (the lengths of `gx` and `gy`,
/// the extents of the sum and difference of the truncated gradients as `lod::add9` forms them),
/// its vector: a gradient as it is, a diagonal as that sum or difference with each component
/// weighted 11/16 as the diagonal's extent weights its largest (`lod::eleven16`), the
/// difference from the shorter gradient to the longer. The extents are compared truncated to
/// 9 bits after their leading one, and a tie goes to the first in the order `gx`, sum, `gy`,
/// difference: compared as they are, a gradient and a diagonal within about 0.1% of each
/// other picked the wrong one in 10 random scans of `anisoprobe6.scan.rand.jsonl.xz`, and so
/// did the sign of the difference in one; the exact sum times 11/16 put a diagonal's step
/// one bin of [`direction`] off in 4 more.
pub fn major_axis(gx: [f64; 2], gy: [f64; 2]) -> [f64; 2] {
    let (tx, ty) = (gx.map(signed9), gy.map(signed9));
    let sum = [add9(tx[0], ty[0]), add9(tx[1], ty[1])];
    let dif = [add9(tx[0], -ty[0]), add9(tx[1], -ty[1])];
    let scaled = |v: [f64; 2]| v.map(|c| eleven16(c).copysign(c));
    let (lx, ly) = (trunc9(length(&gx, 0.0)), trunc9(length(&gy, 0.0)));
    // The difference runs from the shorter gradient to the longer one (`gy - gx` where `gy`'s
    // truncated length is at least `gx`'s): its sign decides the lower level's floors between
    // two levels.
    let dir = if ly >= lx { dif.map(|c| -c) } else { dif };
    let cands = [
        (lx, gx),
        (trunc9(diagonal(&sum, 0.0)), scaled(sum)),
        (ly, gy),
        (trunc9(diagonal(&dif, 0.0)), scaled(dir)),
    ];
    let mut best = cands[0];
    for c in &cands[1..] {
        // A NaN extent (an infinite sum of opposite infinities) never wins.
        if c.0 > best.0 || best.0.is_nan() && !c.0.is_nan() {
            best = *c;
        }
    }
    best.1
}

/// The taps' step for a major axis `g` (texels), one texel long, in 1/64 texel (`anisofit.py`,
/// `direction`): each magnitude cut to 4 bits below the larger one's leading bit and replaced
/// by the middle of its bin, a magnitude below a quarter of a bin zero, the vector normalized
/// and rounded (half up). The rounding is done exactly on the bins' odd numerators: every
/// pair of bins gives what the model's floats give. A zero vector has no step; an infinite
/// component takes the whole step.
pub fn direction(g: [f64; 2]) -> [i64; 2] {
    let (a, b) = (g[0].abs(), g[1].abs());
    let top = a.max(b);
    if top == 0.0 || top.is_nan() {
        return [0, 0];
    }
    // Twice the middle of each bin, an odd number below 32 (0 for a zero component).
    let bins = if top.is_infinite() {
        [a, b].map(|v| if v.is_infinite() { 1 } else { 0 })
    } else {
        // The bin `u = 2^(e - 4)` for `2^(e - 1) <= top < 2^e`.
        let (_, e) = unpack(top);
        let u = 2f64.powi(e + 52 + 1 - 4);
        [a, b].map(|v| {
            if v >= u / 4.0 {
                2 * (v / u).floor() as i64 + 1
            } else {
                0
            }
        })
    };
    let n2 = bins[0] * bins[0] + bins[1] * bins[1];
    let step = |q: i64| {
        // The largest k with k - 1/2 <= 64 q / sqrt(n2).
        (1..=64)
            .take_while(|k| (2 * k - 1) * (2 * k - 1) * n2 <= 128 * 128 * q * q)
            .count() as i64
    };
    let s = bins.map(step);
    [
        if g[0] >= 0.0 { s[0] } else { -s[0] },
        if g[1] >= 0.0 { s[1] } else { -s[1] },
    ]
}

/// What `tex.grad` of a texture with `maxAnisotropy` `aniso` takes from the gradients `gx`,
/// `gy` (texels of level 0) whose isotropic level of detail is `lmaj` (`256 log2 rho`, in
/// 1/256: [`crate::lod::grad_lod`]).
pub fn grad(lmaj: i64, gx: [f64; 2], gy: [f64; 2], aniso: u32) -> Grad {
    let raw = lod_parts(lmaj, gx, gy, aniso);
    Grad {
        raw,
        ratio: lmaj.saturating_sub(raw.max(0)).max(0),
        step: direction(major_axis(gx, gy)),
    }
}

/// The weights of a footprint of log2 ratio `d` (1/256) with a minor axis of one texel, and
/// their unit `T` (`anisofit.py`, `axis_taps`): below a ratio of 2 two taps of 256/512; else,
/// with `d = 256 q + f`, `T = 256 << min(q, 2)`, interior taps of `(T e8(f)) >> (8 + q)`, and
/// the least even count whose two end taps (sharing what is left) do not exceed them.
fn axis_weights(d: i64) -> (SmallVec<[i64; 16]>, i64) {
    // The ratio is at most 256 log2 16 (`grad`); the cap keeps any other input finite.
    let (q, f) = (d.div_euclid(256).clamp(0, 8), d.rem_euclid(256));
    if q == 0 {
        return (SmallVec::from_slice(&[256, 256]), 512);
    }
    // `2^(-255/256)` rounds to 1/2 (`e8(255) = 128`): that ratio is the next power of two's.
    let (q, f) = if e8(f) == 128 { (q + 1, 0) } else { (q, f) };
    let t = 256i64 << q.min(2);
    let wi = ((t * e8(f)) >> (8 + q)).max(1);
    let mut n = 2;
    while t - (n - 2) * wi > 2 * wi {
        n += 2;
    }
    let we = (t - (n - 2) * wi) / 2;
    let mut w = SmallVec::new();
    w.push(we);
    w.extend(std::iter::repeat_n(wi, n as usize - 2));
    w.push(we);
    (w, t)
}

/// The lower level's half-step between two levels (`anisofit.py`, `lower_scale`): a one-level
/// half-step component `v` (1/256 texel, even) becomes `2 floor(floor(v / 2) K / 64)` with
/// `K = e8(256 - f) >> 1` (`2^(f/256)` in 1/64), the floors toward minus infinity.
fn lower_scale(v: i64, f: i64) -> i64 {
    let k = e8(256 - f) >> 1;
    2 * (v.div_euclid(2) * k).div_euclid(64)
}

/// The taps of a one-level footprint of log2 ratio `d` along the step `s` (1/64 texel), with
/// each half-step component scaled by [`lower_scale`] of `lower` when given (`anisofit.py`,
/// `axis_offsets`): two taps `2 round(h s / 128)` either side (`h = 256 - e8(d)`), or `N` taps
/// at `2 j - (N - 1)` half-steps of `2 s`.
fn axis_offsets(d: i64, s: [i64; 2], lower: Option<i64>) -> (SmallVec<[Tap; 16]>, i64) {
    let scale = |v: i64| lower.map_or(v, |f| lower_scale(v, f));
    let (w, t) = axis_weights(d);
    let mut taps = SmallVec::new();
    if d < 256 {
        let h = 256 - e8(d);
        let o = s.map(|c| scale(2 * (h * c + 64).div_euclid(128)));
        taps.push(Tap {
            dx: -o[0],
            dy: -o[1],
            w: 256,
        });
        taps.push(Tap {
            dx: o[0],
            dy: o[1],
            w: 256,
        });
        return (taps, 512);
    }
    let hs = s.map(|c| scale(2 * c));
    let n = w.len() as i64;
    for (j, &wt) in w.iter().enumerate() {
        let k = 2 * j as i64 - n + 1;
        taps.push(Tap {
            dx: k * hs[0],
            dy: k * hs[1],
            w: wt,
        });
    }
    (taps, t)
}

/// A level's taps times its share `sh` (1/256) between two levels (`anisofit.py`, `share`):
/// the running sum of the weights times the share, rounded half up in `1/T`, each tap taking
/// the step of that rounded sum, so that the level's weights add up to `sh T / 256`.
fn share(taps: &mut [Tap], sh: i64) {
    let (mut c, mut prev) = (0, 0);
    for t in taps {
        c += t.w;
        let cur = (c * sh + 128) >> 8;
        t.w = cur - prev;
        prev = cur;
    }
}

/// The taps of a fetch that reads `levels` (the levels and their shares in 1/256, as
/// [`crate::lod::Mip::levels`] gives them) with the footprint `g` (`anisofit.py`,
/// `footprint2`). One level reads the one-level footprint of ratio `g.ratio`. Between levels
/// `k` and `k + 1` (the upper one's share `f`), each reads its own along the same step: the
/// lower one the ratio `g.ratio` with its half-step scaled by `lower_scale`, the upper one
/// the ratio `g.ratio - (256 - f)` with the one-level step (one of its texels); each level's
/// weights times its share (`share`).
pub fn footprint(g: &Grad, levels: &Levels) -> SmallVec<[LevelTaps; 2]> {
    let mut out = SmallVec::new();
    let two = levels.len() == 2;
    for (i, &(level, sh)) in levels.iter().enumerate() {
        let (mut taps, unit) = match (two, i) {
            (true, 0) => axis_offsets(g.ratio, g.step, Some(256 - sh)),
            (true, _) => axis_offsets((g.ratio - (256 - sh)).max(0), g.step, None),
            _ => axis_offsets(g.ratio, g.step, None),
        };
        share(&mut taps, sh);
        out.push(LevelTaps { level, taps, unit });
    }
    out
}

/// A coordinate `u` in texels of a level (`f64`: a normalized coordinate scaled by the level's
/// size as [`crate::texture::scale`] scales it, floored to `2^-21` first) less half a texel,
/// in 1/256 (half up), as the taps' positions start from; NaN reads as 0 and the range
/// saturates.
pub fn position(u: f64) -> i64 {
    let u = if u.is_nan() { 0.0 } else { u };
    ((u - 0.5) * 256.0 + 0.5)
        .floor()
        .clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

/// A coordinate `u` in texels of a level in 1/256, rounded down: where a tap of point texel
/// filtering starts from (its texel is the one its position falls in). Of the random
/// point-filtered fetches of `aniso.jsonl.xz` (`aniso.grad#f32.fpoint.*`) this gives 765 of 768,
/// the rounded coordinate (as [`position`] plus half a texel) 749. NaN reads as 0 and the range
/// saturates.
pub fn point_position(u: f64) -> i64 {
    let u = if u.is_nan() { 0.0 } else { u };
    (u * 256.0)
        .floor()
        .clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    #[test]
    fn truncated_multiplier() {
        // 1.5 * 1.5: a = b = 768 (bits 8 and 9 of b): (768 << 8 >> 6) + (768 << 9 >> 6) =
        // 3072 + 6144, plus 7 units of 2^6, times 2^-18: (9216 + 7) / 4096 = 2.251708984375.
        assert_eq!(tmul(1.5, 1.5), 9223.0 / 4096.0);
        assert_eq!(tmul(-1.5, 1.5), 9223.0 / 4096.0);
        // Powers of two: a = b = 512: (512 << 9 >> 6) + 7 units, 4103 / 4096 of the product.
        assert_eq!(tmul(4.0, 0.25), 4103.0 / 4096.0);
        assert_eq!(tmul(0.0, 3.0), 0.0);
        assert_eq!(tmul(f64::INFINITY, 3.0), f64::INFINITY);
        // An f32 subnormal is normalized first.
        let tiny = f32::from_bits(1) as f64;
        assert_eq!(tmul(tiny, 1.0), tiny * 4103.0 / 4096.0);
    }

    #[test]
    fn determinant() {
        // Axis-aligned: one product, cut to 10 bits.
        assert_eq!(det([2.0, 0.0], [0.0, 3.0]), trunc9(tmul(2.0, 3.0)));
        // tmul(4, 4) = 16.03 -> 16.0 (10 bits); tmul(1, 1) = 1.0017 -> 1.0; opposite signs of
        // the products' terms add: 16 + 1; same signs subtract: 16 - 1.
        assert_eq!(det([4.0, 1.0], [-1.0, 4.0]), 17.0);
        assert_eq!(det([4.0, 1.0], [1.0, 4.0]), 15.0);
        // The smaller product is cut to half the larger's last bit (1/64 for 16..32).
        let q = trunc9(tmul(1.0, 0.01));
        assert_eq!(
            det([4.0, 1.0], [0.01, 4.0]),
            16.0 - (q * 64.0).floor() / 64.0
        );
        assert_eq!(det([1.0, 0.0], [2.0, 0.0]), 0.0);
    }

    #[test]
    fn level_of_detail_parts() {
        // A 4 x 1 texel footprint (rho 4: Lmaj 512): det 4 * 1.0017 -> 4, Lmin 0.
        let gx = [4.0, 0.0];
        let gy = [0.0, 1.0];
        assert_eq!(lod_parts(512, gx, gy, 16), 0);
        // maxAnisotropy 2 holds the ratio to 2: raw = 512 - 256.
        assert_eq!(lod_parts(512, gx, gy, 2), 256);
        assert_eq!(lod_parts(512, gx, gy, 3), 256);
        // Parallel gradients: no minor axis.
        assert_eq!(lod_parts(512, [4.0, 0.0], [2.0, 0.0], 4), 0);
        let g = grad(512, gx, gy, 16);
        assert_eq!(g.raw, 0);
        assert_eq!(g.ratio, 512);
        assert_eq!(g.step, [64, 0]);
    }

    #[test]
    fn recorded_levels_of_detail() {
        // `corpus/aniso/anisoprobe6.lod.jsonl.xz`, set `lod.a16.off` (A 16, 256 x 256 texels,
        // the raw level of detail recorded): normalized gradient words in texels.
        let texels = |w: u32| f32::from_bits(w) * 256.0;
        let case = |g: [u32; 4]| {
            let (dx, dy) = ([texels(g[0]), texels(g[1])], [texels(g[2]), texels(g[3])]);
            let lmaj = crate::lod::grad_lod(&dx, &dy).unwrap();
            let f = |v: [f32; 2]| v.map(|c| c as f64);
            (lmaj, det(f(dx), f(dy)), lod_parts(lmaj, f(dx), f(dy), 16))
        };
        // Sample 47, gradients along the axes: the determinant is one product, 540 from
        // `tmul` (the plain product of the truncated components reads 1060, one step low).
        assert_eq!(
            case([0xbb94ecd7, 0x3d8d722e, 0x3df4b267, 0]),
            (1263, 540.0, 1061)
        );
        // Sample 52: two products, the smaller aligned with one guard bit (98.1875); the exact
        // products of the truncated components read 385.
        assert_eq!(
            case([0xbd155131, 0xbdfb8702, 0x3c07a2b2, 0xbc5996e7]),
            (1310, 98.1875, 384)
        );
    }

    #[test]
    fn directions() {
        assert_eq!(direction([3.0, 0.0]), [64, 0]);
        assert_eq!(direction([-3.0, -3.0]), [-45, -45]);
        assert_eq!(direction([0.0, 0.0]), [0, 0]);
        // A component below a quarter of a bin (bins of 1 for a leading 8..16) is zero.
        assert_eq!(direction([8.0, 0.24]), [64, 0]);
        // At a quarter it is the middle of the first bin: (8.5, 0.5) -> (64, 4).
        assert_eq!(direction([8.0, 0.25]), [64, 4]);
        assert_eq!(direction([f64::INFINITY, 1.0]), [64, 0]);
        // The longer gradient unless a diagonal extent is larger.
        assert_eq!(major_axis([4.0, 0.0], [0.0, 1.0]), [4.0, 0.0]);
        assert_eq!(major_axis([3.0, 0.0], [0.0, 3.0]), [3.0, 0.0]);
        // Nearly parallel gradients: their sum's extent, scaled by 11/16.
        assert_eq!(major_axis([2.0, 1.0], [2.0, 1.0]), [2.75, 1.375]);
        // Nearly opposite gradients: their difference, from the shorter to the longer (from
        // `gx` to `gy` where their truncated lengths tie).
        assert_eq!(major_axis([2.0, 1.0], [-2.0, -1.5]), [-2.75, -1.71875]);
        assert_eq!(major_axis([-2.0, -1.0], [2.0, 1.5]), [2.75, 1.71875]);
        assert_eq!(major_axis([2.0, 1.0], [-2.0, -1.0]), [-2.75, -1.375]);
        // The extents compared truncated to 9 bits (`anisoprobe6.scan.rand.jsonl.xz`, a4): the
        // sum's extent (1.74727) is above `gx`'s length (1.74707), but both truncate to
        // 894/512 and the tie goes to `gx`.
        let (gx, gy) = ([0.86772, 1.45069], [-1.10379, 1.01264]);
        assert_eq!(major_axis(gx, gy), gx);
        // A diagonal's components weighted 11/16 as its extent weights its largest: the
        // difference 2.36328125 reads 1.625 (605/256: (11 * 605 + 4) / 16 = 416.1875, cut to
        // 416/256), not 1.62476, a bin of `direction` higher (`anisoprobe6.scan.rand.jsonl.xz`).
        assert_eq!(eleven16(2.363_281_25), 1.625);
        assert_eq!(direction([-0.596_679_687_5, 1.625]), [-20, 61]);
        assert_eq!(
            direction([-0.596_862_792_968_75, 1.624_755_859_375]),
            [-22, 60]
        );
    }

    #[test]
    fn tap_weights() {
        // Ratio 3 (256 log2 3 by the table: 406): four taps of 85, 171, 171, 85 in 1/512.
        let (w, t) = axis_weights(406);
        assert_eq!((w.to_vec(), t), (vec![85, 171, 171, 85], 512));
        // Ratio 1.5 (d 150): two taps of 256/512, `256 - e8(150) = 85` either side.
        let (taps, t) = axis_offsets(150, [64, 0], None);
        assert_eq!(t, 512);
        assert_eq!(
            taps.to_vec(),
            vec![
                Tap {
                    dx: -86,
                    dy: 0,
                    w: 256
                },
                Tap {
                    dx: 86,
                    dy: 0,
                    w: 256
                }
            ]
        );
        // d 511: `e8(255)` is 128, so the ratio is 4's (d 512): four taps of 256/1024, not
        // 128/512 (the bilinear splits differ; `seamcornermiss.jsonl.xz`).
        assert_eq!(axis_weights(511), axis_weights(512));
        assert_eq!(axis_weights(512).0.to_vec(), vec![256; 4]);
        assert_eq!(axis_weights(510).1, 512);
        // Ratio 16 (d 1024): T 1024, 16 taps of 64.
        let (w, t) = axis_weights(1024);
        assert_eq!((w.len(), t), (16, 1024));
        assert!(w.iter().all(|&v| v == 64));
    }

    #[test]
    fn two_levels() {
        // The lower level's step at f = 128: K = e8(128) >> 1 = 90; a half-step of 128
        // becomes 2 floor(64 * 90 / 64) = 180, of -128 the same; of -130, 2 floor(-65 * 90 /
        // 64) = -184 (one 1/128 longer than 182).
        assert_eq!(lower_scale(128, 128), 180);
        assert_eq!(lower_scale(-128, 128), -180);
        assert_eq!(lower_scale(130, 128), 182);
        assert_eq!(lower_scale(-130, 128), -184);
        // The shares by running sums: 85, 171, 171, 85 at 100/256 sum to 200 of 512.
        let mut taps: Vec<Tap> = [85, 171, 171, 85]
            .iter()
            .map(|&w| Tap { dx: 0, dy: 0, w })
            .collect();
        share(&mut taps, 100);
        assert_eq!(
            taps.iter().map(|t| t.w).collect::<Vec<_>>(),
            vec![33, 67, 67, 33]
        );
        let g = Grad {
            raw: 0,
            ratio: 406,
            step: [64, 0],
        };
        let fp = footprint(&g, &smallvec![(0, 156), (1, 100)]);
        assert_eq!(fp.len(), 2);
        // The upper level: ratio 406 - 156 = 250, two taps.
        assert_eq!(fp[1].taps.len(), 2);
        assert_eq!(fp[1].taps.iter().map(|t| t.w).sum::<i64>(), 200);
        assert_eq!(fp[0].taps.iter().map(|t| t.w).sum::<i64>(), 312);
    }

    #[test]
    fn positions() {
        assert_eq!(position(32.0), 32 * 256 - 128);
        // Half up: 1/512 texel past the centre.
        assert_eq!(position(0.5 + 1.0 / 512.0), 1);
        assert_eq!(position(f64::NAN), -128);
        assert_eq!(position(f64::INFINITY), 1 << 40);
        assert_eq!(point_position(0.5 + 1.0 / 512.0), 128);
        assert_eq!(point_position(-1.0 / 512.0), -1);
    }
}
