// The verdict's decision rule and its choice of test, on samples whose answer is known.
#include "common/stats/verdict.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace kbench::analysis {
namespace {

// Log-normal "timings" around `median` seconds with a 2 % spread: skewed, like real ones.
std::vector<double> Timings(double median, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0, 0.02);
  std::vector<double> x;
  for (size_t i = 0; i < n; ++i) x.push_back(median * noise(rng));
  return x;
}

std::vector<double> NormalTimings(double mean, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(mean, mean * 0.01);
  std::vector<double> x;
  for (size_t i = 0; i < n; ++i) x.push_back(noise(rng));
  return x;
}

ChangeInterval Interval(double change, double low, double high) { return {change, low, high}; }

TEST(Decide, SignificantChangeBeyondTheMinimumEffect) {
  EXPECT_EQ(Decide(0.001, Interval(5, 3, 7), 0.05, 1), Verdict::kSlower);
  EXPECT_EQ(Decide(0.001, Interval(-5, -7, -3), 0.05, 1), Verdict::kFaster);
}

TEST(Decide, SignificantButSmallerThanTheMinimumEffectIsSame) {
  EXPECT_EQ(Decide(1e-6, Interval(0.5, 0.3, 0.7), 0.05, 1), Verdict::kSame);
}

TEST(Decide, SignificantAndReachingTheMinimumEffectIsARegressionBelowItsPointEstimate) {
  // A true change of exactly the minimum effect has its estimate below it half of the time:
  // the interval, not the estimate, says whether a change that large is plausible.
  EXPECT_EQ(Decide(0.001, Interval(2.5, 1.5, 3.5), 0.05, 3), Verdict::kSlower);
  EXPECT_EQ(Decide(0.001, Interval(-2.5, -3.5, -1.5), 0.05, 3), Verdict::kFaster);
  EXPECT_EQ(Decide(0.001, Interval(2.5, 2.0, 2.9), 0.05, 3), Verdict::kSame);
}

TEST(Decide, NotSignificantNarrowIntervalIsSame) {
  EXPECT_EQ(Decide(0.4, Interval(0.1, -0.6, 0.8), 0.05, 1), Verdict::kSame);
}

TEST(Decide, NotSignificantWideIntervalIsUnsure) {
  EXPECT_EQ(Decide(0.4, Interval(2, -3, 9), 0.05, 1), Verdict::kUnsure);
}

TEST(Decide, SmallPValueButIntervalAcrossZeroIsNotARegression) {
  EXPECT_EQ(Decide(0.01, Interval(3, -0.5, 8), 0.05, 1), Verdict::kUnsure);
}

TEST(MinimumEffectPercent, DefaultsToTheLargerOfOnePercentAndTheNoise) {
  VerdictOptions options;
  EXPECT_EQ(MinimumEffectPercent(options), 1);
  options.noise_percent = 2.5;
  EXPECT_EQ(MinimumEffectPercent(options), 2.5);
  options.min_effect_percent = 0.5;
  EXPECT_EQ(MinimumEffectPercent(options), 0.5);
}

TEST(Compare, SameDistributionIsSame) {
  absl::StatusOr<Comparison> c = Compare(Timings(1e-3, 400, 1), Timings(1e-3, 400, 2));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kSame);
  EXPECT_LT(c->change.low_percent, 1);
  EXPECT_GT(c->change.high_percent, -1);
}

TEST(Compare, FivePercentSlowerIsSlowerWithAnIntervalAboveZero) {
  absl::StatusOr<Comparison> c = Compare(Timings(1e-3, 400, 3), Timings(1.05e-3, 400, 4));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kSlower);
  EXPECT_GT(c->change.low_percent, 0);
  EXPECT_NEAR(c->change.change_percent, 5, 1);
}

TEST(Compare, FivePercentFasterIsFaster) {
  absl::StatusOr<Comparison> c = Compare(Timings(1e-3, 400, 5), Timings(0.95e-3, 400, 6));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kFaster);
  EXPECT_LT(c->change.high_percent, 0);
}

TEST(Compare, FewNoisySamplesAreUnsure) {
  const std::vector<double> a = {1.0, 1.3, 0.8, 1.1, 0.9};
  const std::vector<double> b = {1.1, 0.7, 1.4, 1.0, 1.2};
  absl::StatusOr<Comparison> c = Compare(a, b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kUnsure);
}

TEST(Compare, SkewedSamplesUseMannWhitney) {
  absl::StatusOr<Comparison> c = Compare(Timings(1e-3, 2000, 7), Timings(1e-3, 2000, 8));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->baseline_normal && c->candidate_normal);
  EXPECT_EQ(c->test, TestKind::kMannWhitneyU);
}

TEST(Compare, NormalSamplesUseWelch) {
  absl::StatusOr<Comparison> c = Compare(NormalTimings(1e-3, 200, 9), NormalTimings(1e-3, 200, 10));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->baseline_normal);
  EXPECT_TRUE(c->candidate_normal);
  EXPECT_EQ(c->test, TestKind::kWelchT);
}

TEST(Compare, RejectsASingleSample) {
  EXPECT_EQ(Compare(std::vector<double>{1}, Timings(1, 10, 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kbench::analysis
