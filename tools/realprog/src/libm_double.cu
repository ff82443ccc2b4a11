// Double-precision libdevice math and arithmetic: sqrt, exp, log, pow, trigonometry,
// erf, cbrt; dot products and norms with fma; the IEEE-rounded double intrinsics.

extern "C" __global__ void dmath(const double* __restrict__ x, const double* __restrict__ y,
                                 double* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  double* o = out + 12 * i;
  o[0] = sqrt(fabs(a));
  o[1] = exp(b * 20.0);
  o[2] = log(fabs(a));
  o[3] = pow(fabs(a), b * 3.0);
  o[4] = sin(a * 100.0);
  o[5] = cos(a * 100.0);
  o[6] = tan(a);
  o[7] = atan(a * 10.0);
  o[8] = erf(b * 2.0);
  o[9] = cbrt(a * 1000.0);
  o[10] = log1p(fabs(b)) + expm1(b);
  o[11] = atan2(a, b) + hypot(a, b);
}

extern "C" __global__ void ddot_norm(const double* __restrict__ a, const double* __restrict__ b,
                                     double* __restrict__ out, int n) {
  __shared__ double s_dot[256], s_nrm[256];
  double dot = 0.0, nrm = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    dot = fma(a[i], b[i], dot);
    nrm = fma(a[i], a[i], nrm);
  }
  s_dot[threadIdx.x] = dot;
  s_nrm[threadIdx.x] = nrm;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      s_dot[threadIdx.x] += s_dot[threadIdx.x + s];
      s_nrm[threadIdx.x] += s_nrm[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = s_dot[0];
    out[1] = sqrt(s_nrm[0]);
    out[2] = s_dot[0] / sqrt(s_nrm[0]);
    out[3] = rsqrt(s_nrm[0]);
  }
}

extern "C" __global__ void dintrinsics(const double* __restrict__ x, const double* __restrict__ y,
                                       double* __restrict__ out, long long* __restrict__ iout,
                                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  double* o = out + 8 * i;
  o[0] = __ddiv_rn(a, b);
  o[1] = __ddiv_rz(a, b);
  o[2] = __dsqrt_ru(fabs(a));
  o[3] = __drcp_rd(b);
  o[4] = __fma_rz(a, b, 1.0);
  o[5] = __dadd_ru(a, b) - __dmul_rd(a, b);
  o[6] = (double)__double2float_rn(a) + (double)__double2float_rz(b);
  o[7] = __hiloint2double(__double2hiint(a), __double2loint(b));
  iout[2 * i] = __double2ll_rn(a * 1e12);
  iout[2 * i + 1] = (long long)__double2ull_rz(fabs(b) * 1e15) ^ __double_as_longlong(a);
}
