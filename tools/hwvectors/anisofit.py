#!/usr/bin/env python3
"""The fitted parts of anisotropic filtering (`maxAnisotropy` above 1) on an H200, checked against
the recordings in `corpus/aniso/` (docs/INTERP.md, "Anisotropic filtering"). Runs anywhere
(numpy, no GPU): it prints, for each rule, how many recorded samples it reproduces.

- `sharpen`: the level of detail the trilinear optimisation uses with anisotropy (modelled by
  the interpreter, `interp/src/lod.rs`), checked on the `tex.level` sweeps; `sharp_bias`,
  `lod_level`: the bias and the operand as it takes them (`check_bias`, on
  `corpus/vectors/anisobias.jsonl.xz`).
- `aniso_lod`: the level of detail of `tex.grad` (not modelled by the interpreter; `lod_parts`
  sharpened and clamped), checked on the sweeps and random pairs of `anisoprobe.jsonl.xz`.
- `axis_taps`: the footprint of a major axis along x with a minor axis of one texel (not
  modelled), checked on the impulse rows of `anisoprobe3.jsonl.xz` at sixteen phases.
- `direction`, `footprint`: the taps of any footprint read from one level (direction, step,
  count and weights; not modelled), checked on the tap positions that point filtering shows
  (`anisoprobe5*.jsonl.xz`).
- `footprint2`: the taps of a footprint between two levels (each level its own footprint, the
  upper one's ratio `d0 - (256 - f)`, the lower one's step scaled, the shares by running sums),
  checked on the windows of `anisoprobe5.sweep3.jsonl.xz` and `sweep2`, the two-level corners
  and the scans of `anisoprobe6.scan.*.jsonl.xz` (`check_scans`: every tap of both levels).
- `check_lod_raw`: `lod_parts` against the raw level of detail (`anisoprobe6.lod.jsonl.xz`):
  the minor axis `L(det) - Lmaj` with the determinant as the texture unit forms it (`det_hw`:
  products from a truncated multiplier, `tmul`, cut to 10 bits, the smaller aligned with one
  guard bit); every miss left is a diagonal extent of `rho` one step low (`diag2`), as in the
  isotropic level of detail. The previous rules (`det_v1`, ...) are counted beside it.
- `fetch_f32`: a whole `f32` fetch (taps, bilinear weights, the weighted sum as `tap_sum`
  forms it: each tap's sum cut to the accumulator's last bit, 8 bits below the largest
  texel's unit, then rounded once), checked on `anisoprobe4.jsonl.xz` (`ap4.val.f32.*`) and
  on the random cases of `corpus/vectors/aniso.jsonl.xz` and `anisoprobe6.rand.jsonl.xz`,
  one-level and two-level fetches counted apart, beside the exact sum of the taps.

- `fetch`: `fetch_f32` for the other formats and settings the interpreter models (the
  bilinear rules of each format with the footprint's weights): `f16` (taps truncated to 14
  bits below their largest, each tap's sum cut as `tap_sum` cuts it, rounded to f16; the
  other formats' sums exact), normalized `u8` (widened to 16
  bits, rounded half up to 1/65535), normalized `u16` and `s16` (summed as they are, -32768
  too, rounded half up to 1/65535 or 1/32767), normalized `s8` (the bilinear `s8` rule of a
  fractional sum), integer texels read as integers (the exact sum rounded down for 32-bit
  channels, half up for 8- and 16-bit ones), wrapped addressing, point texel filtering (each
  tap the texel its position, rounded down to 1/256, falls in) and nearest level filtering
  (`check_formats`; the 16-bit and integer formats on `corpus/vectors/aniso16.jsonl.xz`).

- `--known DIR`: the interpreter's figures of docs/INTERP.md's anisotropic tables and of
  `corpus/vectors/known_failures.txt`: for every `tex.grad` case of the recorded anisotropic
  sets (`KNOWN_FILES`), the failing output words (`bad_lanes`) and the fetches that agree,
  split by the levels each reads (`lod_with`), a tap past a cube corner (`past_corner`) or a
  gradient ending on another face (`cube_sample`); on 2D sets also the lanes where `fetch`
  gives the interpreter's value; an entry whose word count is stale is flagged. DIR holds
  the interpreter's outputs: `ptx vectors corpus/vectors/NAME.jsonl.xz --write DIR/NAME.jsonl`.

    python3 tools/hwvectors/anisofit.py [corpus/aniso]
    python3 tools/hwvectors/anisofit.py --known DIR [corpus/vectors]
"""

import json
import lzma
import math
import struct
import sys
from fractions import Fraction

import numpy as np

# `256 log2(1 + j/256)` of the texture unit (interp/src/lod.rs, LOG2).
TAB = [0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 43, 44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64, 65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 92, 93, 94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 173, 174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232, 233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255]


def load(path):
    return {c["name"]: c for c in map(json.loads, lzma.open(path, "rt"))}


def words(hexs):
    return np.array([int(h, 16) for h in hexs], dtype=np.uint32).view(np.float32)


def outs(c):
    return words(c["out"]["hex"]).reshape(-1, 4)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def L256(v):
    """`256 log2 v` as the texture unit takes it (exponent and table); None for 0."""
    if v <= 0:
        return None
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    return (((b >> 23) & 255) - 127) * 256 + TAB[(b >> 15) & 255]


def t9(x):
    """|x| truncated to 9 bits after its leading one."""
    x = abs(x)
    if x == 0.0 or not math.isfinite(x):
        return x
    s = 2.0 ** (math.frexp(x)[1] - 10)
    return math.floor(x / s) * s


def ulp9(x):
    return 2.0 ** (math.frexp(x)[1] - 10)


def norm2(v):
    """The isotropic length of a 2D gradient (docs/INTERP.md, Mipmaps)."""
    a = sorted((t9(c) for c in v), reverse=True)
    if a[1] == 0.0:
        return a[0]
    u = ulp9(a[1])
    return a[0] + t9((11 / 32 * (a[1] / u) + 0.125) * u)


def diag2(v):
    a = sorted((t9(c) for c in v), reverse=True)
    if a[0] == 0.0:
        return 0.0
    u = ulp9(a[0])
    g = (11 * (a[0] / u) + 4) / 16.0
    g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
    h = 0.0
    if a[1] > 0.0:
        s = 2.0 ** (math.frexp(121 / 512 * a[1])[1] - 12)
        h = math.floor(121 / 512 * a[1] / s) * s + ulp9(a[1]) / 16
    return g * u + h


def g11(x):
    """11/16 of a component `x` (signed) as `diag2` forms the term of its larger magnitude:
    `|x|` truncated to 9 bits after its leading one (`t9`), `(11 M + 4) / 16` of its last bit's
    units, cut to half units (whole units from 512 on): the major axis's diagonal vector,
    component by component (`major_axis`)."""
    a = t9(x)
    if a == 0.0 or not math.isfinite(a):
        return math.copysign(a, x)
    u = ulp9(a)
    g = (11 * (a / u) + 4) / 16.0
    g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
    return math.copysign(g * u, x)


def add9(p, q):
    """`p + q` for two components truncated to 9 bits (`t9`, signed) as the texture unit's
    adder forms a diagonal's component: the smaller magnitude cut to half the larger's last
    bit first (one guard bit, no sticky bit; `diagfit.py`)."""
    big, small = (p, q) if abs(p) >= abs(q) else (q, p)
    if small == 0.0 or not math.isfinite(big):
        return p + q
    g = ulp9(abs(big)) / 2
    return big + math.copysign(math.floor(abs(small) / g) * g, small)


def rho(gx, gy):
    """The isotropic extent of `tex.grad` (texels): the largest of the two lengths and of the
    extents of the sum and difference of the truncated gradients (`add9`)."""
    tx = [math.copysign(t9(a), a) for a in gx]
    ty = [math.copysign(t9(b), b) for b in gy]
    s = [add9(a, b) for a, b in zip(tx, ty)]
    d = [add9(a, -b) for a, b in zip(tx, ty)]
    return f32(max(norm2(gx), norm2(gy), diag2(s), diag2(d)))


def to_texels(g, d):
    """A normalized gradient component in texels of a size `d` (docs/INTERP.md, Mipmaps;
    `interp/src/lod.rs` `to_texels`): exact for a power of two, else the significand truncated
    to 9 bits after its leading one through a truncated multiplier."""
    g = f32(g)
    if d & (d - 1) == 0 or not math.isfinite(g) or g == 0.0:
        return f32(g * d)
    a = abs(g)
    e = math.frexp(a)[1] - 1
    m = math.floor(a / 2.0 ** (e - 9))
    n = d.bit_length()
    unit = 2.0 ** (n - 4)
    s = sum(math.floor((m << b) / unit) for b in range(n) if d >> b & 1)
    return f32(math.copysign((s + 7) * unit * 2.0 ** (e - 9), g))


