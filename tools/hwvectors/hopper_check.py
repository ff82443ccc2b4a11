#!/usr/bin/env python3
"""Independent references for `hopper.py` cases, to check the interpreter without a GPU.

    ptx vectors CASES.jsonl --write INTERP.jsonl
    python3 tools/hwvectors/hopper_check.py INTERP.jsonl

For the families whose results follow from the ISA's definitions alone (ldmatrix, stmatrix,
movmatrix; integer mma; tensor-copy boxes; bulk copies and reductions), the expected `out` is
computed here from the case's inputs with code written from the PTX ISA text, not shared with
the interpreter; floating-point mma/wgmma results are compared with a float64 reference within
a relative tolerance (which checks the fragment layouts and descriptors; bit-exactness is the
GPU's job). Prints one line per checked case and a summary.
"""

import json
import math
import struct
import sys


def words(c, i):
    a = c["args"][i]
    return [int(h, 16) for h in a["hex"]]


def out_words(c):
    return [int(h, 16) for h in c["out"]["hex"]]


def halves(ws):
    r = []
    for w in ws:
        r += [w & 0xFFFF, w >> 16]
    return r


def bytes_of(ws):
    return b"".join(w.to_bytes(4, "little") for w in ws)


def f16v(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def bf16v(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def f32v(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def tf32v(b):
    return f32v(b & ~0x1FFF)


def fp8v(b, e4m3):
    s = -1.0 if b & 0x80 else 1.0
    if e4m3:
        e, m = (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            return math.nan
        return s * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (b >> 2) & 31, b & 3
    if e == 31:
        return math.nan if m else s * math.inf
    return s * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


# ----------------------------------------------------------------------------- ldmatrix

def check_ldmatrix(c):
    n = c["name"]
    if n == "movmatrix":
        a = words(c, 0)
        m = [[0] * 8 for _ in range(8)]
        for t in range(32):
            for h in range(2):
                m[t // 4][2 * (t % 4) + h] = (a[t] >> (16 * h)) & 0xFFFF
        exp = []
        for t in range(32):
            exp.append(m[2 * (t % 4)][t // 4] | (m[2 * (t % 4) + 1][t // 4] << 16))
        return exp
    num = int(n.split(".x")[1][0])
    trans = n.endswith(".trans")
    rows = words(c, 1)
    if n.startswith("ldmatrix"):
        sm = halves(words(c, 0))
        exp = [0] * (32 * num)
        for i in range(num):
            mat = [sm[rows[8 * i + r] * 8: rows[8 * i + r] * 8 + 8] for r in range(8)]
            for t in range(32):
                r, col = (2 * (t % 4), t // 4) if trans else (t // 4, 2 * (t % 4))
                if trans:
                    v = mat[r][col] | (mat[r + 1][col] << 16)
                else:
                    v = mat[r][col] | (mat[r][col + 1] << 16)
                exp[t * num + i] = v
        return exp
    regs = words(c, 0)
    sm = [0] * 2048
    for i in range(num):
        for t in range(32):
            v = regs[t * num + i]
            for h in range(2):
                r, col = (2 * (t % 4) + h, t // 4) if trans else (t // 4, 2 * (t % 4) + h)
                sm[rows[8 * i + r] * 8 + col] = (v >> (16 * h)) & 0xFFFF
    return [sm[2 * i] | (sm[2 * i + 1] << 16) for i in range(1024)]


# ----------------------------------------------------------------------------- mma

def mma_pos(which, m, n, k, bits, lane, i):
    g, tg = lane >> 2, lane & 3
    if which == "C":
        return (g + 8 * (i >> 1), 2 * tg + (i & 1)) if m == 16 else (g, 2 * tg + i)
    if which == "A":
        if bits == 16:
            if k == 16:
                return (g + 8 * ((i >> 1) & 1), 2 * tg + (i & 1) + 8 * (i >> 2))
            return (g + 8 * (i >> 1), 2 * tg + (i & 1))
        if bits in (32, 64):
            if k == 4:
                return (g + 8 * i, tg)
            return (g + 8 * (i & 1), tg + 4 * (i >> 1))
        if bits == 8:
            if m == 8:
                return (g, 4 * tg + i)
            if k == 16:
                return (g + 8 * (i >> 2), 4 * tg + (i & 3))
            return (g + 8 * ((i >> 2) & 1), 4 * tg + (i & 3) + 16 * (i >> 3))
        if bits == 4:
            if m == 8:
                return (g, 8 * tg + i)
            return (g + 8 * (i >> 3), 8 * tg + (i & 7))
    if bits == 16:
        return (2 * tg + (i & 1) + 8 * (i >> 1), g) if k == 16 else (2 * tg + i, g)
    if bits in (32, 64):
        return (tg, g) if k == 4 else (tg + 4 * i, g)
    if bits == 8:
        return (4 * tg + i, g) if (k == 16 or m == 8) else (4 * tg + (i & 3) + 16 * (i >> 2), g)
    return (8 * tg + i, g)


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
        "s4": 4, "u4": 4, "s32": 32, "f64": 64}


def elems(regs, bits, count):
    if bits >= 32:
        return regs[:count]
    per = 32 // bits
    out = []
    for r in regs:
        for j in range(per):
            out.append((r >> (bits * j)) & ((1 << bits) - 1))
    return out[:count]


def val(ty, b):
    if ty == "f16":
        return f16v(b)
    if ty == "bf16":
        return bf16v(b)
    if ty == "tf32":
        return tf32v(b)
    if ty == "f32":
        return f32v(b)
    if ty == "f64":
        return struct.unpack("<d", struct.pack("<Q", b))[0]
    if ty in ("e4m3", "e5m2"):
        return fp8v(b, ty == "e4m3")
    bits = BITS[ty]
    if ty.startswith("s") and b >> (bits - 1):
        return b - (1 << bits)
    return b


def check_mma(c):
    name = c["name"].split("#")[0]
    parts = name.split(".")
    shape = parts[1]
    m, n, k = [int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split()]
    dt, at, bt, ct = parts[-4:]
    sat = ".satfinite" in name
    ab, bb, cb, db = BITS[at], BITS[bt], BITS[ct], BITS[dt]
    ea, eb, ec = m * k // 32, k * n // 32, m * n // 32
    na = ea if ab >= 32 else max(1, ea * ab // 32)
    nb = eb if bb >= 32 else max(1, eb * bb // 32)
    nc = ec if cb >= 32 else max(1, ec * cb // 32)
    nd = ec if db >= 32 else max(1, ec * db // 32)
    A, B, C = words(c, 0), words(c, 1), words(c, 2)
    out = out_words(c)
    results = []
    for warp in range(len(A) // (32 * na)):
        Am = [[0] * k for _ in range(m)]
        Bm = [[0] * n for _ in range(k)]
        Cm = [[0] * n for _ in range(m)]
        for lane in range(32):
            gid = warp * 32 + lane
            for i, e in enumerate(elems(A[gid * na:(gid + 1) * na], ab, ea)):
                r, col = mma_pos("A", m, n, k, ab, lane, i)
                Am[r][col] = val(at, e)
            for i, e in enumerate(elems(B[gid * nb:(gid + 1) * nb], bb, eb)):
                r, col = mma_pos("B", m, n, k, bb, lane, i)
                Bm[r][col] = val(bt, e)
            for i, e in enumerate(elems(C[gid * nc:(gid + 1) * nc], cb, ec)):
                r, col = mma_pos("C", m, n, k, cb, lane, i)
                Cm[r][col] = val(ct, e)
        for lane in range(32):
            gid = warp * 32 + lane
            got = elems(out[gid * nd:(gid + 1) * nd], db, ec)
            for i in range(ec):
                r, col = mma_pos("C", m, n, k, db, lane, i)
                ref = Cm[r][col] + sum(Am[r][kk] * Bm[kk][col] for kk in range(k))
                results.append((ref, got[i]))
    bad = 0
    for ref, g in results:
        if dt == "s32":
            if sat:
                ref = max(-2 ** 31, min(2 ** 31 - 1, ref))
            if (ref & 0xFFFFFFFF) != g:
                bad += 1
        else:
            gv = val(dt, g)
            if isinstance(ref, float) and (math.isnan(ref) or math.isinf(ref)):
                continue
            if dt == "f16" and abs(ref) > 65504:
                continue
            tol = {"f16": 2e-3, "f32": 2e-3 if at in ("e4m3", "e5m2") else 1e-5, "f64": 1e-12}[dt]
            if not (abs(gv - ref) <= tol * max(1.0, abs(ref))) and not math.isnan(gv):
                bad += 1
    return bad, len(results)


# ----------------------------------------------------------------------------- tensor

EB = {"u8": 1, "f16": 2, "bf16": 2, "f32": 4, "u32": 4, "s32": 4, "f64": 8, "u64": 8}


def check_tensor_load(c):
    tm = c["tmaps"][0]
    ty, dims, box = tm["type"], tm["dims"], tm["box"]
    rank = len(dims)
    eb = EB[ty]
    es = tm.get("estrides") or [1] * rank
    strides = tm.get("strides") or []
    if rank > 1 and not strides:
        s = eb
        for i in range(1, rank):
            s *= dims[i - 1]
            strides.append(s)
    data = bytes_of(words(c, 0))
    coords = []
    ptx = c["ptx"]
    for i in range(rank):
        key = "mov.u32 %%r%d, " % (20 + i)
        j = ptx.index(key) + len(key)
        coords.append(int(ptx[j:ptx.index(";", j)]))
    cnt = [-(-b // e) for b, e in zip(box, es)]
    out = bytearray()
    nan = tm.get("fill") == "nan"
    nanb = {2: b"\xff\x7f", 4: b"\xff\xff\xff\x7f", 8: b"\xff" * 7 + b"\x7f"}

    def rec(d, idx):
        if d < 0:
            cs = [coords[i] + idx[i] * es[i] for i in range(rank)]
            if all(0 <= cs[i] < dims[i] for i in range(rank)):
                off = cs[0] * eb + sum(cs[i] * strides[i - 1] for i in range(1, rank))
                out.extend(data[off:off + eb])
            else:
                out.extend(nanb[eb] if nan else b"\0" * eb)
            return
        for i in range(cnt[d]):
            idx[d] = i
            rec(d - 1, idx)
    rec(rank - 1, [0] * rank)
    sw = tm.get("swizzle", 0)
    if sw:
        m = {32: 1, 64: 3, 128: 7}[sw]
        res = bytearray(len(out))
        for ch in range(len(out) // 16):
            a = ch * 16
            p = a ^ (((a >> 7) & m) << 4)
            res[p:p + 16] = out[a:a + 16]
        out = res
    exp = [int.from_bytes(out[i:i + 4], "little") for i in range(0, len(out), 4)]
    ncta = (c.get("cluster") or [1])[0]
    return exp * ncta


# ----------------------------------------------------------------------------- wgmma

def canonical(major, swz, t, lbo, sbo, mn, k):
    """Element offset of (mn, k) in the canonical layouts of PTX ISA 9.7.15.5.1.2.1.3 (strides
    in elements; LBO/SBO given in elements)."""
    if major == "K":
        i0, i1 = mn % 8, mn // 8
        j0, j1 = k % t, k // t
        if swz == 0:
            return i0 * t + i1 * sbo + j0 + j1 * lbo
        w = swz // 16  # 16-byte units per row
        return i0 * w * t + i1 * sbo + j0 + j1 * t
    n1 = 1 if swz == 0 else swz // 16
    i0, i1, i2 = mn % t, (mn // t) % n1, mn // (t * n1)
    j0, j1 = k % 8, k // 8
    if swz == 0:
        return i0 + i1 * t + i2 * sbo + j0 * t + j1 * lbo
    return i0 + i1 * t + i2 * lbo + j0 * n1 * t + j1 * sbo


def check_wgmma(c):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import hopper
    p = c["name"].split(".")
    shape = p[1]
    n = int(shape[shape.index("n") + 1:shape.index("k")])
    kel = int(shape[shape.index("k") + 1:])
    dt, at, bt = p[2], p[3], p[4]
    amaj, bmaj = p[5][1:], p[6][1:]
    swz = int(p[7][2:])
    steps = int(p[8][1:])
    scale_d = ".nod" not in c["name"]
    neg = c["name"].split(".neg")[1] if ".neg" in c["name"] else "11"
    sa = -1 if neg.startswith("-1") else 1
    sb = -1 if neg.endswith("-1") else 1
    esize = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}[at]
    t = 16 // esize
    aregs = amaj == "regs"
    Ab = bytes_of(words(c, 0))
    Bb = bytes_of(words(c, 1))
    Cw = words(c, 2)

    def elem(buf, off, ty):
        b = int.from_bytes(buf[off:off + esize], "little")
        return val(ty, b)

    if not aregs:
        acon, astep, _ = hopper.wg_layout(esize, amaj, swz, 64, kel, steps)
        alb, asb = ((acon >> 16) & 0x3FFF) << 4, ((acon >> 32) & 0x3FFF) << 4
    bcon, bstep, _ = hopper.wg_layout(esize, bmaj, swz, n, kel, steps)
    blb, bsb = ((bcon >> 16) & 0x3FFF) << 4, ((bcon >> 32) & 0x3FFF) << 4

    def addr(start, major, lb, sbb, mn, k):
        o = canonical(major, swz, t, lb // esize, sbb // esize, mn, k) * esize + start
        if swz:
            m = {32: 1, 64: 3, 128: 7}[swz]
            o ^= ((o >> 7) & m) << 4
        return o

    A = [[0.0] * (kel * steps) for _ in range(64)]
    for s in range(steps):
        for r in range(64):
            for k in range(kel):
                if aregs:
                    continue
                A[r][s * kel + k] = sa * elem(Ab, addr(s * astep, amaj, alb, asb, r, k), at)
    if aregs:
        aw = words(c, 0)
        for th in range(128):
            w, lane = th // 32, th % 32
            g, tg = lane >> 2, lane & 3
            hs = halves(aw[th * 4:th * 4 + 4])
            for i in range(8):
                r = 16 * w + g + 8 * ((i >> 1) & 1)
                k = 2 * tg + (i & 1) + 8 * (i >> 2)
                for s in range(steps):
                    A[r][s * kel + k] = sa * val(at, hs[i])
    B = [[0.0] * n for _ in range(kel * steps)]
    for s in range(steps):
        for k in range(kel):
            for j in range(n):
                B[s * kel + k][j] = sb * elem(Bb, addr(s * bstep, bmaj, blb, bsb, j, k), bt)
    nd = n // 2 if dt != "f16" else n // 4
    out = out_words(c)
    bad = tot = 0
    for th in range(128):
        w, lane = th // 32, th % 32
        g, tg = lane >> 2, lane & 3
        dvals = out[th * nd:(th + 1) * nd]
        cvals = Cw[th * nd:(th + 1) * nd]
        if dt == "f16":
            dvals, cvals = halves(dvals), halves(cvals)
        for e in range(n // 2):
            r = 16 * w + g + 8 * ((e % 4) // 2)
            col = 8 * (e // 4) + 2 * tg + (e % 2)
            ref = sum(A[r][k] * B[k][col] for k in range(kel * steps))
            if scale_d:
                ref += val(dt, cvals[e])
            got = val(dt, dvals[e])
            tot += 1
            if dt == "s32":
                bad += (ref & 0xFFFFFFFF) != dvals[e]
                continue
            tol = 2e-3 if (dt == "f16" or at in ("e4m3", "e5m2")) else 1e-5
            if math.isfinite(ref) and abs(got - ref) > tol * max(1.0, abs(ref)):
                bad += 1
    return bad, tot


# ----------------------------------------------------------------------------- main

def main():
    ok = bad = 0
    for line in open(sys.argv[1]):
        c = json.loads(line)
        fam = c["family"]
        try:
            if fam == "ldmatrix":
                exp = check_ldmatrix(c)
                good = exp == out_words(c)
                detail = ""
            elif fam == "mma":
                if c["name"].endswith("#edge") and "s32" not in c["name"]:
                    continue
                b, n = check_mma(c)
                good = b == 0
                detail = "%d/%d elements off" % (b, n)
            elif fam == "wgmma":
                b, n = check_wgmma(c)
                good = b <= n // 100
                detail = "%d/%d elements off" % (b, n)
            elif fam == "tensor" and "store" not in c["name"] and "reduce" not in c["name"]:
                exp = check_tensor_load(c)
                got = out_words(c)
                good = exp == got
                detail = "" if good else "first diff at %d" % next(
                    i for i in range(len(exp)) if i >= len(got) or exp[i] != got[i])
            else:
                continue
        except Exception as e:  # a case this checker does not understand
            good, detail = False, "checker error: %r" % e
        print("%s %s %s" % ("ok  " if good else "BAD ", c["name"], detail))
        ok += good
        bad += not good
    print("%d ok, %d bad" % (ok, bad))


if __name__ == "__main__":
    main()
