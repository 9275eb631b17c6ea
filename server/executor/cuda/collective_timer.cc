// One gang-wide call timed on every rank's events.
#include "server/executor/cuda/collective_timer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::executor::cuda {
namespace {

absl::Status OnRank(cudaError_t err, const char* call, const DeviceGang& gang, int rank) {
  if (err == cudaSuccess) return absl::OkStatus();
  return kernels::cuda::CudaStatus(err, absl::StrCat(call, " on ", gang.name(rank)).c_str(),
                                   __FILE__, __LINE__);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CollectiveTimer>> CollectiveTimer::Create(DeviceGang& gang) {
  std::unique_ptr<CollectiveTimer> timer(new CollectiveTimer(gang));
  for (int r = 0; r < gang.world_size(); ++r) {
    KBENCH_RETURN_IF_ERROR(OnRank(cudaSetDevice(gang.ordinal(r)), "cudaSetDevice", gang, r));
    KBENCH_RETURN_IF_ERROR(
        OnRank(cudaEventCreate(&timer->start_.emplace_back()), "cudaEventCreate", gang, r));
    KBENCH_RETURN_IF_ERROR(
        OnRank(cudaEventCreate(&timer->stop_.emplace_back()), "cudaEventCreate", gang, r));
  }
  return timer;
}

CollectiveTimer::~CollectiveTimer() {
  for (size_t r = 0; r < start_.size(); ++r) {
    cudaSetDevice(gang_.ordinal(static_cast<int>(r)));
    if (start_[r] != nullptr) cudaEventDestroy(start_[r]);
    if (r < stop_.size() && stop_[r] != nullptr) cudaEventDestroy(stop_[r]);
  }
}

absl::Status CollectiveTimer::Enqueue(const std::function<absl::Status()>& enqueue) {
  for (int r = 0; r < gang_.world_size(); ++r) {
    KBENCH_RETURN_IF_ERROR(OnRank(cudaSetDevice(gang_.ordinal(r)), "cudaSetDevice", gang_, r));
    KBENCH_RETURN_IF_ERROR(gang_.gate(r).Block(gang_.stream(r), kGateTimeoutSeconds));
    KBENCH_RETURN_IF_ERROR(
        OnRank(cudaEventRecord(start_[r], gang_.stream(r)), "cudaEventRecord", gang_, r));
  }
  KBENCH_RETURN_IF_ERROR(enqueue());
  for (int r = 0; r < gang_.world_size(); ++r) {
    KBENCH_RETURN_IF_ERROR(OnRank(cudaSetDevice(gang_.ordinal(r)), "cudaSetDevice", gang_, r));
    KBENCH_RETURN_IF_ERROR(
        OnRank(cudaEventRecord(stop_[r], gang_.stream(r)), "cudaEventRecord", gang_, r));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> CollectiveTimer::TimeCall(
    const std::function<absl::Status()>& enqueue, const std::atomic<bool>* cancelled,
    double timeout_seconds) {
  const absl::Status enqueued = Enqueue(enqueue);
  // Open every gate whatever happened: a stream left held would keep its device spinning.
  for (int r = 0; r < gang_.world_size(); ++r) gang_.gate(r).Release();
  const absl::Status idle = gang_.Synchronize(cancelled, timeout_seconds);
  KBENCH_RETURN_IF_ERROR(enqueued);
  KBENCH_RETURN_IF_ERROR(idle);
  std::vector<double> seconds;
  for (int r = 0; r < gang_.world_size(); ++r) {
    if (gang_.gate(r).TimedOut()) {
      return absl::DeadlineExceededError(
          absl::StrCat("the gate of ", gang_.name(r), " opened by itself after ",
                       kGateTimeoutSeconds, " s: queueing one call took the host that long"));
    }
    float ms = 0;
    KBENCH_RETURN_IF_ERROR(
        OnRank(cudaEventElapsedTime(&ms, start_[r], stop_[r]), "cudaEventElapsedTime", gang_, r));
    seconds.push_back(ms * 1e-3);
  }
  return seconds;
}

int SlowestRank(const std::vector<double>& seconds) {
  return static_cast<int>(std::max_element(seconds.begin(), seconds.end()) - seconds.begin());
}

}  // namespace kbench::executor::cuda