def scale_coord(u, n):
    """A normalized coordinate `u` in texels of a dimension of `n` texels (docs/INTERP.md,
    Textures; `interp/src/texture.rs` `scale`): `u` floored to a multiple of 2^-21, then
    multiplied exactly (`corpus/aniso/npotpos.jsonl.xz`, `npotpos2.jsonl.xz`; on a power of two
    up to 4096 the same as the exact product)."""
    if not math.isfinite(u):
        return u * n
    return math.floor(u * 2.0 ** 21) / 2.0 ** 21 * n


def pow2_floor(a):
    return 1 << (a.bit_length() - 1)


def sharpen(l, aniso):
    q, f = divmod(l, 256)
    a = pow2_floor(aniso)
    s = {2: (3 * f - 126) // 2, 4: (7 * f - 378) // 4}.get(a, 2 * f - 128)
    return 256 * q + min(max(s, 0), 256)


def sharp_bias(b, aniso):
    """The bias in 1/256 as the sharpened level of detail takes it: `p - trunc((c - m x) / m)`
    with `x` the bias in 1/256 and `(m, p, c)` `(3, 42, 128)` for `maxAnisotropy` 2 and 3,
    `(7, 54, 384)` for 4 to 7, `(2, 64, 128)` for 8 and above (`m`, `p` the slope and plateau
    of `sharpen`), so the bias is rounded toward `p + 2/3`, `p + 6/7` or `p` 1/256. Checked by
    `check_bias` on the `anisobias` and `anisocheck` recordings; `tex.level`'s operand is then
    taken toward zero in 1/256 (`lod_level`)."""
    m, p, c = (3, 42, 128) if aniso < 4 else ((7, 54, 384) if aniso < 8 else (2, 64, 128))
    x = Fraction(f32(b)) * 256
    return p - math.trunc((c - m * x) / m)


def lod_level(v, b, aniso, lo, hi):
    """`tex.level`'s sharpened level of detail in 1/256 for operand `v`, bias `b`, clamped to
    `[lo, hi]` (1/256)."""
    return min(max(sharpen(math.trunc(Fraction(f32(v)) * 256) + sharp_bias(b, aniso), aniso),
                   lo), hi)


def aniso_lod(gx, gy, aniso, levels):
    """`tex.grad`'s level of detail in 1/256 (no bias or clamps), gradients in texels: the raw
    level of `lod_parts`, sharpened and clamped."""
    if rho(gx, gy) == 0:
        return 0
    raw = lod_parts(gx, gy, aniso)[2]
    return min(max(sharpen(raw, aniso), 0), 256 * (levels - 1))


def e8(f):
    """The 8-bit exp2 table: `256 2^(-f/256)` rounded."""
    return math.floor(256 * 2 ** (-f / 256) + 0.5)


def axis_taps(d):
    """The taps of a footprint whose log2 ratio is `d` (1/256), minor axis 256 (1/256 texel):
    [(offset in 1/256 texel, weight)], and the weights' unit 1/T."""
    q, f = divmod(d, 256)
    if q == 0:
        s = 4 * (128 - e8(d) // 2)
        return [(-(s // 2), 256), (s // 2, 256)], 512
    if e8(f) == 128:
        # 2^(-255/256) rounds to 1/2: the ratio is the next power of two's (q + 1, f 0; with
        # q 1 the four taps of 1/4 are in 1/1024, `corpus/aniso/seamcornermiss.jsonl.xz`).
        q, f = q + 1, 0
    t = 256 << min(q, 2)
    wi = (t * e8(f)) >> (8 + q)
    n = 2
    while (t - (n - 2) * wi) / 2 > wi:
        n += 2
    we = (t - (n - 2) * wi) // 2
    pos = [round((j - (n - 1) / 2) * 256) for j in range(n)]
    return [(pos[0], we)] + [(p, wi) for p in pos[1:-1]] + [(pos[-1], we)], t


def split(w, a, b):
    """A tap's weight over its four texels (x first, then y; docs/INTERP.md)."""
    up = (a * w + 128) >> 8
    out = {}
    for x, p in ((0, w - up), (1, up)):
        same = (2 * p * (b if x else 256 - b) + 256) // 512
        out[(x, x)] = same
        out[(x, 1 - x)] = p - same
    return out


def row(taps, t, cx, cy, span=24, imp=32):
    """An impulse's weight (1/1024) at each integer shift of a row of fetches at `cx`, `cy`
    (1/256 texel, after the half-texel shift)."""
    out = np.zeros(2 * span + 1, np.int64)
    yi, b = cy >> 8, cy & 255
    for i in range(-span, span + 1):
        tot = 0
        for ox, w in taps:
            x = cx + 256 * i + ox
            dx, dy = imp - (x >> 8), imp - yi
            if dx in (0, 1) and dy in (0, 1):
                tot += split(w, x & 255, b)[(dx, dy)] * 1024 // t
        out[i + span] = tot
    return out


def tmul(x, y):
    """|x y| as the texture unit's truncated multiplier forms it: the significands of |x| and
    |y| truncated to 9 bits after the leading one (10-bit integers `a`, `b`, as `t9`), each
    partial product `a 2^j` (for the set bits `j` of `b`) cut to units of 2^6, and 7 units
    added to their sum: the multiplier `to_texels` uses for a size that is not a power of two
    (docs/INTERP.md, Mipmaps), here with 10-bit operands. Fitted on the 208 level-of-detail
    samples of `anisoprobe6.lod.jsonl.xz` whose gradients lie along the axes (the determinant
    one product): every one; the nearest variants (cut to 2^5, 12 or 13 units added) miss one,
    the plain product of the truncated significands 52. Which operand's bits pick the partial
    products is not pinned down (either order reproduces every sample of `check_lod_raw`)."""
    if x == 0 or y == 0:
        return 0.0
    ma, ea = math.frexp(abs(x))
    mb, eb = math.frexp(abs(y))
    a, b = math.floor(ma * 1024), math.floor(mb * 1024)
    s = sum((a << j) >> 6 for j in range(10) if b >> j & 1)
    return (s + 7) * 2.0 ** (ea + eb - 14)


def det_hw(gx, gy):
    """|gx.x gy.y - gx.y gy.x| as the texture unit forms it (gradients in texels): each product
    by `tmul` and truncated to 10 bits (`t9`); the smaller one aligned to the larger's last
    bit with one guard bit below it (truncated: units of half the larger's last bit); then the
    two added or subtracted by their signs, exactly. The difference keeps the guard bit, which
    shows when it falls below the larger product's binade; `L256` reads only 8 bits after the
    leading one, so a last truncation of the result to 10 bits changes nothing. While the
    result stays in the larger product's binade, a sum in effect truncates the smaller product
    to the larger's last bit and a difference rounds it half up.
    On the 12,317 samples of `anisoprobe6.lod.jsonl.xz` (A 16, 4, 2) where the minor axis
    decides (the recorded level above `Lmaj - 256 log2 A`), `check_lod_raw`: this rule 12,286
    (every miss a diagonal extent, `lod_parts`); the exact product of the truncated components
    (`det_v1`, the previous rule) 9,502; the two `tmul` products subtracted exactly
    (`det_tm_exact`) 10,816; without the guard bit (`det_grid`) 12,282, the 4 more misses
    differences that lose their leading bit. Either operand order in `tmul` gives the same
    determinant on every sample. The sweeps and random pairs of `anisoprobe.jsonl.xz` (A 2, 4,
    8, 16, through `aniso_lod`) agree in every one of 13,332 + 8,192 samples.
    """
    p, q = t9(tmul(gx[0], gy[1])), t9(tmul(gx[1], gy[0]))
    same = ((gx[0] < 0) != (gy[1] < 0)) == ((gx[1] < 0) != (gy[0] < 0))
    if p < q:
        p, q = q, p
    if q == 0:
        return p
    h = ulp9(p) / 2
    q = math.floor(q / h) * h
    return p - q if same else p + q


def lod_parts(gx, gy, aniso):
    """(Lmaj, Lmin, raw) of `aniso_lod`, in 1/256, before the sharpening and clamps: `Lmaj =
    L256(rho)`, `Lmin = L256(det_hw) - Lmaj` (the minor axis `det / rho` as a difference of
    two table logarithms), `raw = max(Lmin, Lmaj - 256 log2 A)` held at most `Lmaj` (the
    tables' roundings can put `Lmin` a few 1/256 above `Lmaj`: the four random two-level scans
    of `anisoprobe6.scan.rand.jsonl.xz` where they do show the share of a raw level `Lmaj`, and
    `aniso.lod#a2` the level). On the raw levels of detail
    of `anisoprobe6.lod.jsonl.xz` (`check_lod_raw`) every miss is one where a diagonal (the
    sum or difference of the gradients) is the largest extent and reads one 1/256 step low,
    the `diag2` miss the isotropic level of detail shows too (docs/INTERP.md, Mipmaps;
    `known_failures.txt` `gfit.rand`, `mip.grad.2d.rand`)."""
    r = rho(gx, gy)
    lmaj = L256(r)
    det = det_hw(gx, gy)
    lmin = L256(det) - lmaj if det > 0 else -(1 << 30)
    return lmaj, lmin, min(max(lmin, lmaj - 256 * int(math.log2(pow2_floor(aniso)))), lmaj)


def det_v1(gx, gy):
    """The previous round's determinant: the exact products of the truncated components."""
    return f32(abs(math.copysign(t9(gx[0]), gx[0]) * math.copysign(t9(gy[1]), gy[1])
                   - math.copysign(t9(gx[1]), gx[1]) * math.copysign(t9(gy[0]), gy[0])))


def det_tm_exact(gx, gy):
    """The two `tmul` products subtracted exactly (no 10-bit truncation, no alignment)."""
    p = math.copysign(tmul(gx[0], gy[1]), gx[0] * gy[1])
    q = math.copysign(tmul(gx[1], gy[0]), gx[1] * gy[0])
    return f32(abs(p - q))


def det_grid(gx, gy):
    """`det_hw` without the guard bit: the smaller product truncated to the larger's last bit in
    a sum, rounded half up to it in a difference."""
    p, q = t9(tmul(gx[0], gy[1])), t9(tmul(gx[1], gy[0]))
    same = ((gx[0] < 0) != (gy[1] < 0)) == ((gx[1] < 0) != (gy[0] < 0))
    if p < q:
        p, q = q, p
    if q == 0:
        return p
    u = ulp9(p)
    return p - math.floor(q / u + 0.5) * u if same else p + math.floor(q / u) * u


def lod_raw_with(det, gx, gy, aniso):
    """`lod_parts`'s raw level of detail with another determinant rule `det`."""
    lmaj = L256(rho(gx, gy))
    d = det(gx, gy)
    lmin = L256(d) - lmaj if d > 0 else -(1 << 30)
    return max(lmin, lmaj - 256 * int(math.log2(pow2_floor(aniso))))


def direction(g):
    """The taps' step for a major axis `g` (texels), one texel long, in 1/64 texel: each
    component's magnitude is cut to 4 bits below the larger one's leading bit and replaced by
    the middle of its bin; a component below a quarter of that bin (`2^(e - 6)` for the larger's
    exponent `e`, `frexp`) is zero (the `rot.a16.k0` scans of `anisoprobe6.py`: every footprint
    whose smaller component is below 0.249 of a bin has it zero, every one above 0.266 not);
    the vector is normalized and rounded."""
    a, b = abs(g[0]), abs(g[1])
    u = 2.0 ** (math.frexp(max(a, b))[1] - 4)
    qa = math.floor(a / u) + 0.5 if a >= u / 4 else 0.0
    qb = math.floor(b / u) + 0.5 if b >= u / 4 else 0.0
    n = math.hypot(qa, qb)
    sx, sy = (math.floor(q / n * 64 + 0.5) for q in (qa, qb))
    return (sx if g[0] >= 0 else -sx, sy if g[1] >= 0 else -sy)


def major_axis(gx, gy):
    """The vector whose direction the taps follow: of the four extents `rho` takes the largest of
    (the lengths of `gx` and `gy`, the extents of the sum and difference of the truncated
    gradients, `add9`), compared truncated to 9 bits after their leading one (`t9`, as the
    texture unit holds them) and on a tie the first in the order `gx`, sum, `gy`, difference,
    its vector: a gradient as it is, a diagonal as the sum or difference `add9` forms with each
    component weighted 11/16 as `diag2` weights its larger one (`g11`), before `direction`
    cuts it to 4 bits. The difference runs from the shorter gradient to the longer (`gy - gx`
    where `t9(norm2(gy))` is at least `t9(norm2(gx))`): the sign matters between two levels
    only, where the lower level's step is floored (`lower_scale`).
    `anisoprobe6.scan.rand.jsonl.xz` (`check_scans`, every tap of both levels, the level of
    detail of `lod_parts`) agrees in every scan. The extents compared as they are (the first
    on a tie) missed 11 scans whose two largest extents, a gradient's and a diagonal's, lie
    within 0.11% (a gradient won over a larger diagonal in 8, a diagonal over a larger gradient
    in 2, and `gx`'s length 1.5614 over `gy`'s 1.56128 set the difference's sign in one);
    truncated to 9 bits with this order every one of the 799 random scans whose candidates
    within 3% of each other read different taps agrees (every other order 797 at most,
    truncated to 8 or 10 bits 792 and fewer). The diagonal's vector as the exact sum of the
    truncated gradients times 11/16 missed 4 more (its larger component within 0.1% of a bin
    of `direction`, on either side: 7.0012 read below 7 and 1.62476 at 1.625); the `add9` sum
    times 11/16 misses 3 of them, the exact sum of the gradients 3 and 6 more. The octagonal
    length of `gx` against `gy` alone misses two-tap footprints of nearly equal gradients
    (`rand.a16`: the longer gradient 5,660 of 5,801 one-level and 2,253 of 2,388 two-level
    scans, as the rule was then)."""
    tx = [math.copysign(t9(a), a) for a in gx]
    ty = [math.copysign(t9(b), b) for b in gy]
    sm = [add9(a, b) for a, b in zip(tx, ty)]
    df = [add9(a, -b) for a, b in zip(tx, ty)]
    nx, ny = t9(norm2(gx)), t9(norm2(gy))
    c = [(nx, gx), (t9(diag2(sm)), [g11(v) for v in sm]), (ny, gy),
         (t9(diag2(df)), [-g11(v) if ny >= nx else g11(v) for v in df])]
    return c[max(range(4), key=lambda j: (c[j][0], -j))][1]


def footprint(gx, gy, aniso, levels):
    """The taps of a fetch that reads one level: (level, [(dx, dy, weight)], T), offsets in
    1/256 of the level's texel and weights in 1/T; None when the level of detail falls between
    two levels (not fitted). The ratio is `Lmaj` less the raw level of detail (at least 0):
    `axis_taps` gives the count and weights. The taps lie along the major gradient (the one of
    larger octagonal length) at `direction` steps, offsets `(2 j - (N - 1))` half steps; two
    taps (a ratio below 2) lie `256 - e8(D)` in 1/256 either side, scaled by the direction,
    each offset even."""
    lmaj, _, raw = lod_parts(gx, gy, aniso)
    lod = min(max(sharpen(raw, aniso), 0), 256 * (levels - 1))
    if lod & 255:
        return None
    d = max(lmaj - max(raw, 0), 0)
    taps, t = axis_taps(d)
    s = direction(major_axis(gx, gy))
    if d < 256:
        h = 256 - e8(d)
        o = [2 * math.floor(h * c / 128 + 0.5) for c in s]
        return lod >> 8, [(-o[0], -o[1], 256), (o[0], o[1], 256)], 512
    n = len(taps)
    return lod >> 8, [((2 * j - n + 1) * s[0] * 2, (2 * j - n + 1) * s[1] * 2, w)
                      for j, (_, w) in enumerate(taps)], t


def axis_offsets(d, s, scale=None):
    """The taps of a one-level footprint of log2 ratio `d` along the 1/64 direction `s`:
    [(dx, dy, weight)] in 1/256 texel and 1/T, and T (`footprint`). `scale`, when given, maps
    each half-step component (1/256) to the lower level's between two levels."""
    taps, t = axis_taps(d)
    if d < 256:
        h = 256 - e8(d)
        o = [2 * math.floor(h * c / 128 + 0.5) for c in s]
        if scale:
            o = [scale(v) for v in o]
        return [(-o[0], -o[1], 256), (o[0], o[1], 256)], 512
    n = len(taps)
    hs = [2 * c for c in s]
    if scale:
        hs = [scale(v) for v in hs]
    return [((2 * j - n + 1) * hs[0], (2 * j - n + 1) * hs[1], w)
            for j, (_, w) in enumerate(taps)], t


def lower_scale(f):
    """The lower level's half-step between two levels (fraction `f` of the sharpened level of
    detail, 1/256): each one-level half-step component `v` (1/256 texel, even: twice the 1/64
    step) becomes `2 floor((v / 2) K / 64)` with `K = e8(256 - f) >> 1` (the exp2 table's
    `2^(f/256 - 1)` in 1/256, halved: `2^(f/256)` in 1/64), the floor toward minus infinity (a
    negative component comes out one 1/128 step longer than a positive one of the same size).
    For two taps `v` is the one-level offset, `2 round(h c / 128)`. With `share`, `direction`
    and `major_axis`, every tap of every axis-swept scan of `anisoprobe6.scan.rot.jsonl.xz` (A 2,
    4, 16; lower level 0, 1, 2) agrees (`check_scans`; with `lod_parts`' own level of detail,
    which every scan of these sets shows; the ratio 511/256 read as 512/256 by `axis_taps`)."""
    k = e8(256 - f) >> 1
    return lambda v: 2 * ((v // 2) * k // 64)


def share(taps, sh):
    """A level's taps times its share `sh` (1/256) between two levels: the running sum of the
    one-level weights times `sh` is rounded half up in the footprint's unit and each tap gets the
    step of that rounded sum, so the level's weights add up to `sh T / 256` exactly
    (`anisoprobe6.scan.*.jsonl.xz`: every two-level scan's lower level sums to
    `(256 - f) T / 256`; rounding each tap alone misses one 1/512 on a level in most scans)."""
    out, c, prev = [], 0, 0
    for x, y, w in taps:
        c += w
        cur = (c * sh + 128) >> 8
        out.append((x, y, cur - prev))
        prev = cur
    return out


def footprint2(gx, gy, aniso, levels):
    """The taps of any fetch: [(level, [(dx, dy, weight)], T)], offsets in 1/256 of that level's
    texel, weights in 1/T with each level's share applied. One level as `footprint`. Between
    levels `k` and `k + 1` (sharpened level of detail `256 k + f`), each level reads its own
    footprint along `direction(major_axis)`: the lower one the ratio `d0 = Lmaj - raw` (as one
    level) with the step scaled by `lower_scale(f)`, the upper one the ratio `d0 - (256 - f)`
    with the one-level step (one of its texels); each level's weights times its share
    (`256 - f`, `f`) by `share`, in units of 1/T."""
    lmaj, _, raw = lod_parts(gx, gy, aniso)
    lod = min(max(sharpen(raw, aniso), 0), 256 * (levels - 1))
    d0 = max(lmaj - max(raw, 0), 0)
    s = direction(major_axis(gx, gy))
    k, f = divmod(lod, 256)
    if f == 0:
        taps, t = axis_offsets(d0, s)
        return [(k, taps, t)]
    t0, n0 = axis_offsets(d0, s, lower_scale(f))
    t1, n1 = axis_offsets(max(d0 - (256 - f), 0), s)
    return [(k, share(t0, 256 - f), n0), (k + 1, share(t1, f), n1)]


def round_away(x, p=24, min_e=-149):
    """An exact fraction rounded to `p` significant bits (f32 by default; the quantum at least
    `2^min_e`), ties away from zero."""
    if x == 0:
        return 0.0
    a = abs(x)
    e = math.frexp(float(a))[1] - 1
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    u = Fraction(2) ** max(e - (p - 1), min_e)
    q = math.floor(a / u + Fraction(1, 2))
    return float(np.float32(math.copysign(float(q * u), float(x))))


class Tap(list):
    """A tap's weighted texels ([(weight, texel)]) and the level it reads."""

    def __init__(self, items, level):
        super().__init__(items)
        self.level = level


def tap_sum(groups, bits=27, p=24, min_e=-149, floor=8):
    """The weighted texels of a fetch, one group per tap ([(weight, texel)], a `Tap` where the
    level matters), summed as the texture unit sums them: each tap's texels cut toward zero
    to `bits` bits below the leading bit of the tap's largest (`2^E <= |v| < 2^(E+1)`: units
    of `2^(E - bits)`) and its weighted texels summed exactly; then the taps accumulated in
    order, four at a time (each level's from its first), into an accumulator whose last bit is
    `2^(4 floor((E + 3) / 4) - p - 14)` for the largest texel `E` of the taps so far, up to
    and including the group (the exponent in steps of four; `2^(E - p - 11)`, 8 bits below
    the largest texel's unit, where `E` is 1 mod 4): each tap's sum cut toward minus infinity
    (two's complement) to it as it is added, the accumulated sum cut so too first where a
    group raises it; the sum rounded once to `p` bits, ties away from zero (`tex::tap_sum`,
    `corpus/vectors/seamcut.jsonl.xz`). `floor` None sums the taps exactly (the first rule,
    `check_fetch` counts both)."""
    taps = []
    for g in groups:
        nz = [abs(val) for _, val in g if val != 0]
        level = getattr(g, "level", 0)
        if not nz:
            taps.append((Fraction(0), None, level))
            continue
        e = math.frexp(max(nz))[1] - 1
        unit = 2.0 ** (e - bits)
        taps.append((sum((ww * Fraction(math.trunc(val / unit) * unit) for ww, val in g),
                         Fraction(0)), e, level))
    if floor is None or all(e is None for _, e, _ in taps):
        return round_away(sum((t for t, _, _ in taps), Fraction(0)), p, min_e)
    acc, bit, seen, i = Fraction(0), None, None, 0
    while i < len(taps):
        j = i + 1
        while j < len(taps) and j - i < 4 and taps[j][2] == taps[i][2]:
            j += 1
        group, i = taps[i:j], j
        es = [e for _, e, _ in group if e is not None]
        if not es:
            continue
        seen = max(es + ([seen] if seen is not None else []))
        b = 4 * ((seen + 3) // 4) - p - 14
        if bit is not None and b > bit:
            acc = math.floor(acc / Fraction(2) ** b) * Fraction(2) ** b
        bit = b if bit is None else max(bit, b)
        q = Fraction(2) ** bit
        acc += sum((math.floor(t / q) * q for t, e, _ in group if e is not None), Fraction(0))
    return round_away(acc, p, min_e)


def fetch_f32(levels, u, v, gxn, gyn, aniso, bits=27, floor=8):
    """A one-channel `f32` fetch with clamped addressing: (value, levels read). Each tap's
    position (`footprint2`) is the coordinate less half a texel in 1/256 (half up) at its
    level's size plus the tap's offset, clamped to the level; its weight split over its four
    texels (`split`); the weighted texels of every tap of both levels summed by `tap_sum`
    (`fetch_groups`, which also sums the two taps of a ratio of 1 as one)."""
    groups, nl = fetch_groups(levels, u, v, gxn, gyn, aniso)
    return tap_sum(groups, bits, floor=floor), nl


def fetch_groups(levels, u, v, gxn, gyn, aniso, wrap=False, point=False, nearest=False,
                 addr=None, border=0.0):
    """The weighted texels of one channel of a fetch, one group per tap (weights as fractions
    of 1), and the number of levels read. `levels` hold the channel's texels (`f16` values,
    or the `u8`/`s8` integers); `wrap` leaves the positions unclamped and wraps the texels;
    `point` reads, at each tap's whole weight, the texel its position (the coordinate rounded
    down to 1/256 plus the offset) falls in; `nearest` reads the nearest level alone, with the
    one-level footprint. `addr` `"mirror"` or `"border"` leaves the positions unclamped too
    and addresses each texel as the sampler says (mirrored, or `border` past the edge).
    Where the footprint's ratio is 1 (`D` 0) each level's two taps coincide and are one group
    (`tap_sum` sums them as one tap: `ap6.rand#f16x2.a4` 562 and `a16` 499)."""
    h, w = levels[0].shape
    gx = [to_texels(gxn[0], w), to_texels(gxn[1], h)]
    gy = [to_texels(gyn[0], w), to_texels(gyn[1], h)]
    lmaj, _, raw = lod_parts(gx, gy, aniso)
    one = max(lmaj - max(raw, 0), 0) == 0
    if nearest:
        lod = min(max(sharpen(raw, aniso), 0), 256 * (len(levels) - 1))
        taps, t = axis_offsets(max(lmaj - max(raw, 0), 0), direction(major_axis(gx, gy)))
        fps = [((lod + 128) >> 8, taps, t)]
    else:
        fps = footprint2(gx, gy, aniso, len(levels))
    groups = []
    for k, taps, t in fps:
        first = len(groups)
        _level_groups(groups, levels[k], taps, t, u, v, wrap, point, addr, border)
        groups[first:] = [Tap(g, k) for g in groups[first:]]
        if one:
            groups[first:] = [Tap([x for g in groups[first:] for x in g], k)]
    return groups, len(fps)


def _level_groups(groups, tex, taps, t, u, v, wrap, point, addr, border):
    """`fetch_groups`' groups of one level's taps, appended to `groups`."""
    h, w = tex.shape

    def at(i, j):
        if wrap:
            return float(tex[j % h, i % w])
        if addr == "mirror":
            i, j = i % (2 * w), j % (2 * h)
            return float(tex[min(j, 2 * h - 1 - j), min(i, 2 * w - 1 - i)])
        if addr == "border":
            return float(tex[j, i]) if 0 <= i < w and 0 <= j < h else border
        return float(tex[min(max(j, 0), h - 1), min(max(i, 0), w - 1)])
    if point:
        cx, cy = math.floor(scale_coord(u, w) * 256), math.floor(scale_coord(v, h) * 256)
        groups += [[(Fraction(wt, t), at((cx + ox) >> 8, (cy + oy) >> 8))]
                   for ox, oy, wt in taps if wt]
        return
    cx = math.floor((scale_coord(u, w) - 0.5) * 256 + 0.5)
    cy = math.floor((scale_coord(v, h) - 0.5) * 256 + 0.5)
    for ox, oy, wt in taps:
        x, y = cx + ox, cy + oy
        if not wrap and addr is None:
            x, y = min(max(x, 0), 256 * (w - 1)), min(max(y, 0), 256 * (h - 1))
        groups.append([(Fraction(ww, t), at((x >> 8) + dx, (y >> 8) + dy))
                       for (dx, dy), ww in split(wt, x & 255, y & 255).items() if ww])


def fetch(levels, u, v, gxn, gyn, aniso, fmt="f32", integer=False, **kw):
    """One channel of a fetch as the interpreter forms it (`interp/src/exec/texture.rs`,
    `aniso_fetch`): (value, levels read); `fetch_groups` says what `levels` and `kw` are.
    `integer`: the texels are read as integers (the value an integer)."""
    groups, nl = fetch_groups(levels, u, v, gxn, gyn, aniso, **kw)
    if integer:
        # The exact sum rounded down for 32-bit channels, half up for 8- and 16-bit ones.
        s = sum((ww * int(val) for g in groups for ww, val in g), Fraction(0))
        return math.floor(s if fmt in ("u32", "s32") else s + Fraction(1, 2)), nl
    if fmt in ("u8", "u16"):
        k = 257 if fmt == "u8" else 1
        s = sum((ww * k * int(val) for g in groups for ww, val in g), Fraction(0))
        return float(np.float32(math.floor(s + Fraction(1, 2)) / 65535)), nl
    if fmt == "s16":
        # -32768 summed as it is (a bilinear tap clamps it to -32767 first).
        s = sum((ww * int(val) for g in groups for ww, val in g), Fraction(0))
        return float(np.float32(max(math.floor(s + Fraction(1, 2)) / 32767, -1.0))), nl
    if fmt == "s8":
        s = sum((ww * 256 * int(val) for g in groups for ww, val in g), Fraction(0))
        q = math.floor((129 * s + 16 * math.floor(s / 4096) + 64) / 128)
        return float(np.float32(max(q / 32767, -1.0))), nl
    if fmt == "f16":
        return tap_sum(groups, 14, 11, -24), nl
    return tap_sum(groups), nl


def levels_of(c):
    """Each channel's levels of a case's texture: [[level arrays] per channel]."""
    d = c["textures"][0]
    raw = [int(x, 16) for x in c["args"][0]["hex"]]
    vals = {"f32": lambda: np.array(raw, np.uint32).view(np.float32),
            "f16": lambda: np.array(raw, np.uint16).view(np.float16),
            "u8": lambda: np.array(raw, np.int64),
            "s8": lambda: np.array([x - 256 if x >= 128 else x for x in raw], np.int64),
            "u16": lambda: np.array(raw, np.int64),
            "s16": lambda: np.array([x - 65536 if x >= 32768 else x for x in raw], np.int64),
            "u32": lambda: np.array(raw, np.int64),
            "s32": lambda: np.array([x - 2 ** 32 if x >= 2 ** 31 else x for x in raw], np.int64)}
    tx = vals[d["type"]]().astype(np.float64)
    n, (w, h) = d["channels"], d["dims"]
    out, p = [[] for _ in range(n)], 0
    for _ in range(d["levels"]):
        lv = tx[p:p + w * h * n].reshape(h, w, n)
        for ch in range(n):
            out[ch].append(lv[:, :, ch])
        p += w * h * n
        w, h = max(w // 2, 1), max(h // 2, 1)
    return out


def check_formats(root):
    """`fetch` against the random fetches of the other formats and settings: a fetch agrees
    when every channel does; one-level and two-level fetches counted apart."""
    sets = [("/anisoprobe4.jsonl.xz", "ap4.val.", {}),
            ("/anisoprobe6.rand.jsonl.xz", "ap6.rand#u8x4.", {}),
            ("/anisoprobe6.rand.jsonl.xz", "ap6.rand#f16x2.", {}),
            ("/../vectors/aniso.jsonl.xz", "aniso.grad#u8x4.wrap.", {"wrap": True}),
            ("/../vectors/aniso.jsonl.xz", "aniso.grad#f32.fpoint.", {"point": True}),
            ("/../vectors/aniso.jsonl.xz", "aniso.grad#f32.mpoint.", {"nearest": True}),
            ("/../vectors/aniso16.jsonl.xz", "aniso16#", None)]
    for path, prefix, kw in sets:
        for name, c in load(root + path).items():
            if not name.startswith(prefix) or name.startswith("ap4.val.f32"):
                continue
            d = c["textures"][0]
            if kw is None:  # aniso16: the settings from the name
                kw0 = {"point": ".fpoint." in name, "nearest": ".mpoint." in name,
                       "wrap": ".wrap." in name}
                if "#int." in name:
                    kw0.update(point=True, nearest=True, integer=True)
            else:
                kw0 = kw
            lv = levels_of(c)
            co = words(c["args"][1]["hex"]).reshape(-1, 4)
            g = words(c["args"][2]["hex"]).reshape(-1, 8)
            got = outs(c)
            if kw0.get("integer"):
                raw = np.array([int(h, 16) for h in c["out"]["hex"]], np.int64).reshape(-1, 4)
                got = raw - (raw >= 2 ** 31) * 2 ** 32 if d["type"][0] == "s" else raw
            cnt = {1: [0, 0], 2: [0, 0]}
            for i in range(len(got)):
                ok, n = True, 1
                for ch in range(d["channels"]):
                    r, n = fetch(lv[ch], float(co[i, 0]), float(co[i, 1]),
                                 [float(g[i, 0]), float(g[i, 1])], [float(g[i, 4]), float(g[i, 5])],
                                 d["aniso"], d["type"], **kw0)
                    ok = ok and r == got[i, ch]
                cnt[n][1] += 1
                cnt[n][0] += ok
            print("fetch       tex.grad  %-26s one level: %4d of %4d agree, two levels: %4d of %4d"
                  % (name, cnt[1][0], cnt[1][1], cnt[2][0], cnt[2][1]))


def levels_f32(c):
    d = c["textures"][0]
    tx = words(c["args"][0]["hex"]).astype(np.float64)
    w, h = d["dims"]
    out, p = [], 0
    for _ in range(d["levels"]):
        out.append(tx[p:p + w * h].reshape(h, w))
        p += w * h
        w, h = max(w // 2, 1), max(h // 2, 1)
    return out


def texel_grads(row):
    return [f32(v / 64) * 64 for v in row["gx"]], [f32(v / 64) * 64 for v in row["gy"]]


def check_taps(root):
    """The tap positions point filtering shows (`anisoprobe5.py`)."""
    sweep = [json.loads(s) for s in lzma.open(root + "/anisoprobe5.sweep.jsonl.xz", "rt")]
    ok = tot = 0
    for r in sweep:
        pos = [s for s in r["spikes"] if s[0] > 0]
        if len(pos) != 1:  # the window missed the corner, or corners cancel (axis-aligned)
            continue
        tot += 1
        ok += direction(texel_grads(r)[0]) == (pos[0][1] // 2, pos[0][2] // 2)
    print("direction   tex.grad  sweep of 8 lengths x 256 angles: %d of %d steps agree" % (ok, tot))
    sweep2 = [json.loads(s) for s in lzma.open(root + "/anisoprobe5.sweep2.jsonl.xz", "rt")]
    ok = tot = 0
    for r in sweep2:
        if r["kind"] != "two":
            continue
        gx, gy = texel_grads(r)
        _, taps, t = footprint(gx, gy, 16, 7)
        neg = min((tp for tp in taps if (tp[0], tp[1]) < (0, 0)), key=lambda tp: abs(tp[0]) + abs(tp[1]))
        tot += 1
        ok += (-neg[0], -neg[1]) in [(s[1], s[2]) for s in r["spikes"] if s[0] > 0]
    print("footprint   tex.grad  two taps, 4 ratios x 64 angles: %d of %d positions agree" % (ok, tot))
    corners = [json.loads(s) for s in lzma.open(root + "/anisoprobe5.corners.jsonl.xz", "rt")]
    by = {}
    for r in corners:
        by.setdefault((r["config"], r["level"]), []).append(r)
    ok = tot = 0
    two = []
    for (name, lv), rs in by.items():
        gx, gy = texel_grads(rs[0])
        fp = footprint(gx, gy, rs[0]["aniso"], 7)
        if fp is None:
            two.append("%s.l%d" % (name, lv))
            continue
        k, taps, t = fp
        pred = sorted((-ox << k, -oy << k, w * 1024 // t) for ox, oy, w in taps)
        obs = sorted((f[1], f[2], r["weight"]) for r in rs for f in r["fine"] if f[0] > 0)
        tot += 1
        ok += pred == obs
    print("footprint   tex.grad  corner configurations read from one level: %d of %d agree "
          "(between two levels, see footprint2: %s)" % (ok, tot, " ".join(two)))


def check_fetch(root):
    """`fetch_f32` against the random `f32` fetches (`anisoprobe4.jsonl.xz` taps along x,
    `aniso.grad#f32.*`, `ap6.rand#f32.*`), one-level and two-level fetches counted apart; in
    brackets the count with the taps summed exactly (`tap_sum` with `floor` None, the previous
    rule)."""
    sets = [("/anisoprobe4.jsonl.xz", ["ap4.val.f32.m1", "ap4.val.f32.m1.5"]),
            ("/../vectors/aniso.jsonl.xz", ["aniso.grad#f32.a%d" % a for a in (2, 4, 16)]),
            ("/anisoprobe6.rand.jsonl.xz", ["ap6.rand#f32.a%d" % a for a in (2, 4, 16)])]
    for path, names in sets:
        vec = load(root + path)
        for name in names:
            c = vec[name]
            lv = levels_f32(c)
            co = words(c["args"][1]["hex"]).reshape(-1, 4)
            g = words(c["args"][2]["hex"]).reshape(-1, 8)
            got = outs(c)
            cnt = {1: [0, 0, 0], 2: [0, 0, 0]}
            for i in range(len(got)):
                groups, n = fetch_groups(lv, float(co[i, 0]), float(co[i, 1]),
                                         [float(g[i, 0]), float(g[i, 1])],
                                         [float(g[i, 4]), float(g[i, 5])], c["textures"][0]["aniso"])
                cnt[n][0] += tap_sum(groups) == float(got[i, 0])
                cnt[n][1] += tap_sum(groups, floor=None) == float(got[i, 0])
                cnt[n][2] += 1
            print("fetch_f32   tex.grad  %-20s one level: %4d (%4d) of %4d agree, two levels: "
                  "%4d (%4d) of %4d" % (name, *cnt[1], *cnt[2]))


def check_two_levels(root):
    """The taps between two levels (`footprint2`) against the windows of
    `anisoprobe5.sweep3.jsonl.xz` (centred on the fitted positions), the lower-level windows of
    `anisoprobe5.sweep2.jsonl.xz` and the two-level corner configurations."""
    recs = [json.loads(s) for s in lzma.open(root + "/anisoprobe5.sweep3.jsonl.xz", "rt")]
    recs += [r for r in map(json.loads, lzma.open(root + "/anisoprobe5.sweep2.jsonl.xz", "rt"))
             if r["kind"] == "lv" and r["level"] == 0]
    cnt = {(lv, what): 0 for lv in (0, 1) for what in ("tot", "pos", "wt")}
    for r in recs:
        gx, gy = texel_grads(r)
        fp = footprint2(gx, gy, 16, 7)
        spk = [tuple(p) for p in r["spikes"] if p[0] > 0]
        if len(fp) != 2 or len(spk) != 1:  # a window that shows no single corner
            continue
        lv = r["level"]
        _, taps, t = fp[lv]
        w, x, y = spk[0]
        near = [(-ox << lv, -oy << lv, wt * 1024 // t) for ox, oy, wt in taps]
        cnt[(lv, "tot")] += 1
        at = [p for p in near if (p[0], p[1]) == (x, y)]
        cnt[(lv, "pos")] += bool(at)
        # The recorded weight is the fetch's, rounded to 1/1024.
        cnt[(lv, "wt")] += any(abs(p[2] - w) <= 1 for p in at)
    for lv, name in ((0, "lower"), (1, "upper")):
        print("footprint2  tex.grad  between two levels, %s level: %d of %d positions agree, "
              "%d with the weight (within 1/1024)" % (name, cnt[(lv, "pos")], cnt[(lv, "tot")],
                                                      cnt[(lv, "wt")]))
    corners = [json.loads(s) for s in lzma.open(root + "/anisoprobe5.corners.jsonl.xz", "rt")]
    by = {}
    for r in corners:
        by.setdefault((r["config"], r["level"]), []).append(r)
    res = []
    for (name, lv), rs in sorted(by.items()):
        gx, gy = texel_grads(rs[0])
        fp = footprint2(gx, gy, rs[0]["aniso"], 7)
        if len(fp) != 2:
            continue
        _, taps, t = fp[lv]
        pred = sorted((-ox << lv, -oy << lv, wt * 1024 // t) for ox, oy, wt in taps)
        obs = sorted((f[1], f[2], r["weight"]) for r in rs for f in r["fine"] if f[0] > 0)
        pos = [p[:2] for p in pred] == [o[:2] for o in obs]
        wts = pos and all(abs(p[2] - o[2]) <= 1 for p, o in zip(pred, obs))
        res.append("%s.l%d %s" % (name, lv, "exact" if wts else "positions" if pos else "miss"))
    print("footprint2  tex.grad  two-level corner configurations: " + ", ".join(res))


def scan_first(base, k, lv, steps):
    """For a scan (`anisoprobe6.py`) whose level-0 coordinate is `base + t 2^k` (1/256 texel):
    for each residue r of the level-`lv` coordinate (floor of the coordinate at that level, in
    1/256 of its texel), the first step t >= 1 at which it is newly reached, or -1."""
    first = [-1] * 256
    q = [(base + t * (1 << k)) >> lv for t in range(steps + 1)]
    for t in range(steps, 0, -1):
        if q[t] != q[t - 1]:
            first[q[t] % 256] = t
    return first


def scan_taps(rec, lv, ax):
    """The taps a scan shows on level `lv`, axis `ax`: {offset modulo 256 (1/256 texel): weight
    in 1/1024}. Each jump of the level's channel is a tap (or taps) crossing a texel boundary."""
    k = rec["k"]
    steps = 256 if lv == k else 511
    first = scan_first(128 * 256, k, lv, steps)
    inv = {t: r for r, t in enumerate(first) if t >= 0}
    ch = (0 if lv % 2 == 0 else 2) + ax
    out = {}
    for t, c, w in rec["jumps"]:
        if c == ch:
            r = (-inv[t]) % 256
            out[r] = out.get(r, 0) + w
    return out


def model_scan(fps, k, lv, ax):
    """The same from a footprint (`footprint2`), leaving out residues the scan cannot reach."""
    first = scan_first(128 * 256, k, lv, 256 if lv == k else 511)
    out = {}
    for lev, taps, t in fps:
        if lev != lv:
            continue
        for tp in taps:
            w = tp[2] * 1024 // t
            r = tp[ax] % 256
            if w and first[(-r) % 256] >= 0:
                out[r] = out.get(r, 0) + w
    return {r: w for r, w in out.items() if w}


def footprint_raw(gx, gy, aniso, levels, raw):
    """`footprint2` with the raw level of detail given (1/256), for a fetch whose level of
    detail the rule of `lod_parts` misses."""
    global lod_parts
    keep = lod_parts

    def given(gx, gy, aniso):
        lmaj, lmin, _ = keep(gx, gy, aniso)
        return lmaj, lmin, raw
    lod_parts = given
    try:
        return footprint2(gx, gy, aniso, levels)
    finally:
        lod_parts = keep


def check_scans(root):
    """The footprints of `anisoprobe6.py`'s scans (`anisoprobe6.scan.*.jsonl.xz`): both levels'
    taps (positions and weights) against `footprint2`, with its own level of detail, and with
    the raw level of detail that gives the share the scan shows (the lower level's weights add
    up to `(256 - f) 4` in 1/1024), which isolates the footprint from the level-of-detail
    misses."""
    for part in ("rot", "rand"):
        cnt = {}
        for line in lzma.open(root + "/anisoprobe6.scan.%s.jsonl.xz" % part, "rt"):
            rec = json.loads(line)
            g = np.array([int(h, 16) for h in rec["g"]], np.uint32).view(np.float32)
            gx, gy = [float(v) * 256 for v in g[0:2]], [float(v) * 256 for v in g[2:4]]
            a, k = rec["aniso"], rec["k"]
            if rho(gx, gy) == 0:
                continue
            obs = {(lv, ax): scan_taps(rec, lv, ax) for lv in (k, k + 1) for ax in (0, 1)}

            def same(fps):
                return all(model_scan(fps, k, lv, ax) == obs[(lv, ax)] for lv, ax in obs)
            fps = footprint2(gx, gy, a, 9)
            if fps[0][0] != k:
                continue
            c = cnt.setdefault((rec["set"], len(fps)), [0, 0, 0, 0])
            c[0] += 1
            c[1] += same(fps)
            f = 256 - sum(obs[(k, 0)].values()) // 4
            _, _, raw = lod_parts(gx, gy, a)
            cands = [r for r in range(raw - 4, raw + 5)
                     if min(max(sharpen(r, a), 0), 2048) == 256 * k + f]
            c[2] += bool(cands)
            c[3] += any(same(footprint_raw(gx, gy, a, 9, r)) for r in cands)
        for (name, n), c in sorted(cnt.items()):
            print("footprint2  tex.grad  scans %-10s %s level: %5d of %5d exact, with the "
                  "level of detail the share shows %5d of %5d"
                  % (name, ("one", "two")[n - 1], c[1], c[0], c[3], c[2]))


def diagonal_major(gx, gy):
    """Whether a diagonal (the sum or difference of the truncated gradients) is the largest of
    `rho`'s four extents."""
    tx = [math.copysign(t9(a), a) for a in gx]
    ty = [math.copysign(t9(b), b) for b in gy]
    c = [norm2(gx), norm2(gy), diag2([add9(a, b) for a, b in zip(tx, ty)]),
         diag2([add9(a, -b) for a, b in zip(tx, ty)])]
    return max(range(4), key=lambda j: (c[j], -j)) >= 2


def check_lod_raw(root):
    """The raw level of detail (`trilinopt=0`, no sharpening) of random gradient pairs
    (`anisoprobe6.lod.jsonl.xz`) against `lod_parts` and against the other determinant rules:
    all samples, and those where the minor axis decides (`Lmin` above `Lmaj - 256 log2 A` by
    the recorded level; `minor`). The misses of `lod_parts` are split by whether a diagonal is
    the largest extent of `rho` (the `diag2` miss of the isotropic level of detail)."""
    rules = [("det_v1", det_v1), ("det_tm_exact", det_tm_exact), ("det_grid", det_grid),
             ("det_hw", det_hw)]
    for line in lzma.open(root + "/anisoprobe6.lod.jsonl.xz", "rt"):
        rec = json.loads(line)
        a = int(rec["set"].split(".")[1][1:])
        g = np.array([int(h, 16) for h in rec["g"]], np.uint32).view(np.float32).reshape(-1, 4)
        tot = minor = 0
        ok = {nm: [0, 0] for nm, _ in rules}
        diag = 0
        for row, got in zip(g.astype(np.float64) * 256, rec["lod"]):
            gx, gy = list(row[0:2]), list(row[2:4])
            if rho(gx, gy) == 0:
                continue
            tot += 1
            lmaj = L256(rho(gx, gy))
            dec = 0 < got < 2048 and got > lmaj - 256 * int(math.log2(pow2_floor(a)))
            minor += dec
            for nm, det in rules:
                hit = min(max(lod_raw_with(det, gx, gy, a), 0), 2048) == got
                ok[nm][0] += hit
                ok[nm][1] += hit and dec
            if min(max(lod_parts(gx, gy, a)[2], 0), 2048) != got:
                diag += diagonal_major(gx, gy)
        for nm, _ in rules:
            print("lod_parts   tex.grad  %s (raw level of detail) %-12s: %5d of %5d samples agree, "
                  "%5d of %5d where the minor axis decides"
                  % (rec["set"], nm, ok[nm][0], tot, ok[nm][1], minor))
        miss = tot - ok["det_hw"][0]
        print("lod_parts   tex.grad  %s lod_parts misses %d, %d of them with a diagonal the "
              "largest extent" % (rec["set"], miss, diag))


def check_bias(vectors):
    """`sharp_bias` and `lod_level` on `tex.level` with a bias (textures whose level `k` holds
    `k`): the sweeps over every 1/256 of three levels of `anisobias.jsonl.xz` (`ab.level.*`,
    biases on grids of 1/64 and 1/256 and random ones, `maxAnisotropy` 2 to 7) and the random
    operands of `ac.lod.level.*` (2, 4, 8, 16; five biases, one with level clamps)."""
    import re
    tot = {}
    for name, c in load(vectors + "/anisobias.jsonl.xz").items():
        m = re.match(r"(ab|ac)\.(?:lod\.)?level\.a(\d+)\.b([-0-9.e]+)(\.clamp)?$", name)
        if not m:
            continue
        a, b = int(m.group(2)), float(m.group(3))
        lo, hi = (320, 896) if m.group(4) else (0, 256 * (c["textures"][0]["levels"] - 1))
        lam = words(c["args"][1]["hex"]).reshape(-1, 4)[:, 3]
        n = 769 if m.group(1) == "ab" else 512
        got = np.round(outs(c)[:n, 0] * 256)
        ok = sum(lod_level(float(v), b, a, lo, hi) == g for v, g in zip(lam[:n], got))
        k = (m.group(1), a)
        t = tot.setdefault(k, [0, 0, 0, 0])
        t[0] += ok
        t[1] += n
        t[2] += ok == n
        t[3] += 1
    for (fam, a), (ok, n, cok, cn) in sorted(tot.items()):
        print("sharp_bias  tex.level %s a=%-2d %d of %d samples, %d of %d sweeps agree" %
              (fam, a, ok, n, cok, cn))


# --- `--known`: the figures of `corpus/vectors/known_failures.txt` and docs/INTERP.md's tables.

KNOWN_FILES = ["aniso", "anisograd", "anisoaddr", "aniso16", "anisogeom", "anisobias",
               "cubegrad", "seamaniso", "seamcorner2"]
KNOWN_PREFIXES = ("aniso.grad#", "aniso.lod#", "ap6.rand#", "anisoaddr#", "aniso16#", "ag.grad#",
                  "ag.lod.grad.", "ac.1d.",
                  "ac.grad#", "cg.fetch#", "sa.grad#", "scc.")


def lod_with(gx, gy, tex):
    """`tex.grad`'s level of detail (1/256) of a texture descriptor `tex` (bias, clamps,
    `maxAnisotropy`, levels), the raw level of `lod_parts` (docs/INTERP.md: the bias added to
    the raw level, sharpened, then the clamps)."""
    a = tex.get("aniso", 0)
    top = 256 * (tex.get("levels", 1) - 1)
    if rho(gx, gy) == 0:
        return 0
    raw = lod_parts(gx, gy, max(a, 1))[2] if a > 1 else L256(rho(gx, gy))
    sharp = a > 1 and tex.get("trilinopt", 1)
    b = tex.get("lodbias", 0.0)
    bias = sharp_bias(b, a) if sharp else math.trunc(Fraction(f32(b)) * 256)
    lev = sharpen(raw + bias, a) if sharp else raw + bias
    lev = min(lev, math.trunc(Fraction(f32(tex.get("maxlod", 1000.0))) * 256))
    lev = max(lev, math.trunc(Fraction(f32(tex.get("minlod", 0.0))) * 256))
    return min(max(lev, 0), top)


def border_raw(b, fmt):
    """The border colour as a texel of format `fmt` (`texture::border_bytes`): normalized
    integers through f16 (toward zero; exact for the recorded colours), then scaled to the
    format's largest value, nearest with ties toward zero."""
    hi = {"u8": 255, "s8": 127, "u16": 65535, "s16": 32767}.get(fmt)
    if hi is None:
        return b
    v = Fraction(f32(b)) * hi
    q = math.floor(v)
    return q + (v - q > Fraction(1, 2))


def n_levels(lev, tex):
    return 2 if tex.get("mipfilter") == "linear" and lev & 255 else 1


def cube_face_st(q, i, neg):
    """The face's own (s, t) of a vector `q` on face (axis `i`, sign): `texture::cube_face`."""
    return {(0, False): (-q[2], -q[1]), (0, True): (q[2], -q[1]), (1, False): (q[0], q[2]),
            (1, True): (q[0], -q[2]), (2, False): (q[0], -q[1]), (2, True): (-q[0], -q[1])}[(i, neg)]


def cube_sample(p, gx, gy, tex):
    """A cube-map fetch's class and footprint: ("crossing", None) where a gradient ends on
    another face (isotropic), else ("face", (s, t, gx, gy)): the face coordinates in [0, 1] and
    the face's gradients in texels of level 0 (`exec/texture.rs` `cube_gradient`, oriented)."""
    import cubefit
    if cubefit.crosses(p, gx) or cubefit.crosses(p, gy):
        return "crossing", None
    n = tex["dims"][0]
    i = cubefit.major(p)
    neg = p[i] < 0
    m0 = abs(p[i])

    def st(q, m):
        s, t = cube_face_st(q, i, neg)
        return s / m, t / m
    s0, t0 = st(p, m0)
    out = []
    for g in (gx, gy):
        q = [p[k] + g[k] for k in range(3)]
        s1, t1 = st(q, abs(q[i]))
        out.append([cubefit.to_texels(f32((s1 - s0) / 2), n), cubefit.to_texels(f32((t1 - t0) / 2), n)])
    r = f32(1 / f32(m0))
    s, t = cube_face_st([f32(c) for c in p], i, neg)
    return "face", ((f32(f32(s) * r) + 1) / 2, (f32(f32(t) * r) + 1) / 2, out[0], out[1])


def past_corner(s, t, gx, gy, tex):
    """Whether a tap of a seamless cube map's footprint would hold two or more texels past a
    corner of the cube (both their coordinates outside the face): the taps whose position
    `exec::texture::seamless_tap` clamps."""
    n0 = tex["dims"][0]
    for k, taps, _ in footprint2(gx, gy, tex["aniso"], tex["levels"]):
        n = max(n0 >> k, 1)
        cx = math.floor((scale_coord(s, n) - 0.5) * 256 + 0.5)
        cy = math.floor((scale_coord(t, n) - 0.5) * 256 + 0.5)
        for ox, oy, wt in taps:
            x, y = (cx + ox) >> 8, (cy + oy) >> 8
            if wt and sum(not 0 <= x + dx < n and not 0 <= y + dy < n
                          for dx in (0, 1) for dy in (0, 1)) >= 2:
                return True
    return False


def known_case(c, got):
    """One tex.grad case against the interpreter's outputs `got` (the same case from
    `ptx vectors --write`): the failing words, and per class of fetch (one level, two levels,
    a tap past a corner of a seamless cube map, a gradient ending on another face; 3D and
    layered 1D: "iso") [agreeing, total]; and, where `fetch` models the format and addressing
    (2D, no bias), the fetches whose every channel `fetch` gives as the interpreter does."""
    tex = c["textures"][0]
    want = [int(h, 16) for h in c["out"]["hex"]]
    have = [int(h, 16) for h in got["out"]["hex"]]
    bad = sum(a != b for a, b in zip(want, have))
    co = words(c["args"][1]["hex"]).reshape(-1, 4)
    g = words(c["args"][2]["hex"]).reshape(-1, 8)
    nf = len(want) // 4
    dims = tex["dims"]
    geo = "cube" if tex.get("cube") else ("1d" if len(dims) == 1 else ("3d" if len(dims) == 3
                                                                      else "2d"))
    iso = geo == "3d" or (geo == "1d" and tex.get("layers"))
    modelled = (geo == "2d" and not tex.get("layers") and "lodbias" not in tex
                and "minlod" not in tex)
    if modelled:
        lv = levels_of(c)
        integer = tex.get("read") == "element" and tex["type"] not in ("f32", "f16")
        kw = {"point": tex.get("filter") == "point", "nearest": tex.get("mipfilter") == "point",
              "wrap": tex["addr"][0] == "wrap",
              "addr": tex["addr"][0] if tex["addr"][0] in ("mirror", "border") else None}
        border = [border_raw(b, tex["type"]) for b in tex.get("border", [0, 0, 0, 0])]
    cls = {}
    model_ok = 0
    for i in range(nf):
        ok = want[4 * i:4 * i + 4] == have[4 * i:4 * i + 4]
        u = [float(v) for v in co[i, :3]]
        gx3, gy3 = [float(v) for v in g[i, 0:3]], [float(v) for v in g[i, 4:7]]
        if iso:
            k = "iso"
        elif geo == "cube":
            k, fp = cube_sample(u, gx3, gy3, tex)
            if k == "face":
                s, t, gx, gy = fp
                if (tex.get("seamless") and tex.get("filter") == "linear"
                        and past_corner(s, t, gx, gy, tex)):
                    k = "corner"
                else:
                    k = ("one", "two")[n_levels(lod_with(gx, gy, tex), tex) - 1]
        else:
            w = dims[0]
            h = dims[1] if geo == "2d" else 1
            gx = [to_texels(gx3[0], w), to_texels(gx3[1], h) if geo == "2d" else 0.0]
            gy = [to_texels(gy3[0], w), to_texels(gy3[1], h) if geo == "2d" else 0.0]
            k = ("one", "two")[n_levels(lod_with(gx, gy, tex), tex) - 1]
        t = cls.setdefault(k, [0, 0])
        t[0] += ok
        t[1] += 1
        if modelled:
            same = True
            for ch in range(tex["channels"]):
                r, _ = fetch(lv[ch], u[0], u[1], gx3[:2], gy3[:2], tex["aniso"], tex["type"],
                             integer=integer, border=border[ch], **kw)
                v = have[4 * i + ch]
                if integer:
                    v = v - (1 << 32) if tex["type"][0] == "s" and v >= 1 << 31 else v
                else:
                    v = float(np.array([v], np.uint32).view(np.float32)[0])
                same = same and r == v
            model_ok += same
    return bad, cls, (model_ok if modelled else None), nf


def fmt_split(cls):
    names = {"one": "one level", "two": "two levels", "corner": "past a corner",
             "crossing": "crossing", "iso": "isotropic"}
    parts = ["%s %s/%s" % (names[k], "{:,}".format(cls[k][0]), "{:,}".format(cls[k][1]))
             for k in ("one", "two", "corner", "crossing", "iso") if k in cls]
    ok = sum(v[0] for v in cls.values())
    tot = sum(v[1] for v in cls.values())
    return ", ".join(parts) + ", all %s/%s" % ("{:,}".format(ok), "{:,}".format(tot))


def known(interp, vectors="corpus/vectors", only_known=False):
    """`--known INTERP`: for every `tex.grad` case of the anisotropic sets (`KNOWN_FILES`), the
    failing words and the fetches that agree per class (`known_case`), from the recordings in
    `vectors` and the interpreter's outputs in `INTERP/NAME.jsonl` (`ptx vectors
    corpus/vectors/NAME.jsonl.xz --write INTERP/NAME.jsonl`); the entries of
    `known_failures.txt` whose "(N of the case's output words)" differs are flagged."""
    import re
    text = {}
    for line in open(vectors + "/known_failures.txt"):
        if line.strip() and not line.startswith("#"):
            text[line.split()[0]] = line
    for fam in KNOWN_FILES:
        rec = load(vectors + "/%s.jsonl.xz" % fam)
        got = {c["name"]: c for c in map(json.loads, open(interp + "/%s.jsonl" % fam))}
        for name, c in rec.items():
            if not name.startswith(KNOWN_PREFIXES) or "tex.grad" not in c["ptx"]:
                continue
            if only_known and name not in text:
                continue
            bad, cls, mok, nf = known_case(c, got[name])
            note = ""
            if name in text:
                m = re.search(r"\((\d+) of the case's output words\)", text[name])
                n = int(m.group(1)) if m else None
                note = " [known: %s words%s]" % (n, "" if n == bad else " STALE")
            elif bad:
                note = " [NOT LISTED]"
            print("%-34s %3d words; %s%s%s" % (name, bad, fmt_split(cls),
                  "" if mok is None else "; model %d/%d" % (mok, nf), note))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--known":
        known(sys.argv[2], *sys.argv[3:4])
        return
    root = sys.argv[1] if len(sys.argv) > 1 else "corpus/aniso"
    check_bias(root.rstrip("/").rsplit("/", 1)[0] + "/vectors" if "/" in root else "vectors")
    ap = load(root + "/anisoprobe.jsonl.xz")
    ap3 = load(root + "/anisoprobe3.jsonl.xz")
    # tex.level: the sharpened level of detail (bias 0 at 2 and 4, every bias at 16).
    lods = [-1 + i / 64 for i in range(9 * 64 + 1)]
    for a in [2, 4, 16]:
        for b in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, -0.25, -1.3]:
            got = np.round(outs(ap3["ap3.level.a%d.b%g" % (a, b)])[:len(lods), 0] * 256)
            miss = sum(lod_level(v, b, a, 0, 2048) != g for v, g in zip(lods, got))
            print("sharpen     tex.level a=%-2d bias=%-5g %3d of %d samples miss" %
                  (a, b, miss, len(lods)))
    # tex.grad: the level of detail.
    sizes = {"ratio.x": 449, "ratio.y": 449, "ratio.r30": 449, "major": 449, "angle": 1024,
             "skew": 513, "rand": 2048}
    for a in [2, 4, 8, 16]:
        for nm, n in sizes.items():
            c = ap["ap.%s.linear.a%d" % (nm, a)]
            g = words(c["args"][2]["hex"]).reshape(-1, 8).astype(np.float64) * 256
            got = np.round(outs(c)[:n, 0] * 256)
            miss = sum(aniso_lod(list(g[i, 0:2]), list(g[i, 4:6]), a, 9) != got[i]
                       for i in range(n))
            print("aniso_lod   tex.grad  a=%-2d %-9s %4d of %d samples miss" % (a, nm, miss, n))
    # tex.grad: the taps along x, minor axis one texel, sixteen phases.
    ratios = [1 + i / 16 for i in range(16 * 16 + 1)]
    rows = [outs(ap3["ap3.row.ph%d" % k])[:len(ratios) * 49, 0].reshape(len(ratios), 49)
            for k in range(16)]
    bad = []
    for ri, r in enumerate(ratios):
        if r > 16:
            continue
        taps, t = axis_taps(L256(f32(r)))
        for k in range(16):
            cx = math.floor((32 + k / 16 + 1 / 64 - 0.5) * 256 + 0.5)
            cy = math.floor((32 + 0.6 - 0.5) * 256 + 0.5)
            if (row(taps, t, cx, cy) != np.round(rows[k][ri] * 1024)).any():
                bad.append(r)
                break
    print("axis_taps   tex.grad  ratios 1..16: %d of %d ratios miss %s" %
          (len(bad), sum(r <= 16 for r in ratios), bad))
    check_taps(root)
    check_two_levels(root)
    check_scans(root)
    check_lod_raw(root)
    check_fetch(root)
    check_formats(root)


if __name__ == "__main__":
    main()
