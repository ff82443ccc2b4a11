// Warp-level matrix multiply through nvcuda::wmma in every element type it offers.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <typename In, typename Acc, int M, int N, int K, typename LayA, typename LayB>
__device__ void tile(const In *a, const In *b, Acc *c) {
    wmma::fragment<wmma::matrix_a, M, N, K, In, LayA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, In, LayB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::fill_fragment(fc, Acc(0));
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_all(const half *h, const __nv_bfloat16 *bf, const signed char *s8, const unsigned char *u8,
                         const double *d, const float *f, float *of, half *oh, int *oi, double *od) {
    tile<half, float, 16, 16, 16, wmma::row_major, wmma::col_major>(h, h, of);
    tile<half, half, 32, 8, 16, wmma::col_major, wmma::row_major>(h, h, oh);
    tile<half, float, 8, 32, 16, wmma::row_major, wmma::row_major>(h, h, of);
    tile<__nv_bfloat16, float, 16, 16, 16, wmma::row_major, wmma::col_major>(bf, bf, of);
    tile<signed char, int, 16, 16, 16, wmma::row_major, wmma::col_major>(s8, s8, oi);
    tile<unsigned char, int, 16, 16, 16, wmma::row_major, wmma::col_major>(u8, u8, oi);
    tile<double, double, 8, 8, 4, wmma::row_major, wmma::col_major>(d, d, od);
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
    wmma::fill_fragment(tc, 0.f);
    wmma::load_matrix_sync(ta, f, 16);
    wmma::load_matrix_sync(tb, f, 16);
    for (int i = 0; i < ta.num_elements; i++) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
    wmma::mma_sync(tc, ta, tb, tc);
    wmma::store_matrix_sync(of, tc, 16, wmma::mem_col_major);
}
