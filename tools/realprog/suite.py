#!/usr/bin/env python3
"""The real-program suite: CUDA C++ sources (src/*.cu) written the way real programs are,
their compile variants, and the launches of every kernel.

    python3 tools/realprog/suite.py build     # nvcc every (source, variant) -> PTX, ptxas check,
                                              # corpus/realprog/ptx/*.ptx.xz, launches.json
    python3 tools/realprog/suite.py export    # only rewrite corpus/realprog/launches.json
    python3 tools/realprog/suite.py list      # counts

`build` needs nvcc and ptxas of CUDA 13.0 on PATH (tools/realprog/cuda_local.sh installs them
from PyPI). The PTX is committed (xz-compressed), so the GPU machine and `cargo test` need
neither. The Triton kernels' modules and launches come from corpus/realprog/triton.json, made by
triton_suite.py, and are merged into launches.json here.

launches.json is what record.py (GPU machine, and `--dry` here) and tests/realprog.rs read:
`modules` maps a module name (SOURCE.VARIANT) to its PTX file and sha256, `launches` lists
every launch: id, module, entry, grid, block, cluster, shared (dynamic bytes) and args, each a
scalar {"type", "value"} or a buffer {"type": "buf", "gen", ...} (gen.py describes the
generators).
"""

import hashlib
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SRC = os.path.join(HERE, "src")
CORPUS = os.path.join(ROOT, "corpus", "realprog")
PTXDIR = os.path.join(CORPUS, "ptx")
sys.path.insert(0, HERE)
import inputs as gen  # noqa: E402

# ----------------------------------------------------------------------------- variants

# name -> (ptxas/nvcc arch, extra nvcc flags)
VARIANTS = {
    "sm_80": ("sm_80", []),
    "sm_90": ("sm_90", []),
    "sm_90a": ("sm_90a", []),
    "sm_90.fast": ("sm_90", ["-use_fast_math"]),
    "sm_80.ftz": ("sm_80", ["-ftz=true", "-prec-div=false", "-prec-sqrt=false"]),
    "sm_80.G": ("sm_80", ["-G"]),
    "sm_90.G": ("sm_90", ["-G"]),
    "sm_90a.rdc": ("sm_90a", ["-rdc=true"]),
    "sm_80.rdc": ("sm_80", ["-rdc=true"]),
    "sm_90.lineinfo": ("sm_90", ["-lineinfo"]),
}
BASE = ["sm_80", "sm_90", "sm_90a"]
HOPPER = ["sm_90", "sm_90a"]

# ----------------------------------------------------------------------------- argument DSL


def _buf(g, n, **kw):
    d = {"type": "buf", "gen": g, "n": n}
    d.update({k: (v if isinstance(v, bool) else str(v)) for k, v in kw.items()})
    return d


def F32(n, lo=-1.0, hi=1.0):
    return _buf("f32", n, lo=float(lo), hi=float(hi))


def F64(n, lo=-1.0, hi=1.0):
    return _buf("f64", n, lo=float(lo), hi=float(hi))


def F16(n, lo=-1.0, hi=1.0):
    return _buf("f16", n, lo=float(lo), hi=float(hi))


def BF16(n, lo=-1.0, hi=1.0):
    return _buf("bf16", n, lo=float(lo), hi=float(hi))


def F32E(n, lo, hi, signed=True):
    """sign, exponent uniform in [lo, hi] (unbiased; below -126 gives subnormals), mantissa."""
    return _buf("f32e", n, lo=lo, hi=hi, signed=signed)


def F16E(n, lo, hi, signed=True):
    """F32E values rounded to binary16."""
    return _buf("f16e", n, lo=lo, hi=hi, signed=signed)


def F32S(n, lo, hi, signed=True):
    """F32E with one element in eight a special value: +-0, +-inf, NaNs, the smallest
    subnormal, the largest finite value (inputs.SPECIALS32)."""
    return _buf("f32s", n, lo=lo, hi=hi, signed=signed)


def F16S(n, lo, hi, signed=True):
    """F32S values rounded to binary16."""
    return _buf("f16s", n, lo=lo, hi=hi, signed=signed)


def E4M3(n, lo=4, hi=10):
    """fp8 e4m3 bytes with biased exponent in [lo, hi] (no NaN)."""
    return _buf("e4m3", n, lo=lo, hi=hi)


def E5M2(n, lo=10, hi=20):
    return _buf("e5m2", n, lo=lo, hi=hi)


def U8(n, lo=0, hi=256):
    return _buf("u8", n, lo=lo, hi=hi)


