// The paired verdict: a t interval over the pairs' log ratios, decided by Decide's rule.
#include "common/stats/paired_verdict.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"
#include "gsl/gsl_cdf.h"

namespace kbench::analysis {
namespace {

// A log ratio as a change in percent.
double Percent(double log_ratio) { return 100.0 * std::expm1(log_ratio); }

absl::Status CheckInputs(std::span<const double> baseline, std::span<const double> candidate,
                         const PairedOptions& options) {
  if (baseline.size() != candidate.size()) {
    return absl::InvalidArgumentError(absl::StrCat("pairs: ", baseline.size(),
                                                   " baseline medians but ", candidate.size(),
                                                   " candidate medians"));
  }
  if (baseline.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("pairs: a paired verdict needs at least two pairs, got ", baseline.size()));
  }
  for (size_t i = 0; i < baseline.size(); ++i) {
    for (double v : {baseline[i], candidate[i]}) {
      if (!(v > 0) || !std::isfinite(v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("pairs: pair ", i + 1, " has a median of ", v, " s; medians are > 0"));
      }
    }
  }
  if (!(options.confidence > 0 && options.confidence < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("confidence: ", options.confidence, " is outside (0, 1)"));
  }
  if (!(options.min_effect_percent >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_effect_percent: ", options.min_effect_percent, " is negative"));
  }
  return absl::OkStatus();
}

// Half-width of the t interval of a mean of n values of standard deviation sd.
double HalfWidth(double sd, int n, double confidence) {
  const double t = gsl_cdf_tdist_Pinv(0.5 + confidence / 2, n - 1);
  return t * sd / std::sqrt(static_cast<double>(n));
}

// An UNSURE interval holds 0 and reaches past ±m. It decides once its half-width drops below
// |c| (0 excluded: significant) or below m - |c| (all of it within ±m: SAME), so the wider of
// the two is the target; the estimate assumes the centre and the spread stay as measured.
int PairsToResolve(double centre, double sd, int pairs, double min_effect_log, double confidence) {
  const double target = std::max(std::abs(centre), min_effect_log - std::abs(centre));
  for (int n = 2; n <= kMaxSuggestedPairs; n *= 2) {
    if (n > pairs && HalfWidth(sd, n, confidence) < target) return n;
  }
  return 0;
}

}  // namespace

absl::StatusOr<PairedVerdict> ComparePairs(std::span<const double> baseline_medians,
                                           std::span<const double> candidate_medians,
                                           const PairedOptions& options) {
  if (absl::Status s = CheckInputs(baseline_medians, candidate_medians, options); !s.ok()) {
    return s;
  }
  // Log ratios: a pair's ratio does not depend on which side is the denominator up to its
  // sign, and the means of logs of medians are close to normal, which the t interval assumes.
  std::vector<double> logs;
  for (size_t i = 0; i < baseline_medians.size(); ++i) {
    logs.push_back(std::log(candidate_medians[i] / baseline_medians[i]));
  }
  const int n = static_cast<int>(logs.size());
  const double centre = Mean(logs);
  const double sd = std::sqrt(SampleVariance(logs));
  const double half_width = HalfWidth(sd, n, options.confidence);

  PairedVerdict v;
  v.pairs = n;
  v.change = {Percent(centre), Percent(centre - half_width), Percent(centre + half_width)};
  v.median_change_percent = Percent(Median(logs));
  if (sd > 0) {
    const double t = centre / (sd / std::sqrt(static_cast<double>(n)));
    v.p_value = 2 * gsl_cdf_tdist_Q(std::abs(t), n - 1);
  } else {
    // Identical ratios: a certain change, or none.
    v.p_value = centre == 0 ? 1 : 0;
  }
  v.resolution_percent = Percent(half_width);
  v.min_effect_percent = options.min_effect_percent;
  v.verdict = Decide(v.p_value, v.change, 1 - options.confidence, options.min_effect_percent);
  if (v.verdict == Verdict::kUnsure) {
    const double min_effect_log = std::log1p(options.min_effect_percent / 100);
    v.pairs_to_resolve = PairsToResolve(centre, sd, n, min_effect_log, options.confidence);
  }
  return v;
}

}  // namespace kbench::analysis
