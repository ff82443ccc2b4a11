// Sparse matrix-vector products: CSR with a thread per row, CSR with a warp per row
// (shuffle reduction), and ELLPACK with column-major storage. The CSR row pointers are
// regular (a fixed count per row), the column indices arbitrary.

extern "C" __global__ void spmv_csr_scalar(const int* __restrict__ rowptr,
                                           const int* __restrict__ cols,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int rows, int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += vals[k] * x[cols[k] % ncols];
  y[r] = s;
}

extern "C" __global__ void spmv_csr_vector(const int* __restrict__ rowptr,
                                           const int* __restrict__ cols,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int rows, int ncols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float s = 0.f;
  for (int k = rowptr[warp] + lane; k < rowptr[warp + 1]; k += 32)
    s += vals[k] * __ldg(&x[cols[k] % ncols]);
  for (int o = 16; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[warp] = s;
}

extern "C" __global__ void spmv_ell(const int* __restrict__ cols, const float* __restrict__ vals,
                                    const float* __restrict__ x, float* __restrict__ y, int rows,
                                    int width, int ncols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int k = 0; k < width; ++k) {
    int c = cols[k * rows + r];
    if (c >= 0) s = fmaf(vals[k * rows + r], x[c % ncols], s);
  }
  y[r] = s;
}
