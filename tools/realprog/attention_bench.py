#!/usr/bin/env python3
"""The Triton flash-attention forward of the real-program suite (`attn_fwd` of
triton_suite.py, tutorial 06, causal) compiled at a realistic size for the interpreter's
benchmark: N_CTX = 1024, HEAD_DIM = 64, 16 heads (Z * H), BLOCK_M = 64, BLOCK_N = 32, 4 warps;
a grid of 16 x 16 = 256 CTAs.

    python3 tools/realprog/attention_bench.py       # needs `triton` (3.6), no GPU

writes corpus/bench/triton_attn_fwd_1k.sm_90a.ptx.xz, which `interp/benches/throughput.rs`
runs ("attention 1k"), and corpus/bench/launches.json, the launch in the real-program suite's
notation, so that record.py runs it on the GPU and through `ptx run` to compare the two:

    python3 tools/realprog/record.py --table corpus/bench/launches.json --corpus corpus/bench \
        --out gpu.jsonl.xz                 # and with --dry --out interp.jsonl.xz
"""

import hashlib
import json
import lzma
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triton_suite  # noqa: E402

NCTX, HD, HEADS = 1024, 64, 16


def main():
    k = next(k for k in triton_suite.kernels() if k["name"] == "attn_fwd")
    k = dict(k)
    k["constexprs"] = dict(k["constexprs"], N_CTX=NCTX, HEAD_DIM=HD)
    ptx, md = triton_suite.compile_kernel(k)
    ptx = triton_suite.normalise(ptx)
    bench = os.path.join(HERE, "..", "..", "corpus", "bench")
    mod = "triton_attn_fwd_1k.sm_90a"
    out = os.path.join(bench, mod + ".ptx.xz")
    with open(out, "wb") as f:
        f.write(lzma.compress(ptx.encode(), preset=9 | lzma.PRESET_EXTREME))
    elems = HEADS * NCTX * HD
    half = lambda seed: {"type": "buf", "gen": "f16", "n": elems, "lo": "-1.0", "hi": "1.0",
                         "seed": seed}
    table = {
        "format": 1,
        "modules": {mod: {"ptx": mod + ".ptx.xz",
                          "sha256": hashlib.sha256(ptx.encode()).hexdigest()}},
        "launches": [{
            "id": mod + "/attn_fwd", "module": mod, "entry": "attn_fwd",
            "grid": [NCTX // 64, HEADS, 1], "block": [32 * k["num_warps"], 1, 1],
            "cluster": None, "shared": md.shared,
            "args": [half("0000000000000001"), half("0000000000000002"),
                     half("0000000000000003"), {"type": "f32", "value": "0.125"},
                     {"type": "buf", "gen": "fill", "bytes": HEADS * NCTX * 4},
                     {"type": "buf", "gen": "fill", "bytes": elems * 2},
                     {"type": "u64", "value": "0"}, {"type": "u64", "value": "0"}],
        }],
    }
    with open(os.path.join(bench, "launches.json"), "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    print("%s: warps %d shared %d grid (%d, %d)" % (
        os.path.normpath(out), k["num_warps"], md.shared, NCTX // 64, HEADS))


if __name__ == "__main__":
    main()
