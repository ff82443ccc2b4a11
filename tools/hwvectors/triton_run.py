#!/usr/bin/env python3
"""Runs the Triton kernels of `shared/corpus/triton/` on small inputs on the GPU and in the
interpreter, and compares the outputs.

    # here, once: the kernels travel to the GPU machine only as a carried copy
    mkdir -p .carry/triton && cp ../shared/corpus/triton/tr_*.ptx .carry/triton/
    # GPU machine (driver only; carry .carry/triton): run every case, write the outputs
    python3 tools/hwvectors/triton_run.py --gpu $OUT/triton_gpu.json.xz
    # here: run the same cases in the interpreter (`ptx run`) and compare
    python3 tools/hwvectors/triton_run.py --compare corpus/vectors/triton_gpu.json.xz [--ptx PATH]
    # (exits 1 if any output differs; .ci/run runs this against the recorded H100 outputs)

Every case is described once, as the arguments of `ptx run` (`--entry`, `--grid`, `--block`,
`--shared`, and `--arg` specs: `u32:`, `f32:`, `u64:`, `buf:FILE` inputs generated here from a
seed, `zeros:N` outputs, and `tmap:buf=I,...` tensor maps over argument I), and the GPU side
builds exactly the same launch from that description: buffers in global memory, real
`CUtensorMap`s (cuTensorMapEncodeTiled) for the `tmap:` arguments, passed by value to the
128-byte `.param` parameters. Outputs are compared bit for bit; for float outputs the largest
distance in ulps is reported. All eight cases agree bit for bit with an H100 (CUDA 13.0):
`corpus/vectors/triton_gpu.json.xz`. A file named `*.xz` (read or written) is xz-compressed.
"""

import argparse
import json
import lzma
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# The kernels: `.carry/triton/` (a git-ignored copy that can travel to the GPU machine, which
# does not get `../shared`), else `../shared/corpus/triton/`; `--triton DIR` overrides.
TRITON = next((d for d in (os.path.join(ROOT, ".carry", "triton"),
                           os.path.join(ROOT, "..", "shared", "corpus", "triton"))
               if os.path.isdir(d)), os.path.join(ROOT, ".carry", "triton"))


def f16_words(n, rng, scale=1.0):
    vals = [struct.unpack("<H", struct.pack("<e", rng.uniform(-1, 1) * scale))[0] for _ in range(n)]
    return b"".join(struct.pack("<H", v) for v in vals)


def bf16_bytes(n, rng):
    out = bytearray()
    for _ in range(n):
        b = struct.unpack("<I", struct.pack("<f", rng.uniform(-1, 1)))[0]
        out += struct.pack("<H", ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF)
    return bytes(out)


def f32_bytes(n, rng):
    return b"".join(struct.pack("<f", rng.uniform(-1, 1)) for _ in range(n))


def fp8_bytes(n, rng):
    # e4m3 values with moderate exponents (no NaN)
    return bytes(((rng.getrandbits(1) << 7) | (rng.randint(5, 8) << 3) | rng.getrandbits(3))
                 for _ in range(n))


