#!/usr/bin/env python3
"""Anisotropic filtering, sixth round (H200): every tap of `tex.grad`'s footprint, on both levels
of a two-level fetch, from one scan of 512 fetches per footprint.

The texture (`ramp_texels`, 256 x 256, 9 levels, `f32` x 4, point texel filtering, linear level
filtering) holds ramps: at even levels channel 0 is the texel's x index and channel 1 its y
index, at odd levels channels 2 and 3 are. Point filtering makes each tap read one texel at its
weight, so channel 0 answers `sum w_j floor(x_j / 256)` over the taps of the even level read
(x_j its position in 1/256 texel). The scan moves the coordinate along the diagonal by 1/256 of
the lower level's texel, 512 steps (two texels of the lower level, one of the upper): each time
a tap's x (y) crosses a texel boundary its level's x (y) channel steps up by the tap's weight
(share applied). The jumps give every tap's position modulo one texel, and its weight; the value
at the scan's start gives the whole positions. On the machine the scans are reduced to their
jumps (`--scan DIR` writes one `.npz` per set: the footprints' table and parameters, the values
at the start, and the jumps as footprint, step, channel and size in 1/1024).

`--lod PATH` records the level of detail of random gradient pairs, with and without the
trilinear optimisation. `--rand PATH` writes random two-level fetches of random `f32`, `u8` and `f16` textures (linear
filtering, cases in the vectors format) for the whole-fetch check.

    python3 anisoprobe6.py --scan OUTDIR --lod PATH --rand PATH     (GPU machine; needs CuPy)
"""

import argparse
import json
import math
import os

import numpy as np

import mipmap as M
import texture as T

SIZE = 256
LEVELS = 9
S = 512

SCAN_PTX = r"""
.version 8.7
.target sm_90
.address_size 64
.visible .entry scan(.param .u64 p_out, .param .u64 p_tab, .param .u64 p_tex, .param .u32 p_S,
                     .param .u32 p_n, .param .f32 p_scale)
{
  .reg .pred %p<2>;
  .reg .b32 %r<24>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd0, [p_out];
  ld.param.u64 %rd1, [p_tab];
  ld.param.u64 %rd2, [p_tex];
  ld.param.u32 %r0, [p_S];
  ld.param.u32 %r1, [p_n];
  ld.param.f32 %f0, [p_scale];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.lo.u32 %r6, %r1, %r0;
  setp.ge.u32 %p0, %r5, %r6;
  @%p0 ret;
  div.u32 %r7, %r5, %r0;
  rem.u32 %r8, %r5, %r0;
  mul.wide.u32 %rd3, %r7, 32;
  add.s64 %rd3, %rd1, %rd3;
  ld.global.v4.b32 {%r9, %r10, %r11, %r12}, [%rd3];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3+16];
  mad.lo.s32 %r13, %r8, %r11, %r9;
  mad.lo.s32 %r14, %r8, %r12, %r10;
  cvt.rn.f32.s32 %f5, %r13;
  cvt.rn.f32.s32 %f6, %r14;
  mul.f32 %f5, %f5, %f0;
  mul.f32 %f6, %f6, %f0;
  tex.grad.2d.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd2, {%f5, %f6}], {%f1, %f2}, {%f3, %f4};
  mul.wide.u32 %rd4, %r5, 16;
  add.s64 %rd4, %rd0, %rd4;
  st.global.v4.f32 [%rd4], {%f7, %f8, %f9, %f10};
  ret;
}
"""


def ramp_texels():
    """Even levels (x, y, 0, 0), odd levels (0, 0, x, y): the texel's indices."""
    out = []
    for k in range(LEVELS):
        n = max(SIZE >> k, 1)
        lv = np.zeros((n, n, 4), np.float32)
        x = np.arange(n, dtype=np.float32)
        c = 0 if k % 2 == 0 else 2
        lv[:, :, c] = x[None, :]
        lv[:, :, c + 1] = x[:, None]
        out.append(lv.reshape(-1))
    return np.concatenate(out)


def table(gx, gy, k):
    """The scan table: base x, y (1/256 level-0 texel), steps (the lower level's 1/256 texel)
    and the normalized gradients; gradients in level-0 texels, `k` the lower level."""
    n = len(gx)
    ti = np.zeros((n, 4), np.int32)
    ti[:, 0] = ti[:, 1] = SIZE // 2 * 256
    ti[:, 2] = ti[:, 3] = 1 << np.asarray(k)
    tf = np.zeros((n, 4), np.float32)
    tf[:, 0:2] = np.asarray(gx, np.float64) / SIZE
    tf[:, 2:4] = np.asarray(gy, np.float64) / SIZE
    return np.concatenate([ti.view(np.uint32), tf.view(np.uint32)], axis=1)


