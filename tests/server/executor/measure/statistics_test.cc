// Tests of the timing statistics: percentiles, the median's confidence interval, Welford.
#include "server/executor/measure/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace kbench::measure {
namespace {

TEST(Percentile, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> sorted = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 1.0), 5);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.5), 3);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.1), 1.4);  // position 0.4 between 1 and 2
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.875), 4.5);
}

TEST(Percentile, ReturnsZeroForNoValues) { EXPECT_EQ(Percentile({}, 0.5), 0); }

TEST(ComputeStatistics, MatchesHandComputedValuesOnUnsortedInput) {
  const SampleStatistics s = ComputeStatistics({4, 1, 3, 2});
  EXPECT_EQ(s.samples, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  // Sample variance: (2.25 + 0.25 + 0.25 + 2.25) / 3.
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(s.relative_stddev, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(s.p10, 1.3);
  EXPECT_DOUBLE_EQ(s.p90, 3.7);
}

TEST(ComputeStatistics, GivesZeroSpreadForOneSample) {
  const SampleStatistics s = ComputeStatistics({7e-6});
  EXPECT_EQ(s.samples, 1);
  EXPECT_DOUBLE_EQ(s.median, 7e-6);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.relative_stddev, 0);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 7e-6);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 7e-6);
}

TEST(ComputeStatistics, LeavesEverythingZeroForNoSamples) {
  const SampleStatistics s = ComputeStatistics({});
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(s.mean, 0);
}

TEST(ComputeStatistics, MedianConfidenceIntervalUsesTheTextbookOrderStatistics) {
  // n = 100: the exact binomial interval is [X_(40), X_(61)] (Conover, table A3); values 1..100.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const SampleStatistics s = ComputeStatistics(v);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 40);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 61);
}

// P(Binomial(n, 1/2) <= j), summed directly in long double (independent of the implementation's
// log-space recurrence).
double BinomialHalfCdf(size_t n, size_t j) {
  long double term = std::pow(0.5L, static_cast<long double>(n)), cdf = 0;
  for (size_t i = 0; i <= j; ++i) {
    cdf += term;
    term = term * static_cast<long double>(n - i) / static_cast<long double>(i + 1);
  }
  return static_cast<double>(cdf);
}

TEST(MedianConfidenceRanks, AreTheNarrowestRanksWithNominalCoverage) {
  // Coverage of [X_(k), X_(n-k+1)] is 1 - 2 P(B <= k - 1): at least 95%, and one rank narrower
  // on each side would fall below it.
  for (size_t n = 6; n <= 1000; ++n) {
    const MedianRanks r = MedianConfidenceRanks(n);
    const size_t k = r.low + 1;
    ASSERT_EQ(r.high, n - k) << "n=" << n << ": symmetric ranks";
    EXPECT_GE(1 - 2 * BinomialHalfCdf(n, k - 1), 0.95) << "n=" << n;
    EXPECT_LT(1 - 2 * BinomialHalfCdf(n, k), 0.95) << "n=" << n << ": could be narrower";
  }
}

TEST(MedianConfidenceRanks, ApproximationAboveTheExactLimitAgreesWithinOneRank) {
  for (size_t n : {kExactRankLimit + 1, size_t{10000}, size_t{100000}}) {
    const MedianRanks r = MedianConfidenceRanks(n);
    const double z = 1.959963984540054;
    const double expected_low = static_cast<double>(n) / 2 - z * std::sqrt(n) / 2;
    EXPECT_NEAR(static_cast<double>(r.low), expected_low, 1.5) << n;
    EXPECT_EQ(r.high, n - 1 - r.low) << n;
  }
}

TEST(MedianConfidenceRanks, SpanEverythingBelowSixSamples) {
  for (size_t n = 1; n < 6; ++n) {
    const MedianRanks r = MedianConfidenceRanks(n);
    EXPECT_EQ(r.low, 0u) << n;
    EXPECT_EQ(r.high, n - 1) << n;
  }
}

// Coverage of the true median by simulation, at sizes where the old ranks were one too narrow
// (92.2% at n = 21, 94.3% at n = 100): at least the nominal 95% less 3 standard errors.
void ExpectNominalCoverage(size_t n) {
  std::mt19937_64 rng(42 + n);
  std::exponential_distribution<double> dist(1.0);
  const double true_median = std::log(2.0);
  int covered = 0;
  constexpr int kTrials = 20000;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> v(n);
    for (double& x : v) x = dist(rng);
    const SampleStatistics s = ComputeStatistics(v);
    covered += s.median_ci_low <= true_median && true_median <= s.median_ci_high;
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  const double standard_error = std::sqrt(0.95 * 0.05 / kTrials);
  EXPECT_GE(coverage, 0.95 - 3 * standard_error) << "n=" << n;
  EXPECT_LT(coverage, 0.99) << "n=" << n;
}

