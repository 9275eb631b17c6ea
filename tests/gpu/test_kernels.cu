// Test-only CUDA kernels for the harness tests (see test_kernels.h).
#include <cstdint>

#include "tests/gpu/test_kernels.h"

namespace kbench::testing {
namespace {

int64_t Elements(const kernels::Problem& p) {
  int64_t n = 1;
  for (int64_t d : p.shape) n *= d;
  return n;
}

__global__ void CopyWordsKernel(const uint4* in, uint4* out, int64_t words) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    out[i] = in[i];
  }
}

__global__ void CopyBytesKernel(const unsigned char* in, unsigned char* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void SquareKernel(const float* in, float* out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i] * in[i];
  }
}

__global__ void WildStoreKernel(float* out) {
  // Far outside any allocation: the device reports an illegal address.
  reinterpret_cast<float*>(0x10)[threadIdx.x] = out[threadIdx.x];
}

absl::Status CopyBytes(const void* in, void* out, int64_t bytes,
                       const kernels::cuda::LaunchArgs& a) {
  const int64_t words = bytes / 16;
  const int blocks = static_cast<int>(std::min<int64_t>((words + 255) / 256, 4 * 132 * 8));
  if (words > 0) {
    CopyWordsKernel<<<std::max(blocks, 1), 256, 0, a.stream>>>(static_cast<const uint4*>(in),
                                                               static_cast<uint4*>(out), words);
    KBENCH_CUDA_CHECK_LAUNCH("CopyWordsKernel");
  }
  const int64_t tail = bytes - words * 16;
  if (tail > 0) {
    CopyBytesKernel<<<1, 32, 0, a.stream>>>(static_cast<const unsigned char*>(in) + words * 16,
                                            static_cast<unsigned char*>(out) + words * 16, tail);
    KBENCH_CUDA_CHECK_LAUNCH("CopyBytesKernel");
  }
  return absl::OkStatus();
}

}  // namespace

bool HasCudaDevice() {
  static const bool have = [] {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess;
    cudaGetLastError();  // a failed probe must not be reported by the next launch check
    return ok && count > 0;
  }();
  return have;
}

absl::Status TestCopyLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  return CopyBytes(a.inputs[0], a.outputs[0],
                   Elements(p) * static_cast<int64_t>(kernels::StorageBytes(p.dtype)), a);
}

absl::Status TestHalfCopyLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  return CopyBytes(a.inputs[0], a.outputs[0],
                   Elements(p) / 2 * static_cast<int64_t>(kernels::StorageBytes(p.dtype)), a);
}

absl::Status TestSquareLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  if (p.dtype != kernels::DType::kF32) return absl::InvalidArgumentError("f32 only");
  const int64_t n = Elements(p);
  const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 4 * 132 * 8));
  SquareKernel<<<blocks, 256, 0, a.stream>>>(static_cast<const float*>(a.inputs[0]),
                                             static_cast<float*>(a.outputs[0]), n);
  KBENCH_CUDA_CHECK_LAUNCH("SquareKernel");
  return absl::OkStatus();
}

absl::Status TestIllegalAddressLaunch(const kernels::Problem&, const kernels::cuda::LaunchArgs& a) {
  WildStoreKernel<<<1, 32, 0, a.stream>>>(static_cast<float*>(a.outputs[0]));
  KBENCH_CUDA_CHECK_LAUNCH("WildStoreKernel");
  return absl::OkStatus();
}

absl::Status TestBadConfigLaunch(const kernels::Problem& p, const kernels::cuda::LaunchArgs& a) {
  SquareKernel<<<1, 4096, 0, a.stream>>>(static_cast<const float*>(a.inputs[0]),
                                         static_cast<float*>(a.outputs[0]), Elements(p));
  KBENCH_CUDA_CHECK_LAUNCH("SquareKernel<<<1, 4096>>>");
  return absl::OkStatus();
}

}  // namespace kbench::testing
