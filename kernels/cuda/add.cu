// add's CUDA variants: one element per thread, and 16-byte vectors.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/launchers.h"

namespace kbench::kernels::cuda {

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

}  // namespace kbench::kernels::cuda
