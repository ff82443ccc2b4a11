#!/usr/bin/env python3
"""The Triton flash-attention forward of the real-program suite (`attn_fwd` of
triton_suite.py, tutorial 06, causal) compiled at a realistic size for the interpreter's
benchmark: N_CTX = 1024, HEAD_DIM = 64, 16 heads (Z * H), BLOCK_M = 64, BLOCK_N = 32, 4 warps;
a grid of 16 x 16 = 256 CTAs.

    python3 tools/realprog/attention_bench.py       # needs `triton` (3.6), no GPU

writes corpus/bench/triton_attn_fwd_1k.sm_90a.ptx.xz, which `interp/benches/throughput.rs`
runs ("attention 1k").
"""

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
    out = os.path.join(HERE, "..", "..", "corpus", "bench", "triton_attn_fwd_1k.sm_90a.ptx.xz")
    with open(out, "wb") as f:
        f.write(lzma.compress(ptx.encode(), preset=9 | lzma.PRESET_EXTREME))
    print("%s: warps %d shared %d grid (%d, %d)" % (
        os.path.normpath(out), k["num_warps"], md.shared, NCTX // 64, HEADS))


if __name__ == "__main__":
    main()
