#!/usr/bin/env python3
"""ISA-derived reference vectors for the Blackwell MMAs (issue 28): the sm_120 `mma.sync` kinds
(`.kind::f8f6f4`, block-scaled `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, sparse) and
`tcgen05.mma` (`.kind::f16`, `.kind::f8f6f4` with FP4 in padded shared memory,
`.kind::mxf4nvf4` with `.ue4m3` factors in Tensor Memory, saturating `.kind::i8`, A from Tensor
Memory). No Blackwell GPU is available, so the expected outputs come from this script, written
from the PTX ISA's fragment formulas, canonical shared-memory layouts (9.7.16.3), scale-factor
selection (9.7.14.3) and CUTLASS's Tensor Memory layouts where the ISA has only figures, with
exact rational sums. Inputs are chosen so that every sum is exact in `f32`. Every case carries
`"reference": "isa"`, so `ptx vectors` reports the family as ISA-derived, not hardware-checked.

Usage (no GPU):

    python3 tools/hwvectors/blackwell_ref.py --out /tmp/blackwell.jsonl
    xz -9c /tmp/blackwell.jsonl > corpus/vectors/blackwell.jsonl.xz
"""

import argparse
import json
import random
import struct
from fractions import Fraction

RNG = random.Random(20261128)
CASES = []
FMT = {"e2m1": (2, 1, 1), "e2m3": (2, 3, 1), "e3m2": (3, 2, 3), "e4m3": (4, 3, 7),
       "e5m2": (5, 2, 15), "ue4m3": (4, 3, 7)}


def value(t, c):
    e, m, bias = FMT[t]
    sign = -1 if (c >> (e + m)) & 1 else 1
    f = (c >> m) & ((1 << e) - 1)
    man = Fraction(c & ((1 << m) - 1), 1 << m)
    return sign * (man * Fraction(2) ** (1 - bias) if f == 0 else (1 + man) * Fraction(2) ** (f - bias))


def code(t):
    """A random code of `t` whose value is 0 or of magnitude 1/4 to 4 (so sums stay exact)."""
    e, m, _ = FMT[t]
    while True:
        c = RNG.randrange(1 << (1 + e + m))
        v = value(t, c)
        if v == 0 or Fraction(1, 4) <= abs(v) <= 4:
            return c


def f32(x):
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def f16(x):
    return struct.unpack("<H", struct.pack("<e", float(x)))[0]


def exact_f32(s):
    assert Fraction(struct.unpack("<f", struct.pack("<f", float(s)))[0]) == s, s
    return f32(s)


def record(name, ptx, grid, block, args, out, cluster=None):
    r = {"name": name, "family": "blackwell", "reference": "isa", "ptx": ptx, "entry": "k",
         "params": ["out", "in0", "in1", "in2"], "grid": grid, "block": block,
         "args": [{"type": "u32", "hex": ["%08x" % w for w in a]} for a in args],
         "out": {"type": "u32", "hex": ["%08x" % w for w in out]}}
    if cluster:
        r["cluster"] = cluster
    CASES.append(r)


# ----------------------------------------------------------------------------- mma.sync kinds

MMA_KERNEL = """.version 8.7
.target sm_120a
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)
{
  .reg .b32 %%r<64>;
  .reg .b64 %%rd<8>;
  ld.param.u64 %%rd1, [p_out];
  ld.param.u64 %%rd2, [p_a];
  mov.u32 %%r1, %%tid.x;
  mul.wide.u32 %%rd3, %%r1, 64;
  add.s64 %%rd4, %%rd2, %%rd3;
  ld.global.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%rd4];
  ld.global.v4.u32 {%%r30, %%r31, %%r32, %%r33}, [%%rd4+16];
  ld.global.v4.u32 {%%r40, %%r41, %%r42, %%r43}, [%%rd4+32];
  ld.global.v4.u32 {%%r50, %%r51, %%r52, %%r53}, [%%rd4+48];
  %s
  mul.wide.u32 %%rd5, %%r1, 16;
  add.s64 %%rd6, %%rd1, %%rd5;
  st.global.v4.u32 [%%rd6], {%%r10, %%r11, %%r12, %%r13};
  ret;
}
"""


