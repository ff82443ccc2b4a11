#!/usr/bin/env python3
"""The isotropic level of detail of `tex.grad` (issue 28; docs/INTERP.md "Mipmaps"): candidate
rules for the footprint's diagonal extents checked against the H200 recordings. Runs anywhere
(numpy, no GPU). Every mipprobe/gradfit/gradfit2/gradfit3 case of `mipmap.jsonl.xz` and
`mipfit.jsonl.xz` over a texture whose level `k` holds `k` with linear level filtering (so the
output is the level of detail in 1/256) is read; per candidate it prints, per case that has a
miss, the samples the rule misses (all other cases agree in every sample).

The diagonal extents take the sum and the difference of the two gradients, each component
truncated to 9 bits after its leading one (`t9`). What a candidate changes is how the adder
forms a component `p + q` of them:

- `exact`: the exact sum (the previous rule: 18 2D misses, all of them magnitudes that
  cancel, `q` having bits below `p`'s last bit);
- `guardN`: the smaller magnitude cut to `2^-N` of the larger one's last bit first (a
  floating-point adder with `N` guard bits and no sticky bit), then added: `guard1` is the
  interpreter's rule (`lod::add9`, `anisofit.add9`), every 2D sample;
- `round`, `ceil`: the sum rounded to 9 bits (half to even) or up instead of truncated.

`--3d` also prints the 3D cases, where the third component's share (1/4 of it in a length,
11/64 in a diagonal extent) is still not pinned down; `--rows` the decisive 2D diagonal
samples' limits (the extent, in units of the last bit of its largest component, that the
recorded level of detail allows); `--probe` the 3D sweeps of `corpus/lod/diag3d.json.xz`
(`diag3dprobe.py`): every length sweep and every diagonal whose third component is 0 agrees,
while with a third component the interpreter's rule reads one (a few two) 1/256 steps high
in 168 of 24,320 samples, and no constant offset of the minor terms per second component
fits (`--probe` prints, per second component, the offset interval the sweeps allow: empty).
`--probe` then reads `corpus/lod/diag3dx.json.xz` (the second component over every half unit
of [64, 511]): the rule misses 183 of its 12,530 samples (none of the 1,790 2D controls), and
`minor_probe`, which fits every 3D sample of `diag3d.json.xz`, 130.

    python3 tools/hwvectors/diagfit.py [--3d] [--rows] [--probe]
"""

import collections
import json
import lzma
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from anisofit import L256, TAB, f32, t9, ulp9, words  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "corpus", "vectors")
FILES = {"mipmap.jsonl.xz": ("mip.grad.",), "mipfit.jsonl.xz": ("gfit.", "gfit2.", "gfit3.")}


def samples():
    """{case: [(gx, gy, lod, top)]}: gradients in texels (f32), the recorded level of detail
    in 1/256 and the last level's."""
    out = {}
    for f, prefs in FILES.items():
        for line in lzma.open(os.path.join(ROOT, f), "rt"):
            c = json.loads(line)
            n, t = c["name"], c["textures"][0]
            if not n.startswith(prefs) or any(k in n for k in ("cube", "odd", "bias", "npot")):
                continue
            if t.get("mipfilter") != "linear":
                continue
            dims, top = t["dims"], (t["levels"] - 1) * 256
            o = words(c["out"]["hex"]).reshape(-1, 4)[:, 0]
            g = words(c["args"][2]["hex"]).reshape(-1, 8)
            nd = len(dims)
            out[n] = [([f32(float(g[i, j]) * dims[j]) for j in range(nd)],
                       [f32(float(g[i, 4 + j]) * dims[j]) for j in range(nd)],
                       round(float(o[i]) * 256), top) for i in range(len(o))]
    return out


def tb(x, bits):
    """|x| truncated to `bits` bits after its leading one."""
    x = abs(x)
    if x == 0.0 or not math.isfinite(x):
        return x
    s = 2.0 ** (math.frexp(x)[1] - 1 - bits)
    return math.floor(x / s) * s


def second(m):
    if m == 0.0:
        return 0.0
    u = ulp9(m)
    return t9((11 / 32 * (m / u) + 0.125) * u)


def sorted9(v):
    a = sorted((t9(c) for c in v), reverse=True)
    return a + [0.0] * (3 - len(a))


def length(v, k2):
    a = sorted9(v)
    return a[0] + second(a[1]) + k2 * a[2]


