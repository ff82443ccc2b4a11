#!/usr/bin/env python3
"""How the special-function unit computes sin/cos/tanh.approx.f32: hypotheses tested on every
input of whole binades, and the tables that follow from them.

    python3 tools/hwvectors/probes/sfu_trig.py OUTDIR

sin/cos: `sin.approx.f32 x` is `MUFU.SIN(RZ(x * 0x3e22f983))` (check the SASS printed first).
For each binade of x in [2^-30, 2^1) the script records t = RZ(x * c) (computed on the GPU with
`mul.rz.f32`) and the result, and checks, for F fraction bits of fixed point per turn, whether
the result is a function of n = floor(t * 2^F) (counting the n with two different results).
For the first F that holds it writes table[n] for n in [0, 2^(F-2)) (the first quadrant) as
OUTDIR/{sin,cos}.q0.u32.xz (delta-coded as sfu_tables.py), with the n never reached marked
0xffffffff, and tests that quadrants 1..3 and negative x follow from the first quadrant.
tanh: whether the result is a function of the top m significand bits, per binade.
"""
import lzma
import os
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import cudrv  # noqa: E402

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n"
KERNEL = HEADER + """
.visible .entry k(.param .u64 p_y, .param .u64 p_t, .param .u32 p_base)
{
  .reg .b32 %i, %x, %y, %t, %base, %r<4>;
  .reg .b64 %a<4>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.u32 %i, %r2, %r3, %r1;
  ld.param.u32 %base, [p_base];
  add.u32 %x, %base, %i;
  OP
  mul.rz.f32 %t, %x, 0f3E22F983;
  mul.wide.u32 %a1, %i, 4;
  ld.param.u64 %a0, [p_y]; cvta.to.global.u64 %a0, %a0; add.s64 %a2, %a0, %a1;
  st.global.b32 [%a2], %y;
  ld.param.u64 %a0, [p_t]; cvta.to.global.u64 %a0, %a0; add.s64 %a2, %a0, %a1;
  st.global.b32 [%a2], %t;
  ret;
}
"""
d = cudrv.Driver()
N = 1 << 23
BLOCK = 256
fns = {}
for name, op in [("sin", "sin.approx.f32 %y, %x;"), ("cos", "cos.approx.f32 %y, %x;"),
                 ("tanh", "tanh.approx.f32 %y, %x;")]:
    src = KERNEL.replace("OP", op)
    p = os.path.join("/tmp", name + ".ptx")
    open(p, "w").write(src)
    subprocess.run(["ptxas", "-arch=sm_90a", p, "-o", p + ".cubin"], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", p + ".cubin"], capture_output=True,
                          text=True).stdout
    print("==", name, "SASS:", " ; ".join(l.split("*/")[1].strip().rstrip(";").strip()
                                           for l in sass.splitlines()
                                           if "MUFU" in l or "FMUL" in l or "FSETP" in l
                                           or "FADD" in l or "FFMA" in l or "FSEL" in l))
    m = d.load(src)
    fns[name] = d.function(m, "k")
ybuf = d.alloc(bytes(4 * N))
tbuf = d.alloc(bytes(4 * N))


