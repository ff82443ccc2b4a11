// Quantisation kernels of inference engines: row-wise int8 quantisation with an absmax
// scale, an int8 GEMV on __dp4a, and int4 weight unpacking to half with per-group scales.
#include <cuda_fp16.h>

extern "C" __global__ void quantize_int8_rows(const float* __restrict__ x, signed char* __restrict__ q,
                                              float* __restrict__ scale, int cols) {
  __shared__ float red[32];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float amax = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) amax = fmaxf(amax, fabsf(xr[c]));
  for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = amax;
  __syncthreads();
  amax = 0.f;
  for (int w = 0; w < blockDim.x / 32; ++w) amax = fmaxf(amax, red[w]);
  float s = amax / 127.f;
  float inv = s > 0.f ? 127.f / amax : 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    int v = __float2int_rn(xr[c] * inv);
    q[(size_t)blockIdx.x * cols + c] = (signed char)max(-127, min(127, v));
  }
  if (threadIdx.x == 0) scale[blockIdx.x] = s;
}

extern "C" __global__ void int8_gemv_dp4a(const int* __restrict__ A, const int* __restrict__ x,
                                          int* __restrict__ y, unsigned* __restrict__ yu, int rows,
                                          int cols4) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= rows) return;
  int s = 0;
  unsigned su = 0;
  for (int c = lane; c < cols4; c += 32) {
    s = __dp4a(A[warp * cols4 + c], x[c], s);
    su = __dp2a_lo((unsigned)A[warp * cols4 + c], (unsigned)x[c], su);
  }
  for (int o = 16; o; o >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    su += __shfl_xor_sync(0xffffffffu, su, o);
  }
  if (lane == 0) {
    y[warp] = s;
    yu[warp] = su;
  }
}

// Eight int4 weights per word (offset binary), one half scale per group of 32 weights.
extern "C" __global__ void dequant_int4(const unsigned* __restrict__ packed,
                                        const __half* __restrict__ scales, __half2* __restrict__ out,
                                        int words) {
  int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= words) return;
  unsigned p = packed[w];
  __half s = scales[w / 4];
  __half2 s2 = __half2half2(s);
  __half2 zero = __float2half2_rn(8.f);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    unsigned lo = (p >> (8 * j)) & 0xf, hi = (p >> (8 * j + 4)) & 0xf;
    __half2 v = __halves2half2(__uint2half_rn(lo), __uint2half_rn(hi));
    out[w * 4 + j] = __hmul2(__hsub2(v, zero), s2);
  }
}
