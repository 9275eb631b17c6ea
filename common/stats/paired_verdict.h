// The verdict of an interleaved A/B run (issue 26): N pairs of medians, each pair (baseline,
// candidate) measured on the same placement or in the same round, and one decision over the N
// pair ratios. The pair, not the sample, is the unit of replication: thousands of samples of
// one job share whatever shifted between jobs, so a test over samples calls any such shift
// significant, while N pairs see it N times.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "common/stats/bootstrap.h"
#include "common/stats/verdict.h"

namespace kbench::analysis {

struct PairedOptions {
  double confidence = 0.95;
  // A change smaller than this is never SLOWER or FASTER (issue 26's default: 3 %, the
  // run-to-run spread of one job's median on a busy host).
  double min_effect_percent = 3.0;
};

struct PairedVerdict {
  int pairs = 0;
  // The geometric mean of the pair ratios candidate / baseline, as a change in percent
  // (positive is slower), with the t interval of the mean log ratio over pairs, converted alike.
  ChangeInterval change;
  // The median of the pair ratios, as a change in percent: shown beside the mean, robust to
  // one odd pair.
  double median_change_percent = 0;
  // Two-sided one-sample t test of mean log ratio = 0 (n - 1 degrees of freedom).
  double p_value = 1;
  // The interval's half-width, percent: the smallest change these pairs resolve.
  double resolution_percent = 0;
  double min_effect_percent = 0;
  Verdict verdict = Verdict::kUnsure;
  // UNSURE only: the smallest power of two of pairs that would likely decide at the spread
  // seen (excluding 0, or fitting within ±min effect); 0 when even kMaxSuggestedPairs would not.
  int pairs_to_resolve = 0;
};

// The largest pairs_to_resolve suggested.
inline constexpr int kMaxSuggestedPairs = 1024;

// INVALID_ARGUMENT unless both spans have the same length of at least two, every median is
// positive and finite, and the options are in range (confidence in (0, 1), min effect >= 0).
absl::StatusOr<PairedVerdict> ComparePairs(std::span<const double> baseline_medians,
                                           std::span<const double> candidate_medians,
                                           const PairedOptions& options = {});

}  // namespace kbench::analysis
