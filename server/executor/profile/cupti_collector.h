// Records a stretch of the process's CUDA work with CUPTI's activity API: kernels (concurrent
// kernel records), memcpy/memset, runtime and driver API calls, synchronisation and CUPTI's
// overhead, turned into ActivityLog's plain structs. Also notes each launched kernel's function
// handle (CUPTI callback API) so that its attributes can be queried afterwards.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "server/executor/profile/activity.h"

namespace kbench::executor::profile {

class CuptiCollector {
 public:
  // Starts recording every CUDA activity of this process. One collector at a time per process:
  // a second Start() before the first is stopped is FAILED_PRECONDITION, as is CUPTI being
  // unusable (no driver, or another profiler such as Nsight Systems already holding it).
  static absl::StatusOr<std::unique_ptr<CuptiCollector>> Start();

  // Waits for the device, flushes CUPTI's buffers, stops recording and returns the records
  // (spans left empty: the caller's). Call once.
  absl::StatusOr<ActivityLog> Stop();

  // Turns the noting of launched kernels' functions (for their attributes) on or off; on after
  // Start(). Noting costs a name lookup per launch, so a job notes only while each kernel
  // first runs, not while it is measured.
  void NoteLaunches(bool on);

  // Stops recording if Stop() was not called, dropping the records.
  ~CuptiCollector();

  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  // Now, on the clock of CUPTI's records (ns): TraceClockNow(), which Start() registers as
  // CUPTI's timestamp callback.
  static uint64_t Timestamp();

 private:
  CuptiCollector() = default;
  absl::Status Disable();

  bool stopped_ = false;
};

}  // namespace kbench::executor::profile
