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

TEST(ComputeStatistics, MedianConfidenceIntervalUsesOrderStatisticsAroundTheMedian) {
  // 100 samples 1..100: ranks 50 -+ 1.96 * sqrt(100) / 2 = 50 -+ 9.8 -> [floor(40.2), ceil(59.8)-1]
  // = indices [40, 59], i.e. values [41, 60].
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const SampleStatistics s = ComputeStatistics(v);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 41);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 60);
  EXPECT_LE(s.median_ci_low, s.median);
  EXPECT_GE(s.median_ci_high, s.median);
}

TEST(ComputeStatistics, MedianConfidenceIntervalCoversTheTrueMedianAboutNinetyFivePercent) {
  // Exponential samples have median ln 2 / rate; the interval should cover it ~95% of the time.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> dist(1.0);
  const double true_median = std::log(2.0);
  int covered = 0;
  constexpr int kTrials = 2000;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> v(51);
    for (double& x : v) x = dist(rng);
    const SampleStatistics s = ComputeStatistics(v);
    covered += s.median_ci_low <= true_median && true_median <= s.median_ci_high;
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  EXPECT_GT(coverage, 0.92);
  EXPECT_LT(coverage, 0.99);
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
