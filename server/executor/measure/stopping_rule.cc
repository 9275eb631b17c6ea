// The stopping rule of the timing protocol.
#include "server/executor/measure/stopping_rule.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kbench::measure {

StoppingRule::StoppingRule(StoppingCriteria criteria) : criteria_(criteria) {}

void StoppingRule::Add(double per_launch_seconds, double measured_seconds) {
  stats_.Add(per_launch_seconds);
  per_launch_.push_back(per_launch_seconds);
  measured_seconds_ += measured_seconds;
  if (stats_.count() >= 2) {
    noise_history_.push_back(stats_.relative_stddev());
    if (noise_history_.size() > kNoiseWindow) noise_history_.pop_front();
  }
}

double StoppingRule::median_precision() const {
  if (stats_.count() < kMinSamplesForCi) return std::numeric_limits<double>::infinity();
  return MedianRelativeHalfWidth(per_launch_);
}

StopDecision StoppingRule::Check(double elapsed_seconds) const {
  const bool enough_samples = stats_.count() >= criteria_.min_samples;
  const bool enough_time = measured_seconds_ >= criteria_.min_time_seconds;
  const double noise = stats_.relative_stddev();
  StopDecision d;
  if (enough_samples && enough_time) {
    if (const double precision = median_precision(); precision <= criteria_.max_noise) {
      d.stop = d.converged = true;
      d.criterion = StopCriterion::kMedianPrecision;
      d.reason = absl::StrFormat("converged: median's 95%% CI +-%.3f%% <= %.2f%%", 100 * precision,
                                 100 * criteria_.max_noise);
      return d;
    }
    if (noise <= criteria_.max_noise) {
      d.stop = d.converged = true;
      d.criterion = StopCriterion::kRelativeStddev;
      d.reason = absl::StrFormat("converged: relative stddev %.3f%% <= %.2f%%", 100 * noise,
                                 100 * criteria_.max_noise);
      return d;
    }
    if (noise_history_.size() == kNoiseWindow) {
      const auto [lo, hi] = std::minmax_element(noise_history_.begin(), noise_history_.end());
      if ((*hi - *lo) <= kStableSpread * *hi) {
        d.stop = true;
        d.criterion = StopCriterion::kNoiseStable;
        d.reason = absl::StrFormat(
            "noise_stable: noise %.2f%% stayed above the %.2f%% target over the last %d samples",
            100 * noise, 100 * criteria_.max_noise, kNoiseWindow);
        return d;
      }
    }
  }
  if (elapsed_seconds >= criteria_.timeout_seconds) {
    d.stop = true;
    d.criterion = StopCriterion::kTimeout;
    std::string unmet;
    if (!enough_samples) {
      unmet = absl::StrCat("samples ", stats_.count(), " < min_samples ", criteria_.min_samples);
    } else if (!enough_time) {
      unmet = absl::StrFormat("measured time %.3g s < min_time %.3g s", measured_seconds_,
                              criteria_.min_time_seconds);
    } else {
      unmet = absl::StrFormat("median's 95%% CI +-%.2f%% and noise %.2f%% > target %.2f%%",
                              100 * median_precision(), 100 * noise, 100 * criteria_.max_noise);
    }
    d.reason = absl::StrFormat("timeout after %.3g s: %s", elapsed_seconds, unmet);
  }
  return d;
}

}  // namespace kbench::measure
