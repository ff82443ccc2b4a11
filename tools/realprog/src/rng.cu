// Counter-based and stateful random number generators written out (no cuRAND): Philox4x32-10
// as in Random123, xorshift128, PCG32; Box-Muller normals; dropout with a Philox mask.
#include <stdint.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

struct u32x4 {
  unsigned x, y, z, w;
};

__device__ __forceinline__ u32x4 philox_round(u32x4 c, unsigned k0, unsigned k1) {
  unsigned hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
  unsigned hi1 = __umulhi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
  u32x4 r = {hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
  return r;
}

__device__ u32x4 philox4x32_10(u32x4 c, unsigned k0, unsigned k1) {
#pragma unroll
  for (int i = 0; i < 10; ++i) {
    c = philox_round(c, k0, k1);
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  return c;
}

__device__ __forceinline__ float u01(unsigned x) {
  // (0, 1]: the cuRAND convention
  return x * 2.3283064e-10f + (2.3283064e-10f / 2.0f);
}

extern "C" __global__ void philox_uniform(float4* out, unsigned long long seed,
                                          unsigned long long offset, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  unsigned long long ctr = offset + i;
  u32x4 c = {(unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u};
  u32x4 r = philox4x32_10(c, (unsigned)seed, (unsigned)(seed >> 32));
  out[i] = make_float4(u01(r.x), u01(r.y), u01(r.z), u01(r.w));
}

// Box-Muller: two uniforms to two normals; logf, sqrtf, sincospif.
extern "C" __global__ void box_muller_normal(float2* out, unsigned long long seed, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  u32x4 c = {(unsigned)i, 0u, 0x12345u, 0u};
  u32x4 r = philox4x32_10(c, (unsigned)seed, (unsigned)(seed >> 32));
  float u1 = u01(r.x), u2 = u01(r.y);
  float rad = sqrtf(-2.0f * logf(u1));
  float s, co;
  sincospif(2.0f * u2, &s, &co);
  out[i] = make_float2(rad * co, rad * s);
}

// Dropout: keep with probability 1-p, scale kept values by 1/(1-p); writes the mask too.
extern "C" __global__ void dropout_philox(const float4* __restrict__ x, float4* __restrict__ y,
                                          uchar4* __restrict__ mask, float p,
                                          unsigned long long seed, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  u32x4 c = {(unsigned)i, 0u, 0u, 0xD0D0u};
  u32x4 r = philox4x32_10(c, (unsigned)seed, (unsigned)(seed >> 32));
  float scale = 1.0f / (1.0f - p);
  float4 v = x[i];
  bool k0 = u01(r.x) > p, k1 = u01(r.y) > p, k2 = u01(r.z) > p, k3 = u01(r.w) > p;
  y[i] = make_float4(k0 ? v.x * scale : 0.f, k1 ? v.y * scale : 0.f, k2 ? v.z * scale : 0.f,
                     k3 ? v.w * scale : 0.f);
  mask[i] = make_uchar4(k0, k1, k2, k3);
}

// xorshift128 (Marsaglia), one generator per thread seeded from splitmix32 of its index.
__device__ unsigned splitmix32(unsigned x) {
  x += 0x9e3779b9u;
  x = (x ^ (x >> 16)) * 0x21f0aaadu;
  x = (x ^ (x >> 15)) * 0x735a2d97u;
  return x ^ (x >> 15);
}

extern "C" __global__ void xorshift128_fill(unsigned* out, unsigned seed, int per_thread) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s0 = splitmix32(seed ^ t), s1 = splitmix32(s0), s2 = splitmix32(s1),
           s3 = splitmix32(s2) | 1u;
  for (int k = 0; k < per_thread; ++k) {
    unsigned tt = s0 ^ (s0 << 11);
    s0 = s1;
    s1 = s2;
    s2 = s3;
    s3 = s3 ^ (s3 >> 19) ^ (tt ^ (tt >> 8));
    out[t * per_thread + k] = s3;
  }
}

// PCG32 (XSH RR) with 64-bit state, rejection-free bounded integers (Lemire's method),
// histogrammed in shared memory.
extern "C" __global__ void pcg32_dice(unsigned* hist, unsigned long long seed, int rolls) {
  __shared__ unsigned h[6];
  if (threadIdx.x < 6) h[threadIdx.x] = 0;
  __syncthreads();
  uint64_t state = 0, inc = ((uint64_t)(blockIdx.x * blockDim.x + threadIdx.x) << 1u) | 1u;
  state = state * 6364136223846793005ULL + inc;
  state += seed;
  state = state * 6364136223846793005ULL + inc;
  for (int r = 0; r < rolls; ++r) {
    uint64_t old = state;
    state = old * 6364136223846793005ULL + inc;
    unsigned xorshifted = (unsigned)(((old >> 18u) ^ old) >> 27u);
    unsigned rot = (unsigned)(old >> 59u);
    unsigned v = (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
    unsigned die = (unsigned)(((uint64_t)v * 6u) >> 32);
    atomicAdd(&h[die], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 6) hist[blockIdx.x * 6 + threadIdx.x] = h[threadIdx.x];
}
