// square's CUDA variants: the lecture's 2-D kernel, a grid-stride loop, 16-byte vectors.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kTile = 16;

// The lecture's kernel: the tensor seen as rows x cols (cols = the last dim), a 16x16 block per
// tile, one element per thread. Rows beyond grid.y's 65535 tiles are covered by striding in y.
template <typename T>
__global__ void Square2dKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                               int64_t cols) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  if (col >= cols) return;
  for (int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + threadIdx.y; row < rows;
       row += static_cast<int64_t>(gridDim.y) * kTile) {
    const int64_t i = row * cols + col;
    const float x = ToFloat(in[i]);
    out[i] = FromFloat<T>(x * x);
  }
}

absl::Status LaunchSquareNaive2d(const Problem& problem, const LaunchArgs& args) {
  const int64_t cols = problem.shape.back();
  const int64_t rows = Elements(problem) / cols;
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>(CeilDiv(cols, kTile)),
                  static_cast<unsigned>(std::min(CeilDiv(rows, kTile), kMaxGridY)));
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    Square2dKernel<T><<<grid, block, 0, args.stream>>>(
        static_cast<const T*>(args.inputs[0]), static_cast<T*>(args.outputs[0]), rows, cols);
    KBENCH_CUDA_CHECK_LAUNCH("Square2dKernel");
    return absl::OkStatus();
  });
}

absl::Status LaunchSquareGridStride(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<1>(ElementwiseKind::kGridStride, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(nullptr), static_cast<T*>(args.outputs[0]),
                                Elements(problem), SquareOp{}, args);
  });
}

absl::Status LaunchSquareVectorized(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<1>(ElementwiseKind::kVectorized, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(nullptr), static_cast<T*>(args.outputs[0]),
                                Elements(problem), SquareOp{}, args);
  });
}

}  // namespace

CudaVariantTable SquareCudaVariants() {
  return {
      {"square", "naive_2d", LaunchSquareNaive2d},
      {"square", "grid_stride", LaunchSquareGridStride},
      {"square", "vectorized", LaunchSquareVectorized},
  };
}

}  // namespace kbench::kernels::cuda
