#!/usr/bin/env python3
"""sin/cos.approx(.ftz).f32 on every f32 input: the GPU against `ptx run` (an x86-64 release
binary carried to the GPU machine), compared there, since the outputs are 64 GiB in all.

    python3 tools/hwvectors/probes/trig_sweep.py PTX_BINARY [--chunks A:B] [--jobs J]
        [--budget SECONDS] [--model]

`trig_sweep.ptx` computes, for x = bits(base + i), the four words sin.approx.f32,
sin.approx.ftz.f32, cos.approx.f32 and cos.approx.ftz.f32 of x. The 2^32 inputs are cut into
chunks of 2^22 (--chunk-log2); chunk c starts at c * 2^22. For each chunk of A..B (default all
1024) the kernel runs on the GPU (CUDA driver through ../cudrv.py, in the main thread) and in
`ptx run`, J processes at once (default: one per CPU core; each started and awaited by a
thread of a pool, each writing its own file under --tmp), and the outputs are compared bit for
bit. Prints, per function: inputs compared, equal, how many differ (and how many of those are
NaN on both sides with other bits), the first few differing inputs with both results, and the
differing inputs per exponent field of x.

On the GPU machine, with the release binary carried (`run` with carry ["target/release/ptx"]):

    python3 tools/hwvectors/probes/trig_sweep.py target/release/ptx

`ptx run` takes about 1.8 s a chunk of 2^22 (0.8 s for the NaN chunks; 0.6 s of it is
start-up, mostly decoding the sin/cos tables), measured on one core of a 2-core x86-64
developer machine: 1024 chunks are about 1850 core-seconds, some 2 minutes with 16 jobs; the
GPU and the comparison add about 0.1 s a chunk in the main thread, overlapped with the jobs.

No chunk starts after --budget seconds (default 500, to stay inside a 10-minute command): the
summary covers the chunks done and tells how long the whole sweep would take at the rate seen.

--model replaces the GPU with a NumPy model of the measured rule (the tables of interp/sfu:
t = RZ(x * 0x3e22f983), n = floor(frac(|t|) * 2^25), quadrant and sign as in
interp/src/float/approx.rs): with it the script runs without a GPU, which checks the script and
the interpreter's half of the sweep against an independent implementation.
"""
import argparse
import concurrent.futures as cf
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
ptx_file = os.path.join(here, "trig_sweep.ptx")
FUNCS = ["sin.approx.f32", "sin.approx.ftz.f32", "cos.approx.f32", "cos.approx.ftz.f32"]
# --kernel approx: every single-operand f32 .approx function (approx_sweep.ptx; 16 words a
# thread, the last one zero). --kernel tanh: tanh.approx.f32 alone (tanh_sweep.ptx, one word).
APPROX = ["sin.approx.f32", "sin.approx.ftz.f32", "cos.approx.f32", "cos.approx.ftz.f32",
          "rcp.approx.f32", "rcp.approx.ftz.f32", "sqrt.approx.f32", "sqrt.approx.ftz.f32",
          "rsqrt.approx.f32", "rsqrt.approx.ftz.f32", "lg2.approx.f32", "lg2.approx.ftz.f32",
          "ex2.approx.f32", "ex2.approx.ftz.f32", "tanh.approx.f32", "(zero)"]
W = 4
BLOCK = 256


