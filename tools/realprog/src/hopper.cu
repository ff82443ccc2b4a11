// Hopper (sm_90) features through libcu++ and cooperative groups: 1D bulk (TMA) copies
// completing on a cuda::barrier with a transaction count, bulk stores back to global
// memory after a proxy fence, split cluster barriers, and elected single-thread work
// (cg::invoke_one, which uses elect.sync).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>

#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

// The "TMA 1D" example of the programming guide: bulk-load a tile, update it in shared
// memory, bulk-store it back.
extern "C" __global__ void bulk_copy_tx(int* __restrict__ data, int offset_add) {
  constexpr int N = 1024;
  __shared__ alignas(16) int smem[N];
  __shared__ barrier bar;
  int* tile = data + blockIdx.x * N;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::memcpy_async(smem, tile, cuda::aligned_size_t<16>(sizeof(smem)), bar);
    token = bar.arrive();
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < N; i += blockDim.x) smem[i] = smem[i] * 3 + offset_add + i;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(tile, smem, sizeof(smem));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// Bulk copy with an explicit expected-transaction count (memcpy_async_tx + barrier_arrive_tx).
extern "C" __global__ void bulk_copy_expect_tx(const float* __restrict__ in, float* __restrict__ out) {
  constexpr int N = 512;
  __shared__ alignas(16) float a[N];
  __shared__ alignas(16) float b[N];
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::device::memcpy_async_tx(a, in + blockIdx.x * 2 * N, cuda::aligned_size_t<16>(sizeof(a)), bar);
    cuda::device::memcpy_async_tx(b, in + blockIdx.x * 2 * N + N, cuda::aligned_size_t<16>(sizeof(b)), bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(a) + sizeof(b));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < N; i += blockDim.x) out[blockIdx.x * N + i] = fmaf(a[i], b[N - 1 - i], 1.f);
}

// Split arrive/wait cluster barriers around independent work, with DSMEM reads after.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_split_barrier(const int* __restrict__ in, int* __restrict__ out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int buf[128];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = in[g] * 7;
  auto token = cluster.barrier_arrive();
  int local = in[g] ^ 0x5a5a;  // work overlapping the barrier
  cluster.barrier_wait(std::move(token));
  int* other = cluster.map_shared_rank(buf, cluster.block_rank() ^ 1);
  int v = other[(threadIdx.x + 1) % blockDim.x];
  cluster.sync();
  out[g] = v + local;
}

// One elected thread per warp does the bookkeeping; invoke_one_broadcast returns its
// result to the whole warp.
extern "C" __global__ void elect_invoke_one(const int* __restrict__ in, int* __restrict__ out,
                                            unsigned* __restrict__ counts) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[g];
  int warp_sum = 0;
  for (int o = 16; o; o >>= 1) v += warp.shfl_xor(v, o);
  warp_sum = v;
  int base = cg::invoke_one_broadcast(warp, [&]() {
    atomicAdd(&counts[0], 1u);
    return warp_sum * 2;
  });
  cg::invoke_one(warp, [&]() { atomicAdd(&counts[1 + warp.meta_group_rank()], (unsigned)warp_sum); });
  out[g] = base + (int)warp.thread_rank();
}
