#!/usr/bin/env python3
"""The Triton part of the real-program suite: kernels in the style of the Triton tutorials and
of the kernels TorchInductor and inference engines run (softmax, layer norm forward and
backward, seeded dropout, fused attention forward and backward, split-K and fp8 matmuls, fused
epilogues, reductions, scans), compiled ahead of time for sm_90a.

    python3 tools/realprog/triton_suite.py build      # needs `triton` (3.6), no GPU
    python3 tools/realprog/triton_suite.py list

`build` compiles every kernel with triton.compile(ASTSource(...), target=GPUTarget("cuda", 90,
32)) -- no driver is needed for that -- and writes its PTX to
corpus/realprog/ptx/triton_NAME.sm_90a.ptx.xz and the modules and launches to
corpus/realprog/triton.json, then re-exports corpus/realprog/launches.json (suite.py), so the
GPU machine runs these launches with record.py like the CUDA ones. Pass `--corpus DIR` to
write elsewhere (for instance $OUT on a machine whose Triton is to be used instead).

Launch parameters: the kernel's own arguments, then the trailing pointer parameters Triton 3.x
appends (global scratch, profile scratch), given 0 -- or a zero-filled buffer when a kernel
asks for global scratch. The block is 32 * num_warps threads, the dynamic shared memory
`metadata.shared` bytes. Pointer arguments are specialised as 16-byte aligned and integer
arguments divisible by 16 as such, as Triton's launcher does for the same values.
"""

import argparse
import json
import lzma
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import suite  # noqa: E402
from suite import F16, F32, I32, E4M3, OUT, ZERO, f32, i32, u32  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

VARIANT = "sm_90a"


# ============================================================================== kernels


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # Tutorial 02: persistent programs, one row at a time.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # Tutorial 05: a row per program, columns in blocks.
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_bwd_dx(DX, DY, X, W, Mean, Rstd, stride, N, BLOCK_SIZE_N: tl.constexpr):
    # The dx part of tutorial 05's backward (its dW/dB accumulation under a spin lock is left
    # out: the order the programs take the lock in changes the float sums).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx.to(DX.dtype.element_ty), mask=mask)


@triton.jit
def fused_add_rmsnorm(X, R, W, Y, N, eps, BLOCK_SIZE: tl.constexpr):
    # residual += x; y = rmsnorm(residual) * w (fp16 in and out, fp32 math).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=0.).to(tl.float32)
    r = tl.load(R + row * N + cols, mask=mask, other=0.).to(tl.float32)
    h = x + r
    tl.store(R + row * N + cols, h.to(tl.float16), mask=mask)
    ms = tl.sum(h * h, axis=0) / N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    y = h * tl.math.rsqrt(ms + eps) * w
    tl.store(Y + row * N + cols, y.to(tl.float16), mask=mask)


@triton.jit
def seeded_dropout(x_ptr, output_ptr, mask_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # Tutorial 04: Philox through tl.rand.
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)
    tl.store(mask_ptr + offsets, x_keep.to(tl.int8), mask=mask)


@triton.jit
def randn_randint(out_ptr, bits_ptr, n_elements, seed, BLOCK_SIZE: tl.constexpr):
    # tl.randn (Box-Muller on Philox) and the raw Philox words of tl.randint4x.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    z = tl.randn(seed, offsets)
    r0, r1, r2, r3 = tl.randint4x(seed, offsets)
    tl.store(out_ptr + offsets, z, mask=mask)
    tl.store(bits_ptr + offsets, r0 ^ (r1 << 1) ^ (r2 >> 3) ^ r3, mask=mask)


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m: tl.constexpr, offs_n: tl.constexpr,
                    N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    K_block_ptr = tl.advance(K_block_ptr, (0, lo))
    V_block_ptr = tl.advance(V_block_ptr, (lo, 0))
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(K_block_ptr)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, sm_scale, M, Out, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    # Tutorial 06 (block pointers): Q, K, V, Out are [Z*H, N_CTX, HEAD_DIM] fp16; M gets the
    # row log-sum-exp (base 2) for the backward pass. STAGE 3: causal, 1: not.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    qvk_offset = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    Q_block_ptr = tl.make_block_ptr(base=Q + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                    strides=(HEAD_DIM, 1), offsets=(start_m * BLOCK_M, 0),
                                    block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(base=V + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                    strides=(HEAD_DIM, 1), offsets=(0, 0),
                                    block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(base=K + qvk_offset, shape=(HEAD_DIM, N_CTX),
                                    strides=(1, HEAD_DIM), offsets=(0, 0),
                                    block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    O_block_ptr = tl.make_block_ptr(base=Out + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                    strides=(HEAD_DIM, 1), offsets=(start_m * BLOCK_M, 0),
                                    block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q_block_ptr)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m,
                                        qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m,
                                        offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m,
                                        qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n,
                                        N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i)
    tl.store(O_block_ptr, acc.to(Out.type.element_ty))


@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM +
                 off_n[None, :]).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    tl.store(Delta + off_hz * N_CTX + off_m, delta)


