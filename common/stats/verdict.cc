// The regression verdict: a test chosen by the data, a bootstrap interval, a minimum effect.
#include "common/stats/verdict.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"
#include "common/stats/normality.h"
#include "common/stats/two_sample_tests.h"
#include "common/status_macros.h"

namespace kbench::analysis {
namespace {

// Below this p-value a sample is taken as not normal (the usual 5 % level).
constexpr double kNormalityAlpha = 0.05;
// The smallest minimum effect of a comparison of samples inside one job (Compare): timings
// that move by less than 1 % are not worth a person's attention, whatever the test says.
// kbctl diff no longer takes this path (between_job_verdict.h: no floor beyond a numeric one).
constexpr double kFloorEffectPercent = 1.0;

bool LooksNormal(std::span<const double> x) {
  absl::StatusOr<NormalityTest> test = DAgostinoPearson(x);
  return test.ok() && test->p_value >= kNormalityAlpha;
}

}  // namespace

std::string VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame:
      return "SAME";
    case Verdict::kFaster:
      return "FASTER";
    case Verdict::kSlower:
      return "SLOWER";
    case Verdict::kUnsure:
      return "UNSURE";
  }
  return "UNSURE";
}

std::string TestName(TestKind test) {
  return test == TestKind::kWelchT ? "welch_t" : "mann_whitney_u";
}

double MinimumEffectPercent(const VerdictOptions& options) {
  if (options.min_effect_percent > 0) return options.min_effect_percent;
  return std::max(kFloorEffectPercent, options.noise_percent);
}

Verdict Decide(double p_value, const ChangeInterval& change, double alpha,
               double min_effect_percent) {
  if (change.low_percent >= -min_effect_percent && change.high_percent <= min_effect_percent) {
    return Verdict::kSame;
  }
  const bool excludes_zero = change.low_percent > 0 || change.high_percent < 0;
  if (p_value < alpha && excludes_zero) {
    return change.change_percent > 0 ? Verdict::kSlower : Verdict::kFaster;
  }
  return Verdict::kUnsure;
}

absl::StatusOr<Comparison> Compare(std::span<const double> baseline,
                                   std::span<const double> candidate,
                                   const VerdictOptions& options) {
  if (baseline.size() < 2 || candidate.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a verdict needs at least two samples on each side, got ", baseline.size(),
                     " and ", candidate.size()));
  }
  Comparison c;
  c.baseline_median = Median(baseline);
  c.candidate_median = Median(candidate);
  c.baseline_normal = LooksNormal(baseline);
  c.candidate_normal = LooksNormal(candidate);
  if (c.baseline_normal && c.candidate_normal) {
    c.test = TestKind::kWelchT;
    KBENCH_ASSIGN_OR_RETURN(WelchT t, WelchTTest(baseline, candidate));
    c.p_value = t.p_value;
  } else {
    c.test = TestKind::kMannWhitneyU;
    KBENCH_ASSIGN_OR_RETURN(MannWhitneyU u, MannWhitneyUTest(baseline, candidate));
    c.p_value = u.p_value;
  }
  KBENCH_ASSIGN_OR_RETURN(c.change, BootstrapMedianChange(baseline, candidate, options.bootstrap));
  c.min_effect_percent = MinimumEffectPercent(options);
  c.verdict = Decide(c.p_value, c.change, options.alpha, c.min_effect_percent);
  return c;
}

}  // namespace kbench::analysis
