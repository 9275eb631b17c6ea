// Bootstrap percentile interval of the relative change in medians, candidate over baseline:
// each sample resampled with replacement on its own (Efron & Tibshirani, "An Introduction to
// the Bootstrap", 1993, ch. 13). Medians of timing samples are neither normal nor symmetric,
// which is why no closed form is used.
#pragma once

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"

namespace kbench::analysis {

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;
  // Fixed by default: the same two jobs always give the same interval.
  uint64_t seed = 0x6b62656e6368ULL;
};

struct ChangeInterval {
  // 100 * (median(candidate) / median(baseline) - 1): positive is slower.
  double change_percent = 0;
  double low_percent = 0;
  double high_percent = 0;
};

// INVALID_ARGUMENT for an empty sample, a baseline median that is not positive, or options
// out of range (resamples < 100, confidence outside (0, 1)).
absl::StatusOr<ChangeInterval> BootstrapMedianChange(std::span<const double> baseline,
                                                     std::span<const double> candidate,
                                                     const BootstrapOptions& options = {});

}  // namespace kbench::analysis
