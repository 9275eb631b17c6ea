// cudaDeviceProp → DeviceLimits.
#include "server/executor/profile/device_limits.h"

#include <cuda_runtime.h>

namespace kbench::executor::profile {

std::optional<DeviceLimits> CurrentDeviceLimits() {
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  DeviceLimits d;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.shared_per_block = static_cast<int64_t>(p.sharedMemPerBlock);
  d.shared_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
  d.shared_per_sm = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
  d.reserved_shared_per_block = static_cast<int64_t>(p.reservedSharedMemPerBlock);
  return d;
}

}  // namespace kbench::executor::profile