def U32(n, lo=0, hi=1 << 32):
    return _buf("u32", n, lo=lo, hi=hi)


def I32(n, lo=-1000, hi=1000):
    return _buf("i32", n, lo=lo, hi=hi)


def U64(n):
    return _buf("u64", n)


def IOTA(n, start=0, step=1):
    return {"type": "buf", "gen": "iota32", "n": n, "start": str(start), "step": str(step)}


def CONST32(n, value):
    return {"type": "buf", "gen": "const32", "n": n, "value": "0x%08x" % (value & 0xFFFFFFFF)}


def OUT(nbytes):
    """An output buffer, every byte 0xAB before the launch."""
    return {"type": "buf", "gen": "fill", "bytes": nbytes}


def ZERO(nbytes):
    return {"type": "buf", "gen": "zeros", "bytes": nbytes}


def HEX(data):
    return {"type": "buf", "gen": "hex", "hex": data.hex() if isinstance(data, bytes) else data}


def u32(v):
    return {"type": "u32", "value": str(v)}


def i32(v):
    return {"type": "i32", "value": str(v)}


def u64(v):
    return {"type": "u64", "value": str(v)}


def f32(v):
    return {"type": "f32", "value": repr(float(v))}


def f64(v):
    return {"type": "f64", "value": repr(float(v))}


def h16(v):
    """A __half parameter (2 bytes)."""
    return {"type": "u16", "value": str(gen.f32_to_f16_bits(gen.f32_bits(float(v))))}


def dim3(d):
    if isinstance(d, int):
        return [d, 1, 1]
    d = list(d)
    return d + [1] * (3 - len(d))


def K(kernel, grid, block, args, shared=0, cluster=None):
    return {"kernel": kernel, "grid": dim3(grid), "block": dim3(block), "args": args,
            "shared": shared, "cluster": dim3(cluster) if cluster else None}


def S(variants, *kernels):
    return {"variants": variants, "launches": list(kernels)}


# ----------------------------------------------------------------------------- the suite

