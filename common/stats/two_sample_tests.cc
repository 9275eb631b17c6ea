// Welch's t test and the Mann-Whitney U test, with GSL's t and normal distributions.
#include "common/stats/two_sample_tests.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/stats/descriptive.h"
#include "gsl/gsl_cdf.h"

namespace kbench::analysis {
namespace {

struct Ranked {
  double value;
  bool from_a;
};

struct RankSums {
  double rank_sum_a = 0;
  // Sum over groups of tied values of (t^3 - t): the variance's tie correction.
  double tie_term = 0;
};

// Mid-ranks of the pooled samples: a group of tied values shares the mean of its ranks.
RankSums PooledRankSums(std::span<const double> a, std::span<const double> b) {
  std::vector<Ranked> pooled;
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.push_back({v, true});
  for (double v : b) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const Ranked& x, const Ranked& y) { return x.value < y.value; });
  RankSums sums;
  size_t i = 0;
  while (i < pooled.size()) {
    size_t j = i;
    while (j + 1 < pooled.size() && pooled[j + 1].value == pooled[i].value) ++j;
    const double mid_rank = 0.5 * static_cast<double>(i + j) + 1;  // ranks start at 1
    const double ties = static_cast<double>(j - i + 1);
    sums.tie_term += ties * ties * ties - ties;
    for (size_t k = i; k <= j; ++k) {
      if (pooled[k].from_a) sums.rank_sum_a += mid_rank;
    }
    i = j + 1;
  }
  return sums;
}

}  // namespace

absl::StatusOr<WelchT> WelchTTest(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Welch's t test needs two values per sample, got ", a.size(), " and ", b.size()));
  }
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  const double va = SampleVariance(a) / na;
  const double vb = SampleVariance(b) / nb;
  const double difference = Mean(a) - Mean(b);
  WelchT result;
  if (va + vb == 0) {
    result.p_value = difference == 0 ? 1 : 0;
    return result;
  }
  result.t = difference / std::sqrt(va + vb);
  result.degrees_of_freedom = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  result.p_value = 2 * gsl_cdf_tdist_Q(std::fabs(result.t), result.degrees_of_freedom);
  return result;
}

absl::StatusOr<MannWhitneyU> MannWhitneyUTest(std::span<const double> a,
                                              std::span<const double> b) {
  if (a.empty() || b.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the Mann-Whitney U test needs values in both samples, got ", a.size(), " and ", b.size()));
  }
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  const RankSums sums = PooledRankSums(a, b);
  MannWhitneyU result;
  result.u = sums.rank_sum_a - na * (na + 1) / 2;
  const double n = na + nb;
  const double variance = na * nb / 12 * ((n + 1) - sums.tie_term / (n * (n - 1)));
  if (variance <= 0) return result;  // every value tied: no evidence of a shift
  const double shift = result.u - na * nb / 2;
  const double correction = shift > 0 ? 0.5 : (shift < 0 ? -0.5 : 0.0);
  result.z = (shift - correction) / std::sqrt(variance);
  result.p_value = 2 * std::min(gsl_cdf_ugaussian_P(result.z), gsl_cdf_ugaussian_Q(result.z));
  return result;
}

}  // namespace kbench::analysis
