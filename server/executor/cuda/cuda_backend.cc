// CUDA devices: discovery and the per-device backend.
#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/executor/backend.h"

namespace kbench::executor {

absl::StatusOr<std::vector<v1::DeviceInfo>> DiscoverCudaDevices() {
  std::vector<v1::DeviceInfo> devices;
  int count = 0;
  // No driver or no GPU: no CUDA devices, not an error.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    v1::DeviceInfo& d = devices.emplace_back();
    d.set_id(absl::StrCat("cuda:", i));
    d.set_kind(v1::DEVICE_KIND_CUDA);
    d.set_name(prop.name);
    d.set_memory_bytes(static_cast<int64_t>(prop.totalGlobalMem));
    d.set_sm_count(prop.multiProcessorCount);
    d.set_l2_bytes(prop.l2CacheSize);
    d.set_compute_capability(absl::StrCat(prop.major, ".", prop.minor));
  }
  return devices;
}

std::unique_ptr<Backend> MakeCudaBackend(int ordinal) {
  (void)ordinal;
  return nullptr;
}

}  // namespace kbench::executor
