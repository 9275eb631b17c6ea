// The sampling loop shared by every device: takes samples from one or several variants
// (interleaved round-robin, so that clock and thermal drift fall on all of them alike) until
// each variant's stopping rule says stop, reporting progress and honouring cancellation. A
// variant that keeps no sample fails the run: no result is ever published from zero samples.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/executor/measure/stopping_rule.h"

namespace kbench::measure {

// One measurement: `seconds` of device (or host) time covering `launches` launches.
struct Sample {
  double seconds = 0;
  int64_t launches = 1;
  // Taken while the SM clock was below the allowed floor: thrown away, counted.
  bool discard = false;
  // Estimated SM clock during the sample (0 when unknown).
  double sm_clock_mhz = 0;
  // The floor `discard` was judged against (0 when none), named when a run fails for it.
  double clock_floor_mhz = 0;
  // Host wall time spent enqueuing the sample's launches (hot mode; 0 when not measured).
  double host_enqueue_seconds = 0;
  double per_launch() const { return seconds / static_cast<double>(launches); }
};

using SampleFn = std::function<absl::StatusOr<Sample>()>;

struct VariantSamples {
  std::string name;
  std::vector<Sample> kept;
  int64_t discarded = 0;
  StopDecision decision;
  // Wall time from the first to the last sample of this variant.
  double wall_seconds = 0;
  double measured_seconds = 0;
  std::vector<double> per_launch_seconds() const;
};

struct ProgressUpdate {
  std::string variant;
  int64_t samples = 0;
  double noise = 0;
  double elapsed_seconds = 0;
};

struct SamplerHooks {
  // Monotonic wall clock in seconds; injectable for tests.
  std::function<double()> now;
  // Called at most every `progress_interval_seconds`, and once at the end of each variant.
  std::function<void(const ProgressUpdate&)> progress;
  double progress_interval_seconds = 0.2;
  const std::atomic<bool>* cancelled = nullptr;
  // Sleeps this many seconds: the back-off after a discarded sample, while the clock recovers.
  // Injectable for tests; std::this_thread::sleep_for when empty.
  std::function<void(double seconds)> sleep;
  // This many discarded samples in a row for one variant fail the run (FAILED_PRECONDITION
  // naming the clock seen and the floor) instead of waiting for the timeout.
  int max_consecutive_discards = kMaxConsecutiveDiscards;

  static constexpr int kMaxConsecutiveDiscards = 10;
};

// The pause after the k-th discarded sample in a row (k >= 1): 10 ms doubling to 0.5 s. The
// power controller reacts within milliseconds (nvbench waits 50 ms, its
// throttle_recovery_delay), but a GPU held down longer should not be re-probed at 50 Hz; ten
// in a row wait about 2.6 s, well within the default 15 s timeout.
double DiscardBackoffSeconds(int consecutive);

// Runs each variant's SampleFn round-robin until every StoppingRule stops. A variant that
// already stopped is skipped in later rounds. A discarded sample does not count; after it the
// sampler sleeps DiscardBackoffSeconds. Returns FAILED_PRECONDITION when a variant discards
// max_consecutive_discards samples in a row or stops with no sample kept, CANCELLED if
// *cancelled becomes true, or the first error a SampleFn returns.
absl::StatusOr<std::vector<VariantSamples>> SampleInterleaved(
    const std::vector<std::string>& names, const std::vector<SampleFn>& sample_fns,
    const StoppingCriteria& criteria, const SamplerHooks& hooks);

// The default monotonic clock (std::chrono::steady_clock) in seconds.
double SteadyNowSeconds();

}  // namespace kbench::measure
