// Between-job noise: Shamos' scale over the newest segment of a key's history.
#include "common/stats/between_job_noise.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/stats/descriptive.h"

namespace kbench::analysis {
namespace {

// Shamos' estimator's consistency factor for a normal: 1 / (sqrt(2) x the median of |Z|).
constexpr double kShamosFactor = 1.048358;
// The MAD's and the mean absolute deviation's consistency factors for a normal.
constexpr double kMadFactor = 1.482602;
constexpr double kMeanDeviationFactor = 1.253314;
// A step must stand this many standard errors out. Many splits are tried, so the level is far
// above a single test's 1.96; a missed small step only leaves the estimate a little wide.
constexpr double kStepThreshold = 5.0;
// A side of a step holds at least this many results: one bad job is noise, not a step.
constexpr int kMinSegment = 4;
// A step is also at least 0.5 % high (in log units). On a quiet key whose medians sit on a few
// ticks of the GPU's clock (an H200's 128 MiB copy: ±0.05 %), a shift of one tick stands many
// standard errors out, and cutting the history there left too few results to judge: 2 of 12
// real 6 % slowdowns were UNSURE in the H200 panel (docs/benchmarks.md § 23). Leaving a smaller
// step in widens the estimate by at most about half of it, well under any minimum effect.
constexpr double kMinStepLog = 0.005;

// |x_i - the median of its side| with `x` split at `k` (the newest k on one side).
std::vector<double> Residuals(std::span<const double> x, size_t k) {
  const double newer = Median(x.subspan(0, k));
  const double older = Median(x.subspan(k));
  std::vector<double> residuals;
  residuals.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    residuals.push_back(std::abs(x[i] - (i < k ? newer : older)));
  return residuals;
}

// A normal's standard deviation from absolute residuals: their median (the MAD), or their mean
// where more than half are 0 (medians on a clock's few ticks), which the MAD would call no
// noise at all.
double ResidualScale(std::vector<double> residuals) {
  const double mean = Mean(residuals);
  const double mad = kMadFactor * MedianInPlace(residuals);
  return mad > 0 ? mad : kMeanDeviationFactor * mean;
}

struct Split {
  size_t newer = 0;  // results on the newer side
  double gap = 0;    // between the sides' medians
  double score = 0;  // the gap in standard errors
};

// The split that fits `x` best as two levels (least absolute deviations from the sides'
// medians, as a step would), its height and by how many standard errors its levels differ.
Split BestSplit(std::span<const double> x) {
  const size_t n = x.size();
  size_t best = 0;
  double best_deviation = INFINITY;
  for (size_t k = kMinSegment; k + kMinSegment <= n; ++k) {
    const std::vector<double> residuals = Residuals(x, k);
    const double deviation = Mean(residuals);
    if (deviation < best_deviation) best_deviation = deviation, best = k;
  }
  if (best == 0) return {};
  const double gap = std::abs(Median(x.subspan(0, best)) - Median(x.subspan(best)));
  const double se = ResidualScale(Residuals(x, best)) * std::sqrt(1.0 / best + 1.0 / (n - best));
  return {best, gap, se > 0 ? gap / se : (gap > 0 ? INFINITY : 0)};
}

}  // namespace

double ShamosScale(std::span<const double> x) {
  if (x.size() < 2) return 0;
  std::vector<double> differences;
  differences.reserve(x.size() * (x.size() - 1) / 2);
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i + 1; j < x.size(); ++j) differences.push_back(std::abs(x[i] - x[j]));
  }
  return kShamosFactor * MedianInPlace(differences);
}

int NewestSegmentLength(std::span<const double> values) {
  std::span<const double> segment = values;
  while (segment.size() >= 2 * kMinSegment) {
    const Split split = BestSplit(segment);
    if (split.score <= kStepThreshold || split.gap < kMinStepLog) break;
    segment = segment.subspan(0, split.newer);
  }
  return static_cast<int>(segment.size());
}

BetweenJobNoise EstimateBetweenJobNoise(std::span<const double> medians) {
  std::vector<double> logs;
  logs.reserve(medians.size());
  for (double m : medians) {
    if (m > 0) logs.push_back(std::log(m));
  }
  BetweenJobNoise noise;
  noise.results = NewestSegmentLength(logs);
  noise.results_before_step = static_cast<int>(logs.size()) - noise.results;
  if (noise.results < kMinHistoryResults) return noise;
  noise.sigma_log =
      std::max(kSigmaFloor, ShamosScale(std::span<const double>(logs).subspan(0, noise.results)));
  return noise;
}

}  // namespace kbench::analysis
