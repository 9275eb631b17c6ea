// matmul cublas: the vendor reference, cublasGemmEx in f32, tf32 (f32 storage, TF32 tensor
// cores), f16 and bf16 (f32 accumulate).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/cublas_util.h"
#include "kernels/cuda/variant_tables.h"

namespace kbench::kernels::cuda {
namespace {

absl::Status LaunchMatmulCublas(const Problem& problem, const LaunchArgs& args) {
  if (args.cublas == nullptr) {
    return absl::FailedPreconditionError("matmul/cublas: no cuBLAS handle in LaunchArgs");
  }
  const int64_t m = problem.dim(0), n = problem.dim(1), k = problem.dim(2);
  cudaDataType_t type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (problem.dtype) {
    case DType::kF32:
      break;
    case DType::kTF32:
      compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      break;
    case DType::kF16:
      type = CUDA_R_16F;
      break;
    case DType::kBF16:
      type = CUDA_R_16BF;
      break;
  }
  const float alpha = 1.0f, beta = 0.0f;
  // cuBLAS is column-major: a row-major C (m x n) is a column-major C^T (n x m) = B^T A^T, and
  // row-major B and A are column-major B^T (n x k, ld n) and A^T (k x m, ld k).
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
      static_cast<cublasHandle_t>(args.cublas), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
      static_cast<int>(m), static_cast<int>(k), &alpha, args.inputs[1], type, static_cast<int>(n),
      args.inputs[0], type, static_cast<int>(k), &beta, args.outputs[0], type, static_cast<int>(n),
      compute, CUBLAS_GEMM_DEFAULT));
  return absl::OkStatus();
}

}  // namespace

CudaVariantTable MatmulCublasCudaVariants() {
  return {
      {"matmul", "cublas", LaunchMatmulCublas, /*needs_cublas=*/true},
  };
}

}  // namespace kbench::kernels::cuda
