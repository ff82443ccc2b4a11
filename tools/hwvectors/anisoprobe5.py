#!/usr/bin/env python3
"""Anisotropic filtering, fifth round (H200): the position of every tap of `tex.grad`'s footprint
to 1/256 of a texel, for rotated, skewed, two-level and clamped footprints.

Point texel filtering makes each tap read one texel at its weight, so over a grid of
coordinates an impulse texture (`mipmap.impulse_texels`: channel `k` is 1 at the centre texel
of level `k`) answers a sum of squares, one per tap, whose lower-left corners are where the
coordinate plus the tap's offset reaches the impulse texel. The mixed second difference of the
map has a spike of the tap's weight at each corner. A coarse map (steps of 1/32 or 1/16 texel)
finds the corners; a window at steps of 1/256 around each corner pins it. Only the fine
windows are recorded (cases `ap5.fine.<config>.l<level>.<n>`); `--summary` writes the
corners found (JSON lines: config, gradients, level, weight and the corner's coordinate in
1/256 texel relative to the impulse texel).

    python3 anisoprobe5.py --out ap5.jsonl --summary ap5.corners.jsonl     (GPU machine)
    python3 anisoprobe5.py --sweep ap5.sweep.jsonl
    python3 anisoprobe5.py --sweep2 ap5.sweep2.jsonl
    python3 anisoprobe5.py --sweep3 ap5.sweep3.jsonl

`--sweep PATH` instead measures the step between taps over a dense sweep of the major axis's
direction (256 angles from 0 to 90 degrees) and length (2.5 to 16 texels, minor axis one
texel, so that level 0 is read alone): one window at steps of 1/256 around the corner of the
tap nearest the coordinate on its negative side. It writes one JSON line per footprint: the
gradients and every nonzero mixed difference of the window (weight, x and y in 1/256 texel).
`--sweep2 PATH` does the same for ratios below 2 (two taps) and for footprints between two
levels (minor axes of 1.25, 1.4 and 1.5 texels: a window for each level).
"""

import argparse
import json
import math

import numpy as np

import mipmap as M
import texture as T


def configs():
    """(name, gx, gy, maxAnisotropy, half-window in texels, coarse steps per texel)."""
    out = []

    def rot(r, m, k, sk=0.0):
        q = 2 * math.pi * k / 64
        c, s = math.cos(q), math.sin(q)
        return (r * m * c, r * m * s), (m * (-s + sk * c), m * (c + sk * s))

    for k in range(1, 16):
        out.append(("r3.k%d" % k,) + rot(3, 1, k) + (16, 2.5, 32))
    for k in [2, 5]:
        out.append(("r6.5.k%d" % k,) + rot(6.5, 1, k) + (16, 4.5, 16))
    for r in [2.5, 4, 12]:
        out.append(("r%g.k3" % r,) + rot(r, 1, 3) + (16, r / 2 + 1.5, 16))
    out.append(("r3.m2.k3",) + rot(3, 2, 3) + (16, 5.5, 16))
    out.append(("r3.m1.5.k3",) + rot(3, 1.5, 3) + (16, 5.5, 16))
    out.append(("r6.m0.5.k3",) + rot(6, 0.5, 3) + (16, 3, 32))
    out.append(("r3.skew.k3",) + rot(3, 1, 3, 0.4) + (16, 3, 32))
    gx, gy = rot(3, 1, 3)
    out.append(("r3.swap.k3", gy, gx, 16, 3, 32))
    out.append(("r6.a4.k3",) + rot(6, 1, 3) + (4, 5.5, 16))
    out.append(("r3.a2.k3",) + rot(3, 1, 3) + (2, 5.5, 16))
    return out


def grid_case(name, d, tex, gx, gy, xs, ys):
    """Fetches at level-0 coordinates `32 + x`, `32 + y` (texels) for x in xs, y in ys."""
    coords = [((32 + x) / 64, (32 + y) / 64) for y in ys for x in xs]
    g = ((gx[0] / 64, gx[1] / 64), (gy[0] / 64, gy[1] / 64))
    T.CASES.clear()
    M.add(name, "anisoprobe5", d, "2d", "grad", coords, grads=[g] * len(coords), texels=tex)
    return T.CASES[0]


