"""WMMA cases for gen.py (`--family wmma`): the GPU's fragment layouts and `wmma.mma` numerics.

The ISA leaves the distribution of a WMMA fragment over the warp unspecified; the interpreter
follows what the H100 does, and these cases record it:

- `load`: a warp loads a matrix of random bits (`wmma.load`, every matrix, shape, type and
  layout; global with the default stride, generic with a padded immediate stride, shared with a
  padded register stride) and every thread stores its fragment registers, in order, to `out`.
- `store`: every thread's fragment registers come from `in0`; the warp stores them
  (`wmma.store`) into its own region of `out` (filled with 0xAB beforehand), through the same
  three state-space and stride variants.
- `mma`: A, B and C fragments come straight from `in0`, `in1`, `in2` (per-thread registers of
  moderate random values with some edge cases), so that what the multiply reads of each
  register shows, replicated elements included; D's registers go to `out`.
- `full`: load, multiply-accumulate and store from matrices in memory.

Each case runs one CTA of two warps; each warp has its own memory region.
"""

import random

# (type, shape) -> fragment registers of A and B.
AB_REGS = {
    ("f16", "m16n16k16"): (8, 8), ("f16", "m32n8k16"): (8, 8), ("f16", "m8n32k16"): (8, 8),
    ("bf16", "m16n16k16"): (4, 4), ("bf16", "m32n8k16"): (8, 2), ("bf16", "m8n32k16"): (2, 8),
    ("s8", "m16n16k16"): (2, 2), ("s8", "m32n8k16"): (4, 1), ("s8", "m8n32k16"): (1, 4),
    ("u8", "m16n16k16"): (2, 2), ("u8", "m32n8k16"): (4, 1), ("u8", "m8n32k16"): (1, 4),
    ("tf32", "m16n16k8"): (4, 4),
    ("f64", "m8n8k4"): (1, 1),
    ("s4", "m8n8k32"): (1, 1), ("u4", "m8n8k32"): (1, 1),
    ("b1", "m8n8k128"): (1, 1),
}
BITS = {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "tf32": 32, "f32": 32, "s32": 32, "f64": 64,
        "s4": 4, "u4": 4, "b1": 1}
BIG = ["m16n16k16", "m32n8k16", "m8n32k16"]


def dims(shape):
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def c_regs(ctype, shape):
    if ctype == "f16":
        return 4
    if ctype == "f64":
        return 2
    if shape in ("m8n8k32", "m8n8k128"):
        return 2
    return 8


def matrix_dims(which, shape):
    m, n, k = dims(shape)
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[which]


