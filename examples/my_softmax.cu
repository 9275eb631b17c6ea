// A user softmax for kbench (the example the README and docs/user_kernels.md run): one block of
// 256 threads per row, three passes over the row (max, sum of exponentials, write), each
// reduced across the block through shared memory. Any number of columns.
//
//   kbctl bench softmax --source examples/my_softmax.cu --entry softmax_kernel --grid rows \
//     --block 256 --shape 4096x4096 --device cuda:0
//
// The softmax ABI (`kbctl kernels softmax --abi`): the input, the output, rows, cols.
// NVRTC has no <math.h>: INFINITY as nvcc's headers would define it (nvcc has its own).
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

template <bool kMax>
__device__ float BlockReduce(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  float r = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, r, o);
    r = kMax ? fmaxf(r, other) : r + other;
  }
  __syncthreads();  // scratch is reused by the next reduction
  return r;
}

extern "C" __global__ void softmax_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          long long rows, long long cols) {
  __shared__ float scratch[32];
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float m = -INFINITY;
  for (long long i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, x[i]);
  m = BlockReduce<true>(m, scratch);
  float s = 0;
  for (long long i = threadIdx.x; i < cols; i += blockDim.x) s += __expf(x[i] - m);
  s = BlockReduce<false>(s, scratch);
  const float inv = 1.0f / s;
  for (long long i = threadIdx.x; i < cols; i += blockDim.x) y[i] = __expf(x[i] - m) * inv;
}
