// libcu++ (cuda::std) in device code: complex arithmetic, <bit> utilities, std::array with
// a sorting network, numeric_limits and cmath overloads.
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/cmath>
#include <cuda/std/utility>

using cfloat = cuda::std::complex<float>;

// z -> z^2 + c iterated; then exp, abs and arg of the result.
extern "C" __global__ void complex_iterate(const float2* __restrict__ zin, float* __restrict__ out,
                                           int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cfloat c(zin[i].x * 0.5f, zin[i].y * 0.5f), z(0.f, 0.f);
  for (int k = 0; k < iters; ++k) z = z * z + c;
  cfloat e = cuda::std::exp(c * cfloat(0.f, 1.f));
  float* o = out + 6 * i;
  o[0] = z.real();
  o[1] = z.imag();
  o[2] = cuda::std::abs(z);
  o[3] = cuda::std::arg(c);
  o[4] = e.real();
  o[5] = (c / (z + cfloat(2.f, 0.f))).imag();
}

extern "C" __global__ void bit_utils(const unsigned* __restrict__ x, unsigned* __restrict__ out,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  unsigned* o = out + 8 * i;
  o[0] = cuda::std::popcount(v);
  o[1] = cuda::std::countl_zero(v);
  o[2] = cuda::std::countr_zero(v);
  o[3] = cuda::std::rotl(v, (int)(v & 31));
  o[4] = cuda::std::rotr(v, 7);
  o[5] = cuda::std::bit_ceil(v & 0xffffu);
  o[6] = cuda::std::bit_floor(v);
  o[7] = cuda::std::bit_width(v) + (cuda::std::has_single_bit(v & 0xff) ? 100u : 0u);
}

// A 16-element sorting network on a cuda::std::array in registers.
template <int N>
__device__ void oddeven_network(cuda::std::array<float, N>& a) {
#pragma unroll
  for (int p = 1; p < N; p <<= 1)
#pragma unroll
    for (int k = p; k >= 1; k >>= 1)
#pragma unroll
      for (int j = k % p; j + k < N; j += 2 * k)
#pragma unroll
        for (int i = 0; i < k; ++i)
          if (i + j + k < N && (i + j) / (2 * p) == (i + j + k) / (2 * p))
            if (a[i + j] > a[i + j + k]) cuda::std::swap(a[i + j], a[i + j + k]);
}

extern "C" __global__ void array_sort_network(const float* __restrict__ in, float* __restrict__ out,
                                              float* __restrict__ stats) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::std::array<float, 16> a;
  for (int k = 0; k < 16; ++k) a[k] = in[t * 16 + k];
  oddeven_network<16>(a);
  for (int k = 0; k < 16; ++k) out[t * 16 + k] = a[k];
  float lo = cuda::std::numeric_limits<float>::max(), hi = cuda::std::numeric_limits<float>::lowest();
  for (float v : a) {
    lo = cuda::std::fmin(lo, v);
    hi = cuda::std::fmax(hi, v);
  }
  stats[2 * t] = lo + cuda::std::numeric_limits<float>::epsilon();
  stats[2 * t + 1] = cuda::std::hypot(hi, lo);
}
