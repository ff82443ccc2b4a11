#!/usr/bin/env python3
"""lg2.approx.ftz.f32 over whole binades: the GPU (CuPy) against `ptx run` (an x86-64 release
binary carried to the GPU machine), compared there, since the outputs are 32 MiB a binade.

    python3 tools/hwvectors/probes/lg2_sweep.py PTX_BINARY EXP [EXP...]

EXP is a biased exponent (126 is [0.5, 1), 125 is [0.25, 0.5), ...). Prints, per binade, the
lanes that differ and the interpreter's error in units (GPU minus interpreter, as integers),
with the first few inputs.
"""
import os
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
ptx_file = os.path.join(here, "lg2_sweep.ptx")
binary = sys.argv[1]
n = 1 << 23
block = 256
src = open(ptx_file).read()
sys.path.insert(0, os.path.join(here, ".."))
import cudrv
d = cudrv.Driver()
m = d.load(src)
f = d.function(m, "k")
for e in [int(x) for x in sys.argv[2:]]:
    base = e << 23
    out = d.alloc(bytes(4 * n))
    d.launch(f, [n // block, 1, 1], [block, 1, 1], [cudrv.u64(out), cudrv.u32(base)])
    gpu = np.frombuffer(d.read(out, 4 * n), dtype=np.int32)
    d.free(out)
    path = "/tmp/lg2_%d.bin" % e
    open(path, "wb").write(bytes(4 * n))
    r = subprocess.run([binary, "run", ptx_file, "--entry", "k", "--grid", str(n // block),
                        "--block", str(block), "--arg", "buf:" + path, "--arg", "u32:%d" % base],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("exp %d: ptx run failed: %s" % (e, r.stderr[-300:]))
        continue
    itp = np.fromfile(path, dtype=np.int32)
    diff = gpu.astype(np.int64) - itp.astype(np.int64)
    bad = np.nonzero(diff)[0]
    vals, counts = np.unique(diff[bad], return_counts=True)
    print("exp %d [2^%d, 2^%d): %d of %d differ; GPU - interp units: %s" % (
        e, e - 127, e - 126, len(bad), n, dict(zip(vals.tolist(), counts.tolist()))))
    for i in bad[:6]:
        print("   x=%08x gpu=%08x interp=%08x" % (base + int(i), int(gpu[i]) & 0xffffffff,
                                                  int(itp[i]) & 0xffffffff))
    sys.stdout.flush()
