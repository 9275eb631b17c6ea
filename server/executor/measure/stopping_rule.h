// When to stop sampling: the median known to within a target (its 95% interval's half-width
// over the median), or the samples' relative stddev under the same target, with minimum
// samples and minimum accumulated measured time, bounded by a timeout, with an early stop once
// the noise estimate has itself stopped moving (as nvbench's stdrel criterion does).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "common/stopping_defaults.h"
#include "server/executor/measure/statistics.h"

namespace kbench::measure {

struct StoppingCriteria {
  double max_noise = kDefaultMaxNoise;
  int64_t min_samples = kDefaultMinSamples;
  double min_time_seconds = kDefaultMinTimeSeconds;
  double timeout_seconds = kDefaultTimeoutSeconds;
};

// Which condition ended the sampling (kNone while it goes on).
enum class StopCriterion {
  kNone,
  // The median's 95% interval half-width / median <= max_noise: the published number is
  // known that precisely, however wide the samples' spread (issue 15, item 4).
  kMedianPrecision,
  // The samples' relative stddev <= max_noise.
  kRelativeStddev,
  // The relative stddev stayed above the target but stopped moving.
  kNoiseStable,
  kTimeout,
};

struct StopDecision {
  bool stop = false;
  // The median's precision or the noise under the target, with both minimums met.
  bool converged = false;
  StopCriterion criterion = StopCriterion::kNone;
  // "converged: <which figure> ...", "noise_stable: ...", or "timeout: ..." naming the unmet
  // condition. For people; code reads `criterion`.
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
  // The median's 95% interval half-width over the median (infinite below kMinSamplesForCi).
  double median_precision() const;
  int64_t samples() const { return stats_.count(); }
  double measured_seconds() const { return measured_seconds_; }
  const StoppingCriteria& criteria() const { return criteria_; }

  // Noise values kept to judge whether the estimate has stabilised.
  static constexpr size_t kNoiseWindow = 64;
  // The estimate counts as stable when it moved less than this (relative) across the window.
  static constexpr double kStableSpread = 0.05;
  // The fewest samples whose order statistics bound the median with 95% confidence
  // (P(Binomial(6, 1/2) = 0) = 1.6% <= 2.5%).
  static constexpr int64_t kMinSamplesForCi = 6;

 private:
  StoppingCriteria criteria_;
  RunningStats stats_;
  double measured_seconds_ = 0;
  std::deque<double> noise_history_;
  std::vector<double> per_launch_;
};

}  // namespace kbench::measure
