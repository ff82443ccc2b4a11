// Fast-math intrinsics (SFU approximations) and code that -use_fast_math rewrites: the
// plain libm calls of `libm_under_fast_math` become __expf, __logf, ... in that build, and
// divisions and square roots become approximate.

extern "C" __global__ void fast_intrinsics(const float* __restrict__ x, const float* __restrict__ y,
                                           float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  float* o = out + 14 * i;
  o[0] = __expf(a);
  o[1] = __logf(fabsf(b) + 1e-3f);
  o[2] = __sinf(a * 3.f);
  o[3] = __cosf(a * 3.f);
  o[4] = __tanf(a);
  o[5] = __powf(fabsf(b) + 0.5f, a);
  o[6] = __fdividef(a, b);
  o[7] = __saturatef(a * 2.f);
  o[8] = rsqrtf(fabsf(b) + 1e-2f);
  o[9] = __exp10f(a);
  o[10] = __log2f(fabsf(a) + 1e-3f);
  o[11] = __frcp_rn(b) + __fsqrt_rn(fabsf(a));
  o[12] = __fmaf_rz(a, b, 1.f) + __fadd_rd(a, b) + __fmul_ru(a, b);
  o[13] = __fdiv_rn(a, b) - __fdiv_rz(a, b);
}

// Plain libm calls: accurate in the default build, fast approximations with -use_fast_math.
extern "C" __global__ void libm_under_fast_math(const float* __restrict__ x,
                                                float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  float* o = out + 8 * i;
  o[0] = expf(a);
  o[1] = logf(fabsf(a) + 0.25f);
  o[2] = sinf(a);
  o[3] = cosf(a);
  o[4] = powf(fabsf(a) + 1.f, 1.7f);
  o[5] = sqrtf(fabsf(a));
  o[6] = 1.f / (a + 5.f);
  o[7] = a / (fabsf(a) + 0.5f);
}

// The GELU activation in its tanh form and its exact erf form; SiLU with a fast exponential.
extern "C" __global__ void gelu_silu(const float* __restrict__ x, float* __restrict__ gelu_tanh,
                                     float* __restrict__ gelu_erf, float* __restrict__ silu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  const float k0 = 0.7978845608028654f, k1 = 0.044715f;
  gelu_tanh[i] = 0.5f * v * (1.f + tanhf(k0 * (v + k1 * v * v * v)));
  gelu_erf[i] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
  silu[i] = __fdividef(v, 1.f + __expf(-v));
}
