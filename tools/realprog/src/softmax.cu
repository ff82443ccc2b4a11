// Row softmax as inference engines write it: a warp per row with shuffle reductions, a
// block per row with the one-pass online (max, sum) combination, log-softmax, and a half
// precision variant with fast exponentials.
#include <cuda_fp16.h>

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

extern "C" __global__ void softmax_warp_row(const float* __restrict__ x, float* __restrict__ y,
                                            int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
  s = warp_sum(s);
  float inv = 1.f / s;
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = expf(xr[c] - m) * inv;
}

struct MD {
  float m, d;
};
__device__ __forceinline__ MD md_combine(MD a, MD b) {
  bool a_big = a.m > b.m;
  MD big = a_big ? a : b, small = a_big ? b : a;
  MD r;
  r.d = big.d + small.d * expf(small.m - big.m);
  r.m = big.m;
  return r;
}

// One CTA per row; each thread keeps a running (max, denominator) pair.
extern "C" __global__ void softmax_online_block(const float* __restrict__ x,
                                                float* __restrict__ y, int cols) {
  __shared__ MD part[32];
  __shared__ MD total;
  const float* xr = x + (size_t)blockIdx.x * cols;
  MD md = {-INFINITY, 0.f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    MD e = {xr[c], 1.f};
    md = md.d == 0.f ? e : md_combine(md, e);
  }
  for (int o = 16; o; o >>= 1) {
    MD other = {__shfl_xor_sync(0xffffffffu, md.m, o), __shfl_xor_sync(0xffffffffu, md.d, o)};
    if (other.d != 0.f) md = md.d == 0.f ? other : md_combine(md, other);
  }
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = md;
  __syncthreads();
  if (threadIdx.x == 0) {
    MD t = part[0];
    for (int w = 1; w < blockDim.x / 32; ++w)
      if (part[w].d != 0.f) t = md_combine(t, part[w]);
    total = t;
  }
  __syncthreads();
  float inv = __frcp_rn(total.d);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)blockIdx.x * cols + c] = expf(xr[c] - total.m) * inv;
}

extern "C" __global__ void log_softmax_row(const float* __restrict__ x, float* __restrict__ y,
                                           int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
  float lse = m + logf(warp_sum(s));
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = xr[c] - lse;
}

// Half in/out, float math with __expf and __fdividef, half2 loads.
extern "C" __global__ void softmax_half2(const __half2* __restrict__ x, __half2* __restrict__ y,
                                         int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  int c2 = cols / 2;
  const __half2* xr = x + (size_t)row * c2;
  float m = -INFINITY;
  for (int c = lane; c < c2; c += 32) {
    float2 v = __half22float2(xr[c]);
    m = fmaxf(m, fmaxf(v.x, v.y));
  }
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < c2; c += 32) {
    float2 v = __half22float2(xr[c]);
    s += __expf(v.x - m) + __expf(v.y - m);
  }
  s = warp_sum(s);
  for (int c = lane; c < c2; c += 32) {
    float2 v = __half22float2(xr[c]);
    y[(size_t)row * c2 + c] =
        __floats2half2_rn(__fdividef(__expf(v.x - m), s), __fdividef(__expf(v.y - m), s));
  }
}
