// The stopping rule of the timing protocol.
#include "server/executor/measure/stopping_rule.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kbench::measure {

StoppingRule::StoppingRule(StoppingCriteria criteria) : criteria_(criteria) {}

void StoppingRule::Add(double per_launch_seconds, double measured_seconds) {
  stats_.Add(per_launch_seconds);
  measured_seconds_ += measured_seconds;
  if (stats_.count() >= 2) {
    noise_history_.push_back(stats_.relative_stddev());
    if (noise_history_.size() > kNoiseWindow) noise_history_.pop_front();
  }
}

StopDecision StoppingRule::Check(double elapsed_seconds) const {
  const bool enough_samples = stats_.count() >= criteria_.min_samples;
  const bool enough_time = measured_seconds_ >= criteria_.min_time_seconds;
  const double noise = stats_.relative_stddev();
  StopDecision d;
  if (enough_samples && enough_time) {
    if (noise <= criteria_.max_noise) {
      d.stop = d.converged = true;
      d.reason = "converged";
      return d;
    }
    if (noise_history_.size() == kNoiseWindow) {
      const auto [lo, hi] = std::minmax_element(noise_history_.begin(), noise_history_.end());
      if ((*hi - *lo) <= kStableSpread * *hi) {
        d.stop = true;
        d.reason = absl::StrFormat(
            "noise_stable: noise %.2f%% stayed above the %.2f%% target over the last %d samples",
            100 * noise, 100 * criteria_.max_noise, kNoiseWindow);
        return d;
      }
    }
  }
  if (elapsed_seconds >= criteria_.timeout_seconds) {
    d.stop = true;
    std::string unmet;
    if (!enough_samples) {
      unmet = absl::StrCat("samples ", stats_.count(), " < min_samples ", criteria_.min_samples);
    } else if (!enough_time) {
      unmet = absl::StrFormat("measured time %.3g s < min_time %.3g s", measured_seconds_,
                              criteria_.min_time_seconds);
    } else {
      unmet = absl::StrFormat("noise %.2f%% > target %.2f%%", 100 * noise,
                              100 * criteria_.max_noise);
    }
    d.reason = absl::StrFormat("timeout after %.3g s: %s", elapsed_seconds, unmet);
  }
  return d;
}

}  // namespace kbench::measure
