// Warp-synchronous primitives: votes and ballots, match, shuffles in several shapes (with a
// sub-warp width), and the sm_80 redux reductions.

extern "C" __global__ void warp_vote(const int* __restrict__ x, unsigned* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int all = __all_sync(0xffffffffu, v > -900);
  int any = __any_sync(0xffffffffu, v > 990);
  unsigned half = 0;
  if ((threadIdx.x & 31) < 16) half = __ballot_sync(0x0000ffffu, v & 1);
  out[4 * i] = ballot;
  out[4 * i + 1] = (unsigned)all | ((unsigned)any << 1);
  out[4 * i + 2] = __popc(ballot & ((1u << (threadIdx.x & 31)) - 1));
  out[4 * i + 3] = half;
}

extern "C" __global__ void warp_match(const int* __restrict__ keys, unsigned* __restrict__ any_mask,
                                      unsigned* __restrict__ all_mask, int* __restrict__ all_pred) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = keys[i];
  any_mask[i] = __match_any_sync(0xffffffffu, k);
  int pred = 0;
  // Warps whose keys were all folded to one value see a full match.
  int folded = (threadIdx.x >> 5) & 1 ? (k & 0) : k;
  all_mask[i] = __match_all_sync(0xffffffffu, folded, &pred);
  all_pred[i] = pred;
}

extern "C" __global__ void warp_shuffles(const float* __restrict__ x, float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  float v = x[i];
  float* o = out + 6 * i;
  o[0] = __shfl_sync(0xffffffffu, v, 7);                 // broadcast
  o[1] = __shfl_sync(0xffffffffu, v, (lane * 5) & 31);    // permutation
  o[2] = __shfl_up_sync(0xffffffffu, v, 3, 8);            // width 8
  o[3] = __shfl_down_sync(0xffffffffu, v, 5, 16);         // width 16
  float s = v;
  for (int m = 1; m < 32; m <<= 1) s = fmaxf(s, __shfl_xor_sync(0xffffffffu, s, m));
  o[4] = s;
  double d = (double)v * (lane + 1);
  o[5] = (float)__shfl_sync(0xffffffffu, d, 31 - lane);
}

extern "C" __global__ void warp_redux(const unsigned* __restrict__ x, unsigned* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i];
  unsigned* o = out + 6 * i;
  o[0] = __reduce_add_sync(0xffffffffu, v);
  o[1] = __reduce_min_sync(0xffffffffu, v);
  o[2] = __reduce_max_sync(0xffffffffu, v);
  o[3] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v);
  o[4] = __reduce_and_sync(0xffffffffu, v | 0x10000u) ^ __reduce_or_sync(0xffffffffu, v & 0xff);
  o[5] = __reduce_xor_sync(0xffffffffu, v);
}
