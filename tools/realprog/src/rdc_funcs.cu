// Device functions with external linkage, module-scope __device__ data and calls that are
// not inlined: built both whole-program and with -rdc=true (relocatable device code),
// where every __device__ function stays a .visible .func with the ABI calling convention.

__device__ float g_poly[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f};
__device__ int g_lut[16] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225};

__device__ __noinline__ float horner(const float* c, int n, float x) {
  float r = c[n - 1];
  for (int i = n - 2; i >= 0; --i) r = fmaf(r, x, c[i]);
  return r;
}

__device__ __noinline__ int lut_mix(int v) { return g_lut[v & 15] + g_lut[(v >> 4) & 15] * 3; }

struct Pair {
  float a;
  int b;
};

__device__ __noinline__ Pair make_pair_dev(float x, int y) {
  Pair p;
  p.a = x * 2.f + (float)y;
  p.b = y ^ __float_as_int(x);
  return p;
}

__device__ __noinline__ double accumulate(double acc, float v, int k) {
  return acc + (double)v * (double)(k + 1);
}

extern "C" __global__ void rdc_poly_eval(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = horner(g_poly, 8, x[i]);
}

extern "C" __global__ void rdc_call_chain(const int* __restrict__ in, int* __restrict__ out_i,
                                          float* __restrict__ out_f, double* __restrict__ out_d,
                                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  Pair p = make_pair_dev((float)v * 0.001f, lut_mix(v));
  double acc = 0.0;
  for (int k = 0; k < 4; ++k) acc = accumulate(acc, p.a, k);
  out_i[i] = p.b;
  out_f[i] = p.a;
  out_d[i] = acc;
}

// A function pointer table: indirect calls through call.uni with a prototype.
typedef float (*unary_fn)(float);
__device__ __noinline__ float f_sq(float x) { return x * x; }
__device__ __noinline__ float f_neg(float x) { return -x; }
__device__ __noinline__ float f_half(float x) { return x * 0.5f; }
__device__ __noinline__ float f_abs1(float x) { return fabsf(x) + 1.f; }
__device__ unary_fn g_ops[4] = {f_sq, f_neg, f_half, f_abs1};

extern "C" __global__ void rdc_indirect_calls(const float* __restrict__ x,
                                              const unsigned* __restrict__ sel,
                                              float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unary_fn f = g_ops[sel[i] & 3];
  out[i] = f(x[i]);
}
