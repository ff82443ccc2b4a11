// Thread block clusters (sm_90): distributed shared memory through cooperative_groups
// (this_cluster(), map_shared_rank, cluster.sync()), with compile-time (__cluster_dims__)
// and launch-time cluster shapes.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Each CTA reduces its slice into shared memory; CTA rank 0 of the cluster adds the others'
// partial sums read through distributed shared memory.
extern "C" __global__ void __cluster_dims__(4, 1, 1)
cluster_reduce_dsmem(const float* __restrict__ in, float* __restrict__ out, int n) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float partial[256];
  __shared__ float block_total;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) block_total = partial[0];
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    float t = 0.f;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) t += *cluster.map_shared_rank(&block_total, r);
    out[blockIdx.x / cluster.num_blocks()] = t;
  }
  cluster.sync();
}

// The distributed-shared-memory histogram of the CUDA programming guide: each CTA owns a
// slice of the bins; every thread adds to the owning CTA's shared memory.
extern "C" __global__ void cluster_histogram(int* __restrict__ bins, const int* __restrict__ input,
                                             int nbins, int bins_per_block, int array_size) {
  extern __shared__ int smem[];
  namespace cg = cooperative_groups;
  int tid = cg::this_grid().thread_rank();
  cg::cluster_group cluster = cg::this_cluster();
  unsigned clusterBlockRank = cluster.block_rank();
  int cluster_size = cluster.dim_blocks().x;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
  cluster.sync();
  for (int i = tid; i < array_size; i += blockDim.x * gridDim.x) {
    int ldata = input[i];
    int binid = ldata;
    if (ldata < 0) binid = 0;
    else if (ldata >= nbins) binid = nbins - 1;
    int dst_block_rank = (int)(binid / bins_per_block);
    int dst_offset = binid % bins_per_block;
    int* dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
    atomicAdd(dst_smem + dst_offset, 1);
  }
  cluster.sync();
  int* lbins = bins + cluster.block_index().x * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
  (void)cluster_size;
}

// Ring exchange: every CTA writes its data into the next CTA's shared memory.
extern "C" __global__ void __cluster_dims__(2, 2, 1)
cluster_ring_exchange(const int* __restrict__ in, int* __restrict__ out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int inbox[128];
  unsigned rank = cluster.block_rank(), nb = cluster.num_blocks();
  unsigned gblock = blockIdx.y * gridDim.x + blockIdx.x;
  int v = in[gblock * blockDim.x + threadIdx.x];
  int* dst = cluster.map_shared_rank(inbox, (rank + 1) % nb);
  cluster.sync();
  dst[threadIdx.x] = v * 3 + (int)rank;
  cluster.sync();
  dim3 bi = cluster.block_index();
  out[gblock * blockDim.x + threadIdx.x] = inbox[threadIdx.x] + (int)(bi.x * 1000 + bi.y * 100);
}

// A 1D stencil whose halo cells come from the neighbouring CTAs' shared memory.
extern "C" __global__ void cluster_stencil_halo(const float* __restrict__ in,
                                                float* __restrict__ out, int n) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.f;
  cluster.sync();
  unsigned rank = cluster.block_rank(), nb = cluster.num_blocks();
  float left, right;
  if (threadIdx.x > 0) left = tile[threadIdx.x - 1];
  else left = rank > 0 ? *cluster.map_shared_rank(&tile[blockDim.x - 1], rank - 1) : 0.f;
  if (threadIdx.x + 1 < blockDim.x) right = tile[threadIdx.x + 1];
  else right = rank + 1 < nb ? *cluster.map_shared_rank(&tile[0], rank + 1) : 0.f;
  if (i < n) out[i] = 0.25f * left + 0.5f * tile[threadIdx.x] + 0.25f * right;
  cluster.sync();
}
