// matmul naive: one thread per output element, both operands read from global memory; every
// A row and B column is fetched k times from L2 or DRAM.
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 16;

// threadIdx.x walks columns so that a warp's B loads and C stores are coalesced. Rows beyond
// grid.y's limit are covered by striding in y.
__global__ void MatmulNaiveKernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (col >= n) return;
  for (int64_t row = static_cast<int64_t>(blockIdx.y) * kBlock + threadIdx.y; row < m;
       row += static_cast<int64_t>(gridDim.y) * kBlock) {
    float acc = 0.0f;
    for (int64_t i = 0; i < k; ++i) acc += a[row * k + i] * b[i * n + col];
    c[row * n + col] = acc;
  }
}

absl::Status LaunchMatmulNaive(const Problem& problem, const LaunchArgs& args) {
  const int64_t m = problem.dim(0), n = problem.dim(1), k = problem.dim(2);
  const dim3 block(kBlock, kBlock);
  const dim3 grid(static_cast<unsigned>(CeilDiv(n, kBlock)),
                  static_cast<unsigned>(std::min(CeilDiv(m, kBlock), kMaxGridY)));
  MatmulNaiveKernel<<<grid, block, 0, args.stream>>>(static_cast<const float*>(args.inputs[0]),
                                                     static_cast<const float*>(args.inputs[1]),
                                                     static_cast<float*>(args.outputs[0]), m, n, k);
  KBENCH_CUDA_CHECK_LAUNCH("MatmulNaiveKernel");
  return absl::OkStatus();
}

}  // namespace

CudaVariantTable MatmulNaiveCudaVariants() {
  return {
      {"matmul", "naive", LaunchMatmulNaive},
  };
}

}  // namespace kbench::kernels::cuda
