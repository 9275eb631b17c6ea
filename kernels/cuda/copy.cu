// copy's CUDA variants: the vectorized kernel that sets the bandwidth ceiling, and the driver's
// device-to-device memcpy.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

absl::Status LaunchCopyVectorized(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<1>(ElementwiseKind::kVectorized, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(nullptr), static_cast<T*>(args.outputs[0]),
                                Elements(problem), IdentityOp{}, args);
  });
}

absl::Status LaunchCopyCudaMemcpy(const Problem& problem, const LaunchArgs& args) {
  const size_t bytes = static_cast<size_t>(Elements(problem)) * StorageBytes(problem.dtype);
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(args.outputs[0], args.inputs[0], bytes,
                                              cudaMemcpyDeviceToDevice, args.stream));
  return absl::OkStatus();
}

}  // namespace

CudaVariantTable CopyCudaVariants() {
  return {
      {"copy", "vectorized", LaunchCopyVectorized},
      {"copy", "cuda_memcpy", LaunchCopyCudaMemcpy},
  };
}

}  // namespace kbench::kernels::cuda
