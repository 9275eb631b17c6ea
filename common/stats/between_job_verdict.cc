// The between-job verdict: a t test of the change in log medians against the key's noise.
#include "common/stats/between_job_verdict.h"

#include <gsl/gsl_cdf.h>

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"

namespace kbench::analysis {
namespace {

// Two-sided p-value and critical value of the test statistic: Student's t, or a normal for a
// fresh key (whose stand-in noise is an assumed bound, not an estimate).
double TwoSidedP(double z, bool fresh_key) {
  const double tail = fresh_key ? gsl_cdf_ugaussian_Q(std::abs(z))
                                : gsl_cdf_tdist_Q(std::abs(z), kBetweenJobDegreesOfFreedom);
  return std::min(1.0, 2 * tail);
}

double CriticalValue(double alpha, bool fresh_key) {
  return fresh_key ? gsl_cdf_ugaussian_Qinv(alpha / 2)
                   : gsl_cdf_tdist_Qinv(alpha / 2, kBetweenJobDegreesOfFreedom);
}

double Percent(double log_change) { return 100 * std::expm1(log_change); }

}  // namespace

absl::StatusOr<double> BootstrapLogMedianStandardError(std::span<const double> values,
                                                       const BootstrapOptions& options) {
  if (values.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a median's standard error needs two values or more, got ", values.size()));
  }
  for (double v : values) {
    if (!(v > 0)) return absl::InvalidArgumentError(absl::StrCat("a time of ", v, " seconds"));
  }
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::vector<double> scratch(values.size());
  std::vector<double> logs;
  logs.reserve(static_cast<size_t>(options.resamples));
  for (int i = 0; i < options.resamples; ++i) {
    for (double& v : scratch) v = values[pick(rng)];
    logs.push_back(std::log(MedianInPlace(scratch)));
  }
  return std::sqrt(SampleVariance(logs));
}

absl::StatusOr<BetweenJobComparison> CompareBetweenJobs(const JobEstimate& baseline,
                                                        const JobEstimate& candidate,
                                                        const BetweenJobNoise& noise, double alpha,
                                                        double min_effect_percent) {
  if (!(baseline.median_seconds > 0) || !(candidate.median_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("medians must be positive, got ",
                                                   baseline.median_seconds, " and ",
                                                   candidate.median_seconds, " seconds"));
  }
  BetweenJobComparison c;
  c.fresh_key = !noise.Known();
  const double between = c.fresh_key ? kFreshKeySigmaLog : noise.sigma_log;
  c.sigma_log =
      std::sqrt(2 * between * between + baseline.log_standard_error * baseline.log_standard_error +
                candidate.log_standard_error * candidate.log_standard_error);
  const double log_change = std::log(candidate.median_seconds / baseline.median_seconds);
  const double half_width = CriticalValue(alpha, c.fresh_key) * c.sigma_log;
  c.change = {Percent(log_change), Percent(log_change - half_width),
              Percent(log_change + half_width)};
  c.p_value = TwoSidedP(log_change / c.sigma_log, c.fresh_key);
  c.resolvable_percent = Percent(half_width);
  c.verdict = Decide(c.p_value, c.change, alpha, min_effect_percent);
  return c;
}

}  // namespace kbench::analysis
