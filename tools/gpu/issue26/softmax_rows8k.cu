// A row softmax for rows of 8192 floats, one block of 256 threads per row, each thread keeping
// its 32 values in registers between the passes (issue 26's GPU proofs): compiled as is it
// uses 48 registers a thread (ptxas, sm_90); with -maxrregcount=32, 32 registers and 76 bytes of
// spill stores, which `kbctl diff --explain` should name. No __launch_bounds__: it would
// override -maxrregcount. SLOW_PASS (defined by the bisect's later versions) reads
// the row again from global memory for the sum, with the precise expf: one more pass over the
// input (from L2 or DRAM) and more instructions.
// NVRTC has no <math.h>: INFINITY as nvcc's headers would define it.
#define INFINITY __int_as_float(0x7f800000)
__device__ float WarpMax(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float WarpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <bool kMax>
__device__ float BlockReduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = kMax ? WarpMax(v) : WarpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  float r = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  r = kMax ? WarpMax(r) : WarpSum(r);
  __syncthreads();
  return r;
}
extern "C" __global__ void softmax_rows8k(const float* __restrict__ in, float* __restrict__ out,
                                          long long rows, long long cols) {
  __shared__ float scratch[32];
  const float4* x = reinterpret_cast<const float4*>(in + blockIdx.x * cols);
  float4* y = reinterpret_cast<float4*>(out + blockIdx.x * cols);
  const long long items = cols / 4;  // at most 8 float4 per thread: cols <= 8192
  float4 c[8];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const long long i = threadIdx.x + k * 256LL;
    if (i < items) {
      c[k] = x[i];
      m = fmaxf(fmaxf(m, fmaxf(c[k].x, c[k].y)), fmaxf(c[k].z, c[k].w));
    }
  }
  m = BlockReduce<true>(m, scratch);
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const long long i = threadIdx.x + k * 256LL;
    if (i < items) {
#ifdef SLOW_PASS
      // The row read again instead of the registers' copy, and the precise (slower) exp.
      const float4 v = x[i];
      s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
#else
      const float4 v = c[k];
      s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
#endif
    }
  }
  s = BlockReduce<false>(s, scratch);
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const long long i = threadIdx.x + k * 256LL;
    if (i < items) {
      y[i] = make_float4(__expf(c[k].x - m) * inv, __expf(c[k].y - m) * inv,
                         __expf(c[k].z - m) * inv, __expf(c[k].w - m) * inv);
    }
  }
}