def rot_sets():
    """Footprints of major axis `r m` along angle `q` and minor axis `m` (level-0 texels), the
    minor axis swept so that the raw level of detail crosses the part of each level that reads
    two levels."""
    sets = []
    for aniso, ratios, nang, lo, hi, step, ks in [
            (16, [1.5, 2.5, 3, 4.5, 6, 10], 64, 60, 196, 1, [0]),
            (4, [1.5, 3, 6], 32, 50, 204, 1, [0]),
            (2, [1.5, 2.5, 3, 6], 32, 38, 217, 1, [0]),
            (16, [3, 6], 24, 60, 196, 2, [1, 2])]:
        for k in ks:
            rows = []
            for r in ratios:
                for ai in range(nang):
                    q = math.pi / 2 * ai / nang
                    if ai % 4 == 1:  # other quadrants: the signs
                        q += math.pi / 2 * (ai % 3 + 1)
                    for raw in range(lo, hi, step):
                        m = 2.0 ** (k + (raw + 0.37) / 256)
                        rows.append((r, q, m, k))
            rows = np.array(rows)
            r, q, m = rows[:, 0], rows[:, 1], rows[:, 2]
            gx = np.stack([r * m * np.cos(q), r * m * np.sin(q)], 1)
            gy = np.stack([-m * np.sin(q), m * np.cos(q)], 1)
            sets.append(("rot.a%d.k%d" % (aniso, k), aniso, gx, gy, rows[:, 3].astype(int),
                         {"ratio": r, "angle": q, "minor": m}))
    return sets


def rand_grads(rng, n, lo=-1, hi=5):
    """Footprints as `mipmap.aniso` makes them (level-0 texels): random angle, major axis
    2^lo..2^hi texels, ratio 1..32, the minor axis skewed, the two swapped half the time."""
    q = rng.uniform(0, 2 * math.pi, n)
    major = 2 ** rng.uniform(lo, hi, n)
    minor = major / 2 ** rng.uniform(0, 5, n)
    sk = rng.uniform(-0.3, 0.3, n)
    gx = np.stack([major * np.cos(q), major * np.sin(q)], 1)
    gy = np.stack([minor * (-np.sin(q) + sk * np.cos(q)), minor * (np.cos(q) + sk * np.sin(q))], 1)
    sw = rng.random(n) < 0.5
    gx[sw], gy[sw] = gy[sw].copy(), gx[sw].copy()
    return gx, gy


def rand_sets():
    import anisofit as F
    rng = np.random.default_rng(20261129)
    sets = []
    for aniso in [2, 4, 16]:
        gx, gy = rand_grads(rng, 8192, 0, 6)
        gx = (gx / SIZE).astype(np.float32).astype(np.float64) * SIZE
        gy = (gy / SIZE).astype(np.float32).astype(np.float64) * SIZE
        ks = []
        for a, b in zip(gx, gy):
            lmaj, _, raw = F.lod_parts(list(a), list(b), aniso)
            lod = min(max(F.sharpen(raw, aniso), 0), 256 * (LEVELS - 1))
            ks.append(min(lod >> 8, LEVELS - 2))
        sets.append(("rand.a%d" % aniso, aniso, gx, gy, np.array(ks), {}))
    return sets