def mma_case(name, kind, at, bt, sparse=False, scale=None):
    """`scale`: (scale type, factors a row, byte-id a, thread-id a, byte-id b, thread-id b)."""
    packed = kind in ("mxf4", "mxf4nvf4")
    bits = 4 if packed else 8
    k = (64 if packed else 32) * (2 if sparse else 1)
    m, n = 16, 8
    chunk, unit = (8, 2) if packed else (4, 1)
    a = [[0] * k for _ in range(m)]
    meta = [[] for _ in range(m)]
    for i in range(m):
        if sparse:
            for g in range(k // chunk):
                p0, p1 = RNG.choice([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
                meta[i].append(p0 | p1 << 2)
                for p in (p0, p1):
                    for u in range(unit):
                        a[i][g * chunk + p * unit + u] = code(at)
        else:
            a[i] = [code(at) for _ in range(k)]
    b = [[code(bt) for _ in range(n)] for _ in range(k)]
    c = [[Fraction(RNG.randint(-64, 64), 4) for _ in range(n)] for _ in range(m)]
    s = scale[1] if scale else 1
    sv = (lambda x: value("ue4m3", x)) if scale and scale[0] == "ue4m3" else (lambda x: Fraction(2) ** (x - 127))
    sc = (lambda: 0x30 + RNG.randrange(0x18)) if scale and scale[0] == "ue4m3" else (lambda: 124 + RNG.randrange(6))
    sfa = [[sc() for _ in range(s)] for _ in range(m)]
    sfb = [[sc() for _ in range(s)] for _ in range(n)]
    words = [0] * (32 * 16)
    per = 32 // bits
    cont = lambda t, x: x << 2 if (t == "e2m1" and not packed) else x
    for lane in range(32):
        g, p = lane >> 2, lane & 3
        w = words[16 * lane:16 * lane + 16]
        for reg in range(4):
            row = g + 8 * (reg & 1)
            stored = [a[row][kk] for kk in range(k)
                      if not sparse or (kk % chunk) // unit in
                      ((meta[row][kk // chunk] & 3), (meta[row][kk // chunk] >> 2))]
            for j in range(per):
                col = per * p + j + 4 * per * (reg >> 1)
                v = stored[col] if sparse else a[row][col]
                w[reg] |= (cont(at, v) if not packed else v) << (bits * j)
        for reg in range(4 if sparse else 2):
            for j in range(per):
                kk = per * p + j + 4 * per * reg
                v = b[kk][g]
                w[4 + reg] |= (cont(bt, v) if not packed else v) << (bits * j)
        for i in range(4):
            w[8 + i] = f32(c[g + 8 * (i >> 1)][2 * p + (i & 1)])
        if sparse:
            row, base = g + 8 * (lane & 1), 8 * ((lane >> 1) & 1)
            for j in range(8):
                w[12] |= meta[row][base + j] << (4 * j)
        if scale:
            _, _, bida, tida, bidb, tidb = scale
            if p // 2 == tida:
                row = g + 8 * (p & 1)
                for ci in range(s):
                    w[13] |= sfa[row][ci] << (8 * (bida + ci))
            if p == tidb:
                for ci in range(s):
                    w[14] |= sfb[g][ci] << (8 * (bidb + ci))
        words[16 * lane:16 * lane + 16] = w
    head = "mma.sp::ordered_metadata" if sparse else "mma"
    bregs = "{%r30, %r31, %r32, %r33}" if sparse else "{%r30, %r31}"
    sq = ".block_scale.scale_vec::%dX" % s if scale else ""
    sops = (", %%r51, {%d, %d}, %%r52, {%d, %d}" % (scale[2], scale[3], scale[4], scale[5])
            if scale else "")
    st = "." + scale[0] if scale else ""
    inst = ("%s.sync.aligned.m16n8k%d.row.col.kind::%s%s.f32.%s.%s.f32%s {%%r10, %%r11, %%r12, %%r13}, "
            "{%%r20, %%r21, %%r22, %%r23}, %s, {%%r40, %%r41, %%r42, %%r43}%s%s;"
            % (head, k, kind, sq, at, bt, st, bregs, ", %r50, 0" if sparse else "", sops))
    out = []
    for lane in range(32):
        g, p = lane >> 2, lane & 3
        for i in range(4):
            row, col = g + 8 * (i >> 1), 2 * p + (i & 1)
            acc = c[row][col]
            for kk in range(k):
                x = value(at, a[row][kk]) * value(bt, b[kk][col])
                if scale:
                    x *= sv(sfa[row][kk // (k // s)]) * sv(sfb[col][kk // (k // s)])
                acc += x
            out.append(exact_f32(acc))
    record(name, MMA_KERNEL % inst, [1, 1, 1], [32, 1, 1], [words], out)


# ----------------------------------------------------------------------------- tcgen05.mma

SMEM, NC = 16384, 64
UMMA_KERNEL = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)
{
  .reg .b32 %%r<64>;
  .reg .b64 %%rd<32>;
  .reg .pred %%p<8>;
  .shared .align 1024 .b8 sm[%(smem)d];
  .shared .align 8 .b32 taddr;
  .shared .align 8 .b64 bar;
  ld.param.u64 %%rd3, [p_out];
  ld.param.u64 %%rd1, [p_a];
  ld.param.u64 %%rd2, [p_b];
  ld.param.u64 %%rd4, [p_c];
  mov.u32 %%r1, %%tid.x;
  shr.u32 %%r2, %%r1, 5;
  setp.eq.u32 %%p1, %%r2, 0;
  @%%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 64;
  mov.u32 %%r3, %%r1;
L1:
  setp.ge.u32 %%p2, %%r3, %(swords)d;
  @%%p2 bra L1d;
  mul.wide.u32 %%rd5, %%r3, 4;
  add.s64 %%rd6, %%rd1, %%rd5;
  ld.global.u32 %%r4, [%%rd6];
  mov.u32 %%r5, sm;
  shl.b32 %%r6, %%r3, 2;
  add.u32 %%r5, %%r5, %%r6;
  st.shared.u32 [%%r5], %%r4;
  add.u32 %%r3, %%r3, 128;
  bra L1;
L1d:
  fence.proxy.async.shared::cta;
  setp.eq.u32 %%p3, %%r1, 0;
  @%%p3 mbarrier.init.shared.b64 [bar], 1;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %%r10, [taddr];
  shl.b32 %%r11, %%r2, 21;
  add.u32 %%r12, %%r10, %%r11;
  mov.u32 %%r13, 0;
L2:
  setp.ge.u32 %%p2, %%r13, %(nc)d;
  @%%p2 bra L2d;
  mad.lo.u32 %%r14, %%r1, %(nc)d, %%r13;
  mul.wide.u32 %%rd7, %%r14, 4;
  add.s64 %%rd8, %%rd2, %%rd7;
  ld.global.u32 %%r15, [%%rd8];
  add.u32 %%r16, %%r12, %%r13;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%%r16], {%%r15};
  add.u32 %%r13, %%r13, 1;
  bra L2;
L2d:
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.global.u64 %%rd10, [%%rd4];
  ld.global.u64 %%rd11, [%%rd4+8];
  ld.global.u32 %%r23, [%%rd4+16];
  mov.u32 %%r35, sm;
  shr.u32 %%r35, %%r35, 4;
  cvt.u64.u32 %%rd12, %%r35;
  add.s64 %%rd10, %%rd10, %%rd12;
  add.s64 %%rd11, %%rd11, %%rd12;
  mov.u32 %%r22, %%r10;
  add.u32 %%r24, %%r10, 32;
  add.u32 %%r26, %%r10, 48;
  add.u32 %%r27, %%r10, 56;
  setp.ne.u32 %%p4, %%r1, 1000;
  @%%p3 %(inst)s
  @%%p3 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
L3:
  mbarrier.try_wait.parity.shared.b64 %%p7, [bar], 0;
  @!%%p7 bra L3;
  tcgen05.fence::after_thread_sync;
  mov.u32 %%r13, 0;
L4:
  setp.ge.u32 %%p2, %%r13, %(nc)d;
  @%%p2 bra L4d;
  add.u32 %%r16, %%r12, %%r13;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%%r15}, [%%r16];
  tcgen05.wait::ld.sync.aligned;
  mad.lo.u32 %%r14, %%r1, %(nc)d, %%r13;
  mul.wide.u32 %%rd7, %%r14, 4;
  add.s64 %%rd8, %%rd3, %%rd7;
  st.global.u32 [%%rd8], %%r15;
  add.u32 %%r13, %%r13, 1;
  bra L4;
L4d:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @%%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r10, 64;
  @%%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  ret;
}
"""


def kmajor(mn, kb, lbo=128, sbo=256):
    """Byte offset of byte `kb` of row `mn` in the K-major canonical layout without swizzle
    (8 x 16-byte core matrices; LBO between K-adjacent ones, SBO between 8-row groups)."""
    return (mn % 8) * 16 + (mn // 8) * sbo + (kb % 16) + (kb // 16) * lbo


def desc(start, lbo=128, sbo=256):
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46


def umma_case(name, kind, at, bt, codes, n=32, a_tmem=False, scale=None, sat=False):
    """`codes`: idesc (A type, B type, D type); `scale`: (factors a row, ue4m3)."""
    m = 128
    k = {"f16": 16, "i8": 32, "f8f6f4": 32, "mxf4nvf4": 64}[kind]
    smem = bytearray(SMEM)
    tmem = [0] * (128 * NC)

    def put(base, mn, kk, t, c):
        if t == "f16":
            o = base + kmajor(mn, 2 * kk)
            smem[o:o + 2] = c.to_bytes(2, "little")
        elif kind == "mxf4nvf4":
            smem[base + kmajor(mn, kk // 2)] |= (c & 0xF) << (4 * (kk % 2))
        elif t in ("e2m1", "e2m3", "e3m2"):
            w = 4 if t == "e2m1" else 6
            o = base + kmajor(mn, 16 * (kk // 16)) + ((kk % 16) * w) // 8
            v = int.from_bytes(smem[o:o + 2], "little") | (c << (((kk % 16) * w) % 8))
            smem[o:o + 2] = v.to_bytes(2, "little")
        else:
            smem[base + kmajor(mn, kk)] = c

    def val(t, c):
        if t == "f16":
            return Fraction(struct.unpack("<e", c.to_bytes(2, "little"))[0])
        if t in ("s8", "u8"):
            return c - 256 if t == "s8" and c > 127 else c
        return value(t, c)

    def gen(t):
        if t == "f16":
            return f16(RNG.randint(-8, 8) / 2)
        if t in ("s8", "u8"):
            return RNG.randrange(256)
        return code(t)

    a = [[gen(at) for _ in range(k)] for _ in range(m)]
    b = [[gen(bt) for _ in range(n)] for _ in range(k)]
    intk = kind == "i8"
    c = [[Fraction(RNG.randint(-1000, 1000)) if intk else Fraction(RNG.randint(-64, 64), 4)
          for _ in range(n)] for _ in range(m)]
    if intk and sat:
        for i in range(0, m, 3):
            c[i][0] = Fraction(2 ** 31 - 5)
    for i in range(m):
        for kk in range(k):
            if a_tmem:
                cb = 16 if at == "f16" else (4 if kind == "mxf4nvf4" else 8)
                v = a[i][kk] << 2 if (at == "e2m1" and cb == 8) else a[i][kk]
                tmem[i * NC + 32 + (kk * cb) // 32] |= v << ((kk * cb) % 32)
            else:
                put(0, i, kk, at, a[i][kk])
        for j in range(n):
            cv = c[i][j]
            tmem[i * NC + j] = (int(cv) & 0xFFFFFFFF) if intk else f32(cv)
    for j in range(n):
        for kk in range(k):
            put(8192, j, kk, bt, b[kk][j])
    nsf = scale[0] if scale else 1
    sv = (lambda x: value("ue4m3", x)) if scale and scale[1] else (lambda x: Fraction(2) ** (x - 127))
    sfa = [[(0x30 + RNG.randrange(0x10)) if scale and scale[1] else 125 + RNG.randrange(5)
            for _ in range(nsf)] for _ in range(m)]
    sfb = [[(0x30 + RNG.randrange(0x10)) if scale and scale[1] else 125 + RNG.randrange(5)
            for _ in range(nsf)] for _ in range(n)]
    if scale:
        # Replicated in every lane quarter: row (or column) r at lane 32 q + r % 32, column r / 32.
        for q in range(4):
            for i in range(m):
                for j in range(nsf):
                    tmem[(32 * q + i % 32) * NC + 48 + i // 32] |= sfa[i][j] << (8 * j)
            for i in range(n):
                for j in range(nsf):
                    tmem[(32 * q + i % 32) * NC + 56 + i // 32] |= sfb[i][j] << (8 * j)
    ac, bc, dc = codes
    idesc = ac << 7 | bc << 10 | (n >> 3) << 17
    if scale:
        idesc |= (m >> 7) << 27 | (0 if scale[1] else 1) << 23
    else:
        idesc |= dc << 4 | (m >> 4) << 24 | (1 << 3 if sat else 0)
    aop = "[%r24]" if a_tmem else "%rd10"
    if scale:
        inst = ("tcgen05.mma.cta_group::1.kind::%s.block_scale.block16 [%%r22], %s, %%rd11, %%r23, "
                "[%%r26], [%%r27], %%p4;" % (kind, aop))
    else:
        inst = "tcgen05.mma.cta_group::1.kind::%s [%%r22], %s, %%rd11, %%r23, %%p4;" % (kind, aop)
    prm = list(struct.unpack("<4I", struct.pack("<QQ", desc(0), desc(8192)))) + [idesc]
    out = list(tmem)
    for i in range(m):
        for j in range(n):
            acc = c[i][j]
            for kk in range(k):
                x = val(at, a[i][kk]) * val(bt, b[kk][j])
                if scale:
                    x *= sv(sfa[i][kk // (k // nsf)]) * sv(sfb[j][kk // (k // nsf)])
                acc += x
            if intk:
                v = int(acc)
                if sat:
                    v = max(min(v, 2 ** 31 - 1), -2 ** 31)
                out[i * NC + j] = v & 0xFFFFFFFF
            else:
                out[i * NC + j] = exact_f32(acc)
    ptx = UMMA_KERNEL % {"smem": SMEM, "swords": SMEM // 4, "nc": NC, "inst": inst}
    swords = list(struct.unpack("<%dI" % (SMEM // 4), bytes(smem)))
    record(name, ptx, [1, 1, 1], [128, 1, 1], [swords, tmem, prm], out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="blackwell.jsonl")
    a = ap.parse_args()
    mma_case("mma.kind.f8f6f4.e4m3.e2m1", "f8f6f4", "e4m3", "e2m1")
    mma_case("mma.kind.f8f6f4.e3m2.e2m3", "f8f6f4", "e3m2", "e2m3")
    mma_case("mma.kind.mxf8f6f4.e5m2.e2m1", "mxf8f6f4", "e5m2", "e2m1",
             scale=("ue8m0", 1, 2, 1, 3, 2))
    mma_case("mma.kind.mxf4.2x", "mxf4", "e2m1", "e2m1", scale=("ue8m0", 2, 2, 0, 0, 1))
    mma_case("mma.kind.mxf4nvf4.4x.ue4m3", "mxf4nvf4", "e2m1", "e2m1",
             scale=("ue4m3", 4, 0, 1, 0, 3))
    mma_case("mma.sp.kind.f8f6f4.e2m1.e4m3", "f8f6f4", "e2m1", "e4m3", sparse=True)
    mma_case("mma.sp.kind.mxf4nvf4.4x", "mxf4nvf4", "e2m1", "e2m1", sparse=True,
             scale=("ue4m3", 4, 0, 0, 0, 2))
    umma_case("tcgen05.mma.f16", "f16", "f16", "f16", (0, 0, 1))
    umma_case("tcgen05.mma.f16.a_tmem", "f16", "f16", "f16", (0, 0, 1), n=16, a_tmem=True)
    umma_case("tcgen05.mma.f8f6f4.e4m3.e2m1", "f8f6f4", "e4m3", "e2m1", (0, 5, 1))
    umma_case("tcgen05.mma.i8.satfinite", "i8", "s8", "u8", (1, 0, 2), n=16, sat=True)
    umma_case("tcgen05.mma.mxf4nvf4.block16", "mxf4nvf4", "e2m1", "e2m1", (1, 1, 1),
              scale=(4, True))
    with open(a.out, "w") as f:
        for c in CASES:
            f.write(json.dumps(c) + "\n")
    print("%d cases written to %s" % (len(CASES), a.out))


if __name__ == "__main__":
    main()
