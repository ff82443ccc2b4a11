// Prefix sums: warp shuffles, the work-efficient (Blelloch) shared-memory scan with the
// bank-conflict padding of GPU Gems 3 ch. 39, cooperative_groups scans, and stream
// compaction built on a block scan.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// Inclusive scan of each 32-element warp segment, with the warp totals added in a second
// pass so that each CTA scans blockDim.x elements.
extern "C" __global__ void scan_warp_inclusive(const int* __restrict__ in, int* __restrict__ out,
                                               int n) {
  __shared__ int warp_tot[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  if (lane == 31) warp_tot[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < blockDim.x / 32 ? warp_tot[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      int u = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d) t += u;
    }
    warp_tot[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += warp_tot[warp - 1];
  if (i < n) out[i] = v;
}

// Exclusive scan of 2*blockDim.x floats per CTA (up-sweep, down-sweep), block totals out.
extern "C" __global__ void scan_blelloch(const float* __restrict__ in, float* __restrict__ out,
                                         float* __restrict__ block_sums, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int m = 2 * blockDim.x;
  int base = blockIdx.x * m;
  int ai = thid, bi = thid + blockDim.x;
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = base + ai < n ? in[base + ai] : 0.f;
  temp[bi + bankOffsetB] = base + bi < n ? in[base + bi] : 0.f;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }
  if (thid == 0) {
    int last = m - 1 + CONFLICT_FREE_OFFSET(m - 1);
    block_sums[blockIdx.x] = temp[last];
    temp[last] = 0.f;
  }
  for (int d = 1; d < m; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      float t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  if (base + ai < n) out[base + ai] = temp[ai + bankOffsetA];
  if (base + bi < n) out[base + bi] = temp[bi + bankOffsetB];
}

// The second phase of a multi-block scan: add the scanned block totals.
extern "C" __global__ void scan_add_offsets(float* data, const float* __restrict__ offsets,
                                            int n) {
  __shared__ float off;
  if (threadIdx.x == 0) off = offsets[blockIdx.x];
  __syncthreads();
  int base = blockIdx.x * 2 * blockDim.x;
  for (int k = 0; k < 2; ++k) {
    int i = base + k * blockDim.x + threadIdx.x;
    if (i < n) data[i] += off;
  }
}

// cooperative_groups::inclusive_scan / exclusive_scan on tiles, combined across the block.
extern "C" __global__ void scan_cg_block(const unsigned* __restrict__ in, unsigned* incl,
                                         unsigned* excl_xor, int n) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  __shared__ unsigned tile_tot[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? in[i] : 0u;
  unsigned s = cg::inclusive_scan(tile, v);
  unsigned x = cg::exclusive_scan(tile, v, cg::bit_xor<unsigned>());
  if (tile.thread_rank() == 31) tile_tot[tile.meta_group_rank()] = s;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    unsigned t = tile.thread_rank() < tile.meta_group_size() ? tile_tot[tile.thread_rank()] : 0u;
    tile_tot[tile.thread_rank()] = cg::exclusive_scan(tile, t);
  }
  block.sync();
  if (i < n) {
    incl[i] = s + tile_tot[tile.meta_group_rank()];
    excl_xor[i] = x;
  }
}

// Stream compaction in one CTA: keep elements above a threshold, in order, using a block
// scan of the predicate (no atomics, so the output order is fixed).
extern "C" __global__ void stream_compact(const float* __restrict__ in, float* __restrict__ out,
                                          int* __restrict__ count, float threshold, int n) {
  __shared__ int warp_tot[32];
  __shared__ int running;
  if (threadIdx.x == 0) running = 0;
  __syncthreads();
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int base = 0; base < n; base += blockDim.x) {
    int i = base + threadIdx.x;
    float x = i < n ? in[i] : 0.f;
    bool keep = i < n && x > threshold;
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    int rank = __popc(ballot & ((1u << lane) - 1));
    if (lane == 0) warp_tot[warp] = __popc(ballot);
    __syncthreads();
    int before = running;
    for (int w = 0; w < warp; ++w) before += warp_tot[w];
    if (keep) out[before + rank] = x;
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) running = before + rank + (keep ? 1 : 0);
    __syncthreads();
  }
  if (threadIdx.x == 0) *count = running;
}
