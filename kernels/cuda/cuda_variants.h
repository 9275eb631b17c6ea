// The CUDA variants of the catalogue: one launch function per (operation, variant), each .cu
// exporting its own table (variant_tables.h). Only the CUDA executor includes this header.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "kernels/operation.h"

namespace kbench::kernels::cuda {

// Device buffers laid out as the operation's Layout says, in the problem's dtype.
struct LaunchArgs {
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  // Layout::workspace_bytes of scratch device memory (nullptr when 0).
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
  const cudaDeviceProp* prop = nullptr;
  // cublasHandle_t bound to `stream`, for variants with needs_cublas.
  void* cublas = nullptr;
};

// Enqueues one run of the variant on args.stream (no synchronisation). Must be capturable in a
// CUDA graph: no allocation, no sync, no host reads of device memory. Checks each launch
// with cudaGetLastError and returns the error's name and the kernel.
using LaunchFn = absl::Status (*)(const Problem& problem, const LaunchArgs& args);

struct CudaVariant {
  const char* op;
  const char* variant;
  LaunchFn launch;
  bool needs_cublas = false;
};

// Every CUDA variant, in catalogue order.
const std::vector<CudaVariant>& CudaVariants();
// nullptr when absent.
const CudaVariant* FindCudaVariant(const std::string& op, const std::string& variant);

// OK for cudaSuccess; else a Status carrying the call's text, the error's name and file:line.
absl::Status CudaStatus(cudaError_t error, const char* call, const char* file, int line);

}  // namespace kbench::kernels::cuda

// Returns from the enclosing function with a Status when `call` fails: the call's text, the
// error's name and file:line (KBENCH_RETURN_IF_ERROR over CudaStatus).
#define KBENCH_CUDA_RETURN_IF_ERROR(call) \
  KBENCH_RETURN_IF_ERROR(::kbench::kernels::cuda::CudaStatus((call), #call, __FILE__, __LINE__))

// After a kernel launch: the launch's own error (bad configuration, no device), naming the
// kernel `what` (a string literal) so that the message says which launch failed.
#define KBENCH_CUDA_CHECK_LAUNCH(what)                        \
  KBENCH_RETURN_IF_ERROR(::kbench::kernels::cuda::CudaStatus( \
      cudaGetLastError(), "launch of " what " (cudaGetLastError)", __FILE__, __LINE__))
