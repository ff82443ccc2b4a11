#!/usr/bin/env python3
"""The two random 3D `tex.grad` gradients of `mipfit.jsonl.xz` whose length missed by one 1/256
step (`gfit.3d.angle`: (-662.45, -184.4998, 138.35) units of 2^-7 texels, the other gradient 0;
`gfit.3d.rand`: (816, -194.0, -215.49) units of 1/16 with (169.9, 0, 96.27)), over a 64^3
texture of seven levels whose level `k` holds `k` (linear level filtering: each fetch reads
the level of detail), coordinates (0.3, 0.6, 0.45): the components over every order among x,
y, z, every sign, every subset truncated to 9 bits after the leading one, with and without
the other gradient, either gradient first; and the whole gradient scaled by 2^-4 to 2^4.
Recorded on an H200 as `corpus/lod/len3d.json.xz` (`{case: {out, info, grads}}`):

    python3 tools/hwvectors/len3dprobe.py OUT.json.xz   (--dry: count the samples)

Every sample agrees once a 3D gradient is taken as its coordinate's change, `(c + g) - c` in
f32 (`diagfit.change`); with `g` itself 517 of 3,108 miss (only the component on the axis
whose coordinate rounds it matters).
"""
import itertools
import json
import lzma
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import mipmap as M  # noqa: E402
T = M.T

def t9(c):
    if c == 0: return 0.0
    a = abs(c); s = 2.0 ** (math.frexp(a)[1] - 1 - 9)
    return math.copysign(math.floor(a / s) * s, c)

U = 2.0 ** -7
A1 = ([-662.4473266601562 * U, -184.49984741210938 * U, 138.35250854492188 * U], [0.0, 0.0, 0.0])
A2 = ([51.0, -12.125123977661133, -13.468388557434082], [10.618038177490234, 0.0, 6.017050266265869])

def build():
    d3 = M.desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    n = 64.0
    meta = {}
    for cn, (a, b) in (("c1", A1), ("c2", A2)):
        g, info = [], []
        for perm in itertools.permutations(range(3)):
            for sg in itertools.product((1, -1), repeat=3):
                for tr in range(8):  # bit i: truncate component i to 9 bits
                    for other in (0, 1):
                        for swap in (0, 1):
                            v = [a[p] * sg[i] for i, p in enumerate(perm)]
                            v = [t9(c) if tr >> i & 1 else c for i, c in enumerate(v)]
                            o = [b[p] for p in perm] if other else [0.0] * 3
                            x, y = (o, v) if swap else (v, o)
                            g.append((tuple(c / n for c in x), tuple(c / n for c in y)))
                            info.append([list(perm), list(sg), tr, other, swap])
        for k in range(-4, 5):
            for tr in (0, 7):
                v = [c * 2.0 ** k for c in a]
                v = [t9(c) if tr else c for c in v]
                g.append((tuple(c / n for c in v), (0.0, 0.0, 0.0)))
                info.append(["scale", k, tr])
        name = "l3m.%s" % cn
        M.add(name, "l3m", d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g), grads=g)
        meta[name] = {"info": info, "grads": g}
    return meta

if __name__ == "__main__":
    meta = build()
    if "--dry" in sys.argv:
        print({k: len(v["info"]) for k, v in meta.items()}); sys.exit()
    gpu = T.Gpu()
    t0 = time.time()
    res = {}
    for c in T.CASES:
        res[c["name"]] = {"out": gpu.run(c)[0::4], **meta[c["name"]]}
    with lzma.open(sys.argv[1], "wt") as f:
        json.dump(res, f)
    print("done", len(res), time.time() - t0)
