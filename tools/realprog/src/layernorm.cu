// Layer normalisation and RMS normalisation, forward and backward, as in training
// frameworks: Welford statistics merged across a warp and a block, rsqrtf, a per-column
// backward pass for the parameter gradients (deterministic, no atomics), and half I/O.
#include <cuda_fp16.h>

struct Welford {
  float mean, m2, n;
};

__device__ __forceinline__ Welford welford_merge(Welford a, Welford b) {
  if (b.n == 0.f) return a;
  if (a.n == 0.f) return b;
  float n = a.n + b.n;
  float delta = b.mean - a.mean;
  float nb_over_n = __fdividef(b.n, n);
  Welford r;
  r.mean = a.mean + delta * nb_over_n;
  r.m2 = a.m2 + b.m2 + delta * delta * a.n * nb_over_n;
  r.n = n;
  return r;
}

__device__ Welford block_welford(Welford w) {
  __shared__ Welford part[32];
  for (int o = 16; o; o >>= 1) {
    Welford b = {__shfl_xor_sync(0xffffffffu, w.mean, o), __shfl_xor_sync(0xffffffffu, w.m2, o),
                 __shfl_xor_sync(0xffffffffu, w.n, o)};
    w = welford_merge(w, b);
  }
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = w;
  __syncthreads();
  Welford t = part[0];
  for (int i = 1; i < blockDim.x / 32; ++i) t = welford_merge(t, part[i]);
  __syncthreads();
  return t;
}

extern "C" __global__ void layernorm_fwd(const float* __restrict__ x,
                                         const float* __restrict__ gamma,
                                         const float* __restrict__ beta, float* __restrict__ y,
                                         float* __restrict__ mean_out,
                                         float* __restrict__ rstd_out, int cols, float eps) {
  const float* xr = x + (size_t)blockIdx.x * cols;
  Welford w = {0.f, 0.f, 0.f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = xr[c];
    w.n += 1.f;
    float d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
  }
  Welford t = block_welford(w);
  float rstd = rsqrtf(t.m2 / t.n + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)blockIdx.x * cols + c] = (xr[c] - t.mean) * rstd * gamma[c] + beta[c];
  if (threadIdx.x == 0) {
    mean_out[blockIdx.x] = t.mean;
    rstd_out[blockIdx.x] = rstd;
  }
}

extern "C" __global__ void rmsnorm_fwd(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ y, int cols, float eps) {
  __shared__ float part[32];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float ss = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) ss = fmaf(xr[c], xr[c], ss);
  for (int o = 16; o; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = ss;
  __syncthreads();
  float tot = 0.f;
  for (int i = 0; i < blockDim.x / 32; ++i) tot += part[i];
  float r = rsqrtf(tot / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)blockIdx.x * cols + c] = xr[c] * r * w[c];
}

// dx = rstd * (dy*g - mean(dy*g) - xhat * mean(dy*g*xhat)), one CTA per row.
extern "C" __global__ void layernorm_bwd_dx(const float* __restrict__ dy,
                                            const float* __restrict__ x,
                                            const float* __restrict__ gamma,
                                            const float* __restrict__ mean,
                                            const float* __restrict__ rstd,
                                            float* __restrict__ dx, int cols) {
  __shared__ float p1[32], p2[32];
  size_t off = (size_t)blockIdx.x * cols;
  float mu = mean[blockIdx.x], rs = rstd[blockIdx.x];
  float a = 0.f, b = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float g = dy[off + c] * gamma[c];
    float xhat = (x[off + c] - mu) * rs;
    a += g;
    b += g * xhat;
  }
  for (int o = 16; o; o >>= 1) {
    a += __shfl_xor_sync(0xffffffffu, a, o);
    b += __shfl_xor_sync(0xffffffffu, b, o);
  }
  if ((threadIdx.x & 31) == 0) {
    p1[threadIdx.x >> 5] = a;
    p2[threadIdx.x >> 5] = b;
  }
  __syncthreads();
  a = b = 0.f;
  for (int i = 0; i < blockDim.x / 32; ++i) {
    a += p1[i];
    b += p2[i];
  }
  a /= cols;
  b /= cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float g = dy[off + c] * gamma[c];
    float xhat = (x[off + c] - mu) * rs;
    dx[off + c] = rs * (g - a - xhat * b);
  }
}

// dgamma, dbeta: one thread per column, looping over the rows in order.
extern "C" __global__ void layernorm_bwd_dgamma(const float* __restrict__ dy,
                                                const float* __restrict__ x,
                                                const float* __restrict__ mean,
                                                const float* __restrict__ rstd,
                                                float* __restrict__ dgamma,
                                                float* __restrict__ dbeta, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float dg = 0.f, db = 0.f;
  for (int r = 0; r < rows; ++r) {
    float d = dy[(size_t)r * cols + c];
    dg += d * (x[(size_t)r * cols + c] - mean[r]) * rstd[r];
    db += d;
  }
  dgamma[c] = dg;
  dbeta[c] = db;
}

// Half in, half out, float statistics (two-pass), half2 vector accesses.
extern "C" __global__ void layernorm_fwd_half(const __half2* __restrict__ x,
                                              const __half2* __restrict__ gamma,
                                              const __half2* __restrict__ beta,
                                              __half2* __restrict__ y, int cols, float eps) {
  __shared__ float part[32];
  __shared__ float stat;
  int c2 = cols / 2;
  const __half2* xr = x + (size_t)blockIdx.x * c2;
  float s = 0.f;
  for (int c = threadIdx.x; c < c2; c += blockDim.x) {
    float2 v = __half22float2(xr[c]);
    s += v.x + v.y;
  }
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < blockDim.x / 32; ++i) t += part[i];
    stat = t / cols;
  }
  __syncthreads();
  float mu = stat;
  float v2 = 0.f;
  for (int c = threadIdx.x; c < c2; c += blockDim.x) {
    float2 v = __half22float2(xr[c]);
    v2 += (v.x - mu) * (v.x - mu) + (v.y - mu) * (v.y - mu);
  }
  for (int o = 16; o; o >>= 1) v2 += __shfl_xor_sync(0xffffffffu, v2, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v2;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < blockDim.x / 32; ++i) t += part[i];
    stat = rsqrtf(t / cols + eps);
  }
  __syncthreads();
  float rs = stat;
  __half2 mu2 = __float2half2_rn(mu), rs2 = __float2half2_rn(rs);
  for (int c = threadIdx.x; c < c2; c += blockDim.x) {
    __half2 xh = __hmul2(__hsub2(xr[c], mu2), rs2);
    y[(size_t)blockIdx.x * c2 + c] = __hfma2(xh, gamma[c], beta[c]);
  }
}
