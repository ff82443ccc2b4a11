// Attention building blocks without tensor cores: a naive single-head attention with the
// score row in shared memory, a flash-decoding style fp16 kernel (a warp per query, online
// softmax over key tiles), and rotary position embeddings.
#include <cuda_fp16.h>

// One CTA per query row; L keys, head dimension d (both <= blockDim.x * 2).
extern "C" __global__ void attention_naive(const float* __restrict__ q, const float* __restrict__ k,
                                           const float* __restrict__ v, float* __restrict__ o,
                                           int L, int d, float scale) {
  extern __shared__ float sh[];
  float* qrow = sh;       // d
  float* p = sh + d;      // L
  __shared__ float red[32];
  int row = blockIdx.x;
  for (int j = threadIdx.x; j < d; j += blockDim.x) qrow[j] = q[row * d + j];
  __syncthreads();
  float m = -INFINITY;
  for (int key = threadIdx.x; key < L; key += blockDim.x) {
    float s = 0.f;
    for (int j = 0; j < d; ++j) s = fmaf(qrow[j], k[key * d + j], s);
    s = key <= row ? s * scale : -INFINITY;  // causal mask
    p[key] = s;
    m = fmaxf(m, s);
  }
  for (int off = 16; off; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
  __syncthreads();
  m = red[0];
  for (int w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, red[w]);
  __syncthreads();
  float sum = 0.f;
  for (int key = threadIdx.x; key < L; key += blockDim.x) {
    float e = expf(p[key] - m);
    p[key] = e;
    sum += e;
  }
  for (int off = 16; off; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = sum;
  __syncthreads();
  sum = 0.f;
  for (int w = 0; w < blockDim.x / 32; ++w) sum += red[w];
  float inv = 1.f / sum;
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    float acc = 0.f;
    for (int key = 0; key <= row && key < L; ++key) acc = fmaf(p[key], v[key * d + j], acc);
    o[row * d + j] = acc * inv;
  }
}

// A warp per query, head dimension 64 (two dims per lane), keys processed 32 at a time:
// each lane scores one key, the warp updates the running max and denominator, and the
// value rows are accumulated with rescaling (online softmax).
extern "C" __global__ void flash_decode_half(const __half2* __restrict__ q,
                                             const __half2* __restrict__ k,
                                             const __half2* __restrict__ v,
                                             __half2* __restrict__ o, int nq, int L, float scale) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= nq) return;
  float2 qd = __half22float2(q[warp * 32 + lane]);
  float m = -INFINITY, l = 0.f;
  float2 acc = make_float2(0.f, 0.f);
  for (int t0 = 0; t0 < L; t0 += 32) {
    int key = t0 + lane;
    int krow = min(key, L - 1);  // every lane takes part in the shuffles
    float dot = 0.f;
    for (int j = 0; j < 32; ++j) {
      float2 qj = make_float2(__shfl_sync(0xffffffffu, qd.x, j), __shfl_sync(0xffffffffu, qd.y, j));
      float2 kj = __half22float2(k[krow * 32 + j]);
      dot = fmaf(qj.x, kj.x, fmaf(qj.y, kj.y, dot));
    }
    float s = key < L ? dot * scale : -INFINITY;
    float tmax = s;
    for (int off = 16; off; off >>= 1) tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, off));
    float mnew = fmaxf(m, tmax);
    float corr = __expf(m - mnew);
    float p = key < L ? __expf(s - mnew) : 0.f;
    float psum = p;
    for (int off = 16; off; off >>= 1) psum += __shfl_xor_sync(0xffffffffu, psum, off);
    l = l * corr + psum;
    acc.x *= corr;
    acc.y *= corr;
    int n = min(32, L - t0);
    for (int j = 0; j < n; ++j) {
      float pj = __shfl_sync(0xffffffffu, p, j);
      float2 vj = __half22float2(v[(t0 + j) * 32 + lane]);
      acc.x = fmaf(pj, vj.x, acc.x);
      acc.y = fmaf(pj, vj.y, acc.y);
    }
    m = mnew;
  }
  o[warp * 32 + lane] = __floats2half2_rn(acc.x / l, acc.y / l);
}

// Rotary position embedding in place: pairs (2i, 2i+1) of each position's vector rotate by
// pos * base^(-2i/d).
extern "C" __global__ void rope_rotary(float* __restrict__ x, int L, int d, float base) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int half_d = d / 2;
  if (idx >= L * half_d) return;
  int pos = idx / half_d, i = idx % half_d;
  float theta = pos * powf(base, -2.f * i / d);
  float s, c;
  sincosf(theta, &s, &c);
  float a = x[pos * d + 2 * i], b = x[pos * d + 2 * i + 1];
  x[pos * d + 2 * i] = a * c - b * s;
  x[pos * d + 2 * i + 1] = a * s + b * c;
}
