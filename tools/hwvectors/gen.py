#!/usr/bin/env python3
"""Hardware-truth vector generator for the ptx-ir reference interpreter.

Makes single-instruction and small control-flow kernels for every family and modifier
combination the interpreter implements, runs each on the GPU with edge-case inputs (NaN payloads,
infinities, subnormals, -0, INT_MIN, shift amounts >= the width, divergent lanes) and writes one
JSON line per case in the format of `shared/hwtruth/README.md` (the format `ptx vectors` reads).

Usage (on the GPU machine; needs CuPy and NumPy, CUDA's driver JIT compiles the PTX):

    python3 tools/hwvectors/gen.py --out corpus/vectors/hw.jsonl.xz [--family NAME]... [--list]

`--list` prints the cases without a GPU (used to check the generator itself). Inputs are
deterministic (seeded), so rerunning gives the same cases; only `out` comes from the hardware.
Cases whose PTX the driver rejects are reported on stderr and skipped.
"""

import argparse
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vecio import compress_out  # noqa: E402

N = 128  # threads per case: 2 CTAs of 64
GRID = [2, 1, 1]
BLOCK = [64, 1, 1]

HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n"

# ----------------------------------------------------------------------------- input pools

RNG = random.Random(20261122)

INT_EDGES = {
    16: [0, 1, 2, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 15, 16, 17, 31, 32, 33, 0x5555, 0xAAAA, 0x00FF],
    32: [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF,
         0xFFFFFFFE, 0x55AA55AA, 0x0000FFFF, 0xFFFF0000, 0x00010000, 255, 256, 0x7F, 0x80],
    64: [0, 1, 2, 63, 64, 65, 127, 128, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000,
         0xFFFFFFFFFFFFFFFF, 0xFFFFFFFF, 0x100000000, 0x80000000, 0xFFFFFFFF80000000,
         0x5555555555555555],
    8: [0, 1, 0x7F, 0x80, 0xFF, 0x55],
}

F32_EDGES = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000,
             0xFFC00000, 0x7FA00000, 0x7F800001, 0xFFBFFFFF, 0x00000001, 0x80000001, 0x007FFFFF,
             0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000, 0x40000000,
             0x3EAAAAAB, 0x4B800000, 0x4B7FFFFF, 0x4F000000, 0xCF000000, 0x5F000000, 0x3F7FFFFF,
             0x3F800001, 0x40490FDB, 0x33800000, 0x34000000, 0x0DA24260, 0x7E800000, 0x00400000]
F64_EDGES = [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
             0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4000000000000, 0xFFF8000000000001,
             0x7FF0000000000001, 0x0000000000000001, 0x800FFFFFFFFFFFFF, 0x0010000000000000,
             0x7FEFFFFFFFFFFFFF, 0x3FE0000000000000, 0x3FD5555555555555, 0x4330000000000000,
             0x43E0000000000000, 0xC3E0000000000000, 0x41DFFFFFFFC00000, 0x3FF0000000000001,
             0x400921FB54442D18, 0x3CA0000000000000, 0x47EFFFFFE0000000, 0x36A0000000000000]
F16_EDGES = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7D00, 0x7C01,
             0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x3800, 0x4000, 0x3555, 0x5BFF,
             0x3BFF, 0x3C01, 0x4248, 0x1400, 0x0200]
BF16_EDGES = [0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FA0, 0x7F81,
              0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3F00, 0x4000, 0x3EAB, 0x4B80,
              0x3F7F, 0x3F81, 0x4049, 0x3380]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def rand_float_bits(width):
    """Random values over the whole exponent range, plus ordinary-looking ones."""
    r = RNG.random()
    if width == 32:
        if r < 0.4:
            return f32_bits(RNG.uniform(-200.0, 200.0))
        return RNG.getrandbits(32)
    if width == 64:
        if r < 0.4:
            return f64_bits(RNG.uniform(-1e6, 1e6))
        return RNG.getrandbits(64)
    return RNG.getrandbits(width)


def pool(kind, width):
    """128 values: the edge cases (shuffled) and random fill."""
    if kind == "f":
        edges = {32: F32_EDGES, 64: F64_EDGES, 16: F16_EDGES}[width]
    elif kind == "bf":
        edges = BF16_EDGES
    elif kind == "f2":  # packed pair of f16
        edges = [(a << 16) | b for a in F16_EDGES[:12] for b in F16_EDGES[:12]][:60]
    elif kind == "bf2":
        edges = [(a << 16) | b for a in BF16_EDGES[:12] for b in BF16_EDGES[:12]][:60]
    elif kind == "shift":
        edges = [0, 1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0xFFFFFFFF,
                 0x80000000, 0x100, 0x101]
        width = 32
    elif kind == "small":
        edges = list(range(0, 40))
        width = 32
    elif kind == "vb":  # words of edge bytes and half-words, for the video instructions
        edges = [0, 0xFFFFFFFF, 0x7F7F7F7F, 0x80808080, 0x7FFF8000, 0x80007FFF, 0x01FF80FE,
                 0xFF01FE80]
        width = 32
    else:
        edges = INT_EDGES[width]
    vals = list(edges)
    RNG.shuffle(vals)
    mask = (1 << width) - 1 if width < 64 else (1 << 64) - 1
    while len(vals) < N:
        if kind in ("f", "bf"):
            vals.append(rand_float_bits(width) & mask)
        elif kind in ("f2", "bf2"):
            vals.append(RNG.getrandbits(32))
        elif kind == "small":
            vals.append(RNG.randrange(0, 40))
        elif kind == "shift":
            vals.append(RNG.randrange(0, 80))
        elif kind == "vb":
            v = 0
            for _ in range(4):
                v = (v << 8) | RNG.choice([0, 1, 2, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF,
                                           RNG.getrandbits(8), RNG.getrandbits(8)])
            vals.append(v)
        else:
            vals.append(RNG.choice([RNG.getrandbits(width), RNG.randrange(0, 70),
                                    mask - RNG.randrange(0, 70)]))
    return [v & mask for v in vals[:N]]


# ----------------------------------------------------------------------------- types

REG = {8: ".b16", 16: ".b16", 32: ".b32", 64: ".b64"}
LD = {8: ".b8", 16: ".b16", 32: ".b32", 64: ".b64"}


class T:
    """A value type of a case: its PTX name (for the JSON), width, and input pool kind."""

    def __init__(self, name, width, kind):
        self.name, self.width, self.kind = name, width, kind


def ty(name):
    table = {
        "u8": (8, "i"), "s8": (8, "i"), "u16": (16, "i"), "s16": (16, "i"), "b16": (16, "i"),
        "u32": (32, "i"), "s32": (32, "i"), "b32": (32, "i"), "u64": (64, "i"),
        "s64": (64, "i"), "b64": (64, "i"), "f32": (32, "f"), "f64": (64, "f"),
        "f16": (16, "f"), "bf16": (16, "bf"), "f16x2": (32, "f2"), "bf16x2": (32, "bf2"),
        "pred": (32, "i"), "shift": (32, "shift"), "small": (32, "small"),
        "e4m3x2": (16, "i"), "e5m2x2": (16, "i"), "vb": (32, "vb"),
    }
    w, k = table[name]
    return T(name if name not in ("shift", "small", "vb") else "u32", w, k)


# ----------------------------------------------------------------------------- kernels

