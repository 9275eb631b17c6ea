// Times one call of gang-wide work on every rank: each rank's stream is held behind its gate,
// a start event, the call and a stop event are queued on every rank, then the gates open
// together, so host launch latency and the ranks' launch order stay out of the times (as the
// one-device samples' blocking kernel does). A rank's time is its own events'; a call's time is
// the slowest rank's (nccl-tests' convention: a collective is done when its last rank is).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "server/executor/cuda/gang.h"

namespace kbench::executor::cuda {

class CollectiveTimer {
 public:
  // Creates a start and a stop event on every rank's device.
  static absl::StatusOr<std::unique_ptr<CollectiveTimer>> Create(DeviceGang& gang);
  ~CollectiveTimer();
  CollectiveTimer(const CollectiveTimer&) = delete;
  CollectiveTimer& operator=(const CollectiveTimer&) = delete;

  // Runs `enqueue` (which queues one call on every rank's stream) between the events and
  // returns every rank's seconds, by rank. Waits through DeviceGang::Synchronize: a cancel or
  // `timeout_seconds` aborts NCCL and returns its status.
  absl::StatusOr<std::vector<double>> TimeCall(const std::function<absl::Status()>& enqueue,
                                               const std::atomic<bool>* cancelled,
                                               double timeout_seconds);

  // How long a gate holds its stream at most before it opens by itself (the sample then fails:
  // the host took that long to queue one call).
  static constexpr double kGateTimeoutSeconds = 5.0;

 private:
  explicit CollectiveTimer(DeviceGang& gang) : gang_(gang) {}
  absl::Status Enqueue(const std::function<absl::Status()>& enqueue);

  DeviceGang& gang_;
  std::vector<cudaEvent_t> start_, stop_;
};

// The slowest rank of `seconds` (by rank).
int SlowestRank(const std::vector<double>& seconds);

}  // namespace kbench::executor::cuda
