// Cooperative groups beyond whole blocks: static and dynamic tiled partitions, coalesced
// groups formed in divergent code, labeled/binary partitions, and tile scans.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile16_reduce(const int* __restrict__ in, int* __restrict__ out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  int s = cg::reduce(tile, v, cg::plus<int>());
  int m = cg::reduce(tile, v, cg::less<int>());
  if (tile.thread_rank() == 0) {
    int g = blockIdx.x * tile.meta_group_size() + tile.meta_group_rank();
    out[2 * g] = s;
    out[2 * g + 1] = m;
  }
}

// A dynamic tile of 8 threads: shuffles within the tile, any/all votes.
extern "C" __global__ void cg_dynamic_tiles(const float* __restrict__ in, float* __restrict__ out) {
  auto block = cg::this_thread_block();
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  auto t8 = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  float nb = t8.shfl(v, (t8.thread_rank() + 1) % 8);
  float up = t8.shfl_up(v, 2);
  tile8.sync();
  unsigned vote = t8.ballot(v > 0.f);
  out[3 * i] = nb;
  out[3 * i + 1] = up;
  out[3 * i + 2] = (float)vote + (t8.all(v > -2.f) ? 0.5f : 0.f) + (float)tile8.thread_rank() * 100.f;
}

// Threads that take a data-dependent branch form a coalesced group there, compute their rank
// in it, and do a reduction among themselves.
extern "C" __global__ void cg_coalesced(const int* __restrict__ in, int* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int r = -1, size = 0, sum = 0;
  __syncwarp();
  if (v & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    r = active.thread_rank();
    size = active.size();
    sum = cg::reduce(active, v, cg::plus<int>());
  }
  out[3 * i] = r;
  out[3 * i + 1] = size;
  out[3 * i + 2] = sum;
}

// labeled_partition by key and binary_partition by sign: per-group sums and ranks.
extern "C" __global__ void cg_partitions(const int* __restrict__ in, int* __restrict__ out) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  auto byKey = cg::labeled_partition(warp, v & 3);
  auto bySign = cg::binary_partition(warp, v < 0);
  out[4 * i] = cg::reduce(byKey, v, cg::plus<int>());
  out[4 * i + 1] = byKey.thread_rank();
  out[4 * i + 2] = cg::reduce(bySign, v, cg::greater<int>());
  out[4 * i + 3] = bySign.size();
}

extern "C" __global__ void cg_tile_scans(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  out[3 * i] = cg::exclusive_scan(tile, v, cg::bit_or<unsigned>());
  out[3 * i + 1] = cg::inclusive_scan(tile, v & 0xffff, cg::plus<unsigned>());
  auto t4 = cg::tiled_partition<4>(block);
  out[3 * i + 2] = cg::inclusive_scan(t4, v, cg::greater<unsigned>());
}