def kernel(body, ins, out, extra_decls=""):
    """A kernel: thread i loads element i of each input into %a, %b, %c, runs `body`, and
    stores %d to element i of out."""
    names = ["%a", "%b", "%c"]
    lines = [HEADER, ".visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, "
             ".param .u64 p_c)\n{\n",
             "  .reg .pred %p<8>;\n  .reg .b32 %t<8>;\n  .reg .b64 %ad<12>;\n",
             "  .reg .b16 %h<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n",
             "  .reg %s %%d;\n" % REG[out.width]]
    for i, t in enumerate(ins):
        lines.append("  .reg %s %s;\n" % (REG[t.width], names[i]))
    lines.append(extra_decls)
    lines.append("  mov.u32 %t1, %tid.x;\n  mov.u32 %t2, %ctaid.x;\n  mov.u32 %t3, %ntid.x;\n"
                 "  mad.lo.u32 %t4, %t2, %t3, %t1;\n")
    params = ["p_out", "p_a", "p_b", "p_c"]
    widths = [out.width] + [t.width for t in ins]
    for i, w in enumerate(widths):
        lines.append("  ld.param.u64 %%ad%d, [%s];\n  cvta.to.global.u64 %%ad%d, %%ad%d;\n"
                     "  mul.wide.u32 %%ad%d, %%t4, %d;\n  add.s64 %%ad%d, %%ad%d, %%ad%d;\n"
                     % (i, params[i], i, i, i + 4, max(w // 8, 1), i, i, i + 4))
    for i, t in enumerate(ins):
        lines.append("  ld.global%s %s, [%%ad%d];\n" % (LD[t.width], names[i], i + 1))
    lines.append("  " + body.strip().replace("\n", "\n  ") + "\n")
    lines.append("  st.global%s [%%ad0], %%d;\n  ret;\n}\n" % LD[out.width])
    return "".join(lines)


CASES = []


VARIANTS = 2  # input sets per case: the edge values first, then fresh random fill


def case(name, family, body, ins, out, extra="", inputs=None, valid=True):
    """Adds a case (VARIANTS input sets unless `inputs` is given). A form that is not valid PTX
    for sm_90a (`valid=False`) is not added, but its inputs are still drawn, so that the other
    cases keep the inputs recorded in corpus/vectors/hw.jsonl."""
    ins = [ty(t) if isinstance(t, str) else t for t in ins]
    out = ty(out) if isinstance(out, str) else out
    ptx = kernel(body, ins, out, extra)
    for k in range(1 if inputs is not None else VARIANTS):
        vals = inputs if inputs is not None else [pool(t.kind, t.width) for t in ins]
        if valid:
            CASES.append({"name": name if k == 0 else "%s#%d" % (name, k + 1),
                          "family": family, "ptx": ptx,
                          "ins": [(t, v) for t, v in zip(ins, vals)], "out": out})


def hexs(vals, width):
    digits = max(width // 4, 2)
    return [format(v, "0%dx" % digits) for v in vals]


# ----------------------------------------------------------------------------- families

INTS = ["u16", "u32", "u64", "s16", "s32", "s64"]
RNDS = ["rn", "rz", "rm", "rp"]


def fam_int():
    for t in INTS:
        for op in ["add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max", "mad.lo",
                   "mad.hi", "sad"]:
            three = op.startswith("mad") or op == "sad"
            body = "%s.%s %%d, %%a, %%b%s;" % (op, t, ", %c" if three else "")
            case("%s.%s" % (op, t), "int", body, [t, t, t] if three else [t, t], t)
        if t[0] == "s":
            for op in ["abs", "neg"]:
                case("%s.%s" % (op, t), "int", "%s.%s %%d, %%a;" % (op, t), [t], t)
        if t in ("u16", "u32", "s16", "s32"):
            wt = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}[t]
            case("mul.wide.%s" % t, "int", "mul.wide.%s %%d, %%a, %%b;" % t, [t, t], wt)
            case("mad.wide.%s" % t, "int", "mad.wide.%s %%d, %%a, %%b, %%c;" % t, [t, t, wt], wt)
    for op in ["add.sat.s32", "sub.sat.s32", "mul24.lo.u32", "mul24.hi.u32", "mul24.lo.s32",
               "mul24.hi.s32", "min.relu.s32", "max.relu.s32"]:
        case(op, "int", "%s %%d, %%a, %%b;" % op, ["s32", "s32"], "s32")
    for op in ["mad24.lo.u32", "mad24.hi.u32", "mad24.lo.s32", "mad24.hi.s32",
               "mad24.hi.sat.s32", "mad.hi.sat.s32"]:
        case(op, "int", "%s %%d, %%a, %%b, %%c;" % op, ["s32", "s32", "s32"], "s32")
    for a in ["u32", "s32"]:
        for b in ["u32", "s32"]:
            case("dp4a.%s.%s" % (a, b), "int", "dp4a.%s.%s %%d, %%a, %%b, %%c;" % (a, b),
                 ["b32", "b32", "b32"], "b32")
            for hl in ["lo", "hi"]:
                case("dp2a.%s.%s.%s" % (hl, a, b), "int",
                     "dp2a.%s.%s.%s %%d, %%a, %%b, %%c;" % (hl, a, b), ["b32", "b32", "b32"],
                     "b32")
    for op in ["add.u16x2", "add.s16x2", "min.u16x2", "max.u16x2", "min.s16x2", "max.s16x2",
               "min.relu.s16x2", "max.relu.s16x2"]:
        case(op, "int", "%s %%d, %%a, %%b;" % op, ["b32", "b32"], "b32")


def fam_extint():
    for w in ["u32", "s32", "u64", "s64"]:
        # carry chains: the carry of the first operation feeds the second.
        for first, second in [("add.cc", "addc"), ("sub.cc", "subc"), ("add.cc", "addc.cc"),
                              ("sub.cc", "subc.cc"), ("add.cc", "subc"), ("sub.cc", "addc")]:
            body = ("{ .reg %s %%x; %s.%s %%x, %%a, %%b; %s.%s %%d, %%c, 0; %s}"
                    % (REG[ty(w).width], first, w, second, w,
                       "addc.%s %%d, %%d, 0; " % w if second.endswith(".cc") else ""))
            case("%s+%s.%s" % (first, second, w), "extint", body, [w, w, w], w)
        body = ("{ .reg %s %%x; mad.lo.cc.%s %%x, %%a, %%b, %%c; madc.hi.%s %%d, %%a, %%b, 0; }"
                % (REG[ty(w).width], w, w))
        case("mad.lo.cc+madc.hi.%s" % w, "extint", body, [w, w, w], w)
        body = ("{ .reg %s %%x; mad.hi.cc.%s %%x, %%a, %%b, %%c; madc.lo.cc.%s %%x, %%a, %%c, %%b;"
                " addc.%s %%d, 0, 0; }" % (REG[ty(w).width], w, w, w))
        case("mad.hi.cc+madc.lo.cc+addc.%s" % w, "extint", body, [w, w, w], w)


def fam_bits():
    for w in ["b16", "b32", "b64"]:
        for op in ["and", "or", "xor"]:
            case("%s.%s" % (op, w), "bits", "%s.%s %%d, %%a, %%b;" % (op, w), [w, w], w)
        for op in ["not", "cnot"]:
            case("%s.%s" % (op, w), "bits", "%s.%s %%d, %%a;" % (op, w), [w], w)
        case("shl.%s" % w, "bits", "shl.%s %%d, %%a, %%b;" % w, [w, "shift"], w)
    for t in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"]:
        case("shr.%s" % t, "bits", "shr.%s %%d, %%a, %%b;" % t, [t, "shift"], t)
    for w in ["b32", "b64"]:
        for op in ["popc", "clz"]:
            case("%s.%s" % (op, w), "bits", "%s.%s %%t5, %%a; mov.b32 %%d, %%t5;" % (op, w), [w],
                 "b32")
        case("brev.%s" % w, "bits", "brev.%s %%d, %%a;" % w, [w], w)
        case("bfi.%s" % w, "bits", "{ .reg .b32 %%x; and.b32 %%x, %%c, 0xffff; "
             "shr.u32 %%t6, %%c, 16; bfi.%s %%d, %%a, %%b, %%x, %%t6; }" % w,
             [w, w, "b32"], w)
    for t in ["u32", "s32", "u64", "s64"]:
        for sa in ["", ".shiftamt"]:
            case("bfind%s.%s" % (sa, t), "bits", "bfind%s.%s %%t5, %%a; mov.b32 %%d, %%t5;"
                 % (sa, t), [t], "b32")
        case("bfe.%s" % t, "bits", "bfe.%s %%d, %%a, %%b, %%c;" % t, [t, "shift", "shift"], t)
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
        case("prmt.b32%s" % mode, "bits", "prmt.b32%s %%d, %%a, %%b, %%c;" % mode,
             ["b32", "b32", "b32"], "b32")
    for lr in ["l", "r"]:
        for cw in ["clamp", "wrap"]:
            case("shf.%s.%s.b32" % (lr, cw), "bits", "shf.%s.%s.b32 %%d, %%a, %%b, %%c;"
                 % (lr, cw), ["b32", "b32", "shift"], "b32")
    for lut in [0x00, 0xFF, 0x80, 0xFE, 0xE8, 0x96, 0x6A, 0xCA, 0x1E, 0xB4, 0x3C, 0xF0]:
        case("lop3.b32.%#04x" % lut, "bits", "lop3.b32 %%d, %%a, %%b, %%c, %#x;" % lut,
             ["b32", "b32", "b32"], "b32")
    for bo in ["and", "or"]:
        case("lop3.%s.b32" % bo, "bits",
             "setp.ne.u32 %%p2, %%c, 0; lop3.%s.b32 %%t5|%%p1, %%a, %%b, %%c, 0x96, %%p2; "
             "selp.u32 %%t6, 1, 0, %%p1; xor.b32 %%d, %%t5, %%t6;" % bo,
             ["b32", "b32", "b32"], "b32")
    for cw in ["clamp", "wrap"]:
        case("bmsk.%s.b32" % cw, "bits", "bmsk.%s.b32 %%d, %%a, %%b;" % cw, ["shift", "shift"],
             "b32")
        for t in ["u32", "s32"]:
            case("szext.%s.%s" % (cw, t), "bits", "szext.%s.%s %%d, %%a, %%b;" % (cw, t),
                 ["b32", "shift"], "b32")
    case("fns.b32", "bits", "{ .reg .b32 %x; and.b32 %x, %b, 31; fns.b32 %d, %a, %x, %c; }",
         ["b32", "b32", "b32"], "b32",
         inputs=[pool("i", 32), pool("small", 32),
                 [RNG.choice([0, 1, 2, 3, 5, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFB, 32, 40])
                  for _ in range(N)]])


def float_mods(width, ftz_ok=True):
    mods = []
    for r in RNDS:
        for ftz in ([False, True] if ftz_ok else [False]):
            mods.append("." + r + (".ftz" if ftz else ""))
    return mods


def fam_float():
    for fw, t in [(32, "f32"), (64, "f64")]:
        fam = t
        for op in ["add", "sub", "mul", "div"]:
            for m in float_mods(fw, fw == 32):
                case("%s%s.%s" % (op, m, t), fam, "%s%s.%s %%d, %%a, %%b;" % (op, m, t), [t, t], t)
        for m in float_mods(fw, fw == 32):
            case("fma%s.%s" % (m, t), fam, "fma%s.%s %%d, %%a, %%b, %%c;" % (m, t), [t, t, t], t)
            case("rcp%s.%s" % (m, t), fam, "rcp%s.%s %%d, %%a;" % (m, t), [t], t)
            case("sqrt%s.%s" % (m, t), fam, "sqrt%s.%s %%d, %%a;" % (m, t), [t], t)
        if fw == 32:
            for op in ["add", "sub", "mul"]:
                for m in ["", ".ftz", ".sat", ".ftz.sat", ".rz.sat", ".rm.ftz.sat"]:
                    case("%s%s.f32" % (op, m), fam, "%s%s.f32 %%d, %%a, %%b;" % (op, m),
                         [t, t], t)
            for m in [".rn.sat", ".rn.ftz.sat", ".rz.ftz.sat", ""]:
                base = "fma" if m else "mad"
                # `mad.f32` without a rounding modifier is sm_1x-only: the driver rejects it.
                case("%s%s.f32" % (base, m), fam, "%s%s.f32 %%d, %%a, %%b, %%c;" % (base, m),
                     [t, t, t], t, valid=bool(m))
            for op in ["abs", "neg"]:
                for m in ["", ".ftz"]:
                    case("%s%s.f32" % (op, m), fam, "%s%s.f32 %%d, %%a;" % (op, m), [t], t)
            for op in ["min", "max"]:
                for m in ["", ".ftz", ".NaN", ".ftz.NaN", ".xorsign.abs", ".NaN.xorsign.abs"]:
                    case("%s%s.f32" % (op, m), fam, "%s%s.f32 %%d, %%a, %%b;" % (op, m), [t, t], t)
                # The three-input forms need sm_100 (not valid for sm_90a).
                for m in ["", ".abs", ".NaN", ".NaN.abs"]:
                    case("%s%s.f32.3" % (op, m), fam, "%s%s.f32 %%d, %%a, %%b, %%c;" % (op, m),
                         [t, t, t], t, valid=False)
        else:
            for m in RNDS:
                case("mad.%s.f64" % m, fam, "mad.%s.f64 %%d, %%a, %%b, %%c;" % m, [t, t, t], t)
            for op in ["abs", "neg"]:
                case("%s.f64" % op, fam, "%s.f64 %%d, %%a;" % op, [t], t)
            for op in ["min", "max"]:
                case("%s.f64" % op, fam, "%s.f64 %%d, %%a, %%b;" % op, [t, t], t)
        for c in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            case("testp.%s.%s" % (c, t), fam, "testp.%s.%s %%p1, %%a; selp.u32 %%d, 1, 0, %%p1;"
                 % (c, t), [t], "u32")
        case("copysign.%s" % t, fam, "copysign.%s %%d, %%a, %%b;" % t, [t, t], t)


def fam_half():
    for t in ["f16", "f16x2", "bf16", "bf16x2"]:
        bf = t.startswith("bf")
        mods = [".rn", ""] + ([] if bf else [".ftz", ".sat", ".rn.ftz.sat"])
        for op in ["add", "sub", "mul"]:
            for m in mods:
                case("%s%s.%s" % (op, m, t), "f16", "%s%s.%s %%d, %%a, %%b;" % (op, m, t), [t, t], t)
        fmods = [".rn", ".rn.relu"] + ([] if bf else [".rn.ftz", ".rn.sat", ".rn.ftz.relu"])
        for m in fmods:
            case("fma%s.%s" % (m, t), "f16", "fma%s.%s %%d, %%a, %%b, %%c;" % (m, t), [t, t, t], t)
        for op in ["abs", "neg"]:
            for m in [""] + ([] if bf else [".ftz"]):
                case("%s%s.%s" % (op, m, t), "f16", "%s%s.%s %%d, %%a;" % (op, m, t), [t], t)
        for op in ["min", "max"]:
            for m in ["", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs"] + ([] if bf else [".ftz"]):
                case("%s%s.%s" % (op, m, t), "f16", "%s%s.%s %%d, %%a, %%b;" % (op, m, t), [t, t], t)
        # approximations
        if not bf:
            case("ex2.approx.%s" % t, "f16approx", "ex2.approx.%s %%d, %%a;" % t, [t], t)
        else:
            case("ex2.approx.ftz.%s" % t, "f16approx", "ex2.approx.ftz.%s %%d, %%a;" % t, [t], t)
        case("tanh.approx.%s" % t, "f16approx", "tanh.approx.%s %%d, %%a;" % t, [t], t)


def fam_approx():
    t = "f32"
    for ftz in ["", ".ftz"]:
        for op in ["rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2"]:
            case("%s.approx%s.f32" % (op, ftz), "f32approx", "%s.approx%s.f32 %%d, %%a;"
                 % (op, ftz), [t], t)
        for op in ["div.approx", "div.full"]:
            case("%s%s.f32" % (op, ftz), "f32approx", "%s%s.f32 %%d, %%a, %%b;" % (op, ftz),
                 [t, t], t)
    case("tanh.approx.f32", "f32approx", "tanh.approx.f32 %d, %a;", [t], t)
    case("rcp.approx.ftz.f64", "f64approx", "rcp.approx.ftz.f64 %d, %a;", ["f64"], "f64")
    for ftz in ["", ".ftz"]:
        case("rsqrt.approx%s.f64" % ftz, "f64approx", "rsqrt.approx%s.f64 %%d, %%a;" % ftz,
             ["f64"], "f64")


CMPS_INT = ["eq", "ne", "lt", "le", "gt", "ge"]
CMPS_U = ["lo", "ls", "hi", "hs"]
CMPS_F = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
          "nan"]


def fam_cmp():
    for t in ["u16", "u32", "u64", "s16", "s32", "s64", "b16", "b32", "b64"]:
        cmps = (["eq", "ne"] if t[0] == "b" else CMPS_INT) + (CMPS_U if t[0] == "u" else [])
        for c in cmps:
            case("setp.%s.%s" % (c, t), "cmp", "setp.%s.%s %%p1, %%a, %%b; selp.u32 %%d, 1, 0, %%p1;"
                 % (c, t), [t, t], "u32")
    for t in ["f32", "f64"]:
        for c in CMPS_F:
            for ftz in ([""] if t == "f64" else ["", ".ftz"]):
                case("setp.%s%s.%s" % (c, ftz, t), "cmp",
                     "setp.%s%s.%s %%p1, %%a, %%b; selp.u32 %%d, 1, 0, %%p1;" % (c, ftz, t),
                     [t, t], "u32")
    for t in ["f16", "bf16"]:
        for c in CMPS_F:
            case("setp.%s.%s" % (c, t), "cmp", "setp.%s.%s %%p1, %%a, %%b; selp.u32 %%d, 1, 0, %%p1;"
                 % (c, t), [t, t], "u32")
    for t in ["f16x2", "bf16x2"]:
        for c in ["lt", "eq", "geu", "nan"]:
            case("setp.%s.%s" % (c, t), "cmp",
                 "setp.%s.%s %%p1|%%p2, %%a, %%b; selp.u32 %%t5, 1, 0, %%p1; "
                 "selp.u32 %%t6, 2, 0, %%p2; or.b32 %%d, %%t5, %%t6;" % (c, t), [t, t], "u32")
    for bo in ["and", "or", "xor"]:
        for t, c in [("s32", "lt"), ("f32", "gtu"), ("u64", "hs")]:
            case("setp.%s.%s.%s.pq" % (c, bo, t), "cmp",
                 "setp.ne.u32 %%p3, %%c, 0; setp.%s.%s.%s %%p1|%%p2, %%a, %%b, !%%p3; "
                 "selp.u32 %%t5, 1, 0, %%p1; selp.u32 %%t6, 2, 0, %%p2; or.b32 %%d, %%t5, %%t6;"
                 % (c, bo, t), [t, t, "small"], "u32")
    for dt in ["u32", "s32", "f32"]:
        for st, c in [("s32", "ge"), ("f32", "lt"), ("f32", "neu"), ("u64", "hi")]:
            case("set.%s.%s.%s" % (c, dt, st), "cmp", "set.%s.%s.%s %%d, %%a, %%b;" % (c, dt, st),
                 [st, st], dt)
    for t in ["b16", "b32", "b64", "u32", "s64", "f32", "f64"]:
        case("selp.%s" % t, "cmp", "setp.ne.u32 %%p1, %%c, 0; selp.%s %%d, %%a, %%b, %%p1;" % t,
             [t, t, "small"], t)
    for t in ["b32", "u32", "f32"]:
        case("slct.%s.s32" % t, "cmp", "slct.%s.s32 %%d, %%a, %%b, %%c;" % t, [t, t, "s32"], t)
        for ftz in ["", ".ftz"]:
            case("slct%s.%s.f32" % (ftz, t), "cmp", "slct%s.%s.f32 %%d, %%a, %%b, %%c;" % (ftz, t),
                 [t, t, "f32"], t)


def fam_cvt():
    ints = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
    floats = ["f16", "bf16", "f32", "f64"]
    widths = {"u8": 16, "s8": 16, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64,
              "s64": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}

    def reg_t(t):
        w = widths[t]
        return T(t if t not in ("u8", "s8") else ("u16" if t == "u8" else "s16"), w,
                 "i" if t in ints else ("bf" if t == "bf16" else "f"))

    def fits(d, s):
        # Every value of s is a value of d.
        wd, ws = int(d[1:]), int(s[1:])
        return wd >= ws if d[0] == s[0] else (d[0] == "s" and wd > ws)

    # Not valid PTX (the driver rejects them): `.sat` on an integer conversion that cannot
    # overflow, bf16 to and from 8-bit integers, `.sat` on float conversions involving bf16.
    for d in ints:
        for s in ints:
            if d == s:
                continue
            for sat in ["", ".sat"]:
                case("cvt%s.%s.%s" % (sat, d, s), "cvt", "cvt%s.%s.%s %%d, %%a;" % (sat, d, s),
                     [reg_t(s)], reg_t(d), valid=not (sat and fits(d, s)))
    for d in ints:
        for s in floats:
            for r in ["rni", "rzi", "rmi", "rpi"]:
                for ftz in ([""] if s != "f32" else ["", ".ftz"]):
                    case("cvt.%s%s.%s.%s" % (r, ftz, d, s), "cvt",
                         "cvt.%s%s.%s.%s %%d, %%a;" % (r, ftz, d, s), [reg_t(s)], reg_t(d),
                         valid=not (s == "bf16" and d in ("u8", "s8")))
    for d in floats:
        for s in ints:
            for r in RNDS:
                case("cvt.%s.%s.%s" % (r, d, s), "cvt", "cvt.%s.%s.%s %%d, %%a;" % (r, d, s),
                     [reg_t(s)], reg_t(d), valid=not (d == "bf16" and s in ("u8", "s8")))
    order = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
    for d in floats:
        for s in floats:
            if d == s:
                for r in ["rni", "rzi", "rmi", "rpi"]:
                    if d in ("f32", "f64"):
                        for ftz in ([""] if d == "f64" else ["", ".ftz"]):
                            case("cvt.%s%s.%s.%s" % (r, ftz, d, s), "cvt",
                                 "cvt.%s%s.%s.%s %%d, %%a;" % (r, ftz, d, s), [reg_t(s)], reg_t(d))
                continue
            narrowing = order[d] < order[s] or (order[d] == order[s])
            rmods = RNDS if narrowing else [""]
            for r in rmods:
                for extra in ["", ".sat"] + ([".ftz"] if "f32" in (d, s) and d != "f64" else []):
                    rr = "." + r if r else ""
                    case("cvt%s%s.%s.%s" % (rr, extra, d, s), "cvt",
                         "cvt%s%s.%s.%s %%d, %%a;" % (rr, extra, d, s), [reg_t(s)], reg_t(d),
                         valid=not (extra == ".sat" and "bf16" in (d, s)))
    for d in ["f16x2", "bf16x2"]:
        for m in [".rn", ".rz", ".rn.relu", ".rz.relu", ".rn.satfinite", ".rn.relu.satfinite"]:
            case("cvt%s.%s.f32" % (m, d), "cvt", "cvt%s.%s.f32 %%d, %%a, %%b;" % (m, d),
                 ["f32", "f32"], "b32")
    # `.rn.satfinite` into tf32 needs sm_100.
    for m in [".rna", ".rna.satfinite", ".rn", ".rz", ".rn.satfinite", ".rn.relu"]:
        case("cvt%s.tf32.f32" % m, "cvt", "cvt%s.tf32.f32 %%d, %%a;" % m, ["f32"], "b32",
             valid=m != ".rn.satfinite")
    for d in ["e4m3x2", "e5m2x2"]:
        for m in [".rn.satfinite", ".rn.satfinite.relu"]:
            case("cvt%s.%s.f32" % (m, d), "cvt", "cvt%s.%s.f32 %%d, %%a, %%b;" % (m, d),
                 ["f32", "f32"], "b16")
            case("cvt%s.%s.f16x2" % (m, d), "cvt", "cvt%s.%s.f16x2 %%d, %%a;" % (m, d),
                 ["f16x2"], "b16")
        for m in [".rn", ".rn.relu"]:
            case("cvt%s.f16x2.%s" % (m, d), "cvt", "cvt%s.f16x2.%s %%d, %%a;" % (m, d), ["b16"],
                 "b32")
    for d in ["u16", "s16"]:
        case("cvt.pack.sat.%s.s32" % d, "cvt", "cvt.pack.sat.%s.s32 %%d, %%a, %%b;" % d,
             ["s32", "s32"], "b32")
    for d in ["u8", "s8", "u4", "s4", "u2", "s2"]:
        case("cvt.pack.sat.%s.s32.b32" % d, "cvt", "cvt.pack.sat.%s.s32.b32 %%d, %%a, %%b, %%c;" % d,
             ["s32", "s32", "b32"], "b32")


def fam_warp():
    for mode, bs, cs in [("up", [0, 1, 3, 31], [0, 0x800, 0x1800]),
                         ("down", [0, 1, 5, 31], [0x1f, 0x81f, 0x181f, 0x3]),
                         ("bfly", [0, 1, 6, 17, 31], [0x1f, 0x81f, 0x1c1f, 0xf]),
                         ("idx", [0, 5, 31], [0x1f, 0x101f, 0x181f, 0x7])]:
        for c in cs:
            case("shfl.sync.%s.b32.c%#x" % (mode, c), "warp",
                 "and.b32 %%t5, %%b, 31; shfl.sync.%s.b32 %%t6|%%p1, %%a, %%t5, %#x, -1; "
                 "selp.u32 %%t7, 0x80000000, 0, %%p1; xor.b32 %%d, %%t6, %%t7;" % (mode, c),
                 ["b32", "u32"], "b32")
        for b in bs:
            case("shfl.sync.%s.b32.imm%d" % (mode, b), "warp",
                 "shfl.sync.%s.b32 %%d, %%a, %d, 0x1f, -1;" % (mode, b), ["b32"], "b32")
    # divergent lanes: only lanes with a matching bit shuffle, with their own membermask.
    case("shfl.sync.idx.partial", "warp",
         "mov.u32 %d, 0; and.b32 %t5, %t1, 1; setp.eq.u32 %p1, %t5, 1; "
         "@%p1 shfl.sync.idx.b32 %d, %a, 3, 0x1f, 0xaaaaaaaa;", ["b32"], "b32")
    case("shfl.sync.bfly.halves", "warp",
         "and.b32 %t5, %t1, 16; setp.eq.u32 %p1, %t5, 0; selp.b32 %t6, 0x0000ffff, 0xffff0000, %p1; "
         "shfl.sync.bfly.b32 %d, %a, 1, 0x1f, %t6;", ["b32"], "b32")
    for m in ["all", "any", "uni"]:
        for thr in [7, 40, 64]:
            case("vote.sync.%s.pred.lt%d" % (m, thr), "warp",
                 "setp.lt.u32 %%p1, %%a, %d; vote.sync.%s.pred %%p2, %%p1, -1; "
                 "selp.u32 %%d, 1, 0, %%p2;" % (thr, m), ["small"], "u32")
        case("vote.sync.%s.pred.not" % m, "warp",
             "setp.lt.u32 %%p1, %%a, 20; vote.sync.%s.pred %%p2, !%%p1, -1; "
             "selp.u32 %%d, 1, 0, %%p2;" % m, ["small"], "u32")
    case("vote.sync.ballot.b32", "warp", "setp.lt.u32 %p1, %a, 20; vote.sync.ballot.b32 %d, %p1, -1;",
         ["small"], "u32")
    case("vote.sync.ballot.partial", "warp",
         "mov.u32 %d, 0; and.b32 %t5, %t1, 3; setp.ne.u32 %p3, %t5, 0; setp.lt.u32 %p1, %a, 20; "
         "@%p3 vote.sync.ballot.b32 %d, %p1, 0xeeeeeeee;", ["small"], "u32")
    for t in ["b32", "b64"]:
        case("match.any.sync.%s" % t, "warp",
             "{ .reg %s %%x; and%s %%x, %%a, 3; match.any.sync.%s %%d, %%x, -1; }"
             % (REG[ty(t).width], "." + t, t), [t], "b32")
        case("match.all.sync.%s" % t, "warp",
             "{ .reg %s %%x; and%s %%x, %%a, 0; match.all.sync.%s %%t5|%%p1, %%x, -1; "
             "selp.u32 %%d, %%t5, 7, %%p1; }" % (REG[ty(t).width], "." + t, t), [t], "b32")
        case("match.all.sync.%s.differ" % t, "warp",
             "match.all.sync.%s %%t5|%%p1, %%a, -1; selp.u32 %%d, %%t5, 7, %%p1;" % t, [t], "b32")
    for op, t in [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
                  ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
        case("redux.sync.%s.%s" % (op, t), "warp", "redux.sync.%s.%s %%d, %%a, -1;" % (op, t),
             [t], "b32")
    case("redux.sync.add.partial", "warp",
         "mov.u32 %d, 0; and.b32 %t5, %t1, 1; setp.eq.u32 %p1, %t5, 0; "
         "@%p1 redux.sync.add.u32 %d, %a, 0x55555555;", ["u32"], "u32")
    case("elect.sync", "warp",
         "and.b32 %t5, %t1, 31; setp.ge.u32 %p3, %t5, 5; mov.u32 %d, 99; "
         "@%p3 elect.sync %t6|%p1, 0xffffffe0; selp.u32 %t7, 100, 0, %p1; "
         "@%p3 add.u32 %d, %t6, %t7;", ["u32"], "u32")
    case("activemask.divergent", "warp",
         "and.b32 %t5, %a, 1; setp.eq.u32 %p1, %t5, 0; @%p1 bra L_x; activemask.b32 %d; "
         "bra L_y; L_x: activemask.b32 %t6; not.b32 %d, %t6; L_y:", ["small"], "u32")


def fam_control():
    case("bra.loop.sum", "control",
         "{ .reg .b32 %i; .reg .pred %q; and.b32 %i, %a, 15; mov.u32 %d, 0;\nL_top:\n"
         "setp.eq.u32 %q, %i, 0;\n@%q bra L_done;\nadd.u32 %d, %d, %i;\nsub.u32 %i, %i, 1;\n"
         "bra.uni L_top;\nL_done:\n}", ["u32"], "u32")
    case("brx.idx.many", "control",
         "{ .reg .b32 %i; rem.u32 %i, %a, 6;\nTs: .branchtargets L0, L1, L2, L3, L4, L5;\n"
         "brx.idx %i, Ts;\nL0:\nmov.u32 %d, 100;\nbra L_end;\nL3:\nmov.u32 %d, 400;\nbra L_end;\n"
         "L1:\nmov.u32 %d, 200;\nbra L_end;\nL5:\nmov.u32 %d, 600;\nbra L_end;\nL2:\n"
         "mov.u32 %d, 300;\nbra L_end;\nL4:\nmov.u32 %d, 500;\nL_end:\nactivemask.b32 %t5;\n"
         "add.u32 %d, %d, %t5;\n}", ["u32"], "u32")
    case("nested.divergence", "control",
         "{ .reg .pred %q<3>; mov.u32 %d, 0; and.b32 %t5, %a, 1; setp.eq.u32 %q1, %t5, 0;\n"
         "@%q1 bra A;\nand.b32 %t6, %a, 2; setp.eq.u32 %q2, %t6, 0;\n@%q2 bra B;\n"
         "add.u32 %d, %d, 1;\nbra C;\nB:\nadd.u32 %d, %d, 2;\nC:\nadd.u32 %d, %d, 4;\nbra D;\n"
         "A:\nadd.u32 %d, %d, 8;\nD:\nactivemask.b32 %t7;\nxor.b32 %d, %d, %t7;\n}",
         ["u32"], "u32")
    case("loop.divergent.exit", "control",
         "{ .reg .b32 %i; .reg .pred %q; mov.u32 %i, 0; mov.u32 %d, 0;\nL_top:\n"
         "add.u32 %i, %i, 1;\nmul.lo.u32 %t5, %i, %i;\nsetp.gt.u32 %q, %t5, %a;\n@%q bra L_out;\n"
         "add.u32 %d, %d, %i;\nsetp.lt.u32 %q, %i, 50;\n@%q bra L_top;\nL_out:\n"
         "shfl.sync.idx.b32 %t6, %d, 0, 0x1f, -1;\nadd.u32 %d, %d, %t6;\n}",
         ["u32"], "u32", inputs=[[RNG.randrange(0, 3000) for _ in range(N)]])
    case("bar.red.popc", "control",
         "setp.lt.u32 %p1, %a, 20; bar.red.popc.u32 %d, 0, %p1;", ["small"], "u32")
    case("bar.red.and", "control",
         "setp.lt.u32 %p1, %a, 39; bar.red.and.pred %p2, 0, %p1; selp.u32 %d, 1, 0, %p2;",
         ["small"], "u32")
    case("shared.exchange", "control",
         "mov.u32 %t5, s; shl.b32 %t6, %t1, 2; add.u32 %t6, %t5, %t6;\n"
         "st.shared.u32 [%t6], %a;\nbar.sync 0;\nxor.b32 %t7, %t1, 37;\nshl.b32 %t7, %t7, 2;\n"
         "and.b32 %t7, %t7, 255;\nadd.u32 %t7, %t5, %t7;\nld.shared.u32 %d, [%t7];",
         ["u32"], "u32", extra="  .shared .align 4 .b32 s[64];\n")


def fam_mem():
    # Atomics whose per-thread results do not depend on the order of the threads: each thread
    # works on its own word (cas, exch, inc, dec, min, max, add, and, or, xor against its input).
    for op, t, extra in [("add", "u32", ""), ("add", "u64", ""), ("add", "f32", ""),
                         ("add", "f64", ""), ("and", "b32", ""), ("or", "b64", ""),
                         ("xor", "b32", ""), ("min", "s32", ""), ("max", "u64", ""),
                         ("min", "u32", ""), ("max", "s64", ""), ("inc", "u32", ""),
                         ("dec", "u32", ""), ("exch", "b32", ""), ("cas", "b32", ", %c"),
                         ("cas", "b64", ", %c"), ("add.noftz", "f16", ""),
                         ("add.noftz", "bf16x2", "")]:
        tt = ty(t)
        body = ("st.global%s [%%ad0], %%a; atom.global.%s.%s %%c, [%%ad0], %%b%s; "
                "ld.global%s %%d, [%%ad0]; xor%s %%d, %%d, %%c;"
                % (LD[tt.width], op, t, extra.replace("%c", "%a"), LD[tt.width],
                   ".b" + str(tt.width) if tt.width >= 16 else ".b16"))
        ins = [t, t, t]
        case("atom.global.%s.%s" % (op, t), "mem", body, ins, t)
    case("red.shared.add.u32.contention", "mem",
         "setp.eq.u32 %p1, %t1, 0; @%p1 st.shared.u32 [s], 0; bar.sync 0;\n"
         "red.shared.add.u32 [s], %a; bar.sync 0; ld.shared.u32 %d, [s];", ["small"], "u32",
         extra="  .shared .align 4 .u32 s;\n")
    case("atom.shared.max.s32.contention", "mem",
         "setp.eq.u32 %p1, %t1, 0; @%p1 st.shared.u32 [s], 0x80000000;"
         " bar.sync 0;\natom.shared.max.s32 %t5, [s], %a; bar.sync 0; ld.shared.u32 %d, [s];",
         ["s32"], "u32", extra="  .shared .align 4 .s32 s;\n")
    for t, w in [("u8", 8), ("s8", 8), ("u16", 16), ("s16", 16)]:
        case("ld.global.%s" % t, "mem",
             "{ .reg .b64 %%x; and.b64 %%x, %%ad1, -16; ld.global.%s %%d, [%%x+3]; }" % t
             if w == 8 else "{ .reg .b64 %%x; and.b64 %%x, %%ad1, -16; ld.global.%s %%d, [%%x+6]; }" % t,
             ["u32"], "u32")


def fam_probe():
    """Targeted inputs for rules established from the vectors (explicit inputs from a local
    generator, so the other cases keep their recorded inputs)."""
    rng = random.Random(4242)

    def f32_bits(v):
        return struct.unpack("<I", struct.pack("<f", v))[0]

    # `.ftz` tininess: products (and fma results) whose exact value lies just below the smallest
    # normal but round up to it. f16 is measured to flush them (tininess before rounding); f32
    # is not yet measured.
    a32, b32 = [0x00800000, 0x3F7FFFFF, 0x00800001, 0x3F7FFFFE], [0x3F7FFFFF, 0x00800000,
                                                                   0x3F7FFFFE, 0x00800001]
    while len(a32) < N:
        e = rng.randint(-70, -57)
        ma = 1.0 + rng.randrange(1 << 23) / float(1 << 23)
        a = ma * 2.0 ** e
        b = (2.0 ** -126) / a * (1.0 - rng.choice([2.0 ** -24, 2.0 ** -25, 2.0 ** -30, 0.0]))
        a32.append(f32_bits(a))
        b32.append(f32_bits(b))
    for op in ["mul.rn.ftz", "mul.rp.ftz", "mul.rz.ftz"]:
        case("%s.f32.tiny" % op, "f32", "%s.f32 %%d, %%a, %%b;" % op, ["f32", "f32"], "f32",
             inputs=[a32, b32])
    case("fma.rn.ftz.f32.tiny", "f32", "fma.rn.ftz.f32 %d, %a, %b, %c;", ["f32"] * 3, "f32",
         inputs=[a32, b32, [rng.choice([0, 0x80000000, 0x00000001, 0x80000001])
                            for _ in range(N)]])
    a16 = [0x0400, 0x3BFF, 0x0401, 0x3BFE] + [rng.choice([0x0400, 0x0401, 0x0402, 0x0800,
                                                          0x0C00, 0x1000, 0x2000, 0x1C00])
                                              for _ in range(N - 4)]
    b16 = [0x3BFF, 0x0400, 0x3BFE, 0x0401] + [rng.choice([0x3BFF, 0x3BFE, 0x37FF, 0x33FF,
                                                          0x2FFF, 0x1BFF, 0x3800, 0x3400])
                                              for _ in range(N - 4)]
    for op in ["mul.rn.ftz", "fma.rn.ftz"]:
        three = op.startswith("fma")
        case("%s.f16.tiny" % op, "f16", "%s.f16 %%d, %%a, %%b%s;" % (op, ", %c" if three else ""),
             ["f16"] * (3 if three else 2), "f16",
             inputs=[a16, b16] + ([[rng.choice([0, 0x8000, 0x0001, 0x8001])
                                    for _ in range(N)]] if three else []))
    # f64 NaN propagation with several NaN operands (priority b, a for add/sub/mul/min/max;
    # b, c, a for fma; a, b for div), signs and signalling NaNs.
    nans = [0x7FF8000000000000, 0xFFF8000000000001, 0x7FF4000000000000, 0x7FF0000000000001,
            0xFFF0000000000002, 0x7FFC0000000000AB, 0x3FF0000000000000, 0x7FF0000000000000]
    cols = [[rng.choice(nans) for _ in range(N)] for _ in range(3)]
    for op in ["add.rn", "sub.rn", "mul.rn", "div.rn", "min", "max"]:
        case("%s.f64.nan2" % op, "f64", "%s.f64 %%d, %%a, %%b;" % op, ["f64", "f64"], "f64",
             inputs=cols[:2])
    case("fma.rn.f64.nan3", "f64", "fma.rn.f64 %d, %a, %b, %c;", ["f64"] * 3, "f64",
         inputs=cols)
    # fns with offsets far beyond 32 (found by the interp_agree hardware batch: `fns.b32 d,
    # m, base, m` gives 0 on the H100 where the ISA pseudocode gives 0xffffffff).
    offs = [0x80000000, 0x7FFFFFFF, 33, 34, 63, 64, 65, 100, 0x10000, 0xFFFFFFDF, 0xFFFFFFC0,
            0xFFFFFF9C, 0x80000001, 0xFFFF0000, 31, 32, 0xFFFFFFE0, 0xFFFFFFE1]
    masks = [0xFFFFFFFF, 0x80000000, 0x00000001, 0xAAAAAAAA, 0x55555555, 0x0000FFFF, 0xFFFF0000]
    fm, fb, fo = [], [], []
    for k in range(N):
        fm.append(masks[k % len(masks)] if k < 64 else rng.getrandbits(32))
        fb.append(rng.choice([0, 1, 5, 16, 24, 30, 31]))
        fo.append(offs[k % len(offs)] if k < 96 else fm[-1])
    case("fns.b32.far", "bits", "{ .reg .b32 %x; and.b32 %x, %b, 31; fns.b32 %d, %a, %x, %c; }",
         ["b32", "b32", "b32"], "b32", inputs=[fm, fb, fo])
    # Bit-field instructions with immediate positions and lengths past the register width
    # (the interp_agree hardware batch: `bfi.b32 d, a, a, 3, 32` left the H100's d equal to b),
    # against the same operands in registers.
    vals = [rng.getrandbits(32) for _ in range(N)]
    for pos, ln in [(3, 32), (3, 29), (0, 32), (8, 40), (31, 2), (118, 55), (40, 8)]:
        case("bfi.b32.imm.%d.%d" % (pos, ln), "bits", "bfi.b32 %%d, %%a, %%b, %d, %d;" % (pos, ln),
             ["b32", "b32"], "b32", inputs=[vals, vals[::-1]])
        case("bfi.b32.reg.%d.%d" % (pos, ln), "bits",
             "{ .reg .b32 %%x, %%y; mov.b32 %%x, %d; mov.b32 %%y, %d; "
             "bfi.b32 %%d, %%a, %%b, %%x, %%y; }" % (pos, ln),
             ["b32", "b32"], "b32", inputs=[vals, vals[::-1]])
        for t in ["u32", "s32"]:
            case("bfe.%s.imm.%d.%d" % (t, pos, ln), "bits",
                 "bfe.%s %%d, %%a, %d, %d;" % (t, pos, ln), [t], t, inputs=[vals])
    # Sweeps of (pos, len) in 0..=41 x 0..=41 (packed as pos | len << 8 in %b): bfi of all ones
    # into zero (the output is the inserted mask) and bfe.s32/u32 of a positive and a negative
    # value.
    combos = [p | (l << 8) for p in range(42) for l in range(42)]
    for k in range(0, len(combos), N):
        chunk = (combos[k:k + N] + [0] * N)[:N]
        case("bfi.b32.sweep#%d" % (k // N), "bits",
             "{ .reg .b32 %x, %y; and.b32 %x, %b, 255; shr.b32 %y, %b, 8; "
             "bfi.b32 %d, %a, 0, %x, %y; }", ["b32", "b32"], "b32",
             inputs=[[0xFFFFFFFF] * N, chunk])
        for t, v in [("s32", 0x7FFFFFFF), ("s32", 0x80000001), ("u32", 0xF0F0F0F1)]:
            case("bfe.%s.%08x.sweep#%d" % (t, v, k // N), "bits",
                 "{ .reg .b32 %%x, %%y; and.b32 %%x, %%b, 255; shr.b32 %%y, %%b, 8; "
                 "bfe.%s %%d, %%a, %%x, %%y; }" % t, [t, "b32"], t,
                 inputs=[[v] * N, chunk])
    # f64 atomic add: NaN operands (kept unquieted), inf + -inf.
    case("atom.global.add.f64.special", "mem",
         "st.global.b64 [%ad0], %a; atom.global.add.f64 %c, [%ad0], %b; "
         "ld.global.b64 %d, [%ad0]; xor.b64 %d, %d, %c;", ["f64", "f64", "f64"], "f64",
         inputs=[cols[0], [rng.choice(nans + [0xFFF0000000000000, 0x8000000000000000])
                           for _ in range(N)], cols[2]])


def fam_warp_guard():
    """Warp-collective instructions under a guard predicate (lanes with lane & 3 != 0, the
    membermask 0xeeeeeeee where the instruction takes one): what the lanes whose guard is false
    see, and what the others get. Recorded apart (corpus/vectors/warp_guard.jsonl)."""
    g = "and.b32 %t5, %t1, 3; setp.ne.u32 %p3, %t5, 0; "
    case("activemask.guarded", "warp", g + "mov.u32 %d, 7; @%p3 activemask.b32 %d;",
         ["u32"], "u32")
    case("activemask.guarded.none", "warp",
         "setp.eq.u32 %p3, %t1, 99; mov.u32 %d, 7; @%p3 activemask.b32 %d; "
         "activemask.b32 %t6; add.u32 %d, %d, %t6;", ["u32"], "u32")
    for kind in ["any", "all", "uni"]:
        case("vote.sync.%s.guarded" % kind, "warp",
             g + "and.b32 %t6, %a, 1; setp.ne.u32 %p1, %t6, 0; mov.u32 %d, 9; "
             "@%p3 vote.sync.{k}.pred %p2, %p1, 0xeeeeeeee; @%p3 selp.u32 %d, 1, 0, %p2;"
             .replace("{k}", kind), ["small"], "u32")
    case("shfl.sync.idx.guarded", "warp",
         g + "and.b32 %t6, %t1, 31; xor.b32 %t6, %t6, 4; mov.u32 %d, 5; "
         "@%p3 shfl.sync.idx.b32 %d, %a, %t6, 0x1f, 0xeeeeeeee;", ["u32"], "u32")
    case("shfl.sync.down.guarded", "warp",
         g + "mov.u32 %d, 5; @%p3 shfl.sync.down.b32 %d|%p1, %a, 4, 0x1f, 0xeeeeeeee; "
         "@%p3 selp.u32 %t6, 0x10000, 0, %p1; @%p3 add.u32 %d, %d, %t6;", ["u32"], "u32")
    case("match.any.sync.guarded", "warp",
         g + "and.b32 %t6, %a, 3; mov.u32 %d, 5; @%p3 match.any.sync.b32 %d, %t6, 0xeeeeeeee;",
         ["u32"], "u32")
    case("redux.sync.or.guarded", "warp",
         g + "mov.u32 %d, 5; @%p3 redux.sync.or.b32 %d, %a, 0xeeeeeeee;", ["u32"], "u32")
    case("bar.warp.sync.guarded", "warp",
         g + "mov.u32 %d, 5; @%p3 bar.warp.sync 0xeeeeeeee; @%p3 activemask.b32 %d;",
         ["u32"], "u32")
    case("elect.sync.guarded", "warp",
         g + "mov.u32 %d, 5; @%p3 elect.sync %t6|%p1, 0xeeeeeeee; "
         "@%p3 selp.u32 %t7, 100, 0, %p1; @%p3 add.u32 %d, %t6, %t7;", ["u32"], "u32")


def fam_contract():
    """`mul` then `add`/`sub` without rounding modifiers, which ptxas may fuse (one rounding).
    Recorded apart (corpus/vectors/contract.jsonl.xz); see contract_cases.py."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract_cases
    contract_cases.build(case, N)


def fam_fold():
    """NaN signs where ptxas folds `neg`/`abs` into the user of the result (contract_cases.py).
    Recorded apart (corpus/vectors/fold.jsonl.xz)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract_cases
    contract_cases.build_fold(case, N)


def fam_bitfold():
    """`bfe`/`bfi` whose position and length are constants, which ptxas folds at compile time
    (the probe family found it disagreeing with the same operands in registers past the
    register width). One case per type, constant position and variant: every length of
    BITFOLD_VALUES, each result stored to its own block of N words (`out_n`). Variants: `imm`
    (immediates; ptxas takes none above 255), `reg` (`mov`s of the constants), and for
    `bfi.b32`/`bfe.s32` `posrt`/`lenrt` (the position, or the length, read from input c at run
    time, the other an immediate). Recorded apart (corpus/vectors/bitfold.jsonl.xz)."""
    rng = random.Random(20261129)
    edge32 = [0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001, 1, 0xF0F0F0F1, 0x0F0F0F0E]
    edge64 = [0, (1 << 64) - 1, (1 << 63) - 1, 1 << 63, (1 << 63) + 1, 1,
              0xF0F0F0F0F0F0F0F1, 0x0F0F0F0F0F0F0F0E]
    for ins, width in [("bfe.u32", 32), ("bfe.s32", 32), ("bfe.u64", 64), ("bfe.s64", 64),
                       ("bfi.b32", 32), ("bfi.b64", 64)]:
        edge = edge32 if width == 32 else edge64
        a = edge + [rng.getrandbits(width) for _ in range(N - len(edge))]
        b = [rng.getrandbits(width) for _ in range(N)]
        t = ins.split(".")[1]
        reg = REG[width]
        swept = ins in ("bfi.b32", "bfe.s32")
        # `bfi.b32` keeps its ISA meaning at some positions and not others: every one swept.
        positions = BITFOLD_VALUES + ([p for p in range(32) if p not in BITFOLD_VALUES]
                                     if ins == "bfi.b32" else [])
        for pos in positions:
            for variant in ("imm", "reg", "posrt", "lenrt"):
                if variant == "imm" and pos > 255:
                    continue
                if variant == "reg" and not swept and pos not in (3, 40, 64, 255, 300):
                    continue
                if variant in ("posrt", "lenrt") and not (swept and pos in (3, 40)):
                    continue
                lens = [ln for ln in BITFOLD_VALUES if variant != "imm" or ln <= 255]
                lines = ["{ .reg %s %%x; .reg .b32 %%y, %%z;" % reg]
                for j, ln in enumerate(lens):
                    if variant == "imm":
                        p, l = str(pos), str(ln)
                    elif variant == "reg":
                        lines.append("mov.b32 %%y, %d; mov.b32 %%z, %d;" % (pos, ln))
                        p, l = "%y", "%z"
                    elif variant == "posrt":
                        p, l = "%c", str(min(ln, 255))
                    else:
                        p, l = str(pos), "%c"
                    if ins.startswith("bfe"):
                        lines.append("%s %%x, %%a, %s, %s;" % (ins, p, l))
                    else:
                        lines.append("%s %%x, %%a, %%b, %s, %s;" % (ins, p, l))
                    if j == 0:
                        lines.append("mov.b%d %%d, %%x;" % width)
                    else:
                        lines.append("st.global.b%d [%%ad0+%d], %%x;" % (width, j * N * width // 8))
                    if variant == "lenrt":
                        break
                lines.append("}")
                ty = T(t, width, "i")
                u32 = T("u32", 32, "i")
                cols = [(ty, a), (ty, b)]
                if variant == "posrt":
                    cols.append((u32, [pos] * N))
                elif variant == "lenrt":
                    # The length varies by lane: every value of BITFOLD_VALUES, then random.
                    cols.append((u32, (BITFOLD_VALUES * N)[:N]))
                out_n = N * (1 if variant == "lenrt" else len(lens))
                CASES.append({"name": "bitfold.%s.%s.%d" % (ins, variant, pos),
                              "family": "bitfold",
                              "ptx": kernel("\n".join(lines), [c[0] for c in cols], ty),
                              "ins": cols, "out": ty, "out_n": out_n})


# Positions and lengths of the `bitfold` family: in range, at and past the register widths, past
# the 8 bits the ISA keeps, and values whose low 8 bits are small.
BITFOLD_VALUES = [0, 1, 3, 8, 15, 16, 24, 31, 32, 33, 40, 47, 48, 63, 64, 65, 100, 127, 128,
                  129, 200, 255, 256, 257, 288, 300]


def fam_video():
    """Video instructions: scalar `vop` with selectors, saturation, secondary operations and
    merges; `vmad` with negations, `.po` and scales; `vset`; `vshl`/`vshr`; SIMD `vop2`/`vop4`
    with selectors, masks, saturation and accumulation. Combinations are drawn from their own
    seeded generator, inputs are words of edge bytes."""
    rng = random.Random(20261128)
    types = ["u32", "s32"]
    scalar_sel = ["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]
    names = set()

    def add(name, body, ins):
        if name in names:
            return
        names.add(name)
        case(name, "video", body, ins, "u32")

    tt = [(d, a, b) for d in types for a in types for b in types]
    for vop in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
        for d, a, b in tt:
            for sat in ["", ".sat"]:
                add("%s.%s.%s.%s%s" % (vop, d, a, b, sat),
                    "%s.%s.%s.%s%s %%d, %%a, %%b;" % (vop, d, a, b, sat), ["vb", "vb"])
                for op2 in ["add", "min", "max"]:
                    add("%s.%s.%s.%s%s.%s" % (vop, d, a, b, sat, op2),
                        "%s.%s.%s.%s%s.%s %%d, %%a, %%b, %%c;" % (vop, d, a, b, sat, op2),
                        ["vb", "vb", "vb"])
        for _ in range(70):
            d, a, b = rng.choice(tt)
            sat = rng.choice(["", ".sat"])
            asel, bsel = rng.choice(scalar_sel), rng.choice(scalar_sel)
            mode = rng.choice(["", "op2", "merge", "merge"])
            if mode == "op2":
                op2 = rng.choice(["add", "min", "max"])
                body = "%s.%s.%s.%s%s.%s %%d, %%a%s, %%b%s, %%c;" % (vop, d, a, b, sat, op2,
                                                                      asel, bsel)
            elif mode == "merge":
                dsel = rng.choice(scalar_sel[1:])
                body = "%s.%s.%s.%s%s %%d%s, %%a%s, %%b%s, %%c;" % (vop, d, a, b, sat, dsel,
                                                                    asel, bsel)
            else:
                body = "%s.%s.%s.%s%s %%d, %%a%s, %%b%s;" % (vop, d, a, b, sat, asel, bsel)
            add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
                ["vb", "vb", "vb"])
    for vop in ["vshl", "vshr"]:
        for _ in range(60):
            d, a = rng.choice(types), rng.choice(types)
            sat = rng.choice(["", ".sat"])
            mode = rng.choice([".clamp", ".wrap"])
            asel, bsel = rng.choice(scalar_sel), rng.choice(scalar_sel)
            op2 = rng.choice(["", "", ".add", ".min", ".max"])
            cs = ", %c" if op2 else rng.choice(["", ""])
            body = "%s.%s.%s.u32%s%s%s %%d, %%a%s, %%b%s%s;" % (vop, d, a, sat, mode, op2,
                                                               asel, bsel, cs)
            add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
                ["vb", "shift", "vb"])
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
        for a in types:
            for b in types:
                add("vset.%s.%s.%s" % (a, b, cmp), "vset.%s.%s.%s %%d, %%a, %%b;" % (a, b, cmp),
                    ["vb", "vb"])
        for _ in range(12):
            a, b = rng.choice(types), rng.choice(types)
            asel, bsel = rng.choice(scalar_sel), rng.choice(scalar_sel)
            mode = rng.choice(["op2", "merge"])
            if mode == "op2":
                body = "vset.%s.%s.%s.%s %%d, %%a%s, %%b%s, %%c;" % (
                    a, b, cmp, rng.choice(["add", "min", "max"]), asel, bsel)
            else:
                body = "vset.%s.%s.%s %%d%s, %%a%s, %%b%s, %%c;" % (
                    a, b, cmp, rng.choice(scalar_sel[1:]), asel, bsel)
            add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
                ["vb", "vb", "vb"])
    for d, a, b in tt:
        for po in ["", ".po"]:
            for sat in ["", ".sat"]:
                for sc in ["", ".shr7", ".shr15"]:
                    add("vmad.%s.%s.%s%s%s%s" % (d, a, b, po, sat, sc),
                        "vmad.%s.%s.%s%s%s%s %%d, %%a, %%b, %%c;" % (d, a, b, po, sat, sc),
                        ["vb", "vb", "vb"])
    for _ in range(80):
        d, a, b = rng.choice(tt)
        sat = rng.choice(["", ".sat"])
        sc = rng.choice(["", ".shr7", ".shr15"])
        asel, bsel = rng.choice(scalar_sel), rng.choice(scalar_sel)
        na, nb, nc = (rng.choice(["", "-"]) for _ in range(3))
        body = "vmad.%s.%s.%s%s%s %%d, %s%%a%s, %s%%b%s, %s%%c;" % (d, a, b, sat, sc, na, asel,
                                                                    nb, bsel, nc)
        add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
            ["vb", "vb", "vb"])
    for n, letter in [(2, "h"), (4, "b")]:
        masks = (["h0", "h1", "h10"] if n == 2 else
                 ["b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310",
                  "b32", "b320", "b321", "b3210"])

        def sel():
            return "." + letter + "".join(str(rng.randrange(2 * n)) for _ in range(n))

        for vop in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"]:
            op = "%s%d" % (vop, n)
            for d, a, b in tt:
                for mod in ["", ".sat", ".add"]:
                    add("%s.%s.%s.%s%s" % (op, d, a, b, mod),
                        "%s.%s.%s.%s%s %%d, %%a, %%b, %%c;" % (op, d, a, b, mod),
                        ["vb", "vb", "vb"])
            for _ in range(30):
                d, a, b = rng.choice(tt)
                mod = rng.choice(["", ".sat", ".add"])
                body = "%s.%s.%s.%s%s %%d.%s, %%a%s, %%b%s, %%c;" % (
                    op, d, a, b, mod, rng.choice(masks), sel(), sel())
                add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
                    ["vb", "vb", "vb"])
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
            for a in types:
                for b in types:
                    for mod in ["", ".add"]:
                        add("vset%d.%s.%s.%s%s" % (n, a, b, cmp, mod),
                            "vset%d.%s.%s.%s%s %%d, %%a, %%b, %%c;" % (n, a, b, cmp, mod),
                            ["vb", "vb", "vb"])
            for _ in range(8):
                a, b = rng.choice(types), rng.choice(types)
                mod = rng.choice(["", ".add"])
                body = "vset%d.%s.%s.%s%s %%d.%s, %%a%s, %%b%s, %%c;" % (
                    n, a, b, cmp, mod, rng.choice(masks), sel(), sel())
                add(body.split(" ")[0] + "|" + body.split(" ", 1)[1].replace(" ", ""), body,
                    ["vb", "vb", "vb"])


def fam_oob():
    """`fma.rn.oob{.relu}` on `f16`, `bf16` and their pairs: operands mixing the format's edge
    values with 0x7ff7 (the NaN that tensor loads fill out-of-bounds elements with, measured) and
    other NaNs, drawn from their own seeded generator."""
    rng = random.Random(20261129)
    specials = {"f16": [0x7FF7, 0x7FF7, 0xFFF7, 0x7FF6, 0x7FFF, 0x7E00, 0x7C01, 0xFE00],
                "bf16": [0x7FF7, 0x7FF7, 0xFFF7, 0x7FF6, 0x7FFF, 0x7FC0, 0x7F81, 0xFFC0]}
    for t in ["f16", "bf16"]:
        edges = (F16_EDGES if t == "f16" else BF16_EDGES) + specials[t]

        def half():
            r = rng.random()
            if r < 0.3:
                return rng.choice(specials[t])
            if r < 0.7:
                return rng.choice(edges)
            return rng.getrandbits(16)

        for pair in [False, True]:
            ty_ = t + ("x2" if pair else "")
            for relu in ["", ".relu"]:
                for k in range(4):
                    vals = []
                    for _ in range(3):
                        col = []
                        for _ in range(N):
                            col.append(half() | (half() << 16 if pair else 0))
                        vals.append(col)
                    name = "fma.rn.oob%s.%s#%d" % (relu, ty_, k + 1)
                    w = "b32" if pair else "b16"
                    case(name, "oob", "fma.rn.oob%s.%s %%d, %%a, %%b, %%c;" % (relu, ty_),
                         [w, w, w], w, inputs=vals)


def fam_atomv():
    """Vector atomics (`atom`/`red` `.v2`/`.v4`/`.v8` on `f32`, `f16`, `bf16` and the packed
    pairs, `add`/`min`/`max`), 128-bit `exch`/`cas` and `cas.b16`, each thread on its own
    16-byte slot of a module `.global` scratch: the slot starts as `a:c`, the atomic's operand
    is `b:c` (or `b` for 128-bit exchanges), and the case stores 8 bytes of the slot after it
    (`new`) or of the returned old value (`old`)."""
    rng = random.Random(20261130)
    glob = ".global .align 16 .b8 gscr[4096];\n"

    def word(kind):
        if kind == 32:
            e = lambda: rng.choice(F32_EDGES) if rng.random() < 0.5 else rand_float_bits(32)
            return e() | (e() << 32)
        edges = F16_EDGES if kind == "f16" else BF16_EDGES
        v = 0
        for i in range(4):
            h = rng.choice(edges) if rng.random() < 0.5 else rng.getrandbits(16)
            v |= h << (16 * i)
        return v

    def add(name, body, kind):
        ins = [ty("b64")] * 3
        vals = [[word(kind) for _ in range(N)] for _ in range(3)]
        ptx = kernel(body, ins, ty("b64")).replace(HEADER, HEADER + glob)
        CASES.append({"name": name, "family": "atomv", "ptx": ptx,
                      "ins": list(zip(ins, vals)), "out": ty("b64")})

    setup = ("  .reg .b64 %g; .reg .b32 %w<24>; .reg .b16 %s<40>; .reg .b128 %q<4>;\n"
             "  mov.u64 %g, gscr; mad.wide.u32 %g, %t4, 16, %g;\n"
             "  st.global.v2.b64 [%g], {%a, %c};\n")
    forms = []
    for op in ["add"]:
        for v in [2, 4]:
            forms.append(("%s.v%d.f32" % (op, v), v, 32, 32))
    for op in ["add", "min", "max"]:
        for t in ["f16", "bf16"]:
            for v in [2, 4, 8]:
                forms.append(("%s.noftz.v%d.%s" % (op, v, t), v, 16, t))
            for v in [2, 4]:
                forms.append(("%s.noftz.v%d.%sx2" % (op, v, t), v, 32, t))
    for name, v, eb, kind in forms:
        per = 64 // eb
        reg = "%w" if eb == 32 else "%s"
        # Operand elements: b then c, split.
        split = "  mov.b64 {%s}, %%b;\n  mov.b64 {%s}, %%c;\n" % (
            ", ".join("%s%d" % (reg, i) for i in range(per)),
            ", ".join("%s%d" % (reg, per + i) for i in range(per)))
        opnd = "{%s}" % ", ".join("%s%d" % (reg, i) for i in range(v))
        dst = "{%s}" % ", ".join("%s%d" % (reg, 10 + i) for i in range(v))
        total = v * eb // 8
        for what in ["new", "old"]:
            for half in (["lo", "hi"] if total == 16 else ["lo"]):
                if what == "new":
                    body = setup + split + "  atom.global.%s %s, [%%g], %s;\n" % (name, dst, opnd)
                    body += "  ld.global.v2.b64 {%%rd1, %%rd2}, [%%g];\n  mov.b64 %%d, %s;" % (
                        "%rd1" if half == "lo" else "%rd2")
                else:
                    body = setup + split + "  atom.global.%s %s, [%%g], %s;\n" % (name, dst, opnd)
                    k0 = 0 if half == "lo" else per
                    body += "  mov.b64 %%d, {%s};" % ", ".join(
                        "%s%d" % (reg, 10 + k0 + i) for i in range(per)) if v * eb >= 64 else ""
                    if v * eb < 64:
                        # A 32-bit old value: widen into the low word.
                        body += "  mov.b32 %%w20, {%s};\n  cvt.u64.u32 %%d, %%w20;" % ", ".join(
                            "%s%d" % (reg, 10 + i) for i in range(v)) if eb == 16 else \
                            "  cvt.u64.u32 %%d, %s10;" % reg
                add("atom.%s.%s.%s" % (name, what, half), "{\n" + body + "\n}", kind)
                if what == "new":
                    rbody = setup + split + "  red.global.%s [%%g], %s;\n" % (name, opnd)
                    rbody += "  ld.global.v2.b64 {%%rd1, %%rd2}, [%%g];\n  mov.b64 %%d, %s;" % (
                        "%rd1" if half == "lo" else "%rd2")
                    add("red.%s.%s" % (name, half), "{\n" + rbody + "\n}", kind)
    for op in ["exch", "cas"]:
        for what in ["new", "old"]:
            for half in ["lo", "hi"]:
                body = setup + "  mov.b128 %q1, {%b, %c};\n  mov.b128 %q2, {%c, %b};\n"
                # cas: compare with the slot itself in half the lanes (a:c), with b:c otherwise.
                if op == "cas":
                    body += ("  mov.b128 %q3, {%a, %c};\n  and.b32 %w21, %t1, 1;\n"
                             "  setp.eq.u32 %p1, %w21, 0;\n  @%p1 mov.b128 %q1, %q3;\n"
                             "  atom.global.cas.b128 %q0, [%g], %q1, %q2;\n")
                else:
                    body += "  atom.global.exch.b128 %q0, [%g], %q1;\n"
                if what == "new":
                    body += "  ld.global.v2.b64 {%%rd1, %%rd2}, [%%g];\n  mov.b64 %%d, %s;" % (
                        "%rd1" if half == "lo" else "%rd2")
                else:
                    body += "  mov.b128 {%%rd1, %%rd2}, %%q0;\n  mov.b64 %%d, %s;" % (
                        "%rd1" if half == "lo" else "%rd2")
                add("atom.%s.b128.%s.%s" % (op, what, half), "{\n" + body + "\n}", 32)
    for what in ["new", "old"]:
        body = setup + ("  mov.b64 {%s0, %s1, %s2, %s3}, %b;\n  mov.b64 {%s4, %s5, %s6, %s7}, %a;\n"
                        "  and.b32 %w21, %t1, 1;\n  setp.eq.u32 %p1, %w21, 0;\n"
                        "  @%p1 mov.b16 %s0, %s4;\n"
                        "  atom.global.cas.b16 %s9, [%g], %s0, %s1;\n")
        if what == "new":
            body += "  ld.global.v2.b64 {%rd1, %rd2}, [%g];\n  mov.b64 %d, %rd1;"
        else:
            body += "  cvt.u64.u16 %d, %s9;"
        add("atom.cas.b16.%s" % what, "{\n" + body + "\n}", "f16")


def fam_mmab1():
    """Single-bit `mma.sync` (`.b1`, `.and.popc`/`.xor.popc`; m8n8k128, m16n8k128, m16n8k256):
    each thread's fragments built from its inputs (A from `a` and mixes of `a` and `b`, B from
    `b`, C from `c` and mixes), the case storing 8 bytes of D (`lo`: its first two registers,
    `hi`: the next two)."""
    shapes = [("m8n8k128", 1, 1, 2), ("m16n8k128", 2, 1, 4), ("m16n8k256", 4, 2, 4)]
    for shape, na, nb, nc in shapes:
        for op in ["and", "xor"]:
            for half in (["lo", "hi"] if nc == 4 else ["lo"]):
                a_regs = ["%w0", "%w1", "%w6", "%w7"][:na]
                b_regs = ["%w2", "%w3"][:nb]
                c_regs = ["%w4", "%w5", "%w8", "%w9"][:nc]
                d_regs = ["%w10", "%w11", "%w12", "%w13"][:nc]
                body = ("{ .reg .b32 %w<14>;\n"
                        "  mov.b64 {%w0, %w1}, %a; mov.b64 {%w2, %w3}, %b; mov.b64 {%w4, %w5}, %c;\n"
                        "  xor.b32 %w6, %w0, %w3; add.u32 %w7, %w1, %w2;\n"
                        "  xor.b32 %w8, %w4, %w0; xor.b32 %w9, %w5, %w1;\n"
                        "  mma.sync.aligned." + shape + ".row.col.s32.b1.b1.s32." + op
                        + ".popc {" + ", ".join(d_regs) + "}, {" + ", ".join(a_regs) + "}, {"
                        + ", ".join(b_regs) + "}, {" + ", ".join(c_regs) + "};\n"
                        "  mov.b64 %d, {" + ", ".join(d_regs[:2] if half == "lo" else d_regs[2:4])
                        + "};\n}")
                case("mma.%s.b1.%s.popc.%s" % (shape, op, half), "mmab1", body,
                     ["b64", "b64", "b64"], "b64")


def raw_cases(family, build):
    """Cases of one CTA of two warps from `build(add)` (wmma_cases.py): `add(name, ptx, inputs,
    out)` with `inputs` a list of (type, width, values) and `out` (type, width, count)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import wmma_cases

    def add(name, ptx, inputs, out):
        ins = [(T(t, w, "i"), vals) for t, w, vals in inputs]
        t, w, n = out
        CASES.append({"name": name, "family": family, "ptx": ptx, "ins": ins,
                      "out": T(t, w, "i"), "grid": [1, 1, 1], "block": [64, 1, 1],
                      "out_n": n})

    for b in build:
        getattr(wmma_cases, b)(add)


def fam_wmma():
    """`wmma.load`, `wmma.store` and `wmma.mma`: the fragment layouts and numerics of every
    shape, type and layout (wmma_cases.py)."""
    raw_cases("wmma", ["build"])


def fam_mmaqp():
    """The quad-pair `mma.m8n8k4` (wmma_cases.py): raw fragments in, D's registers out."""
    raw_cases("mmaqp", ["build_quadpair"])


def fam_mmaf64():
    """`mma.m8n8k4` `.f64` with each rounding modifier (wmma_cases.py)."""
    raw_cases("mmaf64", ["build_mma_f64"])


def fam_mmasp():
    """Sparse `mma.sp::ordered_metadata` (wmma_cases.py): probes of where each stored element of
    A lands for the metadata, and random values for the sums."""
    raw_cases("mmasp", ["build_mma_sp", "build_mma_sp_more"])


FAMILIES = {"int": fam_int, "extint": fam_extint, "bits": fam_bits, "float": fam_float,
            "half": fam_half, "approx": fam_approx, "cmp": fam_cmp, "cvt": fam_cvt,
            "warp": fam_warp, "control": fam_control, "mem": fam_mem,
            "probe": fam_probe, "warp_guard": fam_warp_guard,
            "contract": fam_contract, "fold": fam_fold, "bitfold": fam_bitfold, "video": fam_video,
            "oob": fam_oob, "atomv": fam_atomv, "mmab1": fam_mmab1,
            "wmma": fam_wmma, "mmaqp": fam_mmaqp,
            "mmaf64": fam_mmaf64, "mmasp": fam_mmasp}


# ----------------------------------------------------------------------------- running

def to_bytes(vals, width):
    nb = max(width // 8, 1)
    return b"".join(v.to_bytes(nb, "little") for v in vals)


def from_bytes(b, width):
    nb = max(width // 8, 1)
    return [int.from_bytes(b[i:i + nb], "little") for i in range(0, len(b), nb)]


def run_case(cp, np, c, tmpdir, index):
    # The driver JIT-compiles the PTX (cuModuleLoad on the file).
    # A file per case, so that nothing cached by path can be reused for another kernel.
    path = os.path.join(tmpdir, "case%05d.ptx" % index)
    with open(path, "w") as f:
        f.write(c["ptx"])
    mod = cp.RawModule(path=path)
    fn = mod.get_function("k")
    out_t = c["out"]
    nb = max(out_t.width // 8, 1)
    out = cp.full(c.get("out_n", N) * nb, 0xAB, dtype=cp.uint8)
    bufs = []
    for t, vals in c["ins"]:
        bufs.append(cp.asarray(np.frombuffer(to_bytes(vals, t.width), dtype=np.uint8)))
    while len(bufs) < 3:
        bufs.append(cp.zeros(1, dtype=cp.uint8))
    fn(tuple(c.get("grid", GRID)), tuple(c.get("block", BLOCK)), (out, bufs[0], bufs[1], bufs[2]))
    cp.cuda.runtime.deviceSynchronize()
    return from_bytes(out.get().tobytes(), out_t.width)


def record(c, out_vals):
    return {
        "name": c["name"], "family": c["family"], "n": N,
        "grid": c.get("grid", GRID), "block": c.get("block", BLOCK),
        "entry": "k", "ptx": c["ptx"], "params": ["out", "in0", "in1", "in2"],
        "args": [{"type": t.name, "hex": hexs(v, t.width)} for t, v in c["ins"]],
        "out": {"type": c["out"].name, "hex": hexs(out_vals, c["out"].width)},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="corpus/vectors/hw.jsonl.xz",
                    help="the vectors file; a name ending in .xz is written xz-compressed")
    ap.add_argument("--family", action="append", default=[],
                    help="generator group to run (%s)" % ", ".join(FAMILIES))
    ap.add_argument("--list", action="store_true", help="print the cases; no GPU needed")
    ap.add_argument("--dry", metavar="PATH",
                    help="write the cases with all-zero outputs (no GPU): checks that the "
                         "interpreter reads and runs every kernel")
    ap.add_argument("--match", metavar="TEXT",
                    help="keep only the cases whose name contains TEXT (a form that may trap "
                         "and lose the CUDA context is run in a process of its own)")
    a = ap.parse_args()
    for name, f in FAMILIES.items():
        if not a.family or name in a.family:
            f()
    if a.match:
        CASES[:] = [c for c in CASES if a.match in c["name"]]
    names = set()
    for c in CASES:
        if c["name"] in names:
            raise SystemExit("duplicate case name " + c["name"])
        names.add(c["name"])
    if a.list:
        for c in CASES:
            print(c["family"], c["name"])
        print("%d cases" % len(CASES), file=sys.stderr)
        return
    if a.dry:
        with open(a.dry, "w") as f:
            for c in CASES:
                f.write(json.dumps(record(c, [0] * c.get("out_n", N))) + "\n")
        print("%d cases written to %s" % (len(CASES), a.dry), file=sys.stderr)
        return
    import cupy as cp  # only on the GPU machine
    import numpy as np
    import tempfile
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    ok = bad = 0
    tmpdir = tempfile.mkdtemp()
    plain = a.out[:-3] if a.out.endswith(".xz") else a.out
    with open(plain, "w") as f:
        for index, c in enumerate(CASES):
            try:
                vals = run_case(cp, np, c, tmpdir, index)
            except Exception as e:  # a form the driver rejects: report and go on
                msg = (str(e).splitlines() or [repr(e)])[0][:300]
                bad += 1
                print("skip %s: %s" % (c["name"], msg), file=sys.stderr)
                if any(w in msg.upper() for w in ("ILLEGAL", "LAUNCH_FAILED", "MISALIGNED",
                                                   "HARDWARE_STACK", "ASSERT")):
                    # The context is lost: stop with what we have.
                    print("stopping: the CUDA context is unusable after %s" % c["name"],
                          file=sys.stderr)
                    break
                continue
            f.write(json.dumps(record(c, vals)) + "\n")
            ok += 1
    if plain != a.out:
        compress_out(a.out)
    print("%d cases written to %s, %d skipped" % (ok, a.out, bad), file=sys.stderr)


if __name__ == "__main__":
    main()
