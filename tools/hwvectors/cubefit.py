"""The level of detail of cube-map `tex.grad` whose gradient ends on another face (issue 28;
docs/INTERP.md "Mipmaps"): candidate rules checked against the H200 recordings. Runs anywhere
(numpy, no GPU); prints, per case, the samples each rule reproduces, split by which gradient
ends on another face (`-x`: the second, `x-`: the first).

- `own`: the finite difference projected on the direction's face (the previous rule);
- `unfold`: the face unfolded across the edge, exact;
- `unfold_split`: the part along the crossing axis in two pieces (to the edge, from the
  edge), each truncated to 9 bits (`t9`), added: the interpreter's rule;
- `lod_nodiag` / `lod_full`: with a crossing gradient the longer length alone, no diagonal
  extents (the interpreter's rule; `check_full` with `to_texels` for any face size). The
  gradient in texels (`grads_texels`), by mode: `tt9` (each piece through `to_texels`, then
  truncated to 9 bits, then added: the interpreter's rule, every crossing sample on faces of
  24, 37, 40, 48, 80, 96, 100 texels), `face` (the pieces truncated in face units, added,
  then `to_texels`), `face9` (that sum truncated again), `texel` (each piece through
  `to_texels`, added untruncated); on faces whose size is a power of two `tt9`, `face` and
  `face9` are one rule.

    python3 tools/hwvectors/cubefit.py
"""
import json, lzma, sys, math, struct
sys.path.insert(0, __import__('os').path.dirname(__file__))
import numpy as np
from anisofit import L256, rho, words, to_texels

def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]

def major(v):
    a = [abs(c) for c in v]
    if a[2] >= a[0] and a[2] >= a[1]: return 2
    if a[1] >= a[0]: return 1
    return 0

def own(p, g):
    i = major(p); j, k = (i+1) % 3, (i+2) % 3
    q = [p[n]+g[n] for n in range(3)]
    m0, m1 = abs(p[i]), abs(q[i])
    return [(q[j]/m1 - p[j]/m0)/2, (q[k]/m1 - p[k]/m0)/2]

def unfold_pt(i, sig, q):
    """q's point on its own face, unfolded into the plane of face (i, sig): coordinates of axes j, k."""
    j, k = (i+1) % 3, (i+2) % 3
    a = major(q)
    c = [0.0]*3
    if a == i:
        if (q[i] >= 0) == (sig > 0):
            return (q[j]/abs(q[i]), q[k]/abs(q[i]))
        return None
    tau = 1.0 if q[a] >= 0 else -1.0
    m = abs(q[a])
    out = {}
    out[a] = tau*(2 - sig*q[i]/m)
    o = 3 - i - a
    out[o] = q[o]/m
    return (out[j], out[k])

def unfold(p, g):
    i = major(p); j, k = (i+1) % 3, (i+2) % 3
    sig = 1.0 if p[i] >= 0 else -1.0
    q = [p[n]+g[n] for n in range(3)]
    u = unfold_pt(i, sig, q)
    if u is None: return None
    m0 = abs(p[i])
    return [(u[0] - p[j]/m0)/2, (u[1] - p[k]/m0)/2]

def lod(model, p, gx, gy, n):
    a, b = model(p, gx), model(p, gy)
    if a is None or b is None: return None
    a = [f32(f32(v)*n) for v in a]; b = [f32(f32(v)*n) for v in b]
    if max(abs(v) for v in a+b) == 0: return -10**9
    return L256(rho(a, b))

def cases(path, pref):
    for l in lzma.open(path, 'rt'):
        c = json.loads(l)
        if c['name'].startswith(pref): yield c

def samples(c):
    a = c['args']
    o = words(c['out']['hex']).reshape(-1, 4)[:, 0]
    inp = words(a[1]['hex']).reshape(-1, 4); g = words(a[2]['hex']).reshape(-1, 8)
    n = c['textures'][0]['dims'][0]; top = c['textures'][0]['levels'] - 1
    for i in range(len(o)):
        p = [float(v) for v in inp[i, :3]]
        yield p, [float(v) for v in g[i, :3]], [float(v) for v in g[i, 4:7]], float(o[i])*256, n, top

def crosses(p, g):
    q = [p[n]+g[n] for n in range(3)]
    i = major(p)
    return major(q) != i or (q[i] >= 0) != (p[i] >= 0)

