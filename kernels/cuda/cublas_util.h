// cuBLAS status -> absl::Status, shared by the variants that call cuBLAS.
#pragma once

#include <cublas_v2.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench::kernels::cuda {

inline absl::Status CublasStatus(cublasStatus_t status, const char* call, const char* file,
                                 int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  const std::string message = absl::StrCat(call, " failed: ", cublasGetStatusName(status), " (",
                                           cublasGetStatusString(status), ") at ", file, ":", line);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

}  // namespace kbench::kernels::cuda

// Returns from the enclosing function with a Status when a cuBLAS call fails.
#define KBENCH_CUBLAS_RETURN_IF_ERROR(call) \
  KBENCH_RETURN_IF_ERROR(::kbench::kernels::cuda::CublasStatus((call), #call, __FILE__, __LINE__))