SUITE = {
    "reduce": S(BASE + ["sm_80.G", "sm_90a.rdc"],
        K("reduce_warp_shfl", 4, 256, [F32(8192), OUT(16), i32(8192)]),
        K("reduce_shared_tree", 8, 256, [F32(4000), OUT(32), i32(4000)]),
        K("reduce_int_atomic", 4, 256, [I32(8192), ZERO(8), i32(8192)]),
        K("reduce_max_atomic", 4, 256, [I32(6000, -2000000000, 2000000000),
                                        CONST32(1, 0x80000000), CONST32(1, 0x7FFFFFFF), ZERO(8),
                                        i32(6000)]),
        K("reduce_cg", 4, 256, [F32(5000, -3, 2), OUT(16), OUT(16), i32(5000)]),
        K("reduce_double_norm", 2, 256, [F64(3000), OUT(16), i32(3000)])),
    "scan": S(BASE + ["sm_80.G"],
        K("scan_warp_inclusive", 4, 256, [I32(1024), OUT(4096), i32(1000)]),
        K("scan_blelloch", 4, 128, [F32(1024), OUT(4096), OUT(16), i32(1000)],
          shared=(256 + 256 // 32) * 4),
        K("scan_add_offsets", 4, 128, [F32(1024), F32(4, -10, 10), i32(1000)]),
        K("scan_cg_block", 2, 256, [U32(512, 0, 1000), OUT(2048), OUT(2048), i32(500)]),
        K("stream_compact", 1, 256, [F32(3000), OUT(12000), OUT(4), f32(0.25), i32(3000)])),
    "sort": S(BASE + ["sm_90.lineinfo"],
        K("bitonic_sort_shared", 2, 256, [U32(1024)], shared=2048),
        K("bitonic_sort_kv", 2, 128, [F32(1024), OUT(4096), OUT(4096)]),
        K("radix_sort_split", 2, 256, [U32(512, 0, 65536), OUT(2048), i32(16)]),
        K("odd_even_sort", 2, 128, [I32(256)]),
        K("merge_sorted", 1, 128, [I32(300, 0, 10), I32(200, 0, 10), OUT(2000), i32(300),
                                   i32(200), i32(4)], shared=2000)),
    "sgemm": S(BASE + ["sm_90.lineinfo"],
        K("sgemm_naive", (3, 3), (16, 16), [F32(48 * 56), F32(56 * 40), F32(48 * 40), i32(48),
                                            i32(40), i32(56), f32(1.5), f32(-0.5)]),
        K("sgemm_tiled16", (4, 3), (16, 16), [F32(40 * 72), F32(72 * 56), OUT(40 * 56 * 4),
                                              i32(40), i32(56), i32(72)]),
        K("sgemm_regblock", (2, 2), 256, [F32(128 * 64), F32(64 * 128), OUT(128 * 128 * 4),
                                          i32(128), i32(128), i32(64)]),
        K("sgemv_warp", 8, 256, [F32(64 * 200), F32(200), OUT(256), i32(64), i32(200)])),
    "hgemm": S(BASE + ["sm_90.lineinfo"],
        K("hgemm_tiled_f32acc", (3, 4), (16, 16), [F16(64 * 64), F16(64 * 48), OUT(64 * 48 * 2),
                                                   i32(64), i32(48), i32(64)]),
        K("hgemm_half2_acc", (2, 2), (16, 16), [F16(32 * 64, -0.5, 0.5), F16(64 * 64),
                                                OUT(32 * 64 * 2), i32(32), i32(64), i32(64)]),
        K("bf16gemm_tiled", (2, 3), (16, 16), [BF16(48 * 64), BF16(64 * 32), OUT(48 * 32 * 2),
                                               OUT(48 * 32 * 4), i32(48), i32(32), i32(64)]),
        K("hgemv_h2", 8, 128, [F16(32 * 256), F16(256), OUT(64), i32(32), i32(256)])),
    "softmax": S(BASE + ["sm_90.fast"],
        K("softmax_warp_row", 8, 128, [F32(3200, -4, 4), OUT(3200 * 4), i32(32), i32(100)]),
        K("softmax_warp_row", 8, 128, [F32S(3200, -8, 3), OUT(3200 * 4), i32(32), i32(100)]),
        K("softmax_online_block", 8, 128, [F32(8000, -8, 8), OUT(8000 * 4), i32(1000)]),
        K("log_softmax_row", 8, 64, [F32(16 * 77, -5, 5), OUT(16 * 77 * 4), i32(16), i32(77)]),
        K("softmax_half2", 4, 128, [F16(2048, -4, 4), OUT(4096), i32(16), i32(128)])),
    "layernorm": S(BASE + ["sm_90.fast", "sm_80.ftz"],
        K("layernorm_fwd", 8, 128, [F32(2400, -2, 3), F32(300, 0.5, 1.5), F32(300, -0.1, 0.1),
                                    OUT(2400 * 4), OUT(32), OUT(32), i32(300), f32(1e-5)]),
        K("rmsnorm_fwd", 8, 128, [F32(2048, -2, 2), F32(256, 0.5, 1.5), OUT(2048 * 4), i32(256),
                                  f32(1e-6)]),
        K("layernorm_bwd_dx", 8, 128, [F32(2400), F32(2400, -2, 3), F32(300, 0.5, 1.5),
                                       F32(8, -0.1, 0.1), F32(8, 0.5, 2), OUT(2400 * 4), i32(300)]),
        K("layernorm_bwd_dgamma", 3, 128, [F32(2400), F32(2400, -2, 3), F32(8, -0.1, 0.1),
                                           F32(8, 0.5, 2), OUT(1200), OUT(1200), i32(8), i32(300)]),
        K("layernorm_fwd_half", 8, 64, [F16(2048, -2, 2), F16(256, 0.5, 1.5), F16(256, -0.1, 0.1),
                                        OUT(4096), i32(256), f32(1e-5)])),
    "rng": S(BASE + ["sm_90.fast"],
        K("philox_uniform", 8, 128, [OUT(1024 * 16), u64(0x0123456789ABCDEF), u64(7), i32(1024)]),
        K("box_muller_normal", 8, 128, [OUT(1024 * 8), u64(0xDEADBEEF12345678), i32(1024)]),
        K("dropout_philox", 4, 128, [F32(2048), OUT(2048 * 4), OUT(2048), f32(0.2),
                                     u64(0x5EED), i32(512)]),
        K("xorshift128_fill", 2, 128, [OUT(256 * 16 * 4), u32(2024), i32(16)]),
        K("pcg32_dice", 4, 128, [OUT(4 * 6 * 4), u64(42), i32(32)])),
    "stencil": S(BASE + ["sm_90.lineinfo"],
        K("stencil1d_r3", 8, 128, [F32(1000), OUT(4000), i32(1000)], shared=(128 + 6) * 4),
        K("jacobi2d_shared", (3, 3), (16, 16), [F32(48 * 40), OUT(48 * 40 * 4), i32(48), i32(40)]),
        K("conv2d_3x3_const", (4, 4), (16, 8), [F32(50 * 30), OUT(50 * 30 * 4), i32(50), i32(30)]),
        K("heat3d_step", (3, 3), (8, 8), [F32(24 * 20 * 10), OUT(24 * 20 * 10 * 4), i32(24),
                                          i32(20), i32(10), f32(0.1)]),
        K("sobel_u8", (4, 3), (16, 16), [U8(64 * 48), OUT(64 * 48), i32(64), i32(48)])),
    "histogram": S(BASE + ["sm_90.lineinfo"],
        K("histogram256_shared", 4, 256, [U8(16384), ZERO(1024), i32(16384)]),
        K("histogram_global", 4, 256, [U32(4096), ZERO(37 * 4), i32(4096), i32(37)]),
        K("histogram_warp_match", 8, 128, [I32(1000, 0, 16), ZERO(64), OUT(4000), i32(1000)]),
        K("histogram_float_bins", 8, 256, [F32(2000, -1.2, 1.2), ZERO(80), OUT(8000), i32(2000),
                                           f32(-1.0), f32(1.0), i32(20)])),
    "cluster": S(HOPPER + ["sm_90.G"],
        K("cluster_reduce_dsmem", 8, 256, [F32(2000), OUT(8), i32(2000)]),
        K("cluster_histogram", 4, 128, [ZERO(64 * 4), I32(2000, -5, 70), i32(64), i32(32),
                                        i32(2000)], shared=32 * 4, cluster=(2, 1, 1)),
        K("cluster_ring_exchange", (4, 2), 128, [I32(8 * 128), OUT(8 * 128 * 4)]),
        K("cluster_stencil_halo", 8, 256, [F32(2000), OUT(8000), i32(2000)], cluster=(4, 1, 1))),
    "hopper": S(HOPPER,
        K("bulk_copy_tx", 2, 128, [I32(2048), i32(17)]),
        K("bulk_copy_expect_tx", 2, 128, [F32(2048), OUT(2 * 512 * 4)]),
        K("cluster_split_barrier", 4, 128, [I32(512), OUT(2048)]),
        K("elect_invoke_one", 2, 128, [I32(256), OUT(1024), ZERO(20)])),
    "pipeline": S(BASE + ["sm_90.G"],
        K("pipeline_tile_sum", 4, 128, [F32(4 * 5 * 128), OUT(4 * 128 * 4), i32(5)],
          shared=3 * 128 * 4),
        K("barrier_memcpy_async", 4, 128, [I32(2048), OUT(8192)]),
        K("pipeline_primitives", 2, 128, [I32(2 * 6 * 128 * 4, -100000, 100000),
                                          OUT(2 * 128 * 16), i32(6)]),
        K("pipeline_sgemm_db", (1, 1), 256, [F32(32 * 64), F32(64 * 32), OUT(32 * 32 * 4),
                                             i32(32), i32(32), i32(64)])),
    "half_math": S(BASE,
        K("half2_axpy", 8, 128, [F16(2048), F16(2048), h16(0.75), i32(1024)]),
        K("half_ops", 4, 128, [F16(512, -4, 4), F16(512, -4, 4), OUT(512 * 9 * 2), OUT(2048),
                               i32(512)]),
        K("half_ops", 4, 128, [F16S(512, -26, 16), F16S(512, -26, 16), OUT(512 * 9 * 2),
                               OUT(2048), i32(512)]),
        K("half2_math", 4, 128, [F16(1024, -6, 6), OUT(512 * 7 * 4), i32(512)]),
        K("half2_math", 4, 128, [F16S(1024, -26, 16), OUT(512 * 7 * 4), i32(512)]),
        K("bf16_ops", 4, 128, [BF16(512, -4, 4), BF16(512, -4, 4), OUT(512 * 8 * 2),
                               OUT(512 * 8), i32(512)]),
        K("half_convert", 8, 128, [F32E(1024, -20, 17), OUT(1024 * 8), OUT(1024 * 16),
                                   OUT(1024 * 4), i32(1024)]),
        K("half_convert", 8, 128, [F32S(1024, -140, 40), OUT(1024 * 8), OUT(1024 * 16),
                                   OUT(1024 * 4), i32(1024)])),
    "fp8": S(BASE,
        K("fp8_e4m3_roundtrip", 8, 128, [F32E(1024, -12, 10), OUT(1024), OUT(4096), i32(1024)]),
        K("fp8_e4m3_roundtrip", 8, 128, [F32S(1024, -12, 10), OUT(1024), OUT(4096), i32(1024)]),
        K("fp8_e5m2_x2", 4, 128, [F16E(1024, -16, 15), OUT(1024), OUT(2048), i32(512)]),
        K("fp8_e5m2_x2", 4, 128, [F16S(1024, -18, 15), OUT(1024), OUT(2048), i32(512)]),
        K("fp8_saturate", 4, 128, [F32E(1024, -20, 20), OUT(512 * 8), i32(512)]),
        K("fp8_saturate", 4, 128, [F32S(1024, -24, 20), OUT(512 * 8), i32(512)]),
        K("fp8_scaled_gemv", 8, 128, [E4M3(32 * 256), E4M3(256), OUT(128), f32(0.125),
                                      f32(0.0625), i32(32), i32(256)])),
    "fastmath": S(BASE + ["sm_90.fast", "sm_80.ftz"],
        K("fast_intrinsics", 4, 128, [F32(512, -4, 4), F32(512, -4, 4), OUT(512 * 14 * 4),
                                      i32(512)]),
        K("fast_intrinsics", 4, 128, [F32S(512, -130, 40), F32S(512, -130, 40),
                                      OUT(512 * 14 * 4), i32(512)]),
        K("libm_under_fast_math", 8, 128, [F32(1024, -10, 10), OUT(1024 * 8 * 4), i32(1024)]),
        K("libm_under_fast_math", 8, 128, [F32S(1024, -130, 40), OUT(1024 * 8 * 4), i32(1024)]),
        K("gelu_silu", 8, 128, [F32(1024, -6, 6), OUT(4096), OUT(4096), OUT(4096), i32(1024)]),
        K("gelu_silu", 8, 128, [F32S(1024, -20, 8), OUT(4096), OUT(4096), OUT(4096),
                                i32(1024)])),
    "libm_float": S(BASE + ["sm_90.fast"],
        K("trig_large_args", 8, 128, [F32E(1024, -4, 30), OUT(1024 * 6 * 4), i32(1024)]),
        K("trig_large_args", 8, 128, [F32S(1024, -140, 127), OUT(1024 * 6 * 4), i32(1024)]),
        K("special_funcs", 4, 128, [F32(512), OUT(512 * 12 * 4), i32(512)]),
        K("special_funcs", 4, 128, [F32S(512, -140, 2), OUT(512 * 12 * 4), i32(512)]),
        K("exp_log_pow", 4, 128, [F32E(512, -30, 30), F32(512, -4, 4), OUT(512 * 10 * 4),
                                  i32(512)]),
        K("exp_log_pow", 4, 128, [F32S(512, -140, 127), F32S(512, -130, 6), OUT(512 * 10 * 4),
                                  i32(512)])),
    "libm_double": S(BASE,
        K("dmath", 2, 128, [F64(256, -3, 3), F64(256, -2, 2), OUT(256 * 12 * 8), i32(256)]),
        K("ddot_norm", 1, 256, [F64(3000), F64(3000), OUT(32), i32(3000)]),
        K("dintrinsics", 2, 128, [F64(256, -100, 100), F64(256, -10, 10), OUT(256 * 8 * 8),
                                  OUT(256 * 16), i32(256)])),
    "bits": S(BASE + ["sm_80.G"],
        K("bit_ops32", 8, 128, [U32(1024), U32(1024), OUT(1024 * 12 * 4), i32(1024)]),
        K("bit_ops64", 4, 128, [U64(512), U64(512), OUT(512 * 8 * 8), i32(512)]),
        K("morton3d", 8, 128, [U32(3072, 0, 1024), OUT(4096), OUT(4096), i32(1024)]),
        K("crc32_chunks", 2, 128, [U8(256 * 64), OUT(1024), i32(64)])),
    "warp_ops": S(BASE + ["sm_80.G"],
        K("warp_vote", 2, 128, [I32(256), OUT(256 * 16)]),
        K("warp_match", 2, 128, [I32(256, 0, 6), OUT(1024), OUT(1024), OUT(1024)]),
        K("warp_shuffles", 2, 128, [F32(256), OUT(256 * 6 * 4)]),
        K("warp_redux", 2, 128, [U32(256), OUT(256 * 6 * 4)])),
    "recursion": S(BASE + ["sm_80.G", "sm_90a.rdc"],
        K("fib_recursive", 2, 128, [U32(256), OUT(1024), i32(256)]),
        K("quicksort_local", 2, 64, [I32(128 * 24, -100, 100), OUT(128 * 24 * 4)]),
        K("ackermann_small", 2, 64, [U32(128), OUT(512), i32(128)]),
        K("tree_sum_recursive", 1, 64, [I32(255, -100, 100), OUT(64 * 8), OUT(256), i32(255),
                                        i32(64)])),
    "atomics": S(BASE + ["sm_80.G", "sm_90a.rdc"],
        K("atomic_cas_float_max", 8, 256, [F32(2048, -100, 100), CONST32(16, 0xFF800000),
                                           i32(2048), i32(16)]),
        K("atomic_int_ops", 4, 256, [I32(1024, -100000, 100000), OUT(28), OUT(20), i32(1024)]),
        K("atomic_scatter_add", 4, 256, [F32(1024), F32(1024), ZERO(8192), OUT(4096), i32(1024)]),
        K("atomic_u64_argmax", 8, 256, [F32(2048, -50, 50),
                                        HEX(bytes(8) + b"\xff" * 8 + bytes(16)), i32(2048)]),
        K("atomic_ref_libcu", 8, 128, [I32(1000), HEX("0000000000000080ffffff7f00000000"),
                                       i32(1000)])),
    "grid_stride": S(BASE,
        K("saxpy_grid_stride", 4, 128, [f32(2.5), F32(5000), F32(5000), i32(5000)]),
        K("vec_add_float4", 2, 128, [F32(4000), F32(4000), OUT(16000), i32(1000)]),
        K("transpose_padded", (3, 2), (32, 8), [F32(70 * 40), OUT(70 * 40 * 4), i32(70), i32(40)]),
        K("dyn_smem_reverse", 4, 256, [I32(1024), OUT(4096)], shared=1024),
        K("dyn_smem_large", 1, 256, [F32(12800), OUT(12800 * 4), OUT(256), i32(12800)],
          shared=12800 * 4 + 256)),
    "cg_groups": S(BASE + ["sm_80.G"],
        K("cg_tile16_reduce", 2, 128, [I32(256), OUT(32 * 4)]),
        K("cg_dynamic_tiles", 2, 128, [F32(256), OUT(256 * 12)]),
        K("cg_coalesced", 2, 128, [I32(256, 0, 1000), OUT(256 * 12)]),
        K("cg_partitions", 2, 128, [I32(256, -50, 50), OUT(256 * 16)]),
        K("cg_tile_scans", 2, 128, [U32(256), OUT(256 * 12)])),
    "nbody": S(BASE + ["sm_90.fast", "sm_80.ftz"],
        K("nbody_forces", 2, 128, [F32(1024), OUT(256 * 12), i32(256), f32(0.01)],
          shared=128 * 16),
        K("nbody_integrate", 2, 128, [F32(1024), F32(1024, -0.1, 0.1), F32(768), f32(0.01),
                                      f32(0.995), i32(256)]),
        K("nbody_forces_f64", 2, 64, [F64(512), OUT(128 * 24), i32(128), f64(0.01)])),
    "finance": S(BASE + ["sm_90.fast"],
        K("black_scholes", 4, 128, [OUT(4096), OUT(4096), F32(1024, 5, 30), F32(1024, 1, 100),
                                    F32(1024, 0.25, 10), f32(0.02), f32(0.30), i32(1024)]),
        K("monte_carlo_call", 2, 256, [OUT(8), f32(100.0), f32(105.0), f32(0.05), f32(0.2),
                                       f32(1.0), i32(16), u32(1234)]),
        K("binomial_option", 4, 128, [F32(4, 20, 40), F32(4, 20, 40), F32(4, 0.5, 2), OUT(16),
                                      f32(0.03), f32(0.25), i32(128)])),
    "spmv": S(BASE,
        K("spmv_csr_scalar", 2, 128, [IOTA(257, 0, 8), I32(2048, 0, 300), F32(2048), F32(300),
                                      OUT(1024), i32(256), i32(300)]),
        K("spmv_csr_vector", 16, 128, [IOTA(65, 0, 40), I32(2560, 0, 300), F32(2560), F32(300),
                                       OUT(256), i32(64), i32(300)]),
        K("spmv_ell", 2, 128, [I32(1536, -1, 300), F32(1536), F32(300), OUT(1024), i32(256),
                               i32(6), i32(300)])),
    "imgproc": S(BASE + ["sm_80.ftz"],
        K("mandelbrot", (4, 3), (16, 16), [OUT(64 * 48), i32(64), i32(48), i32(64), f32(-2.0),
                                           f32(-1.125), f32(0.046875)]),
        K("rgba_to_grey", 8, 256, [U8(8192), OUT(2048), OUT(8192), i32(2048)]),
        K("gaussian_row", (1, 16), 128, [F32(1600), OUT(6400), i32(100), i32(16)]),
        K("bilinear_resize", (4, 3), (16, 16), [F32(32 * 24), OUT(50 * 37 * 4), i32(32), i32(24),
                                                i32(50), i32(37)])),
    "cub_block": S(BASE + ["sm_90a.rdc"],
        K("cub_block_reduce", 2, 128, [I32(1024, -100000, 100000), OUT(16)]),
        K("cub_block_scan", 2, 128, [F32(512), OUT(2048), OUT(2048), OUT(8)]),
        K("cub_block_radix_sort", 2, 128, [U32(1024), IOTA(1024), OUT(4096), OUT(4096)]),
        K("cub_warp_reduce", 2, 128, [F32(256), OUT(64)]),
        K("cub_load_store_transpose", 2, 128, [I32(1024), OUT(4096)]),
        K("cub_block_histogram", 2, 128, [U8(1024), OUT(2048)])),
    "rdc_funcs": S(BASE + ["sm_90a.rdc", "sm_80.rdc", "sm_80.G"],
        K("rdc_poly_eval", 8, 128, [F32(1000, -2, 2), OUT(4000), i32(1000)]),
        K("rdc_call_chain", 4, 128, [I32(512, -100000, 100000), OUT(2048), OUT(2048), OUT(4096),
                                     i32(512)]),
        K("rdc_indirect_calls", 4, 128, [F32(512, -3, 3), U32(512), OUT(2048), i32(512)])),
    "libcupp": S(BASE + ["sm_90a.rdc"],
        K("complex_iterate", 4, 128, [F32(1024, -2, 2), OUT(512 * 24), i32(512), i32(12)]),
        K("bit_utils", 4, 128, [U32(512), OUT(512 * 32), i32(512)]),
        K("array_sort_network", 2, 64, [F32(2048), OUT(8192), OUT(1024)])),
    "attention": S(BASE + ["sm_90.fast"],
        K("attention_naive", 64, 64, [F32(64 * 32), F32(64 * 32), F32(64 * 32), OUT(64 * 32 * 4),
                                      i32(64), i32(32), f32(0.17677669529663687)],
          shared=(32 + 64) * 4),
        K("flash_decode_half", 4, 128, [F16(16 * 64), F16(100 * 64), F16(100 * 64), OUT(16 * 128),
                                        i32(16), i32(100), f32(0.125)]),
        K("rope_rotary", 8, 128, [F32(32 * 64), i32(32), i32(64), f32(10000.0)])),
    "quant": S(BASE,
        K("quantize_int8_rows", 8, 128, [F32(4000, -3, 3), OUT(4000), OUT(32), i32(500)]),
        K("quantize_int8_rows", 8, 128, [F32S(4000, -10, 3), OUT(4000), OUT(32), i32(500)]),
        K("int8_gemv_dp4a", 8, 128, [U32(32 * 64), U32(64), OUT(128), OUT(128), i32(32),
                                     i32(64)]),
        K("dequant_int4", 4, 128, [U32(512), F16(128, 0.01, 0.1), OUT(512 * 16), i32(512)])),
}

# ----------------------------------------------------------------------------- table


def module_name(src, variant):
    return "%s.%s" % (src, variant)


def ptx_path(module):
    return os.path.join(PTXDIR, module + ".ptx.xz")


def read_ptx(module):
    with open(ptx_path(module), "rb") as f:
        return lzma.decompress(f.read())


def launches_of(src, spec, variant):
    """The launches of one module, ids and seeds included."""
    out = []
    counts = {}
    for k in spec["launches"]:
        counts[k["kernel"]] = counts.get(k["kernel"], 0) + 1
    seen = {}
    for k in spec["launches"]:
        idx = seen.get(k["kernel"], 0)
        seen[k["kernel"]] = idx + 1
        lid = "%s/%s" % (module_name(src, variant), k["kernel"])
        if counts[k["kernel"]] > 1:
            lid += "#%d" % idx
        args = []
        for j, a in enumerate(k["args"]):
            a = dict(a)
            if a["type"] == "buf" and a["gen"] not in ("fill", "zeros", "hex", "iota32", "const32"):
                a["seed"] = "%016x" % gen.fnv1a64("%s/%s#%d/%d" % (src, k["kernel"], idx, j))
            args.append(a)
        out.append({"id": lid, "module": module_name(src, variant), "entry": k["kernel"],
                    "grid": k["grid"], "block": k["block"], "cluster": k["cluster"],
                    "shared": k["shared"], "args": args})
    return out


def triton_table():
    path = os.path.join(CORPUS, "triton.json")
    if not os.path.exists(path):
        return {}, []
    with open(path) as f:
        t = json.load(f)
    return t["modules"], t["launches"]


def export():
    modules, launches = {}, []
    for src, spec in SUITE.items():
        for v in spec["variants"]:
            m = module_name(src, v)
            if not os.path.exists(ptx_path(m)):
                sys.exit("%s is missing: run `suite.py build`" % ptx_path(m))
            modules[m] = {"ptx": "ptx/%s.ptx.xz" % m,
                          "sha256": hashlib.sha256(read_ptx(m)).hexdigest()}
            launches += launches_of(src, spec, v)
    tm, tl = triton_table()
    for m, d in tm.items():
        modules[m] = {"ptx": d["ptx"],
                      "sha256": hashlib.sha256(lzma.decompress(
                          open(os.path.join(CORPUS, d["ptx"]), "rb").read())).hexdigest()}
    launches += tl
    ids = [l["id"] for l in launches]
    assert len(ids) == len(set(ids)), "duplicate launch ids"
    table = {"format": 1, "modules": modules, "launches": launches}
    with open(os.path.join(CORPUS, "launches.json"), "w") as f:
        json.dump(table, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("launches.json: %d modules, %d launches" % (len(modules), len(launches)))


# ----------------------------------------------------------------------------- build


def cuda_home():
    nvcc = subprocess.run(["which", "nvcc"], capture_output=True, text=True).stdout.strip()
    if not nvcc:
        sys.exit("nvcc not on PATH (tools/realprog/cuda_local.sh installs CUDA 13.0 from PyPI)")
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def normalise(ptx, home):
    """Absolute paths in .file directives (-G, -lineinfo) become stable ones."""
    ptx = ptx.replace(SRC + "/", "tools/realprog/src/")
    return re.sub(re.escape(home.rstrip("/")) + r"[^\"]*/include/", "/usr/local/cuda/include/",
                  ptx)


def compile_one(src, variant, home, tmp):
    arch, flags = VARIANTS[variant]
    m = module_name(src, variant)
    out = os.path.join(tmp, m + ".ptx")
    cmd = ["nvcc", "-arch=" + arch, "-ptx", "-std=c++17"] + flags + \
        [os.path.join(SRC, src + ".cu"), "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return m, "nvcc failed: %s\n%s" % (" ".join(cmd), r.stderr)
    ptx = normalise(open(out).read(), home)
    with open(out, "w") as f:
        f.write(ptx)
    r = subprocess.run(["ptxas", "-arch=" + arch, out, "-o", os.devnull], capture_output=True,
                       text=True)
    if r.returncode:
        return m, "ptxas -arch=%s rejects %s:\n%s" % (arch, m, r.stderr)
    data = lzma.compress(ptx.encode(), preset=9 | lzma.PRESET_EXTREME)
    with open(ptx_path(m), "wb") as f:
        f.write(data)
    return m, None


def build(only=None):
    from concurrent.futures import ThreadPoolExecutor
    home = cuda_home()
    os.makedirs(PTXDIR, exist_ok=True)
    jobs = [(s, v) for s, spec in SUITE.items() for v in spec["variants"]
            if not only or s in only]
    wanted = {module_name(s, v) + ".ptx.xz" for s, spec in SUITE.items()
              for v in spec["variants"]}
    errors = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for m, err in ex.map(lambda j: compile_one(j[0], j[1], home, tmp), jobs):
            print("built" if not err else "FAILED", m, flush=True)
            if err:
                errors.append(err)
    if errors:
        sys.exit("\n".join(errors))
    if not only:
        for f in os.listdir(PTXDIR):
            if f.endswith(".ptx.xz") and not f.startswith("triton_") and f not in wanted:
                os.remove(os.path.join(PTXDIR, f))
                print("removed stale", f)
    export()


def listing():
    srcs = len(SUITE)
    entries = sum(len({k["kernel"] for k in s["launches"]}) for s in SUITE.values())
    mods = sum(len(s["variants"]) for s in SUITE.values())
    launches = sum(len(s["launches"]) * len(s["variants"]) for s in SUITE.values())
    tm, tl = triton_table()
    print("CUDA: %d sources, %d kernel entries, %d modules, %d launches" %
          (srcs, entries, mods, launches))
    print("Triton: %d modules, %d launches" % (len(tm), len(tl)))
    total = 0
    for root, _, files in os.walk(CORPUS):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    print("corpus/realprog: %d bytes" % total)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else "list"
    if cmd == "build":
        build(sys.argv[2:] or None)
    elif cmd == "export":
        export()
    elif cmd == "list":
        listing()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
