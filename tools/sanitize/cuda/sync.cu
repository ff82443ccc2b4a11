// Barrier-misuse kernels (class "sync") and their fixed twins.

extern "C" __global__ void early_return(const int *in, int *out, int n) {
    // BUG: threads with t >= n return before __syncthreads (n = 100 of 128: warp 3 is
    // split, its upper lanes have exited).
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[n - 1 - t];
}

extern "C" __global__ void early_return_fixed(const int *in, int *out, int n) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < n) s[t] = in[t];
    __syncthreads();
    if (t < n) out[t] = s[n - 1 - t];
}

extern "C" __global__ void cond_sync(const int *in, int *out, int n) {
    // BUG: __syncthreads inside `if (t < n)`: with n = 64 of 128, warps 2 and 3 skip it
    // and exit.
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < n) {
        __syncthreads();
        out[t] = s[(t + 1) % n];
    }
}

extern "C" __global__ void split_sync_warps(const int *in, int *out) {
    // BUG: warps 0-1 and warps 2-3 wait at different __syncthreads.
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[t] * 2;
        __syncthreads();
        out[t] = s[t + 64] ^ 0x55;
    } else {
        s[t] = in[t] * 3;
        __syncthreads();
        out[t] = s[t - 64] + 7;
    }
}

extern "C" __global__ void split_sync_fixed(const int *in, int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = t < 64 ? in[t] * 2 : in[t] * 3;
    __syncthreads();
    out[t] = t < 64 ? s[t + 64] ^ 0x55 : s[t - 64] + 7;
}

extern "C" __global__ void split_sync_lanes(const int *in, int *out) {
    // BUG: even and odd lanes of every warp wait at different __syncthreads.
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t & 1) {
        s[t] = in[t] * 2;
        __syncthreads();
        out[t] = s[t - 1] ^ 0x55;
    } else {
        s[t] = in[t] * 3;
        __syncthreads();
        out[t] = s[t + 1] + 7;
    }
}

extern "C" __global__ void split_sync_lanes_fixed(const int *in, int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = (t & 1) ? in[t] * 2 : in[t] * 3;
    __syncthreads();
    out[t] = (t & 1) ? s[t - 1] ^ 0x55 : s[t + 1] + 7;
}

extern "C" __global__ void cond_sync_fixed(const int *in, int *out, int n) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < n) out[t] = s[(t + 1) % n];
}

extern "C" __global__ void early_return_warps(const int *in, int *out, int n) {
    // BUG: whole warps (t >= n, n = 64 of 128) return before __syncthreads.
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 32) % n];
}
