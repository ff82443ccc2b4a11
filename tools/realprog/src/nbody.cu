// The all-pairs N-body computation of GPU Gems 3 ch. 31: tiles of bodies in shared memory,
// softened inverse-cube forces with rsqrtf, a leapfrog integration step, and a double
// precision force kernel.

__device__ __forceinline__ float3 body_body(float4 bi, float4 bj, float3 ai, float eps2) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
  float inv = rsqrtf(dist2);
  float inv3 = inv * inv * inv;
  float s = bj.w * inv3;
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

extern "C" __global__ void nbody_forces(const float4* __restrict__ pos, float* __restrict__ acc,
                                        int n, float eps2) {
  extern __shared__ float4 sh[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 a = make_float3(0.f, 0.f, 0.f);
  for (int tile = 0; tile < n; tile += blockDim.x) {
    int j = tile + threadIdx.x;
    sh[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < blockDim.x; ++k) a = body_body(me, sh[k], a, eps2);
    __syncthreads();
  }
  if (i < n) {
    acc[3 * i] = a.x;
    acc[3 * i + 1] = a.y;
    acc[3 * i + 2] = a.z;
  }
}

extern "C" __global__ void nbody_integrate(float4* __restrict__ pos, float4* __restrict__ vel,
                                           const float* __restrict__ acc, float dt, float damping,
                                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i];
  v.x = (v.x + acc[3 * i] * dt) * damping;
  v.y = (v.y + acc[3 * i + 1] * dt) * damping;
  v.z = (v.z + acc[3 * i + 2] * dt) * damping;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  pos[i] = p;
  vel[i] = v;
}

extern "C" __global__ void nbody_forces_f64(const double* __restrict__ pos, double* __restrict__ acc,
                                            int n, double eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
  double ax = 0, ay = 0, az = 0;
  for (int j = 0; j < n; ++j) {
    double dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
    double d2 = dx * dx + dy * dy + dz * dz + eps2;
    double inv = rsqrt(d2);
    double s = pos[4 * j + 3] * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  acc[3 * i] = ax;
  acc[3 * i + 1] = ay;
  acc[3 * i + 2] = az;
}