def spikes(m):
    p = np.pad(m, ((1, 0), (1, 0)))
    return p[1:, 1:] - p[1:, :-1] - p[:-1, 1:] + p[:-1, :-1]


SWEEP_LENGTHS = [2.5, 3, 3.5, 4, 6, 8, 12, 16]
SWEEP_WIN = 20


def sweep(gpu, path):
    d = M.desc("f32", 4, (64, 64), 7, filt="point", mipfilter="linear", aniso=16)
    tex = M.impulse_texels(d)
    foots = [(r, math.pi / 2 * k / 256) for r in SWEEP_LENGTHS for k in range(256)]
    coords, grads, wins = [], [], []
    for r, q in foots:
        c, s = math.cos(q), math.sin(q)
        # The tap at minus half a step (about half a texel along the axis) has its corner at
        # plus half a step: a window of SWEEP_WIN samples of 1/256 texel around it.
        x0 = round(128 * c) - SWEEP_WIN // 2
        y0 = round(128 * s) - SWEEP_WIN // 2
        wins.append((x0, y0))
        g = ((r * c / 64, r * s / 64), (-s / 64, c / 64))
        for j in range(SWEEP_WIN):
            for i in range(SWEEP_WIN):
                coords.append(((32 + (x0 + i) / 256) / 64, (32 + (y0 + j) / 256) / 64))
                grads.append(g)
    T.CASES.clear()
    M.add("ap5.sweep", "anisoprobe5", d, "2d", "grad", coords, grads=grads, texels=tex)
    vals = gpu.run(T.CASES[0])
    n = SWEEP_WIN * SWEEP_WIN
    o = np.array(vals[:4 * n * len(foots)], dtype=np.uint32).view(np.float32)
    o = np.round(o.reshape(len(foots), SWEEP_WIN, SWEEP_WIN, 4)[..., 0] * 1024).astype(np.int64)
    with open(path, "w") as f:
        for (r, q), (x0, y0), m in zip(foots, wins, o):
            sp = spikes(m)
            pk = [(int(sp[b, a]), x0 + int(a), y0 + int(b)) for b, a in zip(*np.nonzero(sp))
                  if a > 0 and b > 0]
            f.write(json.dumps({"length": r, "angle": q, "gx": [r * math.cos(q), r * math.sin(q)],
                                "gy": [-math.sin(q), math.cos(q)], "spikes": pk}) + "\n")


