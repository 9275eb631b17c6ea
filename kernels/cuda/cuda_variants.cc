// The one list of CUDA variants (the per-operation tables concatenated), and the CUDA error ->
// Status translation.
#include "kernels/cuda/cuda_variants.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {

absl::Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return absl::OkStatus();
  const std::string message = absl::StrCat(call, " failed: ", cudaGetErrorName(error), " (",
                                           cudaGetErrorString(error), ") at ", file, ":", line);
  if (error == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

const std::vector<CudaVariant>& CudaVariants() {
  static const std::vector<CudaVariant>* variants = [] {
    // In catalogue order (kernels/catalogue.cc), so that listings read the same way.
    const CudaVariantTable tables[] = {
        CopyCudaVariants(),
        SquareCudaVariants(),
        AddCudaVariants(),
        GeluCudaVariants(),
        SoftmaxCudaVariants(),
        ReduceCudaVariants(),
        MatmulNaiveCudaVariants(),
        MatmulTiledCudaVariants(),
        MatmulRegisterBlockedCudaVariants(),
        MatmulTensorCoreCudaVariants(),
        MatmulCublasCudaVariants(),
        MlpCudaVariants(),
    };
    auto* all = new std::vector<CudaVariant>;
    for (const CudaVariantTable& table : tables)
      all->insert(all->end(), table.begin(), table.end());
    return all;
  }();
  return *variants;
}

const CudaVariant* FindCudaVariant(const std::string& op, const std::string& variant) {
  for (const CudaVariant& v : CudaVariants()) {
    if (op == v.op && variant == v.variant) return &v;
  }
  return nullptr;
}

}  // namespace kbench::kernels::cuda