def scan(gpu, outdir):
    """Writes `rot.npz` and `rand.npz`: for each set `NAME`, `NAME__tab` (the scan table),
    `NAME__k` (the lower level scanned), `NAME__aniso`, `NAME__start` (the four channels at the
    scan's start, in 1/1024), `NAME__nj` (the jumps of each footprint) and `NAME__jt`, `NAME__jc`,
    `NAME__js` (each jump's step, channel and size in 1/1024), and the sets' parameters. The
    lower level's channels repeat after 256 steps: only their jumps up to step 256 are kept."""
    import cupy as cp
    d = M.desc("f32", 4, (SIZE, SIZE), LEVELS, filt="point", mipfilter="linear", aniso=16)
    data = ramp_texels().tobytes()
    mod = cp.cuda.function.Module()
    mod.load(SCAN_PTX.encode())
    f = mod.get_function("scan")
    for fname, sets in [("rot", rot_sets()), ("rand", rand_sets())]:
        res = {}
        for name, aniso, gx, gy, ks, meta in sets:
            d["aniso"] = aniso
            handle, keep = gpu.texture(d, None, data)
            tab = table(gx, gy, ks)
            n = len(tab)
            start = np.zeros((n, 4), np.int32)
            nj = np.zeros(n, np.int32)
            jt, jc, js = [], [], []
            chunk = 8192
            for c0 in range(0, n, chunk):
                sub = tab[c0:c0 + chunk]
                m = len(sub)
                tab_d = cp.asarray(sub.reshape(-1))
                out = cp.zeros(m * S * 4, cp.float32)
                f(((m * S + 255) // 256, 1, 1), (256, 1, 1),
                  (out, tab_d, np.uint64(handle), np.uint32(S), np.uint32(m),
                   np.float32(1.0 / (256 * SIZE))))
                cp.cuda.runtime.deviceSynchronize()
                o = out.reshape(m, S, 4).astype(cp.float64) * 1024
                start[c0:c0 + m] = cp.rint(o[:, 0, :]).get().astype(np.int32)
                dif = cp.rint(o[:, 1:, :] - o[:, :-1, :]).astype(cp.int32)
                # The lower level (channels 0, 1 at even k, 2, 3 at odd k) after step 256.
                low = cp.asarray((np.asarray(ks[c0:c0 + m]) % 2) * 2)
                ch = cp.arange(4)[None, None, :]
                tt = cp.arange(1, S)[None, :, None]
                late = (tt > 256) & ((ch == low[:, None, None]) | (ch == low[:, None, None] + 1))
                dif = cp.where(late, 0, dif)
                a, b, c = cp.nonzero(dif)
                nj[c0:c0 + m] = cp.bincount(a, minlength=m).get()
                jt.append((b + 1).get().astype(np.int16))
                jc.append(c.get().astype(np.int8))
                js.append(dif[a, b, c].get().astype(np.int16))
                del out, o, dif
            res.update({name + "__tab": tab, name + "__k": np.asarray(ks),
                        name + "__aniso": np.array(aniso), name + "__start": start,
                        name + "__nj": nj, name + "__jt": np.concatenate(jt),
                        name + "__jc": np.concatenate(jc), name + "__js": np.concatenate(js)})
            res.update({name + "__" + kk: v for kk, v in meta.items()})
            print(name, n, "footprints", int(nj.sum()), "jumps", flush=True)
        np.savez_compressed(os.path.join(outdir, fname + ".npz"), **res)


def rand_cases(gpu, path):
    """Random fetches (linear filtering) of random textures, gradients as `rand_grads`: cases
    `ap6.rand#<format>.a<A>` in the vectors format."""
    T.RNG.seed(20261130)
    rng = np.random.default_rng(20261131)
    with open(path, "w") as fo:
        for tag, ty, ch, read in [("f32", "f32", 1, "element"), ("u8x4", "u8", 4, "normalized"),
                                  ("f16x2", "f16", 2, "element")]:
            for a in [2, 4, 16]:
                d = M.desc(ty, ch, (64, 64), 7, filt="linear", mipfilter="linear", read=read,
                           aniso=a)
                texels = M.random_texels(d)
                n = 4096 if ty == "f32" else 1024
                gx, gy = rand_grads(rng, n)
                coords = [(float(u), float(v)) for u, v in rng.uniform(0.05, 0.95, (n, 2))]
                gs = [((a0 / 64, a1 / 64), (b0 / 64, b1 / 64)) for (a0, a1), (b0, b1) in zip(gx, gy)]
                T.CASES.clear()
                M.add("ap6.rand#%s.a%d" % (tag, a), "anisoprobe6", d, "2d", "grad", coords,
                      grads=gs, texels=texels)
                c = T.CASES[0]
                fo.write(json.dumps(T.record(c, gpu.run(c))) + "\n")
                print(c["name"], flush=True)


def lod_sets(gpu, path):
    """The level of detail of random gradient pairs (`anisoprobe.py` `ap.rand.*`: each component
    +-2^(-10..0) in normalized units, a tenth of them 0) over a texture whose level `k` holds `k`
    (256 x 256, 9 levels, linear filtering), with the trilinear optimisation (`on`) and without
    it (`off`, the raw level of detail): `PATH` (`.npz`) holds each set's gradients (`NAME__g`,
    normalized, eight words per fetch) and results (`NAME__out`, channel 0)."""
    rng = np.random.default_rng(20261132)
    res = {}
    for a, opt in [(16, True), (16, False), (4, False), (2, False), (8, False)]:
        d = M.desc("f32", 1, (SIZE, SIZE), LEVELS, filt="linear", mipfilter="linear", aniso=a)
        if not opt:
            d["trilinopt"] = False
        n = 16384
        v = 2.0 ** rng.uniform(-10, 0, (n, 4)) * rng.choice([-1.0, 1.0], (n, 4))
        v[rng.random((n, 4)) < 0.1] = 0.0
        gs = [((float(r[0]), float(r[1])), (float(r[2]), float(r[3]))) for r in v]
        name = "lod.a%d.%s" % (a, "on" if opt else "off")
        T.CASES.clear()
        M.add(name, "anisoprobe6", d, "2d", "grad", [(0.3, 0.6)] * n, grads=gs)
        c = T.CASES[0]
        out = np.array(gpu.run(c)[:4 * n], dtype=np.uint32).view(np.float32).reshape(n, 4)
        res[name + "__g"] = np.array(M.grad_words(gs), dtype=np.uint32).reshape(n, 8)
        res[name + "__out"] = out[:, 0]
        print(name, flush=True)
    np.savez_compressed(path, **res)


def pack(src, dst):
    """The recordings kept in `corpus/aniso/` from the machine's outputs in `src`: the scans as
    JSON lines (`anisoprobe6.scan.rand.jsonl.xz`: every footprint; `anisoprobe6.scan.rot.jsonl.xz`:
    every fourth; each line the set, `aniso`, the lower level `k` scanned, the gradients as four
    `f32` words (normalized), the channels at the start and the jumps as step, channel and size
    in 1/1024) and the raw levels of detail (`anisoprobe6.lod.jsonl.xz`, sets `lod.a*.off`)."""
    import lzma

    def sets(path):
        z = np.load(path)
        for nm in sorted({k.split("__")[0] for k in z.files}):
            yield nm, {k.split("__", 1)[1]: z[k] for k in z.files if k.startswith(nm + "__")}

    for part, step in [("rand", 1), ("rot", 4)]:
        with lzma.open(os.path.join(dst, "anisoprobe6.scan.%s.jsonl.xz" % part), "wt",
                       preset=9 | lzma.PRESET_EXTREME) as f:
            for nm, d in sets(os.path.join(src, part + ".npz")):
                off = np.concatenate([[0], np.cumsum(d["nj"])])
                for i in range(0, len(d["k"]), step):
                    a, b = off[i], off[i + 1]
                    rec = {"set": nm, "aniso": int(d["aniso"]), "k": int(d["k"][i]),
                           "g": ["%08x" % int(w) for w in d["tab"][i, 4:8]],
                           "start": [int(v) for v in d["start"][i]],
                           "jumps": [[int(t), int(c), int(w)] for t, c, w in
                                     zip(d["jt"][a:b], d["jc"][a:b], d["js"][a:b])]}
                    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    z = np.load(os.path.join(src, "lod.npz"))
    with lzma.open(os.path.join(dst, "anisoprobe6.lod.jsonl.xz"), "wt",
                   preset=9 | lzma.PRESET_EXTREME) as f:
        for nm in ["lod.a16.off", "lod.a4.off", "lod.a2.off"]:
            g, o = z[nm + "__g"], z[nm + "__out"]
            f.write(json.dumps({"set": nm, "g": ["%08x" % int(w) for w in g[:, [0, 1, 4, 5]].reshape(-1)],
                                "lod": [int(round(float(v) * 256)) for v in o]},
                               separators=(",", ":")) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scan")
    ap.add_argument("--rand")
    ap.add_argument("--lod")
    ap.add_argument("--pack", nargs=2, metavar=("SRC", "DST"))
    a = ap.parse_args()
    if a.pack:
        pack(*a.pack)
        return
    gpu = T.Gpu()
    if a.scan:
        os.makedirs(a.scan, exist_ok=True)
        scan(gpu, a.scan)
    if a.lod:
        lod_sets(gpu, a.lod)
    if a.rand:
        rand_cases(gpu, a.rand)


if __name__ == "__main__":
    main()
