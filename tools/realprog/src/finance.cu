// Option pricing as in the CUDA samples: Black-Scholes with the polynomial normal CDF,
// Monte Carlo paths with a per-thread generator and a deterministic block reduction, and a
// binomial tree with backward induction in shared memory.

__device__ __forceinline__ float cnd(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
              A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
  float K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));
  float c = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

extern "C" __global__ void black_scholes(float* __restrict__ call, float* __restrict__ put,
                                         const float* __restrict__ S, const float* __restrict__ X,
                                         const float* __restrict__ T, float R, float V, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = S[i], x = X[i], t = T[i];
    float sqrtT = sqrtf(t);
    float d1 = __fdividef(__logf(s / x) + (R + 0.5f * V * V) * t, V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float cndd1 = cnd(d1), cndd2 = cnd(d2);
    float expRT = __expf(-R * t);
    call[i] = s * cndd1 - x * expRT * cndd2;
    put[i] = x * expRT * (1.0f - cndd2) - s * (1.0f - cndd1);
  }
}

// European call by Monte Carlo: each thread simulates `paths` terminal prices with its own
// xorshift generator and Box-Muller normals; the CTA reduces the payoffs in shared memory.
extern "C" __global__ void monte_carlo_call(float* __restrict__ out, float s0, float k, float r,
                                            float sigma, float t, int paths, unsigned seed) {
  __shared__ float sum[256];
  unsigned st = seed ^ (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u;
  st = st ? st : 1u;
  float drift = (r - 0.5f * sigma * sigma) * t, vol = sigma * sqrtf(t);
  float acc = 0.f;
  for (int p = 0; p < paths; p += 2) {
    st ^= st << 13; st ^= st >> 17; st ^= st << 5;
    float u1 = (st >> 8) * (1.f / 16777216.f) + (0.5f / 16777216.f);
    st ^= st << 13; st ^= st >> 17; st ^= st << 5;
    float u2 = (st >> 8) * (1.f / 16777216.f);
    float rad = sqrtf(-2.f * logf(u1));
    float z0 = rad * cosf(6.283185307f * u2), z1 = rad * sinf(6.283185307f * u2);
    acc += fmaxf(s0 * expf(drift + vol * z0) - k, 0.f);
    acc += fmaxf(s0 * expf(drift + vol * z1) - k, 0.f);
  }
  sum[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sum[threadIdx.x] += sum[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = expf(-r * t) * sum[0] / (float)(paths * blockDim.x);
}

// One option per CTA; `steps` (<= blockDim.x) time steps of the binomial tree.
extern "C" __global__ void binomial_option(const float* __restrict__ S, const float* __restrict__ X,
                                           const float* __restrict__ T, float* __restrict__ out,
                                           float R, float V, int steps) {
  __shared__ float v[257];
  float s = S[blockIdx.x], x = X[blockIdx.x], t = T[blockIdx.x];
  float dt = t / steps;
  float vdt = V * sqrtf(dt);
  float rdt = R * dt;
  float If = expf(rdt), Df = expf(-rdt);
  float u = expf(vdt), d = expf(-vdt);
  float pu = (If - d) / (u - d), pd = 1.0f - pu;
  float puByDf = pu * Df, pdByDf = pd * Df;
  for (int i = threadIdx.x; i <= steps; i += blockDim.x) {
    float price = s * expf(vdt * (2.f * i - steps));
    v[i] = fmaxf(price - x, 0.f);
  }
  __syncthreads();
  for (int j = steps; j > 0; --j) {
    float nv = 0.f;
    int i = threadIdx.x;
    if (i < j) nv = puByDf * v[i + 1] + pdByDf * v[i];
    __syncthreads();
    if (i < j) v[i] = nv;
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v[0];
}
