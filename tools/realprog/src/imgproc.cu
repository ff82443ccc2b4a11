// Image processing: the Mandelbrot set, RGBA to grey, a separable Gaussian row pass with
// coefficients in constant memory, and bilinear resampling.

__constant__ float c_gauss[9] = {0.0162162162f, 0.0540540541f, 0.1216216216f, 0.1945945946f,
                                 0.2270270270f, 0.1945945946f, 0.1216216216f, 0.0540540541f,
                                 0.0162162162f};

extern "C" __global__ void mandelbrot(unsigned char* __restrict__ out, int w, int h, int max_iter,
                                      float x0, float y0, float dx) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cr = x0 + px * dx, ci = y0 + py * dx;
  float zr = 0.f, zi = 0.f;
  int it = 0;
  while (it < max_iter && zr * zr + zi * zi < 4.f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.f * zr * zi + ci;
    zr = t;
    ++it;
  }
  out[py * w + px] = (unsigned char)(it * 255 / max_iter);
}

extern "C" __global__ void rgba_to_grey(const uchar4* __restrict__ rgba, unsigned char* __restrict__ grey,
                                        float* __restrict__ luma, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = rgba[i];
  float y = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
  grey[i] = (unsigned char)__float2uint_rn(y);
  luma[i] = __saturatef(y / 255.f) * (p.w / 255.f);
}

extern "C" __global__ void gaussian_row(const float* __restrict__ in, float* __restrict__ out,
                                        int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
#pragma unroll
  for (int k = -4; k <= 4; ++k) {
    int xx = min(max(x + k, 0), w - 1);
    s = fmaf(c_gauss[k + 4], in[y * w + xx], s);
  }
  out[y * w + x] = s;
}

extern "C" __global__ void bilinear_resize(const float* __restrict__ in, float* __restrict__ out,
                                           int iw, int ih, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= ow || y >= oh) return;
  float fx = (x + 0.5f) * iw / (float)ow - 0.5f, fy = (y + 0.5f) * ih / (float)oh - 0.5f;
  int x0 = max(0, (int)floorf(fx)), y0 = max(0, (int)floorf(fy));
  int x1 = min(iw - 1, x0 + 1), y1 = min(ih - 1, y0 + 1);
  float ax = fx - floorf(fx), ay = fy - floorf(fy);
  ax = fx < 0.f ? 0.f : ax;
  ay = fy < 0.f ? 0.f : ay;
  float top = (1.f - ax) * in[y0 * iw + x0] + ax * in[y0 * iw + x1];
  float bot = (1.f - ax) * in[y1 * iw + x0] + ax * in[y1 * iw + x1];
  out[y * ow + x] = (1.f - ay) * top + ay * bot;
}
