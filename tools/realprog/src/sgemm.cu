// Single-precision matrix multiply, row-major: C = alpha * A * B + beta * C.
// A naive kernel, the 16x16 shared-memory tiling of the CUDA samples, a 64x64 register-
// blocked kernel (each thread 4x4 outputs, float4 shared loads), and a warp-per-row GEMV.

extern "C" __global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N,
                                       int K, float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

#define TILE 16
extern "C" __global__ void sgemm_tiled16(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// 64x64 output tile per CTA of 256 threads; K-step 8; A staged transposed in shared memory.
extern "C" __global__ void __launch_bounds__(256)
sgemm_regblock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
  __shared__ __align__(16) float As[8][64];
  __shared__ __align__(16) float Bs[8][64];
  int tid = threadIdx.x;
  int tr = tid / 16, tc = tid % 16;  // 16x16 threads, each 4x4
  int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 8) {
    // 512 A elements and 512 B elements per step, two per thread.
    for (int e = tid; e < 512; e += 256) {
      int r = e / 8, c = e % 8;
      As[c][r] = A[(bm + r) * K + k0 + c];
      int br = e / 64, bc = e % 64;
      Bs[br][bc] = B[(k0 + br) * N + bn + bc];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float4 a = *reinterpret_cast<const float4*>(&As[k][tr * 4]);
      float4 b = *reinterpret_cast<const float4*>(&Bs[k][tc * 4]);
      float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float4 o = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(&C[(bm + tr * 4 + i) * N + bn + tc * 4]) = o;
  }
}

// y = A x, one warp per row, shuffle reduction.
extern "C" __global__ void sgemv_warp(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s = fmaf(A[warp * cols + c], x[c], s);
  for (int off = 16; off; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  if (lane == 0) y[warp] = s;
}