class Frag:
    """One matrix operand of one form: its registers and its memory image."""

    def __init__(self, which, shape, t, layout, nregs):
        self.which, self.shape, self.t, self.layout = which, shape, t, layout
        self.nregs = nregs
        self.regbits = 64 if t == "f64" else 32
        self.bits = BITS[t]
        rows, cols = matrix_dims(which, shape)
        self.lines, self.linelen = (rows, cols) if layout == "row" else (cols, rows)
        self.frag_bytes = nregs * self.regbits // 8

    def stride(self, padded):
        """Elements from one row (column) to the next: the default, or 32 bytes more. The ISA
        asks only that every line start be aligned to the fragment's size, but the H100
        faults on a 24-byte stride of a bf16 m32n8k16 B (8-byte fragments) in shared memory."""
        return self.linelen + (max(self.frag_bytes, 32) * 8 // self.bits if padded else 0)

    def region(self, padded):
        """Bytes of one warp's region, rounded up to 128."""
        b = self.stride(padded) * self.lines * self.bits // 8
        return (b + 127) // 128 * 128


HEAD = (".version 8.7\n.target sm_90a\n.address_size 64\n"
        ".visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, "
        ".param .u64 p_c)\n{\n"
        "  .reg .pred %p<4>;\n  .reg .b32 %t<16>;\n  .reg .b64 %ad<16>;\n"
        "  .reg .b32 %x<40>;\n  .reg .b64 %y<40>;\n"
        "  .shared .align 128 .b8 sm[16384];\n"
        "  mov.u32 %t1, %tid.x;\n  shr.u32 %t2, %t1, 5;\n"
        "  ld.param.u64 %ad0, [p_out];\n  ld.param.u64 %ad1, [p_a];\n"
        "  ld.param.u64 %ad2, [p_b];\n  ld.param.u64 %ad3, [p_c];\n")


def regs(f, base):
    """Register names of fragment `f`, numbered from `base`."""
    p = "%y" if f.regbits == 64 else "%x"
    return ["%s%d" % (p, base + i) for i in range(f.nregs)]


def vec(rs):
    return "{" + ", ".join(rs) + "}"


def copy_loop(label, words, to_shared, src="%ad1"):
    """All 64 threads copy `words` 32-bit words between `src` (generic) and `sm`."""
    body = ("  mov.u32 %%t3, %%t1;\n%s_top:\n  setp.ge.u32 %%p1, %%t3, %d;\n  @%%p1 bra %s_end;\n"
            "  mul.wide.u32 %%ad8, %%t3, 4;\n  add.s64 %%ad9, %s, %%ad8;\n"
            "  shl.b32 %%t4, %%t3, 2;\n  mov.u32 %%t5, sm;\n  add.u32 %%t5, %%t5, %%t4;\n"
            % (label, words, label, src))
    if to_shared is None:  # zero the shared words
        body += "  st.shared.b32 [%t5], 0;\n"
    elif to_shared:
        body += "  ld.b32 %t6, [%ad9];\n  st.shared.b32 [%t5], %t6;\n"
    else:
        body += "  ld.shared.b32 %t6, [%t5];\n  st.b32 [%ad9], %t6;\n"
    body += "  add.u32 %%t3, %%t3, 64;\n  bra %s_top;\n%s_end:\n  bar.sync 0;\n" % (label, label)
    return body


def address(space, region, param, dst):
    """Sets `dst` to this warp's region of the buffer `param` (or of `sm`) in `space`;
    returns the operand text."""
    if space == "shared":
        return ("  mov.u32 %%t7, sm;\n  mad.lo.u32 %s, %%t2, %d, %%t7;\n" % (dst, region),
                "[%s]" % dst)
    conv = "  cvta.to.global.u64 %s, %s;\n" % (dst, param) if space == "global" else \
        "  mov.u64 %s, %s;\n" % (dst, param)
    return (conv + "  mul.wide.u32 %%ad10, %%t2, %d;\n  add.s64 %s, %s, %%ad10;\n"
            % (region, dst, dst), "[%s]" % dst)


def store_regs(rs, regbits, param="%ad0"):
    """Thread i stores its registers `rs` at element i * len(rs) of `param`."""
    b = regbits // 8
    s = "  mul.wide.u32 %%ad11, %%t1, %d;\n  add.s64 %%ad11, %s, %%ad11;\n" % (len(rs) * b, param)
    for i, r in enumerate(rs):
        s += "  st.b%d [%%ad11+%d], %s;\n" % (regbits, i * b, r)
    return s


def load_regs(rs, regbits, param):
    b = regbits // 8
    s = "  mul.wide.u32 %%ad12, %%t1, %d;\n  add.s64 %%ad12, %s, %%ad12;\n" % (len(rs) * b, param)
    for i, r in enumerate(rs):
        s += "  ld.b%d %s, [%%ad12+%d];\n" % (regbits, r, i * b)
    return s


VARIANTS = [("global", False, None), ("generic", True, "imm"), ("shared", True, "reg")]


def space_sfx(space):
    return "" if space == "generic" else "." + space


def stride_opnd(f, padded, how):
    if how is None:
        return "", ""
    s = f.stride(padded)
    if how == "imm":
        return "", ", %d" % s
    return "  mov.u32 %%t9, %d;\n" % s, ", %t9"


def build(add, rng=None):
    """Calls `add(name, ptx, inputs, out)` for every case: `inputs` is a list of
    (type, width, values), `out` is (type, width, count)."""
    rng = rng or random.Random(20261201)
    words = lambda n: [rng.getrandbits(32) for _ in range(n)]

    def loads(which, shape, t, layout, nregs):
        f = Frag(which, shape, t, layout, nregs)
        for space, padded, how in VARIANTS:
            region = f.region(padded)
            body = HEAD
            nwords = 2 * region // 4
            if space == "shared":
                body += copy_loop("cp", nwords, True)
            setup, opnd = address(space, region, "%ad1", "%t8" if space == "shared" else "%ad4")
            pre, st = stride_opnd(f, padded, how)
            rs = regs(f, 0)
            body += setup + pre
            body += "  wmma.load.%s.sync.aligned.%s.%s%s.%s %s, %s%s;\n" % (
                which, layout, shape, space_sfx(space), t, vec(rs), opnd, st)
            body += store_regs(rs, f.regbits) + "  ret;\n}\n"
            name = "wmma.load.%s.%s.%s.%s.%s%s" % (which, layout, shape, space, t,
                                                     ".stride" if padded else "")
            w = f.regbits
            add(name, body, [("b32", 32, words(nwords))], ("b%d" % w, w, 64 * nregs))

    def stores(shape, t, layout, nregs):
        f = Frag("d", shape, t, layout, nregs)
        for space, padded, how in VARIANTS:
            region = f.region(padded)
            nwords = 2 * region // 4
            rs = regs(f, 0)
            body = HEAD
            if space == "shared":
                body += copy_loop("z", nwords, None)
            body += load_regs(rs, f.regbits, "%ad1")
            setup, opnd = address(space, region, "%ad0", "%t8" if space == "shared" else "%ad4")
            pre, st = stride_opnd(f, padded, how)
            body += setup + pre
            body += "  wmma.store.d.sync.aligned.%s.%s%s.%s %s, %s%s;\n" % (
                layout, shape, space_sfx(space), t, opnd, vec(rs), st)
            if space == "shared":
                body += "  bar.sync 0;\n" + copy_loop("out", nwords, False, "%ad0")
            body += "  ret;\n}\n"
            name = "wmma.store.d.%s.%s.%s.%s%s" % (layout, shape, space, t,
                                                    ".stride" if padded else "")
            w = f.regbits
            add(name, body, [("b%d" % w, w, [rng.getrandbits(w) for _ in range(64 * nregs)])],
                ("b32", 32, nwords))

    # ------------------------------------------------------------------ loads and stores
    for (t, shape), (na, nb) in AB_REGS.items():
        for which, nregs in (("a", na), ("b", nb)):
            for layout in ["row", "col"]:
                if t in ("s4", "u4", "b1") and layout != ("row" if which == "a" else "col"):
                    continue
                loads(which, shape, t, layout, nregs)
    c_forms = [(s, c) for s in BIG for c in ["f16", "f32", "s32"]]
    c_forms += [("m16n16k8", "f32"), ("m8n8k4", "f64"), ("m8n8k32", "s32"), ("m8n8k128", "s32")]
    for shape, ct in c_forms:
        for layout in ["row", "col"]:
            loads("c", shape, ct, layout, c_regs(ct, shape))
            stores(shape, ct, layout, c_regs(ct, shape))

    # ------------------------------------------------------------------ multiply-accumulate
    def value(t):
        """A register of moderate random values of type `t` with some edge cases."""
        if t in ("f16", "bf16"):
            v = 0
            for h in range(2):
                r = rng.random()
                if t == "f16":
                    if r < 0.03:
                        e = rng.choice([0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x83FF, 0x7BFF])
                    else:
                        e = (rng.getrandbits(1) << 15) | (rng.randint(9, 21) << 10) | \
                            rng.getrandbits(10)
                else:
                    if r < 0.03:
                        e = rng.choice([0x0000, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x807F, 0x7F7F])
                    else:
                        e = (rng.getrandbits(1) << 15) | (rng.randint(117, 137) << 7) | \
                            rng.getrandbits(7)
                v |= e << (16 * h)
            return v
        if t in ("f32", "tf32"):
            if rng.random() < 0.03:
                return rng.choice([0, 0x80000000, 0x7F800000, 0x00000001, 0x807FFFFF])
            return (rng.getrandbits(1) << 31) | (rng.randint(115, 139) << 23) | \
                rng.getrandbits(23)
        if t == "f64":
            if rng.random() < 0.03:
                return rng.choice([0, 1 << 63, 0x7FF0000000000000, 1, 0x000FFFFFFFFFFFFF])
            return (rng.getrandbits(1) << 63) | (rng.randint(1013, 1033) << 52) | \
                rng.getrandbits(52)
        if t == "s32":
            return rng.choice([rng.getrandbits(32), rng.randint(0, 1000),
                               (1 << 32) - rng.randint(1, 1000), 0x7FFFFF00, 0x80000100])
        return rng.getrandbits(32)

    def mma_name(shape, la, lb, types, extra):
        return "wmma.mma%s.%s.%s.%s.%s" % (extra, la, lb, shape, types)

    def mma_forms():
        """(shape, a, b, c, d, alayouts, blayouts, instruction suffix after the layouts and
        shape, prefix modifiers)."""
        out = []
        for shape in BIG:
            for dt in ["f16", "f32"]:
                for ct in ["f16", "f32"]:
                    out.append((shape, "f16", "f16", ct, dt, "%s.%s" % (dt, ct), ""))
            out.append((shape, "bf16", "bf16", "f32", "f32", "f32.bf16.bf16.f32", ""))
            # ptxas takes only A and B of one type (the ISA's syntax lists them apart).
            for at in ["s8", "u8"]:
                for sat in ["", ".satfinite"]:
                    out.append((shape, at, at, "s32", "s32",
                                "s32.%s.%s.s32%s" % (at, at, sat), ""))
        out.append(("m16n16k8", "tf32", "tf32", "f32", "f32", "f32.tf32.tf32.f32", ""))
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"]:
            out.append(("m8n8k4", "f64", "f64", "f64", "f64", "%s.f64.f64.f64.f64" % rnd[1:]
                        if rnd else "f64.f64.f64.f64", rnd))
        for at in ["s4", "u4"]:
            for sat in ["", ".satfinite"]:
                out.append(("m8n8k32", at, at, "s32", "s32", "s32.%s.%s.s32%s" % (at, at, sat),
                            ""))
        for op in ["and", "xor"]:
            out.append(("m8n8k128", "b1", "b1", "s32", "s32", "s32.b1.b1.s32", "." + op + ".popc"))
        return out

    for shape, at, bt, ct, dt, types, extra in mma_forms():
        na, _ = AB_REGS[(at, shape)]
        _, nb = AB_REGS[(bt, shape)]
        nc, nd = c_regs(ct, shape), c_regs(dt, shape)
        rnd = ""
        if at == "f64":
            rnd, extra = extra, ""
            types = "f64.f64.f64.f64"
        sub = at in ("s4", "u4", "b1")
        layouts = [("row", "col")] if sub else [(a, b) for a in ["row", "col"]
                                                 for b in ["row", "col"]]
        if at == "f64" and rnd:
            layouts = [("row", "col")]
        for la, lb in layouts:
            fa = Frag("a", shape, at, la, na)
            fb = Frag("b", shape, bt, lb, nb)
            fc = Frag("c", shape, ct, "row", nc)
            fd = Frag("d", shape, dt, "row", nd)
            ra, rb, rc, rd = regs(fa, 0), regs(fb, 10), regs(fc, 20), regs(fd, 30)
            inst = "  wmma.mma%s.sync.aligned.%s.%s.%s%s.%s %s, %s, %s, %s;\n" % (
                extra, la, lb, shape, rnd, types, vec(rd), vec(ra), vec(rb), vec(rc))
            body = HEAD + load_regs(ra, fa.regbits, "%ad1") + load_regs(rb, fb.regbits, "%ad2")
            body += load_regs(rc, fc.regbits, "%ad3") + inst + store_regs(rd, fd.regbits)
            body += "  ret;\n}\n"
            vt = "f32" if at == "tf32" else at
            ins = [("b%d" % fa.regbits, fa.regbits, [value(vt) for _ in range(64 * na)]),
                   ("b%d" % fb.regbits, fb.regbits, [value(bt if bt != "tf32" else "f32")
                                                     for _ in range(64 * nb)]),
                   ("b%d" % fc.regbits, fc.regbits, [value(ct) for _ in range(64 * nc)])]
            name = mma_name(shape, la, lb, types, extra + rnd)
            add(name, body, ins, ("b%d" % fd.regbits, fd.regbits, 64 * nd))
            # Whole tiles through memory: load, multiply-accumulate, store (C and D in the
            # same layout; default strides; global).
            if la == "row" and (lb == "col" or shape == "m16n16k16"):
                for lc in (["row", "col"] if la == "row" and lb == "col" else ["row"]):
                    fc2 = Frag("c", shape, ct, lc, nc)
                    fd2 = Frag("d", shape, dt, lc, nd)
                    body = HEAD
                    parts = []
                    for f, reg, param, dst in ((fa, ra, "%ad1", "%ad4"), (fb, rb, "%ad2", "%ad5"),
                                               (fc2, rc, "%ad3", "%ad6")):
                        setup, opnd = address("global", f.region(False), param, dst)
                        body += setup
                        body += "  wmma.load.%s.sync.aligned.%s.%s.global.%s %s, %s;\n" % (
                            f.which, f.layout, shape, f.t, vec(reg), opnd)
                        parts.append(f)
                    body += inst
                    setup, opnd = address("global", fd2.region(False), "%ad0", "%ad7")
                    body += setup + "  wmma.store.d.sync.aligned.%s.%s.global.%s %s, %s;\n" % (
                        lc, shape, dt, opnd, vec(rd))
                    body += "  ret;\n}\n"
                    mats = []
                    for f in parts:
                        n = 2 * f.region(False) // (f.regbits // 8)
                        elems = [value(vt if f.which == "a" else (bt if f.which == "b" else ct))
                                 for _ in range(n)]
                        mats.append(("b%d" % f.regbits, f.regbits, elems))
                    nout = 2 * fd2.region(False) // 4
                    add("wmma.full.%s.%s.%s.%s.%s" % (la, lb, lc, shape, types + extra + rnd),
                        body, mats, ("b32", 32, nout))


def build_quadpair(add, rng=None):
    """The quad-pair `mma.sync.aligned.m8n8k4` (f16 inputs, f16/f32 accumulators, every
    layout): A, B and C registers straight from `in0`, `in1`, `in2`, D's to `out`, as the
    `mma` cases above."""
    rng = rng or random.Random(20261202)

    def half():
        if rng.random() < 0.03:
            return rng.choice([0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x83FF, 0x7BFF])
        return (rng.getrandbits(1) << 15) | (rng.randint(9, 21) << 10) | rng.getrandbits(10)

    def f32():
        if rng.random() < 0.03:
            return rng.choice([0, 0x80000000, 0x7F800000, 0x00000001, 0x807FFFFF])
        return (rng.getrandbits(1) << 31) | (rng.randint(115, 139) << 23) | rng.getrandbits(23)

    for la in ["row", "col"]:
        for lb in ["row", "col"]:
            for dt in ["f16", "f32"]:
                for ct in ["f16", "f32"]:
                    if (dt, ct) == ("f16", "f32"):
                        continue  # ptxas rejects an f16 D with an f32 C for this shape
                    nc, nd = (4 if ct == "f16" else 8), (4 if dt == "f16" else 8)
                    ra = ["%%x%d" % i for i in range(2)]
                    rb = ["%%x%d" % (10 + i) for i in range(2)]
                    rc = ["%%x%d" % (20 + i) for i in range(nc)]
                    rd = ["%%x%d" % (30 + i) for i in range(nd)]
                    body = HEAD + load_regs(ra, 32, "%ad1") + load_regs(rb, 32, "%ad2")
                    body += load_regs(rc, 32, "%ad3")
                    body += "  mma.sync.aligned.m8n8k4.%s.%s.%s.f16.f16.%s %s, %s, %s, %s;\n" % (
                        la, lb, dt, ct, vec(rd), vec(ra), vec(rb), vec(rc))
                    body += store_regs(rd, 32) + "  ret;\n}\n"
                    pair = lambda: half() | (half() << 16)
                    ins = [("b32", 32, [pair() for _ in range(128)]),
                           ("b32", 32, [pair() for _ in range(128)]),
                           ("b32", 32, [pair() if ct == "f16" else f32()
                                        for _ in range(64 * nc)])]
                    add("mma.m8n8k4.%s.%s.%s.f16.f16.%s" % (la, lb, dt, ct), body, ins,
                        ("b32", 32, 64 * nd))


def build_mma_f64(add, rng=None):
    """`mma.sync.aligned.m8n8k4.row.col.f64` with each rounding modifier: A, B and C registers
    straight from `in0`, `in1`, `in2`, D's to `out`."""
    rng = rng or random.Random(20261203)

    def f64():
        if rng.random() < 0.03:
            return rng.choice([0, 1 << 63, 0x7FF0000000000000, 1, 0x000FFFFFFFFFFFFF])
        return (rng.getrandbits(1) << 63) | (rng.randint(1013, 1033) << 52) | rng.getrandbits(52)

    for rnd in ["", ".rn", ".rz", ".rm", ".rp"]:
        body = HEAD + load_regs(["%y0"], 64, "%ad1") + load_regs(["%y10"], 64, "%ad2")
        body += load_regs(["%y20", "%y21"], 64, "%ad3")
        body += "  mma.sync.aligned.m8n8k4.row.col%s.f64.f64.f64.f64 {%%y30, %%y31}, {%%y0}, " \
                "{%%y10}, {%%y20, %%y21};\n" % rnd
        body += store_regs(["%y30", "%y31"], 64) + "  ret;\n}\n"
        ins = [("b64", 64, [f64() for _ in range(64)]), ("b64", 64, [f64() for _ in range(64)]),
               ("b64", 64, [f64() for _ in range(128)])]
        add("mma.m8n8k4.row.col%s.f64" % rnd, body, ins, ("b64", 64, 128))


def sparse_kernel(k, types, na, nb, nc, sel):
    """`mma.sp::ordered_metadata` `m16n8k{k}` on registers from memory: A's `na` registers and
    the metadata word per thread from `in0`, B's from `in1`, C's from `in2`; D's to `out`."""
    ra = ["%%x%d" % i for i in range(na)]
    rb = ["%%x%d" % (10 + i) for i in range(nb)]
    rc = ["%%x%d" % (20 + i) for i in range(nc)]
    rd = ["%%x%d" % (30 + i) for i in range(nc)]
    body = HEAD + load_regs(ra + ["%x9"], 32, "%ad1") + load_regs(rb, 32, "%ad2")
    body += load_regs(rc, 32, "%ad3")
    body += ("  mma.sp::ordered_metadata.sync.aligned.m16n8k%d.row.col.%s "
             "%s, %s, %s, %s, %%x9, %d;\n" % (k, types, vec(rd), vec(ra), vec(rb), vec(rc), sel))
    return body + store_regs(rd, 32) + "  ret;\n}\n"


def build_mma_sp(add, rng=None):
    """Sparse `mma.sp::ordered_metadata` with `.f16`/`.bf16` inputs (`m16n8k16`, `m16n8k32`, f32
    and f16 accumulators), every sparsity selector ptxas accepts. Two kinds of case:

    - `probe`: A holds distinct small integers, B is a 0/1 matrix that copies the columns
      `8h..8h+8` of the decompressed A into D (C is zero), so that D shows where each stored
      element of A lands for the metadata given: random valid nibbles (ordered index pairs);
    - random values in A, B and C and random valid metadata, for the sums.
    Operands straight from memory: A, B and C registers from `in0`, `in1`, `in2`, the
    metadata word of each thread at the end of `in0`; D's registers to `out`."""
    rng = rng or random.Random(20261204)
    nibbles = [0x4, 0x8, 0xC, 0x9, 0xD, 0xE]
    one = {"f16": 0x3C00, "bf16": 0x3F80}

    def b_pos(k, lane, i):
        g, t = lane >> 2, lane & 3
        return (2 * t + (i & 1) + 8 * (i >> 1), g)

    def small(t, v):
        """The integer v (< 256) in format t."""
        if v == 0:
            return 0
        e = v.bit_length() - 1
        frac = v - (1 << e)
        if t == "f16":
            return ((e + 15) << 10) | (frac << (10 - e))
        return ((e + 127) << 7) | (frac << (7 - e))

    def moderate(t):
        if t == "f16":
            return (rng.getrandbits(1) << 15) | (rng.randint(9, 21) << 10) | rng.getrandbits(10)
        return (rng.getrandbits(1) << 15) | (rng.randint(117, 137) << 7) | rng.getrandbits(7)

    for t in ["f16", "bf16"]:
        for k in [16, 32]:
            na, nb = k // 8, k // 8
            for dt in ["f32", "f16"]:
                nc = 4 if dt == "f32" else 2
                # k32 takes selectors 0 and 1 only (2 traps: illegal instruction)
                for sel in range(4 if k == 16 else 2):
                    types = "%s.%s.%s.%s" % (dt, t, t, dt)
                    body = sparse_kernel(k, types, na, nb, nc, sel)
                    meta = lambda: sum(rng.choice(nibbles) << (4 * j) for j in range(8))
                    # probes: A elements numbered 1.. per lane and element
                    for h in range(k // 8):
                        a = []
                        for lane in range(64):
                            regs_ = []
                            for r in range(na):
                                lo = (lane % 32) * 2 * na + 2 * r + 1
                                regs_.append(small(t, lo % 256) | (small(t, (lo + 1) % 256) << 16))
                            a.extend(regs_ + [meta()])
                        b = []
                        for lane in range(64):
                            for r in range(nb):
                                w = 0
                                for half in range(2):
                                    kk, col = b_pos(k, lane % 32, 2 * r + half)
                                    if kk == col + 8 * h:
                                        w |= one[t] << (16 * half)
                                b.append(w)
                        ins = [("b32", 32, a), ("b32", 32, b), ("b32", 32, [0] * (64 * nc))]
                        add("mma.sp.m16n8k%d.%s.sel%d.probe%d" % (k, types, sel, h), body, ins,
                            ("b32", 32, 64 * nc))
                    for v in range(2):
                        a = []
                        for lane in range(64):
                            a.extend([moderate(t) | (moderate(t) << 16) for _ in range(na)]
                                     + [meta()])
                        b = [moderate(t) | (moderate(t) << 16) for _ in range(64 * nb)]
                        if dt == "f32":
                            c = [(rng.getrandbits(1) << 31) | (rng.randint(115, 139) << 23)
                                 | rng.getrandbits(23) for _ in range(64 * nc)]
                        else:
                            c = [moderate("f16") | (moderate("f16") << 16)
                                 for _ in range(64 * nc)]
                        ins = [("b32", 32, a), ("b32", 32, b), ("b32", 32, c)]
                        add("mma.sp.m16n8k%d.%s.sel%d.rand%d" % (k, types, sel, v), body, ins,
                            ("b32", 32, 64 * nc))


SPARSE_MORE = [
    # (type, shapes' K, D/C type, element bits, the value one)
    ("tf32", [8, 16], "f32", 32, 0x3F800000),
    ("u8", [32, 64], "s32", 8, 1),
    ("s8", [32, 64], "s32", 8, 1),
    ("e4m3", [64], "f32", 8, 0x38),
    ("u4", [64, 128], "s32", 4, 1),
]


def sparse_b_pos(t, k, lane, i):
    """(row, column) of element i of B for the dense fragment this K extends (PTX ISA 9.7.14.5)."""
    g, q = lane >> 2, lane & 3
    if t == "tf32":
        return (q + 4 * i, g)
    if t in ("u8", "s8", "e4m3"):
        return (4 * q + (i & 3) + 16 * (i >> 2), g)
    return (8 * q + (i & 7) + 32 * (i >> 3), g)


def build_mma_sp_more(add, rng=None):
    """Sparse `mma.sp::ordered_metadata` with `.tf32`, 8-bit, FP8 and 4-bit inputs, every
    selector: `pos` probes (A all ones, B a 0/1 matrix copying eight columns of the decompressed
    A into D) show where the stored elements land for random metadata; `rand` cases multiply
    random values. Run a selector per process (`--match`): an invalid one traps."""
    rng = rng or random.Random(20261205)
    for t, ks, ct, bits, one in SPARSE_MORE:
        nibbles = [0x4, 0xE] if t == "tf32" else [0x4, 0x8, 0xC, 0x9, 0xD, 0xE]
        per = 32 // bits
        for k in ks:
            na, nb, nc = 16 * (k // 2) * bits // 1024, k * 8 * bits // 1024, 4
            types = "%s.%s.%s.%s" % (ct, t, t, ct)
            for sel in range(4):
                body = sparse_kernel(k, types, na, nb, nc, sel)
                meta = lambda: sum(rng.choice(nibbles) << (4 * j) for j in range(8))
                ones = 0
                for e in range(per):
                    ones |= one << (bits * e)
                for h in range(k // 8):
                    a = []
                    for lane in range(64):
                        a.extend([ones] * na + [meta()])
                    b = []
                    for lane in range(64):
                        for r in range(nb):
                            w = 0
                            for e in range(per):
                                kk, col = sparse_b_pos(t, k, lane % 32, r * per + e)
                                if kk == col + 8 * h:
                                    w |= one << (bits * e)
                            b.append(w)
                    ins = [("b32", 32, a), ("b32", 32, b), ("b32", 32, [0] * (64 * nc))]
                    add("mma.sp.m16n8k%d.%s.sel%d.pos%d" % (k, types, sel, h), body, ins,
                        ("b32", 32, 64 * nc))

                def val():
                    if t == "tf32":
                        return (rng.getrandbits(1) << 31) | (rng.randint(115, 139) << 23) | \
                            rng.getrandbits(23)
                    if t == "e4m3":
                        w = 0
                        for e in range(4):
                            b8 = rng.getrandbits(8)
                            while b8 & 0x7F == 0x7F:
                                b8 = rng.getrandbits(8)
                            w |= b8 << (8 * e)
                        return w
                    return rng.getrandbits(32)
                for v in range(2):
                    a = []
                    for lane in range(64):
                        a.extend([val() for _ in range(na)] + [meta()])
                    b = [val() for _ in range(64 * nb)]
                    if ct == "f32":
                        c = [(rng.getrandbits(1) << 31) | (rng.randint(115, 139) << 23)
                             | rng.getrandbits(23) for _ in range(64 * nc)]
                    else:
                        c = [rng.getrandbits(32) for _ in range(64 * nc)]
                    ins = [("b32", 32, a), ("b32", 32, b), ("b32", 32, c)]
                    add("mma.sp.m16n8k%d.%s.sel%d.rand%d" % (k, types, sel, v), body, ins,
                        ("b32", 32, 64 * nc))