def diagonal(v, k2):
    a = sorted9(v)
    if a[0] == 0.0:
        return 0.0
    u = ulp9(a[0])
    g = (11 * (a[0] / u) + 4) / 16
    g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
    h = tb(121 / 512 * a[1], 11) + ulp9(a[1]) / 16 if a[1] > 0 else 0.0
    return (g + 11 / 16 * k2 * (a[2] / u)) * u + h


def adder(kind):
    def add(p, q):
        big, small = (p, q) if abs(p) >= abs(q) else (q, p)
        if small == 0.0 or not math.isfinite(big):
            return p + q
        if kind.startswith("guard"):
            g = ulp9(abs(big)) / 2 ** int(kind[5:])
            return big + math.copysign(math.floor(abs(small) / g) * g, small)
        s = p + q
        if s == 0.0 or kind == "exact":
            return s
        u = ulp9(abs(s))
        if kind == "ceil":
            return math.copysign(math.ceil(abs(s) / u) * u, s)
        r = abs(s) / u
        f = math.floor(r)
        if r - f > 0.5 or (r - f == 0.5 and f % 2 == 1):
            f += 1
        return math.copysign(f * u, s)
    return add


def lod(gx, gy, top, add):
    if max(abs(v) for v in gx + gy) == 0.0:
        return 0
    k2 = 0.25 if len(gx) >= 3 else 0.0
    s9 = [math.copysign(t9(v), v) for v in gx]
    t9y = [math.copysign(t9(v), v) for v in gy]
    s = [add(a, b) for a, b in zip(s9, t9y)]
    d = [add(a, -b) for a, b in zip(s9, t9y)]
    r = f32(max(length(gx, k2), length(gy, k2), diagonal(s, k2), diagonal(d, k2)))
    return max(0, min(top, L256(r)))


def bucket(lv):
    """The f32 extents [lo, hi) whose `L256` is `lv`."""
    e, f = lv // 256, lv % 256
    js = [j for j in range(256) if TAB[j] == f]
    return 2.0 ** e * (1 + js[0] / 256), 2.0 ** e * (1 + (js[-1] + 1) / 256)


def rows(S, add):
    """The 2D samples whose level of detail a diagonal decides: (M, x, lo, hi) in units of
    the last bit of M (9 bits), M and x the diagonal's magnitudes as `add` forms them."""
    out = set()
    for n, ss in S.items():
        for gx, gy, o, top in ss:
            if len(gx) != 2 or o <= 0 or o >= top or max(map(abs, gx + gy)) == 0.0:
                continue
            tx = [math.copysign(t9(v), v) for v in gx]
            ty = [math.copysign(t9(v), v) for v in gy]
            s = [add(a, b) for a, b in zip(tx, ty)]
            d = [add(a, -b) for a, b in zip(tx, ty)]
            lo, hi = bucket(o)
            ln = max(length(gx, 0), length(gy, 0))
            for v, w in ((s, d), (d, s)):
                if diagonal(v, 0) >= max(ln, diagonal(w, 0)) and max(ln, diagonal(w, 0)) < lo:
                    a = sorted((abs(c) for c in v), reverse=True)
                    u = ulp9(t9(a[0]))
                    out.add((a[0] / u, a[1] / u, lo / u, hi / u))
    return sorted(out)


