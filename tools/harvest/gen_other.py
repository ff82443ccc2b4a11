"""PTX from XLA (JAX; LLVM's NVPTX back end) and Numba (NVVM). Usage: python3 gen_other.py WHICH OUT_DIR.

XLA writes its PTX where --xla_dump_to points (set by the caller); Numba's is written here.
"""
import os
import sys

which, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)

if which == "jax":
    import subprocess

    # Which XLA flags mention PTX (XLA aborts on an unknown flag, so they are listed, not tried).
    helped = subprocess.run([sys.executable, "-c", "import jax; jax.numpy.zeros(1)"],
                            env={**os.environ, "XLA_FLAGS": "--help"}, capture_output=True, text=True)
    flags = sorted({w.split("=")[0] for w in (helped.stdout + helped.stderr).split() if w.startswith("--xla") and "ptx" in w})
    print("xla flags mentioning ptx:", flags)
    import jax
    import jax.numpy as jnp

    # XLA writes PTX into the dump folder only when it compiled for a GPU.
    print("jax", jax.__version__, "devices:", jax.devices())

    def f(x, w):
        h = jax.nn.gelu(x @ w)
        h = jax.nn.softmax(h, axis=-1) * jnp.cumsum(h, axis=0)
        return jnp.sort(h, axis=-1).mean() + jnp.linalg.norm(h) + jax.lax.reduce_precision(h, 5, 10).sum()

    for dt in (jnp.float32, jnp.bfloat16, jnp.float16):
        x = jnp.ones((256, 256), dt)
        print("jax", dt.__name__, jax.jit(f)(x, x), jax.jit(jax.grad(lambda x, w: f(x, w).astype(jnp.float32)))(x, x).sum())
    k = jax.random.PRNGKey(0)
    print("jax rng", jax.jit(lambda k: jax.random.normal(k, (1024,)).sum())(k))
    print("jax int", jax.jit(lambda a: (a * 3 // 7 % 5 ^ (a << 2)).sum())(jnp.arange(1000, dtype=jnp.int32)))
    print("jax fft", jax.jit(lambda a: jnp.fft.fft(a).real.sum())(jnp.ones(1024)))
    dumped = [n for _, _, fs in os.walk(out) for n in fs]
    suffixes = {}
    for n in dumped:
        k = n.rsplit(".", 1)[-1]
        suffixes[k] = suffixes.get(k, 0) + 1
    print("jax dump:", len(dumped), "files,", sum(n.endswith(".ptx") for n in dumped), "PTX; by suffix:", suffixes)
elif which == "numba":
    import math

    # Numba releases trail NumPy's: an import failure here is reported, not fatal to the harvest.
    from numba import cuda, float32, float64, int32, int64, uint32

    def axpy(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i] + y[i]

    def reduce(a, out):
        s = cuda.shared.array(256, float32)
        i = cuda.threadIdx.x
        s[i] = a[cuda.grid(1)]
        cuda.syncthreads()
        step = 128
        while step > 0:
            if i < step:
                s[i] += s[i + step]
            cuda.syncthreads()
            step //= 2
        if i == 0:
            cuda.atomic.add(out, 0, s[0])

    def mathy(a, b):
        i = cuda.grid(1)
        x = a[i]
        b[i] = math.sin(x) + math.exp(x) + math.sqrt(abs(x)) + math.atan2(x, 1.0) + math.floor(x) + math.erf(x)
        cuda.atomic.max(b, 0, x)
        cuda.atomic.compare_and_swap(b, 0, 1)  # noqa: not all types support this; kept in try

    def intops(a, b):
        i = cuda.grid(1)
        v = a[i]
        b[i] = (v << 3) ^ (v >> 2) | cuda.popc(v) + cuda.clz(v) + cuda.ffs(v) + cuda.brev(v)
        cuda.atomic.inc(b, 0, 100)
        w = cuda.shfl_sync(0xFFFFFFFF, v, 0) + cuda.ballot_sync(0xFFFFFFFF, v > 0)
        b[i] += w + cuda.activemask()

    sigs = [
        ("axpy_f32", axpy, (float32[:], float32, float32[:], float32[:])),
        ("axpy_f64", axpy, (float64[:], float64, float64[:], float64[:])),
        ("reduce", reduce, (float32[:], float32[:])),
        ("mathy_f32", mathy, (float32[:], float32[:])),
        ("mathy_f64", mathy, (float64[:], float64[:])),
        ("intops_i32", intops, (int32[:], int32[:])),
        ("intops_u32", intops, (uint32[:], uint32[:])),
        ("intops_i64", intops, (int64[:], int64[:])),
    ]
    for cc in ((9, 0), (8, 0), (10, 0)):
        for name, fn, sig in sigs:
            try:
                ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, lineinfo=(name == "reduce"))
                with open(os.path.join(out, f"{name}_sm{cc[0]}{cc[1]}.ptx"), "w") as fh:
                    fh.write(ptx)
                print("numba", name, cc, "ok")
            except Exception as e:
                print("numba", name, cc, "FAILED:", type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
