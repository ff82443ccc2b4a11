// __half and __nv_bfloat16 arithmetic from cuda_fp16.h / cuda_bf16.h: half2 AXPY, the
// scalar operator set and half math functions, bf16 arithmetic, and rounding-mode
// conversions between float, int and half.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half2_axpy(const __half2* __restrict__ x, __half2* __restrict__ y,
                                      __half a, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(__half2half2(a), x[i], y[i]);
}

// Nine results per element pair.
extern "C" __global__ void half_ops(const __half* __restrict__ a, const __half* __restrict__ b,
                                    __half* __restrict__ out, unsigned* __restrict__ flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i];
  __half* o = out + 9 * i;
  o[0] = __hadd(x, y);
  o[1] = __hsub(x, y);
  o[2] = __hmul(x, y);
  o[3] = __hdiv(x, y);
  o[4] = __hfma(x, y, __float2half(0.5f));
  o[5] = hsqrt(__habs(x));
  o[6] = hexp(x);
  o[7] = hlog(__habs(y));
  o[8] = __hmax(x, __hneg(y));
  flags[i] = (unsigned)__hlt(x, y) | ((unsigned)__hge(x, y) << 1) |
             ((unsigned)__hisnan(__hdiv(x, __hsub(y, y))) << 2) |
             ((unsigned)__hisinf(__hdiv(x, __hsub(y, y))) << 3);
}

// half2 math on packed pairs: h2exp, h2sin, h2cos, h2rsqrt, h2rcp, __hmul2_sat, __hmax2.
extern "C" __global__ void half2_math(const __half2* __restrict__ a, __half2* __restrict__ out,
                                      int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __half2 x = a[i];
  __half2* o = out + 7 * i;
  o[0] = h2exp(x);
  o[1] = h2sin(x);
  o[2] = h2cos(x);
  o[3] = h2rsqrt(__habs2(x));
  o[4] = h2rcp(x);
  o[5] = __hmul2_sat(x, __float2half2_rn(1.5f));
  o[6] = __hmax2(__hadd2(x, __lowhigh2highlow(x)), __hsub2(x, __lowhigh2highlow(x)));
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16* __restrict__ a,
                                    const __nv_bfloat16* __restrict__ b,
                                    __nv_bfloat16* __restrict__ out, float* __restrict__ fout,
                                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = b[i];
  __nv_bfloat16* o = out + 8 * i;
  o[0] = __hadd(x, y);
  o[1] = __hmul(x, y);
  o[2] = __hfma(x, y, __float2bfloat16(1.0f));
  o[3] = __hdiv(x, y);
  o[4] = hsqrt(__habs(x));
  o[5] = hexp(x);
  __nv_bfloat162 p = __halves2bfloat162(x, y);
  __nv_bfloat162 q = __hmul2(p, __hadd2(p, __bfloat162bfloat162(__float2bfloat16(0.25f))));
  o[6] = __low2bfloat16(q);
  o[7] = __high2bfloat16(q);
  fout[2 * i] = __bfloat162float(x) * __bfloat162float(y);
  fout[2 * i + 1] = __bfloat162float(__float2bfloat16_rz(__bfloat162float(x) * 3.14159f));
}

// Conversions with every rounding mode, to and from integers, and half<->bf16 via float.
extern "C" __global__ void half_convert(const float* __restrict__ in, __half* __restrict__ h,
                                        int* __restrict__ ints, __nv_bfloat16* __restrict__ bf,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f = in[i];
  h[4 * i + 0] = __float2half_rn(f);
  h[4 * i + 1] = __float2half_rz(f);
  h[4 * i + 2] = __float2half_rd(f);
  h[4 * i + 3] = __float2half_ru(f);
  __half x = __float2half_rn(f * 100.f);
  ints[4 * i + 0] = __half2int_rn(x);
  ints[4 * i + 1] = __half2int_rz(x);
  ints[4 * i + 2] = __half2int_rd(x);
  ints[4 * i + 3] = __half2short_rn(__int2half_rn(__float2int_rn(f * 1000.f)));
  bf[2 * i] = __float2bfloat16_rn(__half2float(__float2half_rn(f)));
  bf[2 * i + 1] = __float2bfloat16_ru(f);
}
