// Does a sample look normal? D'Agostino and Pearson's omnibus K² test, which combines the
// skewness and kurtosis tests (D'Agostino, Belanger & D'Agostino, "A suggestion for using
// powerful and informative tests of normality", The American Statistician 44(4), 1990), as
// scipy.stats.normaltest computes it. It picks Welch's t over Mann-Whitney U in a verdict.
#pragma once

#include <span>

#include "absl/status/statusor.h"

namespace kbench::analysis {

struct NormalityTest {
  double skewness_z = 0;
  double kurtosis_z = 0;
  // K² = skewness_z² + kurtosis_z², chi-squared with 2 degrees of freedom under normality.
  double k2 = 0;
  double p_value = 0;
};

// The kurtosis test's approximation needs at least this many values (scipy warns below it).
inline constexpr size_t kMinNormalitySamples = 20;

// INVALID_ARGUMENT with fewer than kMinNormalitySamples values or zero variance (a constant
// sample is not normal, and its skewness is undefined).
absl::StatusOr<NormalityTest> DAgostinoPearson(std::span<const double> x);

}  // namespace kbench::analysis
