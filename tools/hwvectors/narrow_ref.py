#!/usr/bin/env python3
"""ISA-derived reference vectors for the sm_100a `cvt` forms (issue 28): FP4/FP6 pairs, ue8m0,
and stochastic rounding. No Blackwell GPU is available, so the expected outputs come from
references independent of the interpreter's code: `ml_dtypes` (float4_e2m1fn, float6_e2m3fn,
float6_e3m2fn: round to nearest even, saturating) for the finite round-to-nearest conversions
and their decoding, and exact rational arithmetic written from the ISA's wording for the rest
(NaN to +MAX_NORM, ue8m0's `.rz`/`.rp`, `.rs`'s "carry out of the integer addition of the
supplied random bits to the truncated off bits"). Every case carries `"reference": "isa"`, so
`ptx vectors` reports the family as ISA-derived, not hardware-checked.

Usage (needs numpy and ml_dtypes, no GPU):

    python3 tools/hwvectors/narrow_ref.py --out corpus/vectors/narrow.jsonl
"""

import argparse
import json
import math
import random
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np

RNG = random.Random(20261128)
HEADER = ".version 8.7\n.target sm_100a\n.address_size 64\n"
CASES = []


def f32b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def kernel(decls, body):
    return (HEADER + ".visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, "
            ".param .u64 p_c)\n{\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .b32 %gid;\n"
            + decls +
            "  ld.param.u64 %rd1, [p_out];\n  ld.param.u64 %rd2, [p_a];\n"
            "  ld.param.u64 %rd3, [p_b];\n  ld.param.u64 %rd4, [p_c];\n"
            "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
            "  mad.lo.u32 %gid, %r2, %r3, %r1;\n"
            "  mul.wide.u32 %rd5, %gid, 4;\n  add.s64 %rd6, %rd2, %rd5;\n  add.s64 %rd7, %rd3, %rd5;\n"
            "  add.s64 %rd8, %rd4, %rd5;\n  ld.global.b32 %r4, [%rd6];\n  ld.global.b32 %r5, [%rd7];\n"
            "  ld.global.b32 %r6, [%rd8];\n"
            + body + "  ret;\n}\n")


def case(name, ptx, ins, out, out_type="u32"):
    n = len(out)
    block = min(n, 128)
    ins = list(ins) + [[0] * n] * (3 - len(ins))  # the kernel reads a word of each input
    # Threads past the last element of the grid's last CTA do nothing.
    ptx = ptx.replace("  mad.lo.u32 %gid, %r2, %r3, %r1;\n",
                      "  mad.lo.u32 %%gid, %%r2, %%r3, %%r1;\n  .reg .pred %%past;\n"
                      "  setp.ge.u32 %%past, %%gid, %d;\n  @%%past bra L_done;\n" % n)
    ptx = ptx.replace("  ret;\n}\n", "L_done:\n  ret;\n}\n")
    CASES.append({"name": name, "family": "narrow", "reference": "isa", "ptx": ptx,
                  "entry": "k", "params": ["out", "in0", "in1", "in2"],
                  "grid": [(n + block - 1) // block, 1, 1], "block": [block, 1, 1],
                  "args": [{"type": "u32", "hex": ["%08x" % (v & 0xFFFFFFFF) for v in a]}
                           for a in ins],
                  "out": {"type": out_type, "hex": ["%08x" % v for v in out]}})


def inputs(n, scale):
    special = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-30, 1e30, -1e30,
               0.25, 0.75, 1.25, 2.5, 5.0, 7.0, 0.125, 0.0625, 3.5, 6.0, 6.5, 28.0, 30.0,
               7.5, 7.75, 0.03125, -0.25, -6.0, -7.0, 2.0 ** -126, 2.0 ** -149]
    out = [f32b(v) for v in special]
    while len(out) < n:
        out.append(f32b(RNG.uniform(-scale, scale) * 2.0 ** RNG.randint(-8, 0)))
    return out[:n]


# ----------------------------------------------------------------------------- FP4 / FP6

