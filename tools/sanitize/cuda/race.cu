// Shared-memory race kernels (class "race") and their fixed twins, 128 threads (4 warps)
// unless the manifest says otherwise.

extern "C" __global__ void rotate_nosync(const int *in, int *out) {
    // BUG (RAW): no __syncthreads between the store and the read of another warp's slot.
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void rotate_sync(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void reduce_nosync(const int *in, int *out) {
    // BUG (RAW/WAR): tree reduction without __syncthreads between the rounds.
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_sync(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void waw_slot(int *out) {
    // BUG (WAW): every warp writes the same 32 slots.
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t % 32] = t;
    __syncthreads();
    if (t < 32) out[t] = s[t];
}

extern "C" __global__ void waw_slot_fixed(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32) s[t] = t;
    __syncthreads();
    if (t < 32) out[t] = s[t];
}

extern "C" __global__ void tile_loop_onesync(const int *in, int *out, int iters) {
    // BUG (WAR): a loop that refills a shared tile with only one __syncthreads per
    // iteration: the next iteration's store can overtake another warp's read.
    __shared__ int s[128];
    int t = threadIdx.x;
    int acc = 0;
    for (int it = 0; it < iters; it++) {
        s[t] = in[it * 128 + t];
        __syncthreads();
        acc += s[127 - t];
    }
    out[t] = acc;
}

extern "C" __global__ void tile_loop_twosync(const int *in, int *out, int iters) {
    __shared__ int s[128];
    int t = threadIdx.x;
    int acc = 0;
    for (int it = 0; it < iters; it++) {
        s[t] = in[it * 128 + t];
        __syncthreads();
        acc += s[127 - t];
        __syncthreads();
    }
    out[t] = acc;
}

extern "C" __global__ void broadcast_nosync(const int *in, int *out) {
    // BUG (RAW): thread 0 publishes a value that every thread reads without a barrier.
    __shared__ int v;
    if (threadIdx.x == 0) v = in[0] * 3;
    out[threadIdx.x] = v + threadIdx.x;
}

extern "C" __global__ void broadcast_sync(const int *in, int *out) {
    __shared__ int v;
    if (threadIdx.x == 0) v = in[0] * 3;
    __syncthreads();
    out[threadIdx.x] = v + threadIdx.x;
}

extern "C" __global__ void reuse_nosync(const int *in, int *out) {
    // BUG (WAR): the shared buffer is overwritten for a second phase while other
    // warps may still read the first phase (the second __syncthreads is missing).
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int a = s[(t + 64) % 128];
    s[t] = a * 2;
    __syncthreads();
    out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void reuse_sync(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int a = s[(t + 64) % 128];
    __syncthreads();
    s[t] = a * 2;
    __syncthreads();
    out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void warp_shuffle_nosyncwarp(const int *in, int *out) {
    // BUG (intra-warp RAW, 32 threads): lanes exchange through shared memory without
    // __syncwarp (needed since Volta's independent thread scheduling).
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + 1) % 32];
}

extern "C" __global__ void warp_shuffle_syncwarp(const int *in, int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncwarp();
    out[t] = s[(t + 1) % 32];
}

extern "C" __global__ void global_flag_race(int *out) {
    // BUG (global-memory WAW between CTAs): every CTA writes out[0] unordered.
    if (threadIdx.x == 0) out[0] = blockIdx.x;
}

extern "C" __global__ void global_plain_sum(const int *in, int *out) {
    // BUG (global-memory read-modify-write race between CTAs): thread 0 of every CTA adds its
    // value to out[0] with a plain load and store.
    if (threadIdx.x == 0) out[0] += in[blockIdx.x];
}

extern "C" __global__ void global_atomic_sum(const int *in, int *out) {
    if (threadIdx.x == 0) atomicAdd(&out[0], in[blockIdx.x]);
}

extern "C" __global__ void global_rotate_nosync(const int *in, int *out, int *g) {
    // BUG (global-memory RAW between warps of one CTA): g[t] written, g[(t+32)%64] read by
    // the other warp, no __syncthreads.
    int t = threadIdx.x;
    g[t] = in[t];
    out[t] = g[(t + 32) % 64];
}

extern "C" __global__ void global_rotate_sync(const int *in, int *out, int *g) {
    int t = threadIdx.x;
    g[t] = in[t];
    __syncthreads();
    out[t] = g[(t + 32) % 64];
}

extern "C" __global__ void global_neighbor_cta(const int *in, int *out, int *g) {
    // BUG (global-memory RAW between CTAs): each CTA writes its slice of g and reads the next
    // CTA's slice; nothing orders CTAs.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    g[i] = in[i];
    __syncthreads();
    out[i] = g[(i + blockDim.x) % n];
}

extern "C" __global__ void threadfence_reduce(const int *in, int *out, int *partial,
                                              unsigned *count) {
    // The CUDA programming guide's pattern: each CTA publishes a partial sum, fences, and
    // counts itself in; the last CTA (which sees count = gridDim.x - 1) reads every partial.
    __shared__ int s[32];
    __shared__ bool last;
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 32 + t];
    __syncthreads();
    if (t == 0) {
        int sum = 0;
        for (int k = 0; k < 32; k++) sum += s[k];
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned v = atomicInc(count, gridDim.x);
        last = (v == gridDim.x - 1);
    }
    __syncthreads();
    if (last && t == 0) {
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; b++) total += ((volatile int *)partial)[b];
        out[0] = total;
    }
}
