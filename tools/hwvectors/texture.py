#!/usr/bin/env python3
"""Hardware-truth vectors for textures and surfaces (issue 28): `tex`, `tld4`, `txq`, `istypep`,
`suld`, `sust`, `sured`, `suq` on CUDA texture and surface objects.

Each case is a kernel with the vectors signature `k(p_out, p_a, p_b, p_c)` followed by one
`.param .u64` per texture object (`"textures"`) and then per surface object (`"surfaces"`). A
texture or surface is described as the interpreter's `tex:`/`surf:` argument is (docs/INTERP.md,
"Textures and surfaces"): its texels are the bytes of one of the case's buffers (`"buffer"`: 1 =
`in0`), dense, channels interleaved, x fastest, then y, then z or the layer. On the GPU that
buffer is copied into a CUDA array (or used in place for a linear resource) and a texture or
surface object is made from the description. A case may name `"out_buffer"`: the buffer whose
final contents are compared (a surface's, read back from its CUDA array) instead of `out`.

Families: texpoint (nearest sampling: every format, channel count, read mode, address mode,
normalized or not), texlinear (linear filtering), texgeom (1d/3d, layered, cube, integer
coordinates, linear resources, level/grad/offset/depth-compare/residency forms), tld4, texquery
(txq, suq, istypep), surface (suld, sust, sured); for fitting the filter: texprobe, texfit and
texfit2 (dense 1D sweeps), texw3d and texw3dclamp (one-hot trilinear weights, inside and at
clamped edges), each recorded to a file of its own (corpus/vectors/README.md). misaligned
probes surface accesses that may trap (run it alone).

Usage (GPU machine; needs CuPy):

    python3 tools/hwvectors/texture.py --out corpus/vectors/texture.jsonl [--family NAME]...

`--dry PATH` writes the cases with zero outputs (no GPU), `--list` prints them.
"""

import argparse
import json
import math
import random
import struct
import sys

HEADER = ".version 8.7\n.target sm_90\n.address_size 64\n"
RNG = random.Random(20261128)
CASES = []

