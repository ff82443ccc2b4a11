// Parallel reductions the way the CUDA samples and production code write them: warp
// shuffles, a shared-memory tree, cooperative groups, and atomics whose final value does
// not depend on the order the CTAs finish in (integer add, max).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__device__ __forceinline__ double warp_sum_d(double v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Grid-stride accumulation, warp shuffles, then one warp combines the warp sums.
extern "C" __global__ void reduce_warp_shfl(const float* __restrict__ in, float* __restrict__ out,
                                            int n) {
  __shared__ float warp_sums[32];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.f;
    v = warp_sum(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// "Reduction #5" of the classic whitepaper: first add during load, tree in shared memory,
// the last warp synchronised with __syncwarp.
template <unsigned BLOCK>
__device__ void reduce_tree(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (BLOCK * 2) + tid;
  float v = 0.f;
  if (i < n) v = in[i];
  if (i + BLOCK < n) v += in[i + BLOCK];
  s[tid] = v;
  __syncthreads();
#pragma unroll
  for (unsigned step = BLOCK / 2; step > 32; step >>= 1) {
    if (tid < step) s[tid] = v = v + s[tid + step];
    __syncthreads();
  }
  if (tid < 32) {
    if (BLOCK >= 64) v += s[tid + 32];
    for (int off = 16; off > 0; off >>= 1) {
      v += __shfl_down_sync(0xffffffffu, v, off);
    }
    if (tid == 0) out[blockIdx.x] = v;
  }
}

extern "C" __global__ void reduce_shared_tree(const float* in, float* out, int n) {
  reduce_tree<256>(in, out, n);
}

// Integer sum of all elements into one 64-bit counter: order-independent.
extern "C" __global__ void reduce_int_atomic(const int* __restrict__ in,
                                             unsigned long long* total, int n) {
  __shared__ long long part[8];
  long long v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long t = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) t += part[w];
    atomicAdd(total, (unsigned long long)t);
  }
}

// Maximum and minimum with atomics, plus the index of the first maximum via a packed
// 64-bit atomicMax (value in the high word, inverted index in the low word).
extern "C" __global__ void reduce_max_atomic(const int* __restrict__ in, int* mx, int* mn,
                                             unsigned long long* argmax, int n) {
  int best = INT_MIN, worst = INT_MAX;
  unsigned long long packed = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int x = in[i];
    best = max(best, x);
    worst = min(worst, x);
    unsigned long long key = ((unsigned long long)((unsigned)x ^ 0x80000000u) << 32) |
                             (0xffffffffu - (unsigned)i);
    packed = key > packed ? key : packed;
  }
  atomicMax(mx, best);
  atomicMin(mn, worst);
  atomicMax(argmax, packed);
}

// cooperative_groups::reduce over 32-thread tiles, then over the tile results.
extern "C" __global__ void reduce_cg(const float* __restrict__ in, float* out_sum,
                                     float* out_max, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float sums[32], maxs[32];
  float s = 0.f, m = -INFINITY;
  for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n;
       i += block.size() * gridDim.x) {
    s += in[i];
    m = fmaxf(m, in[i]);
  }
  s = cg::reduce(tile, s, cg::plus<float>());
  m = cg::reduce(tile, m, cg::greater<float>());
  if (tile.thread_rank() == 0) {
    sums[tile.meta_group_rank()] = s;
    maxs[tile.meta_group_rank()] = m;
  }
  block.sync();
  if (tile.meta_group_rank() == 0) {
    unsigned k = tile.thread_rank();
    s = k < tile.meta_group_size() ? sums[k] : 0.f;
    m = k < tile.meta_group_size() ? maxs[k] : -INFINITY;
    s = cg::reduce(tile, s, cg::plus<float>());
    m = cg::reduce(tile, m, cg::greater<float>());
    if (k == 0) {
      out_sum[blockIdx.x] = s;
      out_max[blockIdx.x] = m;
    }
  }
}

// Double-precision sum of squares (a norm), butterfly shuffles of 64-bit values.
extern "C" __global__ void reduce_double_norm(const double* __restrict__ in, double* out, int n) {
  __shared__ double part[32];
  double v = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v = fma(in[i], in[i], v);
  v = warp_sum_d(v);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
    v = warp_sum_d(v);
    if (threadIdx.x == 0) out[blockIdx.x] = sqrt(v);
  }
}