def check(models, path, pref):
    for c in cases(path, pref):
        tot = {}
        for p, gx, gy, hw, n, top in samples(c):
            cr = crosses(p, gx) or crosses(p, gy)
            for name, m in models.items():
                l = lod(m, p, gx, gy, n)
                v = None if l is None else min(max(l, 0), top*256)
                key = (name, cr)
                t = tot.setdefault(key, [0, 0])
                t[1] += 1
                t[0] += v == hw
        print(c['name'], ' '.join('%s%s %d/%d' % (k[0], '.x' if k[1] else '', v[0], v[1]) for k, v in sorted(tot.items())))


from anisofit import t9
def unfold_split(p, g, tr=t9):
    """Unfolded, the part along the crossing axis in two pieces (to the edge on p's face, from
    the edge on q's face), each truncated."""
    i = major(p); j, k = (i+1) % 3, (i+2) % 3
    sig = 1.0 if p[i] >= 0 else -1.0
    q = [p[n]+g[n] for n in range(3)]
    a = major(q)
    if a == i:
        if (q[i] >= 0) != (sig > 0): return None
        return own(p, g)
    tau = 1.0 if q[a] >= 0 else -1.0
    m = abs(q[a]); m0 = abs(p[i])
    p1 = tau - p[a]/m0            # to the edge on p's face
    p2 = tau*(1 - sig*q[i]/m)     # from the edge on q's face
    o = 3 - i - a
    da = math.copysign(tr(p1), p1) + math.copysign(tr(p2), p2)
    do = q[o]/m - p[o]/m0
    out = {a: da/2, o: do/2}
    return [out[j], out[k]]

from anisofit import norm2, diag2
def lod_nodiag(p, gx, gy, n, model=None):
    """Split-unfold gradients; when either crosses to another face, no diagonal terms."""
    model = model or unfold_split
    a, b = model(p, gx), model(p, gy)
    if a is None or b is None: return None
    a = [f32(f32(v)*n) for v in a]; b = [f32(f32(v)*n) for v in b]
    if max(abs(v) for v in a+b) == 0: return -10**9
    if crosses(p, gx) or crosses(p, gy):
        return L256(f32(max(norm2(a), norm2(b))))
    return L256(rho(a, b))

def check2(fn, path, pref, verbose=False):
    for c in cases(path, pref):
        tot = {}
        for p, gx, gy, hw, n, top in samples(c):
            cr = (crosses(p, gx), crosses(p, gy))
            l = fn(p, gx, gy, n)
            v = None if l is None else min(max(l, 0), top*256)
            t = tot.setdefault(cr, [0, 0]); t[1] += 1; t[0] += v == hw
            if verbose and v != hw: print('  miss', cr, hw, v, p, gx, gy)
        print(c['name'], ' '.join('%s %d/%d' % (''.join('x' if z else '-' for z in k), v[0], v[1]) for k, v in sorted(tot.items())))

from anisofit import lod_parts, sharpen, det_hw, pow2_floor
def aniso_cube(p, gx, gy, n, aniso, top, nodiag=True, model=None):
    model = model or unfold_split
    a, b = model(p, gx), model(p, gy)
    if a is None or b is None: return None
    a = [f32(f32(v)*n) for v in a]; b = [f32(f32(v)*n) for v in b]
    cr = crosses(p, gx) or crosses(p, gy)
    r = f32(max(norm2(a), norm2(b))) if (cr and nodiag) else rho(a, b)
    if r == 0: return 0
    lmaj = L256(r)
    det = det_hw(a, b)
    lmin = L256(det) - lmaj if det > 0 else -(1 << 30)
    raw = max(lmin, lmaj - 256 * int(math.log2(pow2_floor(aniso))))
    return min(max(sharpen(raw, aniso), 0), 256 * top)

def check_aniso(path, pref, **kw):
    for c in cases(path, pref):
        aniso = c['textures'][0]['aniso']
        tot = {}
        for p, gx, gy, hw, n, top in samples(c):
            cr = (crosses(p, gx), crosses(p, gy))
            v = aniso_cube(p, gx, gy, n, aniso, top, **kw)
            t = tot.setdefault(cr, [0, 0]); t[1] += 1; t[0] += v == hw
        print(c['name'], ' '.join('%s %d/%d' % (''.join('x' if z else '-' for z in k), v[0], v[1]) for k, v in sorted(tot.items())))