def probe():
    """The 3D sweeps of `corpus/lod/diag3d.json.xz`: per case the samples the interpreter's
    rule reproduces; then, per second component x of the diagonal sweeps, the interval of
    constant offsets `c` with `T = t(121/512 x) + 11/64 z + c` (the minor terms after the
    largest's `G`) that every recorded level of detail allows."""
    import struct
    import diag3dprobe as P
    P.diag3d()
    rec = json.load(lzma.open(os.path.join(ROOT, "..", "lod", "diag3d.json.xz"), "rt"))
    add = adder("guard1")
    u = P.U
    bounds = collections.defaultdict(lambda: [-1e9, 1e9])

    def fl(w):
        return struct.unpack("<f", struct.pack("<I", w))[0]

    for c in P.T.CASES:
        name, out, g = c["name"], rec[c["name"]], c["ins"][2][1]
        miss = collections.Counter()
        for i, w in enumerate(out):
            gx = [f32(fl(g[8 * i + j]) * 64) for j in range(3)]
            gy = [f32(fl(g[8 * i + 4 + j]) * 64) for j in range(3)]
            o = round(fl(w) * 256)
            v = lod(gx, gy, 6 * 256, add)
            if v != o:
                miss[o - v] += 1
            if name.startswith("d3.diag") and not name.endswith(".x0"):
                m, x, z = (gx[0] + gy[0]) / u, (gx[1] + gy[1]) / u, (gx[2] + gy[2]) / u
                if z <= x:
                    g0 = (11 * m + 4) / 16
                    g0 = math.floor(g0) if g0 >= 512 else math.floor(2 * g0) / 2
                    lo, hi = bucket(o)
                    e = g0 + tb(121 / 512 * x, 11) + 11 / 64 * z
                    b = bounds[x]
                    b[0], b[1] = max(b[0], lo / u - e), min(b[1], hi / u - e)
        print("%-18s %5d of %5d agree %s" % (name, len(out) - sum(miss.values()), len(out),
                                             dict(miss) if miss else ""))
    for x, (a, b) in sorted(bounds.items()):
        print("x %-6g offset c in [%.5f, %.5f) units" % (x, a, b))
    probe_x(add)


def minor_probe(x, z):
    """The minor terms of a 3D diagonal extent (`x`, `z` the second and third magnitudes, `z`
    above 0) that every `d3.diag.*` sample with a third component fits (24,320): 121/512 `x`
    cut to 10 bits, not 11, 11/64 `z` exact, and 1/16 of `z`'s last bit instead of `x`'s.
    `diag3dx.json.xz` (the second component dense) refutes it."""
    return tb(121 / 512 * x, 10) + 11 / 64 * z + ulp9(z) / 16


def probe_x(add):
    """`corpus/lod/diag3dx.json.xz` (`diag3dprobe.py --x`): the samples the interpreter's rule
    and `minor_probe` reproduce, per case."""
    import struct
    rec = json.load(lzma.open(os.path.join(ROOT, "..", "lod", "diag3dx.json.xz"), "rt"))
    u = 2.0 ** -7
    xs = [64 + i / 2 for i in range(2 * (511 - 64) + 1)]
    keep = diagonal

    def probe_diag(v, k2):
        a = sorted9(v)
        if a[2] == 0.0 or k2 == 0.0:
            return keep(v, k2)
        w = ulp9(a[0])
        g = (11 * (a[0] / w) + 4) / 16
        g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
        return g * w + minor_probe(a[1], a[2])
    tot = collections.Counter()
    for name, out in rec.items():
        m, zf = int(name.split(".")[1][1:]), float(name.split(".z")[1])
        ok = [0, 0]
        for x, w in zip(xs, out):
            z = round(zf * x * 4) / 4
            h = [f32(m * u / 2), f32(x * u / 2), f32(z * u / 2)]
            o = round(struct.unpack("<f", struct.pack("<I", w))[0] * 256)
            for j, rule in enumerate((keep, probe_diag)):
                globals()["diagonal"] = rule
                ok[j] += lod(h, h, 6 * 256, add) == o
            globals()["diagonal"] = keep
        tot["n"] += len(xs)
        tot["rule"] += ok[0]
        tot["probe"] += ok[1]
        print("%-18s %4d of %4d agree (minor_probe: %4d)" % (name, ok[0], len(xs), ok[1]))
    print("diag3dx: the rule %d of %d, minor_probe %d" % (tot["rule"], tot["n"], tot["probe"]))


def main():
    if "--probe" in sys.argv:
        probe()
        return
    S = samples()
    three = "--3d" in sys.argv
    total = {n: len(ss) for n, ss in S.items()}
    print("cases:", len(S), "samples:", sum(total.values()))
    for kind in ["exact", "guard0", "guard1", "guard2", "guard3", "round", "ceil"]:
        add = adder(kind)
        miss = collections.Counter()
        for n, ss in S.items():
            if len(ss[0][0]) == 3 and not three:
                continue
            for gx, gy, o, top in ss:
                if lod(gx, gy, top, add) != o:
                    miss[n] += 1
        print("%-7s misses %4d:" % (kind, sum(miss.values())),
              ", ".join("%s %d/%d" % (n, total[n] - m, total[n]) for n, m in miss.items()))
    if "--rows" in sys.argv:
        for r in rows(S, adder("guard1")):
            print("M %-10g x %-12g extent in [%g, %g)" % r)


if __name__ == "__main__":
    main()
