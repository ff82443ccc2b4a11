// Uninitialised-read kernels (class "init") and their fixed twins. Buffers given as
// `uninit:BYTES` are cudaMalloc'd memory the host never wrote.

extern "C" __global__ void copy_in(const int *in, int *out) {
    // With `in` uninitialised (uninit:BYTES), every read is of memory never written.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + 1;
}

extern "C" __global__ void scratch_partial(int *tmp, int *out) {
    // BUG: the scratch buffer is written by the first 32 threads only, read by all 64.
    int t = threadIdx.x;
    if (t < 32) tmp[t] = t * 5;
    __syncthreads();
    out[t] = tmp[t];
}

extern "C" __global__ void scratch_full(int *tmp, int *out) {
    int t = threadIdx.x;
    tmp[t] = t * 5;
    __syncthreads();
    out[t] = tmp[t];
}

extern "C" __global__ void scratch_neighbor(int *tmp, int *out) {
    // BUG: reads tmp[t + 1]; the last thread's neighbour slot tmp[64] is never written.
    int t = threadIdx.x;
    tmp[t] = t;
    __syncthreads();
    out[t] = tmp[t + 1];
}

extern "C" __global__ void shared_half(const int *in, int *out) {
    // BUG: only s[0..63] is written, all 128 elements are read.
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 64) s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void shared_full(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void reduce_pow2(const int *in, int *out) {
    // BUG: the reduction assumes 128 threads; launched with 96, s[96..127] are never
    // written but read in the first round.
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[0] = s[0];
}

extern "C" __global__ void reduce_pow2_pad(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t + blockDim.x < 128) s[t + blockDim.x] = 0;
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[0] = s[0];
}

extern "C" __global__ void accumulate(int *acc, const int *in) {
    // acc[i] += in[i]: with acc uninitialised (forgot cudaMemset), reads garbage.
    int i = threadIdx.x;
    acc[i] += in[i];
}

extern "C" __global__ void local_half(const int *in, int *out) {
    // BUG (local memory read before written): a[0..7] written, a[in[t] & 15] read; threads
    // 8..15 of every 16 read a[8..15], never written. The dynamic index keeps `a` in local
    // memory.
    int a[16];
    int t = threadIdx.x;
    for (int k = 0; k < 8; k++) a[k] = in[(t + k) % 64];
    out[t] = a[in[t] & 15];
}

extern "C" __global__ void local_full(const int *in, int *out) {
    int a[16];
    int t = threadIdx.x;
    for (int k = 0; k < 16; k++) a[k] = in[(t + k) % 64];
    out[t] = a[in[t] & 15];
}
