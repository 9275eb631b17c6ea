// The peer copy that gives a gang's interconnect peak.
#include "server/executor/cuda/peer_bandwidth.h"

#include <algorithm>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/collective_timer.h"
#include "server/executor/measure/statistics.h"

namespace kbench::executor::cuda {
namespace {

constexpr int kRepetitions = 5;
// A 256 MiB copy takes under 2 ms over NVLink and about 10 ms over PCIe Gen5.
constexpr double kCopyTimeoutSeconds = 10.0;

absl::Status OnDevice(cudaError_t err, const char* call, const std::string& device) {
  if (err == cudaSuccess) return absl::OkStatus();
  return kernels::cuda::CudaStatus(err, absl::StrCat(call, " on ", device).c_str(), __FILE__,
                                   __LINE__);
}

}  // namespace

absl::StatusOr<double> MeasurePeerBandwidth(DeviceGang& gang, const std::atomic<bool>* cancelled) {
  void* buffers[2] = {nullptr, nullptr};
  absl::Cleanup free_buffers = [&] {
    for (int r = 0; r < 2; ++r) {
      if (buffers[r] == nullptr) continue;
      cudaSetDevice(gang.ordinal(r));
      cudaFree(buffers[r]);
    }
  };
  // Each rank's buffer holds what it sends (first half) and what it receives (second half).
  for (int r = 0; r < 2; ++r) {
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaSetDevice(gang.ordinal(r)), "cudaSetDevice", gang.name(r)));
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaMalloc(&buffers[r], 2 * kPeerCopyBytes), "cudaMalloc", gang.name(r)));
  }
  auto copy_both_ways = [&]() -> absl::Status {
    for (int r = 0; r < 2; ++r) {
      const int peer = 1 - r;
      KBENCH_RETURN_IF_ERROR(
          OnDevice(cudaMemcpyPeerAsync(static_cast<char*>(buffers[peer]) + kPeerCopyBytes,
                                       gang.ordinal(peer), buffers[r], gang.ordinal(r),
                                       kPeerCopyBytes, gang.stream(r)),
                   "cudaMemcpyPeerAsync", gang.name(r)));
    }
    return absl::OkStatus();
  };
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveTimer> timer, CollectiveTimer::Create(gang));
  std::vector<double> rates;
  for (int i = 0; i <= kRepetitions; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const std::vector<double> seconds,
                            timer->TimeCall(copy_both_ways, cancelled, kCopyTimeoutSeconds));
    if (i == 0) continue;  // warm-up: the first copy maps the peer's pages
    const double slower = std::max(seconds[0], seconds[1]);
    if (slower > 0) rates.push_back(static_cast<double>(kPeerCopyBytes) / slower);
  }
  if (rates.empty()) return 0.0;
  return measure::ComputeStatistics(rates).median;
}

}  // namespace kbench::executor::cuda
