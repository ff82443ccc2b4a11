#!/usr/bin/env python3
"""3D level-of-detail probes of `tex.grad` (issue 28: the isotropic level of detail's 3D
residuals; docs/INTERP.md "Mipmaps"). A 64^3 texture of seven levels whose level `k` holds `k`,
linear level filtering, so each fetch reads the level of detail in 1/256. In units `u` of
2^-7 texels (the last bit of a largest component `m` in [512, 1024) units):

- `d3.diag.mM.xX`: both gradients half the diagonal `(m, x, z)`, so their sum is exact and its
  extent decides; z over [0, x] in quarter units (x 0: z over [0, 100], z then the second
  component), m in 529, 635, 719, 826, 977 and x in 0, 64, 200, 383.5, 511;
- `d3.len.mM.xX`: one gradient `(m, x, z)`, z over [0, x], m in 529, 719, 977, x in 100,
  383.5, 511.

Each case pads its threads to a multiple of 128 with its last sample. The recording keeps the
first output word of each thread only (the level of detail; the other three are 0):
`corpus/lod/diag3d.json.xz`, `{case: [word, ...]}`, made on an H200 with

    python3 tools/hwvectors/diag3dprobe.py OUT.json.xz
    python3 tools/hwvectors/diag3dprobe.py --x OUT.json.xz   (diag3dx: corpus/lod/diag3dx.json.xz)
    python3 tools/hwvectors/diag3dprobe.py --check OUT.json.xz   (diag3dc: corpus/lod/diag3dc.json.xz)

and read by `tools/hwvectors/diagfit.py --probe` (no GPU).
"""
import json
import lzma
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import mipmap as M  # noqa: E402

T = M.T
U = 2.0 ** -7


def diag3d():
    fam = "diag3d"
    d3 = M.desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    n = 64.0
    for m in [529, 635, 719, 826, 977]:
        for x in [0.0, 64.0, 200.0, 383.5, 511.0]:
            top = x if x > 0 else 100.0
            zs = [i / 4 for i in range(int(top * 4) + 1)]
            g = []
            for z in zs:
                h = (m * U / 2 / n, x * U / 2 / n, z * U / 2 / n)
                g.append((h, h))
            M.add("d3.diag.m%d.x%g" % (m, x), fam, d3, "3d", "grad",
                  [(0.3, 0.6, 0.45)] * len(g), grads=g)
    for m in [529, 719, 977]:
        for x in [100.0, 383.5, 511.0]:
            zs = [i / 4 for i in range(int(x * 4) + 1)]
            g = [((m * U / n, x * U / n, z * U / n), (0.0, 0.0, 0.0)) for z in zs]
            M.add("d3.len.m%d.x%g" % (m, x), fam, d3, "3d", "grad",
                  [(0.3, 0.6, 0.45)] * len(g), grads=g)


def diag3dx():
    """`d3x.mM.zF`: both gradients half the diagonal `(m, x, z)` with `x` over every half unit
    of [64, 511] and `z = F x` (in quarter units), m 600 and 850, F 0 (2D, a control), 0.05,
    0.17, 0.33, 0.5, 0.71, 0.9 (`corpus/lod/diag3dx.json.xz`, `--x`): the second component
    dense where `d3.diag.*` has five values."""
    fam = "diag3dx"
    d3 = M.desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    n = 64.0
    xs = [64 + i / 2 for i in range(2 * (511 - 64) + 1)]
    for m in [600, 850]:
        for zf in [0.0, 0.05, 0.17, 0.33, 0.5, 0.71, 0.9]:
            g = []
            for x in xs:
                z = round(zf * x * 4) / 4
                h = (m * U / 2 / n, x * U / 2 / n, z * U / 2 / n)
                g.append((h, h))
            M.add("d3x.m%d.z%g" % (m, zf), fam, d3, "3d", "grad",
                  [(0.3, 0.6, 0.45)] * len(g), grads=g)


def diag3dc():
    """A check of the 3D diagonal rule on samples it was not fitted to, and length sweeps where
    the second component lies in [128, 256) units (`corpus/lod/diag3dc.json.xz`, `--check`):

    - `d3c.half.N`: both gradients half a random diagonal `(m, x, z)`, m over [512, 1024), `x / m`
      and `z / x` log-uniform over [1/64, 1] (so the second and third terms lie anywhere in
      the six binades below the largest), signs and the order of the components random, 1,024 each;
    - `d3c.pair.N`: random pairs `gx`, `gy = s gx + e` (s over [0.5, 1], e up to a quarter of
      `gx`'s largest component per component), so the diagonal extents decide, 1,024 each;
    - `d3c.len.mM.xX`: one gradient `(m, x, z)`, z over [0, x] in quarter units (the two random 3D
      samples whose length misses lie here: (662, 184.25, 138.25), (816, 215.25, 194));
    - `d3c.lenx.mM.zZ`: one gradient `(m, x, z)`, x over [z, 2z] in quarter units."""
    import random
    fam = "diag3dc"
    d3 = M.desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    n = 64.0
    rng = random.Random(20261129)

    def q(v):
        return round(v * 4) / 4

    def magnitudes():
        """Three magnitudes in units of the largest's last bit (512 to 1023, then two smaller
        ones over six binades each, in quarters), in a random order, and the largest."""
        m = rng.randrange(512, 1024)
        x = q(m * 2.0 ** (-6 * rng.random()))
        z = q(x * 2.0 ** (-6 * rng.random()))
        v = [m, x, z]
        rng.shuffle(v)
        return v, m

    for k in range(4):
        g = []
        for _ in range(1024):
            v, m = magnitudes()
            h = tuple(rng.choice((-1, 1)) * c * U / 2 / n for c in v)
            g.append((h, h))
        M.add("d3c.half.%d" % k, fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g), grads=g)
    for k in range(4):
        g = []
        for _ in range(1024):
            v, m = magnitudes()
            v = [rng.choice((-1, 1)) * c for c in v]
            s = rng.uniform(0.5, 1.0)
            w = [q(s * c + rng.uniform(-0.25, 0.25) * m) for c in v]
            g.append((tuple(c * U / n for c in v), tuple(c * U / n for c in w)))
        M.add("d3c.pair.%d" % k, fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g), grads=g)
    for m, x in [(662, 184.25), (816, 215.25), (529, 150.5), (719, 200.0), (977, 240.75)]:
        zs = [i / 4 for i in range(int(x * 4) + 1)]
        g = [((m * U / n, x * U / n, z * U / n), (0.0, 0.0, 0.0)) for z in zs]
        M.add("d3c.len.m%d.x%g" % (m, x), fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g),
              grads=g)
    for m, z in [(662, 138.25), (816, 194.0)]:
        xs = [z + i / 4 for i in range(int(z * 4) + 1)]
        g = [((m * U / n, x * U / n, z * U / n), (0.0, 0.0, 0.0)) for x in xs]
        M.add("d3c.lenx.m%d.z%g" % (m, z), fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g),
              grads=g)


def main():
    if "--x" in sys.argv:
        sys.argv.remove("--x")
        diag3dx()
    elif "--check" in sys.argv:
        sys.argv.remove("--check")
        diag3dc()
    else:
        diag3d()
    gpu = T.Gpu()
    t0 = time.time()
    res = {}
    for c in T.CASES:
        res[c["name"]] = gpu.run(c)[0::4]
    with lzma.open(sys.argv[1], "wt") as f:
        json.dump(res, f)
    print("done", len(res), time.time() - t0)


if __name__ == "__main__":
    main()
