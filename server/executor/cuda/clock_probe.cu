// The SM clock probe kernel (see clock_probe.h).
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/clock_probe.h"
#include "server/executor/cuda/device_timer.cuh"

namespace kbench::executor::cuda {
namespace {

__global__ void ClockProbeKernel(unsigned long long* out, uint64_t window_ns) {
  // Start right after a tick of the global timer, and stop right after a later one, so that
  // its update granularity does not enter the estimate.
  const uint64_t first = GlobalTimerNs();
  uint64_t t0;
  do {
    t0 = GlobalTimerNs();
  } while (t0 == first);
  const long long c0 = clock64();
  uint64_t t1;
  do {
    t1 = GlobalTimerNs();
  } while (t1 < t0 + window_ns);
  const long long c1 = clock64();
  out[0] = t1 - t0;
  out[1] = static_cast<unsigned long long>(c1 - c0);
}

}  // namespace

ClockProbe::~ClockProbe() {
  if (host_ != nullptr) cudaFreeHost(const_cast<unsigned long long*>(host_));
}

absl::Status ClockProbe::Init() {
  void* p = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaHostAlloc(&p, 2 * kSlots * sizeof(unsigned long long), cudaHostAllocMapped));
  host_ = static_cast<volatile unsigned long long*>(p);
  for (int i = 0; i < 2 * kSlots; ++i) host_[i] = 0;
  void* d = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&d, p, 0));
  device_ = static_cast<unsigned long long*>(d);
  // Load the probe's module now: with CUDA's lazy loading (the default since 12.2) the first
  // launch of a kernel loads its module, which waits for the device to go idle. The probes run
  // inside the timed region, behind the blocking kernel, where that wait would deadlock until
  // the blocking kernel gives up (seen on the H100: the first sample of every fresh executor).
  cudaFuncAttributes attributes;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaFuncGetAttributes(&attributes, ClockProbeKernel));
  KBENCH_RETURN_IF_ERROR(Record(nullptr, 0));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(nullptr));
  return absl::OkStatus();
}

absl::Status ClockProbe::Record(cudaStream_t stream, int slot) {
  host_[2 * slot] = 0;
  host_[2 * slot + 1] = 0;
  ClockProbeKernel<<<1, 1, 0, stream>>>(device_ + 2 * slot, kWindowNs);
  KBENCH_CUDA_CHECK_LAUNCH("ClockProbeKernel");
  return absl::OkStatus();
}

double ClockProbe::Mhz(int slot) const {
  const unsigned long long ns = host_[2 * slot];
  const unsigned long long cycles = host_[2 * slot + 1];
  if (ns == 0) return 0;
  return 1e3 * static_cast<double>(cycles) / static_cast<double>(ns);
}

}  // namespace kbench::executor::cuda
