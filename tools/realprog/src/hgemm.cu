// Half and bfloat16 matrix multiply without tensor cores: shared-memory tiles of __half or
// __nv_bfloat16, float accumulation (the usual mixed precision), a __half2 accumulating
// variant (__hfma2), and a half2-vectorised GEMV.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define T 16

extern "C" __global__ void hgemm_tiled_f32acc(const __half* __restrict__ A,
                                              const __half* __restrict__ B, __half* __restrict__ C,
                                              int M, int N, int K) {
  __shared__ __half As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc = fmaf(__half2float(As[ty][k]), __half2float(Bs[k][tx]), acc);
    __syncthreads();
  }
  C[row * N + col] = __float2half_rn(acc);
}

// Each thread computes two adjacent columns with a __half2 accumulator.
extern "C" __global__ void hgemm_half2_acc(const __half* __restrict__ A,
                                           const __half2* __restrict__ B2, __half2* __restrict__ C2,
                                           int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col2 = blockIdx.x * blockDim.x + threadIdx.x;  // pair index
  if (row >= M || col2 >= N / 2) return;
  __half2 acc = __float2half2_rn(0.f);
  for (int k = 0; k < K; ++k) {
    __half2 a = __half2half2(A[row * K + k]);
    acc = __hfma2(a, B2[k * (N / 2) + col2], acc);
  }
  C2[row * (N / 2) + col2] = acc;
}

extern "C" __global__ void bf16gemm_tiled(const __nv_bfloat16* __restrict__ A,
                                          const __nv_bfloat16* __restrict__ B,
                                          __nv_bfloat16* __restrict__ C, float* __restrict__ Cf,
                                          int M, int N, int K) {
  __shared__ __nv_bfloat16 As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k)
      acc = fmaf(__bfloat162float(As[ty][k]), __bfloat162float(Bs[k][tx]), acc);
    __syncthreads();
  }
  C[row * N + col] = __float2bfloat16_rn(acc);
  Cf[row * N + col] = acc;
}

// y = A x with half2 loads; partial sums in float; one warp per row.
extern "C" __global__ void hgemv_h2(const __half2* __restrict__ A2, const __half2* __restrict__ x2,
                                    __half* __restrict__ y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols / 2; c += 32) {
    float2 p = __half22float2(__hmul2(A2[warp * (cols / 2) + c], x2[c]));
    s += p.x + p.y;
  }
  for (int off = 16; off; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[warp] = __float2half(s);
}
