"""PTX from Triton (LLVM's NVPTX back end): hand-written kernels, then TorchInductor's.

Usage: python3 gen_triton.py OUT_DIR. Triton writes every kernel's PTX into its cache
(TRITON_CACHE_DIR, set by the caller); this script only makes it compile a variety of kernels.
"""
import sys
import torch
import triton
import triton.language as tl

out = sys.argv[1]
dev = "cuda"


@triton.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(z + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)


@triton.jit
def softmax(x, y, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    v = tl.load(x + row * stride + c, mask=c < n, other=-float("inf"))
    v = v - tl.max(v, 0)
    e = tl.exp(v)
    tl.store(y + row * stride + c, e / tl.sum(e, 0), mask=c < n)


@triton.jit
def matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak)
        w = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(x, w)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty))


@triton.jit
def layernorm(x, y, w, b, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < n
    v = tl.load(x + row * stride + c, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(v, 0) / n
    d = tl.where(m, v - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, 0) / n + eps)
    out = d * rstd * tl.load(w + c, mask=m) + tl.load(b + c, mask=m)
    tl.store(y + row * stride + c, out, mask=m)


@triton.jit
def atomics(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + i, mask=i < n)
    tl.atomic_add(y, tl.sum(v, 0))
    tl.atomic_max(y + 1, tl.max(v, 0))
    tl.atomic_cas(y + 2, 0.0, 1.0)


def run(name, f):
    try:
        f()
        print("triton", name, "ok")
    except Exception as e:  # a kernel Triton cannot build here is skipped, and said so
        print("triton", name, "FAILED:", type(e).__name__, str(e).splitlines()[0][:200])


n = 4096
x = torch.randn(n, device=dev)
y = torch.randn(n, device=dev)
run("add", lambda: add[(n // 1024,)](x, y, torch.empty_like(x), n, BLOCK=1024))
for dt in (torch.float32, torch.float16, torch.bfloat16):
    s = torch.randn(64, 1000, device=dev, dtype=dt)
    run(f"softmax-{dt}", lambda: softmax[(64,)](s, torch.empty_like(s), s.stride(0), 1000, BLOCK=1024))
    run(f"layernorm-{dt}", lambda: layernorm[(64,)](s, torch.empty_like(s), torch.ones(1000, device=dev, dtype=dt),
                                                  torch.zeros(1000, device=dev, dtype=dt), s.stride(0), 1000, 1e-5, BLOCK=1024))
dts = [torch.float16, torch.bfloat16, torch.float32]
if hasattr(torch, "float8_e4m3fn"):
    dts.append(torch.float8_e4m3fn)
for dt in dts:
    for (bm, bn, bk, warps, stages) in ((128, 128, 64, 4, 3), (64, 64, 32, 4, 2), (128, 256, 64, 8, 3)):
        def mm(dt=dt, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages):
            a = torch.randn(512, 512, device=dev).to(dt)
            b = torch.randn(512, 512, device=dev).to(dt).T.contiguous().T if dt != torch.float32 else torch.randn(512, 512, device=dev)
            c = torch.empty(512, 512, device=dev, dtype=torch.float16 if dt != torch.float32 else torch.float32)
            matmul[(512 // bm, 512 // bn)](a, b, c, 512, 512, 512, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                           c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)
        run(f"matmul-{dt}-{bm}x{bn}x{bk}", mm)
run("atomics", lambda: atomics[(4,)](x, torch.zeros(4, device=dev), n, BLOCK=1024))


def inductor():
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, d=256):
            super().__init__()
            self.ln = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            q, k, v = self.qkv(self.ln(x)).chunk(3, -1)
            a = torch.softmax(q @ k.transpose(-1, -2) / 16, -1) @ v
            x = x + a
            return x + self.mlp(self.ln(x)).relu().cumsum(-1).logsumexp(-1, keepdim=True)

    m = Block().to(dev)
    f = torch.compile(m)
    for dt in (torch.float32, torch.bfloat16):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=dt == torch.bfloat16):
            f(torch.randn(8, 64, 256, device=dev)).sum().backward()


run("inductor", inductor)
