#!/usr/bin/env python3
"""Hardware-truth vectors for mipmapped textures (issue 28): `tex.level`, `tex.grad`,
`tex.base` and `txq.level` on texture objects over mipmapped CUDA arrays, and the
independent-mode `clamp_ogl` probe.

A mipmapped texture is described as the other textures are (`texture.py`), plus `"levels"`
(the number of levels; each halves every dimension, rounding down, at least 1; layers and cube
faces do not halve), `"mipfilter"` (`point` or `linear`), `"lodbias"`, `"minlod"`, `"maxlod"`,
`"aniso"` (maxAnisotropy) and `"trilinopt": false` (`CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION`).
Its buffer holds the levels one after another, each dense. The objects are made through the
driver API (`cudrv.mipmapped_texture`), since CuPy has no mipmapped arrays.

Kernels read four words per thread from `in1` (x, y, z or the layer, and the level of detail)
and eight from `in2` (the two gradient vectors, four words each).

Families: mipprobe (sweeps of the level of detail and of gradients over textures whose level
`k` holds the value `k`, so the result is the level of detail the hardware used), mipmap
(random textures, coordinates, levels and gradients in every geometry), oglprobe (`clamp_ogl`
through a `.samplerref` in independent mode), anisoprobe, anisoprobe2, anisoprobe3, anisoprobe4
(anisotropic filtering, `maxAnisotropy` above 1: level-of-detail sweeps, footprints of
impulse textures, point-filtered maps of the taps, rounding of the weighted taps; recordings in
`corpus/aniso/`, the taps' positions to 1/256 by `anisoprobe5.py`, a selection in
`corpus/vectors/anisofit.jsonl.xz`), aniso (random anisotropic fetches,
`corpus/vectors/aniso.jsonl.xz`), anisoaddr (the same with mirrored and border addressing,
`corpus/vectors/anisoaddr.jsonl.xz`), aniso16 (normalized 16-bit texels and integer texels
read as integers, `corpus/vectors/aniso16.jsonl.xz`), aniso16probe (impulse probes of the
integer rounding, `corpus/aniso/aniso16probe.jsonl.xz`), anisogeom (anisotropic filtering of
1D, layered 1D, 3D, layered 2D, cube and layered cube textures, `corpus/vectors/anisogeom.jsonl.xz`),
anisobias (a bias with `maxAnisotropy` 2 to 7, `corpus/vectors/anisobias.jsonl.xz`),
anisocheck (random negative levels of detail with a bias at every `maxAnisotropy`, 1D
addressing, seamless cube maps: `anisobias.jsonl.xz`, `anisogeom.jsonl.xz`,
`corpus/aniso/anisocheck.seamless.jsonl.xz`), s16clamp (bilinear fetches of normalized `s16`
texels of -32768, `corpus/vectors/s16clamp.jsonl.xz`), seamless, seamcorner, seamtld4 (seamless cube maps,
`corpus/vectors/seamless.jsonl.xz`), seamtld4int (`tld4` past cube corners of integer texels,
`corpus/vectors/seamtld4int.jsonl.xz`), cubegrad (cube-map `tex.grad` whose gradients end on
another face, `corpus/vectors/cubegrad.jsonl.xz`; fitted by `cubefit.py`), cubenpot (the same on faces
whose size is not a power of two, `corpus/vectors/cubenpot.jsonl.xz`), seamaniso (seamless
cube maps with anisotropy, `corpus/vectors/seamaniso.jsonl.xz`), linaniso (1D linear memory with
anisotropy, `corpus/vectors/linaniso.jsonl.xz`), seamcornerprobe (impulse probes of seamless
cube maps with anisotropy past a cube corner, `corpus/aniso/seamcornerprobe.*`), seamcornercheck
(random textures, footprints past cube corners, `corpus/vectors/seamcorner2.jsonl.xz`),
seamcornermiss (its misses replayed on impulse textures, `corpus/aniso/seamcornermiss.jsonl.xz`),
seamcfgcheck (random fetches near cube corners in other configurations: nearest level filtering,
other formats, face sizes, the mixed corners, layered maps, a bias and clamps,
`corpus/vectors/seamcfg*.jsonl.xz`), seamnpotcheck (faces whose size is not a power of two,
`corpus/vectors/seamnpot*.jsonl.xz`), seamptmixed (point-filtered impulse probes at the mixed
corners, `corpus/aniso/seamptmixed.jsonl.xz`), seamcfgmiss (seamcfgcheck's misses on impulse
textures, `corpus/aniso/seamcfgmiss.jsonl.xz`), npotpos (coordinates just above a rounding
boundary on textures whose size is not a power of two, `corpus/aniso/npotpos.jsonl.xz`),
npotpos2 (the same on large, 1D, 3D, layered and mipmapped textures,
`corpus/aniso/npotpos2.jsonl.xz`), seamcut, seamcut2, seamcut3 (the anisotropic accumulator:
two-level textures whose small result holds the cut sum of the taps exactly,
`corpus/vectors/seamcut*.jsonl.xz`; `seamcutlod`, `seamcut2lod`: their level-of-detail
checks, no GPU needed).

Usage (GPU machine; needs CuPy):

    python3 tools/hwvectors/mipmap.py --out corpus/vectors/mipmap.jsonl --family mipmap
"""

import math

import texture as T
from cudrv import mip_levels
from texture import RNG, case, f32, fcoords, kernel


COORDS = {"1d": "{%f0}", "2d": "{%f0, %f1}", "3d": "{%f0, %f1, %f2, %f2}",
          "a1d": "{%r2, %f0}", "a2d": "{%r2, %f0, %f1, %f1}", "cube": "{%f0, %f1, %f2, %f2}",
          "acube": "{%r3, %f0, %f1, %f2}"}
GRADS = {"1d": ("{%f4}", "{%f8}"), "a1d": ("{%f4}", "{%f8}"), "2d": ("{%f4, %f5}", "{%f8, %f9}"),
         "a2d": ("{%f4, %f5}", "{%f8, %f9}"), "3d": ("{%f4, %f5, %f6, %f7}", "{%f8, %f9, %f10, %f11}"),
         "cube": ("{%f4, %f5, %f6, %f7}", "{%f8, %f9, %f10, %f11}")}


def mip_kernel(geom, form, dtype="f32"):
    """`form`: `level` (lod in word 3), `grad`, `base` or `` (plain `tex`)."""
    body = "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
    body += "".join("mov.b32 %%f%d, %%r%d;\n" % (i, i) for i in range(4))
    body += "mul.wide.u32 %rd2, %gid, 32;\nadd.s64 %rd3, %rc, %rd2;\n"
    body += "ld.global.v4.b32 {%r8, %r9, %r10, %r11}, [%rd3];\n"
    body += "ld.global.v4.b32 {%r12, %r13, %r14, %r15}, [%rd3+16];\n"
    body += "".join("mov.b32 %%f%d, %%r%d;\n" % (i - 4, i) for i in range(8, 16))
    extra = ""
    if form == "level":
        extra = ", %f3"
    elif form == "grad":
        gx, gy = GRADS[geom]
        extra = ", %s, %s" % (gx, gy)
    op = "tex%s.%s.v4.%s.f32" % ("." + form if form else "", geom, dtype)
    body += "%s {%%r4, %%r5, %%r6, %%r7}, [%%t0, %s]%s;\n" % (op, COORDS[geom], extra)
    body += "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n"
    return kernel(body, ntex=1)


def desc(ty, ch, dims, levels, filt="point", mipfilter="point", addr="clamp", read="element",
         norm=True, **kw):
    d = T.tex_desc(ty, ch, dims, addr=addr, filt=filt, read=read, norm=norm,
                   layers=kw.pop("layers", 0), cube=kw.pop("cube", False))
    d["levels"] = levels
    d["mipfilter"] = mipfilter
    d.update(kw)
    return d


def level_index_texels(d):
    """f32 texels, one channel: level k holds k everywhere."""
    assert d["type"] == "f32" and d["channels"] == 1
    out = []
    for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
        out += [f32(float(k))] * (w * h * dd)
    return out


def random_texels(d):
    n = sum(nb for (_, _, _, nb) in mip_levels(d)) // T.ELEM[d["type"]]
    if d["type"] in ("f32", "f16"):
        vals = [RNG.uniform(-4, 4) for _ in range(n)]
        return [f32(v) for v in vals] if d["type"] == "f32" else [T.f16(v) for v in vals]
    bits = 8 * T.ELEM[d["type"]]
    return [RNG.getrandbits(bits) for _ in range(n)]


def words(coords, lods):
    out = []
    for c, lod in zip(coords, lods):
        c = list(c) + [0.0] * (3 - len(c))
        out += [f32(c[0]) if not isinstance(c[0], int) else c[0],
                f32(c[1]) if not isinstance(c[1], int) else c[1],
                f32(c[2]) if not isinstance(c[2], int) else c[2] & 0xFFFFFFFF,
                f32(lod) if not isinstance(lod, int) else lod]
    return out


def grad_words(gs):
    out = []
    for gx, gy in gs:
        gx = list(gx) + [0.0] * (4 - len(gx))
        gy = list(gy) + [0.0] * (4 - len(gy))
        out += [f32(v) for v in gx + gy]
    return out


def add(name, family, d, geom, form, coords, lods=None, grads=None, texels=None,
        dtype="f32"):
    n = len(coords)
    lods = lods or [0.0] * n
    grads = grads or [((0.0,), (0.0,))] * n
    # Every thread of the last block has inputs and outputs: repeat the last one.
    pad = -n % 128 if n > 128 else 0
    coords, lods, grads = (list(v) + [v[-1]] * pad for v in (coords, lods, grads))
    n += pad
    texels = texels if texels is not None else level_index_texels(d)
    case(name, family, mip_kernel(geom, form, dtype), 4 * n, (d["type"], texels),
         words(coords, lods), textures=[d], extra=("u32", grad_words(grads)))


