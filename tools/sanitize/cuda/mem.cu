// Memory-fault kernels (class "mem") and their fixed twins. Compiled with
//   nvcc -arch=sm_90 -ptx mem.cu -o corpus/sanitize/cu_mem.ptx
// Each buggy kernel has exactly one out-of-bounds or misaligned access; the manifest
// (tools/sanitize/manifest.json) gives the arguments that trigger it.

extern "C" __global__ void gread_shift(const int *in, int *out, int n) {
    // BUG: reads in[i + 1], one element past the end for the last thread.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1];
}

extern "C" __global__ void gread_shift_fixed(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) out[i] = in[i + 1];
}

extern "C" __global__ void gwrite_shift(const int *in, int *out, int n) {
    // BUG: writes out[i + 1], one element past the end for the last thread.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + 1] = in[i];
}

extern "C" __global__ void gwrite_shift_fixed(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) out[i + 1] = in[i];
}

extern "C" __global__ void saxpy_noguard(float a, const float *x, float *y, int n) {
    // BUG: no `if (i < n)`: the grid has more threads than elements.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
    (void)n;
}

extern "C" __global__ void saxpy_guard(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void scatter_base(int *out, int base) {
    // With base > 0 the writes run past a 64-element buffer.
    out[base + threadIdx.x] = threadIdx.x;
}

extern "C" __global__ void shared_read_off(const float *in, float *out, int off) {
    // With off = 1 the last thread reads s[64], past the 64-element array.
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + off];
}

extern "C" __global__ void shared_write_far(int *out, int idx) {
    // With idx >= 64 thread 0 writes far past the 64-element shared array.
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) s[idx] = 7;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void local_index(const int *in, int *out, int idx) {
    // A per-thread array indexed at run time: idx outside 0..7 is out of bounds.
    int a[8];
    for (int j = 0; j < 8; j++) a[j] = in[j] + threadIdx.x;
    out[threadIdx.x] = a[idx];
}

extern "C" __global__ void misaligned_u32(const char *p, int *out, int off) {
    // A 4-byte load at byte offset off: off % 4 != 0 is misaligned.
    out[threadIdx.x] = *(const int *)(p + off + 4 * threadIdx.x);
}

extern "C" __global__ void misaligned_f4(const float *p, float4 *out, int off) {
    // A 16-byte vector load from p + off floats: off % 4 != 0 is misaligned.
    out[threadIdx.x] = *(const float4 *)(p + off + 4 * threadIdx.x);
}

extern "C" __global__ void shared_misaligned(int *out, int off) {
    // A 4-byte shared-memory store at byte offset off: off % 4 != 0 is misaligned.
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) *(int *)((char *)s + off) = 5;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void atomic_hist(const int *keys, int *hist, int bins) {
    // Histogram without clamping: keys >= bins increment past the end of hist.
    atomicAdd(&hist[keys[threadIdx.x] % 1024], 1);
    (void)bins;
}

extern "C" __global__ void atomic_hist_fixed(const int *keys, int *hist, int bins) {
    atomicAdd(&hist[keys[threadIdx.x] % bins], 1);
}
