// The regression verdict on one variant at one point: is the candidate FASTER, SLOWER, the
// SAME as the baseline, or can the data not tell (UNSURE)? The test is chosen by the data
// (Welch's t where both samples look normal, Mann-Whitney U otherwise), the size of the change
// is a bootstrap interval of the change in medians, and a change smaller than the minimum
// effect is never called a regression, however significant.
#pragma once

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "common/stats/bootstrap.h"

namespace kbench::analysis {

enum class Verdict { kSame, kFaster, kSlower, kUnsure };
std::string VerdictName(Verdict verdict);  // "SAME", "FASTER", "SLOWER", "UNSURE"

enum class TestKind { kWelchT, kMannWhitneyU };
std::string TestName(TestKind test);  // "welch_t", "mann_whitney_u"

struct VerdictOptions {
  // Significance level of the test.
  double alpha = 0.05;
  // The run-to-run noise of the timings, percent (e.g. the larger median interval
  // half-width of the two runs). The minimum effect defaults to max(1 %, noise).
  double noise_percent = 0;
  // When > 0, the minimum effect instead of max(1 %, noise): a threshold calibrated by A/A
  // runs (tools/bench/aa_calibration.sh).
  double min_effect_percent = 0;
  BootstrapOptions bootstrap;
};

struct Comparison {
  TestKind test = TestKind::kMannWhitneyU;
  // Whether each sample passed the normality test (false also when it had too few values).
  bool baseline_normal = false;
  bool candidate_normal = false;
  double p_value = 1;
  double baseline_median = 0;
  double candidate_median = 0;
  ChangeInterval change;
  double min_effect_percent = 0;
  Verdict verdict = Verdict::kUnsure;
};

// The minimum effect that `options` asks for, percent.
double MinimumEffectPercent(const VerdictOptions& options);

// Decides from the test's p-value, the interval and the minimum effect t:
//  - SAME when the whole interval lies within ±t: no change that matters is plausible, whether
//    or not a smaller one is significant;
//  - otherwise, significant (p < alpha and the interval excludes 0): SLOWER for a positive
//    change, FASTER for a negative one: the change is real and may reach t or more (a true
//    change of exactly t is then called 90 % of the time or more where the interval's
//    half-width is under t / 2, where requiring the point estimate beyond t would call it
//    half of the time);
//  - UNSURE otherwise: the data cannot tell a change of t from none.
Verdict Decide(double p_value, const ChangeInterval& change, double alpha,
               double min_effect_percent);

// INVALID_ARGUMENT when a sample has fewer than two values or the baseline's median is not
// positive.
absl::StatusOr<Comparison> Compare(std::span<const double> baseline,
                                   std::span<const double> candidate,
                                   const VerdictOptions& options = {});

}  // namespace kbench::analysis
