// Histograms with integer atomics (the final counts do not depend on the order): privatised
// per-CTA shared histograms merged with global atomics, plain global atomics, warp-aggregated
// updates with __match_any_sync, and float binning.

extern "C" __global__ void histogram256_shared(const unsigned char* __restrict__ data,
                                               unsigned* __restrict__ hist, int n) {
  __shared__ unsigned h[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
  __syncthreads();
  const uchar4* d4 = reinterpret_cast<const uchar4*>(data);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
    uchar4 v = d4[i];
    atomicAdd(&h[v.x], 1u);
    atomicAdd(&h[v.y], 1u);
    atomicAdd(&h[v.z], 1u);
    atomicAdd(&h[v.w], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (h[i]) atomicAdd(&hist[i], h[i]);
}

extern "C" __global__ void histogram_global(const unsigned* __restrict__ data,
                                            unsigned* __restrict__ hist, int n, int bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[data[i] % bins], 1u);
}

// Threads of a warp with the same key elect a leader that adds the group's count.
extern "C" __global__ void histogram_warp_match(const int* __restrict__ keys,
                                                unsigned* __restrict__ hist,
                                                unsigned* __restrict__ groups, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int key = i < n ? keys[i] : -1;
  unsigned peers = __match_any_sync(0xffffffffu, key);
  int leader = __ffs(peers) - 1;
  int lane = threadIdx.x & 31;
  if (i < n) groups[i] = peers;
  if (key >= 0 && lane == leader) atomicAdd(&hist[key], __popc(peers));
}

// Binning of floats into [lo, hi) with clamping of the outliers to the edge bins.
extern "C" __global__ void histogram_float_bins(const float* __restrict__ x,
                                                unsigned* __restrict__ hist, int* __restrict__ bin,
                                                int n, float lo, float hi, int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float scaled = (x[i] - lo) * __fdividef((float)bins, hi - lo);
  int b = __float2int_rd(scaled);
  b = min(max(b, 0), bins - 1);
  bin[i] = b;
  atomicAdd(&hist[b], 1u);
}