ELEM = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "f16": 2, "f32": 4}


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def hexs(vals, width):
    digits = max(width // 4, 2)
    return [format(v & ((1 << width) - 1), "0%dx" % digits) for v in vals]


def kernel(body, ntex=0, nsurf=0, decls=""):
    """`%ro %ra %rb %rc`: the buffers; `%gid`: the global thread index; `%t0..` / `%s0..`: the
    texture and surface handles; `%ci`: the address of this thread's four coordinate words in
    `in1`; `%oi`: the address of its four output words in `out`."""
    params = ".param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c"
    loads = ""
    for i in range(ntex):
        params += ", .param .u64 pt%d" % i
        loads += "  ld.param.u64 %%t%d, [pt%d];\n" % (i, i)
    for i in range(nsurf):
        params += ", .param .u64 ps%d" % i
        loads += "  ld.param.u64 %%s%d, [ps%d];\n" % (i, i)
    return (HEADER + ".visible .entry k(" + params + ")\n{\n" +
            "  .reg .pred %p<8>;\n  .reg .b16 %h<16>;\n  .reg .b32 %r<32>;\n  .reg .f32 %f<32>;\n"
            "  .reg .b64 %rd<16>;\n  .reg .b32 %gid, %tx, %bx, %nt;\n"
            "  .reg .b64 %ro, %ra, %rb, %rc, %ci, %oi, %t<4>, %s<4>;\n" + decls +
            "  ld.param.u64 %ro, [p_out];\n  ld.param.u64 %ra, [p_a];\n"
            "  ld.param.u64 %rb, [p_b];\n  ld.param.u64 %rc, [p_c];\n" + loads +
            "  mov.u32 %tx, %tid.x;\n  mov.u32 %bx, %ctaid.x;\n  mov.u32 %nt, %ntid.x;\n"
            "  mad.lo.u32 %gid, %bx, %nt, %tx;\n"
            "  mul.wide.u32 %rd1, %gid, 16;\n  add.s64 %ci, %rb, %rd1;\n  add.s64 %oi, %ro, %rd1;\n"
            "  " + body.strip().replace("\n", "\n  ") + "\n  ret;\n}\n")


def case(name, family, ptx, n_out, texels, coords, textures=(), surfaces=(), threads=None,
         out_buffer=0, extra=None, out_type="u32"):
    """texels: (type, values) of in0; coords: 32-bit words of in1 (four per thread)."""
    n = threads if threads is not None else max(len(coords) // 4, 1)
    block = min(n, 128)
    grid = (n + block - 1) // block
    ins = [texels, ("u32", coords or [0]), extra or ("u32", [0])]
    CASES.append({"name": name, "family": family, "ptx": ptx, "out": (out_type, n_out),
                  "ins": ins, "grid": [grid, 1, 1], "block": [block, 1, 1],
                  "textures": list(textures), "surfaces": list(surfaces),
                  "out_buffer": out_buffer})


def texel_values(ty, n):
    """n random texel channel values of a type, with the edge values first."""
    edges = {
        "u8": [0, 255, 1, 128], "s8": [0, 127, -128, -127, -1], "u16": [0, 65535, 1, 32768],
        "s16": [0, 32767, -32768, -32767, -1], "u32": [0, 0xFFFFFFFF, 1, 0x80000000],
        "s32": [0, -1, 0x7FFFFFFF, -0x80000000],
    }
    out = []
    if ty in edges:
        bits = 8 * ELEM[ty]
        lo, hi = (0, (1 << bits) - 1) if ty[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        out = edges[ty][:n] + [RNG.randint(lo, hi) for _ in range(max(n - len(edges[ty]), 0))]
        return [v & ((1 << bits) - 1) for v in out]
    if ty == "f16":
        vals = [0.0, -0.0, 1.0, -2.5, 65504.0, 6e-8, float("inf"), float("nan")]
        out = [f16(v) for v in vals[:n]]
        while len(out) < n:
            out.append(f16(RNG.uniform(-100, 100)))
        return out
    vals = [0.0, -0.0, 1.0, -2.5, 3.4e38, 1e-45, float("inf"), float("nan")]
    out = [f32(v) for v in vals[:n]]
    while len(out) < n:
        out.append(f32(RNG.uniform(-1000, 1000)))
    return out


def tex_desc(ty, ch, dims, addr="clamp", filt="point", read="element", norm=False,
             border=None, layers=0, cube=False, res="array", buffer=1):
    d = {"buffer": buffer, "type": ty, "channels": ch, "dims": list(dims),
         "addr": [addr] * 3 if isinstance(addr, str) else list(addr), "filter": filt,
         "read": read, "normalized": norm}
    if border:
        d["border"] = list(border)
    if layers:
        d["layers"] = layers
    if cube:
        d["cube"] = True
    if res != "array":
        d["res"] = res
    return d


def fcoords(vals):
    return [f32(v) for v in vals]


# Unnormalized coordinates for a W x H texture: in range, texel edges and centres, out of range,
# negative, huge, NaN.
def point_coords(w, h, n):
    special = [(0.0, 0.0), (0.5, 0.5), (w - 0.5, h - 0.5), (w, h), (w + 0.25, 1.5), (-0.25, -1.0),
               (-5.5, 2.0), (1e9, -1e9), (float("nan"), 1.0), (float("inf"), float("-inf")),
               (2.9999998, 1.0000001), (1.0, 2.0)]
    out = []
    for i in range(n):
        if i < len(special):
            x, y = special[i]
        else:
            x, y = RNG.uniform(-2, w + 2), RNG.uniform(-2, h + 2)
        out += [x, y, 0.0, 0.0]
    return out


def norm_coords(n):
    special = [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (-0.25, 1.25), (1.5, -0.5), (2.75, 3.1),
               (-1.0, -2.0), (0.999, 0.001), (float("nan"), 0.5), (1e9, 1e-9)]
    out = []
    for i in range(n):
        x, y = special[i] if i < len(special) else (RNG.uniform(-2.5, 2.5), RNG.uniform(-2.5, 2.5))
        out += [x, y, 0.0, 0.0]
    return out


def tex2d_kernel(dtype, ctype="f32", ntex=1, pred=False, form="", extra_ops="", tex="%t0",
                 geom="2d", coords="{%f0, %f1}"):
    """Loads four coordinate words, fetches, stores the four result words; with `pred` the
    residency predicate (as 0 or 1) replaces the fourth word."""
    load = "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
    load += "mov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\nmov.b32 %f3, %r3;\n"
    dst = "{%r4, %r5, %r6, %r7}"
    if dtype == "f16":
        dst = "{%h0, %h1, %h2, %h3}"
    if dtype == "f16x2":
        dst = "{%r4, %r5}"
    if pred:
        dst += "|%p1"
    op = "tex%s.%s.%s.%s.%s" % (form, geom, "v2" if dtype == "f16x2" else "v4", dtype, ctype)
    body = load + "%s %s, [%s, %s]%s;\n" % (op, dst, tex, coords, extra_ops)
    if dtype == "f16":
        body += ("cvt.u32.u16 %r4, %h0;\ncvt.u32.u16 %r5, %h1;\ncvt.u32.u16 %r6, %h2;\n"
                 "cvt.u32.u16 %r7, %h3;\n")
    if dtype == "f16x2":
        body += "mov.b32 %r6, 0;\nmov.b32 %r7, 0;\n"
    if pred:
        body += "selp.u32 %r7, 1, 0, %p1;\n"
    body += "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n"
    return kernel(body, ntex=ntex)


# ----------------------------------------------------------------------------- families

def texpoint():
    w, h = 8, 4
    n = 40
    for ty in ["u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"]:
        for ch in [1, 2, 4]:
            reads = ["element", "normalized"] if ELEM[ty] <= 2 and ty != "f16" else ["element"]
            for read in reads:
                vals = texel_values(ty, w * h * ch)
                floaty = ty in ("f16", "f32") or read == "normalized"
                dtypes = ["f32"] if floaty else (["s32"] if ty[0] == "s" else ["u32"])
                if floaty and ty in ("f16", "f32") or read == "normalized":
                    dtypes.append("f16")
                for dt in dtypes:
                    for addr in ["clamp", "border"]:
                        d = tex_desc(ty, ch, (w, h), addr=addr, read=read,
                                     border=[0.5, -2.0, 3.0, 1e-3] if addr == "border" else None)
                        case("tex.point.%s.c%d.%s.%s.%s" % (ty, ch, read, dt, addr), "texpoint",
                             tex2d_kernel(dt), 4 * n, (ty, vals),
                             fcoords(point_coords(w, h, n)), textures=[d])
    # Address modes with normalized coordinates, on a 4-channel f32 and a 1-channel u8 texture.
    for ty, ch, read in [("f32", 4, "element"), ("u8", 1, "normalized")]:
        vals = texel_values(ty, w * h * ch)
        for addr in ["wrap", "mirror", "clamp", "border"]:
            d = tex_desc(ty, ch, (w, h), addr=addr, read=read, norm=True)
            case("tex.point.norm.%s.c%d.%s" % (ty, ch, addr), "texpoint", tex2d_kernel("f32"),
                 4 * n, (ty, vals), fcoords(norm_coords(n)), textures=[d])
    # Wrap and mirror with unnormalized coordinates (the runtime makes them clamp).
    vals = texel_values("f32", w * h)
    for addr in ["wrap", "mirror"]:
        d = tex_desc("f32", 1, (w, h), addr=addr)
        case("tex.point.unnorm.%s" % addr, "texpoint", tex2d_kernel("f32"), 4 * n, ("f32", vals),
             fcoords(point_coords(w, h, n)), textures=[d])
    # Integer result types on a float texture and the reverse (what the bits are).
    vals = texel_values("f32", w * h)
    case("tex.point.f32.as.s32", "texpoint", tex2d_kernel("s32"), 4 * 16, ("f32", vals),
         fcoords(point_coords(w, h, 16)), textures=[tex_desc("f32", 1, (w, h))])
    vals = texel_values("s16", w * h)
    case("tex.point.s16.as.f32", "texpoint", tex2d_kernel("f32"), 4 * 16, ("s16", vals),
         fcoords(point_coords(w, h, 16)), textures=[tex_desc("s16", 1, (w, h))])


def ramp(ty, n, ch):
    """Texel values for filtering: random, of moderate size so that sums are informative."""
    if ty == "f32":
        return [f32(RNG.uniform(-8, 8)) for _ in range(n * ch)]
    if ty == "f16":
        return [f16(RNG.uniform(-8, 8)) for _ in range(n * ch)]
    bits = 8 * ELEM[ty]
    if ty[0] == "u":
        return [RNG.randint(0, (1 << bits) - 1) for _ in range(n * ch)]
    return [RNG.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1) & ((1 << bits) - 1)
            for _ in range(n * ch)]


def texlinear():
    w, h = 8, 4
    n = 256
    for ty, ch, read in [("f32", 1, "element"), ("f32", 4, "element"), ("f16", 2, "element"),
                         ("u8", 4, "normalized"), ("s8", 1, "normalized"),
                         ("u16", 1, "normalized"), ("s16", 2, "normalized")]:
        vals = ramp(ty, w * h, ch)
        for addr in ["clamp", "border"]:
            d = tex_desc(ty, ch, (w, h), addr=addr, filt="linear", read=read)
            coords = []
            for i in range(n):
                if i < 64:
                    # Fractions on the 1/256 grid and half-way between grid points.
                    x = 1.5 + (i / 256.0 if i < 32 else (i - 32 + 0.5) / 256.0)
                    y = 2.5 - i / 512.0
                else:
                    x, y = RNG.uniform(-1, w + 1), RNG.uniform(-1, h + 1)
                coords += [x, y, 0.0, 0.0]
            case("tex.linear.%s.c%d.%s" % (ty, ch, addr), "texlinear", tex2d_kernel("f32"), 4 * n,
                 (ty, vals), fcoords(coords), textures=[d])
    # Normalized coordinates with wrap and mirror.
    vals = ramp("f32", w * h, 1)
    for addr in ["wrap", "mirror", "clamp"]:
        d = tex_desc("f32", 1, (w, h), addr=addr, filt="linear", norm=True)
        coords = []
        for i in range(n):
            coords += [RNG.uniform(-1.5, 2.5), RNG.uniform(-1.5, 2.5), 0.0, 0.0]
        case("tex.linear.norm.f32.%s" % addr, "texlinear", tex2d_kernel("f32"), 4 * n,
             ("f32", vals), fcoords(coords), textures=[d])
    # 1D and 3D.
    vals = ramp("f32", 16, 1)
    d = tex_desc("f32", 1, (16,), filt="linear")
    coords = []
    for i in range(128):
        coords += [RNG.uniform(-1, 17), 0.0, 0.0, 0.0]
    case("tex.linear.1d.f32", "texlinear", tex2d_kernel("f32", geom="1d", coords="{%f0}"), 4 * 128,
         ("f32", vals), fcoords(coords), textures=[d])
    vals = ramp("f32", 4 * 4 * 4, 1)
    d = tex_desc("f32", 1, (4, 4, 4), filt="linear")
    coords = []
    for i in range(128):
        coords += [RNG.uniform(-0.5, 4.5), RNG.uniform(-0.5, 4.5), RNG.uniform(-0.5, 4.5), 0.0]
    case("tex.linear.3d.f32", "texlinear",
         tex2d_kernel("f32", geom="3d", coords="{%f0, %f1, %f2, %f3}"), 4 * 128, ("f32", vals),
         fcoords(coords), textures=[d])
    # Large values: does the weighted sum keep f32 precision?
    vals = [f32(v) for v in [1e30, -1e30, 3.0, 1e-30, 16777216.0, 1.0, 0.1, -0.3] * 4]
    d = tex_desc("f32", 1, (w, h), filt="linear")
    coords = []
    for i in range(128):
        coords += [RNG.uniform(0, w), RNG.uniform(0, h), 0.0, 0.0]
    case("tex.linear.f32.wide", "texlinear", tex2d_kernel("f32"), 4 * 128, ("f32", vals),
         fcoords(coords), textures=[d])


def texgeom():
    w, h = 8, 4
    # Integer coordinates on an array and on a linear resource (tex1Dfetch).
    vals = texel_values("u32", 16)
    icoords = [0, 1, 15, 16, 17, -1, -100, 0x7FFFFFFF, 3, 8]
    words = []
    for c in icoords:
        words += [c & 0xFFFFFFFF, 0, 0, 0]
    for res in ["array", "linear"]:
        for addr in ["clamp", "border"]:
            d = tex_desc("u32", 1, (16,), addr=addr, res=res)
            body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                    "tex.1d.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%t0, {%r0}];\n"
                    "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
            case("tex.1d.s32.%s.%s" % (res, addr), "texgeom", kernel(body, ntex=1),
                 4 * len(icoords), ("u32", vals), words, textures=[d])
    # Integer coordinates on a 2D array texture with linear filtering configured.
    vals = ramp("f32", w * h, 1)
    d = tex_desc("f32", 1, (w, h), filt="linear")
    words = []
    for x, y in [(0, 0), (1, 2), (7, 3), (8, 4), (-1, 0), (3, -2)]:
        words += [x & 0xFFFFFFFF, y & 0xFFFFFFFF, 0, 0]
    body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
            "tex.2d.v4.f32.s32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %r1}];\n"
            "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
    case("tex.2d.s32.linear", "texgeom", kernel(body, ntex=1), 4 * 6, ("f32", vals), words,
         textures=[d])
    # Layered 1D and 2D.
    vals = ramp("f32", 8 * 3, 1)
    d = tex_desc("f32", 1, (8,), layers=3)
    words = []
    for i in range(24):
        words += [i % 5, f32(RNG.uniform(-1, 9)), 0, 0]
    body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\nmov.b32 %f1, %r1;\n"
            "tex.a1d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %f1}];\n"
            "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
    case("tex.a1d.f32", "texgeom", kernel(body, ntex=1), 4 * 24, ("f32", vals), words,
         textures=[d])
    vals = ramp("f32", 4 * 4 * 3, 1)
    for filt in ["point", "linear"]:
        d = tex_desc("f32", 1, (4, 4), layers=3, filt=filt)
        words = []
        for i in range(32):
            words += [[0, 1, 2, 3, 7, 0xFFFFFFFF][i % 6], f32(RNG.uniform(-1, 5)),
                      f32(RNG.uniform(-1, 5)), 0]
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\nmov.b32 %f1, %r1;\n"
                "mov.b32 %f2, %r2;\n"
                "tex.a2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %f1, %f2, %f2}];\n"
                "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
        case("tex.a2d.f32.%s" % filt, "texgeom", kernel(body, ntex=1), 4 * 32, ("f32", vals), words,
             textures=[d])
    # Cube maps: face selection, and cube arrays.
    vals = [f32(float(100 * f + 10 * y + x)) for f in range(6) for y in range(4) for x in range(4)]
    dirs = []
    for i in range(64):
        v = [RNG.uniform(-1, 1) for _ in range(3)]
        k = i % 3
        v[k] = (1.5 if i % 2 else -1.5) * (1 + RNG.random())
        dirs.append(v)
    dirs += [[1, 1, 1], [-1, 1, 1], [1, -1, 1], [0.5, 0.5, -0.5], [0, 0, 1], [0, 0, -1], [1, 0, 0],
             [0, 1, 0], [0, -1, 0], [-1, 0, 0], [0, 0, 0], [1, 0.999, 0.2], [0.2, 1, 0.999]]
    for filt in ["point", "linear"]:
        d = tex_desc("f32", 1, (4, 4), cube=True, filt=filt)
        words = []
        for v in dirs:
            words += fcoords(v) + [0]
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                "mov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\n"
                "tex.cube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%f0, %f1, %f2, %f2}];\n"
                "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
        case("tex.cube.f32.%s" % filt, "texgeom", kernel(body, ntex=1), 4 * len(dirs),
             ("f32", vals), words, textures=[d])
    vals2 = vals + [f32(float(1000 + 100 * f + 10 * y + x)) for f in range(6) for y in range(4)
                    for x in range(4)]
    d = tex_desc("f32", 1, (4, 4), cube=True, layers=2)
    words = []
    for i, v in enumerate(dirs):
        words += [i % 3] + fcoords(v)
    body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
            "mov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\nmov.b32 %f3, %r3;\n"
            "tex.acube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%r0, %f1, %f2, %f3}];\n"
            "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
    case("tex.acube.f32", "texgeom", kernel(body, ntex=1), 4 * len(dirs), ("f32", vals2), words,
         textures=[d])
    # 3D point sampling.
    vals = ramp("f32", 4 * 3 * 2, 1)
    d = tex_desc("f32", 1, (4, 3, 2))
    coords = []
    for i in range(48):
        coords += [RNG.uniform(-1, 5), RNG.uniform(-1, 4), RNG.uniform(-1, 3), 0.0]
    case("tex.3d.f32.point", "texgeom",
         tex2d_kernel("f32", geom="3d", coords="{%f0, %f1, %f2, %f3}"), 4 * 48, ("f32", vals),
         fcoords(coords), textures=[d])
    # level / grad / base forms, offsets, depth compare and residency, on a 2D texture.
    vals = ramp("f32", w * h, 1)
    cw = fcoords(point_coords(w, h, 32))
    for filt in ["point", "linear"]:
        d = tex_desc("f32", 1, (w, h), filt=filt)
        variants = [
            ("base", ".base", ""),
            ("level0", ".level", ", %f2"),
            ("level", ".level", ", 0f40400000"),
            ("grad", ".grad", ", {%f2, %f3}, {%f3, %f2}"),
            ("offset", "", ", {%r8, %r9}"),
            ("offset.level", ".level", ", 0f3F800000, {%r8, %r9}"),
            ("depth", "", ", 0f40000000"),
        ]
        for vname, form, ops in variants:
            k = tex2d_kernel("f32", form=form, extra_ops=ops)
            k = k.replace("  ld.global.v4.b32 {%r0", "  mov.b32 %r8, 3;\n  mov.b32 %r9, -2;\n"
                          "  ld.global.v4.b32 {%r0", 1)
            case("tex.2d.%s.%s" % (vname, filt), "texgeom", k, 4 * 32, ("f32", vals), cw,
                 textures=[d])
        case("tex.2d.pred.%s" % filt, "texgeom", tex2d_kernel("f32", pred=True), 4 * 32,
             ("f32", vals), cw, textures=[d])
    # f16 and f16x2 results.
    vals = ramp("f32", w * h * 4, 1)
    for dt in ["f16", "f16x2"]:
        d = tex_desc("f32", 4, (w, h), filt="linear")
        case("tex.2d.%s.f32tex" % dt, "texgeom", tex2d_kernel(dt), 4 * 32, ("f32", vals), cw,
             textures=[d])
    # Two textures in one kernel, chosen per thread (the handle is data).
    va = ramp("f32", w * h, 1)
    body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\nmov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\n"
            "and.b32 %r9, %gid, 1;\nsetp.eq.u32 %p2, %r9, 0;\nselp.b64 %rd2, %t0, %t1, %p2;\n"
            "tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd2, {%f0, %f1}];\n"
            "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
    d0 = tex_desc("f32", 1, (w, h))
    d1 = tex_desc("f32", 1, (w, h), filt="linear", addr="border")
    case("tex.2d.two", "texgeom", kernel(body, ntex=2), 4 * 32, ("f32", va), cw,
         textures=[d0, d1])


def tld4():
    w, h = 8, 4
    n = 96
    for ty, ch, read, dt in [("f32", 4, "element", "f32"), ("u8", 4, "normalized", "f32"),
                             ("u8", 4, "element", "u32"), ("s16", 2, "element", "s32"),
                             ("f32", 1, "element", "f32")]:
        vals = ramp(ty, w * h, ch)
        for addr in ["clamp", "border"]:
            d = tex_desc(ty, ch, (w, h), addr=addr, read=read)
            d["gather"] = True  # the CUDA array is made with cudaArrayTextureGather
            coords = []
            for i in range(n):
                coords += [RNG.uniform(-1, w + 1), RNG.uniform(-1, h + 1), 0.0, 0.0]
            coords[:8] = [2.49805, 1.5, 0, 0, 1.0, 1.0, 0, 0]
            for comp in ["r", "g", "b", "a"]:
                body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                        "mov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\n"
                        "tld4." + comp + ".2d.v4." + dt + ".f32" +
                        " {%r4, %r5, %r6, %r7}, [%t0, {%f0, %f1}];\n"
                        "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
                case("tld4.%s.%s.c%d.%s.%s" % (comp, ty, ch, read, addr), "tld4",
                     kernel(body, ntex=1), 4 * n, (ty, vals), fcoords(coords), textures=[d])


def texquery():
    descs = [
        tex_desc("f32", 1, (8, 4)),
        tex_desc("u8", 4, (16,), filt="linear", read="normalized", addr="border"),
        tex_desc("s16", 2, (5, 6, 7), addr="wrap", norm=True),
        tex_desc("f16", 1, (4, 4), layers=3, addr=("mirror", "clamp", "border"), norm=True),
        tex_desc("u32", 1, (32,), res="linear"),
        tex_desc("f32", 4, (4, 4), cube=True, layers=2),
    ]
    tq = ["width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
          "array_size", "num_mipmap_levels", "num_samples", "filter_mode", "addr_mode_0",
          "addr_mode_1", "addr_mode_2", "force_unnormalized_coords"]
    tq = [("txq.%s.b32 %%r1, [%%t0];" % q, q) for q in tq]
    tq += [("txq.level.width.b32 %r1, [%t0], 0;", "level.width"),
           ("txq.level.height.b32 %r1, [%t0], 1;", "level.height")]
    tq += [("istypep.%s %%p1, %%t0;\nselp.u32 %%r1, 1, 0, %%p1;" % t, "istypep." + t)
           for t in ["texref", "samplerref", "surfref"]]
    # Each query is a case of its own, so that one ptxas rejects costs only itself.
    for i, d in enumerate(descs):
        size = max(d["dims"][0] * (d["dims"][1] if len(d["dims"]) > 1 else 1) *
                   (d["dims"][2] if len(d["dims"]) > 2 else 1) * max(d.get("layers", 1), 1) *
                   (6 if d.get("cube") else 1) * d["channels"], 1)
        for inst, q in tq:
            body = inst.replace("%%", "%") + "\nst.global.b32 [%ro], %r1;\n"
            case("txq.%d.%s.c%d.%s" % (i, d["type"], d["channels"], q), "texquery",
                 kernel(body, ntex=1), 1, (d["type"], texel_values(d["type"], size)),
                 [0, 0, 0, 0], textures=[d], threads=1)
    sq = ["width", "height", "depth", "channel_data_type", "channel_order", "array_size",
          "memory_layout"]
    sq = [("suq.%s.b32 %%r1, [%%s0];" % q, q) for q in sq]
    sq += [("istypep.%s %%p1, %%s0;\nselp.u32 %%r1, 1, 0, %%p1;" % t, "istypep." + t)
           for t in ["texref", "samplerref", "surfref"]]
    for i, (ty, ch, dims, layers) in enumerate([("f32", 1, (8, 4), 0), ("u8", 4, (16,), 0),
                                                ("s16", 2, (5, 6, 7), 0),
                                                ("u32", 1, (4, 4), 3)]):
        d = {"buffer": 1, "type": ty, "channels": ch, "dims": list(dims)}
        if layers:
            d["layers"] = layers
        size = ch * math.prod(dims) * max(layers, 1)
        for inst, q in sq:
            body = inst.replace("%%", "%") + "\nst.global.b32 [%ro], %r1;\n"
            case("suq.%d.%s.c%d.%s" % (i, ty, ch, q), "texquery", kernel(body, nsurf=1), 1,
                 (ty, texel_values(ty, size)), [0, 0, 0, 0], surfaces=[d], threads=1)
    # istypep on values that are not handles.
    body = ("mov.b64 %rd2, 0;\nistypep.texref %p1, %rd2;\nselp.u32 %r1, 1, 0, %p1;\n"
            "istypep.surfref %p1, %rd2;\nselp.u32 %r2, 1, 0, %p1;\n"
            "istypep.samplerref %p1, %rd2;\nselp.u32 %r3, 1, 0, %p1;\n"
            "mov.b64 %rd2, 0x123456789;\nistypep.texref %p1, %rd2;\nselp.u32 %r4, 1, 0, %p1;\n"
            "st.global.v4.b32 [%ro], {%r1, %r2, %r3, %r4};\n")
    case("istypep.garbage", "texquery", kernel(body), 4, ("u32", [0]), [0, 0, 0, 0], threads=1)


def surface():
    # Unformatted loads: every width and vector, every geometry, in and out of range under
    # .clamp and .zero (x is a byte offset).
    for ty, ch, dims, layers, geom in [("u32", 1, (16, 4), 0, "2d"), ("u8", 4, (8, 3), 0, "2d"),
                                       ("u16", 2, (32,), 0, "1d"), ("f32", 4, (4, 3, 2), 0, "3d"),
                                       ("u32", 2, (8,), 3, "a1d"), ("u16", 1, (8, 4), 2, "a2d")]:
        ebytes = ELEM[ty] * ch
        size = ch * math.prod(dims) * max(layers, 1)
        vals = ramp(ty, size, 1)
        d = {"buffer": 1, "type": ty, "channels": ch, "dims": list(dims)}
        if layers:
            d["layers"] = layers
        wb = dims[0] * ebytes
        for vec, dt in [("", "b8"), ("", "b16"), ("", "b32"), ("", "b64"), (".v2", "b32"),
                        (".v4", "b32"), (".v2", "b64"), (".v4", "b16")]:
            acc = {"b8": 1, "b16": 2, "b32": 4, "b64": 8}[dt] * {"": 1, ".v2": 2, ".v4": 4}[vec]
            if acc > 16:
                continue
            for mode in ["clamp", "zero"]:
                words = []
                for i in range(64):
                    if i < 8:
                        x = [0, acc, wb - acc, wb, wb + acc, -acc, -1000 * acc, 2 * wb][i]
                    else:
                        x = RNG.randrange(-2 * acc, wb + 2 * acc)
                        x -= x % acc
                    ys = [RNG.randrange(-1, (dims[1] if len(dims) > 1 else 1) + 1)
                          for _ in range(2)]
                    z = RNG.randrange(-1, (dims[2] if len(dims) > 2 else 1) + 1)
                    idx = RNG.randrange(0, layers + 1) if layers else 0
                    if geom == "1d":
                        w4 = [x, 0, 0, 0]
                    elif geom == "2d":
                        w4 = [x, ys[0], 0, 0]
                    elif geom == "3d":
                        w4 = [x, ys[0], z, 0]
                    elif geom == "a1d":
                        w4 = [idx, x, 0, 0]
                    else:
                        w4 = [idx, x, ys[0], 0]
                    words += [v & 0xFFFFFFFF for v in w4]
                coords = {"1d": "{%r0}", "2d": "{%r0, %r1}", "3d": "{%r0, %r1, %r2, %r3}",
                          "a1d": "{%r0, %r1}", "a2d": "{%r0, %r1, %r2, %r3}"}[geom]
                nreg = {"": 1, ".v2": 2, ".v4": 4}[vec]
                if dt == "b64":
                    dst = ["%rd" + str(4 + j) for j in range(nreg)]
                elif dt == "b32":
                    dst = ["%r" + str(4 + j) for j in range(nreg)]
                else:
                    dst = ["%h" + str(4 + j) for j in range(nreg)]
                dstr = dst[0] if nreg == 1 else "{" + ", ".join(dst) + "}"
                body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n" +
                        "suld.b.%s%s.%s.%s %s, [%%s0, %s];\n" % (geom, vec, dt, mode, dstr, coords))
                # Store the result as 16 bytes: registers widened to 32 bits, 64-bit ones split.
                outs = []
                for r in dst:
                    if dt == "b64":
                        body += "mov.b64 {%%r%d, %%r%d}, %s;\n" % (20 + len(outs), 21 + len(outs), r)
                        outs += ["%%r%d" % (20 + len(outs)), "%%r%d" % (21 + len(outs))]
                    elif dt == "b32":
                        outs.append(r)
                    else:
                        body += "cvt.u32.u16 %%r%d, %s;\n" % (20 + len(outs), r)
                        outs.append("%%r%d" % (20 + len(outs)))
                outs = (outs + ["%r31"] * 4)[:4]
                body = body.replace("%%", "%")
                body = "mov.b32 %r31, 0;\n" + body
                body += "st.global.v4.b32 [%%oi], {%s};\n" % ", ".join(o.replace("%%", "%")
                                                                        for o in outs)
                case("suld.%s%s.%s.%s.%s" % (geom, vec, dt, mode, ty), "surface",
                     kernel(body, nsurf=1), 4 * 64, (ty, vals), words, surfaces=[d])
    # Stores: each thread writes its own unit (no two threads the same bytes), and the surface is
    # compared. Under .zero some threads write out of range (dropped); .clamp moves an
    # out-of-range store onto an element another thread writes, so its probes are one thread.
    for ty, ch, dims, geom in [("u32", 1, (16, 4), "2d"), ("u8", 4, (8, 4), "2d"),
                               ("u16", 2, (32,), "1d"), ("f32", 2, (4, 4, 2), "3d")]:
        ebytes = ELEM[ty] * ch
        size = ch * math.prod(dims)
        vals = ramp(ty, size, 1)
        d = {"buffer": 1, "type": ty, "channels": ch, "dims": list(dims)}
        row = dims[0] * ebytes
        d1 = dims[1] if len(dims) > 1 else 1
        d2 = dims[2] if len(dims) > 2 else 1
        coords = {"1d": "{%r0}", "2d": "{%r0, %r1}", "3d": "{%r0, %r1, %r2, %r2}"}[geom]
        for dt, vec in [("b8", ""), ("b16", ""), ("b32", ""), ("b32", ".v2"), ("b64", "")]:
            acc = {"b8": 1, "b16": 2, "b32": 4, "b64": 8}[dt] * (2 if vec else 1)
            unit = max(acc, ebytes)
            upr = row // unit
            n_units = upr * d1 * d2
            if dt == "b64":
                src, pre = "%rd4", "mov.b64 %rd4, {%r3, %gid};\n"
            elif dt == "b32":
                src, pre = ("{%r3, %gid}" if vec else "%r3"), ""
            else:
                src, pre = "%h4", "cvt.u16.u32 %h4, %r3;\n"
            probes = [("zero", None)] + [("clamp", None)] + \
                [("clamp", p) for p in [(row + 8, 0, 0), (-unit, 1 % d1, 0), (0, d1 + 2, 0),
                                        (row - acc, -3, d2 + 1)]]
            for mode, probe in probes:
                words = []
                if probe is None:
                    perm = list(range(n_units))
                    RNG.shuffle(perm)
                    for t, u in enumerate(perm):
                        x = (u % upr) * unit
                        y = (u // upr) % d1
                        z = u // (upr * d1)
                        if mode == "zero" and t % 7 == 3:
                            x = -unit if t % 2 else row
                        words += [x & 0xFFFFFFFF, y, z, RNG.getrandbits(32)]
                else:
                    words = [v & 0xFFFFFFFF for v in probe] + [RNG.getrandbits(32)]
                body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n" + pre +
                        "sust.b.%s%s.%s.%s [%%s0, %s], %s;\n" % (geom, vec, dt, mode, coords, src))
                body = body.replace("%%", "%")
                tag = "" if probe is None else ".at%d_%d_%d" % probe
                case("sust.%s%s.%s.%s.%s%s" % (geom, vec, dt, mode, ty, tag), "surface",
                     kernel(body, nsurf=1), max(size * ELEM[ty] // 4, 1), (ty, vals), words,
                     surfaces=[d], threads=len(words) // 4, out_buffer=1)
    # Formatted stores (sust.p): the lowest coordinate is an element index; f32 values go through
    # the surface's format.
    for ty, ch in [("f32", 4), ("u8", 4), ("s16", 2), ("u32", 1), ("f16", 2)]:
        dims = (8, 4)
        size = ch * 32
        vals = ramp(ty, size, 1)
        d = {"buffer": 1, "type": ty, "channels": ch, "dims": list(dims)}
        words = []
        for t in range(32):
            if ty in ("f32", "f16"):
                v = RNG.uniform(-2, 2)
            elif ty == "u32":
                v = RNG.getrandbits(32)
            else:
                v = RNG.uniform(-1.5, 1.5)
            words += [t % 8, t // 8, f32(v) if not isinstance(v, int) else v,
                      f32(RNG.uniform(-300, 300))]
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                "sust.p.2d.v4.b32.trap [%s0, {%r0, %r1}], {%r2, %r3, %r2, %r3};\n")
        case("sust.p.2d.%s.c%d" % (ty, ch), "surface", kernel(body, nsurf=1),
             max(size * ELEM[ty] // 4, 1), (ty, vals), words, surfaces=[d], threads=32,
             out_buffer=1)
    # Reductions: many threads on few elements.
    for op, ty in [("add", "u32"), ("add", "s32"), ("min", "s32"), ("max", "u32"), ("and", "b32"),
                   ("or", "b32"), ("add", "u64"), ("min", "s64"), ("max", "u64")]:
        wide = ty[1:] == "64"
        sty = "u32"
        dims = (8, 2)
        ebytes = 8 if wide else 4
        d = {"buffer": 1, "type": sty, "channels": 2 if wide else 1, "dims": list(dims)}
        vals = ramp(sty, 16 * (2 if wide else 1), 1)
        words = []
        for t in range(128):
            words += [(t % 8) * ebytes, (t // 8) % 2, 0, RNG.getrandbits(32)]
        if wide:
            pre = "cvt.u64.u32 %rd4, %r3;\nshl.b64 %rd4, %rd4, 17;\nxor.b64 %rd4, %rd4, 0xf00000000001;\n"
            if ty == "s64":
                pre += "neg.s64 %rd5, %rd4;\nand.b32 %r9, %gid, 1;\nsetp.eq.u32 %p3, %r9, 0;\nselp.b64 %rd4, %rd4, %rd5, %p3;\n"
            src = "%rd4"
        else:
            pre, src = "", "%r3"
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n" + pre +
                "sured.b.%s.2d.%s.trap [%%s0, {%%r0, %%r1}], %s;\n" % (op, ty, src)).replace("%%", "%")
        case("sured.b.%s.%s" % (op, ty), "surface", kernel(body, nsurf=1),
             16 * (2 if wide else 1), (sty, vals), words, surfaces=[d], threads=128, out_buffer=1)
    for op, ty, sty in [("add", "b32", "u32"), ("min", "b32", "s32"), ("max", "b64", "s32")]:
        wide = ty == "b64"
        d = {"buffer": 1, "type": sty, "channels": 2 if wide else 1, "dims": [8, 2]}
        vals = ramp(sty, 16 * (2 if wide else 1), 1)
        words = []
        for t in range(128):
            words += [t % 8, (t // 8) % 2, 0, RNG.getrandbits(32)]
        pre = "cvt.s64.s32 %rd4, %r3;\n" if wide else ""
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n" + pre +
                "sured.p.%s.2d.%s.trap [%%s0, {%%r0, %%r1}], %s;\n"
                % (op, ty, "%rd4" if wide else "%r3")).replace("%%", "%")
        case("sured.p.%s.%s.%s" % (op, ty, sty), "surface", kernel(body, nsurf=1),
             16 * (2 if wide else 1), (sty, vals), words, surfaces=[d], threads=128, out_buffer=1)


def texprobe():
    """Filtering probes that isolate one weight: 1D sweeps of s8 and f16 texels over all 256
    fractions, and 3D sweeps of z alone, of x and z, and of all three."""
    for ty, read in [("s8", "normalized"), ("u8", "normalized"), ("f16", "element"),
                     ("f32", "element")]:
        vals = ramp(ty, 16, 1)
        d = tex_desc(ty, 1, (16,), filt="linear", read=read)
        coords = []
        for k in range(512):
            coords += [1.5 + (k % 14) + (k // 2 % 256) / 256.0 + (1 / 512.0 if k % 2 else 0), 0.0, 0.0, 0.0]
        case("texprobe.1d.%s" % ty, "texprobe", tex2d_kernel("f32", geom="1d", coords="{%f0}"),
             4 * 512, (ty, vals), fcoords(coords), textures=[d])
    vals = ramp("f32", 4 * 4 * 4, 1)
    d = tex_desc("f32", 1, (4, 4, 4), filt="linear")
    for name, pick in [("z", lambda k: (1.5, 1.5, 1.5 + k / 256.0)),
                       ("xz", lambda k: (1.5 + (k * 7 % 256) / 256.0, 1.5, 1.5 + k / 256.0)),
                       ("xyz", lambda k: (1.5 + (k * 7 % 256) / 256.0, 1.5 + (k * 13 % 256) / 256.0,
                                          1.5 + k / 256.0))]:
        coords = []
        for k in range(256):
            coords += list(pick(k)) + [0.0]
        case("texprobe.3d.%s" % name, "texprobe",
             tex2d_kernel("f32", geom="3d", coords="{%f0, %f1, %f2, %f3}"), 4 * 256, ("f32", vals),
             fcoords(coords), textures=[d])


def texfit():
    """Dense filtering sweeps for fitting the linear-filter arithmetic: 256 texel pairs (a, b)
    at texels 2j, 2j+1 of a 512-texel 1D texture, each sampled at every weight 0..255/256 of b
    (coordinate 2j + 0.5 + w/256), for s8 pairs (0, t) over every t, and random s8, f16 and
    f32 pairs: 65536 lanes a case."""
    cases = {
        "s8.zero": [(0, t & 0xFF) for t in range(-128, 128)],
        "s8.random": [(RNG.randint(0, 255), RNG.randint(0, 255)) for _ in range(256)],
        "f16.random": [(f16(RNG.uniform(-100, 100)), f16(RNG.uniform(-100, 100)))
                       for _ in range(256)],
        "f32.random": [(f32(RNG.uniform(-1000, 1000)), f32(RNG.uniform(-1000, 1000)))
                       for _ in range(256)],
    }
    for name, pairs in cases.items():
        ty = name.split(".")[0]
        vals = [v for p in pairs for v in p]
        read = "normalized" if ty == "s8" else "element"
        d = tex_desc(ty, 1, (512,), filt="linear", read=read)
        coords = []
        for j in range(256):
            for w in range(256):
                coords += [2 * j + 0.5 + w / 256.0, 0.0, 0.0, 0.0]
        case("texfit.%s" % name, "texfit", tex2d_kernel("f32", geom="1d", coords="{%f0}"),
             4 * 65536, (ty, vals), fcoords(coords), textures=[d])


def texfit2():
    """More dense 1D sweeps for the normalized-integer filter (as texfit): s8 pairs (t, t),
    (t, 0), (127, t) and (-127, t) over every t, and u8 pairs (0, t) and random."""
    cases = {
        "s8.same": [(t & 0xFF, t & 0xFF) for t in range(-128, 128)],
        "s8.rev": [(t & 0xFF, 0) for t in range(-128, 128)],
        "s8.max": [(127, t & 0xFF) for t in range(-128, 128)],
        "s8.min": [(0x81, t & 0xFF) for t in range(-128, 128)],
        "u8.zero": [(0, t) for t in range(256)],
        "u8.random": [(RNG.randint(0, 255), RNG.randint(0, 255)) for _ in range(256)],
    }
    for name, pairs in cases.items():
        ty = name.split(".")[0]
        vals = [v for p in pairs for v in p]
        d = tex_desc(ty, 1, (512,), filt="linear", read="normalized")
        coords = []
        for j in range(256):
            for w in range(256):
                coords += [2 * j + 0.5 + w / 256.0, 0.0, 0.0, 0.0]
        case("texfit2.%s" % name, "texfit2", tex2d_kernel("f32", geom="1d", coords="{%f0}"),
             4 * 65536, (ty, vals), fcoords(coords), textures=[d])


def texw3d():
    """Trilinear weights one corner at a time: an f32 3D texture of eight 2x2x2 blocks along
    x, block i holding 1.0 at its corner i (bit 0: upper x, bit 1: upper y, bit 2: upper z) and
    0.0 elsewhere, sampled at fractions (a, b, c)/256 inside each block, so that each sample
    returns corner i's weight exactly: 8192 random fraction triples (65536 lanes)."""
    vals = [0.0] * (16 * 2 * 2)
    for i in range(8):
        x, y, z = 2 * i + (i & 1), (i >> 1) & 1, i >> 2
        vals[x + 16 * (y + 2 * z)] = 1.0
    d = tex_desc("f32", 1, (16, 2, 2), filt="linear")
    coords = []
    for _ in range(8192):
        a, b, c = RNG.randrange(256), RNG.randrange(256), RNG.randrange(256)
        for i in range(8):
            coords += [f32(2 * i + 0.5 + a / 256.0), f32(0.5 + b / 256.0), f32(0.5 + c / 256.0),
                       0]
    case("texw3d.onehot", "texw3d", tex2d_kernel("f32", geom="3d", coords="{%f0, %f1, %f2, %f3}"),
         4 * 65536, ("f32", [f32(v) for v in vals]), coords, textures=[d])


def texw3dclamp():
    """Trilinear weights at the edges of a clamped 4x4x4 f32 texture: one case per one-hot texel
    (1.0 there, 0.0 elsewhere), sampled at 8192 random points around it, in and out of range,
    so that each sample returns the weight the texel gets."""
    for hot in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (3, 3, 3)]:
        vals = [0.0] * 64
        vals[hot[0] + 4 * (hot[1] + 4 * hot[2])] = 1.0
        d = tex_desc("f32", 1, (4, 4, 4), filt="linear")
        lo = -1.5 if hot != (3, 3, 3) else 1.5
        coords = []
        for _ in range(8192):
            coords += [f32(lo + RNG.randrange(4 * 256) / 256.0) for _ in range(3)] + [0]
        case("texw3dclamp.%d%d%d" % hot, "texw3dclamp",
             tex2d_kernel("f32", geom="3d", coords="{%f0, %f1, %f2, %f3}"), 4 * 8192,
             ("f32", [f32(v) for v in vals]), coords, textures=[d])


def cubefit():
    """The face coordinates of a cube map, to 1/256 of a texel: a 256 x 256 face whose texels
    hold their own x and y (two channels), linear filtering, random directions whose major
    axis is not a power of two."""
    n = 256
    vals = []
    for f in range(6):
        for y in range(n):
            for x in range(n):
                vals += [f32(float(x)), f32(float(y))]
    dirs = []
    for i in range(4096):
        ma = RNG.uniform(1.0, 2.0)
        v = [RNG.uniform(-ma, ma) for _ in range(3)]
        k = i % 3
        v[k] = ma if (i // 3) % 2 == 0 else -ma
        dirs.append(v)
    words = []
    for v in dirs:
        words += fcoords(v) + [0]
    d = tex_desc("f32", 2, (n, n), cube=True, filt="linear")
    body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
            "mov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\n"
            "tex.cube.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%t0, {%f0, %f1, %f2, %f2}];\n"
            "st.global.v4.b32 [%oi], {%r4, %r5, %r6, %r7};\n")
    case("tex.cube.fit", "cubefit", kernel(body, ntex=1), 4 * len(dirs), ("f32", vals), words,
         textures=[d])


def misaligned():
    """Surface accesses whose byte x is not a multiple of the access size, one per case (the
    GPU may trap, which ends the process's context: run this family alone)."""
    d = {"buffer": 1, "type": "u32", "channels": 1, "dims": [16, 2]}
    vals = ramp("u32", 32, 1)
    for x in [1, 2, 3, 6]:
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                "suld.b.2d.b32.clamp %r4, [%s0, {%r0, %r1}];\n"
                "st.global.b32 [%oi], %r4;\n")
        case("suld.misaligned.%d" % x, "misaligned", kernel(body, nsurf=1), 4, ("u32", vals),
             [x, 1, 0, 0], surfaces=[d], threads=1)
        body = ("ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%ci];\n"
                "sust.b.2d.b32.clamp [%s0, {%r0, %r1}], %r3;\n")
        case("sust.misaligned.%d" % x, "misaligned", kernel(body, nsurf=1), 32, ("u32", vals),
             [x, 1, 0, 0x11223344], surfaces=[d], threads=1, out_buffer=1)


FAMILIES = {"texpoint": texpoint, "texlinear": texlinear, "texgeom": texgeom, "tld4": tld4,
            "texquery": texquery, "surface": surface, "texprobe": texprobe,
            "misaligned": misaligned, "texfit": texfit, "texfit2": texfit2,
            "texw3d": texw3d, "texw3dclamp": texw3dclamp, "cubefit": cubefit}


# ----------------------------------------------------------------------------- running

WIDTH = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "u32": 32, "s32": 32, "f32": 32}


def record(c, out_vals):
    oty, n = c["out"]
    r = {"name": c["name"], "family": c["family"], "grid": c["grid"], "block": c["block"],
         "entry": "k", "ptx": c["ptx"], "params": ["out", "in0", "in1", "in2"],
         "args": [{"type": t, "hex": hexs(v, WIDTH.get(t, 32))} for t, v in c["ins"]],
         "out": {"type": oty, "hex": hexs(out_vals, WIDTH.get(oty, 32))}}
    if c["textures"]:
        r["textures"] = c["textures"]
    if c["surfaces"]:
        r["surfaces"] = c["surfaces"]
    if c["out_buffer"]:
        r["out_buffer"] = c["out_buffer"]
    return r


def to_bytes(vals, width):
    nb = max(width // 8, 1)
    return b"".join((v & ((1 << (8 * nb)) - 1)).to_bytes(nb, "little") for v in vals)


class Gpu:
    """CuPy objects for a case: CUDA arrays, texture and surface objects."""

    def __init__(self):
        import cupy
        import numpy
        from cupy.cuda import runtime, texture
        self.cp, self.np, self.rt, self.tx = cupy, numpy, runtime, texture

    def chdesc(self, ty, ch):
        rt = self.rt
        kind = {"u": rt.cudaChannelFormatKindUnsigned, "s": rt.cudaChannelFormatKindSigned,
                "f": rt.cudaChannelFormatKindFloat}[ty[0]]
        bits = 8 * ELEM[ty]
        b = [bits if i < ch else 0 for i in range(4)]
        return self.tx.ChannelFormatDescriptor(b[0], b[1], b[2], b[3], kind)

    def npdtype(self, ty):
        return {"u8": "uint8", "s8": "int8", "u16": "uint16", "s16": "int16", "u32": "uint32",
                "s32": "int32", "f16": "float16", "f32": "float32"}[ty]

    def array(self, d, data, surface=False):
        """A CUDA array holding `data` (bytes) for description d; returns (array, host shape)."""
        rt, np = self.rt, self.np
        w = d["dims"][0]
        h = d["dims"][1] if len(d["dims"]) > 1 else 0
        depth = d["dims"][2] if len(d["dims"]) > 2 else 0
        # cudaArrayLayered 1, cudaArraySurfaceLoadStore 2, cudaArrayCubemap 4,
        # cudaArrayTextureGather 8 (not all are exported by CuPy's runtime module).
        layered, surface_ls, cubemap, gather = 1, 2, 4, 8
        flags = 0
        layers = d.get("layers", 0)
        if d.get("cube"):
            flags |= cubemap
            depth = 6 * max(layers, 1)
            h = w
            if layers:
                flags |= layered
        elif layers:
            flags |= layered
            depth = layers
        if surface:
            flags |= surface_ls
        if d.get("gather"):
            flags |= gather
        arr = self.tx.CUDAarray(self.chdesc(d["type"], d["channels"]), w, h, depth, flags)
        ch = d["channels"]
        host = np.frombuffer(data, dtype=self.npdtype(d["type"])).copy()
        if depth:
            shape = (depth, max(h, 1), ch * w)
        elif h:
            shape = (h, ch * w)
        else:
            shape = (ch * w,)
        need = int(np.prod(shape))
        host = np.resize(host, need).reshape(shape)
        arr.copy_from(host)
        return arr, shape

    def texture(self, d, buf, data):
        rt, tx = self.rt, self.tx
        keep = []
        if d.get("levels"):
            # CuPy has no mipmapped arrays: the driver API makes those (cudrv.py).
            import cudrv
            if not hasattr(self, "drv"):
                self.drv = cudrv.Driver()
            handle, keep = cudrv.mipmapped_texture(self.drv, d, data)
            return self.np.uint64(handle), keep
        if d.get("res") == "linear":
            nbytes = ELEM[d["type"]] * d["channels"] * d["dims"][0]
            view = buf[:nbytes].view(self.npdtype(d["type"]))
            res = tx.ResourceDescriptor(rt.cudaResourceTypeLinear, arr=view,
                                        chDesc=self.chdesc(d["type"], d["channels"]),
                                        sizeInBytes=nbytes)
            keep.append(view)
        else:
            arr, _ = self.array(d, data)
            keep.append(arr)
            res = tx.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
        modes = {"wrap": rt.cudaAddressModeWrap, "clamp": rt.cudaAddressModeClamp,
                 "mirror": rt.cudaAddressModeMirror, "border": rt.cudaAddressModeBorder}
        td = tx.TextureDescriptor(
            [modes[a] for a in d["addr"]],
            rt.cudaFilterModeLinear if d["filter"] == "linear" else rt.cudaFilterModePoint,
            rt.cudaReadModeNormalizedFloat if d["read"] == "normalized"
            else rt.cudaReadModeElementType,
            borderColors=tuple(d.get("border", (0.0, 0.0, 0.0, 0.0))),
            normalizedCoords=1 if d["normalized"] else 0,
            maxAnisotropy=d.get("aniso", 0))
        obj = tx.TextureObject(res, td)
        keep.append(obj)
        return obj, keep

    def surface(self, d, data):
        arr, shape = self.array(d, data, surface=True)
        res = self.tx.ResourceDescriptor(self.rt.cudaResourceTypeArray, cuArr=arr)
        return self.tx.SurfaceObject(res), arr, shape

    def run(self, c):
        cp, np = self.cp, self.np
        oty, n = c["out"]
        nb = max(WIDTH.get(oty, 32) // 8, 1)
        bufs = [cp.asarray(np.frombuffer(b"\xab" * (n * nb), dtype=np.uint8))]
        raw = []
        for t, v in c["ins"]:
            b = to_bytes(v, WIDTH.get(t, 32))
            raw.append(b)
            bufs.append(cp.asarray(np.frombuffer(b, dtype=np.uint8).copy()))
        mod = cp.cuda.function.Module()
        mod.load(c["ptx"].encode())
        f = mod.get_function("k")
        args = list(bufs)
        keep = []
        for d in c["textures"]:
            obj, k = self.texture(d, bufs[d["buffer"]], raw[d["buffer"] - 1])
            keep += k
            args.append(obj)
        surfs = []
        for d in c["surfaces"]:
            obj, arr, shape = self.surface(d, raw[d["buffer"] - 1])
            keep.append(obj)
            surfs.append((d, arr, shape))
            args.append(obj)
        f(tuple(c["grid"]), tuple(c["block"]), tuple(args))
        cp.cuda.runtime.deviceSynchronize()
        if c["out_buffer"]:
            d, arr, shape = next(s for s in surfs if s[0]["buffer"] == c["out_buffer"])
            host = np.zeros(shape, dtype=self.npdtype(d["type"]))
            arr.copy_to(host)
            b = host.tobytes()
        else:
            b = bufs[0].get().tobytes()
        b = b[:n * nb]
        return [int.from_bytes(b[i:i + nb], "little") for i in range(0, len(b), nb)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="corpus/vectors/texture.jsonl")
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--match", default="", help="only cases whose name contains this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--dry", metavar="PATH")
    a = ap.parse_args()
    for name, f in FAMILIES.items():
        if not a.family or name in a.family:
            f()
    cases = [c for c in CASES if a.match in c["name"]]
    names = set()
    for c in cases:
        if c["name"] in names:
            raise SystemExit("duplicate case name " + c["name"])
        names.add(c["name"])
    if a.list:
        for c in cases:
            print(c["family"], c["name"])
        print("%d cases" % len(cases), file=sys.stderr)
        return
    if a.dry:
        with open(a.dry, "w") as f:
            for c in cases:
                f.write(json.dumps(record(c, [0] * c["out"][1])) + "\n")
        print("%d cases written to %s" % (len(cases), a.dry), file=sys.stderr)
        return
    gpu = Gpu()
    ok = bad = 0
    with open(a.out, "w") as f:
        for c in cases:
            try:
                vals = gpu.run(c)
            except Exception as e:  # a case the runtime or ptxas rejects is reported, not fatal
                print("skip %s: %s" % (c["name"], str(e)[:500]), file=sys.stderr)
                bad += 1
                continue
            f.write(json.dumps(record(c, vals)) + "\n")
            f.flush()
            ok += 1
    print("%d cases written to %s, %d skipped" % (ok, a.out, bad), file=sys.stderr)


if __name__ == "__main__":
    main()
