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

`--3d` also prints the 3D cases (every one agrees: a 3D gradient is taken as its
coordinate's change, `change`); `--rows` the decisive 2D diagonal samples' limits (the extent, in units of
the last bit of its largest component, that the recorded level of detail allows); `--probe`
the 3D sweeps of `corpus/lod/diag3d.json.xz` and `diag3dx.json.xz` (`diag3dprobe.py`), per
rule (`rules`): the interpreter's (`diagonal`: the third term, 11/64 of the third magnitude
and 1/16 of its last bit, cut to the last bit of the second's term `X` before it is added)
agrees in all 51,698 samples; the previous one (`diagonal_v1`: 11/64 of the third added
exactly) misses 168 of diag3d's 24,320 diagonal samples and 183 of diag3dx's 12,530,
`minor_probe` 0 and 130.

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
            co = words(c["args"][1]["hex"]).reshape(-1, 4)
            nd = len(dims)
            out[n] = [([f32(change(co[i, j], g[i, j], nd) * dims[j]) for j in range(nd)],
                       [f32(change(co[i, j], g[i, 4 + j], nd) * dims[j]) for j in range(nd)],
                       round(float(o[i]) * 256), top) for i in range(len(o))]
    return out


def change(c, g, nd):
    """A gradient component `g` at the coordinate `c` as the texture unit takes it: in 3D the
    change it makes to the coordinate, `(c + g) - c` in f32 (`corpus/lod/len3d.json.xz`,
    `len3dprobe.py`: the two random 3D lengths that missed agree), else `g` itself."""
    if nd != 3:
        return float(g)
    import numpy as np
    c, g = np.float32(c), np.float32(g)
    return float(np.float32(np.float32(c + g) - c))


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


def diagonal_2d(a):
    """The terms every diagonal rule shares, of the sorted magnitudes `a` (largest not 0): the
    last bit `u` of the largest, G of the largest in units of `u`, and X of the second (121/512
    of it cut to 11 bits and 1/16 of its last bit)."""
    u = ulp9(a[0])
    g = (11 * (a[0] / u) + 4) / 16
    g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
    h = tb(121 / 512 * a[1], 11) + ulp9(a[1]) / 16 if a[1] > 0 else 0.0
    return u, g, h


def diagonal(v, k2):
    """The diagonal extent (lod::diagonal): G of the largest magnitude, plus X of the second,
    plus in 3D the third term Y (11/64 of the third and 1/16 of its last bit) cut to X's last
    bit (9 bits)."""
    a = sorted9(v)
    if a[0] == 0.0:
        return 0.0
    u, g, h = diagonal_2d(a)
    if a[2] > 0 and k2 > 0:
        w = ulp9(h)
        h += math.floor((11 / 16 * k2 * a[2] + ulp9(a[2]) / 16) / w) * w
    return g * u + h


def diagonal_v1(v, k2):
    """The previous rule: the third term 11/64 of the third magnitude, added exactly (misses 168
    samples of diag3d.json.xz and 183 of diag3dx.json.xz)."""
    a = sorted9(v)
    if a[0] == 0.0:
        return 0.0
    u, g, h = diagonal_2d(a)
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


def lod(gx, gy, top, add, diag=None):
    diag = diag or diagonal
    if max(abs(v) for v in gx + gy) == 0.0:
        return 0
    k2 = 0.25 if len(gx) >= 3 else 0.0
    s9 = [math.copysign(t9(v), v) for v in gx]
    t9y = [math.copysign(t9(v), v) for v in gy]
    s = [add(a, b) for a, b in zip(s9, t9y)]
    d = [add(a, -b) for a, b in zip(s9, t9y)]
    r = f32(max(length(gx, k2), length(gy, k2), diag(s, k2), diag(d, k2)))
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


def rules():
    """The 3D diagonal rules `--probe` counts: the interpreter's, the previous one and
    `minor_probe` (each a `diagonal`)."""
    def probe_diag(v, k2):
        a = sorted9(v)
        if a[2] == 0.0 or k2 == 0.0:
            return diagonal(v, k2)
        w = ulp9(a[0])
        g = (11 * (a[0] / w) + 4) / 16
        g = math.floor(g) if g >= 512 else math.floor(2 * g) / 2
        return g * w + minor_probe(a[1], a[2])
    return [("rule", diagonal), ("v1", diagonal_v1), ("minor_probe", probe_diag)]


def lod_with(rule, gx, gy, top, add):
    """`lod` with `rule` as the diagonal extent."""
    return lod(gx, gy, top, add, rule)


def tally(file, cases, add, R):
    """The samples of `corpus/lod/FILE` (`{case: [output word]}`) that each rule of `R`
    reproduces, per case of `cases` (diag3dprobe.py's, whose third input holds each thread's
    two 3D gradients): yields (name, samples, {rule: agreeing}, [the rule's misses])."""
    import struct
    rec = json.load(lzma.open(os.path.join(ROOT, "..", "lod", file), "rt"))

    def fl(w):
        return struct.unpack("<f", struct.pack("<I", w))[0]

    for c in cases:
        name, out, g = c["name"], rec[c["name"]], c["ins"][2][1]
        ok = collections.Counter()
        miss = []
        for i, w in enumerate(out):
            gx = [f32(fl(g[8 * i + j]) * 64) for j in range(3)]
            gy = [f32(fl(g[8 * i + 4 + j]) * 64) for j in range(3)]
            o = round(fl(w) * 256)
            for rn, rule in R:
                v = lod_with(rule, gx, gy, 6 * 256, add)
                ok[rn] += v == o
                if rn == "rule" and v != o:
                    miss.append((gx, gy, o, v))
        yield name, len(out), ok, miss


def probe():
    """The 3D sweeps of `corpus/lod/diag3d.json.xz` and `diag3dx.json.xz`: per case the samples
    each rule (`rules`) reproduces, then the totals."""
    import diag3dprobe as P
    del P.T.CASES[:]
    P.diag3d()
    add = adder("guard1")
    R = rules()
    tot = collections.Counter()
    for name, n, ok, _ in tally("diag3d.json.xz", P.T.CASES, add, R):
        for rn, _ in R:
            tot["diag3d " + rn] += ok[rn]
        tot["diag3d"] += n
        print("%-18s %5d of %5d agree (v1 %5d, minor_probe %5d)" % (
            name, ok["rule"], n, ok["v1"], ok["minor_probe"]))
    probe_x(add, R, tot)
    for f in ("diag3d", "diag3dx"):
        print("%s: the rule %d of %d, v1 %d, minor_probe %d" % (
            f, tot[f + " rule"], tot[f], tot[f + " v1"], tot[f + " minor_probe"]))


def probe_c():
    """`corpus/lod/diag3dc.json.xz` (`diag3dprobe.py --check`): per case the samples each rule
    (`rules`) reproduces: random half diagonals, random pairs and length sweeps."""
    import diag3dprobe as P
    del P.T.CASES[:]
    P.diag3dc()
    R = rules()
    tot = collections.Counter()
    for name, n, ok, miss in tally("diag3dc.json.xz", P.T.CASES, adder("guard1"), R):
        for rn, _ in R:
            tot[rn] += ok[rn]
        tot["n"] += n
        print("%-22s %5d of %5d agree (v1 %5d, minor_probe %5d)" % (
            name, ok["rule"], n, ok["v1"], ok["minor_probe"]))
        if "--misses" in sys.argv:
            for gx, gy, o, v in miss:
                u = ulp9(max(map(abs, gx)))
                print("    %s %s recorded %d rule %d" % (
                    [c / u for c in gx], [c / u for c in gy], o, v))
    print("diag3dc: the rule %d of %d, v1 %d, minor_probe %d" % (
        tot["rule"], tot["n"], tot["v1"], tot["minor_probe"]))


def minor_probe(x, z):
    """The minor terms of a 3D diagonal extent (`x`, `z` the second and third magnitudes, `z`
    above 0) that every `d3.diag.*` sample with a third component fits (24,320): 121/512 `x`
    cut to 10 bits, not 11, 11/64 `z` exact, and 1/16 of `z`'s last bit instead of `x`'s.
    `diag3dx.json.xz` (the second component dense) refutes it (130 misses)."""
    return tb(121 / 512 * x, 10) + 11 / 64 * z + ulp9(z) / 16


def probe_x(add, R, tot):
    """`corpus/lod/diag3dx.json.xz` (`diag3dprobe.py --x`): the samples each rule reproduces,
    per case."""
    import struct
    rec = json.load(lzma.open(os.path.join(ROOT, "..", "lod", "diag3dx.json.xz"), "rt"))
    u = 2.0 ** -7
    xs = [64 + i / 2 for i in range(2 * (511 - 64) + 1)]
    for name, out in rec.items():
        m, zf = int(name.split(".")[1][1:]), float(name.split(".z")[1])
        ok = collections.Counter()
        for x, w in zip(xs, out):
            z = round(zf * x * 4) / 4
            h = [f32(m * u / 2), f32(x * u / 2), f32(z * u / 2)]
            o = round(struct.unpack("<f", struct.pack("<I", w))[0] * 256)
            for rn, rule in R:
                ok[rn] += lod_with(rule, h, h, 6 * 256, add) == o
        for rn, _ in R:
            tot["diag3dx " + rn] += ok[rn]
        tot["diag3dx"] += len(xs)
        print("%-18s %4d of %4d agree (v1 %4d, minor_probe %4d)" % (
            name, ok["rule"], len(xs), ok["v1"], ok["minor_probe"]))


def main():
    if "--probe" in sys.argv:
        probe()
        probe_c()
        return
    if "--check" in sys.argv:
        probe_c()
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