FMT = {"e2m1x2": (ml_dtypes.float4_e2m1fn, 4, 0x7), "e2m3x2": (ml_dtypes.float6_e2m3fn, 8, 0x1F),
       "e3m2x2": (ml_dtypes.float6_e3m2fn, 8, 0x1F)}
BITS = {"e2m1x2": 4, "e2m3x2": 6, "e3m2x2": 6}


def enc(t, x, relu):
    """f32 bits -> code: ml_dtypes for numbers, the ISA's rule for NaN (+MAX_NORM)."""
    dt, _, maxc = FMT[t]
    v = bf(x)
    if math.isnan(v):
        return maxc
    if relu and (x >> 31):
        return 0
    return int(np.array([v], dtype=np.float32).astype(dt).view(np.uint8)[0])


def fp_pairs():
    for t in FMT:
        _, w, _ = FMT[t]
        for relu in (False, True):
            a, b = inputs(256, 40.0), inputs(256, 40.0)
            RNG.shuffle(b)
            dreg = ".b8" if t == "e2m1x2" else ".b16"
            mods = ".relu" if relu else ""
            body = ("  cvt.rn.satfinite%s.%s.f32 %%d, %%f1, %%f2;\n" % (mods, t) +
                    "  cvt.u32.%s %%r7, %%d;\n" % ("u8" if t == "e2m1x2" else "u16") +
                    "  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
            decls = ("  .reg %s %%d;\n  .reg .f32 %%f<4>;\n" % dreg)
            body = "  mov.b32 %f1, %r4;\n  mov.b32 %f2, %r5;\n" + body
            out = [(enc(t, x, relu) << w) | enc(t, y, relu) for x, y in zip(a, b)]
            case("cvt.%s.f32%s" % (t, mods), kernel(decls, body), [a, b], out)
        # Decoding every code pair (both halves) to f16x2.
        codes = list(range(1 << (2 * w))) if t == "e2m1x2" else \
            [(i << 8) | j for i in range(64) for j in range(64)][::17] + [0x3F3F, 0x2020]
        for relu in (False, True):
            mods = ".relu" if relu else ""
            dt = FMT[t][0]

            def dec(c):
                v = float(np.array([c], dtype=np.uint8).view(dt).astype(np.float32)[0])
                if relu and (v < 0 or (v == 0 and math.copysign(1, v) < 0)):
                    v = 0.0
                return int(np.array([v], dtype=np.float16).view(np.uint16)[0])
            mask = (1 << BITS[t]) - 1
            out = [(dec((c >> w) & mask) << 16) | dec(c & mask) for c in codes]
            sreg = ".b8" if t == "e2m1x2" else ".b16"
            decls = "  .reg %s %%s;\n" % sreg
            body = ("  cvt.%s %%s, %%r4;\n" % ("u8.u32" if t == "e2m1x2" else "u16.u32") +
                    "  cvt.rn%s.f16x2.%s %%r7, %%s;\n" % (mods, t) +
                    "  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
            case("cvt.f16x2.%s%s" % (t, mods), kernel(decls, body), [codes], out)


# ----------------------------------------------------------------------------- ue8m0

def ue8m0(x, up, sat):
    """The rule of NVIDIA's cuda_fp8.hpp fallback, from the f32 value."""
    mag = x & 0x7FFFFFFF
    if mag > 0x7F800000:
        return 0xFF
    if mag == 0x7F800000:
        return 0xFE if sat else 0xFF
    v = Fraction(bf(mag))
    if v <= Fraction(1, 2 ** 127):
        c = 0
        if up and v > 0 and v != Fraction(1, 2 ** 127):
            c = 0  # at or below 2^-127: code 0 whatever the rounding
        return c
    e = math.floor(math.log2(v))
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    c = e + 127
    if up and Fraction(2) ** e != v:
        c += 1
    if c >= 0xFF:
        c = 0xFE if sat else 0xFF
    return max(c, 0)


def ue8m0_cases():
    a = inputs(256, 1e6) + [f32b(2.0 ** e * m) for e in (-127, -126, 127, 128 - 1) for m in (1.0, 1.5)]
    b = list(reversed(a))
    for rnd in ("rz", "rp"):
        for sat in (False, True):
            mods = ".satfinite" if sat else ""
            decls = "  .reg .b16 %d;\n  .reg .f32 %f<4>;\n"
            body = ("  mov.b32 %%f1, %%r4;\n  mov.b32 %%f2, %%r5;\n"
                    "  cvt.%s%s.ue8m0x2.f32 %%d, %%f1, %%f2;\n" % (rnd, mods) +
                    "  cvt.u32.u16 %r7, %d;\n  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
            out = [(ue8m0(x, rnd == "rp", sat) << 8) | ue8m0(y, rnd == "rp", sat) for x, y in zip(a, b)]
            case("cvt.%s%s.ue8m0x2.f32" % (rnd, mods), kernel(decls, body), [a, b], out)
            # From bf16x2: the two halves' upper 16 bits as f32.
            packed = [(x & 0xFFFF0000) | (y >> 16) for x, y in zip(a, b)]
            body = ("  cvt.%s%s.ue8m0x2.bf16x2 %%d, %%r4;\n" % (rnd, mods) +
                    "  cvt.u32.u16 %r7, %d;\n  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
            out = [(ue8m0(p & 0xFFFF0000, rnd == "rp", sat) << 8) |
                   ue8m0((p & 0xFFFF) << 16, rnd == "rp", sat) for p in packed]
            case("cvt.%s%s.ue8m0x2.bf16x2" % (rnd, mods), kernel(decls, body), [packed], out)
    codes = [(i << 8) | (255 - i) for i in range(256)]

    def tobf(c):
        if c == 0xFF:
            return 0x7FFF
        if c == 0:
            return 0x0040
        return c << 7
    decls = "  .reg .b16 %s;\n"
    body = ("  cvt.u16.u32 %s, %r4;\n  cvt.rn.bf16x2.ue8m0x2 %r7, %s;\n"
            "  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
    case("cvt.bf16x2.ue8m0x2", kernel(decls, body), [codes],
         [(tobf(c >> 8) << 16) | tobf(c & 0xFF) for c in codes])


# ----------------------------------------------------------------------------- .rs

MINI = {  # ebits, mbits, bias, max code, NaN code or None
    "f16": (5, 10, 15, 0x7BFF, 0x7FFF), "bf16": (8, 7, 127, 0x7F7F, 0x7FFF),
    "e4m3": (4, 3, 7, 0x7E, 0x7F), "e5m2": (5, 2, 15, 0x7B, 0x7F),
    "e2m3": (2, 3, 1, 0x1F, None), "e3m2": (3, 2, 3, 0x1F, None), "e2m1": (2, 1, 1, 0x7, None),
}


def rs_encode(fmt, x, r, rbits_n, sat, relu):
    """Stochastic rounding from the ISA's words with exact fractions: the magnitude in units of
    the result's step, the random bits added at the top of the discarded field."""
    eb, mb, bias, maxc, nan = MINI[fmt]
    sign = x >> 31
    v = bf(x)
    signbit = 1 << (eb + mb)
    if math.isnan(v):
        if nan is None:
            return maxc
        return nan if eb + mb >= 15 else (nan | (0 if relu else sign * signbit))
    if relu and sign:
        return 0
    if math.isinf(v):
        return sign * signbit | (maxc if sat or nan is None else ((1 << eb) - 1) << mb)
    a = abs(Fraction(v))
    if a == 0:
        return sign * signbit
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = max(e, 1 - bias)
    step = Fraction(2) ** (q - mb)
    units = a / step
    kept = math.floor(units)
    frac = units - kept  # discarded part, in [0, 1)
    field = math.floor(frac * 2 ** rbits_n)  # its top rbits_n bits
    up = field + r >= 2 ** rbits_n
    n = kept + (1 if up else 0)
    val = n * step
    # encode val
    if val == 0:
        code = 0
    else:
        ev = math.floor(math.log2(val))
        while Fraction(2) ** ev > val:
            ev -= 1
        while Fraction(2) ** (ev + 1) <= val:
            ev += 1
        if ev < 1 - bias:
            code = int(val / Fraction(2) ** (1 - bias - mb))
        else:
            code = ((ev + bias) << mb) | int((val / Fraction(2) ** ev - 1) * 2 ** mb)
    if code > maxc:
        code = maxc if sat or nan is None else ((1 << eb) - 1) << mb
    return sign * signbit | code


def rev16(x):
    return int("{:016b}".format(x & 0xFFFF)[::-1], 2)


def rs_cases():
    for t, bits in (("f16x2", 13), ("bf16x2", 16)):
        fmt = t[:-2]
        for mods, sat, relu in (("", False, False), (".satfinite", True, False),
                                (".relu.satfinite", True, True)):
            a, b = inputs(256, 70000.0), inputs(256, 3.0)
            RNG.shuffle(b)
            rb = [RNG.getrandbits(32) for _ in a]
            decls = "  .reg .f32 %f<4>;\n"
            body = ("  mov.b32 %%f1, %%r4;\n  mov.b32 %%f2, %%r5;\n"
                    "  cvt.rs%s.%s.f32 %%r7, %%f1, %%f2, %%r6;\n" % (mods, t) +
                    "  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n")
            m = (1 << bits) - 1
            out = [(rs_encode(fmt, x, (r >> 16) & m, bits, sat, relu) << 16) |
                   rs_encode(fmt, y, r & m, bits, sat, relu) for x, y, r in zip(a, b, rb)]
            case("cvt.rs%s.%s.f32" % (mods, t), kernel(decls, body), [a, b, rb], out)
    for t in ("e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"):
        fmt = t[:-2]
        w = 4 if fmt == "e2m1" else 8
        for relu in (False, True):
            n = 256
            vals = [inputs(n, s) for s in (500.0, 8.0, 30.0, 0.5)]
            for v in vals[1:]:
                RNG.shuffle(v)
            rb = [RNG.getrandbits(32) for _ in range(n)]
            # in0 holds a and b interleaved, in1 e and f, in2 rbits.
            in0 = [x for pair in zip(vals[0], vals[1]) for x in pair]
            in1 = [x for pair in zip(vals[2], vals[3]) for x in pair]
            decls = "  .reg .f32 %f<8>;\n"
            dreg = "%r7"
            body = ("  mul.wide.u32 %rd10, %gid, 8;\n  add.s64 %rd11, %rd2, %rd10;\n"
                    "  add.s64 %rd12, %rd3, %rd10;\n  ld.global.v2.f32 {%f1, %f2}, [%rd11];\n"
                    "  ld.global.v2.f32 {%f3, %f4}, [%rd12];\n" +
                    "  cvt.rs%s.satfinite.%s.f32 %s, {%%f1, %%f2, %%f3, %%f4}, %%r6;\n"
                    % (".relu" if relu else "", t, "%h1" if w == 4 else dreg))
            if w == 4:
                decls += "  .reg .b16 %h1;\n"
                body += "  cvt.u32.u16 %r7, %h1;\n"
            body += "  add.s64 %rd9, %rd1, %rd5;\n  st.global.b32 [%rd9], %r7;\n"
            out = []
            for i in range(n):
                r = rb[i]
                ops = [vals[k][i] for k in range(4)]
                code = 0
                for k, x in enumerate(ops):
                    if w == 4:
                        half = ((r >> 24 & 0xFF) << 8 | (r >> 8 & 0xFF)) if k < 2 else \
                            ((r >> 16 & 0xFF) << 8 | (r & 0xFF))
                    else:
                        half = (r >> 16) if k < 2 else (r & 0xFFFF)
                    rr = rev16(half) if k % 2 == 0 else half
                    c = rs_encode(fmt, x, rr, 16, True, relu)
                    code |= c << (w * (3 - k))
                out.append(code)
            case("cvt.rs%s.satfinite.%s.f32" % (".relu" if relu else "", t), kernel(decls, body),
                 [in0, in1, rb], out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="corpus/vectors/narrow.jsonl")
    a = ap.parse_args()
    fp_pairs()
    ue8m0_cases()
    rs_cases()
    with open(a.out, "w") as f:
        for c in CASES:
            f.write(json.dumps(c) + "\n")
    print("%d cases written to %s" % (len(CASES), a.out))


if __name__ == "__main__":
    main()
