// CUB block- and warp-level collectives, the building blocks of Thrust and of most CUDA
// libraries: BlockReduce, BlockScan, BlockRadixSort, WarpReduce, BlockLoad/BlockStore with
// warp transposes, and BlockHistogram.
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>

extern "C" __global__ void cub_block_reduce(const int* __restrict__ in, int* __restrict__ out) {
  using BR = cub::BlockReduce<int, 128>;
  __shared__ typename BR::TempStorage tmp;
  int v[4];
  for (int k = 0; k < 4; ++k) v[k] = in[(blockIdx.x * 128 + threadIdx.x) * 4 + k];
  int s = BR(tmp).Sum(v);
  __syncthreads();
  int m = BR(tmp).Reduce(v[0] ^ v[3], cuda::maximum<>{});
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = s;
    out[2 * blockIdx.x + 1] = m;
  }
}

extern "C" __global__ void cub_block_scan(const float* __restrict__ in, float* __restrict__ incl,
                                          float* __restrict__ excl, float* __restrict__ totals) {
  using BS = cub::BlockScan<float, 128, cub::BLOCK_SCAN_RAKING>;
  __shared__ typename BS::TempStorage tmp;
  float v[2];
  int base = blockIdx.x * 256 + threadIdx.x * 2;
  v[0] = in[base];
  v[1] = in[base + 1];
  float a[2], b[2], tot;
  BS(tmp).InclusiveSum(v, a);
  __syncthreads();
  BS(tmp).ExclusiveSum(v, b, tot);
  incl[base] = a[0];
  incl[base + 1] = a[1];
  excl[base] = b[0];
  excl[base + 1] = b[1];
  if (threadIdx.x == 0) totals[blockIdx.x] = tot;
}

extern "C" __global__ void cub_block_radix_sort(const unsigned* __restrict__ keys_in,
                                                const int* __restrict__ vals_in,
                                                unsigned* __restrict__ keys_out,
                                                int* __restrict__ vals_out) {
  using BRS = cub::BlockRadixSort<unsigned, 128, 4, int>;
  __shared__ typename BRS::TempStorage tmp;
  unsigned k[4];
  int v[4];
  int base = blockIdx.x * 512 + threadIdx.x * 4;
  for (int j = 0; j < 4; ++j) {
    k[j] = keys_in[base + j];
    v[j] = vals_in[base + j];
  }
  BRS(tmp).Sort(k, v);
  for (int j = 0; j < 4; ++j) {
    keys_out[base + j] = k[j];
    vals_out[base + j] = v[j];
  }
}

extern "C" __global__ void cub_warp_reduce(const float* __restrict__ in, float* __restrict__ out) {
  using WR = cub::WarpReduce<float>;
  __shared__ typename WR::TempStorage tmp[4];
  int warp = threadIdx.x / 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float s = WR(tmp[warp]).Sum(v);
  float m = WR(tmp[warp]).Reduce(v, cuda::minimum<>{});
  if ((threadIdx.x & 31) == 0) {
    int g = blockIdx.x * (blockDim.x / 32) + warp;
    out[2 * g] = s;
    out[2 * g + 1] = m;
  }
}

// Load blocked-by-warp-transpose, reverse each thread's items, store striped.
extern "C" __global__ void cub_load_store_transpose(const int* __restrict__ in, int* __restrict__ out) {
  using BL = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using BSt = cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename BL::TempStorage load;
    typename BSt::TempStorage store;
  } tmp;
  int items[4];
  BL(tmp.load).Load(in + blockIdx.x * 512, items);
  __syncthreads();
  int r[4] = {items[3] * 2, items[2] + 1, items[1] - 1, items[0] ^ (int)threadIdx.x};
  BSt(tmp.store).Store(out + blockIdx.x * 512, r);
}

extern "C" __global__ void cub_block_histogram(const unsigned char* __restrict__ in,
                                               unsigned* __restrict__ hist) {
  using BH = cub::BlockHistogram<unsigned char, 128, 4, 256, cub::BLOCK_HISTO_SORT>;
  __shared__ typename BH::TempStorage tmp;
  __shared__ unsigned smem_hist[256];
  unsigned char items[4];
  for (int j = 0; j < 4; ++j) items[j] = in[blockIdx.x * 512 + threadIdx.x * 4 + j];
  BH(tmp).Histogram(items, smem_hist);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += 128) hist[blockIdx.x * 256 + b] = smem_hist[b];
}
