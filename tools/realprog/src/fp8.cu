// 8-bit floating point from cuda_fp8.h: e4m3 and e5m2 round trips, the x2 and x4 packed
// types, saturating and non-saturating conversions, and an fp8 dot product with scaling.
// On sm_80 these conversions are emulated in software; sm_89 and later use cvt.
#include <cuda_fp8.h>
#include <cuda_fp16.h>

extern "C" __global__ void fp8_e4m3_roundtrip(const float* __restrict__ in,
                                              __nv_fp8_e4m3* __restrict__ q,
                                              float* __restrict__ back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_fp8_e4m3 v(in[i]);
  q[i] = v;
  back[i] = float(v);
}

extern "C" __global__ void fp8_e5m2_x2(const __half2* __restrict__ in,
                                       __nv_fp8x2_e5m2* __restrict__ q, __half2* __restrict__ back,
                                       int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __nv_fp8x2_e5m2 v(in[i]);
  q[i] = v;
  back[i] = __half2(v);
}

// The raw conversion API with both saturation modes, for e4m3 and e5m2.
extern "C" __global__ void fp8_saturate(const float2* __restrict__ in,
                                        unsigned char* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = in[i];
  unsigned char* o = out + 8 * i;
  o[0] = __nv_cvt_float_to_fp8(v.x, __NV_SATFINITE, __NV_E4M3);
  o[1] = __nv_cvt_float_to_fp8(v.x, __NV_NOSAT, __NV_E4M3);
  o[2] = __nv_cvt_float_to_fp8(v.x, __NV_SATFINITE, __NV_E5M2);
  o[3] = __nv_cvt_float_to_fp8(v.x, __NV_NOSAT, __NV_E5M2);
  __nv_fp8x2_storage_t p = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
  o[4] = p & 0xff;
  o[5] = p >> 8;
  __nv_fp8x2_storage_t r = __nv_cvt_halfraw2_to_fp8x2(__nv_cvt_fp8x2_to_halfraw2(p, __NV_E4M3),
                                                      __NV_SATFINITE, __NV_E5M2);
  o[6] = r & 0xff;
  o[7] = r >> 8;
}

// out[row] = scale_a * scale_b * sum_k a[row,k] * b[k], fp8 inputs unpacked four at a time.
extern "C" __global__ void fp8_scaled_gemv(const __nv_fp8x4_e4m3* __restrict__ a,
                                           const __nv_fp8x4_e4m3* __restrict__ b,
                                           float* __restrict__ out, float scale_a, float scale_b,
                                           int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols / 4; c += 32) {
    float4 x = float4(a[row * (cols / 4) + c]);
    float4 y = float4(b[c]);
    s = fmaf(x.x, y.x, s);
    s = fmaf(x.y, y.y, s);
    s = fmaf(x.z, y.z, s);
    s = fmaf(x.w, y.w, s);
  }
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) out[row] = s * scale_a * scale_b;
}
