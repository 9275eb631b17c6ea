// The one list of CUDA variants, and the CUDA error -> Status translation.
#include "kernels/cuda/cuda_variants.h"

#include "absl/strings/str_cat.h"

namespace kbench::kernels::cuda {

absl::Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  const std::string message = absl::StrCat(call, " failed: ", cudaGetErrorName(error), " (",
                                           cudaGetErrorString(error), ") at ", file, ":", line);
  if (error == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

const std::vector<CudaVariant>& CudaVariants() {
  static const std::vector<CudaVariant>* variants = new std::vector<CudaVariant>{
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