def cases():
    """(name, file, entry, grid, block, shared, args, outputs); args are (spec, data) with data
    the bytes of `buf:` inputs; outputs name the argument indices to compare and their type."""
    rng = random.Random(2026)
    out = []
    for m, n, k in ((128, 128, 256), (256, 256, 128)):
        a = f16_words(m * k, rng)
        b = f16_words(k * n, rng)
        args = [
            ("tmap:buf=20,type=f16,dims=%dx%d,box=64x128,swizzle=128" % (k, m), None),
            ("u32:%d" % m, None), ("u32:%d" % k, None), ("u64:%d" % k, None), ("u64:1", None),
            ("tmap:buf=21,type=f16,dims=%dx%d,box=64x64,swizzle=128" % (n, k), None),
            ("u32:%d" % k, None), ("u32:%d" % n, None), ("u64:%d" % n, None), ("u64:1", None),
            ("tmap:buf=22,type=f16,dims=%dx%d,box=64x128,swizzle=128" % (n, m), None),
            ("u32:%d" % m, None), ("u32:%d" % n, None), ("u64:%d" % n, None), ("u64:1", None),
            ("u32:%d" % m, None), ("u32:%d" % n, None), ("u32:%d" % k, None),
            ("u64:0", None), ("u64:0", None),
            # buffers referenced by the tensor maps (extra launch arguments 20..22 are not
            # kernel parameters: see `extra`)
        ]
        extra = [("buf", a), ("buf", b), ("zeros:%d" % (2 * m * n), None)]
        out.append({"name": "tma_matmul_%dx%dx%d" % (m, n, k), "file": "tr_tma_matmul.ptx",
                    "entry": "tma_matmul_kernel", "grid": [m // 128, n // 128, 1],
                    "block": [256, 1, 1], "shared": 98336, "args": args, "extra": extra,
                    "outputs": [(22, "f16")]})
    for zh, nctx in ((1, 128), (2, 256)):
        q = f16_words(zh * nctx * 64, rng)
        kk = f16_words(zh * nctx * 64, rng)
        v = f16_words(zh * nctx * 64, rng)
        args = [("buf", q), ("buf", kk), ("buf", v), ("zeros:%d" % (2 * zh * nctx * 64), None),
                ("f32:0.125", None),
                ("u32:%d" % nctx, None), ("u64:0", None), ("u64:0", None)]
        out.append({"name": "attn_fwd_%dx%d" % (zh, nctx), "file": "tr_attn_fwd.ptx",
                    "entry": "attn_fwd", "grid": [nctx // 128, zh, 1], "block": [256, 1, 1],
                    "shared": 65536, "args": args, "extra": [], "outputs": [(3, "f16")]})
    for ty, gen in (("f16", lambda n: f16_words(n, rng)), ("bf16", lambda n: bf16_bytes(n, rng)),
                    ("f32", lambda n: f32_bytes(n, rng)), ("fp8", lambda n: fp8_bytes(n, rng))):
        m = n = k = 128
        eb = {"f16": 2, "bf16": 2, "f32": 4, "fp8": 1}[ty]
        a, b = gen(m * k), gen(k * n)
        args = [("buf", a), ("buf", b), ("zeros:%d" % (2 * m * n), None), ("u32:%d" % m, None),
                ("u32:%d" % n, None), ("u32:%d" % k, None), ("u32:%d" % k, None),
                ("u32:%d" % n, None), ("u32:%d" % n, None), ("u64:0", None), ("u64:0", None)]
        out.append({"name": "matmul_%s_%dx%dx%d" % (ty, m, n, k), "file": "tr_matmul_%s.ptx" % ty,
                    "entry": "matmul_kernel", "grid": [m // 128, n // 128, 1],
                    "block": [128, 1, 1], "shared": 131072, "args": args, "extra": [],
                    "outputs": [(2, "f16")]})
        del eb
    return out


def materialise(c, tmp):
    """The `ptx run` argument list of a case, writing `buf` inputs to files in `tmp`. Extra
    buffers (referenced by tensor maps as arguments 20, 21, ...) become trailing arguments,
    which `ptx run` needs as kernel parameters; so tensor-map cases are run with the extra
    buffers spliced in through `tmap` specs that name their position."""
    specs = []
    extra_index = {}
    nparams = len(c["args"])
    for j, (kind, data) in enumerate(c["extra"]):
        extra_index[20 + j] = nparams + j
    for i, (spec, data) in enumerate(list(c["args"]) + list(c["extra"])):
        if spec == "buf":
            path = os.path.join(tmp, "%s_%d.bin" % (c["name"], i))
            with open(path, "wb") as f:
                f.write(data)
            spec = "buf:" + path
        if spec.startswith("tmap:"):
            for k, v in extra_index.items():
                spec = spec.replace("buf=%d," % k, "buf=%d," % v)
        specs.append(spec)
    return specs


# ----------------------------------------------------------------------------- GPU

def run_gpu(path):
    sys.path.insert(0, HERE)
    import cudrv
    drv = cudrv.Driver()
    results = {}
    for c in cases():
        ptx = open(os.path.join(TRITON, c["file"])).read()
        try:
            mod = drv.load(ptx)
        except cudrv.CudaError as e:
            print("skip %s: %s" % (c["name"], e), file=sys.stderr)
            continue
        f = drv.function(mod, c["entry"], c["shared"])
        allargs = list(c["args"]) + list(c["extra"])
        ptrs = {}
        for i, (spec, data) in enumerate(allargs):
            if spec == "buf":
                ptrs[i] = drv.alloc(data)
            elif spec.startswith("zeros:"):
                ptrs[i] = drv.alloc(b"\0" * int(spec[6:]))
        params = []
        for i, (spec, data) in enumerate(c["args"]):
            kind, _, v = spec.partition(":")
            if i in ptrs:
                params.append(cudrv.u64(ptrs[i]))
            elif kind == "u32":
                params.append(cudrv.u32(int(v)))
            elif kind == "u64":
                params.append(cudrv.u64(int(v)))
            elif kind == "f32":
                params.append(struct.pack("<f", float(v)))
            elif kind == "tmap":
                d = dict(kv.split("=") for kv in v.split(","))
                desc = {"type": d["type"], "dims": [int(x) for x in d["dims"].split("x")],
                        "box": [int(x) for x in d["box"].split("x")],
                        "swizzle": int(d.get("swizzle", "0"))}
                params.append(drv.tensor_map(ptrs[int(d["buf"])], desc))
        try:
            drv.launch(f, c["grid"], c["block"], params, c["shared"])
            outs = {}
            for idx, ty in c["outputs"]:
                spec = allargs[idx][0]
                n = int(spec[6:]) if spec.startswith("zeros:") else len(allargs[idx][1])
                outs[str(idx)] = drv.read(ptrs[idx], n).hex()
            results[c["name"]] = outs
            print("ran %s" % c["name"], file=sys.stderr)
            with open_text(path, "w") as fh:
                json.dump(results, fh, indent=1)
        except cudrv.CudaError as e:
            print("failed %s: %s" % (c["name"], e), file=sys.stderr)
            if e.sticky:
                drv.reset()
        for p in ptrs.values():
            drv.free(p)
        drv.unload(mod)
    with open_text(path, "w") as fh:
        json.dump(results, fh, indent=1)


# ----------------------------------------------------------------------------- interpreter

def run_interp(ptx_bin):
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases():
            specs = materialise(c, tmp)
            cmd = [ptx_bin, "run", os.path.join(TRITON, c["file"]), "--entry", c["entry"],
                   "--grid", ",".join(map(str, c["grid"])), "--block", ",".join(map(str, c["block"])),
                   "--shared", str(c["shared"]), "--json"]
            for s in specs:
                cmd += ["--arg", s]
            # Extra buffers are launch arguments the kernel does not take: append them as
            # trailing arguments only if the kernel has parameters for them (it does not), so
            # run with them removed from the parameter list and referenced by index.
            p = subprocess.run(cmd, capture_output=True, text=True)
            try:
                j = json.loads(p.stdout)
            except json.JSONDecodeError:
                results[c["name"]] = {"error": (p.stdout + p.stderr)[-2000:]}
                continue
            if not j["ok"]:
                results[c["name"]] = {"error": j["error"]["message"]}
                continue
            shown = [b["hex"] for b in j["buffers"]]
            outs = {}
            # `ptx run --json` lists shown buffers (zeros:/hex:) and buf: files in order.
            bufs = [i for i, s in enumerate(specs) if s.startswith(("zeros:", "buf:", "hex:"))]
            for idx, _ in c["outputs"]:
                k = bufs.index(idx)
                outs[str(idx)] = shown[k]
            results[c["name"]] = outs
    return results


def ulp16(a, b):
    def key(x):
        return -(x & 0x7FFF) if x & 0x8000 else x
    return abs(key(a) - key(b))


def compare(gpu, interp):
    """Prints one line per output and returns the number of outputs that differ."""
    bad = 0
    for name, outs in gpu.items():
        mine = interp.get(name, {})
        if "error" in mine:
            print("%-28s interpreter error: %s" % (name, mine["error"][:300]))
            bad += 1
            continue
        for idx, hexs in outs.items():
            g = bytes.fromhex(hexs)
            i = bytes.fromhex(mine.get(idx, ""))
            n = len(g) // 2
            diff = maxu = 0
            for e in range(n):
                a = int.from_bytes(g[2 * e:2 * e + 2], "little")
                b = int.from_bytes(i[2 * e:2 * e + 2], "little") if 2 * e + 2 <= len(i) else None
                if a != b:
                    diff += 1
                    maxu = max(maxu, ulp16(a, b) if b is not None else 1 << 16)
            print("%-28s arg %s: %d/%d f16 elements differ, max %d ulp" % (name, idx, diff, n, maxu))
            bad += diff > 0
    missing = [c["name"] for c in cases() if c["name"] not in gpu]
    for name in missing:
        print("%-28s no GPU result" % name)
    return bad + len(missing)


def open_text(path, mode):
    """`open(path, mode)` in text mode, through xz (preset 9) when the name ends in `.xz`."""
    if path.endswith(".xz"):
        return lzma.open(path, mode + "t", preset=9 if mode == "w" else None)
    return open(path, mode)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", metavar="OUT", help="run on the GPU and write the outputs")
    ap.add_argument("--compare", metavar="GPU_JSON", help="run in the interpreter and compare")
    ap.add_argument("--interp", metavar="OUT", help="run in the interpreter and write the outputs")
    ap.add_argument("--ptx", default=os.path.join(ROOT, "target", "release", "ptx"),
                    help="the ptx binary")
    ap.add_argument("--triton", help="folder of the tr_*.ptx kernels")
    a = ap.parse_args()
    global TRITON
    if a.triton:
        TRITON = a.triton
    if a.gpu:
        run_gpu(a.gpu)
    if a.interp or a.compare:
        res = run_interp(a.ptx)
        if a.interp:
            with open_text(a.interp, "w") as fh:
                json.dump(res, fh, indent=1)
        if a.compare:
            with open_text(a.compare, "r") as fh:
                gpu = json.load(fh)
            bad = compare(gpu, res)
            print("%d of %d outputs differ" % (bad, len(cases())))
            sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
