// Test-only cheating CUDA kernels (see cheating_kernels.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "tests/gpu/cheating_kernels.h"

namespace kbench::testing {
namespace {

int64_t Elements(const kernels::Problem& p) {
  int64_t n = 1;
  for (int64_t d : p.shape) n *= d;
  return n;
}

int Blocks(int64_t n) { return static_cast<int>(std::clamp<int64_t>((n + 255) / 256, 1, 4096)); }

__global__ void FillKernel(float* out, int64_t n, float value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = value;
  }
}

__global__ void CopyKernel(const float* in, float* out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i];
  }
}

// out = in * in, and the same into `stash` when it is not null.
__global__ void SquareKernel(const float* in, float* out, float* stash, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i] * in[i];
    if (stash != nullptr) stash[i] = out[i];
  }
}

// One thread decides for the launch that follows it on the stream, so that no block of the
// square sees an element another block already wrote.
__global__ void DecideKernel(const float* out, int* compute) { *compute = isnan(out[0]) ? 1 : 0; }

__global__ void SquareIfKernel(const float* in, float* out, int64_t n, const int* compute) {
  if (*compute == 0) return;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i] * in[i];
  }
}

float* g_stash = nullptr;
int* g_decision = nullptr;

}  // namespace

absl::Status ZerosLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  const int64_t n = Elements(p);
  FillKernel<<<Blocks(n), 256, 0, a.stream>>>(static_cast<float*>(a.outputs[0]), n, 0.0f);
  KBENCH_CUDA_CHECK_LAUNCH("FillKernel");
  return absl::OkStatus();
}

absl::Status CopyInputLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  const int64_t n = Elements(p);
  CopyKernel<<<Blocks(n), 256, 0, a.stream>>>(static_cast<const float*>(a.inputs[0]),
                                              static_cast<float*>(a.outputs[0]), n);
  KBENCH_CUDA_CHECK_LAUNCH("CopyKernel");
  return absl::OkStatus();
}

absl::Status FirstLaunchOnlyLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  const int64_t n = Elements(p);
  if (g_stash == nullptr) {  // the first launch: the checked run, never inside a graph capture
    KBENCH_RETURN_IF_ERROR(
        kernels::cuda::CudaStatus(cudaMalloc(&g_stash, static_cast<size_t>(n) * sizeof(float)),
                                  "cudaMalloc(stash)", __FILE__, __LINE__));
    SquareKernel<<<Blocks(n), 256, 0, a.stream>>>(static_cast<const float*>(a.inputs[0]),
                                                  static_cast<float*>(a.outputs[0]), g_stash, n);
    KBENCH_CUDA_CHECK_LAUNCH("SquareKernel");
    return absl::OkStatus();
  }
  CopyKernel<<<Blocks(n), 256, 0, a.stream>>>(g_stash, static_cast<float*>(a.outputs[0]), n);
  KBENCH_CUDA_CHECK_LAUNCH("CopyKernel(stash)");
  return absl::OkStatus();
}

void ResetFirstLaunchOnly() {
  if (g_stash != nullptr) cudaFree(g_stash);
  g_stash = nullptr;
}

absl::Status SkipWhenWrittenLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  const int64_t n = Elements(p);
  if (g_decision == nullptr) {
    KBENCH_RETURN_IF_ERROR(kernels::cuda::CudaStatus(cudaMalloc(&g_decision, sizeof(int)),
                                                     "cudaMalloc(decision)", __FILE__, __LINE__));
  }
  DecideKernel<<<1, 1, 0, a.stream>>>(static_cast<const float*>(a.outputs[0]), g_decision);
  KBENCH_CUDA_CHECK_LAUNCH("DecideKernel");
  SquareIfKernel<<<Blocks(n), 256, 0, a.stream>>>(static_cast<const float*>(a.inputs[0]),
                                                  static_cast<float*>(a.outputs[0]), n, g_decision);
  KBENCH_CUDA_CHECK_LAUNCH("SquareIfKernel");
  return absl::OkStatus();
}

}  // namespace kbench::testing
