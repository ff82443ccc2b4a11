// Memory-bound kernels: grid-stride loops, vectorised float4 access, a padded shared-memory
// transpose, and dynamic shared memory (including more than the 48 KiB default, which needs
// the opt-in attribute).

extern "C" __global__ void saxpy_grid_stride(float a, const float* __restrict__ x,
                                             float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = fmaf(a, x[i], y[i]);
}

extern "C" __global__ void vec_add_float4(const float4* __restrict__ a, const float4* __restrict__ b,
                                          float4* __restrict__ c, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y - y.y, x.z * y.z, fmaxf(x.w, y.w));
  }
}

#define TDIM 32
#define BROWS 8
extern "C" __global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out,
                                            int w, int h) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void dyn_smem_reverse(const int* __restrict__ in, int* __restrict__ out) {
  extern __shared__ int s[];
  int base = blockIdx.x * blockDim.x;
  s[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// 64 KiB of dynamic shared memory: a float slice and a histogram carved out of one buffer.
extern "C" __global__ void dyn_smem_large(const float* __restrict__ in, float* __restrict__ out,
                                          unsigned* __restrict__ hist, int per_block) {
  extern __shared__ __align__(16) unsigned char raw[];
  float* vals = reinterpret_cast<float*>(raw);                       // per_block floats
  unsigned* h = reinterpret_cast<unsigned*>(raw + per_block * sizeof(float));  // 64 bins
  const float* src = in + (size_t)blockIdx.x * per_block;
  for (int i = threadIdx.x; i < 64; i += blockDim.x) h[i] = 0;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) vals[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) {
    float v = vals[per_block - 1 - i];
    atomicAdd(&h[__float2uint_rz(fabsf(v) * 63.99f) & 63], 1u);
    out[(size_t)blockIdx.x * per_block + i] = v * 2.f + vals[i];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) hist[blockIdx.x * 64 + i] = h[i];
}
