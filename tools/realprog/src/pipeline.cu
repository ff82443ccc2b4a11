// Asynchronous copies to shared memory with libcu++: a multi-stage cuda::pipeline shared by
// the CTA, cuda::memcpy_async completing on a cuda::barrier, the __pipeline_* primitives of
// cuda_pipeline.h, and a double-buffered SGEMM tile loop on cp.async.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cuda_pipeline.h>

#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

// Sum of each tile of blockDim.x floats, `stages` tiles in flight.
extern "C" __global__ void pipeline_tile_sum(const float* __restrict__ in, float* __restrict__ out,
                                             int tiles_per_block) {
  constexpr int stages = 3;
  extern __shared__ float buf[];  // stages * blockDim.x floats
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int tile = blockDim.x;
  const float* base = in + (size_t)blockIdx.x * tiles_per_block * tile;
  float acc = 0.f;
  int fetch = 0;
  for (int t = 0; t < tiles_per_block; ++t) {
    for (; fetch < tiles_per_block && fetch < t + stages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf + (fetch % stages) * tile, base + (size_t)fetch * tile,
                         sizeof(float) * tile, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    float v = buf[(t % stages) * tile + threadIdx.x];
    acc += v * (float)(t + 1);
    block.sync();
    pipe.consumer_release();
  }
  out[blockIdx.x * tile + threadIdx.x] = acc;
}

// One bulk memcpy_async of the whole CTA slice, completion on a cuda::barrier, then a
// shared-memory reversal.
extern "C" __global__ void barrier_memcpy_async(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int s[512];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, s, in + blockIdx.x * 512, sizeof(int) * 512, bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < 512; i += blockDim.x) out[blockIdx.x * 512 + i] = s[511 - i] + i;
}

// Per-thread 16-byte async copies with the primitives API, two batches in flight.
extern "C" __global__ void pipeline_primitives(const int4* __restrict__ in, int4* __restrict__ out,
                                               int batches) {
  __shared__ int4 s[2][128];
  int t = threadIdx.x;
  const int4* base = in + (size_t)blockIdx.x * batches * blockDim.x;
  __pipeline_memcpy_async(&s[0][t], &base[t], sizeof(int4));
  __pipeline_commit();
  int4 acc = make_int4(0, 0, 0, 0);
  for (int b = 0; b < batches; ++b) {
    if (b + 1 < batches)
      __pipeline_memcpy_async(&s[(b + 1) & 1][t], &base[(size_t)(b + 1) * blockDim.x + t],
                              sizeof(int4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    int4 v = s[b & 1][t];
    acc.x += v.x;
    acc.y ^= v.y;
    acc.z = max(acc.z, v.z);
    acc.w += v.w * (b + 1);
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

// 32x32 SGEMM tiles, K-step 32, two stages of cp.async (16-byte chunks, aligned_size_t).
extern "C" __global__ void pipeline_sgemm_db(const float* __restrict__ A,
                                             const float* __restrict__ B, float* __restrict__ C,
                                             int M, int N, int K) {
  __shared__ __align__(16) float As[2][32][32];
  __shared__ __align__(16) float Bs[2][32][32];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int tid = threadIdx.x;  // 256 threads: 8 rows x 32 columns, 4 outputs each
  int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
  int ty = tid / 32, tx = tid % 32;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  auto load = [&](int stage, int k0) {
    pipe.producer_acquire();
    // 32 rows of 32 floats = 256 chunks of 16 bytes for each matrix: one per thread.
    int row = tid / 8, ch = (tid % 8) * 4;
    cuda::memcpy_async(&As[stage][row][ch], &A[(r0 + row) * K + k0 + ch],
                       cuda::aligned_size_t<16>(16), pipe);
    cuda::memcpy_async(&Bs[stage][row][ch], &B[(k0 + row) * N + c0 + ch],
                       cuda::aligned_size_t<16>(16), pipe);
    pipe.producer_commit();
  };
  int steps = K / 32;
  load(0, 0);
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) load((s + 1) & 1, (s + 1) * 32);
    pipe.consumer_wait();
    block.sync();
    int st = s & 1;
#pragma unroll 8
    for (int k = 0; k < 32; ++k) {
      float b = Bs[st][k][tx];
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] = fmaf(As[st][ty * 4 + i][k], b, acc[i]);
    }
    block.sync();
    pipe.consumer_release();
  }
  for (int i = 0; i < 4; ++i) C[(r0 + ty * 4 + i) * N + c0 + tx] = acc[i];
}
