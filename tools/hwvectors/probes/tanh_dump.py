#!/usr/bin/env python3
"""tanh.approx.f32 on every non-negative f32 input, recorded compactly for modelling.

    python3 tools/hwvectors/probes/tanh_dump.py OUTDIR

Runs `tanh.approx.f32` on the GPU for every exponent field e in 0..255 with the sign clear
(2^23 inputs each) and checks there, on all 2^32 inputs, that a negative input gives the
negated result of its magnitude (NaNs: any NaN). A binade whose every result equals its input,
or is one constant, is summarised in OUTDIR/tanh_summary.txt; each other binade e is a member
eEEE.u32.xz of OUTDIR/tanh_K.tar (K from 0, each under 15 MiB, as the GPU machine returns at
most 8 files of 16 MiB): its 2^23 results in input order, delta-coded
(w[i] = y[i] - y[i-1] mod 2^32) and xz-compressed.
"""
import io
import lzma
import os
import subprocess
import sys
import tarfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import cudrv  # noqa: E402

KERNEL = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p_y, .param .u32 p_base)
{
  .reg .b32 %i, %x, %y, %base, %r<4>;
  .reg .b64 %a<4>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.u32 %i, %r2, %r3, %r1;
  ld.param.u32 %base, [p_base];
  add.u32 %x, %base, %i;
  tanh.approx.f32 %y, %x;
  mul.wide.u32 %a1, %i, 4;
  ld.param.u64 %a0, [p_y]; cvta.to.global.u64 %a0, %a0; add.s64 %a2, %a0, %a1;
  st.global.b32 [%a2], %y;
  ret;
}
"""
N = 1 << 23
BLOCK = 256
TAR_BYTES = 15 << 20


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    p = "/tmp/tanh_dump.ptx"
    open(p, "w").write(KERNEL)
    subprocess.run(["ptxas", "-arch=sm_90a", p, "-o", p + ".cubin"], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", p + ".cubin"], capture_output=True, text=True)
    summary = ["SASS: " + " ; ".join(line.split("*/")[1].strip().rstrip(";").strip()
                                      for line in sass.stdout.splitlines()
                                      if "MUFU" in line or "FMUL" in line or "FSEL" in line)]
    d = cudrv.Driver()
    f = d.function(d.load(KERNEL), "k")
    buf = d.alloc(bytes(4 * N))

    def binade(base):
        d.launch(f, [N // BLOCK, 1, 1], [BLOCK, 1, 1], [cudrv.u64(buf), cudrv.u32(base)])
        return np.frombuffer(d.read(buf, 4 * N), dtype=np.uint32).copy()

    tars, cur = [], None

    def add(name, blob):
        nonlocal cur
        if cur is None or cur[1] + len(blob) + 1024 > TAR_BYTES:
            if cur is not None:
                cur[0].close()
            path = os.path.join(out, "tanh_%d.tar" % len(tars))
            cur = [tarfile.open(path, "w"), 0]
            tars.append(path)
        info = tarfile.TarInfo(name)
        info.size = len(blob)
        cur[0].addfile(info, io.BytesIO(blob))
        cur[1] += len(blob) + 1024

    sign_bad = 0
    for e in range(256):
        x = (np.uint32(e) << np.uint32(23)) + np.arange(N, dtype=np.uint32)
        y = binade(e << 23)
        yn = binade((1 << 31) | (e << 23))
        nan = (y & 0x7FFFFFFF) > 0x7F800000
        nann = (yn & 0x7FFFFFFF) > 0x7F800000
        bad = ~((yn == (y ^ 0x80000000)) | (nan & nann))
        if bad.any():
            i = np.nonzero(bad)[0][:4]
            summary.append("e=%d sign: %d differ, e.g. %s" % (e, int(bad.sum()), " ".join(
                "x=%08x y=%08x y(-x)=%08x" % (x[j], y[j], yn[j]) for j in i)))
            sign_bad += int(bad.sum())
        if (y == x).all():
            summary.append("e=%d: y = x" % e)
        elif (y == y[0]).all():
            summary.append("e=%d: y = %08x" % (e, y[0]))
        else:
            u = np.unique(y)
            summary.append("e=%d: %d distinct results in [%08x, %08x]; y=x on %d" % (
                e, u.size, u[0], u[-1], int((y == x).sum())))
            w = np.diff(y, prepend=np.uint32(0)).astype(np.uint32)
            add("e%03d.u32.xz" % e, lzma.compress(w.tobytes(), preset=6))
        print(summary[-1], flush=True)
    if cur is not None:
        cur[0].close()
    summary.append("sign rule: %d inputs differ" % sign_bad)
    summary.append("files: " + " ".join("%s=%d" % (t, os.path.getsize(t)) for t in tars))
    open(os.path.join(out, "tanh_summary.txt"), "w").write("\n".join(summary) + "\n")
    print("\n".join(summary[-2:]))


if __name__ == "__main__":
    main()
