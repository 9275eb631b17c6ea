// Two-sample location tests of a baseline's and a candidate's times: Welch's t (unequal
// variances) where both samples look normal, Mann-Whitney U otherwise. Both two-sided.
#pragma once

#include <span>

#include "absl/status/statusor.h"

namespace kbench::analysis {

struct WelchT {
  double t = 0;                   // (mean(a) - mean(b)) / standard error
  double degrees_of_freedom = 0;  // Welch-Satterthwaite
  double p_value = 1;
};

// As R's t.test(a, b) (var.equal = FALSE). INVALID_ARGUMENT with fewer than two values in a
// sample. Two constant samples: p = 1 when their means are equal, 0 otherwise.
absl::StatusOr<WelchT> WelchTTest(std::span<const double> a, std::span<const double> b);

struct MannWhitneyU {
  // R's W: the rank sum of `a` minus n_a (n_a + 1) / 2.
  double u = 0;
  double z = 0;
  double p_value = 1;
};

// As R's wilcox.test(a, b, exact = FALSE, correct = TRUE): the normal approximation with the
// tie correction of the variance and a continuity correction. Timing samples have hundreds of
// values and many ties at a clock's resolution, where the exact distribution is neither needed
// nor defined. INVALID_ARGUMENT for an empty sample.
absl::StatusOr<MannWhitneyU> MannWhitneyUTest(std::span<const double> a, std::span<const double> b);

}  // namespace kbench::analysis
