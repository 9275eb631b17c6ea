// When to stop sampling: relative noise under a target with minimum samples and minimum
// accumulated measured time, bounded by a timeout, with an early stop once the noise estimate
// has itself stopped moving (as nvbench's stdrel criterion does).
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "server/common/stopping_defaults.h"
#include "server/executor/measure/statistics.h"

namespace kbench::measure {

struct StoppingCriteria {
  double max_noise = kDefaultMaxNoise;
  int64_t min_samples = kDefaultMinSamples;
  double min_time_seconds = kDefaultMinTimeSeconds;
  double timeout_seconds = kDefaultTimeoutSeconds;
};

struct StopDecision {
  bool stop = false;
  // Noise under the target with both minimums met.
  bool converged = false;
  // "converged", "noise_stable: ...", or "timeout: ..." naming the unmet condition.
  std::string reason;
};

class StoppingRule {
 public:
  explicit StoppingRule(StoppingCriteria criteria);

  // One kept sample: `per_launch_seconds` feeds the noise, `measured_seconds` (the whole
  // sample's device time) the minimum-time condition.
  void Add(double per_launch_seconds, double measured_seconds);

  // `elapsed_seconds` is wall time since sampling began (the caller owns the clock).
  StopDecision Check(double elapsed_seconds) const;

  double noise() const { return stats_.relative_stddev(); }
  int64_t samples() const { return stats_.count(); }
  double measured_seconds() const { return measured_seconds_; }
  const StoppingCriteria& criteria() const { return criteria_; }

  // Noise values kept to judge whether the estimate has stabilised.
  static constexpr size_t kNoiseWindow = 64;
  // The estimate counts as stable when it moved less than this (relative) across the window.
  static constexpr double kStableSpread = 0.05;

 private:
  StoppingCriteria criteria_;
  RunningStats stats_;
  double measured_seconds_ = 0;
  std::deque<double> noise_history_;
};

}  // namespace kbench::measure