def mipprobe():
    fam = "mipprobe"
    # The level of detail given directly, nearest level: where does it switch?
    d = desc("f32", 1, (64,), 7)
    lods = [-2 + i / 64 for i in range(641)]
    for k in range(4):
        lods += [k + 0.5 + j / 8192 for j in range(-16, 17)]
    add("mip.level.point.1d", fam, d, "1d", "level", [(0.3,)] * len(lods), lods)
    # Linear between levels: the weight's precision, and the trilinear optimisation.
    lods = [-1 + i / 1024 for i in range(8 * 1024 + 1)]
    for opt in [True, False]:
        d = desc("f32", 1, (64,), 7, mipfilter="linear")
        if not opt:
            d["trilinopt"] = False
        add("mip.level.linear.1d%s" % ("" if opt else ".noopt"), fam, d, "1d", "level",
            [(0.3,)] * len(lods), lods)
    # Bias and clamps.
    lods = [-2 + i / 64 for i in range(641)]
    for tag, kw in [("bias", dict(lodbias=0.75, minlod=0.5, maxlod=4.25)),
                    ("negbias", dict(lodbias=-1.3, minlod=0.0, maxlod=100.0)),
                    ("clamp", dict(minlod=1.5, maxlod=3.3)),
                    ("maxlow", dict(minlod=2.5, maxlod=1.0))]:
        for mf in ["point", "linear"]:
            d = desc("f32", 1, (64,), 7, mipfilter=mf, **kw)
            add("mip.level.%s.%s" % (tag, mf), fam, d, "1d", "level", [(0.3,)] * len(lods), lods)
    # Gradients: an x-only sweep (the log2), then random directions (the norm and the max).
    d = desc("f32", 1, (256, 256), 9, mipfilter="linear")
    gs = [2 ** (-11 + i / 256) for i in range(13 * 256 + 1)]
    add("mip.grad.2d.x", fam, d, "2d", "grad", [(0.3, 0.6)] * len(gs),
        grads=[((g, 0.0), (0.0, 0.0)) for g in gs])
    add("mip.grad.2d.y", fam, d, "2d", "grad", [(0.3, 0.6)] * 512,
        grads=[((0.0, 0.0), (0.0, 2 ** (-9 + i / 64))) for i in range(512)])

    def rg(lo=-10, hi=0):
        v = 2 ** RNG.uniform(lo, hi) * RNG.choice([-1, 1])
        return v if RNG.random() > 0.1 else 0.0

    rand = [((rg(), rg()), (rg(), rg())) for _ in range(4096)]
    add("mip.grad.2d.rand", fam, d, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    d2 = desc("f32", 1, (256, 64), 9, mipfilter="linear")
    rand = [((rg(), rg()), (rg(), rg())) for _ in range(2048)]
    add("mip.grad.2d.nonsquare", fam, d2, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    d3 = desc("f32", 1, (256, 256), 9, mipfilter="linear", norm=False)
    rand = [((rg(-4, 8), rg(-4, 8)), (rg(-4, 8), rg(-4, 8))) for _ in range(1024)]
    add("mip.grad.2d.unnorm", fam, d3, "2d", "grad", [(77.3, 150.6)] * len(rand), grads=rand)
    d4 = desc("f32", 1, (256, 256), 9, mipfilter="linear", aniso=16)
    rand = [((rg(), rg()), (rg(), rg())) for _ in range(2048)]
    add("mip.grad.2d.aniso16", fam, d4, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    d5 = desc("f32", 1, (256, 256), 9, mipfilter="point")
    rand = [((rg(), rg()), (rg(), rg())) for _ in range(1024)]
    add("mip.grad.2d.point", fam, d5, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    d1 = desc("f32", 1, (256,), 9, mipfilter="linear")
    gs = [2 ** (-11 + i / 64) for i in range(13 * 64 + 1)]
    # (ptxas wants `{dPdx}` vectors in 1D too: "Vector expected for argument 3".)
    add("mip.grad.1d", fam, d1, "1d", "grad", [(0.3,)] * len(gs),
        grads=[((g,), (g / 3,)) for g in gs])
    d6 = desc("f32", 1, (32, 32, 32), 6, mipfilter="linear")
    rand = [((rg(), rg(), rg()), (rg(), rg(), rg())) for _ in range(2048)]
    add("mip.grad.3d.rand", fam, d6, "3d", "grad", [(0.3, 0.6, 0.45)] * len(rand), grads=rand)
    # Plain and .base fetches of a mipmapped texture; level 0 unless the bias or clamp moves it.
    for tag, kw in [("", {}), (".bias", dict(lodbias=1.5)), (".minlod", dict(minlod=2.0))]:
        d = desc("f32", 1, (64, 64), 7, mipfilter="linear", **kw)
        for form in ["", "base"]:
            add("mip.%s2d%s" % (form + "." if form else "plain.", tag), fam, d, "2d", form,
                [(0.3, 0.6)] * 4)
    # txq of every level (the driver's JIT rejects `txq.num_mipmap_levels` of an object
    # handle: CUDA_ERROR_NOT_FOUND).
    for dims in [(64,), (20, 13), (9, 17, 5)]:
        d = desc("f32", 1, dims, int(math.log2(max(dims))) + 1)
        body = ""
        for j, lv in enumerate(list(range(d["levels"] + 2)) + [100]):
            body += "mov.b32 %r4, 0;\n"
            body += "txq.level.width.b32 %%r5, [%%t0], %d;\n" % lv
            body += "txq.level.height.b32 %%r6, [%%t0], %d;\n" % lv
            body += "txq.level.depth.b32 %%r7, [%%t0], %d;\n" % lv
            body += "st.global.v4.b32 [%%ro+%d], {%%r4, %%r5, %%r6, %%r7};\n" % (16 * j)
        n = d["levels"] + 3
        case("mip.txq.%s" % "x".join(map(str, dims)), fam, kernel(body, ntex=1), 4 * n,
             ("f32", level_index_texels(d)), [0, 0, 0, 0], textures=[d], threads=1)


def gradfit():
    """Dense sweeps for fitting the level of detail of `tex.grad`: the log2 over every 16-bit
    mantissa, the length of a 2D and 3D gradient over its direction, and how the two
    gradients combine."""
    fam = "gradfit"
    d1 = desc("f32", 1, (256,), 9, mipfilter="linear")
    gs = [4 * (1 + i / 65536) / 256 for i in range(65536)]
    add("gfit.log2", fam, d1, "1d", "grad", [(0.3,)] * len(gs), grads=[((g,), (0.0,)) for g in gs])
    gs = [32 * (1 + i / 8192) / 256 for i in range(8192)]
    add("gfit.log2.e5", fam, d1, "1d", "grad", [(0.3,)] * len(gs),
        grads=[((0.0,), (g,)) for g in gs])
    d2 = desc("f32", 1, (256, 256), 9, mipfilter="linear")
    r = 4 * 1.37 / 256
    ang = [2 * math.pi * i / 8192 for i in range(8192)]
    add("gfit.angle", fam, d2, "2d", "grad", [(0.3, 0.6)] * len(ang),
        grads=[((r * math.cos(a), r * math.sin(a)), (0.0, 0.0)) for a in ang])
    ang = [2 * math.pi * i / 1024 for i in range(1024)]
    add("gfit.angle.y", fam, d2, "2d", "grad", [(0.3, 0.6)] * len(ang),
        grads=[((0.0, 0.0), (r * math.cos(a), r * math.sin(a))) for a in ang])
    ts = [i / 1024 for i in range(2049)]
    for tag, kw in [("", {}), (".aniso1", {"aniso": 1})]:
        dd = desc("f32", 1, (256, 256), 9, mipfilter="linear", **kw)
        add("gfit.two.orth" + tag, fam, dd, "2d", "grad", [(0.3, 0.6)] * len(ts),
            grads=[((r, 0.0), (0.0, r * t)) for t in ts])
        add("gfit.two.par" + tag, fam, dd, "2d", "grad", [(0.3, 0.6)] * len(ts),
            grads=[((r, 0.0), (r * t, 0.0)) for t in ts])
        add("gfit.two.diag" + tag, fam, dd, "2d", "grad", [(0.3, 0.6)] * len(ts),
            grads=[((r, 0.0), (r * t * 0.6, r * t * 0.8)) for t in ts])

    def rg():
        v = 2 ** RNG.uniform(-10, 0) * RNG.choice([-1, 1])
        return v if RNG.random() > 0.1 else 0.0

    rand = [((rg(), rg()), (rg(), rg())) for _ in range(8192)]
    for tag, kw in [("", {}), (".aniso1", {"aniso": 1})]:
        dd = desc("f32", 1, (256, 256), 9, mipfilter="linear", **kw)
        add("gfit.rand" + tag, fam, dd, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    d3 = desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    dirs = []
    for _ in range(8192):
        v = [RNG.gauss(0, 1) for _ in range(3)]
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        dirs.append(tuple(4 * 1.37 / 64 * x / n for x in v))
    add("gfit.3d.angle", fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(dirs),
        grads=[(v, (0.0, 0.0, 0.0)) for v in dirs])
    rand = [((rg(), rg(), rg()), (rg(), rg(), rg())) for _ in range(4096)]
    add("gfit.3d.rand", fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(rand), grads=rand)
    d4 = desc("f32", 1, (256, 64), 9, mipfilter="linear")
    ang = [2 * math.pi * i / 2048 for i in range(2048)]
    add("gfit.angle.nonsquare", fam, d4, "2d", "grad", [(0.3, 0.6)] * len(ang),
        grads=[((r * math.cos(a), r * math.sin(a)), (0.0, 0.0)) for a in ang])


def gradfit2():
    """Sweeps that decide the footprint's diagonal term, the norm of a non-square texture's
    gradients and the 3D norm; bias with gradients; cube gradients."""
    fam = "gradfit2"
    sq = desc("f32", 1, (256, 256), 9, mipfilter="linear")
    t = 256.0
    qs = [1.5 * i / 4096 for i in range(4096)]
    add("gfit2.diag.q", fam, sq, "2d", "grad", [(0.3, 0.6)] * len(qs),
        grads=[((3 / t, 0.0), (3 / t, q / t)) for q in qs])
    ps = [2.5 + 1.5 * i / 65536 for i in range(65536)]
    add("gfit2.diag.p", fam, sq, "2d", "grad", [(0.3, 0.6)] * len(ps),
        grads=[((p / t, 0.0), (p / t, 1.0 / t)) for p in ps])
    pts = [(5.136617660522461, 0.47733360528945923), (1.846156358718872, 1.2899153232574463)]
    add("gfit2.nonsq.onsquare", fam, sq, "2d", "grad", [(0.3, 0.6)] * 2,
        grads=[((a / t, b / t), (0.0, 0.0)) for a, b in pts])
    ns = desc("f32", 1, (256, 64), 9, mipfilter="linear")
    add("gfit2.nonsq.again", fam, ns, "2d", "grad", [(0.3, 0.6)] * 2,
        grads=[((a / 256, b / 64), (0.0, 0.0)) for a, b in pts])
    d3 = desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    cs = [5.0 * i / 8192 for i in range(8192)]
    for b in [0.0, 2.0]:
        add("gfit2.3d.b%d" % b, fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(cs),
            grads=[((5 / 64, b / 64, c / 64), (0.0, 0.0, 0.0)) for c in cs])

    def rg():
        v = 2 ** RNG.uniform(-10, 0) * RNG.choice([-1, 1])
        return v if RNG.random() > 0.1 else 0.0

    rand = [((rg(), rg()), (rg(), rg())) for _ in range(16384)]
    add("gfit2.rand", fam, sq, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    rand = [((rg(), rg(), rg()), (rg(), rg(), rg())) for _ in range(8192)]
    add("gfit2.3d.rand", fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(rand), grads=rand)
    # Bias with gradients.
    bi = desc("f32", 1, (256, 256), 9, mipfilter="linear", lodbias=0.75, minlod=0.25, maxlod=7.5)
    gs = [2 ** (-11 + i / 64) for i in range(13 * 64)]
    add("gfit2.bias", fam, bi, "2d", "grad", [(0.3, 0.6)] * len(gs),
        grads=[((g, 0.0), (0.0, 0.0)) for g in gs])
    # Cube maps: gradients in direction space.
    cu = desc("f32", 1, (64, 64), 7, mipfilter="linear", cube=True)
    dirs = []
    for _ in range(2048):
        v = [RNG.uniform(-1, 1) for _ in range(3)]
        v[RNG.randrange(3)] = RNG.choice([-1.0, 1.0]) * RNG.uniform(1.0, 2.0)
        dirs.append(v)
    cg = [((rg(), rg(), rg()), (rg(), rg(), rg())) for _ in dirs]
    add("gfit2.cube", fam, cu, "cube", "grad", dirs, grads=cg)
    # Odd levels of detail.
    odd = [float("nan"), float("inf"), float("-inf"), 1e30, -1e30, 1e-45, -0.0, 2.9999999,
           3.0000002, 0.001953125, 0.0019531249]
    lv = desc("f32", 1, (64,), 7, mipfilter="linear")
    add("gfit2.oddlod", fam, lv, "1d", "level", [(0.3,)] * len(odd), lods=odd)
    og = [((float("nan"),), (0.0,)), ((float("inf"),), (0.0,)), ((1e30,), (0.0,)),
          ((1e-45,), (0.0,)), ((0.0,), (0.0,)), ((-0.0,), (-0.0,))]
    add("gfit2.oddgrad", fam, lv, "1d", "grad", [(0.3,)] * len(og), grads=og)


def gradfit3():
    """Sweeps for the remaining questions: the product of the second component's weight (3D
    texture, a third component as a fine offset), the diagonal's second component, cube
    gradients that cross a face edge, and the gradients of sizes that are not powers of two."""
    fam = "gradfit3"
    d3 = desc("f32", 1, (64, 64, 64), 7, mipfilter="linear")
    u = 2.0 ** -7  # the last bit of 5.0 truncated to 9 bits
    ys = [4 * u * i / 256 for i in range(1025)]
    add("gfit3.k1.y", fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(ys),
        grads=[((5.0 / 64, 0.0, y / 64), (0.0, 0.0, 0.0)) for y in ys])
    for k in range(7):
        g = []
        for m in range(0, 512, 8):
            x = (512 + m) / 512 * 4.0 * 2.0 ** -k
            g += [((5.0 / 64, x / 64, (4 * u * i / 64) / 64), (0.0, 0.0, 0.0)) for i in range(257)]
        add("gfit3.k1.b%d" % k, fam, d3, "3d", "grad", [(0.3, 0.6, 0.45)] * len(g), grads=g)
    sq = desc("f32", 1, (256, 256), 9, mipfilter="linear")
    t = 256.0
    for ms in [529, 557, 635, 699, 719, 748, 826, 862, 977, 998]:
        a = ms * 2.0 ** -8
        xs = [ms * u * i / (8 * ms) for i in range(8 * ms)]
        add("gfit3.diag.m%d" % ms, fam, sq, "2d", "grad", [(0.3, 0.6)] * len(xs),
            grads=[((a / t, x / t), (a / t, 0.0)) for x in xs])
    cu = desc("f32", 1, (64, 64), 7, mipfilter="linear", cube=True)
    ts = [0.3 * i / 1024 for i in range(1024)]
    for name, p, axis in [("y", (1.0, 0.9, 0.3), 1), ("z", (1.0, 0.9, 0.3), 2),
                          ("ny", (-1.0, 0.9, 0.3), 1), ("nz", (-1.0, 0.3, 0.9), 2)]:
        g = []
        for tt in ts:
            v = [0.0, 0.0, 0.0]
            v[axis] = tt
            g.append((tuple(v), (0.0, 0.0, 0.0)))
        add("gfit3.cube.%s" % name, fam, cu, "cube", "grad", [p] * len(ts), grads=g)
    gs = [2 ** (-11 + i / 256) for i in range(11 * 256)]
    for w in [37, 100, 255]:
        d1 = desc("f32", 1, (w,), int(math.log2(w)) + 1, mipfilter="linear")
        add("gfit3.npot.%d" % w, fam, d1, "1d", "grad", [(0.3,)] * len(gs),
            grads=[((g,), (0.0,)) for g in gs])
    d2 = desc("f32", 1, (100, 37), 7, mipfilter="linear")
    ang = [2 * math.pi * i / 2048 for i in range(2048)]
    add("gfit3.npot.angle", fam, d2, "2d", "grad", [(0.3, 0.6)] * len(ang),
        grads=[((0.05 * math.cos(a), 0.05 * math.sin(a)), (0.0, 0.0)) for a in ang])


def mipint():
    """`tex.level` with integer coordinates: which level, and the lod operand's type."""
    fam = "mipint"
    d = desc("f32", 1, (16, 16), 5)
    texels = level_index_texels(d)
    for lodty in ["f32", "s32"]:
        body = "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\nmov.b32 %f3, %r3;\n"
        lod = "%f3" if lodty == "f32" else "%r3"
        body += "tex.level.2d.v4.f32.s32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %r1}], " + lod + ";\n"
        body += "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n"
        w = []
        for x, y, l in [(1, 1, 0), (1, 1, 1), (1, 1, 2), (1, 1, 3), (1, 1, 4), (1, 1, 9),
                        (12, 3, 1), (15, 15, 2), (3, 3, -1)]:
            lw = f32(float(l)) if lodty == "f32" else l & 0xFFFFFFFF
            w += [x, y, 0, lw]
        for x, y, l in [(1, 1, 1.5), (1, 1, 0.5), (1, 1, 2.75)]:
            w += [x, y, 0, f32(l)]
        case("mipint.level.%s" % lodty, fam, kernel(body, ntex=1), 4 * (len(w) // 4),
             ("f32", texels), w, textures=[d])
    # Random texels: are the coordinates the level's, and addressed or out of range?
    for addr in ["clamp", "border"]:
        d = desc("f32", 1, (16, 16), 5, addr=addr, border=[99.0, 0, 0, 0])
        texels = random_texels(d)
        w = []
        for x, y, lv in [(3, 5, 0), (3, 5, 1), (3, 5, 2), (7, 7, 1), (9, 2, 1), (8, 0, 1),
                         (16, 3, 0), (-1, 0, 0), (0, -1, 2), (3, 3, 4), (1, 0, 4), (0, 0, 4),
                         (5, 1, 3), (2, 1, 3), (100, 100, 2), (15, 15, 0)]:
            w += [x & 0xFFFFFFFF, y & 0xFFFFFFFF, 0, lv & 0xFFFFFFFF]
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                "tex.level.2d.v4.f32.s32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %r1}], %r3;\n"
                "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
        case("mipint.rand.%s" % addr, fam, kernel(body, ntex=1), 4 * (len(w) // 4),
             ("f32", texels), w, textures=[d])
        for form in ["", ".base"]:
            body2 = body.replace("tex.level.2d", "tex%s.2d" % form).replace("}], %r3;", "}];")
            case("mipint.plain%s.%s" % (form, addr), fam, kernel(body2, ntex=1),
                 4 * (len(w) // 4), ("f32", texels), w, textures=[d])


def mipmap():
    """Random mipmapped textures: real content, filtering inside and between levels."""
    fam = "mipmap"
    configs = [
        ("f32.1d", "f32", 1, "element", "1d", (37,), 6, "linear", "linear", "clamp", {}),
        ("f32x4.2d.wrap", "f32", 4, "element", "2d", (20, 13), 5, "linear", "linear", "wrap", {}),
        ("u8x4.2d", "u8", 4, "normalized", "2d", (16, 16), 5, "linear", "linear", "clamp", {}),
        ("u8.2d.border", "u8", 1, "normalized", "2d", (33, 7), 6, "point", "linear", "border",
         {"border": [0.25, 0.5, 0.75, 1.0]}),
        ("f16x2.2d.mirror", "f16", 2, "element", "2d", (12, 12), 4, "linear", "point", "mirror",
         {}),
        ("s16.3d", "s16", 1, "normalized", "3d", (8, 6, 5), 4, "linear", "linear", "clamp", {}),
        ("u32.2d.point", "u32", 1, "element", "2d", (16, 8), 5, "point", "point", "clamp", {}),
        ("f32.a2d", "f32", 1, "element", "a2d", (16, 16), 5, "linear", "linear", "clamp",
         {"layers": 3}),
        ("f32.cube", "f32", 1, "element", "cube", (8, 8), 4, "linear", "linear", "clamp",
         {"cube": True}),
        ("f32.2d.biased", "f32", 1, "element", "2d", (64, 64), 7, "linear", "linear", "clamp",
         {"lodbias": 0.5, "minlod": 1.0, "maxlod": 4.0}),
        ("f32.2d.unnorm", "f32", 1, "element", "2d", (16, 16), 5, "linear", "linear", "clamp",
         {"norm": False}),
        ("u8x4.2d.aniso", "u8", 4, "normalized", "2d", (64, 32), 7, "linear", "linear", "wrap",
         {"aniso": 8}),
    ]
    for name, ty, ch, read, geom, dims, levels, filt, mf, addr, kw in configs:
        kw = dict(kw)
        norm = kw.pop("norm", True)
        d = desc(ty, ch, dims, levels, filt=filt, mipfilter=mf, addr=addr, read=read, norm=norm,
                 **kw)
        texels = random_texels(d)
        dtype = "u32" if (ty == "u32" and read == "element") else "f32"
        n = 128
        scale = 1.0 if norm else float(dims[0])

        def coord():
            c = [RNG.uniform(-0.2, 1.2) * scale for _ in range(3)]
            if geom in ("a2d", "a1d"):
                c[2] = RNG.randrange(0, 4)
            if geom == "cube":
                c = [RNG.uniform(-1, 1) for _ in range(3)]
                c[RNG.randrange(3)] = RNG.choice([-1.5, 1.5])
            return c

        coords = [coord() for _ in range(n)]
        lods = [RNG.uniform(-1, levels + 1) for _ in range(n)]
        lods[:6] = [0.0, 0.5, 1.0, 1.5, float(levels), -0.5]
        add("mipmap.level.%s" % name, fam, d, geom, "level", coords, lods=lods, texels=texels,
            dtype=dtype)
        gdim = {"1d": 1, "a1d": 1, "2d": 2, "a2d": 2, "3d": 3, "cube": 3}[geom]
        gs = []
        for _ in range(n):
            g = [2 ** RNG.uniform(-9, 1) * RNG.choice([-1, 1]) * scale for _ in range(2 * gdim)]
            gs.append((tuple(g[:gdim]), tuple(g[gdim:])))
        add("mipmap.grad.%s" % name, fam, d, geom, "grad", coords, grads=gs, texels=texels,
            dtype=dtype)


def impulse_texels(d):
    """f32 texels, four channels: channel `k` is 1 at the centre texel of level `k` (k < 4) and 0
    elsewhere, so a fetch answers the weight the hardware gave each of those four texels."""
    assert d["type"] == "f32" and d["channels"] == 4
    out = []
    for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
        lv = [0] * (4 * w * h * dd)
        if k < 4:
            lv[4 * ((h // 2) * w + w // 2) + k] = f32(1.0)
        out += lv
    return out


def impulse_case(name, fam, d, gx, gy, phase, span, form="grad"):
    """A fetch at the centre texel of level 0 plus `phase` and every integer shift in
    `[-span, span]^2`, gradients `gx`, `gy` in level-0 texels: the footprint, one tap weight
    per shift and level."""
    w, h = d["dims"]
    coords = [((w // 2 + phase[0] + i) / w, (h // 2 + phase[1] + j) / h)
              for j in range(-span, span + 1) for i in range(-span, span + 1)]
    g = ((gx[0] / w, gx[1] / h), (gy[0] / w, gy[1] / h))
    add(name, fam, d, "2d", form, coords, grads=[g] * len(coords),
        texels=impulse_texels(d))


def anisoprobe():
    """Anisotropic filtering (`maxAnisotropy` > 1) of `tex.grad`: the level of detail it uses
    (sweeps of the two gradients' ratio, angle and length over textures whose level `k` holds
    `k`), and the footprint (impulse textures, every integer shift of the coordinate)."""
    fam = "anisoprobe"
    t = 256.0
    for filt in ["linear", "point"]:
        for a in ([0, 2, 3, 4, 5, 8, 16] if filt == "linear" else [16]):
            d = desc("f32", 1, (256, 256), 9, filt=filt, mipfilter="linear", aniso=a)
            tag = "%s.a%d" % (filt, a)
            minor = [8 * 2 ** (-i / 64) for i in range(449)]
            add("ap.ratio.x.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(minor),
                grads=[((8 / t, 0.0), (0.0, b / t)) for b in minor])
            if filt == "point":
                continue
            add("ap.ratio.y.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(minor),
                grads=[((b / t, 0.0), (0.0, 8 / t)) for b in minor])
            c, s = math.cos(0.5236), math.sin(0.5236)
            add("ap.ratio.r30.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(minor),
                grads=[((8 * c / t, 8 * s / t), (-b * s / t, b * c / t)) for b in minor])
            major = [2 * 2 ** (i / 64) for i in range(449)]
            add("ap.major.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(major),
                grads=[((m / t, 0.0), (0.0, 2 / t)) for m in major])
            ang = [2 * math.pi * i / 1024 for i in range(1024)]
            add("ap.angle.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(ang),
                grads=[((8 * math.cos(q) / t, 8 * math.sin(q) / t),
                        (-math.sin(q) / t, math.cos(q) / t)) for q in ang])
            ks = [i / 256 for i in range(513)]
            add("ap.skew.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(ks),
                grads=[((8 / t, 0.0), (8 * k / t, 1 / t)) for k in ks])

            def rg():
                v = 2 ** RNG.uniform(-10, 0) * RNG.choice([-1, 1])
                return v if RNG.random() > 0.1 else 0.0

            rand = [((rg(), rg()), (rg(), rg())) for _ in range(2048)]
            add("ap.rand.%s" % tag, fam, d, "2d", "grad", [(0.3, 0.6)] * len(rand), grads=rand)
    # Footprints at level 0 (minor axis 1 texel) and across levels.
    cfgs = []
    for r in [1, 1.5, 2, 3, 4, 5, 6, 8, 11, 16, 24]:
        cfgs.append(("x%g" % r, 16, "linear", "linear", (r, 0.0), (0.0, 1.0)))
    for a in [2, 3, 4, 8]:
        cfgs.append(("x16.a%d" % a, a, "linear", "linear", (16.0, 0.0), (0.0, 1.0)))
    for deg in [30, 45, 60, 90, 135]:
        q = math.radians(deg)
        cfgs.append(("r%d" % deg, 16, "linear", "linear", (8 * math.cos(q), 8 * math.sin(q)),
                     (-math.sin(q), math.cos(q))))
    cfgs += [("skew", 16, "linear", "linear", (8.0, 0.0), (4.0, 1.0)),
             ("ydx", 16, "linear", "linear", (1.0, 0.0), (0.0, 8.0)),
             ("x6m1.5", 16, "linear", "linear", (6.0, 0.0), (0.0, 1.5)),
             ("x12m3", 16, "linear", "linear", (12.0, 0.0), (0.0, 3.0)),
             ("x6m1.5.mpoint", 16, "linear", "point", (6.0, 0.0), (0.0, 1.5)),
             ("x8.fpoint", 16, "point", "linear", (8.0, 0.0), (0.0, 1.0)),
             ("x8.iso", 0, "linear", "linear", (8.0, 0.0), (0.0, 1.0))]
    for name, a, filt, mf, gx, gy in cfgs:
        d = desc("f32", 4, (64, 64), 7, filt=filt, mipfilter=mf, aniso=a)
        for pi, ph in enumerate([(0.3, 0.6), (0.71, 0.18)]):
            impulse_case("ap.imp.%s.p%d" % (name, pi), fam, d, gx, gy, ph, 24)


def aniso_grad(w, h):
    """A random gradient pair of a 2D texture of `w` x `h` texels (normalized): a footprint of
    random orientation, major axis 2^-1..2^5 texels, ratio 1..32, the minor axis skewed a
    little off the perpendicular."""
    q = RNG.uniform(0, 2 * math.pi)
    major = 2 ** RNG.uniform(-1, 5)
    minor = major / 2 ** RNG.uniform(0, 5)
    sk = RNG.uniform(-0.3, 0.3)
    gx = (major * math.cos(q), major * math.sin(q))
    gy = (minor * (-math.sin(q) + sk * math.cos(q)), minor * (math.cos(q) + sk * math.sin(q)))
    if RNG.random() < 0.5:
        gx, gy = gy, gx
    return ((gx[0] / w, gx[1] / h), (gy[0] / w, gy[1] / h))


def aniso():
    """Random anisotropic fetches (`maxAnisotropy` 2 to 16) for the corpus: random textures,
    coordinates and gradient pairs of every orientation and ratio, through `tex.grad`,
    `tex.level` and `tex`; the level of detail alone (level `k` holds `k`); footprints of
    impulse textures."""
    fam = "aniso"
    configs = [
        ("u8x4.wrap", "u8", 4, "normalized", (64, 32), 7, "linear", "linear", "wrap"),
        ("f32", "f32", 1, "element", (64, 64), 7, "linear", "linear", "clamp"),
        ("f32.mpoint", "f32", 1, "element", (64, 64), 7, "linear", "point", "clamp"),
        ("f32.fpoint", "f32", 1, "element", (64, 64), 7, "point", "linear", "clamp"),
        ("f16x2.npot", "f16", 2, "element", (48, 20), 6, "linear", "linear", "clamp"),
    ]

    for name, ty, ch, read, dims, levels, filt, mf, addr in configs:
        for a in [2, 4, 16] + ([8] if ty == "u8" else []):
            d = desc(ty, ch, dims, levels, filt=filt, mipfilter=mf, addr=addr, read=read, aniso=a)
            texels = random_texels(d)
            dtype = "f32"
            n = 256
            coords = [(RNG.uniform(-0.1, 1.1), RNG.uniform(-0.1, 1.1)) for _ in range(n)]
            gs = [aniso_grad(*dims) for _ in range(n)]
            add("aniso.grad#%s.a%d" % (name, a), fam, d, "2d", "grad", coords, grads=gs,
                texels=texels, dtype=dtype)
            if name in ("u8x4.wrap", "f32"):
                lods = [RNG.uniform(-1, levels + 1) for _ in range(128)]
                add("aniso.level.%s.a%d" % (name, a), fam, d, "2d", "level", coords[:128],
                    lods=lods, texels=texels, dtype=dtype)
                add("aniso.plain.%s.a%d" % (name, a), fam, d, "2d", "", coords[:128],
                    texels=texels, dtype=dtype)
    for a in [2, 4, 8, 16]:
        d = desc("f32", 1, (64, 64), 7, filt="linear", mipfilter="linear", aniso=a)
        gs = [aniso_grad(64, 64) for _ in range(1024)]
        add("aniso.lod#a%d" % a, fam, d, "2d", "grad", [(0.3, 0.6)] * len(gs), grads=gs)
    for name, a, gx, gy in [("x6", 16, (6.0, 0.0), (0.0, 1.0)), ("r30", 8, (6.9, 4.0), (-0.5, 0.87)),
                            ("x6m1.5", 16, (6.0, 0.0), (0.0, 1.5)), ("x16.a4", 4, (16.0, 0.0), (0.0, 1.0))]:
        d = desc("f32", 4, (32, 32), 6, filt="linear", mipfilter="linear", aniso=a)
        impulse_case("aniso.imp#%s" % name, fam, d, gx, gy, (0.3, 0.6), 12)


def anisoprobe2():
    """Second round for anisotropic filtering: footprints over a dense sweep of the ratio (one
    row of shifts, the major axis along x), over the major axis's direction, and between two
    levels; the level of detail with the bias and clamps and without the trilinear
    optimisation."""
    fam = "anisoprobe2"
    d = desc("f32", 4, (64, 64), 7, filt="linear", mipfilter="linear", aniso=16)
    tex = impulse_texels(d)

    def row(ratios, minor, phase, span=24):
        coords, grads = [], []
        for r in ratios:
            for i in range(-span, span + 1):
                coords.append(((32 + phase[0] + i) / 64, (32 + phase[1]) / 64))
                grads.append(((r * minor / 64, 0.0), (0.0, minor / 64)))
        return coords, grads

    ratios = [1 + i / 32 for i in range(17 * 32 + 1)]
    for pi, ph in enumerate([(0.3, 0.6), (0.71, 0.18)]):
        c, g = row(ratios, 1.0, ph)
        add("ap2.row.m1.p%d" % pi, fam, d, "2d", "grad", c, grads=g, texels=tex)
    c, g = row([1 + i / 8 for i in range(8 * 8 + 1)], 1.5, (0.3, 0.6))
    add("ap2.row.m1.5", fam, d, "2d", "grad", c, grads=g, texels=tex)
    c, g = row([1 + i / 8 for i in range(8 * 8 + 1)], 0.5, (0.3, 0.6))
    add("ap2.row.m0.5", fam, d, "2d", "grad", c, grads=g, texels=tex)
    for a in [2, 4, 8]:
        da = desc("f32", 4, (64, 64), 7, filt="linear", mipfilter="linear", aniso=a)
        c, g = row([1 + i / 8 for i in range(8 * 12 + 1)], 1.0, (0.3, 0.6))
        add("ap2.row.m1.a%d" % a, fam, da, "2d", "grad", c, grads=g, texels=impulse_texels(da))
    # The major axis's direction: 2D windows, every 1/32 turn, ratios 3, 4 and 6.5.
    span = 10
    for r in [3.0, 4.0, 6.5]:
        coords, grads = [], []
        for k in range(32):
            q = 2 * math.pi * k / 32
            for j in range(-span, span + 1):
                for i in range(-span, span + 1):
                    coords.append(((32.3 + i) / 64, (32.6 + j) / 64))
                    grads.append(((r * math.cos(q) / 64, r * math.sin(q) / 64),
                                  (-math.sin(q) / 64, math.cos(q) / 64)))
        add("ap2.angle.r%g" % r, fam, d, "2d", "grad", coords, grads=grads, texels=tex)
    # Level of detail: bias and clamps, and the trilinear optimisation switched off.
    t = 256.0
    minor = [8 * 2 ** (-i / 64) for i in range(449)]
    for tag, kw in [("noopt", {"trilinopt": False}), ("bias", dict(lodbias=0.4)),
                    ("negbias", dict(lodbias=-1.3)), ("clamp", dict(minlod=1.3, maxlod=2.6)),
                    ("point", dict(mipfilter="point"))]:
        kw = dict(kw)
        mf = kw.pop("mipfilter", "linear")
        for a in [4, 16]:
            dl = desc("f32", 1, (256, 256), 9, filt="linear", mipfilter=mf, aniso=a, **kw)
            add("ap2.lod.%s.a%d" % (tag, a), fam, dl, "2d", "grad", [(0.3, 0.6)] * len(minor),
                grads=[((8 / t, 0.0), (0.0, b / t)) for b in minor])
    dn = desc("f32", 4, (64, 64), 7, filt="linear", mipfilter="linear", aniso=16, trilinopt=False)
    c, g = row([1 + i / 8 for i in range(8 * 8 + 1)], 1.5, (0.3, 0.6))
    add("ap2.row.m1.5.noopt", fam, dn, "2d", "grad", c, grads=g, texels=impulse_texels(dn))
    # tex.level and tex on the impulse texture: one tap, or a footprint?
    for form in ["level", ""]:
        coords = [((32.3 + i) / 64, (32.6 + j) / 64) for j in range(-3, 4) for i in range(-3, 4)]
        add("ap2.form.%s" % (form or "plain"), fam, d, "2d", form, coords,
            lods=[0.5] * len(coords), texels=tex)


def anisoprobe3():
    """Third round: footprint rows at sixteen sub-texel phases (to pin each tap's position and
    weight), a rotated footprint at four phases, and the level of detail of `tex.grad` and
    `tex.level` with a bias at maxAnisotropy 2 and 4."""
    fam = "anisoprobe3"
    d = desc("f32", 4, (64, 64), 7, filt="linear", mipfilter="linear", aniso=16)
    tex = impulse_texels(d)
    ratios = [1 + i / 16 for i in range(16 * 16 + 1)]
    for k in range(16):
        px = k / 16 + 1 / 64
        coords, grads = [], []
        for r in ratios:
            for i in range(-24, 25):
                coords.append(((32 + px + i) / 64, 32.6 / 64))
                grads.append(((r / 64, 0.0), (0.0, 1 / 64)))
        add("ap3.row.ph%d" % k, fam, d, "2d", "grad", coords, grads=grads, texels=tex)
    span = 8
    for k, (px, py) in enumerate([(0.0625, 0.1875), (0.3125, 0.4375), (0.5625, 0.6875),
                                  (0.8125, 0.9375)]):
        coords, grads = [], []
        for a in range(32):
            q = 2 * math.pi * a / 32
            for j in range(-span, span + 1):
                for i in range(-span, span + 1):
                    coords.append(((32 + px + i) / 64, (32 + py + j) / 64))
                    grads.append(((3 * math.cos(q) / 64, 3 * math.sin(q) / 64),
                                  (-math.sin(q) / 64, math.cos(q) / 64)))
        add("ap3.angle.r3.ph%d" % k, fam, d, "2d", "grad", coords, grads=grads, texels=tex)
    t = 256.0
    minor = [8 * 2 ** (-i / 64) for i in range(449)]
    lods = [-1 + i / 64 for i in range(9 * 64 + 1)]
    for a in [2, 4, 16]:
        for b in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, -0.25, -1.3]:
            dl = desc("f32", 1, (256, 256), 9, filt="linear", mipfilter="linear", aniso=a,
                      lodbias=b)
            if a != 16:
                add("ap3.grad.a%d.b%g" % (a, b), fam, dl, "2d", "grad",
                    [(0.3, 0.6)] * len(minor), grads=[((8 / t, 0.0), (0.0, m / t)) for m in minor])
            add("ap3.level.a%d.b%g" % (a, b), fam, dl, "2d", "level", [(0.3, 0.6)] * len(lods),
                lods=lods)


def point_map(name, fam, d, gx, gy, rx, ry, per=32, tex=None):
    """Point texel filtering over a fine 2D grid (steps of `1/per` texel, `rx`, `ry` texels
    either side of the impulse texel's centre): each tap reads one texel at its weight, so the
    map is a sum of unit squares, one per tap, whose corners are the taps' positions."""
    w, h = d["dims"]
    coords = [((w // 2 + 0.5 + i / per) / w, (h // 2 + 0.5 + j / per) / h)
              for j in range(-ry * per, ry * per) for i in range(-rx * per, rx * per)]
    g = ((gx[0] / w, gx[1] / h), (gy[0] / w, gy[1] / h))
    add(name, fam, d, "2d", "grad", coords, grads=[g] * len(coords),
        texels=tex if tex is not None else impulse_texels(d))


def anisoprobe4():
    """Fourth round: the taps' positions for rotated, skewed, two-level and clamped footprints
    (point texel filtering over fine grids of the coordinate, impulse textures), and how the
    weighted taps of `f32`, `f16` and `u8` texels are rounded (axis-aligned footprints of known
    taps over random texels)."""
    fam = "anisoprobe4"
    dp = desc("f32", 4, (64, 64), 7, filt="point", mipfilter="linear", aniso=16)
    tex = impulse_texels(dp)
    for k in [0, 1, 2, 3, 4]:
        q = 2 * math.pi * k / 32
        point_map("ap4.pt.r3.q%d" % k, fam, dp, (3 * math.cos(q), 3 * math.sin(q)),
                  (-math.sin(q), math.cos(q)), 3, 3, tex=tex)
    q = 2 * math.pi / 32
    point_map("ap4.pt.r6.5.q1", fam, dp, (6.5 * math.cos(q), 6.5 * math.sin(q)),
              (-math.sin(q), math.cos(q)), 5, 3, tex=tex)
    point_map("ap4.pt.skew", fam, dp, (3.0, 0.0), (0.6, 1.0), 3, 2, tex=tex)
    point_map("ap4.pt.m1.5", fam, dp, (4.5, 0.0), (0.0, 1.5), 5, 2, tex=tex)
    point_map("ap4.pt.m1.5.q3", fam, dp, (4.5 * math.cos(3 * q), 4.5 * math.sin(3 * q)),
              (-1.5 * math.sin(3 * q), 1.5 * math.cos(3 * q)), 5, 5, tex=tex)
    point_map("ap4.pt.r24", fam, dp, (24.0, 0.0), (0.0, 1.0), 16, 1, tex=tex)
    point_map("ap4.pt.r5.5", fam, dp, (5.5, 0.0), (0.0, 1.0), 4, 1, tex=tex)
    # Value rounding: taps along x, minor axis one texel (level 0 alone), random texels and
    # coordinates, ratios 1 to 16.
    for tag, ty, ch, read in [("f32", "f32", 1, "element"), ("f16", "f16", 2, "element"),
                              ("u8", "u8", 4, "normalized"), ("s8", "s8", 2, "normalized")]:
        for m in [1.0, 1.5]:
            d = desc(ty, ch, (64, 64), 7, filt="linear", mipfilter="linear", read=read, aniso=16)
            texels = random_texels(d)
            n = 2048
            coords = [(RNG.uniform(0.2, 0.8), RNG.uniform(0.2, 0.8)) for _ in range(n)]
            gs = []
            for _ in range(n):
                r = RNG.uniform(1, 16)
                gs.append(((r * m / 64, 0.0), (0.0, m / 64)))
            add("ap4.val.%s.m%g" % (tag, m), fam, d, "2d", "grad", coords, grads=gs,
                texels=texels)


OGL_HEADER = ".version 8.7\n.target sm_90, texmode_independent\n.address_size 64\n"


def seamless_dirs(n, size):
    """Cube directions mostly within two texels of a face edge or corner: a face, then face
    coordinates (s, t) in [-1, 1] of which one or both lie near +-1."""
    faces = [lambda s, t: (1.0, -t, -s), lambda s, t: (-1.0, -t, s), lambda s, t: (s, 1.0, t),
             lambda s, t: (s, -1.0, -t), lambda s, t: (s, -t, 1.0), lambda s, t: (-s, -t, -1.0)]
    out = []
    for i in range(n):
        near = lambda: RNG.choice([-1, 1]) * (1 - RNG.uniform(0, 2.5 / size))
        s, t = RNG.uniform(-1, 1), RNG.uniform(-1, 1)
        k = i % 4
        if k == 0:
            s = near()
        elif k == 1:
            t = near()
        elif k == 2:
            s, t = near(), near()
        # k == 3: anywhere (the face interiors, as a control)
        m = 2 ** RNG.uniform(-2, 3)
        out.append(tuple(m * c for c in faces[RNG.randrange(6)](s, t)))
    return out


def seamless():
    """Seamless cube maps (`CU_TRSF_SEAMLESS_CUBEMAP`): linear filtering across face edges and
    at corners, beside the same directions without it."""
    fam = "seamless"
    for tag, ty, read, size, levels in [("f32", "f32", "element", 8, 1),
                                        ("u8", "u8", "normalized", 8, 1),
                                        ("f16.mip", "f16", "element", 16, 5)]:
        for on in [True, False]:
            d = desc(ty, 1, (size, size), levels, filt="linear", read=read, cube=True,
                     mipfilter="linear")
            if on:
                d["seamless"] = True
            dirs = seamless_dirs(4096, size)
            lods = [0.0] * len(dirs) if levels == 1 else \
                [RNG.choice([0.0, 1.0, 2.0, 3.0, 4.0, RNG.uniform(0, 4)]) for _ in dirs]
            add("seamless.%s.%s" % (tag, "on" if on else "off"), fam, d, "cube", "level",
                dirs, lods, texels=random_texels(d))
    # A layered cube map: the layer's faces only.
    d = desc("f32", 1, (8, 8), 1, filt="linear", cube=True, layers=3, seamless=True)
    dirs = seamless_dirs(2048, 8)
    # Word 3 is the layer (an integer) for `tex.acube`.
    add("seamless.acube", fam, d, "acube", "", dirs, [RNG.randrange(3) for _ in dirs],
        texels=random_texels(d))


def cube_neighbor(face, n, i, j):
    """The texel of the adjacent face that texel (i, j), one texel past an edge of `face`,
    stands for in a seamless cube map (interp/src/texture.rs `cube_neighbor`); None past a
    corner."""
    out = lambda k: not 0 <= k < n
    if out(i) and out(j):
        return None
    if not out(i) and not out(j):
        return (face, i, j)
    u, v = 2 * i + 1 - n, 2 * j + 1 - n
    p = {0: [n, -v, -u], 1: [-n, -v, u], 2: [u, n, v], 3: [u, -n, -v], 4: [u, -v, n],
         5: [-u, -v, -n]}[face]
    m = face // 2
    p[m] -= 1 if p[m] > 0 else -1
    if abs(p[2]) == n + 1:
        nf, sc, tc = (4, p[0], -p[1]) if p[2] > 0 else (5, -p[0], -p[1])
    elif abs(p[1]) == n + 1:
        nf, sc, tc = (2, p[0], p[2]) if p[1] > 0 else (3, p[0], -p[2])
    else:
        nf, sc, tc = (0, -p[2], -p[1]) if p[0] > 0 else (1, p[2], -p[1])
    return (nf, (sc + n - 1) // 2, (tc + n - 1) // 2)


def seamcorner():
    """The weights of a seamless cube map's corner footprint: f32 RGBA texels, red one-hot at
    the face's corner texel, green at the texel across the s edge, blue across the t edge,
    alpha 1 everywhere; face +z sampled on a 64 x 64 grid of exact filter fractions around
    two of its corners, where one footprint texel lies past the cube's corner."""
    fam = "seamcorner"
    n = 8
    d = desc("f32", 4, (n, n), 1, filt="linear", cube=True, seamless=True)
    for tag, (ci, cj) in [("lo", (0, 0)), ("hi", (n - 1, n - 1))]:
        di, dj = (-1, -1) if tag == "lo" else (1, 1)
        texels = [0] * (6 * n * n * 4)
        for ch, (i, j) in enumerate([(ci, cj), (ci + di, cj), (ci, cj + dj)]):
            f, a, b = cube_neighbor(4, n, i, j)
            texels[((f * n + b) * n + a) * 4 + ch] = f32(1.0)
        for k in range(6 * n * n):
            texels[k * 4 + 3] = f32(1.0)
        dirs = []
        for a in range(64):
            for b in range(64):
                # Filter positions q/256 texels past the texel centre grid: fractions 128..255
                # below the corner centre ("lo"), 0..127 above it ("hi").
                qa = (-128 + 2 * a) if tag == "lo" else (n - 1) * 256 + 2 * a
                qb = (-128 + 2 * b) if tag == "lo" else (n - 1) * 256 + 2 * b
                s, t = (qa / 256 + 0.5) / n, (qb / 256 + 0.5) / n
                dirs.append((2 * s - 1, -(2 * t - 1), 1.0))
        add("seamcorner.%s" % tag, fam, d, "cube", "level", dirs, texels=texels)


def seamtld4():
    """`tld4` (gather) on seamless and plain cube maps: the four texels of the footprint past
    edges and corners."""
    fam = "seamtld4"
    for on in [True, False]:
        d = desc("f32", 4, (8, 8), 1, filt="linear", cube=True)
        if on:
            d["seamless"] = True
        dirs = seamless_dirs(2048, 8)
        for comp in "rgba":
            k = mip_kernel("cube", "level").replace(
                "tex.level.cube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%f0, %f1, %f2, %f2}], %f3;",
                "tld4.%s.cube.v4.f32.f32 {%%r4, %%r5, %%r6, %%r7}, [%%t0, {%%f0, %%f1, %%f2, %%f2}];"
                % comp)
            assert "tld4" in k
            case("seamtld4.%s.%s" % ("on" if on else "off", comp), fam, k, 4 * len(dirs),
                 (d["type"], random_texels(d)), words(dirs, [0.0] * len(dirs)), textures=[d],
                 extra=("u32", grad_words([((0.0,), (0.0,))] * len(dirs))))


def corner_dirs(n, size):
    """Cube directions whose bilinear footprint crosses a corner of the cube: a face, then face
    coordinates (s, t) both within half a texel of the face's edges."""
    faces = [lambda s, t: (1.0, -t, -s), lambda s, t: (-1.0, -t, s), lambda s, t: (s, 1.0, t),
             lambda s, t: (s, -1.0, -t), lambda s, t: (s, -t, 1.0), lambda s, t: (-s, -t, -1.0)]
    out = []
    for i in range(n):
        near = lambda: RNG.choice([-1, 1]) * (1 - RNG.uniform(1e-4, 1 - 1e-4) / size)
        m = 2 ** RNG.uniform(-2, 3)
        out.append(tuple(m * c for c in faces[i % 6](near(), near())))
    return out


def tld4_kernel(comp, dtype):
    k = mip_kernel("cube", "level").replace(
        "tex.level.cube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%f0, %f1, %f2, %f2}], %f3;",
        "tld4.%s.cube.v4.%s.f32 {%%r4, %%r5, %%r6, %%r7}, [%%t0, {%%f0, %%f1, %%f2, %%f2}];"
        % (comp, dtype))
    assert "tld4" in k
    return k


def seamtld4int():
    """`tld4` on seamless cube maps of integer texels read as integers (and, as controls, a
    point-filtered f32 map): footprints that cross a corner of the cube, where no face has the
    fourth texel, and footprints near edges."""
    fam = "seamtld4int"
    n = 8
    for tag, ty, ch, dtype, gen in [
            ("u32x4.rand", "u32", 4, "u32", lambda: RNG.getrandbits(32)),
            ("u32x4.small", "u32", 4, "u32", lambda: RNG.randrange(1024)),
            ("s32x4.small", "s32", 4, "s32", lambda: RNG.randrange(-1000, 1000) & 0xFFFFFFFF),
            ("u8x4", "u8", 4, "u32", lambda: RNG.getrandbits(8)),
            ("s16x2", "s16", 2, "s32", lambda: RNG.getrandbits(16)),
            ("f32x4.point", "f32", 4, "f32", lambda: f32(RNG.uniform(-4, 4)))]:
        d = desc(ty, ch, (n, n), 1, filt="point", cube=True, seamless=True)
        texels = [gen() for _ in range(6 * n * n * ch)]
        dirs = corner_dirs(768, n) + seamless_dirs(256, n)
        for comp in "rgba"[:ch] if ch > 1 else "r":
            case("seamtld4int.%s.%s" % (tag, comp), fam, tld4_kernel(comp, dtype),
                 4 * len(dirs), (ty, texels), words(dirs, [0.0] * len(dirs)), textures=[d],
                 extra=("u32", grad_words([((0.0,), (0.0,))] * len(dirs))))


def anisoaddr():
    """Anisotropic `tex.grad` with mirrored and border addressing: random textures,
    coordinates (often past the edges) and gradient pairs, as the `aniso` family."""
    fam = "anisoaddr"

    for name, ty, ch, read, dims, filt, border in [
            ("f32", "f32", 1, "element", (64, 64), "linear", [2.5, 0, 0, 0]),
            ("u8x4", "u8", 4, "normalized", (64, 32), "linear", [0.25, 0.5, 0.75, 1.0]),
            ("f32.fpoint", "f32", 1, "element", (64, 64), "point", [2.5, 0, 0, 0])]:
        for addr in ["mirror", "border"]:
            for a in [2, 4, 16]:
                kw = {"border": border} if addr == "border" else {}
                d = desc(ty, ch, dims, 7, filt=filt, mipfilter="linear", addr=addr, read=read,
                         aniso=a, **kw)
                texels = random_texels(d)
                m = 512
                coords = [(RNG.uniform(-0.6, 1.6), RNG.uniform(-0.6, 1.6)) for _ in range(m)]
                gs = [aniso_grad(*dims) for _ in range(m)]
                add("anisoaddr#%s.%s.a%d" % (name, addr, a), fam, d, "2d", "grad", coords,
                    grads=gs, texels=texels)


def aniso16():
    """Anisotropic `tex.grad` (`maxAnisotropy` 2, 4, 16) of the formats whose weighted taps the
    other families leave unmeasured: normalized `u16` and `s16` texels (linear and point texel
    filtering, linear and nearest level filtering, clamped and wrapped), and integer texels
    read as integers (`u8`, `s8`, `u16`, `s16`, `u32`, `s32`; point texel and nearest level
    filtering, the only filtering CUDA allows them). Random textures, coordinates and gradient
    pairs as the `aniso` family, plus textures of two neighbouring values (`.bin`: texels `a`
    or `a + 1`, so that sums fall on and beside rounding boundaries, ties included) and of a
    few extreme values (`.edge`)."""
    fam = "aniso16"

    def texels_of(d, kind):
        n = sum(nb for (_, _, _, nb) in mip_levels(d)) // T.ELEM[d["type"]]
        bits = 8 * T.ELEM[d["type"]]
        signed = d["type"][0] == "s"
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if kind == "rand":
            vals = [RNG.randint(lo, hi) for _ in range(n)]
        elif kind == "small":
            vals = [RNG.randint(-3 if signed else 0, 3) for _ in range(n)]
        elif kind == "bin":
            vals = []
            while len(vals) < n:  # runs of 64 texels share their base `a`
                a = RNG.randint(lo, hi - 1)
                vals += [a + RNG.getrandbits(1) for _ in range(64)]
            vals = vals[:n]
        else:  # edge: the extremes, their neighbours and zero
            pool = [lo, lo + 1, hi, hi - 1, 0, 1, -1 if signed else 2]
            vals = [RNG.choice(pool) for _ in range(n)]
        return [v & ((1 << bits) - 1) for v in vals]

    # Normalized 16-bit texels: every filtering the interpreter models for the other formats.
    for name, ty, kind, filt, mf, addr in [
            ("u16x2", "u16", "rand", "linear", "linear", "clamp"),
            ("s16x2", "s16", "rand", "linear", "linear", "clamp"),
            ("u16x2.bin", "u16", "bin", "linear", "linear", "clamp"),
            ("s16x2.bin", "s16", "bin", "linear", "linear", "clamp"),
            ("s16x2.edge", "s16", "edge", "linear", "linear", "clamp"),
            ("u16x2.edge", "u16", "edge", "linear", "linear", "clamp"),
            ("u16x2.fpoint.bin", "u16", "bin", "point", "linear", "clamp"),
            ("s16x2.fpoint.bin", "s16", "bin", "point", "linear", "clamp"),
            ("u16x2.mpoint", "u16", "rand", "linear", "point", "clamp"),
            ("s16x2.wrap", "s16", "rand", "linear", "linear", "wrap")]:
        for a in [2, 4, 16]:
            d = desc(ty, 2, (64, 64), 7, filt=filt, mipfilter=mf, addr=addr, read="normalized",
                     aniso=a)
            texels = texels_of(d, kind)
            n = 512 if kind == "rand" and mf == "linear" and addr == "clamp" else 256
            coords = [(RNG.uniform(-0.1, 1.1), RNG.uniform(-0.1, 1.1)) for _ in range(n)]
            gs = [aniso_grad(64, 64) for _ in range(n)]
            add("aniso16#%s.a%d" % (name, a), fam, d, "2d", "grad", coords, grads=gs,
                texels=texels)
    # Integer texels read as integers: point texel filtering, nearest level.
    for name, ty, ch, kind in [
            ("u8x4", "u8", 4, "rand"), ("s8x4", "s8", 4, "rand"),
            ("u16x2", "u16", 2, "rand"), ("s16x2", "s16", 2, "rand"),
            ("u32", "u32", 1, "rand"), ("s32", "s32", 1, "rand"),
            ("u32x2.small", "u32", 2, "small"), ("s32x2.small", "s32", 2, "small"),
            ("u8x4.bin", "u8", 4, "bin"), ("s16x2.bin", "s16", 2, "bin"),
            ("u32x2.bin", "u32", 2, "bin"), ("s32x2.bin", "s32", 2, "bin"),
            ("s8x4.edge", "s8", 4, "edge"), ("u32x2.edge", "u32", 2, "edge"),
            ("s32x2.edge", "s32", 2, "edge")]:
        for a in [2, 4, 16]:
            d = desc(ty, ch, (64, 64), 7, filt="point", mipfilter="point", read="element",
                     aniso=a)
            texels = texels_of(d, kind)
            n = 512 if kind == "rand" else 256
            coords = [(RNG.uniform(-0.1, 1.1), RNG.uniform(-0.1, 1.1)) for _ in range(n)]
            gs = [aniso_grad(64, 64) for _ in range(n)]
            add("aniso16#int.%s.a%d" % (name, a), fam, d, "2d", "grad", coords, grads=gs,
                texels=texels, dtype="s32" if ty[0] == "s" else "u32")


def aniso16probe():
    """Probes for `aniso16`: integer texels read as integers under point texel filtering with
    an impulse texel (one texel `V`, the rest 0) over a grid of coordinates, so each fetch is
    one tap's weight times `V` as the unit rounds it; and whether the runtime takes linear
    level filtering of integer texels read as integers."""
    fam = "aniso16probe"
    for name, ty, dtype, v in [("u32.big", "u32", "u32", 0xFFFFFFFF), ("u32.k", "u32", "u32", 1000),
                               ("s32.k", "s32", "s32", -1000), ("u32.3", "u32", "u32", 3),
                               ("s32.3", "s32", "s32", -3), ("u16.k", "u16", "u32", 1000)]:
        d = desc(ty, 1, (64, 64), 7, filt="point", mipfilter="point", read="element", aniso=16)
        tex = []
        for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
            lv = [0] * (w * h)
            if k == 0:
                lv[(h // 2) * w + w // 2] = v & ((1 << (8 * T.ELEM[ty])) - 1)
            tex += lv
        for gname, gx, gy in [("x3", (3.0, 0.0), (0.0, 1.0)), ("x5.5", (5.5, 0.0), (0.0, 1.0)),
                              ("r30x6", (6 * math.cos(0.5236), 6 * math.sin(0.5236)),
                               (-math.sin(0.5236), math.cos(0.5236))),
                              ("x1.5", (1.5, 0.0), (0.0, 1.0))]:
            w, h = d["dims"]
            per = 8
            coords = [((w // 2 + 0.5 + i / per) / w, (h // 2 + 0.5 + j / per) / h)
                      for j in range(-2 * per, 2 * per) for i in range(-4 * per, 4 * per)]
            g = ((gx[0] / w, gx[1] / h), (gy[0] / w, gy[1] / h))
            add("a16p.imp.%s.%s" % (name, gname), fam, d, "2d", "grad", coords,
                grads=[g] * len(coords), texels=tex, dtype=dtype)
    d = desc("u32", 1, (64, 64), 7, filt="point", mipfilter="linear", read="element", aniso=16)
    texels = [RNG.randrange(1000) for _ in range(sum(nb for (_, _, _, nb) in mip_levels(d)) // 4)]
    coords = [(RNG.uniform(0, 1), RNG.uniform(0, 1)) for _ in range(256)]
    add("a16p.mlinear.u32", fam, d, "2d", "grad", coords,
        grads=[((RNG.uniform(-8, 8) / 64, RNG.uniform(-8, 8) / 64),
                (RNG.uniform(-8, 8) / 64, RNG.uniform(-8, 8) / 64)) for _ in range(256)],
        texels=texels, dtype="u32")


def oglprobe():
    """`clamp_ogl` can only be named in a `.samplerref` of an independent-mode module: does the
    driver run one, and what does linear filtering read at the edges?"""
    fam = "oglprobe"
    vals = [f32(float(v)) for v in [10, 20, 30, 40, 50, 60, 70, 80]]
    xs = [-1.0, -0.25, -0.05, 0.0, 0.03, 0.0625, 0.1, 0.5, 0.9, 0.9375, 0.97, 1.0, 1.05, 1.3,
          2.0]
    coords = []
    for x in xs:
        coords += [f32(x), 0, 0, 0]
    for mode in ["clamp_ogl", "clamp_to_edge", "clamp_to_border"]:
        for filt in ["linear", "nearest"]:
            body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\nmov.b32 %f0, %r0;\n"
                    "tex.1d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, smp, {%f0}];\n"
                    "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
            k = kernel(body, ntex=1).replace(T.HEADER, OGL_HEADER, 1)
            k = k.replace(".visible .entry", ".global .samplerref smp = { addr_mode_0 = %s, "
                          "filter_mode = %s };\n.visible .entry" % (mode, filt), 1)
            d = T.tex_desc("f32", 1, (8,), addr="border", filt="linear", norm=True,
                           border=[1000.0, 0.0, 0.0, 0.0])
            case("ogl.%s.%s" % (mode, filt), fam, k, 4 * len(xs), ("f32", vals), coords,
                 textures=[d])
            # The texture as a `.texref` parameter named in the instruction.
            k2 = k.replace(".param .u64 pt0", ".param .texref pt0", 1)
            k2 = k2.replace("  ld.param.u64 %t0, [pt0];\n", "", 1).replace("[%t0, smp", "[pt0, smp")
            case("ogl.texref.%s.%s" % (mode, filt), fam, k2, 4 * len(xs), ("f32", vals), coords,
                 textures=[d])


GEOMS = {"1d": ((256,), 9, {}), "a1d": ((256,), 9, {"layers": 3}),
         "3d": ((32, 32, 32), 6, {}), "a2d": ((64, 64), 7, {"layers": 3}),
         "cube": ((32, 32), 6, {"cube": True}), "acube": ((32, 32), 6, {"cube": True, "layers": 2})}


def geom_kernel(geom, form, dtype="f32"):
    """`mip_kernel` for every geometry: a cube array's layer is the thread's index mod 2 (its
    fourth coordinate word holds the level of detail)."""
    if geom != "acube":
        return mip_kernel(geom, form, dtype)
    body = "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
    body += "".join("mov.b32 %%f%d, %%r%d;\n" % (i, i) for i in range(4))
    body += "and.b32 %r3, %gid, 1;\n"
    body += "mul.wide.u32 %rd2, %gid, 32;\nadd.s64 %rd3, %rc, %rd2;\n"
    body += "ld.global.v4.b32 {%r8, %r9, %r10, %r11}, [%rd3];\n"
    body += "ld.global.v4.b32 {%r12, %r13, %r14, %r15}, [%rd3+16];\n"
    body += "".join("mov.b32 %%f%d, %%r%d;\n" % (i - 4, i) for i in range(8, 16))
    extra = ""
    if form == "level":
        extra = ", %f3"
    elif form == "grad":
        extra = ", {%f4, %f5, %f6, %f7}, {%f8, %f9, %f10, %f11}"
    op = "tex%s.acube.v4.%s.f32" % ("." + form if form else "", dtype)
    body += "%s {%%r4, %%r5, %%r6, %%r7}, [%%t0, %s]%s;\n" % (op, COORDS["acube"], extra)
    body += "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n"
    return kernel(body, ntex=1)


def gadd(name, family, d, geom, form, coords, lods=None, grads=None, texels=None, dtype="f32"):
    n = len(coords)
    lods = lods or [0.0] * n
    grads = grads or [((0.0,), (0.0,))] * n
    pad = -n % 128 if n > 128 else 0
    coords, lods, grads = (list(v) + [v[-1]] * pad for v in (coords, lods, grads))
    n += pad
    texels = texels if texels is not None else level_index_texels(d)
    case(name, family, geom_kernel(geom, form, dtype), 4 * n, (d["type"], texels),
         words(coords, lods), textures=[d], extra=("u32", grad_words(grads)))


def unit3():
    while True:
        v = [RNG.gauss(0, 1) for _ in range(3)]
        n = math.sqrt(sum(a * a for a in v))
        if n > 1e-3:
            return [a / n for a in v]


def geom_grad(geom, dims):
    """A footprint of random orientation and ratio 1..32 (major axis 2^-1..2^5 texels) in the
    geometry's coordinates (normalized; a cube map's in direction units of a face)."""
    major = 2 ** RNG.uniform(-1, 5)
    minor = major / 2 ** RNG.uniform(0, 5)
    if geom in ("1d", "a1d"):
        gx, gy = (major * RNG.choice([-1, 1]),), (minor * RNG.choice([-1, 1]),)
        if RNG.random() < 0.5:
            gx, gy = gy, gx
        return ((gx[0] / dims[0],), (gy[0] / dims[0],))
    if geom in ("2d", "a2d"):
        q = RNG.uniform(0, 2 * math.pi)
        sk = RNG.uniform(-0.3, 0.3)
        gx = (major * math.cos(q), major * math.sin(q))
        gy = (minor * (-math.sin(q) + sk * math.cos(q)), minor * (math.cos(q) + sk * math.sin(q)))
        if RNG.random() < 0.5:
            gx, gy = gy, gx
        return ((gx[0] / dims[0], gx[1] / dims[1]), (gy[0] / dims[0], gy[1] / dims[1]))
    u = unit3()
    v = unit3()
    dot = sum(a * b for a, b in zip(u, v))
    v = [b - dot * a for a, b in zip(u, v)]
    nv = math.sqrt(sum(b * b for b in v)) or 1.0
    v = [b / nv for b in v]
    if geom == "3d":
        gx = [major * a / s for a, s in zip(u, dims)]
        gy = [minor * b / s for b, s in zip(v, dims)]
    else:  # a face spans 2 direction units over `dims[0]` texels (at unit distance)
        gx = [2 * major * a / dims[0] for a in u]
        gy = [2 * minor * b / dims[0] for b in v]
    if RNG.random() < 0.5:
        gx, gy = gy, gx
    return (tuple(gx), tuple(gy))


def geom_coord(geom):
    if geom in ("cube", "acube"):
        c = [RNG.uniform(-1, 1) for _ in range(3)]
        c[RNG.randrange(3)] = RNG.choice([-1.0, 1.0]) * RNG.uniform(1.0, 1.5)
        return c
    c = [RNG.uniform(-0.1, 1.1) for _ in range(3)]
    if geom in ("a1d", "a2d"):
        c[2] = RNG.randrange(0, 3)
    return c


def geom_impulse_texels(d):
    """f32x4: channel `k` is 1 at the centre texel of level `k` (k < 4; layer or face 0 and
    1 of a layered or cube texture alike), 0 elsewhere."""
    out = []
    rank = len(d["dims"])
    for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
        lv = [0] * (4 * w * h * dd)
        if k < 4:
            if rank == 1:
                cells = [(w // 2) + w * p for p in range(dd)]  # every layer
            elif rank == 3:
                cells = [((dd // 2) * h + h // 2) * w + w // 2]
            else:
                cells = [(p * h + h // 2) * w + w // 2 for p in range(dd)]
            for cell in cells:
                lv[4 * cell + k] = f32(1.0)
        out += lv
    return out


def anisogeom():
    """Anisotropic filtering (`maxAnisotropy` 2, 4, 16) of the geometries other than 2D: 1D,
    1D layered, 3D, 2D layered, cube and cube layered. Per geometry and `A`: `tex.level` over
    every 1/64 of the levels and `tex.grad` of random footprints on textures whose level `k`
    holds `k` (the level of detail used), random `f32` textures through `tex.grad`, `tex.level`
    and `tex`, and impulse rows (1D, 1D layered, 2D layered, 3D: the taps along a major axis
    of 1.5 to 8 texels)."""
    fam = "anisogeom"
    for geom, (dims, levels, kw) in GEOMS.items():
        for a in [2, 4, 16]:
            d = desc("f32", 1, dims, levels, filt="linear", mipfilter="linear", aniso=a, **kw)
            tag = "%s.a%d" % (geom, a)
            lods = [-1 + i / 64 for i in range((levels + 1) * 64 + 1)]
            c0 = [(0.3, 0.6, 1)] if geom in ("a1d", "a2d") else \
                ([(0.3, -0.6, 1.2)] if geom in ("cube", "acube") else [(0.3, 0.6, 0.45)])
            gadd("ag.lod.level.%s" % tag, fam, d, geom, "level", c0 * len(lods), lods=lods)
            gs = [geom_grad(geom, dims) for _ in range(512)]
            gadd("ag.lod.grad.%s" % tag, fam, d, geom, "grad", c0 * len(gs), grads=gs)
            texels = random_texels(d)
            n = 256
            coords = [geom_coord(geom) for _ in range(n)]
            gs = [geom_grad(geom, dims) for _ in range(n)]
            gadd("ag.grad#%s" % tag, fam, d, geom, "grad", coords, grads=gs, texels=texels)
            lv = [RNG.uniform(-1, levels + 1) for _ in range(128)]
            gadd("ag.level#%s" % tag, fam, d, geom, "level", coords[:128], lods=lv,
                 texels=texels)
            gadd("ag.plain#%s" % tag, fam, d, geom, "", coords[:128], texels=texels)
        if geom in ("cube", "acube"):
            continue
        for name, a, r, m in [("x1.5", 16, 1.5, 1.0), ("x3", 16, 3.0, 1.0), ("x6", 16, 6.0, 1.0),
                              ("x6.a2", 2, 6.0, 1.0), ("x6m1.5", 16, 6.0, 1.5)]:
            idims, ilevels = ((64,), 7) if geom in ("1d", "a1d") else (dims, levels)
            d = desc("f32", 4, idims, ilevels, filt="linear", mipfilter="linear", aniso=a, **kw)
            w = d["dims"][0]
            tex = geom_impulse_texels(d)
            coords, grads = [], []
            for i in range(-12, 13):
                x = (w // 2 + 0.3 + i) / w
                if geom in ("1d", "a1d"):
                    coords.append((x, 0.0, 1 if geom == "a1d" else 0.0))
                    grads.append(((r / w,), (m / w,)))
                elif geom == "a2d":
                    h = d["dims"][1]
                    coords.append((x, (h // 2 + 0.6) / h, 1))
                    grads.append(((r / w, 0.0), (0.0, m / h)))
                else:
                    h, z = d["dims"][1], d["dims"][2]
                    coords.append((x, (h // 2 + 0.6) / h, (z // 2 + 0.45) / z))
                    grads.append(((r / w, 0.0, 0.0), (0.0, m / h, 0.0)))
            gadd("ag.imp.%s.%s" % (geom, name), fam, d, geom, "grad", coords, grads=grads,
                 texels=tex)


def anisobias():
    """A bias (`lodbias`) with `maxAnisotropy` 2 to 7: `tex.level` over every 1/256 of three
    levels on textures whose level `k` holds `k` (the level of detail used, sharpened), for
    biases on a grid of 1/64 and 1/256 and a few random ones, at `A` 2 and 4 (and a few at 3,
    5, 6, 7); `tex.grad` ratio sweeps and `tex` with a bias."""
    fam = "anisobias"
    lods = [-0.5 + i / 256 for i in range(3 * 256 + 1)]
    biases = [k / 64 for k in range(-64, 129)]
    biases += [k / 256 for k in range(1, 64) if k % 4]
    biases += [round(RNG.uniform(-2, 2), 5) for _ in range(16)] + [0.1, 0.3, -1.3, 2.7]
    for a in [2, 4]:
        for b in biases:
            d = desc("f32", 1, (16, 16), 5, filt="linear", mipfilter="linear", aniso=a,
                     lodbias=b)
            add("ab.level.a%d.b%r" % (a, b), fam, d, "2d", "level", [(0.3, 0.6)] * len(lods),
                lods=lods)
    for a in [3, 5, 6, 7]:
        for b in [0.1, 0.25, 0.5, -0.3, 0.7, 1.1]:
            d = desc("f32", 1, (16, 16), 5, filt="linear", mipfilter="linear", aniso=a,
                     lodbias=b)
            add("ab.level.a%d.b%r" % (a, b), fam, d, "2d", "level", [(0.3, 0.6)] * len(lods),
                lods=lods)
    t = 64.0
    minor = [8 * 2 ** (-i / 64) for i in range(449)]
    for a in [2, 4]:
        for b in [0.1, 0.25, 0.5, -0.3, 0.7, 1.1, -0.0625, 0.2]:
            d = desc("f32", 1, (64, 64), 7, filt="linear", mipfilter="linear", aniso=a,
                     lodbias=b)
            add("ab.grad.a%d.b%r" % (a, b), fam, d, "2d", "grad", [(0.3, 0.6)] * len(minor),
                grads=[((8 / t, 0.0), (0.0, m / t)) for m in minor])
            rand = [((2 ** RNG.uniform(-9, -2) * RNG.choice([-1, 1]),
                      2 ** RNG.uniform(-9, -2) * RNG.choice([-1, 1])),
                     (2 ** RNG.uniform(-9, -2) * RNG.choice([-1, 1]),
                      2 ** RNG.uniform(-9, -2) * RNG.choice([-1, 1]))) for _ in range(256)]
            add("ab.gradr.a%d.b%r" % (a, b), fam, d, "2d", "grad", [(0.3, 0.6)] * len(rand),
                grads=rand)
            add("ab.plain.a%d.b%r" % (a, b), fam, d, "2d", "", [(0.3, 0.6)] * 128)
            # Random texels: the whole fetch.
            d2 = desc("f32", 1, (64, 64), 7, filt="linear", mipfilter="linear", aniso=a,
                      lodbias=b)
            tx2 = random_texels(d2)
            co = [(RNG.uniform(-0.1, 1.1), RNG.uniform(-0.1, 1.1)) for _ in range(256)]
            lv = [RNG.uniform(-1, 8) for _ in range(256)]
            add("ab.randlevel#a%d.b%r" % (a, b), fam, d2, "2d", "level", co, lods=lv, texels=tx2)


def s16clamp():
    """Bilinear (isotropic) fetches of a normalized `s16` texture holding -32768 beside other
    values: is -32768 taken as -32767 before the weighted sum?"""
    fam = "s16clamp"
    w, h = 8, 8
    pool = [-32768, -32767, 32767, 0, 1, -1, -32768, -32768]
    vals = [RNG.choice(pool) & 0xFFFF for _ in range(w * h * 2)]
    d = T.tex_desc("s16", 2, (w, h), addr="clamp", filt="linear", read="normalized")
    coords = []
    for i in range(512):
        coords += [RNG.uniform(0, w), RNG.uniform(0, h), 0.0, 0.0]
    case("s16clamp.bilinear", fam, T.tex2d_kernel("f32"), 4 * 512, ("s16", vals),
         fcoords(coords), textures=[d])
    vals = [(-32768 if (i // 2) % 3 else RNG.choice([32767, 1000, -1000])) & 0xFFFF
            for i in range(w * h * 2)]
    coords = []
    for i in range(512):
        coords += [RNG.uniform(0, w), RNG.uniform(0, h), 0.0, 0.0]
    case("s16clamp.mostly", fam, T.tex2d_kernel("f32"), 4 * 512, ("s16", vals),
         fcoords(coords), textures=[d])


def anisocheck():
    """Checks of the rules `anisogeom` and `anisobias` found: `tex.level` with a bias and
    random (off the 1/256 grid) negative levels of detail at every `maxAnisotropy` (how the
    operand is held), a bias with level clamps, `tex.grad` with a bias over random texels,
    anisotropic 1D textures with wrapped and border addressing and point texel filtering,
    and seamless cube maps."""
    fam = "anisocheck"
    for a in [2, 4, 8, 16]:
        for b, kw in [(0.3, {}), (0.7, {}), (1.1, {}), (-0.3, {}),
                      (0.6, {"minlod": 1.25, "maxlod": 3.5})]:
            d = desc("f32", 1, (64, 64), 7, filt="linear", mipfilter="linear", aniso=a,
                     lodbias=b, **kw)
            tag = "a%d.b%r%s" % (a, b, ".clamp" if kw else "")
            lods = [RNG.uniform(-1.5, 0.5) for _ in range(256)] + \
                [RNG.uniform(-1, 8) for _ in range(256)]
            add("ac.lod.level.%s" % tag, fam, d, "2d", "level", [(0.3, 0.6)] * len(lods),
                lods=lods)
            if a in (2, 4):
                tx = random_texels(d)
                co = [(RNG.uniform(-0.1, 1.1), RNG.uniform(-0.1, 1.1)) for _ in range(256)]
                gs = [geom_grad("2d", (64, 64)) for _ in range(256)]
                add("ac.grad#%s" % tag, fam, d, "2d", "grad", co, grads=gs, texels=tx)
    for addr, filt in [("wrap", "linear"), ("border", "linear"), ("clamp", "point"),
                       ("mirror", "linear")]:
        for a in [2, 16]:
            kw = {"border": [2.5, 0, 0, 0]} if addr == "border" else {}
            d = desc("f32", 1, (64,), 7, filt=filt, mipfilter="linear", addr=addr, aniso=a,
                     **kw)
            tx = random_texels(d)
            co = [(RNG.uniform(-0.6, 1.6), 0.0, 0.0) for _ in range(256)]
            gs = [geom_grad("1d", (64,)) for _ in range(256)]
            gadd("ac.1d.%s.%s.a%d" % (addr, filt, a), fam, d, "1d", "grad", co, grads=gs,
                 texels=tx)
    for geom in ["cube", "acube"]:
        dims, levels, kw = GEOMS[geom]
        for a in [4, 16]:
            d = desc("f32", 1, dims, levels, filt="linear", mipfilter="linear", aniso=a,
                     seamless=True, **kw)
            tx = random_texels(d)
            co = [geom_coord(geom) for _ in range(256)]
            gs = [geom_grad(geom, dims) for _ in range(256)]
            gadd("ac.seamless#%s.a%d" % (geom, a), fam, d, geom, "grad", co, grads=gs,
                 texels=tx)
            gadd("ac.seamless.level#%s.a%d" % (geom, a), fam, d, geom, "level", co[:128],
                 lods=[RNG.uniform(-1, levels) for _ in range(128)], texels=tx)


def cube_point(edge=0.0):
    """A direction on a random face, its face coordinates in [-1, 1] (with probability `edge`
    each within 0.25 of an edge), scaled by a random distance."""
    c = [RNG.uniform(-1, 1) for _ in range(3)]
    i = RNG.randrange(3)
    for k in range(3):
        if k != i and RNG.random() < edge:
            c[k] = RNG.choice([-1, 1]) * RNG.uniform(0.75, 1.0)
    c[i] = RNG.choice([-1.0, 1.0])
    m = RNG.uniform(1.0, 1.5)
    return [m * v for v in c]


def cube_cross_grad(lo, hi):
    """A gradient of random direction and length 2^U(lo, hi) (direction units)."""
    u = unit3()
    g = 2 ** RNG.uniform(lo, hi)
    return tuple(g * a for a in u)


def cubegrad():
    """Cube-map `tex.grad` whose gradients cross to another face (issue 28): textures whose
    level `k` holds `k` (the level of detail used) on faces of 64 and 48 texels, isotropic and
    with `maxAnisotropy` 4 and 16, random directions and gradients (half of them ending on
    another face), gradients that end on the opposite face, an edge sweep on 48-texel faces,
    a layered cube map; random `f32` textures through `tex.grad` (the whole fetch)."""
    fam = "cubegrad"
    for n, levels in [(64, 7), (48, 6)]:
        for a in [0, 4, 16]:
            if n == 48 and a == 16:
                continue
            kw = {"aniso": a} if a else {}
            d = desc("f32", 1, (n, n), levels, mipfilter="linear", filt="linear", cube=True, **kw)
            cnt = 1024 if a == 0 else 512
            co = [cube_point(0.5) for _ in range(cnt)]
            gs = [(cube_cross_grad(-5, 0.5), cube_cross_grad(-5, 0.5)) for _ in range(cnt)]
            gadd("cg.rand.%d.a%d" % (n, a), fam, d, "cube", "grad", co, grads=gs)
    d = desc("f32", 1, (64, 64), 7, mipfilter="linear", filt="linear", cube=True)
    co, gs = [], []
    for _ in range(256):
        p = cube_point(0.3)
        k = RNG.uniform(1.2, 2.5)
        g = [-k * c + RNG.uniform(-0.3, 0.3) for c in p]
        other = cube_cross_grad(-5, -2)
        co.append(p)
        gs.append((tuple(g), other) if RNG.random() < 0.5 else (other, tuple(g)))
    gadd("cg.opp.64", fam, d, "cube", "grad", co, grads=gs)
    d48 = desc("f32", 1, (48, 48), 6, mipfilter="linear", filt="linear", cube=True)
    ts = [0.3 * i / 1024 for i in range(1024)]
    gadd("cg.sweep.48", fam, d48, "cube", "grad", [(1.0, 0.9, 0.3)] * len(ts),
         grads=[((0.0, t, 0.0), (0.0, 0.0, 0.0)) for t in ts])
    dl = desc("f32", 1, (64, 64), 7, mipfilter="linear", filt="linear", cube=True, layers=2)
    co = [cube_point(0.5) for _ in range(512)]
    gs = [(cube_cross_grad(-5, 0.5), cube_cross_grad(-5, 0.5)) for _ in range(512)]
    gadd("cg.rand.acube", fam, dl, "acube", "grad", co, grads=gs)
    for a in [0, 4, 16]:
        kw = {"aniso": a} if a else {}
        d = desc("f32", 1, (32, 32), 6, mipfilter="linear", filt="linear", cube=True, **kw)
        tx = random_texels(d)
        co = [cube_point(0.5) for _ in range(512)]
        gs = [(cube_cross_grad(-5, 0), cube_cross_grad(-6, -1)) for _ in range(512)]
        gadd("cg.fetch#a%d" % a, fam, d, "cube", "grad", co, grads=gs, texels=tx)


def cubenpot():
    """Cube-map `tex.grad` whose gradient ends on another face, on faces whose size is not a
    power of two (issue 28; fitted by `cubefit.py`): textures whose level `k` holds `k` on
    faces of 40, 24, 96, 80, 37 and 100 texels (and 64 as a check), trilinear, so the output is
    the level of detail in 1/256; random directions and gradients (half of them ending on
    another face) and a sweep of a gradient across an edge from a random point near it, its
    component along the edge random too."""
    fam = "cubenpot"
    for n in [40, 24, 96, 80, 37, 100, 64]:
        levels = n.bit_length()
        d = desc("f32", 1, (n, n), levels, mipfilter="linear", filt="linear", cube=True)
        co = [cube_point(0.5) for _ in range(384)]
        gs = [(cube_cross_grad(-5, 0.5), cube_cross_grad(-5, 0.5)) for _ in range(384)]
        gadd("cn.rand.%d" % n, fam, d, "cube", "grad", co, grads=gs)
        co, gs = [], []
        for _ in range(4):
            i = RNG.randrange(3)
            a = (i + 1 + RNG.randrange(2)) % 3
            o = 3 - i - a
            p = [0.0] * 3
            p[i] = RNG.choice([-1.0, 1.0]) * RNG.uniform(1.0, 1.5)
            sa = RNG.choice([-1.0, 1.0])
            p[a] = sa * abs(p[i]) * RNG.uniform(0.6, 0.97)
            p[o] = abs(p[i]) * RNG.uniform(-0.9, 0.9)
            ko = RNG.uniform(-0.1, 0.1)
            gap = abs(p[i]) - abs(p[a])
            span = RNG.uniform(0.3, 0.8)
            for k in range(64):
                t = gap + (k + 0.5) / 64 * span
                g = [0.0] * 3
                g[a] = sa * t
                g[o] = ko * t
                co.append(p)
                gs.append((tuple(g), (0.0, 0.0, 0.0)) if k % 2 else ((0.0, 0.0, 0.0), tuple(g)))
        gadd("cn.sweep.%d" % n, fam, d, "cube", "grad", co, grads=gs)


def seam_edge_point(n):
    """A direction whose face coordinates lie within a few texels of an edge or corner."""
    faces = [lambda s, t: (1.0, -t, -s), lambda s, t: (-1.0, -t, s), lambda s, t: (s, 1.0, t),
             lambda s, t: (s, -1.0, -t), lambda s, t: (s, -t, 1.0), lambda s, t: (-s, -t, -1.0)]
    near = lambda: RNG.choice([-1, 1]) * (1 - RNG.uniform(0, 6.0 / n))
    s, t = RNG.uniform(-1, 1), RNG.uniform(-1, 1)
    k = RNG.randrange(4)
    if k == 0:
        s = near()
    elif k == 1:
        t = near()
    elif k == 2:
        s, t = near(), near()
    m = RNG.uniform(1.0, 1.5)
    return [m * c for c in faces[RNG.randrange(6)](s, t)]


def seam_grad(n):
    """A footprint on the face of extent 1 to 12 texels and ratio 1 to 16 (direction units at
    unit distance: a face is 2 units over `n` texels), mostly not leaving the face."""
    major = 2 ** RNG.uniform(0, 3.6)
    minor = major / 2 ** RNG.uniform(0, 4)
    u = unit3()
    v = unit3()
    dot = sum(a * b for a, b in zip(u, v))
    v = [b - dot * a for a, b in zip(u, v)]
    nv = math.sqrt(sum(b * b for b in v)) or 1.0
    gx = [2 * major * a / n for a in u]
    gy = [2 * minor * b / nv / n for b in v]
    return (tuple(gx), tuple(gy)) if RNG.random() < 0.5 else (tuple(gy), tuple(gx))


def seamaniso():
    """Seamless cube maps with `maxAnisotropy` 2, 4, 16 (issue 28): the level of detail
    (textures whose level `k` holds `k`), random `f32` and normalized `u8` textures through
    `tex.grad` with directions near edges and corners and footprints of 1 to 12 texels whose
    taps reach past the edge, `tex.level`, and a layered cube map."""
    fam = "seamaniso"
    n = 32
    for a in [2, 4, 16]:
        d = desc("f32", 1, (n, n), 6, mipfilter="linear", filt="linear", cube=True, aniso=a,
                 seamless=True)
        co = [seam_edge_point(n) for _ in range(512)]
        gs = [seam_grad(n) for _ in range(512)]
        gadd("sa.lod.%d" % a, fam, d, "cube", "grad", co, grads=gs)
        tx = random_texels(d)
        co = [seam_edge_point(n) for _ in range(512)]
        gs = [seam_grad(n) for _ in range(512)]
        gadd("sa.grad#a%d" % a, fam, d, "cube", "grad", co, grads=gs, texels=tx)
        gadd("sa.level#a%d" % a, fam, d, "cube", "level", co[:256],
             lods=[RNG.uniform(-1, 5) for _ in range(256)], texels=tx)
    d = desc("u8", 4, (n, n), 6, mipfilter="linear", filt="linear", cube=True, aniso=4,
             seamless=True, read="normalized")
    tx = random_texels(d)
    co = [seam_edge_point(n) for _ in range(256)]
    gs = [seam_grad(n) for _ in range(256)]
    gadd("sa.grad#u8x4.a4", fam, d, "cube", "grad", co, grads=gs, texels=tx)
    d = desc("f32", 1, (n, n), 6, mipfilter="linear", filt="linear", cube=True, aniso=4,
             seamless=True, layers=2)
    tx = random_texels(d)
    co = [seam_edge_point(n) for _ in range(256)]
    gs = [seam_grad(n) for _ in range(256)]
    gadd("sa.grad#acube.a4", fam, d, "acube", "grad", co, grads=gs, texels=tx)


def linaniso():
    """A 1D texture in linear memory (`cudaResourceTypeLinear`, no mipmaps) with
    `maxAnisotropy` 0 (the control), 4 and 16: `tex` with float coordinates, `tex.level`,
    `tex.grad` (random gradients of 1/4 to 32 texels) and `tex.1d` with integer coordinates
    (`tex1Dfetch`), linear and point texel filtering."""
    fam = "linaniso"
    w = 256
    vals = [f32(RNG.uniform(-4, 4)) for _ in range(w)]
    fetch = T.kernel("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                     "tex.1d.v4.f32.s32 {%r4, %r5, %r6, %r7}, [%t0, {%r0}];\n"
                     "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n", ntex=1)
    for filt in ["linear", "point"]:
        for a in [0, 4, 16]:
            d = T.tex_desc("f32", 1, (w,), filt=filt, res="linear")
            if a:
                d["aniso"] = a
            tag = "%s.a%d" % (filt, a)
            n = 256
            co = [(RNG.uniform(-2, w + 2), 0.0, 0.0) for _ in range(n)]
            lv = [RNG.uniform(-1, 4) for _ in range(n)]
            gs = [((2 ** RNG.uniform(-2, 5) * RNG.choice([-1, 1]),),
                   (2 ** RNG.uniform(-2, 5) * RNG.choice([-1, 1]),)) for _ in range(n)]
            for form in ["", "level", "grad"]:
                T.case("la.%s.%s" % (form or "plain", tag), fam, mip_kernel("1d", form), 4 * n,
                       ("f32", vals), words(co, lv), textures=[d],
                       extra=("u32", grad_words(gs)))
            ic = []
            for i in range(n):
                ic += [RNG.randrange(-4, w + 4) & 0xFFFFFFFF, 0, 0, 0]
            T.case("la.fetch.%s" % tag, fam, fetch, 4 * n, ("f32", vals), ic, textures=[d])


SCP_N = 8
# Footprints of the `seamcornerprobe` family: (tag, major gradient in texels along the face's
# s and t); the minor gradient is zero, so with `maxAnisotropy` 16 the footprint has the taps
# of the major axis's length alone (as a 1D texture's: `aniso.rs`), none of them weighed by a
# minor axis.
SCP_FOOT = [("iso", (-1.0, 0.0)), ("s2", (-2.0, 0.0)), ("s3", (-3.0, 0.0)),
            ("s4", (-4.0, 0.0)), ("s6", (-6.0, 0.0)), ("s8", (-8.0, 0.0)),
            ("t2", (0.0, -2.0)), ("t4", (0.0, -4.0)), ("t8", (0.0, -8.0)),
            ("d2", (-2 / math.sqrt(2), -2 / math.sqrt(2))),
            ("d4", (-4 / math.sqrt(2), -4 / math.sqrt(2))),
            ("d8", (-8 / math.sqrt(2), -8 / math.sqrt(2)))]
SCP_POINT = ["iso", "s2", "s4", "s8", "t4", "d4"]


def scp_keep(tag, a, b, px, py, linear):
    """Whether a `seamcornerprobe` fetch is kept: its major gradient ends on face +z (else the
    fetch is isotropic: docs/INTERP.md) and a tap reads past the corner: linear filtering, a
    tap's bilinear footprint holds a texel past both edges; point filtering, a tap's position
    lies past an edge (`anisofit.footprint2`'s taps)."""
    import anisofit
    n = SCP_N
    s = 2 * (px + 128) / (256 * n) - 1
    t = 2 * (py + 128) / (256 * n) - 1
    if abs(s + 2 * a / n) > 1 or abs(t + 2 * b / n) > 1:
        return False
    (_, taps, _), = anisofit.footprint2([a, b], [0.0, 0.0], 16, 1)
    out = lambda v: not 0 <= v < n
    for dx, dy, _ in taps:
        if linear:
            x, y = px + dx, py + dy
            if any(out((x >> 8) + (k & 1)) and out((y >> 8) + (k >> 1)) for k in range(4)):
                return True
        elif out((px + 128 + dx) >> 8) or out((py + 128 + dy) >> 8):
            return True
    return False


SCP_CORNERS = {"hi": (1, 1), "lo": (-1, -1), "mx": (1, -1), "my": (-1, 1)}


def cube_impulses(n):
    """The impulse textures of a cube map of `n`-texel faces and four f32 channels: texture
    `g` holds a 1 in channel `ch` of texel `4 g + ch` and 0 elsewhere, so that one fetch reads
    the weights of four texels apart; every texel is in one of them. Yields (g, texels)."""
    for g in range(6 * n * n // 4):
        texels = [0] * (6 * n * n * 4)
        for ch in range(4):
            texels[(4 * g + ch) * 4 + ch] = f32(1.0)
        yield g, texels


def scp_probes(feet, corner="hi", linear=True, keep=True):
    """The fetches of one `seamcornerprobe` case: for each footprint, each filter position
    (1/256 texel, less half a texel) (px, py) on face +z within three texels of its corner
    `SCP_CORNERS[corner]` (the signs of s and t there: "hi" (+1, +1), "lo" (-1, -1), "mx"
    (+1, -1), "my" (-1, +1)) in steps of 1/8 texel, the major gradient pointing into the face,
    those `scp_keep` keeps (all with `keep` false, as the recordings were made); returns
    (directions, gradients, labels)."""
    n = SCP_N
    dirs, grads, labels = [], [], []
    sx, sy = SCP_CORNERS[corner]
    steps = {1: range((n - 3) * 256, n * 256 - 127, 32), -1: range(-128, 2 * 256 + 1, 32)}
    for tag, (a, b) in SCP_FOOT:
        if tag not in feet:
            continue
        for py in steps[sy]:
            for px in steps[sx]:
                if keep and not scp_keep(tag, sx * a, sy * b, px, py, linear):
                    continue
                s = 2 * (px + 128) / (256 * n) - 1
                t = 2 * (py + 128) / (256 * n) - 1
                # Face +z: (s, t) = (x, -y) / z.
                dirs.append((s, -t, 1.0))
                grads.append(((2 * sx * a / n, -2 * sy * b / n, 0.0), (0.0, 0.0, 0.0)))
                labels.append((tag, px, py))
    return dirs, grads, labels


def seamcornerprobe():
    """Impulse probes of seamless cube maps with anisotropic filtering past a cube corner
    (issue 28): 8-texel faces, one level, `maxAnisotropy` 16, `f32` RGBA texels all 0 but four
    one-hot ones (case `gK`: texels 4K to 4K + 3 of the cube in the order face, row, column,
    one per channel), so 96 cases read every texel's weight in every fetch. The fetches
    (`scp_probes`) put the centre of footprints of 1 to 8 taps of known positions (a major
    gradient alone, along s, t or the diagonal; `anisofit.footprint2`) on face +z within three
    texels of its corner (+1, +1) (`scp.hi.*`), (-1, -1) (`scp.lo.*`), (+1, -1) (`scp.mx.*`) or
    (-1, +1) (`scp.my.*`) in steps of 1/8 texel, so their taps reach up to 3.5 texels past the
    corner; `scp.*.lin.gK` linear texel filtering, `scp.hi.pt.gK` and `scp.lo.pt.gK` point
    texel filtering (fewer footprints). The recording was made
    of every fetch (`scp_probes(..., keep=False)`); `corpus/vectors/seamcornerprobe.jsonl.xz`
    holds those `scp_keep` keeps, without the cases none of whose kept fetches reads one of
    their texels."""
    fam = "seamcornerprobe"
    n = SCP_N
    for corner in ["hi", "lo", "mx", "my"]:
        for filt, feet in [("lin", [t for t, _ in SCP_FOOT]), ("pt", SCP_POINT)]:
            if filt == "pt" and corner in ("mx", "my"):
                continue
            d = desc("f32", 4, (n, n), 1, filt="linear" if filt == "lin" else "point",
                     mipfilter="linear", cube=True, seamless=True, aniso=16)
            dirs, grads, _ = scp_probes(feet, corner, filt == "lin")
            for g, texels in cube_impulses(n):
                gadd("scp.%s.%s.g%d" % (corner, filt, g), fam, d, "cube", "grad", dirs,
                     grads=grads, texels=texels)


CUBE_FACES = [lambda s, t: (1.0, -t, -s), lambda s, t: (-1.0, -t, s), lambda s, t: (s, 1.0, t),
              lambda s, t: (s, -1.0, -t), lambda s, t: (s, -t, 1.0), lambda s, t: (-s, -t, -1.0)]


def scc_fetch(rng, n, reach):
    """A direction within `reach` texels (of `n`-texel faces) of a random corner of a random
    face, and a footprint whose major gradient (1.5 to 8 texels, any direction) and minor one
    (0 or up to the major's length over 16, perpendicular) both end on that face, so its taps
    lie along the major axis on the face and past the corner."""
    return scc_fetch_ex(rng, n, reach, split=True)


def seamcornercheck():
    """Seamless cube maps with anisotropic filtering past cube corners (issue 28), random
    textures: directions within 1.5 texels of a random corner of a random face, footprints of
    1.5 to 8 texels along any direction (`scc_fetch`), so many taps hold two or more texels
    past the corner; `maxAnisotropy` 16 and 4 on one-level 8-texel faces, linear texel
    filtering (`f32`, normalized `u8x4`, a layered map) and point texel filtering, and a
    mipmapped map of 16-texel faces (`corpus/vectors/seamcorner2.jsonl.xz`)."""
    fam = "seamcornercheck"
    rng = __import__("random").Random(20261129)
    for tag, ty, ch, read, n, levels, filt, a, layers, cnt in [
            ("lin.a16", "f32", 1, "element", 8, 1, "linear", 16, 0, 512),
            ("lin.a4", "f32", 1, "element", 8, 1, "linear", 4, 0, 512),
            ("u8x4.a16", "u8", 4, "normalized", 8, 1, "linear", 16, 0, 256),
            ("acube.a16", "f32", 1, "element", 8, 1, "linear", 16, 2, 256),
            ("pt.a16", "f32", 1, "element", 8, 1, "point", 16, 0, 256),
            ("mip.a16", "f32", 1, "element", 16, 5, "linear", 16, 0, 512)]:
        kw = {"layers": layers} if layers else {}
        d = desc(ty, ch, (n, n), levels, filt=filt, mipfilter="linear", cube=True,
                 seamless=True, aniso=a, read=read, **kw)
        tx = []
        for (w, h, dd, nb) in mip_levels(d):
            for _ in range(w * h * dd * ch):
                tx.append(f32(rng.uniform(-4, 4)) if ty == "f32" else rng.getrandbits(8))
        co, gs = [], []
        for _ in range(cnt):
            v, g = scc_fetch(rng, n, 1.5)
            co.append(v)
            gs.append(g)
        gadd("scc.%s" % tag, fam, d, "acube" if layers else "cube", "grad", co, grads=gs,
             texels=tx)


def scc_fetch_ex(rng, n, reach, lmin=1.5, lmax=8.0, corners=None, split=False):
    """`scc_fetch` with the major gradient's length from `lmin` to `lmax` texels (at most the
    face's `n`) and the corner drawn from `corners` ((cs, ct) pairs, any by default; with
    `split` each sign drawn on its own, as `scc_fetch`'s recordings were made)."""
    lmax = min(lmax, n)
    lmin = min(lmin, lmax)
    while True:
        f = rng.randrange(6)
        if split:
            cs, ct = rng.choice([-1, 1]), rng.choice([-1, 1])
        else:
            cs, ct = rng.choice(corners or [(-1, -1), (-1, 1), (1, -1), (1, 1)])
        s = cs * (1 - rng.uniform(0, 2 * reach / n))
        t = ct * (1 - rng.uniform(0, 2 * reach / n))
        ln = 2 ** rng.uniform(math.log2(lmin), math.log2(lmax))
        a = rng.uniform(0, 2 * math.pi)
        gs, gt = 2 * ln * math.cos(a) / n, 2 * ln * math.sin(a) / n
        if abs(s + gs) > 1 or abs(t + gt) > 1:
            gs, gt = -gs, -gt
        if abs(s + gs) > 1 or abs(t + gt) > 1:
            continue
        m = rng.choice([0.0, rng.uniform(1 / 16, 1 / 2)])
        hs, ht = -gt * m, gs * m
        if abs(s + hs) > 1 or abs(t + ht) > 1:
            hs, ht = -hs, -ht
        if abs(s + hs) > 1 or abs(t + ht) > 1:
            hs, ht = 0.0, 0.0
        k = 2 ** rng.uniform(0, 0.5)
        face = CUBE_FACES[f]
        v = face(s, t)
        gx = [k * (b - c) for b, c in zip(face(s + gs, t + gt), v)]
        gy = [k * (b - c) for b, c in zip(face(s + hs, t + ht), v)]
        return [k * c for c in v], (tuple(gx), tuple(gy))


MIXED = [(1, -1), (-1, 1)]
# The `seamcfgcheck` sets: (tag, texel type, channels, read, face size, levels, texel filter,
# level filter, maxAnisotropy, layers, fetches, corners, major length range, extra fields).
SCF_SETS = [
    # 1. nearest level filtering
    ("mippt.a16", "f32", 1, "element", 16, 5, "linear", "point", 16, 0, 512, None, (1.5, 16), {}),
    ("mippt.a4", "f32", 1, "element", 16, 5, "linear", "point", 4, 0, 512, None, (1.5, 16), {}),
    ("mippt.a2", "f32", 1, "element", 16, 5, "linear", "point", 2, 0, 256, None, (1.5, 16), {}),
    # 2. formats
    ("s8x4.a16", "s8", 4, "normalized", 8, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("u16x4.a16", "u16", 4, "normalized", 8, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("s16x2.a16", "s16", 2, "normalized", 8, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("f16x2.a16", "f16", 2, "element", 8, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("u8x4.mip.a4", "u8", 4, "normalized", 16, 5, "linear", "linear", 4, 0, 256, None, (1.5, 16), {}),
    ("int.u8x4.a16", "u8", 4, "element", 16, 5, "point", "point", 16, 0, 256, None, (1.5, 16), {}),
    ("int.s16x2.a16", "s16", 2, "element", 16, 5, "point", "point", 16, 0, 256, None, (1.5, 16), {}),
    ("int.u32.a4", "u32", 1, "element", 16, 5, "point", "point", 4, 0, 256, None, (1.5, 16), {}),
    ("int.s32x2.a16", "s32", 2, "element", 8, 1, "point", "point", 16, 0, 256, None, (1.5, 8), {}),
    # 3. face sizes
    ("n5.a16", "f32", 1, "element", 5, 1, "linear", "linear", 16, 0, 256, None, (1.5, 5), {}),
    ("n12.a16", "f32", 1, "element", 12, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("n24.a16", "f32", 1, "element", 24, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("n40.a16", "f32", 1, "element", 40, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("n64.a16", "f32", 1, "element", 64, 1, "linear", "linear", 16, 0, 256, None, (1.5, 8), {}),
    ("n12.a4", "f32", 1, "element", 12, 1, "linear", "linear", 4, 0, 256, None, (1.5, 8), {}),
    ("n24.mip.a16", "f32", 1, "element", 24, 4, "linear", "linear", 16, 0, 512, None, (1.5, 24), {}),
    ("n40.mip.a4", "f32", 1, "element", 40, 5, "linear", "linear", 4, 0, 256, None, (1.5, 40), {}),
    # 4. point texel filtering at the mixed corners
    ("pt.mixed.a16", "f32", 1, "element", 8, 1, "point", "linear", 16, 0, 512, MIXED, (1.5, 8), {}),
    ("pt.mixed.a4", "f32", 1, "element", 8, 1, "point", "linear", 4, 0, 256, MIXED, (1.5, 8), {}),
    ("pt.mixed.n12.a16", "f32", 1, "element", 12, 1, "point", "linear", 16, 0, 256, MIXED, (1.5, 8), {}),
    ("lin.mixed.a16", "f32", 1, "element", 8, 1, "linear", "linear", 16, 0, 256, MIXED, (1.5, 8), {}),
    # 5. layered maps, a bias and clamps
    ("acube.a4", "f32", 1, "element", 8, 1, "linear", "linear", 4, 2, 256, None, (1.5, 8), {}),
    ("acube.mip.a16", "f32", 1, "element", 16, 5, "linear", "linear", 16, 2, 256, None, (1.5, 16), {}),
    ("bias.p.a16", "f32", 1, "element", 16, 5, "linear", "linear", 16, 0, 256, None, (1.5, 16),
     {"lodbias": 0.625}),
    ("bias.n.a16", "f32", 1, "element", 16, 5, "linear", "linear", 16, 0, 256, None, (1.5, 16),
     {"lodbias": -0.8}),
    ("bias.p.a4", "f32", 1, "element", 16, 5, "linear", "linear", 4, 0, 256, None, (1.5, 16),
     {"lodbias": 1.3}),
    ("clamp.a16", "f32", 1, "element", 16, 5, "linear", "linear", 16, 0, 256, None, (1.5, 16),
     {"minlod": 0.7, "maxlod": 2.4}),
    ("clamp.bias.a4", "f32", 1, "element", 16, 5, "linear", "linear", 4, 0, 256, None, (1.5, 16),
     {"lodbias": -0.4, "minlod": 0.3, "maxlod": 1.6}),
    ("acube.bias.a16", "f32", 1, "element", 16, 5, "linear", "point", 16, 2, 256, None,
     (1.5, 16), {"lodbias": 0.45, "maxlod": 3.0}),
]


def scf_texels(rng, d, ty, ch):
    bits = 8 * T.ELEM[ty]
    out = []
    for (w, h, dd, nb) in mip_levels(d):
        for _ in range(w * h * dd * ch):
            if ty == "f32":
                out.append(f32(rng.uniform(-4, 4)))
            elif ty == "f16":
                out.append(T.f16(rng.uniform(-4, 4)))
            else:
                out.append(rng.getrandbits(bits))
    return out


def scf_run(fam, prefix, sets, seed):
    """The random fetches of each set of `sets` (as `SCF_SETS`), cases `PREFIX.TAG`."""
    rng = __import__("random").Random(seed)
    for (tag, ty, ch, read, n, levels, filt, mf, a, layers, cnt, corners, (l0, l1),
         extra) in sets:
        kw = dict(extra)
        if layers:
            kw["layers"] = layers
        d = desc(ty, ch, (n, n), levels, filt=filt, mipfilter=mf, cube=True,
                 seamless=extra.get("seamless", True), aniso=a, read=read,
                 **{k: v for k, v in kw.items() if k not in ("seamless", "reach")})
        tx = scf_texels(rng, d, ty, ch)
        co, gs = [], []
        for _ in range(cnt):
            v, g = scc_fetch_ex(rng, n, extra.get("reach", 1.5), l0, l1, corners)
            co.append(v)
            gs.append(g)
        dtype = "f32"
        if read == "element" and ty not in ("f32", "f16"):
            dtype = "s32" if ty[0] == "s" else "u32"
        gadd("%s.%s" % (prefix, tag), fam, d, "acube" if layers else "cube", "grad", co,
             grads=gs, texels=tx, dtype=dtype)


# The `seamcut` sets: (tag, face size, maxAnisotropy, reach in texels, level 1's texel).
SEAMCUT_SETS = [("n24.a16", 24, 16, 1.5, 1.0), ("n24.a16.pos", 24, 16, 1.5, -1.0),
                ("n8.a16", 8, 16, 1.5, 1.0), ("n16.a4", 16, 4, 1.5, 1.0),
                ("n24.a4", 24, 4, 1.5, -1.0), ("n24.a16.face", 24, 16, 12.0, 1.0)]


def seamcut(lod_check=False):
    """The rounding of anisotropic taps past a seamless cube corner made visible (issue 28):
    two-level `f32` cube maps whose level of detail is held at 1/256 (`minlod` = `maxlod`), so
    that level 1 weighs 1/256 exactly and level 0 255/256. Level 1's texels are all `c` (1 or
    -1: the largest texel, which sets the accumulator's last bit once level 1 is read; 2^-38,
    `tex::tap_sum`), level 0's `-c u / 256` with `u` random in [1 - 2^-6, 1) (24-bit
    mantissas: the taps' sums have bits below that last bit). The constant parts cancel to
    `c 2^-16`, so the result, about 2^-15, holds the accumulator's sum exactly: each fetch
    reads how much the cuts lost. Directions within 1.5 texels of a corner (`scc_fetch_ex`),
    and anywhere on the face (`.face`, a control away from corners); then the same on 2D `f32`
    and `f16x2` textures; `corpus/vectors/seamcut.jsonl.xz`. `lod_check`: the
    same fetches on textures whose level `k` holds `k` (every result 1/256; no GPU needed)."""
    fam = "seamcut%s" % ("lod" if lod_check else "")
    rng = __import__("random").Random(20261201)
    for tag, n, a, reach, c in SEAMCUT_SETS:
        d = desc("f32", 1, (n, n), 2, filt="linear", mipfilter="linear", cube=True,
                 seamless=True, aniso=a, minlod=1 / 256, maxlod=1 / 256)
        tx = []
        for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
            for _ in range(w * h * dd):
                if lod_check:
                    v = float(k)
                elif k == 0:
                    v = -c * (1 - rng.randrange(1, 2 ** 18) * 2.0 ** -24) / 256
                else:
                    v = c
                tx.append(f32(v))
        co, gs = [], []
        for _ in range(512):
            v, g = scc_fetch_ex(rng, n, reach, 1.5, min(8.0, n))
            co.append(v)
            gs.append(g)
        gadd("seamcut%s.%s" % ("lod" if lod_check else "", tag), fam, d, "cube", "grad", co,
             grads=gs, texels=tx)
    # The same on 2D textures (no cube map): the rule of each tap's cut, and `f16` texels
    # (level 0's `u` then in 1/2048, the result a multiple of 2^-24, the accumulator's last bit
    # 2^-22).
    for tag, ty, ch, dims, a, c in [("2d.f32.a16", "f32", 1, (64, 64), 16, 1.0),
                                    ("2d.f32.a4", "f32", 1, (64, 64), 4, -1.0),
                                    ("2d.f16x2.npot.a16", "f16", 2, (48, 20), 16, 1.0),
                                    ("2d.f16x2.npot.a16.pos", "f16", 2, (48, 20), 16, -1.0)]:
        d = desc(ty, ch, dims, 2, filt="linear", mipfilter="linear", aniso=a, minlod=1 / 256,
                 maxlod=1 / 256)
        tx = []
        for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
            for _ in range(w * h * dd * ch):
                if lod_check:
                    v = float(k)
                elif k == 0 and ty == "f32":
                    v = -c * (1 - rng.randrange(1, 2 ** 18) * 2.0 ** -24) / 256
                elif k == 0:
                    v = -c * (1 - rng.randrange(1, 32) * 2.0 ** -11) / 256
                else:
                    v = c
                tx.append(f32(v) if ty == "f32" else T.f16(v))
        co = [(rng.uniform(-0.1, 1.1), rng.uniform(-0.1, 1.1)) for _ in range(512)]
        gs = [aniso_grad(*dims) for _ in range(512)]
        add("seamcut%s.%s" % ("lod" if lod_check else "", tag), fam, d, "2d", "grad", co,
            grads=gs, texels=tx)


def cut_fetches(name, fam, d, geom, size, tx, rng):
    """Case `name` of `seamcut2`/`seamcut3`: 512 `tex.grad` fetches of texture `d` (texels
    `tx`) of `geom` ("cube": within 1.5 texels of a corner, `scc_fetch_ex`; "2d"; "3d") and
    `size`, drawn from `rng`."""
    co, gs = [], []
    for _ in range(512):
        if geom == "cube":
            v, g = scc_fetch_ex(rng, size, 1.5, 1.5, min(8.0, size))
        elif geom == "2d":
            v, g = (rng.uniform(-0.1, 1.1), rng.uniform(-0.1, 1.1)), aniso_grad(*size)
        else:
            v, g = [rng.uniform(-0.1, 1.1) for _ in range(3)], geom_grad("3d", size)
        co.append(v)
        gs.append(g)
    if geom == "2d":
        add(name, fam, d, "2d", "grad", co, grads=gs, texels=tx)
    else:
        gadd(name, fam, d, geom, "grad", co, grads=gs, texels=tx)


# The `seamcut2` sets, a check of the rule `seamcut` fitted: (tag, geometry, texel type,
# channels, size, maxAnisotropy, the level of small texels (0 or 1), the large texel `c`).
SEAMCUT2_SETS = [("cube.n24.a16.lo", "cube", "f32", 1, 24, 16, 0, 4.0),
                 ("cube.n24.a16.hi", "cube", "f32", 1, 24, 16, 1, 1.0),
                 ("cube.n16.a4.hi", "cube", "f32", 1, 16, 4, 1, -0.25),
                 ("cube.n12.a16.lo", "cube", "f32", 1, 12, 16, 0, -2.0 ** -20),
                 ("2d.f32.a16.hi", "2d", "f32", 1, (64, 64), 16, 1, 1.0),
                 ("2d.f32.a4.lo", "2d", "f32", 1, (64, 64), 4, 0, 4.0),
                 ("2d.f16x2.npot.a16.hi", "2d", "f16", 2, (48, 20), 16, 1, 1.0),
                 ("2d.f16x2.npot.a16.lo", "2d", "f16", 2, (48, 20), 16, 0, -2.0),
                 ("3d.f32.a16.lo", "3d", "f32", 1, (16, 16, 16), 16, 0, 1.0),
                 ("3d.f32.hi", "3d", "f32", 1, (16, 16, 16), 0, 1, -4.0)]


def seamcut2(lod_check=False):
    """A check of `seamcut`'s rule (recorded after the fit): two-level textures whose level of
    detail is held at 1/256 (the small texels on level 0, level 1 all `c`) or 255/256 (level 0
    all `c`, weighing 1/256, the small texels on level 1, `-c u / 256` as in `seamcut`), with
    `c` of other magnitudes (4, 1/4, 2^-20, 2) so that the accumulator's last bit moves: cube
    maps near corners (`scc_fetch_ex`), 2D `f32` and `f16x2`, and 3D textures with and without
    anisotropy (each z slice a tap); `corpus/vectors/seamcut2.jsonl.xz`."""
    fam = "seamcut2%s" % ("lod" if lod_check else "")
    rng = __import__("random").Random(20261202)
    for tag, geom, ty, ch, size, a, small, c in SEAMCUT2_SETS:
        lod = (1 if small == 0 else 255) / 256
        kw = {"aniso": a} if a else {}
        dims = (size, size) if geom == "cube" else size
        d = desc(ty, ch, dims, 2, filt="linear", mipfilter="linear", cube=geom == "cube",
                 seamless=geom == "cube", minlod=lod, maxlod=lod, **kw)
        tx = []
        for k, (w, h, dd, nb) in enumerate(mip_levels(d)):
            for _ in range(w * h * dd * ch):
                if lod_check:
                    v = float(k)
                elif k != small:
                    v = c
                elif ty == "f32":
                    v = -c * (1 - rng.randrange(1, 2 ** 18) * 2.0 ** -24) / 256
                else:
                    v = -c * (1 - rng.randrange(1, 32) * 2.0 ** -11) / 256
                tx.append(f32(v) if ty == "f32" else T.f16(v))
        cut_fetches("seamcut2%s.%s" % ("lod" if lod_check else "", tag), fam, d, geom, size, tx,
                    rng)


# The `seamcut3` sets, recorded after the fit of `tex::tap_sum` (accumulator aligned to the
# largest texel's exponent in steps of four, taps accumulated four at a time): (tag,
# geometry, texel type, channels, size, maxAnisotropy, share of level 1 in 1/256, the large
# texel `c` and its level).
SEAMCUT3_SETS = [("cube.n20.a16.s1", "cube", "f32", 1, 20, 16, 1, 2.0, 1),
                 ("cube.n16.a2.s255", "cube", "f32", 1, 16, 2, 255, 8.0, 0),
                 ("cube.n24.a16.s32", "cube", "f32", 1, 24, 16, 32, 1.0, 1),
                 ("cube.n24.a4.s224", "cube", "f32", 1, 24, 4, 224, 4.0, 0),
                 ("2d.f32.a16.s32", "2d", "f32", 1, (40, 24), 16, 32, -3.0, 1),
                 ("2d.f32.a8.s1", "2d", "f32", 1, (64, 32), 8, 1, 0.5, 1),
                 ("2d.f16x2.a16.s255", "2d", "f16", 2, (32, 32), 16, 255, 4.0, 0),
                 ("2d.f16x2.a4.s32", "2d", "f16", 2, (24, 40), 4, 32, 0.5, 1),
                 ("3d.f32.s32", "3d", "f32", 1, (16, 8, 16), 0, 32, 2.0, 1),
                 ("3d.f32.a16.s224", "3d", "f32", 1, (16, 16, 8), 16, 224, -1.0, 0)]


def seamcut3():
    """A check of the accumulator rule (`tex::tap_sum`) recorded after its fit: two-level
    textures whose level of detail is held so that level 1 weighs `s`/256 (`minlod` =
    `maxlod` = `s`/256): the level `c` is on holds `c`, the other `-c w / (1 - w) (1 + d)`
    rounded to the texel type (`w` the share of `c`'s level, `d` random below 2^-12 in
    magnitude), so that the result is small beside the largest texel and shows the
    accumulator's cuts; shares of 1/256, 1/8, 7/8 and 255/256, `c` of several exponents
    (the accumulator's alignment in steps of four moves with it); cube maps near corners,
    2D `f32` and `f16x2`, 3D with and without anisotropy; 512 fetches each
    (`corpus/vectors/seamcut3.jsonl.xz`). Then 8,192 random `tex.grad` fetches of a 2D
    texture of random texels in [-2.2, 2.2] (the largest texel of a tap often below 2, of the
    fetch above: the alignment rises between groups of taps)."""
    fam = "seamcut3"
    rng = __import__("random").Random(20261203)
    for tag, geom, ty, ch, size, a, share, c, clev in SEAMCUT3_SETS:
        lod = share / 256
        kw = {"aniso": a} if a else {}
        dims = (size, size) if geom == "cube" else size
        d = desc(ty, ch, dims, 2, filt="linear", mipfilter="linear", cube=geom == "cube",
                 seamless=geom == "cube", minlod=lod, maxlod=lod, **kw)
        w = share / 256 if clev == 1 else 1 - share / 256
        tx = []
        for k, (wd, h, dd, nb) in enumerate(mip_levels(d)):
            for _ in range(wd * h * dd * ch):
                if k == clev:
                    v = c
                else:
                    v = -c * w / (1 - w) * (1 + rng.uniform(-1, 1) * 2.0 ** -12)
                tx.append(f32(v) if ty == "f32" else T.f16(v))
        cut_fetches("seamcut3.%s" % tag, fam, d, geom, size, tx, rng)
    d = desc("f32", 1, (64, 64), 7, filt="linear", mipfilter="linear", aniso=16)
    n = sum(wd * h * dd for (wd, h, dd, nb) in mip_levels(d))
    tx = [f32(rng.uniform(-2.2, 2.2)) for _ in range(n)]
    co = [(rng.uniform(-0.1, 1.1), rng.uniform(-0.1, 1.1)) for _ in range(8192)]
    gs = [aniso_grad(64, 64) for _ in range(8192)]
    add("seamcut3.2d.rand.a16", fam, d, "2d", "grad", co, grads=gs, texels=tx)


def seamcfgcheck():
    """Seamless cube maps with anisotropic filtering near edges and corners in the
    configurations `seamcornercheck` leaves out (issue 28; `SCF_SETS`): nearest level
    filtering, normalized `s8x4`, `u16x4`, `s16x2`, `f16x2` and mipmapped `u8x4` texels,
    integer texels read as integers, faces of 5, 12, 24, 40 and 64 texels (one level and
    mipmapped), point and linear texel filtering at the mixed corners ((+1, -1) and (-1, +1)),
    layered maps (both layers), a bias and level clamps. Random textures, directions within
    1.5 texels of a corner of a face, footprints along any direction ending on the face
    (`scc_fetch_ex`; `corpus/vectors/seamcfglod`, `seamcfgfmt`, `seamcfgmixed`, `seamcfgsize`,
    `seamcfgsize2` `.jsonl.xz`)."""
    scf_run("seamcfgcheck", "scf", SCF_SETS, 20261130)

def _scn(tag, n, a, levels=1, cnt=512, **extra):
    return (tag, "f32", 1, "element", n, levels, "linear", "linear", a, 0, cnt, None,
            (1.5, min(8, n) if levels == 1 else n), extra)


# The `seamnpotcheck` sets: faces whose size is not a power of two (and 8 and 16 beside them),
# seamless (and, `.plain`, not: the taps clamped to the face).
SCN_SETS = [_scn("n%d.a%d" % (n, a), n, a) for n in (6, 10, 12, 20, 24, 40, 48, 100)
            for a in (4, 16)] + [
    _scn("n12.a16.r3", 12, 16, reach=3.0), _scn("n40.a16.r3", 40, 16, reach=3.0),
    _scn("n8.a16.r3", 8, 16, reach=3.0), _scn("n16.a16.r3", 16, 16, reach=3.0),
    _scn("n24.mip.a16", 24, 16, levels=4), _scn("n40.mip.a4", 40, 4, levels=5),
    _scn("n12.a16.plain", 12, 16, seamless=False), _scn("n40.a16.plain", 40, 16, seamless=False)]


def seamnpotcheck():
    """Seamless cube maps with anisotropic filtering near corners on faces of 6, 10, 12, 20,
    24, 40, 48 and 100 texels (`SCN_SETS`, `maxAnisotropy` 4 and 16, one level and mipmapped;
    directions within 1.5 or 3 texels of a corner), and two maps without seamless filtering
    beside them (`corpus/vectors/seamnpot1` to `seamnpot5` `.jsonl.xz`; the sets of 100-texel
    faces are not kept: too large)."""
    scf_run("seamnpotcheck", "scn", SCN_SETS, 20261131)


def seamptmixed():
    """Impulse probes as `seamcornerprobe`'s `scp.hi.pt.*`, at the mixed corners (+1, -1) and
    (-1, +1) of face +z (`scp.mx.pt.gK`, `scp.my.pt.gK`): point texel filtering, 8-texel
    faces, `maxAnisotropy` 16, fetches whose tap lies past an edge (`scp_keep`)."""
    fam = "seamptmixed"
    n = SCP_N
    for corner in ["mx", "my"]:
        d = desc("f32", 4, (n, n), 1, filt="point", mipfilter="linear", cube=True,
                 seamless=True, aniso=16)
        dirs, grads, _ = scp_probes(SCP_POINT, corner, False)
        for g, texels in cube_impulses(n):
            gadd("scp.%s.pt.g%d" % (corner, g), fam, d, "cube", "grad", dirs, grads=grads,
                 texels=texels)


# The `seamcfgcheck` fetches `seamcfgmiss` replays: set tag -> fetch indices.
SCFM_FETCHES = {"n40.a16": [82], "n12.a4": [138], "n24.mip.a16": [274, 295],
                "n40.mip.a4": [28]}


def scf_near_texels(d, n, dirs, grads):
    """The texels (level, face, i, j) of every level of a cube map of `n`-texel faces whose
    centres lie near the footprint of any of the fetches (direction, gradient pair): within
    the gradients' lengths and six texels of the level of the fetch's point on the cube."""
    out = []
    seen = set()
    for v, (g1, g2) in zip(dirs, grads):
        m = max(abs(c) for c in v)
        q = [c / m for c in v]
        glen = (math.sqrt(sum(c * c for c in g1)) + math.sqrt(sum(c * c for c in g2))) / m
        for k, (w, _, _, _) in enumerate(mip_levels(d)):
            r = glen + 12.0 / w + 2.0 / n
            for f in range(6):
                for j in range(w):
                    for i in range(w):
                        p = CUBE_FACES[f](2 * (i + 0.5) / w - 1, 2 * (j + 0.5) / w - 1)
                        if (k, f, i, j) not in seen and math.dist(p, q) < r:
                            seen.add((k, f, i, j))
                            out.append((k, f, i, j))
    return out


def seamcfgmiss():
    """The `seamcfgcheck` fetches the interpreter missed (`SCFM_FETCHES`), replayed on impulse
    textures: the set's face size, levels and filtering, `f32` RGBA texels all 0 but four
    one-hot ones (one per channel) among the texels near the footprints (`scf_near_texels`),
    so each case `scfm.TAG.gK` reads four texels' weights in each fetch. Reads the directions
    and gradients from `corpus/vectors/seamcfg*.jsonl.xz` (run from the repository's root)."""
    import glob
    import json
    import lzma
    import struct
    fam = "seamcfgmiss"
    rec = {}
    for path in sorted(glob.glob("corpus/vectors/seamcfg*.jsonl.xz")):
        with lzma.open(path, "rt") as f:
            rec.update({r["name"]: r for r in map(json.loads, f)})
    fl = lambda w: struct.unpack("<f", struct.pack("<I", int(w, 16)))[0]
    sets = {t[0]: t for t in SCF_SETS}
    for tag, idx in SCFM_FETCHES.items():
        (_, _, _, _, n, levels, filt, mf, a, layers, _, _, _, extra) = sets[tag]
        r = rec["scf." + tag]
        co, gr = r["args"][1]["hex"], r["args"][2]["hex"]
        dirs = [tuple(fl(w) for w in co[4 * i:4 * i + 3]) for i in idx]
        grads = [(tuple(fl(w) for w in gr[8 * i:8 * i + 4]),
                  tuple(fl(w) for w in gr[8 * i + 4:8 * i + 8])) for i in idx]
        d = desc("f32", 4, (n, n), levels, filt=filt, mipfilter=mf, cube=True, seamless=True,
                 aniso=a, **dict(extra))
        offs = []
        o = 0
        for (w, h, dd, nb) in mip_levels(d):
            offs.append((o, w))
            o += w * h * dd
        near = scf_near_texels(d, n, dirs, [(g[0][:3], g[1][:3]) for g in grads])
        for g in range((len(near) + 3) // 4):
            texels = [0] * (o * 4)
            for ch, (k, f, i, j) in enumerate(near[4 * g:4 * g + 4]):
                base, w = offs[k]
                texels[(base + (f * w + j) * w + i) * 4 + ch] = f32(1.0)
            gadd("scfm.%s.g%d" % (tag, g), fam, d, "cube", "grad", dirs, grads=grads,
                 texels=texels)
        print("scfm.%s: %d texels %s" % (tag, len(near), near), file=__import__("sys").stderr)



SCM_FETCHES = {16: ("scc.lin.a16", [508, 151, 58, 92, 280, 494]), 4: ("scc.lin.a4", [259, 469, 50])}


def seamcornermiss():
    """The fetches of `corpus/vectors/seamcorner2.jsonl.xz` that the interpreter missed before the
    rule for a log2 ratio of 511 (docs/INTERP.md, "Count and weights"), replayed on impulse
    textures as `seamcornerprobe`'s (96 cases per
    `maxAnisotropy`, `scpmiss.aA.gK`), so the texels each reads and their weights show
    (`corpus/aniso/seamcornermiss.jsonl.xz`). Reads the directions and gradients from that
    file (run from the repository's root)."""
    import json
    import lzma
    import struct
    fam = "seamcornermiss"
    n = SCP_N
    with lzma.open("corpus/vectors/seamcorner2.jsonl.xz", "rt") as f:
        rec = {r["name"]: r for r in map(json.loads, f)}
    fl = lambda w: struct.unpack("<f", struct.pack("<I", int(w, 16)))[0]
    for a, (name, idx) in SCM_FETCHES.items():
        co, gr = rec[name]["args"][1]["hex"], rec[name]["args"][2]["hex"]
        dirs = [tuple(fl(w) for w in co[4 * i:4 * i + 3]) for i in idx]
        grads = [(tuple(fl(w) for w in gr[8 * i:8 * i + 4]),
                  tuple(fl(w) for w in gr[8 * i + 4:8 * i + 8])) for i in idx]
        d = desc("f32", 4, (n, n), 1, filt="linear", mipfilter="linear", cube=True,
                 seamless=True, aniso=a)
        for g, texels in cube_impulses(n):
            gadd("scpmiss.a%d.g%d" % (a, g), fam, d, "cube", "grad", dirs, grads=grads,
                 texels=texels)



def _f32_up(x):
    """The least `f32` at or above `x`."""
    import struct
    v = struct.unpack("<f", struct.pack("<f", x))[0]
    if v < x:
        b = struct.unpack("<I", struct.pack("<f", v))[0]
        v = struct.unpack("<f", struct.pack("<I", b + 1 if v >= 0 else b - 1))[0]
    return v


def npot_coord(n, lo, hi, point=False):
    """A normalized coordinate whose position in a dimension of `n` texels lies just above a
    rounding boundary, by a random amount up to twice what flooring the coordinate to 2^-21
    takes off (`n 2^-21` texels): the filter's position (in texels, less half a texel, in
    1/256) just above a half 1/256, or for point filtering the texel coordinate just above a
    whole texel. The boundary is a random one between `lo` and `hi` texels."""
    if point:
        x = RNG.randrange(lo, hi) + RNG.uniform(0, 2 * n * 2.0 ** -21)
    else:
        p = RNG.randrange(256 * lo, 256 * hi) + 0.5
        x = (p + RNG.uniform(0, 2 * n * 256 * 2.0 ** -21)) / 256 + 0.5
    return _f32_up(x / n)


NPOTPOS_2D = [(48, 20), (40, 24), (12, 20), (64, 64)]
NPOTPOS_CUBE = [40, 24, 12, 64]


def npotpos():
    """Where the texture unit puts a coordinate on a texture whose size is not a power of two
    (`corpus/aniso/npotpos.jsonl.xz`): coordinates just above a rounding boundary of the
    position (`npot_coord`), on ramp textures (`f32` RGBA: x index, y index, the texel's index
    or the face, 0), so each fetch reads back where its taps lie. 2D textures of 48 x 20, 40 x 24,
    12 x 20 and 64 x 64 (control), 512 fetches per case: `tex` with linear filtering (clamped;
    wrapped, with coordinates from -2 to 2), point filtering, and anisotropic `tex.grad`
    (`maxAnisotropy` 4 and 16, a major axis of 3 texels along x and a minor one of 1, clamped
    and wrapped, and with point texel filtering); cube maps of 40, 24, 12 and 64 texels (face +z: the direction (x, y, 1), whose
    face coordinates are (x + 1) / 2 and (1 - y) / 2 exactly), `tex` and anisotropic
    `tex.grad` (`maxAnisotropy` 16, 3 texels along s, 1 along t)."""
    fam = "npotpos"
    cnt = 512
    for w, h in NPOTPOS_2D:
        tex = []
        for j in range(h):
            for i in range(w):
                tex += [f32(float(i)), f32(float(j)), f32(float(i + w * j)), 0]
        for kind in ["lin", "lin.wrap", "point", "a4", "a16", "a16.wrap", "a16.point"]:
            wrap = kind.endswith("wrap")
            point = kind.endswith("point")
            co = []
            for k in range(cnt):
                if wrap:
                    lo = [-2 * w, -2 * h]
                    hi = [2 * w, 2 * h]
                else:
                    lo, hi = [2, 2], [w - 3, h - 3]
                c = [npot_coord(n, lo[q], hi[q], point) if k % 4 != 3 else
                     RNG.uniform(lo[q], hi[q]) / n for q, n in enumerate((w, h))]
                # A quarter of the fetches near a boundary in one dimension only.
                if k % 4 == 1:
                    c[1] = RNG.uniform(lo[1], hi[1]) / h
                if k % 4 == 2:
                    c[0] = RNG.uniform(lo[0], hi[0]) / w
                co.append((c[0], c[1]))
            a = int(kind[1:].split(".")[0]) if kind.startswith("a") else 0
            extra = {"aniso": a} if a else {}
            d = desc("f32", 4, (w, h), 1, filt="point" if point else "linear",
                     mipfilter="linear", addr="wrap" if wrap else "clamp", **extra)
            if a:
                grads = [((3.0 / w, 0.0), (0.0, 1.0 / h))] * cnt
                gadd("np.%dx%d.%s" % (w, h, kind), fam, d, "2d", "grad", co, grads=grads,
                     texels=tex)
            else:
                gadd("np.%dx%d.%s" % (w, h, kind), fam, d, "2d", "", co, texels=tex)
    for n in NPOTPOS_CUBE:
        tex = []
        for f in range(6):
            for j in range(n):
                for i in range(n):
                    tex += [f32(float(i)), f32(float(j)), f32(float(f)), 0]
        for kind in ["lin", "a16"]:
            dirs = []
            for k in range(cnt):
                lo, hi = 3, n - 4
                s = npot_coord(n, lo, hi) if k % 4 != 2 else RNG.uniform(lo, hi) / n
                t = npot_coord(n, lo, hi) if k % 4 not in (1, 3) else RNG.uniform(lo, hi) / n
                # Face +z: s = (x + 1) / 2, t = (1 - y) / 2 with the major axis z = 1.
                dirs.append((2 * s - 1, 1 - 2 * t, 1.0))
            a = 16 if kind == "a16" else 0
            extra = {"aniso": a} if a else {}
            d = desc("f32", 4, (n, n), 1, filt="linear", mipfilter="linear", cube=True,
                     **extra)
            if a:
                grads = [((6.0 / n, 0.0, 0.0), (0.0, 2.0 / n, 0.0))] * cnt
                gadd("np.cube%d.%s" % (n, kind), fam, d, "cube", "grad", dirs, grads=grads,
                     texels=tex)
            else:
                gadd("np.cube%d.%s" % (n, kind), fam, d, "cube", "", dirs, texels=tex)



def _ramp_levels(d):
    """`f32` RGBA ramp texels of every level (and layer) of `d`: x mod 64, y, z or the layer,
    x // 64."""
    out = []
    for (w, h, dd, _) in mip_levels(d):
        for z in range(dd):
            for j in range(h):
                for i in range(w):
                    out += [f32(float(i % 64)), f32(float(j)), f32(float(z)), f32(float(i // 64))]
    return out


def npotpos2():
    """`npotpos` beyond 2D and cube maps of up to 48 texels (`corpus/aniso/npotpos2.jsonl.xz`):
    2D textures of 100, 1000 and 6000 texels (not powers of two) and 4096 and 8192 (powers of
    two, where flooring to 2^-21 would show from 8192 on) by 2 or 4, 1D (48) and 3D (12 x 20
    x 6) textures, a layered 2D one (40 x 24, two layers) and levels 1 and 2 of a mipmapped
    48 x 20 (`tex.level`, and `tex.grad` between levels 0 and 1 and on level 1): `tex` with
    linear and point filtering and anisotropic `tex.grad` (`maxAnisotropy` 16, 3 x 1
    texels), coordinates just above a rounding boundary at the level read (`npot_coord`),
    ramp texels (`_ramp_levels`)."""
    fam = "npotpos2"
    cnt = 512

    def coords(dims, point=False):
        out = []
        for k in range(cnt):
            c = []
            for n in dims:
                lo, hi = (2, n - 3) if n >= 8 else (0, n - 1)
                c.append(npot_coord(n, lo, hi, point) if k % 4 != 3 else
                         RNG.uniform(lo, hi) / n)
            out.append(tuple(c))
        return out
    for w, h in [(100, 4), (1000, 4), (6000, 2), (4096, 2), (8192, 2)]:
        for kind in ["lin", "point", "a16"]:
            point = kind == "point"
            a = 16 if kind == "a16" else 0
            extra = {"aniso": a} if a else {}
            d = desc("f32", 4, (w, h), 1, filt="point" if point else "linear",
                     mipfilter="linear", **extra)
            co = [(u, 0.5) for u, _ in coords((w, h), point)]
            if a:
                gadd("np2.%dx%d.%s" % (w, h, kind), fam, d, "2d", "grad", co,
                     grads=[((3.0 / w, 0.0), (0.0, 1.0 / h))] * cnt, texels=_ramp_levels(d))
            else:
                gadd("np2.%dx%d.%s" % (w, h, kind), fam, d, "2d", "", co, texels=_ramp_levels(d))
    for kind in ["lin", "point", "a16"]:
        point = kind == "point"
        a = 16 if kind == "a16" else 0
        extra = {"aniso": a} if a else {}
        d = desc("f32", 4, (48,), 1, filt="point" if point else "linear", mipfilter="linear",
                 **extra)
        co = [(u,) for (u,) in coords((48,), point)]
        if a:
            gadd("np2.1d48.%s" % kind, fam, d, "1d", "grad", co,
                 grads=[((3.0 / 48,), (1.0 / 48,))] * cnt, texels=_ramp_levels(d))
        else:
            gadd("np2.1d48.%s" % kind, fam, d, "1d", "", co, texels=_ramp_levels(d))
    for kind in ["lin", "point"]:
        d = desc("f32", 4, (12, 20, 6), 1, filt="point" if kind == "point" else "linear",
                 mipfilter="linear")
        gadd("np2.3d.%s" % kind, fam, d, "3d", "", coords((12, 20, 6), kind == "point"),
             texels=_ramp_levels(d))
    d = desc("f32", 4, (40, 24), 1, filt="linear", mipfilter="linear", layers=2)
    co = [(u, v, k % 2) for k, (u, v) in enumerate(coords((40, 24)))]
    gadd("np2.a2d.lin", fam, d, "a2d", "", co, texels=_ramp_levels(d))
    d = desc("f32", 4, (48, 20), 3, filt="linear", mipfilter="linear")
    for lv in (1, 2):
        gadd("np2.mip.level%d" % lv, fam, d, "2d", "level", coords((48 >> lv, 20 >> lv)),
             lods=[float(lv)] * cnt, texels=_ramp_levels(d))
    da = desc("f32", 4, (48, 20), 3, filt="linear", mipfilter="linear", aniso=16)
    # Minor axes of 1.5 texels (between levels 0 and 1) and 2 (level 1), major 4.5 and 6.
    for tag, (mj, mn, lv) in {"two": (4.5, 1.5, 0), "l1": (6.0, 2.0, 1)}.items():
        gadd("np2.mip.a16.%s" % tag, fam, da, "2d", "grad", coords((48 >> lv, 20 >> lv)),
             grads=[((mj / 48, 0.0), (0.0, mn / 20))] * cnt, texels=_ramp_levels(da))


def iso3d():
    """3D `f32` textures (32 x 32 x 32, six levels, linear texel and level filtering) without
    anisotropy and with `maxAnisotropy` 16 (a control): random `tex.level` fetches (8,192 and
    2,048), which tell whether the trilinear sum cuts each z slice as an anisotropic tap."""
    fam = "iso3d"
    dims, levels = (32, 32, 32), 6
    for a, n in [(0, 8192), (16, 2048)]:
        kw = {"aniso": a} if a else {}
        d = desc("f32", 1, dims, levels, filt="linear", mipfilter="linear", **kw)
        tex = random_texels(d)
        coords = [geom_coord("3d") for _ in range(n)]
        lv = [RNG.uniform(0, levels - 1) for _ in range(n)]
        gadd("i3d.level.a%d" % a, fam, d, "3d", "level", coords, lods=lv, texels=tex)


T.FAMILIES.update({"npotpos": npotpos, "npotpos2": npotpos2, "mipprobe": mipprobe, "gradfit": gradfit, "gradfit2": gradfit2, "gradfit3": gradfit3,
                   "mipint": mipint, "mipmap": mipmap, "oglprobe": oglprobe, "seamless": seamless,
                   "seamcorner": seamcorner, "seamtld4": seamtld4,
                   "seamtld4int": seamtld4int, "anisoaddr": anisoaddr,
                   "aniso16": aniso16, "aniso16probe": aniso16probe,
                   "anisoprobe": anisoprobe, "anisoprobe2": anisoprobe2,
                   "anisoprobe3": anisoprobe3, "anisoprobe4": anisoprobe4,
                   "aniso": aniso, "anisogeom": anisogeom,
                   "anisobias": anisobias, "anisocheck": anisocheck, "s16clamp": s16clamp,
                   "cubegrad": cubegrad, "cubenpot": cubenpot, "seamaniso": seamaniso, "linaniso": linaniso,
                   "seamcornerprobe": seamcornerprobe, "seamcornercheck": seamcornercheck,
                   "seamcornermiss": seamcornermiss,
                   "seamcfgcheck": seamcfgcheck, "seamptmixed": seamptmixed,
                   "seamcfgmiss": seamcfgmiss, "seamnpotcheck": seamnpotcheck,
                   "iso3d": iso3d, "seamcut": seamcut,
                   "seamcutlod": lambda: seamcut(lod_check=True), "seamcut2": seamcut2,
                   "seamcut2lod": lambda: seamcut2(lod_check=True), "seamcut3": seamcut3})

if __name__ == "__main__":
    T.main()