TEST(ComputeStatistics, MedianConfidenceIntervalCoversTheTrueMedianAtNominalLevelN21) {
  ExpectNominalCoverage(21);
}

TEST(ComputeStatistics, MedianConfidenceIntervalCoversTheTrueMedianAtNominalLevelN100) {
  ExpectNominalCoverage(100);
}

TEST(MedianRelativeHalfWidth, AgreesWithTheSortedInterval) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dist(0.0, 0.1);
  for (size_t n : {6u, 7u, 21u, 100u, 1001u}) {
    std::vector<double> v(n);
    for (double& x : v) x = dist(rng);
    const SampleStatistics s = ComputeStatistics(v);
    EXPECT_NEAR(MedianRelativeHalfWidth(v), 0.5 * (s.median_ci_high - s.median_ci_low) / s.median,
                1e-12)
        << n;
  }
  EXPECT_TRUE(std::isinf(MedianRelativeHalfWidth({})));
  EXPECT_TRUE(std::isinf(MedianRelativeHalfWidth({0, 0, 0, 0, 0, 0})));
}

TEST(CheckDrift, FlagsASecondHalfWhoseMedianLeftTheFirstHalfsInterval) {
  std::vector<double> v;
  for (int i = 0; i < 20; ++i) v.push_back(1.0 + 0.001 * (i % 5));
  for (int i = 0; i < 20; ++i) v.push_back(1.1 + 0.001 * (i % 5));
  const DriftCheck d = CheckDrift(v);
  EXPECT_TRUE(d.checked);
  EXPECT_TRUE(d.drifted);
  EXPECT_NEAR(d.first_half_median, 1.002, 1e-12);
  EXPECT_NEAR(d.second_half_median, 1.102, 1e-12);
}

TEST(CheckDrift, DoesNotFlagStationaryNoise) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> dist(1.0, 0.01);
  std::vector<double> v(200);
  for (double& x : v) x = dist(rng);
  const DriftCheck d = CheckDrift(v);
  EXPECT_TRUE(d.checked);
  EXPECT_FALSE(d.drifted);
}

TEST(CheckDrift, NeedsSixSamplesPerHalf) {
  EXPECT_FALSE(CheckDrift(std::vector<double>(11, 1.0)).checked);
  EXPECT_TRUE(CheckDrift(std::vector<double>(12, 1.0)).checked);
}

TEST(ComputeStatistics, MedianIgnoresASingleOutlier) {
  std::vector<double> v(21, 1.0);
  v[3] = 1000.0;
  const SampleStatistics s = ComputeStatistics(v);
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 1000.0);
  EXPECT_GT(s.mean, 40);
}

TEST(RunningStats, AgreesWithTwoPassStatistics) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> dist(1e-3, 1e-5);
  RunningStats r;
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) {
    v.push_back(dist(rng));
    r.Add(v.back());
  }
  const SampleStatistics s = ComputeStatistics(v);
  EXPECT_EQ(r.count(), 1000);
  EXPECT_NEAR(r.mean(), s.mean, 1e-15);
  EXPECT_NEAR(r.stddev(), s.stddev, 1e-15);
  EXPECT_NEAR(r.relative_stddev(), s.relative_stddev, 1e-12);
}

TEST(RunningStats, ReportsInfiniteNoiseBelowTwoSamples) {
  RunningStats r;
  EXPECT_TRUE(std::isinf(r.relative_stddev()));
  r.Add(1.0);
  EXPECT_TRUE(std::isinf(r.relative_stddev()));
  EXPECT_EQ(r.stddev(), 0);
  r.Add(1.0);
  EXPECT_EQ(r.relative_stddev(), 0);
}

TEST(RunningStats, StaysAccurateForTinyVariationsOnALargeMean) {
  // Catastrophic cancellation would break a naive sum-of-squares here.
  RunningStats r;
  for (int i = 0; i < 1000; ++i) r.Add(1e9 + (i % 2 == 0 ? 1.0 : -1.0));
  EXPECT_NEAR(r.stddev(), 1.0, 1e-3);
}

}  // namespace
}  // namespace kbench::measure
