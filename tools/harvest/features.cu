// Kernels that exercise many PTX features through CUDA C++ (nvcc decides the PTX): cooperative
// groups, clusters and distributed shared memory, atomics of every width, warp intrinsics,
// asynchronous copies and barriers, half/bf16/fp8 math, textures and surfaces, printf.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void reduce_cg(const float *in, float *out, int n) {
    auto block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    float v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(out, v);
}

__global__ void grid_sync(int *data, int n) {
    auto grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] += 1;
    grid.sync();
    if (i < n) data[i] *= data[(i + 1) % n];
}

__global__ void __cluster_dims__(2, 1, 1) cluster_dsmem(int *out) {
    __shared__ int smem[64];
    auto cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    smem[threadIdx.x % 64] = rank * 100 + threadIdx.x;
    cluster.sync();
    int *peer = cluster.map_shared_rank(smem, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x % 64];
    cluster.sync();
}

__global__ void atomics(int *i, unsigned long long *u, float *f, double *d, __half2 *h, __nv_bfloat162 *b, float2 *f2, float4 *f4) {
    atomicAdd(i, 1); atomicSub(i, 2); atomicExch(i, 3); atomicMin(i, 4); atomicMax(i, 5);
    atomicInc((unsigned *)i, 6); atomicDec((unsigned *)i, 7); atomicCAS(i, 8, 9);
    atomicAnd(i, 10); atomicOr(i, 11); atomicXor(i, 12);
    atomicAdd(u, 1ull); atomicCAS(u, 2ull, 3ull); atomicMin(u, 5ull);
    atomicAdd(f, 1.5f); atomicAdd(d, 2.5); atomicAdd(h, __floats2half2_rn(1, 2));
    atomicAdd(b, __floats2bfloat162_rn(1, 2));
    atomicAdd_block(i, 1); atomicAdd_system(f, 3.f);
#if __CUDA_ARCH__ >= 900
    atomicAdd(f2, make_float2(1, 2)); atomicAdd(f4, make_float4(1, 2, 3, 4));
#endif
}

__global__ void warp_ops(const int *in, int *out) {
    int v = in[threadIdx.x];
    unsigned m = __activemask();
    int s = __shfl_sync(m, v, 3) + __shfl_up_sync(m, v, 1) + __shfl_down_sync(m, v, 2) + __shfl_xor_sync(m, v, 4);
    s += __ballot_sync(m, v > 0) + __any_sync(m, v) + __all_sync(m, v) + __popc(__match_any_sync(m, v));
    int pred; s += __match_all_sync(m, v, &pred) + pred;
    s += __reduce_add_sync(m, v) + __reduce_min_sync(m, v) + __reduce_max_sync(m, (unsigned)v) + __reduce_or_sync(m, (unsigned)v);
    s += __brev(v) + __clz(v) + __ffs(v) + __byte_perm(v, s, 0x3210) + __funnelshift_l(v, s, 3) + __dp4a(v, s, 1);
    __nanosleep(100);
    out[threadIdx.x] = s + (int)__sad(v, s, 1) + __mul24(v, s) + __umulhi(v, s);
}

__global__ void async_copy(const float *in, float *out, int n) {
    __shared__ float tile[256];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    __shared__ float t2[256];
    pipe.producer_acquire();
    cuda::memcpy_async(&t2[threadIdx.x], &in[threadIdx.x], cuda::aligned_size_t<4>(4), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x] + t2[threadIdx.x];
    pipe.consumer_release();
}

__global__ void barrier_tma(const int4 *in, int4 *out) {
    __shared__ alignas(16) int4 buf[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token tok;
    if (threadIdx.x == 0) {
        cuda::memcpy_async(buf, in + blockIdx.x * 128, cuda::aligned_size_t<16>(sizeof(buf)), bar);
    }
    tok = bar.arrive();
    bar.wait(std::move(tok));
    out[blockIdx.x * 128 + threadIdx.x] = buf[threadIdx.x];
}

__global__ void halfmath(const __half *a, const __nv_bfloat16 *b, __half *c, __nv_bfloat16 *d, float *e) {
    int i = threadIdx.x;
    __half2 h = __halves2half2(a[i], a[i + 1]);
    h = __hfma2(h, h, __float2half2_rn(1.f));
    h = h2exp(h) + h2sqrt(h) + h2rcp(h);
    c[i] = __hmax(__low2half(h), __high2half(h));
    __nv_bfloat16 x = __hfma(b[i], b[i + 1], __float2bfloat16(2.f));
    d[i] = hexp(x) + hsin(x) + __hmax_nan(x, b[i]);
    __nv_fp8_e4m3 f8(e[i]);
    __nv_fp8_e5m2 g8(e[i + 1]);
    e[i] = float(f8) + float(g8) + __half2float(__float2half_rz(e[i])) + __fdividef(e[i], 3.f) + __saturatef(e[i]) +
           __fmaf_rd(e[i], 2.f, 1.f) + __frcp_ru(e[i]) + __fsqrt_rz(e[i]) + __expf(e[i]) + __logf(e[i]) + erfcinvf(e[i]) +
           __double2float_rd(1.0 / e[i]) + rsqrtf(e[i]) + sinpif(e[i]) + __int_as_float(__float_as_int(e[i]) ^ 1);
}

__global__ void texsurf(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float *out) {
    int x = threadIdx.x, y = blockIdx.x;
    float v = tex2D<float>(tex, x + 0.5f, y + 0.5f) + tex1Dfetch<float>(tex, x) + tex2DLod<float>(tex, x, y, 0.f);
    float4 g = tex2Dgather<float4>(tex, x, y, 0);
    surf2Dwrite(v + g.x, surf, x * 4, y);
    out[y * blockDim.x + x] = surf2Dread<float>(surf, x * 4, y);
}

__device__ int counter;
// CUDA has no intrinsics for these special registers; nvcc's headers read them with inline PTX.
__device__ unsigned long long globaltimer() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ unsigned laneid() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__global__ void misc(int *p, long long *clk) {
    if (threadIdx.x == 0) printf("block %d of %d: %f\n", blockIdx.x, gridDim.x, 1.5);
    clk[0] = clock64(); clk[1] = globaltimer(); clk[2] = smid(); clk[3] = laneid();
    __threadfence(); __threadfence_block(); __threadfence_system();
    int v = __ldg(p) + __ldcg(p + 1) + __ldca(p + 2) + __ldcs(p + 3) + __ldlu(p + 4) + __ldcv(p + 5);
    __stwb(p + 6, v); __stcg(p + 7, v); __stcs(p + 8, v); __stwt(p + 9, v);
    __syncwarp(); __syncthreads_or(v); __syncthreads_and(v); v += __syncthreads_count(v);
    int *m = (int *)malloc(16); m[0] = v; p[10] = m[0]; free(m);
    if (isfinite(*(float *)p)) atomicAdd(&counter, 1);

}
