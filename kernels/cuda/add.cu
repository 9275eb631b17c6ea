// add's CUDA variants: one element per thread, and 16-byte vectors.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

absl::Status LaunchAddNaive(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<2>(ElementwiseKind::kOnePerThread,
                                static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(args.inputs[1]),
                                static_cast<T*>(args.outputs[0]), Elements(problem), AddOp{}, args);
  });
}

absl::Status LaunchAddVectorized(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<2>(ElementwiseKind::kVectorized, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(args.inputs[1]),
                                static_cast<T*>(args.outputs[0]), Elements(problem), AddOp{}, args);
  });
}

}  // namespace

CudaVariantTable AddCudaVariants() {
  return {
      {"add", "naive", LaunchAddNaive},
      {"add", "vectorized", LaunchAddVectorized},
  };
}

}  // namespace kbench::kernels::cuda
