// matmul tiled: 32x32 tiles of A and B staged in shared memory, so each operand element is read
// from global memory once per tile instead of once per multiply.
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kTile = 32;

// A 32x32 thread block computes a 32x32 tile of C, one element per thread. Tiles past the
// matrix edges are zero-filled so any m, n, k works.
__global__ void __launch_bounds__(kTile* kTile)
    MatmulTiledKernel(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];  // +1: no bank conflicts when read by column
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  for (int64_t row_base = static_cast<int64_t>(blockIdx.y) * kTile; row_base < m;
       row_base += static_cast<int64_t>(gridDim.y) * kTile) {
    const int64_t row = row_base + ty;
    float acc = 0.0f;
    for (int64_t t = 0; t < k; t += kTile) {
      as[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
      bs[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
      __syncthreads();
#pragma unroll
      for (int i = 0; i < kTile; ++i) acc += as[ty][i] * bs[i][tx];
      __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
  }
}

absl::Status LaunchMatmulTiled(const Problem& problem, const LaunchArgs& args) {
  const int64_t m = problem.dim(0), n = problem.dim(1), k = problem.dim(2);
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>(CeilDiv(n, kTile)),
                  static_cast<unsigned>(std::min(CeilDiv(m, kTile), kMaxGridY)));
  MatmulTiledKernel<<<grid, block, 0, args.stream>>>(static_cast<const float*>(args.inputs[0]),
                                                     static_cast<const float*>(args.inputs[1]),
                                                     static_cast<float*>(args.outputs[0]), m, n, k);
  KBENCH_CUDA_CHECK_LAUNCH("MatmulTiledKernel");
  return absl::OkStatus();
}

}  // namespace

CudaVariantTable MatmulTiledCudaVariants() {
  return {
      {"matmul", "tiled", LaunchMatmulTiled},
  };
}

}  // namespace kbench::kernels::cuda
