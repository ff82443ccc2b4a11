// Integer bit manipulation: population count, bit reversal, leading zeros, find-first-set,
// funnel shifts, high halves of products, byte permutes, Morton codes, and a bitwise CRC32.

extern "C" __global__ void bit_ops32(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                     unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned* o = out + 12 * i;
  o[0] = __popc(x);
  o[1] = __brev(x);
  o[2] = __clz(x);
  o[3] = __ffs(x);
  o[4] = __funnelshift_l(x, y, y & 63);
  o[5] = __funnelshift_rc(x, y, y);
  o[6] = __umulhi(x, y);
  o[7] = (unsigned)__mulhi((int)x, (int)y);
  o[8] = __byte_perm(x, y, y & 0x7777);
  o[9] = (x << (y & 31)) | (x >> ((32 - (y & 31)) & 31));
  o[10] = __umul24(x, y) ^ (unsigned)__mul24((int)x, (int)y);
  o[11] = __uhadd(x, y) + __urhadd(x, y) + (unsigned)__hadd((int)x, (int)y);
}

extern "C" __global__ void bit_ops64(const unsigned long long* __restrict__ a,
                                     const unsigned long long* __restrict__ b,
                                     unsigned long long* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  unsigned long long* o = out + 8 * i;
  o[0] = __popcll(x);
  o[1] = __brevll(x);
  o[2] = __clzll(x >> (y & 63));
  o[3] = __ffsll(x & (y << 7));
  o[4] = __umul64hi(x, y);
  o[5] = (unsigned long long)__mul64hi((long long)x, (long long)y);
  o[6] = x * y + (x >> 13) * (y | 1);
  o[7] = (x / ((y >> 40) | 1)) ^ (x % ((y >> 50) | 3));
}

__device__ __forceinline__ unsigned part1by2(unsigned x) {
  x &= 0x000003ff;
  x = (x ^ (x << 16)) & 0xff0000ff;
  x = (x ^ (x << 8)) & 0x0300f00f;
  x = (x ^ (x << 4)) & 0x030c30c3;
  x = (x ^ (x << 2)) & 0x09249249;
  return x;
}

// 3D Morton codes of 10-bit coordinates, and their decoding with pext-style loops.
extern "C" __global__ void morton3d(const unsigned* __restrict__ xyz, unsigned* __restrict__ code,
                                    unsigned* __restrict__ decoded, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = xyz[3 * i] & 1023, y = xyz[3 * i + 1] & 1023, z = xyz[3 * i + 2] & 1023;
  unsigned m = (part1by2(z) << 2) | (part1by2(y) << 1) | part1by2(x);
  code[i] = m;
  unsigned dx = 0, dy = 0, dz = 0;
  for (int b = 0; b < 10; ++b) {
    dx |= ((m >> (3 * b)) & 1) << b;
    dy |= ((m >> (3 * b + 1)) & 1) << b;
    dz |= ((m >> (3 * b + 2)) & 1) << b;
  }
  decoded[i] = dx | (dy << 10) | (dz << 20);
}

// CRC-32 (IEEE, reflected) of each thread's 64-byte chunk, bit by bit.
extern "C" __global__ void crc32_chunks(const unsigned char* __restrict__ data,
                                        unsigned* __restrict__ crc, int chunk) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned char* p = data + (size_t)t * chunk;
  unsigned c = 0xffffffffu;
  for (int k = 0; k < chunk; ++k) {
    c ^= p[k];
#pragma unroll
    for (int b = 0; b < 8; ++b) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  crc[t] = ~c;
}
