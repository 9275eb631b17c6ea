// D'Agostino-Pearson K² normality test; the formulas follow D'Agostino et al. (1990) and
// scipy.stats.skewtest / kurtosistest / normaltest term by term.
#include "common/stats/normality.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"
#include "gsl/gsl_cdf.h"

namespace kbench::analysis {
namespace {

struct Moments {
  double m2 = 0;
  double m3 = 0;
  double m4 = 0;
};

// Central moments with the biased (1/n) normalisation the test is defined with.
Moments CentralMoments(std::span<const double> x) {
  const double mean = Mean(x);
  Moments m;
  for (double v : x) {
    const double d = v - mean;
    m.m2 += d * d;
    m.m3 += d * d * d;
    m.m4 += d * d * d * d;
  }
  const double n = static_cast<double>(x.size());
  m.m2 /= n;
  m.m3 /= n;
  m.m4 /= n;
  return m;
}

// D'Agostino's transformation of the sample skewness sqrt(b1) to a standard normal Z.
double SkewnessZ(double skewness, double n) {
  double y = skewness * std::sqrt((n + 1) * (n + 3) / (6.0 * (n - 2)));
  const double beta2 =
      3.0 * (n * n + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2) * (n + 5) * (n + 7) * (n + 9));
  const double w2 = -1 + std::sqrt(2 * (beta2 - 1));
  const double delta = 1 / std::sqrt(0.5 * std::log(w2));
  const double alpha = std::sqrt(2 / (w2 - 1));
  if (y == 0) y = 1;  // as scipy: keeps the log finite; Z is then ~0 either way
  return delta * std::log(y / alpha + std::sqrt((y / alpha) * (y / alpha) + 1));
}

// Anscombe and Glynn's transformation of the sample kurtosis b2 to a standard normal Z.
double KurtosisZ(double kurtosis, double n) {
  const double expected = 3.0 * (n - 1) / (n + 1);
  const double variance = 24.0 * n * (n - 2) * (n - 3) / ((n + 1) * (n + 1) * (n + 3) * (n + 5));
  const double x = (kurtosis - expected) / std::sqrt(variance);
  const double sqrt_beta1 = 6.0 * (n * n - 5 * n + 2) / ((n + 7) * (n + 9)) *
                            std::sqrt(6.0 * (n + 3) * (n + 5) / (n * (n - 2) * (n - 3)));
  const double a =
      6 + 8 / sqrt_beta1 * (2 / sqrt_beta1 + std::sqrt(1 + 4 / (sqrt_beta1 * sqrt_beta1)));
  const double term1 = 1 - 2 / (9 * a);
  const double denom = 1 + x * std::sqrt(2 / (a - 4));
  const double term2 = std::copysign(std::cbrt((1 - 2 / a) / std::fabs(denom)), denom);
  return (term1 - term2) / std::sqrt(2 / (9 * a));
}

}  // namespace

absl::StatusOr<NormalityTest> DAgostinoPearson(std::span<const double> x) {
  if (x.size() < kMinNormalitySamples) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the normality test needs at least ", kMinNormalitySamples, " values, got ", x.size()));
  }
  const Moments m = CentralMoments(x);
  if (m.m2 <= 0) {
    return absl::InvalidArgumentError("the normality test needs values that are not all equal");
  }
  const double n = static_cast<double>(x.size());
  NormalityTest t;
  t.skewness_z = SkewnessZ(m.m3 / std::pow(m.m2, 1.5), n);
  t.kurtosis_z = KurtosisZ(m.m4 / (m.m2 * m.m2), n);
  t.k2 = t.skewness_z * t.skewness_z + t.kurtosis_z * t.kurtosis_z;
  t.p_value = gsl_cdf_chisq_Q(t.k2, 2);
  return t;
}

}  // namespace kbench::analysis