def binade(name, e, sign=0):
    base = (sign << 31) | (e << 23)
    d.launch(fns[name], [N // BLOCK, 1, 1], [BLOCK, 1, 1],
             [cudrv.u64(ybuf), cudrv.u64(tbuf), cudrv.u32(base)])
    y = np.frombuffer(d.read(ybuf, 4 * N), dtype=np.uint32).copy()
    t = np.frombuffer(d.read(tbuf, 4 * N), dtype=np.uint32).copy()
    return y, t


def fixed(t_bits, F):
    t = t_bits.view(np.float32).astype(np.float64)
    fr = np.abs(t) - np.floor(np.abs(t))
    return np.floor(fr * float(1 << F)).astype(np.int64)


def encode(vals):
    w = np.diff(vals.astype(np.uint32), prepend=np.uint32(0)).astype(np.uint32)
    return lzma.compress(w.tobytes(), preset=9 | lzma.PRESET_EXTREME)


report = []
# Binades of x from 2^-30 to [1, 2): t below a quarter turn (x < pi/2).
for name in ["sin", "cos"]:
    data = []
    for e in range(127 - 30, 128):
        y, t = binade(name, e)
        data.append((y, t))
    # Which F makes the result a function of n?
    for F in [22, 23, 24, 25, 26, 27]:
        bad = 0
        total_n = 0
        for y, t in data:
            # t grows with x within a binade, so n is nondecreasing: compare neighbours.
            n = fixed(t, F)
            q = n < (1 << (F - 2))
            n, yy = n[q], y[q]
            if len(n) == 0:
                continue
            same = n[1:] == n[:-1]
            total_n += int((~same).sum()) + 1
            bad += int(np.unique(n[1:][same & (yy[1:] != yy[:-1])]).size)
        report.append("%s F=%d: %d distinct n in quadrant 0, %d with two results"
                      % (name, F, total_n, bad))
        print(report[-1], flush=True)
    # Also: is the result a function of the rounded-to-nearest fixed point?
    for F in [24, 25]:
        bad = 0
        for y, t in data:
            tt = t.view(np.float32).astype(np.float64)
            n = np.rint(np.abs(tt) * float(1 << F)).astype(np.int64)
            same = n[1:] == n[:-1]
            bad += int(np.unique(n[1:][same & (y[1:] != y[:-1])]).size)
        report.append("%s rounded F=%d: %d n with two results" % (name, F, bad))
        print(report[-1], flush=True)
    # Table for F=25 (the interpreter's current reduction), first quadrant.
    F = 25
    table = np.full(1 << (F - 2), 0xFFFFFFFF, dtype=np.uint32)
    for y, t in data:
        n = fixed(t, F)
        q = n < (1 << (F - 2))
        table[n[q]] = y[q]
    missing = int((table == 0xFFFFFFFF).sum())
    report.append("%s table F=25: %d of %d n reached" % (name, (1 << 23) - missing, 1 << 23))
    print(report[-1], flush=True)
    open(os.path.join(out_dir, "%s.q0.u32.xz" % name), "wb").write(encode(table))
    np.save(os.path.join("/tmp", name + "_table.npy"), table)
    # Small t: what do the tiny binades give?
    for y, t in data[:8]:
        tt = t.view(np.float32)
        report.append("%s tiny: t in [%g, %g] -> results %s" % (
            name, tt.min(), tt.max(), " ".join("%08x" % v for v in np.unique(y)[:6])))
        print(report[-1], flush=True)
# Other quadrants and negative inputs against the first-quadrant tables.
F = 25
for name in ["sin", "cos"]:
    tab = np.load(os.path.join("/tmp", name + "_table.npy"))
    for sign in [0, 1]:
        for e in range(128, 131):  # x in [2, 16): all quadrants several times
            y, t = binade(name, e, sign)
            n = fixed(t, F)
            quad, r = (n >> 23) & 3, n & ((1 << 23) - 1)
            # sin: [s(r), c(r), -s(r), -c(r)] ; cos: [c(r), -s(r), -c(r), s(r)]
            other = "cos" if name == "sin" else "sin"
            oth = np.load(os.path.join("/tmp", other + "_table.npy")) if os.path.exists(
                os.path.join("/tmp", other + "_table.npy")) else None
            if oth is None:
                continue
            s_t, c_t = (tab, oth) if name == "sin" else (oth, tab)
            sv, cv = s_t[r], c_t[r]
            if name == "sin":
                pred = np.select([quad == 0, quad == 1, quad == 2, quad == 3],
                                 [sv, cv, sv ^ 0x80000000, cv ^ 0x80000000])
                if sign:
                    pred = pred ^ 0x80000000
            else:
                pred = np.select([quad == 0, quad == 1, quad == 2, quad == 3],
                                 [cv, sv ^ 0x80000000, cv ^ 0x80000000, sv])
            ok = (pred == y) | (((pred & 0x7FFFFFFF) == 0) & ((y & 0x7FFFFFFF) == 0))
            bad_idx = np.nonzero(~ok)[0]
            report.append("%s quadrant check sign=%d e=%d: %d of %d differ; first %s" % (
                name, sign, e, bad_idx.size, N, " ".join(
                    "x=%08x t=%08x n=%d q=%d gpu=%08x pred=%08x" % (
                        (sign << 31) | (e << 23) | i, t[i], n[i], quad[i], y[i], pred[i])
                    for i in bad_idx[:3])))
            print(report[-1], flush=True)

# tanh: function of the top m significand bits?
for e in range(127 - 14, 127 + 4):
    y, _ = binade("tanh", e)
    x = np.arange(N, dtype=np.uint32)
    for m in [8, 10, 11, 12, 13, 14, 16, 18, 20, 23]:
        key = x >> (23 - m)
        same = key[1:] == key[:-1]
        bad = int(np.unique(key[1:][same & (y[1:] != y[:-1])]).size)
        if bad == 0:
            break
    ref = np.tanh(((e << 23) + x).view(np.float32).astype(np.float64)).astype(np.float32)
    ulp = np.abs(y.astype(np.int64) - ref.view(np.uint32).astype(np.int64))
    report.append("tanh binade 2^%d: result a function of the top %d bits (bad=%d); "
                  "distinct results %d; max |ulp| vs correctly rounded %d"
                  % (e - 127, m, bad, np.unique(y).size, ulp.max()))
    print(report[-1], flush=True)
    pass
open(os.path.join(out_dir, "trig_report.txt"), "w").write("\n".join(report) + "\n")
