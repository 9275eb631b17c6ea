// The stream-holding kernel of cold, hot and graph samples.
#include <atomic>

#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/blocking_kernel.h"
#include "server/executor/cuda/device_timer.cuh"

namespace kbench::executor::cuda {
namespace {

__global__ void BlockStreamKernel(volatile int32_t* flags, uint64_t timeout_ns) {
  const uint64_t start = GlobalTimerNs();
  while (flags[0] == 0) {
    if (GlobalTimerNs() - start > timeout_ns) {
      flags[1] = 1;
      break;
    }
  }
}

}  // namespace

BlockingKernel::~BlockingKernel() {
  if (host_flags_ != nullptr) cudaFreeHost(const_cast<int32_t*>(host_flags_));
}

absl::Status BlockingKernel::Init() {
  void* p = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&p, 2 * sizeof(int32_t), cudaHostAllocMapped));
  host_flags_ = static_cast<volatile int32_t*>(p);
  host_flags_[0] = 1;
  host_flags_[1] = 0;
  void* d = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&d, p, 0));
  device_flags_ = static_cast<int32_t*>(d);
  return absl::OkStatus();
}

absl::Status BlockingKernel::Block(cudaStream_t stream, double timeout_seconds) {
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  BlockStreamKernel<<<1, 1, 0, stream>>>(device_flags_,
                                         static_cast<uint64_t>(timeout_seconds * 1e9));
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    host_flags_[0] = 1;
    return kernels::cuda::CudaStatus(err, "BlockStreamKernel<<<1, 1>>>", __FILE__, __LINE__);
  }
  return absl::OkStatus();
}

void BlockingKernel::Release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  host_flags_[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool BlockingKernel::TimedOut() const { return host_flags_[1] != 0; }

}  // namespace kbench::executor::cuda
