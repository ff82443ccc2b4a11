// Single-precision libdevice math: trigonometry with large arguments (the Payne-Hanek
// reduction path), special functions, and the exp/log/pow family.

extern "C" __global__ void trig_large_args(const float* __restrict__ x, float* __restrict__ out,
                                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  float s, c;
  sincosf(a, &s, &c);
  float* o = out + 6 * i;
  o[0] = sinf(a);
  o[1] = cosf(a);
  o[2] = tanf(a);
  o[3] = s - c;
  o[4] = sinpif(a * 1e-3f);
  o[5] = cospif(a * 1e-3f);
}

extern "C" __global__ void special_funcs(const float* __restrict__ x, float* __restrict__ out,
                                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  float* o = out + 12 * i;
  o[0] = erfinvf(a * 0.999f);
  o[1] = erfcf(a * 3.f);
  o[2] = cbrtf(a * 100.f);
  o[3] = tanhf(a * 4.f);
  o[4] = lgammaf(fabsf(a) * 10.f + 0.1f);
  o[5] = tgammaf(a * 5.f + 0.5f);
  o[6] = log1pf(fabsf(a));
  o[7] = expm1f(a);
  o[8] = atan2f(a, a * a - 0.5f);
  o[9] = asinhf(a * 50.f);
  o[10] = acosf(a);
  o[11] = normcdfinvf(fabsf(a) * 0.98f + 0.01f);
}

extern "C" __global__ void exp_log_pow(const float* __restrict__ x, const float* __restrict__ y,
                                       float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  float* o = out + 10 * i;
  o[0] = powf(fabsf(a), b);
  o[1] = expf(b * 10.f);
  o[2] = exp2f(b * 20.f);
  o[3] = exp10f(b * 5.f);
  o[4] = logf(fabsf(a));
  o[5] = log2f(fabsf(a));
  o[6] = log10f(fabsf(a));
  o[7] = hypotf(a, b);
  o[8] = fmodf(a, b);
  o[9] = remainderf(a, b) + rcbrtf(fabsf(b)) + ldexpf(a, (int)(b * 10.f));
}
