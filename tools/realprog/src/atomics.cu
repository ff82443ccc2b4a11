// Atomics whose final memory contents do not depend on the order the threads run in:
// compare-and-swap loops, the integer operator set, float and double adds into distinct
// addresses, 64-bit packed maxima, and libcu++ cuda::atomic_ref.
#include <cuda/atomic>

__device__ float atomic_max_float(float* addr, float v) {
  int* ai = reinterpret_cast<int*>(addr);
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(ai, assumed, __float_as_int(v));
  } while (assumed != old);
  return __int_as_float(old);
}

extern "C" __global__ void atomic_cas_float_max(const float* __restrict__ x, float* __restrict__ mx,
                                                int n, int buckets) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(&mx[i % buckets], x[i]);
}

// Counters 0..9 receive every kind of integer atomic from every thread.
extern "C" __global__ void atomic_int_ops(const int* __restrict__ x, int* __restrict__ c,
                                          unsigned* __restrict__ u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  atomicAdd(&c[0], v);
  atomicSub(&c[1], v >> 2);
  atomicMin(&c[2], v);
  atomicMax(&c[3], v);
  atomicAnd(&c[4], v | 0x0f0f0000);
  atomicOr(&c[5], v & 0x00ff00ff);
  atomicXor(&c[6], v);
  atomicInc(&u[0], 100u);  // wraps modulo 101: the final value is (start + n) mod 101
  atomicDec(&u[1], 50u);
  atomicMin(&u[2], (unsigned)v);
  atomicMax(&u[3], (unsigned)v);
  atomicAdd(&u[4], 1u);
}

// Scatter with one float and one double add per address (an odd multiplier permutes a
// power-of-two range), plus the return value of each add (the old value, unique per address).
extern "C" __global__ void atomic_scatter_add(const float* __restrict__ x, float* __restrict__ accf,
                                              double* __restrict__ accd, float* __restrict__ old,
                                              int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int dst = (i * 37 + 11) & (n - 1);
  old[i] = atomicAdd(&accf[dst], x[i]);
  atomicAdd(&accd[dst], (double)x[i] * 1e-3);
}

// Max with its index: value in the high 32 bits (order-preserving bias), index in the low.
extern "C" __global__ void atomic_u64_argmax(const float* __restrict__ x,
                                             unsigned long long* __restrict__ best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned b = __float_as_uint(x[i]);
  b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  unsigned long long key = ((unsigned long long)b << 32) | (unsigned)(n - 1 - i);
  atomicMax(best, key);
  atomicMin(best + 1, key);
  unsigned long long old = atomicCAS(best + 2, 0ull, 1ull);
  (void)old;
  atomicAdd(best + 3, (unsigned long long)b);
}

// libcu++ atomic_ref with explicit scopes and orders.
extern "C" __global__ void atomic_ref_libcu(const int* __restrict__ x, int* __restrict__ out,
                                            int n) {
  __shared__ int block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  cuda::atomic_ref<int, cuda::thread_scope_block> bs(block_sum);
  bs.fetch_add(v, cuda::std::memory_order_relaxed);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> total(out[0]);
    total.fetch_add(block_sum, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_device> mx(out[1]);
    mx.fetch_max(block_sum);
    cuda::atomic_ref<int, cuda::thread_scope_system> mn(out[2]);
    mn.fetch_min(block_sum);
  }
  cuda::atomic_ref<int, cuda::thread_scope_device> orr(out[3]);
  orr.fetch_or(1 << (v & 31), cuda::std::memory_order_acq_rel);
}