def grads_texels(p, g, n, mode):
    """The gradient in texels: mode 'tt9' (each piece to_texels, then t9, summed), 'face'
    (pieces t9 in face units, summed, then to_texels), 'face9' (that sum t9 first), 'texel'
    (each piece to_texels, summed in texels untruncated)."""
    i = major(p); j, k = (i+1) % 3, (i+2) % 3
    sig = 1.0 if p[i] >= 0 else -1.0
    q = [p[m]+g[m] for m in range(3)]
    a = major(q)
    if a == i:
        if (q[i] >= 0) != (sig > 0): return None
        return [to_texels(v, n) for v in own(p, g)]
    tau = 1.0 if q[a] >= 0 else -1.0
    m = abs(q[a]); m0 = abs(p[i])
    p1 = (tau - p[a]/m0) / 2
    p2 = tau*(1 - sig*q[i]/m) / 2
    o = 3 - i - a
    do = to_texels((q[o]/m - p[o]/m0) / 2, n)
    if mode == 'face':
        da = to_texels(math.copysign(t9(p1), p1) + math.copysign(t9(p2), p2), n)
    elif mode == 'face9':
        s = math.copysign(t9(p1), p1) + math.copysign(t9(p2), p2)
        da = to_texels(math.copysign(t9(s), s), n)
    elif mode == 'tt9':
        da = f32(math.copysign(t9(to_texels(p1, n)), p1) + math.copysign(t9(to_texels(p2, n)), p2))
    else:
        da = f32(to_texels(p1, n) + to_texels(p2, n))
    out = {a: da, o: do}
    return [out[j], out[k]]

def lod_full(p, gx, gy, n, aniso, top, mode='tt9'):
    a, b = grads_texels(p, gx, n, mode), grads_texels(p, gy, n, mode)
    if a is None or b is None: return None
    cr = crosses(p, gx) or crosses(p, gy)
    if max(abs(v) for v in a + b) == 0: return 0
    if cr:
        l = L256(f32(max(norm2(a), norm2(b))))
        if aniso > 1: l = sharpen(l, aniso)
        return min(max(l, 0), 256 * top)
    r = rho(a, b)
    if aniso <= 1:
        return min(max(L256(r), 0), 256 * top)
    lmaj = L256(r)
    det = det_hw(a, b)
    lmin = L256(det) - lmaj if det > 0 else -(1 << 30)
    raw = max(lmin, lmaj - 256 * int(math.log2(pow2_floor(aniso))))
    return min(max(sharpen(raw, aniso), 0), 256 * top)

def check_full(path, pref, mode='tt9', skip='#', verbose=False):
    for c in cases(path, pref):
        if skip and skip in c['name']: continue
        aniso = c['textures'][0].get('aniso', 0)
        tot = {}
        for p, gx, gy, hw, n, top in samples(c):
            cr = (crosses(p, gx), crosses(p, gy))
            v = lod_full(p, gx, gy, n, aniso, top, mode)
            t = tot.setdefault(cr, [0, 0]); t[1] += 1; t[0] += v == hw
            if verbose and v != hw: print('  miss', cr, hw, v, p, gx, gy)
        print(mode, c['name'], ' '.join('%s %d/%d' % (''.join('x' if z else '-' for z in k), v[0], v[1]) for k, v in sorted(tot.items())))


if __name__ == '__main__':
    M = {'own': own, 'unf': unfold, 'split': unfold_split}
    check(M, 'corpus/vectors/mipfit.jsonl.xz', 'gfit2.cube')
    check(M, 'corpus/vectors/mipfit.jsonl.xz', 'gfit3.cube')
    check_full('corpus/vectors/mipfit.jsonl.xz', 'gfit2.cube')
    check_full('corpus/vectors/mipfit.jsonl.xz', 'gfit3.cube')
    check_full('corpus/vectors/cubegrad.jsonl.xz', 'cg.')
    check_full('corpus/vectors/cubegrad.jsonl.xz', 'cg.', mode='face')
    check_full('corpus/vectors/cubenpot.jsonl.xz', 'cn.')
    check_full('corpus/vectors/cubenpot.jsonl.xz', 'cn.', mode='face')
    check_full('corpus/vectors/anisogeom.jsonl.xz', 'ag.lod.grad.cube')
    check_full('corpus/vectors/anisogeom.jsonl.xz', 'ag.lod.grad.acube')
