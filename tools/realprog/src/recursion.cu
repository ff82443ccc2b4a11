// Recursive device functions (real call stacks in local memory): Fibonacci, a recursive
// quicksort of a per-thread array, the Ackermann function, and a recursive tree walk.

__device__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void fib_recursive(const unsigned* __restrict__ n, unsigned* __restrict__ out,
                                         int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = fib(n[i] % 16);
}

__device__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

extern "C" __global__ void quicksort_local(const int* __restrict__ in, int* __restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[24];
  for (int k = 0; k < 24; ++k) a[k] = in[t * 24 + k];
  quicksort(a, 0, 23);
  for (int k = 0; k < 24; ++k) out[t * 24 + k] = a[k];
}

__device__ unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

extern "C" __global__ void ackermann_small(const unsigned* __restrict__ in,
                                           unsigned* __restrict__ out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    unsigned m = in[i] % 3, n = (in[i] >> 8) % 4;
    out[i] = ackermann(m, n);
  }
}

// Implicit binary tree in an array (children of k at 2k+1, 2k+2): recursive depth-weighted
// sum and height of the subtree below each thread's root.
__device__ long long tree_walk(const int* t, int n, int k, int depth, int* height) {
  if (k >= n) {
    *height = 0;
    return 0;
  }
  int hl, hr;
  long long s = (long long)t[k] * depth;
  s += tree_walk(t, n, 2 * k + 1, depth + 1, &hl);
  s += tree_walk(t, n, 2 * k + 2, depth + 1, &hr);
  *height = 1 + max(hl, hr);
  return s;
}

extern "C" __global__ void tree_sum_recursive(const int* __restrict__ tree, long long* __restrict__ sum,
                                              int* __restrict__ height, int n, int roots) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= roots) return;
  int h;
  sum[r] = tree_walk(tree, n, r, 1, &h);
  height[r] = h;
}