def sweep2(gpu, path):
    """Ratios below 2 (two taps) and footprints between two levels, over the direction: windows
    of SWEEP2_WIN samples of 1/256 texel around the predicted corner of the tap on the negative
    side nearest the coordinate, for level 0 and, between two levels, for level 1."""
    d = M.desc("f32", 4, (64, 64), 7, filt="point", mipfilter="linear", aniso=16)
    tex = M.impulse_texels(d)
    win = SWEEP2_WIN
    jobs = []  # (tag, length, minor, angle, level, centre x, centre y in 1/256)
    for r in [1.25, 1.5, 1.75, 1.95]:
        for k in range(64):
            q = math.pi / 2 * k / 64
            h = 2 * (128 - round(256 * 2 ** (-math.log2(r))) // 2)
            jobs.append(("two", r, 1.0, q, 0, h * math.cos(q), h * math.sin(q)))
    for m, lo in [(1.25, 36), (1.4, 120), (1.5, 172)]:
        for r in [3, 6]:
            for k in range(32):
                q = math.pi / 2 * k / 32
                h = 128 * 2 ** (lo / 256)
                jobs.append(("lv", r, m, q, 0, h * math.cos(q), h * math.sin(q)))
                jobs.append(("lv", r, m, q, 1, 256 * math.cos(q), 256 * math.sin(q)))
    coords, grads, wins = [], [], []
    for tag, r, m, q, lv, hx, hy in jobs:
        c, s = math.cos(q), math.sin(q)
        x0, y0 = round(hx) - win // 2, round(hy) - win // 2
        wins.append((x0, y0))
        g = ((r * m * c / 64, r * m * s / 64), (-m * s / 64, m * c / 64))
        for j in range(win):
            for i in range(win):
                coords.append(((32 + (x0 + i) / 256) / 64, (32 + (y0 + j) / 256) / 64))
                grads.append(g)
    T.CASES.clear()
    M.add("ap5.sweep2", "anisoprobe5", d, "2d", "grad", coords, grads=grads, texels=tex)
    vals = gpu.run(T.CASES[0])
    o = np.array(vals[:4 * win * win * len(jobs)], dtype=np.uint32).view(np.float32)
    o = np.round(o.reshape(len(jobs), win, win, 4) * 1024).astype(np.int64)
    with open(path, "w") as f:
        for (tag, r, m, q, lv, _, _), (x0, y0), mm in zip(jobs, wins, o):
            sp = spikes(mm[..., lv])
            pk = [(int(sp[b, a]), x0 + int(a), y0 + int(b)) for b, a in zip(*np.nonzero(sp))
                  if a > 0 and b > 0]
            f.write(json.dumps({"kind": tag, "length": r, "minor": m, "angle": q, "level": lv,
                                "gx": [r * m * math.cos(q), r * m * math.sin(q)],
                                "gy": [-m * math.sin(q), m * math.cos(q)], "spikes": pk}) + "\n")


def sweep3(gpu, path):
    """Footprints between two levels, windows centred on the fitted positions
    (`anisofit.footprint2`): for each footprint, a window of SWEEP2_WIN samples of 1/256 texel
    around the corner of the inner tap on the negative side, on the lower level (minor axes 1.12
    to 1.68 texels, major axis 3, 32 directions) and on the upper one (minor axes 1.25, 1.4, 1.5,
    major axes 3 and 6). One JSON line per window, as `--sweep2` writes (`kind` `lv3`)."""
    import anisofit as F

    d = M.desc("f32", 4, (64, 64), 7, filt="point", mipfilter="linear", aniso=16)
    tex = M.impulse_texels(d)
    win = SWEEP2_WIN
    jobs = []
    feet = [(3, 1.12 + 0.56 * i / 15, 0) for i in range(16)]
    feet += [(r, m, 1) for m in (1.25, 1.4, 1.5) for r in (3, 6)]
    for r, m, lv in feet:
        for k in range(32):
            q = math.pi / 2 * k / 32
            c, s = math.cos(q), math.sin(q)
            gx = [F.f32(r * m * c / 64) * 64, F.f32(r * m * s / 64) * 64]
            gy = [F.f32(-m * s / 64) * 64, F.f32(m * c / 64) * 64]
            fp = F.footprint2(gx, gy, 16, 7)
            if len(fp) != 2:
                continue
            base, taps, _ = fp[lv]
            # The inner tap on the negative side; its corner lies at minus its offset, in
            # level-0 1/256 texel.
            neg = [t for t in taps if (t[0], t[1]) < (0, 0)] or taps
            ox, oy, _ = min(neg, key=lambda t: abs(t[0]) + abs(t[1]))
            jobs.append(("lv3", r, m, q, lv, -ox << lv, -oy << lv))
    coords, grads, wins = [], [], []
    for tag, r, m, q, lv, hx, hy in jobs:
        c, s = math.cos(q), math.sin(q)
        x0, y0 = round(hx) - win // 2, round(hy) - win // 2
        wins.append((x0, y0))
        g = ((r * m * c / 64, r * m * s / 64), (-m * s / 64, m * c / 64))
        for j in range(win):
            for i in range(win):
                coords.append(((32 + (x0 + i) / 256) / 64, (32 + (y0 + j) / 256) / 64))
                grads.append(g)
    T.CASES.clear()
    M.add("ap5.sweep3", "anisoprobe5", d, "2d", "grad", coords, grads=grads, texels=tex)
    vals = gpu.run(T.CASES[0])
    o = np.array(vals[:4 * win * win * len(jobs)], dtype=np.uint32).view(np.float32)
    o = np.round(o.reshape(len(jobs), win, win, 4) * 1024).astype(np.int64)
    with open(path, "w") as f:
        for (tag, r, m, q, lv, _, _), (x0, y0), mm in zip(jobs, wins, o):
            sp = spikes(mm[..., lv])
            pk = [(int(sp[b, a]), x0 + int(a), y0 + int(b)) for b, a in zip(*np.nonzero(sp))
                  if a > 0 and b > 0]
            f.write(json.dumps({"kind": tag, "length": r, "minor": m, "angle": q, "level": lv,
                                "gx": [r * m * math.cos(q), r * m * math.sin(q)],
                                "gy": [-m * math.sin(q), m * math.cos(q)], "spikes": pk}) + "\n")


SWEEP2_WIN = 32


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep2")
    ap.add_argument("--sweep3")
    ap.add_argument("--out")
    ap.add_argument("--summary")
    ap.add_argument("--sweep")
    a = ap.parse_args()
    gpu = T.Gpu()
    if a.sweep:
        sweep(gpu, a.sweep)
        return
    if a.sweep2:
        sweep2(gpu, a.sweep2)
        return
    if a.sweep3:
        sweep3(gpu, a.sweep3)
        return
    if not a.out or not a.summary:
        raise SystemExit("--out and --summary are needed unless --sweep or --sweep2 is given")
    with open(a.out, "w") as fo, open(a.summary, "w") as fs:
        for name, gx, gy, an, half, per in configs():
            d = M.desc("f32", 4, (64, 64), 7, filt="point", mipfilter="linear", aniso=an)
            tex = M.impulse_texels(d)
            n = int(2 * half * per)
            xs = [0.5 - half + i / per for i in range(n)]
            c = grid_case("coarse", d, tex, gx, gy, xs, xs)
            o = np.array(gpu.run(c)[:4 * n * n], dtype=np.uint32).view(np.float32)
            o = np.round(o.reshape(n * n, 4) * 1024).astype(np.int64)
            found = 0
            for lv in range(3):
                m = o[:, lv].reshape(n, n)
                if not m.any():
                    continue
                sp = spikes(m)
                s = per << lv
                for j, i in zip(*np.nonzero(sp > 0)):
                    if j + s >= n or i + s >= n or sp[j + s, i + s] <= 0:
                        continue
                    # The corner lies between samples i - 1 and i: a fine window around it.
                    fx = [xs[i] - 1 / per - 8 / 256 + t / 256 for t in range(256 // per + 16)]
                    fy = [xs[j] - 1 / per - 8 / 256 + t / 256 for t in range(256 // per + 16)]
                    fname = "ap5.fine.%s.l%d.%d" % (name, lv, found)
                    fc = grid_case(fname, d, tex, gx, gy, fx, fy)
                    vals = gpu.run(fc)
                    fo.write(json.dumps(T.record(fc, vals)) + "\n")
                    nf = len(fx)
                    fo_ = np.array(vals[:4 * nf * nf], dtype=np.uint32).view(np.float32)
                    fm = np.round(fo_.reshape(nf * nf, 4)[:, lv] * 1024).astype(np.int64)
                    fsp = spikes(fm.reshape(nf, nf))
                    pk = [(int(fsp[b, q]), round(256 * fx[q]), round(256 * fy[b]))
                          for b, q in zip(*np.nonzero(fsp)) if b > 0 and q > 0]
                    fs.write(json.dumps({"config": name, "gx": gx, "gy": gy, "aniso": an,
                                         "level": lv, "weight": int(sp[j, i]),
                                         "coarse": [round(256 * xs[i]), round(256 * xs[j])],
                                         "case": fname, "fine": pk}) + "\n")
                    found += 1
            print(name, "corners", found, flush=True)


if __name__ == "__main__":
    main()