def interp(binary, base, n, path):
    """`ptx run` on one chunk; returns (outputs as (n, W) u32, seconds)."""
    with open(path, "wb") as f:
        f.truncate(4 * W * n)
    start = time.time()
    r = subprocess.run([binary, "run", ptx_file, "--entry", "k", "--grid", str(n // BLOCK),
                        "--block", str(BLOCK), "--arg", "buf:" + path, "--arg", "u32:%d" % base],
                       capture_output=True, text=True)
    took = time.time() - start
    if r.returncode != 0:
        os.unlink(path)
        raise RuntimeError("ptx run base %08x failed: %s" % (base, r.stderr[-500:]))
    out = np.fromfile(path, dtype="<u4").reshape(n, W)
    os.unlink(path)
    return out, took


class Gpu:
    def __init__(self, n):
        sys.path.insert(0, os.path.join(here, ".."))
        import cudrv
        self.cudrv = cudrv
        self.d = cudrv.Driver()
        self.f = self.d.function(self.d.load(open(ptx_file).read()), "k")
        self.n = n
        self.out = self.d.alloc(bytes(4 * W * n))

    def run(self, base):
        c = self.cudrv
        self.d.launch(self.f, [self.n // BLOCK, 1, 1], [BLOCK, 1, 1],
                      [c.u64(self.out), c.u32(base)])
        return np.frombuffer(self.d.read(self.out, 4 * W * self.n),
                             dtype="<u4").reshape(self.n, W)


def load_table(name):
    raw = lzma.decompress(open(os.path.join(root, "interp", "sfu", name), "rb").read())
    return np.cumsum(np.frombuffer(raw, dtype="<u4"), dtype=np.uint64).astype(np.uint32)


class Model:
    """The measured rule in NumPy (independent of the interpreter's Rust)."""

    def __init__(self, n):
        self.n = n
        self.S = load_table("sin.approx.f32.q0.u32.xz")
        self.C = load_table("cos.approx.f32.q0.u32.xz")

    def one(self, xb, ftz, cos):
        with np.errstate(invalid="ignore", over="ignore"):
            return self._one(xb, ftz, cos)

    def _one(self, xb, ftz, cos):
        if ftz:
            xb = np.where((xb >> 23) & 0xFF == 0, xb & 0x80000000, xb).astype(np.uint32)
        # t = x * 0x3e22f983 rounded toward zero: the product is exact in f64; step the
        # nearest f32 back toward zero where it rounded away.
        c = np.float64(np.uint32(0x3E22F983).view(np.float32))
        p = xb.view(np.float32).astype(np.float64) * c
        r = p.astype(np.float32)
        rb = r.view(np.uint32)
        rb = np.where(np.abs(r.astype(np.float64)) > np.abs(p), rb - np.uint32(1), rb)
        t = rb.view(np.float32).astype(np.float64)
        a = np.abs(t)
        n = np.floor((a - np.floor(a)) * float(1 << 25)).astype(np.int64)
        q = ((n >> 23) + (1 if cos else 0)) & 3
        k = n & ((1 << 23) - 1)
        v = np.where(q & 1 == 1, self.C[k], self.S[k]).astype(np.uint32)
        neg = q >= 2
        if not cos:
            neg = neg ^ ((rb >> 31) == 1)
        v = v ^ (neg.astype(np.uint32) << 31)
        if ftz:
            v = np.where((v >> 23) & 0xFF == 0, v & 0x80000000, v).astype(np.uint32)
        return np.where((xb >> 23) & 0xFF == 0xFF, np.uint32(0x7FFFFFFF), v).astype(np.uint32)

    def run(self, base):
        xb = (np.arange(self.n, dtype=np.uint64) + base).astype(np.uint32)
        return np.stack([self.one(xb, False, False), self.one(xb, True, False),
                         self.one(xb, False, True), self.one(xb, True, True)], axis=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the release `ptx` binary")
    ap.add_argument("--chunk-log2", type=int, default=22, help="inputs per chunk: 2^K")
    ap.add_argument("--chunks", default=None, help="A:B, the chunks A..B-1 (default all)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="`ptx run`s at once")
    ap.add_argument("--budget", type=float, default=500.0, help="start no chunk after S s")
    ap.add_argument("--first", type=int, default=8, help="differing inputs shown per function")
    ap.add_argument("--tmp", default=None, help="folder for the interpreter's output files")
    ap.add_argument("--model", action="store_true", help="NumPy model instead of the GPU")
    ap.add_argument("--kernel", choices=["trig", "approx", "tanh"], default="trig",
                    help="approx: all 15 f32 .approx functions (approx_sweep.ptx); "
                    "tanh: tanh.approx.f32 alone (tanh_sweep.ptx)")
    a = ap.parse_args()
    global ptx_file, FUNCS, W
    if a.kernel == "approx":
        if a.model:
            raise SystemExit("--model covers sin/cos only (--kernel trig)")
        ptx_file = os.path.join(here, "approx_sweep.ptx")
        FUNCS, W = APPROX, 16
    elif a.kernel == "tanh":
        if a.model:
            raise SystemExit("--model covers sin/cos only (--kernel trig)")
        ptx_file = os.path.join(here, "tanh_sweep.ptx")
        FUNCS, W = ["tanh.approx.f32"], 1
    n = 1 << a.chunk_log2
    total = 1 << (32 - a.chunk_log2)
    lo, hi = (0, total) if a.chunks is None else map(int, a.chunks.split(":"))
    assert 0 <= lo < hi <= total and n % BLOCK == 0
    ref = Model(n) if a.model else Gpu(n)
    ref_name = "model" if a.model else "gpu"
    tmp = tempfile.mkdtemp(prefix="trig_sweep.", dir=a.tmp)
    compared = [0] * W
    equal = [0] * W
    nan_pairs = [0] * W
    shown = [[] for _ in range(W)]
    by_exp = [np.zeros(256, dtype=np.int64) for _ in range(W)]
    start = time.time()
    done = 0
    interp_s = 0.0
    todo = iter(range(lo, hi))
    running = {}
    print("chunks %d..%d of %d (2^%d inputs each), %d jobs, against the %s"
          % (lo, hi - 1, total, a.chunk_log2, a.jobs, ref_name), flush=True)
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        def submit():
            # Keep every worker busy and one more chunk queued each, until the budget is out.
            while len(running) < 2 * a.jobs and time.time() - start < a.budget:
                c = next(todo, None)
                if c is None:
                    return
                base = c * n
                path = os.path.join(tmp, "chunk%05d.bin" % c)
                running[pool.submit(interp, a.binary, base, n, path)] = c
        submit()
        while running:
            finished, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                c = running.pop(fut)
                base = c * n
                itp, took = fut.result()
                interp_s += took
                hw = ref.run(base)
                for k in range(W):
                    g, i = hw[:, k], itp[:, k]
                    bad = np.nonzero(g != i)[0]
                    compared[k] += n
                    equal[k] += n - len(bad)
                    if len(bad):
                        x = (bad.astype(np.uint64) + base).astype(np.uint32)
                        gb, ib = g[bad], i[bad]
                        nan_pairs[k] += int(np.count_nonzero(
                            ((gb & 0x7FFFFFFF) > 0x7F800000) & ((ib & 0x7FFFFFFF) > 0x7F800000)))
                        by_exp[k] += np.bincount((x >> 23) & 0xFF, minlength=256)
                        for j in range(min(len(bad), a.first - len(shown[k]))):
                            shown[k].append((int(x[j]), int(gb[j]), int(ib[j])))
                done += 1
                if done % 64 == 0:
                    el = time.time() - start
                    print("  %d of %d chunks in %.0f s (all: about %.0f s)"
                          % (done, hi - lo, el, el / done * (hi - lo)), flush=True)
            submit()
    elapsed = time.time() - start
    shutil.rmtree(tmp, ignore_errors=True)
    for k, name in enumerate(FUNCS):
        print("%-20s %11d compared, %11d equal, %d differ (%d of them NaN on both sides)"
              % (name, compared[k], equal[k], compared[k] - equal[k], nan_pairs[k]))
        for xv, gv, iv in shown[k]:
            print("    x=%08x %s=%08x interp=%08x" % (xv, ref_name, gv, iv))
        nz = np.nonzero(by_exp[k])[0]
        if len(nz):
            print("    differing inputs per exponent field (sign folded): %s" % ", ".join(
                "%d: %d" % (e, by_exp[k][e]) for e in nz))
    print("%d of %d chunks (from %d) in %.1f s" % (done, hi - lo, lo, elapsed))
    if done:
        print("`ptx run` %.2f s a chunk on average; at this rate all %d chunks take %.0f s"
              % (interp_s / done, total, elapsed / done * total))
    if done < hi - lo:
        print("budget reached: chunks %d..%d not run (rerun with --chunks %d:%d)"
              % (lo + done, hi - 1, lo + done, hi))


if __name__ == "__main__":
    main()
