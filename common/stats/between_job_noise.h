// The noise between jobs of one result key, estimated from the medians of its earlier results:
// a robust standard deviation of the log median (Shamos' estimator: the median absolute
// difference between two results, scaled to a normal's standard deviation) over the newest
// segment of the history, after the last step in its level. One regression in the history
// moves the level once; it does not widen the noise for ever, and one bad job does not set it.
#pragma once

#include <span>

namespace kbench::analysis {

// Fewer results in the newest segment than this give no estimate: with 8, Shamos' estimator
// still uses 28 pairs, and the tails of the test (between_job_verdict.h) hold the false rate of
// the calibration panel (tests/common/stats/) under 5 %.
inline constexpr int kMinHistoryResults = 8;

// The smallest noise ever assumed (0.001 %): medians equal to the clock's tick must not make
// every difference infinitely significant. A numeric floor, not a threshold of relevance: that
// is the minimum effect's job.
inline constexpr double kSigmaFloor = 1e-5;

struct BetweenJobNoise {
  // Results in the newest segment, which the estimate used.
  int results = 0;
  // Older results, before the newest step in the key's level, left out.
  int results_before_step = 0;
  // Standard deviation of one result's log median (natural log; 0.01 is about 1 %), at least
  // kSigmaFloor; 0 when results < kMinHistoryResults.
  double sigma_log = 0;

  bool Known() const { return results >= kMinHistoryResults; }
};

// 1.048358 x the median of |x_i - x_j| over pairs (Shamos; Rousseeuw & Croux, JASA 1993): a
// normal's standard deviation, 86 % efficient, unmoved by up to 29 % of outliers. 0 for fewer
// than two values.
double ShamosScale(std::span<const double> x);

// How many of `values` (newest first) lie after the last step in their level. The split that
// fits them best as two levels (least absolute deviations from its sides' medians, each side at
// least 4 long) is a step when its sides' medians differ by more than 5 standard errors (a
// robust scale of the values around their sides' medians) and by at least 0.005 (0.5 % of a
// log median: smaller shifts of a quiet key are a clock tick, not a step worth losing history
// for); the search repeats on the newest side. All of them when there is no step.
int NewestSegmentLength(std::span<const double> values);

// `medians` in seconds, newest first (as ListHistory returns them); non-positive ones ignored.
BetweenJobNoise EstimateBetweenJobNoise(std::span<const double> medians);

}  // namespace kbench::analysis
