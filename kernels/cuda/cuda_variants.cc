// The one list of CUDA variants, and the CUDA error -> Status translation.
#include "kernels/cuda/cuda_variants.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda/launchers.h"

namespace kbench::kernels::cuda {

absl::Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return absl::OkStatus();
  const std::string message = absl::StrCat(call, " failed: ", cudaGetErrorName(error), " (",
                                           cudaGetErrorString(error), ") at ", file, ":", line);
  if (error == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

const std::vector<CudaVariant>& CudaVariants() {
  static const std::vector<CudaVariant>* variants = new std::vector<CudaVariant>{
      {"copy", "vectorized", LaunchCopyVectorized},
      {"copy", "cuda_memcpy", LaunchCopyCudaMemcpy},
      {"square", "naive_2d", LaunchSquareNaive2d},
      {"square", "grid_stride", LaunchSquareGridStride},
      {"square", "vectorized", LaunchSquareVectorized},
      {"add", "naive", LaunchAddNaive},
      {"add", "vectorized", LaunchAddVectorized},
      {"gelu", "tanh_unfused", LaunchGeluTanhUnfused},
      {"gelu", "tanh_fused", LaunchGeluTanhFused},
      {"gelu", "erf_unfused", LaunchGeluErfUnfused},
      {"gelu", "erf_fused", LaunchGeluErfFused},
      {"softmax", "naive", LaunchSoftmaxNaive},
      {"softmax", "fused", LaunchSoftmaxFused},
      {"softmax", "warp_per_row", LaunchSoftmaxWarpPerRow},
      {"softmax", "online", LaunchSoftmaxOnline},
      {"reduce", "rows_thread", LaunchReduceRowsThread},
      {"reduce", "rows_warp", LaunchReduceRowsWarp},
      {"reduce", "rows_block", LaunchReduceRowsBlock},
      {"reduce", "full_two_pass", LaunchReduceFullTwoPass},
      {"reduce", "full_single_pass", LaunchReduceFullSinglePass},
      {"matmul", "naive", LaunchMatmulNaive},
      {"matmul", "tiled", LaunchMatmulTiled},
      {"matmul", "register_blocked", LaunchMatmulRegisterBlocked},
      {"matmul", "tensorcore", LaunchMatmulTensorCore},
      {"matmul", "cublas", LaunchMatmulCublas, /*needs_cublas=*/true},
      {"mlp", "unfused", LaunchMlpUnfused, /*needs_cublas=*/true},
      {"mlp", "fused", LaunchMlpFused, /*needs_cublas=*/true},
  };
  return *variants;
}

const CudaVariant* FindCudaVariant(const std::string& op, const std::string& variant) {
  for (const CudaVariant& v : CudaVariants()) {
    if (op == v.op && variant == v.variant) return &v;
  }
  return nullptr;
}

}  // namespace kbench::kernels::cuda