@triton.jit
def attn_bwd_dkdv(Q, K, V, sm_scale, DO, DK, DV, M, D, N_CTX, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Tutorial 06's _attn_bwd_dkdv (non-causal): a block of keys per program, all the queries
    # in blocks; P is recomputed from M (log-sum-exp, base 2), dS from Delta.
    pid = tl.program_id(0)
    off_hz = tl.program_id(1)
    adj = (off_hz * N_CTX * HEAD_DIM).to(tl.int64)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DK += adj
    DV += adj
    M += off_hz * N_CTX
    D += off_hz * N_CTX
    offs_k = tl.arange(0, HEAD_DIM)
    start_n = pid * BLOCK_N
    offs_n = start_n + tl.arange(0, BLOCK_N)
    k = tl.load(K + offs_n[:, None] * HEAD_DIM + offs_k[None, :])
    v = tl.load(V + offs_n[:, None] * HEAD_DIM + offs_k[None, :])
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    RCP_LN2: tl.constexpr = 1.4426950408889634
    for start_m in range(0, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qT = tl.load(Q + offs_m[None, :] * HEAD_DIM + offs_k[:, None])
        m = tl.load(M + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT * (sm_scale * RCP_LN2) - m[None, :])
        do = tl.load(DO + offs_m[:, None] * HEAD_DIM + offs_k[None, :])
        ppT = pT.to(tl.float16)
        dv += tl.dot(ppT, do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dsT = dsT.to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
    dk *= sm_scale
    tl.store(DV + offs_n[:, None] * HEAD_DIM + offs_k[None, :], dv.to(tl.float16))
    tl.store(DK + offs_n[:, None] * HEAD_DIM + offs_k[None, :], dk.to(tl.float16))


@triton.jit
def attn_bwd_dq(Q, K, V, sm_scale, DO, DQ, M, D, N_CTX, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Tutorial 06's _attn_bwd_dq (non-causal): a block of queries per program.
    LN2: tl.constexpr = 0.6931471824645996
    RCP_LN2: tl.constexpr = 1.4426950408889634
    pid = tl.program_id(0)
    off_hz = tl.program_id(1)
    adj = (off_hz * N_CTX * HEAD_DIM).to(tl.int64)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    M += off_hz * N_CTX
    D += off_hz * N_CTX
    offs_k = tl.arange(0, HEAD_DIM)
    start_m = pid * BLOCK_M
    offs_m = start_m + tl.arange(0, BLOCK_M)
    q = tl.load(Q + offs_m[:, None] * HEAD_DIM + offs_k[None, :])
    do = tl.load(DO + offs_m[:, None] * HEAD_DIM + offs_k[None, :])
    m = tl.load(M + offs_m)[:, None]
    Di = tl.load(D + offs_m)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kT = tl.load(K + offs_n[None, :] * HEAD_DIM + offs_k[:, None])
        vT = tl.load(V + offs_n[None, :] * HEAD_DIM + offs_k[:, None])
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk * (sm_scale * RCP_LN2) - m)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        ds = ds.to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
    dq *= LN2 * RCP_LN2 * sm_scale
    tl.store(DQ + offs_m[:, None] * HEAD_DIM + offs_k[None, :], dq.to(tl.float16))


@triton.jit
def matmul_splitk(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  SPLIT_K: tl.constexpr):
    # Split-K: program (m, n, k) multiplies a K/SPLIT_K slice and writes its fp32 partial tile
    # to c_ptr[k] (summed by splitk_reduce: atomics would make the sum order-dependent).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K) - pid_k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_remaining, other=0.)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_remaining, other=0.)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c = c_ptr + pid_k * M * N + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def splitk_reduce(partial_ptr, c_ptr, MN, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLIT_K):
        acc += tl.load(partial_ptr + s * MN + offs, mask=mask, other=0.)
    tl.store(c_ptr + offs, acc.to(tl.float16), mask=mask)


@triton.jit
def matmul_fp8(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
               stride_cm, stride_cn, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # Tutorial 03's grouped-order matmul on e4m3 inputs (fp32 accumulation), scaled, fp16 out.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = (accumulator * scale).to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_bias_gelu(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # fp16 matmul with a fused epilogue: + bias, exact GELU (erf), fp16 out.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k0 + offs_k)[None, :])
        b = tl.load(b_ptr + (k0 + offs_k)[:, None] * N + offs_n[None, :])
        acc = tl.dot(a, b, acc)
    acc += tl.load(bias_ptr + offs_n)[None, :]
    y = 0.5 * acc * (1.0 + tl.erf(acc * 0.7071067811865476))
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], y.to(tl.float16))


@triton.jit
def row_reductions(x_ptr, sum_ptr, max_ptr, argmax_ptr, min_ptr, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    xm = tl.where(mask, x, -float("inf"))
    tl.store(max_ptr + row, tl.max(xm, axis=0))
    tl.store(argmax_ptr + row, tl.argmax(xm, axis=0))
    tl.store(min_ptr + row, tl.min(tl.where(mask, x, float("inf")), axis=0))


@triton.jit
def cumsum_rows(x_ptr, y_ptr, z_ptr, n_cols, BLOCK: tl.constexpr):
    # tl.cumsum (fp32 and int32) and tl.cumprod along each row.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, tl.cumsum(x, axis=0), mask=mask)
    xi = (x * 100.0).to(tl.int32)
    tl.store(z_ptr + 2 * (row * n_cols + cols), tl.cumsum(xi, axis=0).to(tl.float32), mask=mask)
    tl.store(z_ptr + 2 * (row * n_cols + cols) + 1,
             tl.cumprod(1.0 + 0.01 * x, axis=0), mask=mask)


@triton.jit
def _recurrence_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence(a_ptr, b_ptr, h_ptr, n_cols, BLOCK: tl.constexpr):
    # h_t = a_t * h_{t-1} + b_t along each row, as one tl.associative_scan (the core of
    # linear-attention and state-space-model kernels).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * n_cols + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + row * n_cols + cols, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_recurrence_combine)
    tl.store(h_ptr + row * n_cols + cols, h, mask=mask)


@triton.jit
def cross_entropy_fwd(logits_ptr, labels_ptr, loss_ptr, lse_ptr, n_cols, BLOCK: tl.constexpr):
    # Per-row cross entropy with a log-sum-exp in fp32 over bf16 logits.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    logits = tl.load(logits_ptr + row * n_cols + cols, mask=mask,
                     other=-float("inf")).to(tl.float32)
    label = tl.load(labels_ptr + row)
    m = tl.max(logits, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(logits - m), axis=0))
    target = tl.sum(tl.where(cols == label, logits, 0.0), axis=0)
    tl.store(loss_ptr + row, lse - target)
    tl.store(lse_ptr + row, lse)


# ============================================================================== launches


def T(name, fn, signature, constexprs, num_warps, grid, args, num_stages=3):
    """A Triton kernel: signature maps each argument to its Triton type; `args` are the
    launch's arguments in suite.py's notation (scalars must agree with the signature)."""
    return {"name": name, "fn": fn, "signature": signature, "constexprs": constexprs,
            "num_warps": num_warps, "num_stages": num_stages, "grid": suite.dim3(grid),
            "args": args}


def kernels():
    R, C = 64, 200
    Z, NCTX, HD = 2, 128, 64
    sig_attn_bwd = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32",
                    "DO": "*fp16"}
    out = [
        T("softmax", softmax_kernel,
          {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
           "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32",
           "BLOCK_SIZE": "constexpr", "num_stages": "constexpr"},
          {"BLOCK_SIZE": 256, "num_stages": 2}, 4, 8,
          [OUT(R * C * 4), F32(R * C, -5, 5), i32(C), i32(C), i32(R), i32(C)]),
        T("layer_norm_fwd", layer_norm_fwd,
          {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32",
           "Rstd": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32",
           "BLOCK_SIZE": "constexpr"},
          {"BLOCK_SIZE": 128}, 4, 16,
          [F32(16 * 300, -2, 3), OUT(16 * 300 * 4), F32(300, 0.5, 1.5), F32(300, -0.1, 0.1),
           OUT(64), OUT(64), i32(300), i32(300), f32(1e-5)]),
        T("layer_norm_bwd_dx", layer_norm_bwd_dx,
          {"DX": "*fp16", "DY": "*fp16", "X": "*fp16", "W": "*fp16", "Mean": "*fp32",
           "Rstd": "*fp32", "stride": "i32", "N": "i32", "BLOCK_SIZE_N": "constexpr"},
          {"BLOCK_SIZE_N": 512}, 4, 16,
          [OUT(16 * 300 * 2), F16(16 * 300), F16(16 * 300, -2, 3), F16(300, 0.5, 1.5),
           F32(16, -0.1, 0.1), F32(16, 0.5, 2), i32(300), i32(300)]),
        T("fused_add_rmsnorm", fused_add_rmsnorm,
          {"X": "*fp16", "R": "*fp16", "W": "*fp16", "Y": "*fp16", "N": "i32", "eps": "fp32",
           "BLOCK_SIZE": "constexpr"},
          {"BLOCK_SIZE": 512}, 4, 16,
          [F16(16 * 384), F16(16 * 384), F16(384, 0.5, 1.5), OUT(16 * 384 * 2), i32(384),
           f32(1e-6)]),
        T("seeded_dropout", seeded_dropout,
          {"x_ptr": "*fp32", "output_ptr": "*fp32", "mask_ptr": "*i8", "n_elements": "i32",
           "p": "fp32", "seed": "i32", "BLOCK_SIZE": "constexpr"},
          {"BLOCK_SIZE": 1024}, 4, 4,
          [F32(4000), OUT(16000), OUT(4000), i32(4000), f32(0.3), i32(20260)]),
        T("randn", randn_randint,
          {"out_ptr": "*fp32", "bits_ptr": "*u32", "n_elements": "i32", "seed": "i32",
           "BLOCK_SIZE": "constexpr"},
          {"BLOCK_SIZE": 512}, 4, 4, [OUT(2000 * 4), OUT(2000 * 4), i32(2000), i32(77)]),
        T("attn_fwd", attn_fwd,
          {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32",
           "Out": "*fp16", "N_CTX": "constexpr", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr",
           "BLOCK_N": "constexpr", "STAGE": "constexpr"},
          {"N_CTX": NCTX, "HEAD_DIM": HD, "BLOCK_M": 64, "BLOCK_N": 32, "STAGE": 3}, 4,
          (NCTX // 64, Z),
          [F16(Z * NCTX * HD), F16(Z * NCTX * HD), F16(Z * NCTX * HD), f32(0.125),
           OUT(Z * NCTX * 4), OUT(Z * NCTX * HD * 2)]),
        T("attn_fwd_noncausal", attn_fwd,
          {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32",
           "Out": "*fp16", "N_CTX": "constexpr", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr",
           "BLOCK_N": "constexpr", "STAGE": "constexpr"},
          {"N_CTX": NCTX, "HEAD_DIM": HD, "BLOCK_M": 64, "BLOCK_N": 64, "STAGE": 1}, 4,
          (NCTX // 64, Z),
          [F16(Z * NCTX * HD), F16(Z * NCTX * HD), F16(Z * NCTX * HD), f32(0.125),
           OUT(Z * NCTX * 4), OUT(Z * NCTX * HD * 2)]),
        T("attn_bwd_preprocess", attn_bwd_preprocess,
          {"O": "*fp16", "DO": "*fp16", "Delta": "*fp32", "N_CTX": "i32", "BLOCK_M": "constexpr",
           "HEAD_DIM": "constexpr"},
          {"BLOCK_M": 64, "HEAD_DIM": HD}, 4, (NCTX // 64, Z),
          [F16(Z * NCTX * HD), F16(Z * NCTX * HD), OUT(Z * NCTX * 4), i32(NCTX)]),
        T("attn_bwd_dkdv", attn_bwd_dkdv,
          dict(sig_attn_bwd, DK="*fp16", DV="*fp16", M="*fp32", D="*fp32", N_CTX="i32",
               BLOCK_M="constexpr", BLOCK_N="constexpr", HEAD_DIM="constexpr"),
          {"BLOCK_M": 32, "BLOCK_N": 64, "HEAD_DIM": HD}, 4, (NCTX // 64, Z),
          [F16(Z * NCTX * HD), F16(Z * NCTX * HD), F16(Z * NCTX * HD), f32(0.125),
           F16(Z * NCTX * HD), OUT(Z * NCTX * HD * 2), OUT(Z * NCTX * HD * 2),
           F32(Z * NCTX, 6.5, 7.5), F32(Z * NCTX, -0.05, 0.05), i32(NCTX)]),
        T("attn_bwd_dq", attn_bwd_dq,
          dict(sig_attn_bwd, DQ="*fp16", M="*fp32", D="*fp32", N_CTX="i32",
               BLOCK_M="constexpr", BLOCK_N="constexpr", HEAD_DIM="constexpr"),
          {"BLOCK_M": 64, "BLOCK_N": 32, "HEAD_DIM": HD}, 4, (NCTX // 64, Z),
          [F16(Z * NCTX * HD), F16(Z * NCTX * HD), F16(Z * NCTX * HD), f32(0.125),
           F16(Z * NCTX * HD), OUT(Z * NCTX * HD * 2), F32(Z * NCTX, 6.5, 7.5),
           F32(Z * NCTX, -0.05, 0.05), i32(NCTX)]),
        T("matmul_splitk", matmul_splitk,
          {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32",
           "stride_bn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr", "SPLIT_K": "constexpr"},
          {"stride_ak": 1, "stride_bn": 1, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32,
           "SPLIT_K": 4}, 4, (1, 2, 4),
          [F16(64 * 512), F16(512 * 128), OUT(4 * 64 * 128 * 4), i32(64), i32(128), i32(512),
           i32(512), i32(128)]),
        T("splitk_reduce", splitk_reduce,
          {"partial_ptr": "*fp32", "c_ptr": "*fp16", "MN": "i32", "SPLIT_K": "constexpr",
           "BLOCK": "constexpr"},
          {"SPLIT_K": 4, "BLOCK": 1024}, 4, 8,
          [F32(4 * 64 * 128, -4, 4), OUT(64 * 128 * 2), i32(64 * 128)]),
        T("matmul_fp8", matmul_fp8,
          {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32",
           "stride_bn": "constexpr", "stride_cm": "i32", "stride_cn": "constexpr",
           "scale": "fp32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr", "GROUP_M": "constexpr"},
          {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": 64, "BLOCK_N": 64,
           "BLOCK_K": 64, "GROUP_M": 2}, 4, 4,
          [E4M3(128 * 256, 4, 8), E4M3(256 * 128, 4, 8), OUT(128 * 128 * 2), i32(128),
           i32(128), i32(256), i32(256), i32(128), i32(128), f32(0.0625)]),
        T("matmul_bias_gelu", matmul_bias_gelu,
          {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp32", "c_ptr": "*fp16",
           "M": "i32", "N": "i32", "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr"},
          {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, 4, (2, 2),
          [F16(128 * 128), F16(128 * 128), F32(128, -0.5, 0.5), OUT(128 * 128 * 2), i32(128),
           i32(128), i32(128)]),
        T("row_reductions", row_reductions,
          {"x_ptr": "*fp32", "sum_ptr": "*fp32", "max_ptr": "*fp32", "argmax_ptr": "*i32",
           "min_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
          {"BLOCK": 512}, 4, 32,
          [F32(32 * 500, -10, 10), OUT(128), OUT(128), OUT(128), OUT(128), i32(500)]),
        T("cumsum_rows", cumsum_rows,
          {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n_cols": "i32",
           "BLOCK": "constexpr"},
          {"BLOCK": 256}, 4, 16,
          [F32(16 * 250), OUT(16 * 250 * 4), OUT(16 * 250 * 8), i32(250)]),
        T("linear_recurrence", linear_recurrence,
          {"a_ptr": "*fp32", "b_ptr": "*fp32", "h_ptr": "*fp32", "n_cols": "i32",
           "BLOCK": "constexpr"},
          {"BLOCK": 512}, 4, 16,
          [F32(16 * 400, 0.8, 1.0), F32(16 * 400), OUT(16 * 400 * 4), i32(400)]),
        T("cross_entropy_fwd", cross_entropy_fwd,
          {"logits_ptr": "*bf16", "labels_ptr": "*i32", "loss_ptr": "*fp32", "lse_ptr": "*fp32",
           "n_cols": "i32", "BLOCK": "constexpr"},
          {"BLOCK": 1024}, 4, 16,
          [suite.BF16(16 * 1000, -4, 4), I32(16, 0, 1000), OUT(64), OUT(64), i32(1000)]),
    ]
    return out


# ============================================================================== build


def entry_params(ptx, name):
    m = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(name), ptx, re.S)
    return len(re.findall(r"\.param\b", m.group(1))) if m else 0


def compile_kernel(k):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    attrs = {}
    names = list(k["signature"].keys())
    vals = iter(k["args"])
    for i, n in enumerate(names):
        t = k["signature"][n]
        if t == "constexpr":
            continue
        a = next(vals)
        if t.startswith("*") or (t.startswith("i") and int(a["value"]) % 16 == 0):
            attrs[(i,)] = [["tt.divisibility", 16]]
    src = ASTSource(fn=k["fn"], signature=k["signature"], constexprs=k["constexprs"],
                    attrs=attrs)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": k["num_warps"], "num_stages": k["num_stages"]})
    return c.asm["ptx"], c.metadata


def normalise(ptx):
    """Absolute paths in .file directives become stable ones: this script's folder
    `tools/realprog/`, Triton's own sources `triton/`."""
    ptx = ptx.replace(HERE + "/", "tools/realprog/")
    return ptx.replace(os.path.dirname(os.path.abspath(triton.__file__)) + "/", "triton/")


def build(corpus):
    ptxdir = os.path.join(corpus, "ptx")
    os.makedirs(ptxdir, exist_ok=True)
    modules, launches = {}, []
    for k in kernels():
        ptx, md = compile_kernel(k)
        ptx = normalise(ptx)
        entry = md.name
        mod = "triton_%s.%s" % (k["name"], VARIANT)
        rel = "ptx/%s.ptx.xz" % mod
        with open(os.path.join(corpus, rel), "wb") as f:
            f.write(lzma.compress(ptx.encode(), preset=9 | lzma.PRESET_EXTREME))
        args = []
        for j, a in enumerate(k["args"]):
            a = dict(a)
            if a["type"] == "buf" and a["gen"] not in ("fill", "zeros", "hex", "iota32",
                                                       "const32"):
                a["seed"] = "%016x" % suite.gen.fnv1a64("triton_%s/%s#0/%d" % (k["name"], entry, j))
            args.append(a)
        nparams = entry_params(ptx, entry)
        grid = k["grid"]
        extra = nparams - len(args)
        if extra < 0:
            sys.exit("%s: %d arguments for %d parameters" % (k["name"], len(args), nparams))
        for e in range(extra):
            if e == 0 and md.global_scratch_size:
                n = md.global_scratch_size * grid[0] * grid[1] * grid[2]
                args.append(ZERO(n))
            else:
                args.append(suite.u64(0))
        modules[mod] = {"ptx": rel, "num_warps": k["num_warps"], "shared": md.shared,
                        "triton": triton.__version__}
        launches.append({"id": "%s/%s" % (mod, entry), "module": mod, "entry": entry,
                         "grid": grid, "block": [32 * k["num_warps"], 1, 1], "cluster": None,
                         "shared": md.shared, "args": args})
        print("%-24s %-22s warps %d shared %6d params %d" % (
            k["name"], entry, k["num_warps"], md.shared, nparams), flush=True)
    with open(os.path.join(corpus, "triton.json"), "w") as f:
        json.dump({"triton": triton.__version__, "target": "cuda:90", "modules": modules,
                   "launches": launches}, f, indent=1)
        f.write("\n")
    for name in os.listdir(ptxdir):
        if name.startswith("triton_") and name[:-len(".ptx.xz")] not in modules:
            os.remove(os.path.join(ptxdir, name))
    if os.path.abspath(corpus) == os.path.abspath(suite.CORPUS):
        suite.export()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["build", "list"])
    ap.add_argument("--corpus", default=suite.CORPUS)
    a = ap.parse_args()
    if a.cmd == "list":
        for k in kernels():
            print(k["name"], k["fn"].__name__, "warps", k["num_warps"], "grid", k["grid"])
        return
    build(a.corpus)


if __name__ == "__main__":
    main()
