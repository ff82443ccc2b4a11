// Stencils: a radius-3 1D stencil with shared-memory halos, a 2D Jacobi step on 16x16
// tiles with halos, a 3x3 convolution with weights in constant memory, a 7-point 3D heat
// step, and a Sobel edge detector on 8-bit pixels.

#define R 3
__constant__ float c_weights1d[2 * R + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};
__constant__ float c_kernel3x3[9] = {1.f / 16, 2.f / 16, 1.f / 16, 2.f / 16, 4.f / 16,
                                     2.f / 16, 1.f / 16, 2.f / 16, 1.f / 16};

extern "C" __global__ void stencil1d_r3(const float* __restrict__ in, float* __restrict__ out,
                                        int n) {
  extern __shared__ float s[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  s[l] = g < n ? in[g] : 0.f;
  if (threadIdx.x < R) {
    int left = g - R, right = g + blockDim.x;
    s[l - R] = left >= 0 ? in[left] : 0.f;
    s[l + blockDim.x] = right < n ? in[right] : 0.f;
  }
  __syncthreads();
  if (g < n) {
    float acc = 0.f;
#pragma unroll
    for (int k = -R; k <= R; ++k) acc += c_weights1d[k + R] * s[l + k];
    out[g] = acc;
  }
}

#define BX 16
#define BY 16
extern "C" __global__ void jacobi2d_shared(const float* __restrict__ in, float* __restrict__ out,
                                           int nx, int ny) {
  __shared__ float t[BY + 2][BX + 2];
  int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
  auto at = [&](int xx, int yy) {
    xx = min(max(xx, 0), nx - 1);
    yy = min(max(yy, 0), ny - 1);
    return in[yy * nx + xx];
  };
  t[ly][lx] = at(x, y);
  if (threadIdx.x == 0) t[ly][0] = at(x - 1, y);
  if (threadIdx.x == BX - 1) t[ly][BX + 1] = at(x + 1, y);
  if (threadIdx.y == 0) t[0][lx] = at(x, y - 1);
  if (threadIdx.y == BY - 1) t[BY + 1][lx] = at(x, y + 1);
  __syncthreads();
  if (x < nx && y < ny)
    out[y * nx + x] = 0.25f * (t[ly][lx - 1] + t[ly][lx + 1] + t[ly - 1][lx] + t[ly + 1][lx]);
}

extern "C" __global__ void conv2d_3x3_const(const float* __restrict__ in, float* __restrict__ out,
                                            int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      float v = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? in[yy * w + xx] : 0.f;
      acc = fmaf(c_kernel3x3[(dy + 1) * 3 + dx + 1], v, acc);
    }
  out[y * w + x] = acc;
}

extern "C" __global__ void heat3d_step(const float* __restrict__ u, float* __restrict__ un,
                                       int nx, int ny, int nz, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  for (int z = 0; z < nz; ++z) {
    int i = (z * ny + y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
      un[i] = u[i];
      continue;
    }
    float lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx * ny] + u[i + nx * ny] -
                6.f * u[i];
    un[i] = u[i] + alpha * lap;
  }
}

extern "C" __global__ void sobel_u8(const unsigned char* __restrict__ in,
                                    unsigned char* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[y * w + x] = 0;
    return;
  }
  auto p = [&](int dx, int dy) { return (int)in[(y + dy) * w + x + dx]; };
  int gx = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1);
  int gy = -p(-1, -1) - 2 * p(0, -1) - p(1, -1) + p(-1, 1) + 2 * p(0, 1) + p(1, 1);
  float mag = sqrtf((float)(gx * gx + gy * gy));
  out[y * w + x] = (unsigned char)min(255, __float2int_rn(mag));
}
