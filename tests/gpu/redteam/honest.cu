// Honest user kernels for `add` (issue 23, item 8): each must pass every check of the red-team
// run (manifest.txt). Same ABI as cheats.cu: a, b, out, n.
#define INDEX (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x)

// One element per thread.
extern "C" __global__ void honest_add(const float* a, const float* b, float* out, long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = a[i] + b[i];
}

// A grid-stride loop over a fixed grid.
extern "C" __global__ void honest_add_grid_stride(const float* a, const float* b, float* out,
                                                  long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = INDEX; i < n; i += stride) out[i] = a[i] + b[i];
}

// 16-byte loads and stores, four elements per thread; the tail one at a time.
extern "C" __global__ void honest_add_float4(const float* a, const float* b, float* out,
                                             long long n) {
  const long long i = INDEX * 4;
  if (i + 3 < n) {
    const float4 x = *reinterpret_cast<const float4*>(a + i);
    const float4 y = *reinterpret_cast<const float4*>(b + i);
    *reinterpret_cast<float4*>(out + i) = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else {
    for (long long j = i; j < n; ++j) out[j] = a[j] + b[j];
  }
}

// Read-only cache loads and a __device__ constant used legitimately (state that is the same in
// every job).
__constant__ float kOne = 1.0f;
extern "C" __global__ void honest_add_ldg(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ out, long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = kOne * __ldg(a + i) + __ldg(b + i);
}
