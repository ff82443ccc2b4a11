// Sorting inside a CTA: bitonic sort in shared memory (keys, key-value pairs), a
// split-based LSD radix sort with ballots, odd-even transposition sort, and a merge-path
// merge of two sorted runs.

// Bitonic sort of 2*blockDim.x unsigned keys per CTA, in place.
extern "C" __global__ void bitonic_sort_shared(unsigned* keys) {
  extern __shared__ unsigned s[];
  unsigned n = 2 * blockDim.x;
  unsigned* g = keys + blockIdx.x * n;
  s[threadIdx.x] = g[threadIdx.x];
  s[threadIdx.x + blockDim.x] = g[threadIdx.x + blockDim.x];
  for (unsigned size = 2; size <= n; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      bool ascending = ((pos & size) == 0) || size == n;
      unsigned a = s[pos], b = s[pos + stride];
      if ((a > b) == ascending) {
        s[pos] = b;
        s[pos + stride] = a;
      }
    }
  }
  __syncthreads();
  g[threadIdx.x] = s[threadIdx.x];
  g[threadIdx.x + blockDim.x] = s[threadIdx.x + blockDim.x];
}

// Key-value bitonic sort, float keys descending, values are the original indices.
extern "C" __global__ void bitonic_sort_kv(const float* __restrict__ keys_in, float* keys_out,
                                           unsigned* vals_out) {
  __shared__ float k[512];
  __shared__ unsigned v[512];
  const unsigned n = 512;
  unsigned t = threadIdx.x;
  for (unsigned j = t; j < n; j += blockDim.x) {
    k[j] = keys_in[blockIdx.x * n + j];
    v[j] = j;
  }
  for (unsigned size = 2; size <= n; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      for (unsigned j = t; j < n / 2; j += blockDim.x) {
        unsigned pos = 2 * j - (j & (stride - 1));
        bool desc = (pos & size) == 0;
        float a = k[pos], b = k[pos + stride];
        unsigned ia = v[pos], ib = v[pos + stride];
        bool swap = desc ? (a < b || (a == b && ia > ib)) : (a > b || (a == b && ia < ib));
        if (swap) {
          k[pos] = b; k[pos + stride] = a;
          v[pos] = ib; v[pos + stride] = ia;
        }
      }
    }
  }
  __syncthreads();
  for (unsigned j = t; j < n; j += blockDim.x) {
    keys_out[blockIdx.x * n + j] = k[j];
    vals_out[blockIdx.x * n + j] = v[j];
  }
}

// LSD radix sort of blockDim.x keys (one per thread), one bit per pass: each pass splits
// the keys into zeros then ones with a ballot-based block scan.
extern "C" __global__ void radix_sort_split(const unsigned* __restrict__ in, unsigned* out,
                                            int bits) {
  __shared__ unsigned s[1024];
  __shared__ unsigned zeros_before_warp[33];
  unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
  unsigned key = in[blockIdx.x * blockDim.x + t];
  for (int b = 0; b < bits; ++b) {
    bool one = (key >> b) & 1u;
    unsigned ball = __ballot_sync(0xffffffffu, !one);
    if (lane == 0) zeros_before_warp[warp] = __popc(ball);
    __syncthreads();
    if (t == 0) {
      unsigned acc = 0;
      for (unsigned w = 0; w < nw; ++w) {
        unsigned c = zeros_before_warp[w];
        zeros_before_warp[w] = acc;
        acc += c;
      }
      zeros_before_warp[32] = acc;
    }
    __syncthreads();
    unsigned zeros_below = zeros_before_warp[warp] + __popc(ball & ((1u << lane) - 1));
    unsigned total_zeros = zeros_before_warp[32];
    unsigned dst = one ? total_zeros + (t - zeros_below) : zeros_below;
    s[dst] = key;
    __syncthreads();
    key = s[t];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = key;
}

// Odd-even transposition sort of blockDim.x ints per CTA.
extern "C" __global__ void odd_even_sort(int* data) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x, n = blockDim.x;
  int* g = data + blockIdx.x * n;
  s[t] = g[t];
  for (unsigned phase = 0; phase < n; ++phase) {
    __syncthreads();
    unsigned i = 2 * t + (phase & 1);
    if (t < n / 2 && i + 1 < n) {
      int a = s[i], b = s[i + 1];
      if (a > b) { s[i] = b; s[i + 1] = a; }
    }
  }
  __syncthreads();
  g[t] = s[t];
}

__device__ int merge_path(const int* a, int na, const int* b, int nb, int diag) {
  int lo = max(0, diag - nb), hi = min(diag, na);
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (a[mid] <= b[diag - 1 - mid]) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Merge two sorted runs with the merge-path partition: each thread merges a fixed number of
// outputs starting at its diagonal. The runs are sorted in-kernel first (a local insertion
// sort of each thread's slice, then a bitonic pass would be needed; instead the inputs are
// made sorted as prefix sums of non-negative values).
extern "C" __global__ void merge_sorted(const int* __restrict__ da, const int* __restrict__ db,
                                        int* out, int na, int nb, int per_thread) {
  extern __shared__ int sm[];
  int* a = sm;
  int* b = sm + na;
  if (threadIdx.x == 0) {
    int acc = 0;
    for (int i = 0; i < na; ++i) { acc += da[i]; a[i] = acc; }
    acc = 0;
    for (int i = 0; i < nb; ++i) { acc += db[i]; b[i] = acc; }
  }
  __syncthreads();
  int diag = (blockIdx.x * blockDim.x + threadIdx.x) * per_thread;
  if (diag >= na + nb) return;
  int i = merge_path(a, na, b, nb, diag);
  int j = diag - i;
  for (int k = 0; k < per_thread && diag + k < na + nb; ++k) {
    bool take_a = j >= nb || (i < na && a[i] <= b[j]);
    out[diag + k] = take_a ? a[i++] : b[j++];
  }
}
