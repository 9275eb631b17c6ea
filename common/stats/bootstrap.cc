// Percentile bootstrap of the change in medians.
#include "common/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"

namespace kbench::analysis {
namespace {

double ResampledMedian(std::span<const double> x, std::mt19937_64& rng,
                       std::vector<double>& scratch) {
  std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
  scratch.resize(x.size());
  for (double& v : scratch) v = x[pick(rng)];
  return MedianInPlace(scratch);
}

// The q-quantile of sorted values, linearly interpolated (R's type 7).
double Quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

absl::StatusOr<ChangeInterval> BootstrapMedianChange(std::span<const double> baseline,
                                                     std::span<const double> candidate,
                                                     const BootstrapOptions& options) {
  if (baseline.empty() || candidate.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the bootstrap needs values in both samples, got ", baseline.size(), " and ",
                     candidate.size()));
  }
  if (options.resamples < 100 || !(options.confidence > 0 && options.confidence < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bootstrap options out of range: ", options.resamples, " resamples (at least 100), ",
        "confidence ", options.confidence, " (between 0 and 1)"));
  }
  const double baseline_median = Median(baseline);
  if (!(baseline_median > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the baseline's median time must be positive, got ", baseline_median));
  }
  ChangeInterval interval;
  interval.change_percent = 100 * (Median(candidate) / baseline_median - 1);
  std::mt19937_64 rng(options.seed);
  std::vector<double> scratch;
  std::vector<double> changes;
  changes.reserve(static_cast<size_t>(options.resamples));
  for (int i = 0; i < options.resamples; ++i) {
    const double base = ResampledMedian(baseline, rng, scratch);
    const double cand = ResampledMedian(candidate, rng, scratch);
    if (base > 0) changes.push_back(100 * (cand / base - 1));
  }
  if (changes.empty()) return absl::InvalidArgumentError("every resampled baseline median was 0");
  std::sort(changes.begin(), changes.end());
  const double tail = (1 - options.confidence) / 2;
  interval.low_percent = Quantile(changes, tail);
  interval.high_percent = Quantile(changes, 1 - tail);
  return interval;
}

}  // namespace kbench::analysis
