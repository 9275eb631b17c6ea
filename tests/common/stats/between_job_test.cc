// The between-job noise of a key's history and the verdict against it (common/stats/
// between_job_noise.h, between_job_verdict.h, family_correction.h), on values whose answer is
// known by hand or from R.
#include <cmath>
#include <vector>

#include "common/stats/between_job_noise.h"
#include "common/stats/between_job_verdict.h"
#include "common/stats/family_correction.h"
#include "gtest/gtest.h"

namespace kbench::analysis {
namespace {

// `n` medians alternating 1 +- `spread` (relative), newest first, times `level` seconds.
std::vector<double> Alternating(int n, double level, double spread) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back(level * (1 + (i % 2 == 0 ? spread : -spread)));
  return x;
}

TEST(ShamosScale, IsTheMedianPairwiseDifferenceScaledToANormal) {
  // Pairs of {0, 1, 2, 3}: differences 1, 1, 1, 2, 2, 3: median 1.5.
  const std::vector<double> x = {0, 1, 2, 3};
  EXPECT_NEAR(ShamosScale(x), 1.048358 * 1.5, 1e-9);
  EXPECT_EQ(ShamosScale(std::vector<double>{4}), 0);
}

TEST(ShamosScale, OneWildValueAmongTwentyBarelyMovesIt) {
  std::vector<double> x;
  for (int i = 0; i < 20; ++i) x.push_back(i % 5);
  const double calm = ShamosScale(x);
  x[7] = 1000;
  EXPECT_LT(ShamosScale(x), 1.25 * calm);
}

TEST(EstimateBetweenJobNoise, FewerThanEightResultsGiveNoEstimate) {
  const BetweenJobNoise noise = EstimateBetweenJobNoise(Alternating(7, 1e-3, 0.01));
  EXPECT_FALSE(noise.Known());
  EXPECT_EQ(noise.results, 7);
  EXPECT_EQ(noise.sigma_log, 0);
}

TEST(EstimateBetweenJobNoise, IsAStandardDeviationOfTheLogMedianInEitherUnit) {
  const BetweenJobNoise ms = EstimateBetweenJobNoise(Alternating(12, 1e-3, 0.01));
  const BetweenJobNoise s = EstimateBetweenJobNoise(Alternating(12, 1.0, 0.01));
  ASSERT_TRUE(ms.Known());
  EXPECT_NEAR(ms.sigma_log, s.sigma_log, 1e-12);
  // Half the pairs differ by ~2 %, half by 0: the median pair is on the edge, about 1-2 %.
  EXPECT_GT(ms.sigma_log, 0.005);
  EXPECT_LT(ms.sigma_log, 0.025);
}

TEST(EstimateBetweenJobNoise, IdenticalMediansKeepOnlyTheNumericFloor) {
  const BetweenJobNoise noise = EstimateBetweenJobNoise(std::vector<double>(10, 2e-6));
  ASSERT_TRUE(noise.Known());
  EXPECT_EQ(noise.sigma_log, kSigmaFloor);
}

TEST(NewestSegmentLength, AStepInTheLevelEndsTheHistoryTheNoiseIsReadFrom) {
  // Newest first: ten results at 1.2 ms after a regression, fifteen at 1.0 ms before it.
  std::vector<double> x = Alternating(10, 1.2e-3, 0.002);
  for (double v : Alternating(15, 1.0e-3, 0.002)) x.push_back(v);
  std::vector<double> logs;
  for (double v : x) logs.push_back(std::log(v));
  EXPECT_EQ(NewestSegmentLength(logs), 10);
  const BetweenJobNoise noise = EstimateBetweenJobNoise(x);
  EXPECT_EQ(noise.results, 10);
  EXPECT_EQ(noise.results_before_step, 15);
  EXPECT_LT(noise.sigma_log, 0.005);  // the 20 % step does not widen the noise
}

TEST(NewestSegmentLength, NoStepKeepsEveryResult) {
  std::vector<double> logs;
  for (double v : Alternating(30, 1e-3, 0.01)) logs.push_back(std::log(v));
  EXPECT_EQ(NewestSegmentLength(logs), 30);
}

TEST(NewestSegmentLength, OneWildResultIsNoStep) {
  std::vector<double> logs;
  for (double v : Alternating(20, 1e-3, 0.01)) logs.push_back(std::log(v));
  logs[2] += 1.0;
  EXPECT_EQ(NewestSegmentLength(logs), 20);
}

TEST(NewestSegmentLength, AShiftOfOneClockTickOnAQuietKeyIsNoStep) {
  // An H200's 128 MiB copy: medians on 32 ns ticks of 68.9 us, the newest five one tick up
  // (+0.05 %), one older result there too. Some 20 standard errors, but no step worth losing
  // the history for.
  std::vector<double> logs;
  for (int i = 0; i < 14; ++i) {
    const double ticks = i < 5 || i == 9 ? 2154 : 2153;
    logs.push_back(std::log(ticks * 32e-9));
  }
  EXPECT_EQ(NewestSegmentLength(logs), 14);
  EXPECT_TRUE(EstimateBetweenJobNoise(std::vector<double>(14, 68.9e-6)).Known());
  // The same key a real 1 % up for its newest five: a step.
  for (int i = 0; i < 5; ++i) logs[i] += std::log(1.01);
  EXPECT_EQ(NewestSegmentLength(logs), 5);
}

BetweenJobNoise Known(double sigma_log) { return {20, 0, sigma_log}; }

TEST(CompareBetweenJobs, AChangeWellBeyondTheNoiseIsSlower) {
  absl::StatusOr<BetweenJobComparison> c =
      CompareBetweenJobs({1e-3, 0}, {1.05e-3, 0}, Known(0.003), 0.05, 3);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->change.change_percent, 5, 1e-9);
  EXPECT_EQ(c->verdict, Verdict::kSlower);
  EXPECT_FALSE(c->fresh_key);
  // t(2) 97.5 % = 4.3027; sigma = sqrt(2) x 0.3 %.
  EXPECT_NEAR(c->resolvable_percent, 100 * std::expm1(4.302653 * std::sqrt(2) * 0.003), 1e-3);
}

TEST(CompareBetweenJobs, NoChangeOnAQuietDeviceIsSame) {
  absl::StatusOr<BetweenJobComparison> c =
      CompareBetweenJobs({1e-3, 0}, {1.001e-3, 0}, Known(0.002), 0.05, 3);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->verdict, Verdict::kSame);
}

TEST(CompareBetweenJobs, ANoisyDeviceIsUnsureNeverSame) {
  // 3 % between jobs: one pair resolves only ~+-20 %.
  absl::StatusOr<BetweenJobComparison> c =
      CompareBetweenJobs({1e-3, 0}, {1.0e-3, 0}, Known(0.03), 0.05, 3);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->verdict, Verdict::kUnsure);
  EXPECT_GT(c->resolvable_percent, 3);
}

TEST(CompareBetweenJobs, TheJobsOwnUncertaintyAddsToTheNoise) {
  absl::StatusOr<BetweenJobComparison> quiet =
      CompareBetweenJobs({1e-3, 0}, {1e-3, 0}, Known(0.002), 0.05, 3);
  absl::StatusOr<BetweenJobComparison> loose =
      CompareBetweenJobs({1e-3, 0.01}, {1e-3, 0.01}, Known(0.002), 0.05, 3);
  ASSERT_TRUE(quiet.ok() && loose.ok());
  EXPECT_GT(loose->resolvable_percent, 3 * quiet->resolvable_percent);
}

TEST(CompareBetweenJobs, AFreshKeyCallsOnlyAChangeBeyondAFactorOfAboutTen) {
  for (double factor : {1.5, 5.0, 9.5}) {
    absl::StatusOr<BetweenJobComparison> c =
        CompareBetweenJobs({1e-3, 0}, {factor * 1e-3, 0}, BetweenJobNoise{}, 0.05, 3);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->fresh_key);
    EXPECT_EQ(c->verdict, Verdict::kUnsure) << factor;
  }
  absl::StatusOr<BetweenJobComparison> sixteen =
      CompareBetweenJobs({1e-3, 0}, {16e-3, 0}, BetweenJobNoise{}, 0.05, 3);
  ASSERT_TRUE(sixteen.ok());
  EXPECT_EQ(sixteen->verdict, Verdict::kSlower);
  absl::StatusOr<BetweenJobComparison> faster =
      CompareBetweenJobs({16e-3, 0}, {1e-3, 0}, BetweenJobNoise{}, 0.05, 3);
  EXPECT_EQ(faster->verdict, Verdict::kFaster);
}

TEST(CompareBetweenJobs, RefusesANonPositiveMedian) {
  EXPECT_EQ(CompareBetweenJobs({0, 0}, {1e-3, 0}, Known(0.01), 0.05, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BootstrapLogMedianStandardError, ResamplesTheValuesAsWholes) {
  EXPECT_NEAR(*BootstrapLogMedianStandardError(std::vector<double>(8, 1e-3)), 0, 1e-12);
  // Placement medians 2 % apart: the median's log moves by about a percent between draws.
  const std::vector<double> placements = {1.00e-3, 1.02e-3, 0.98e-3, 1.01e-3,
                                          0.99e-3, 1.03e-3, 0.97e-3, 1.00e-3};
  absl::StatusOr<double> se = BootstrapLogMedianStandardError(placements);
  ASSERT_TRUE(se.ok());
  EXPECT_GT(*se, 0.002);
  EXPECT_LT(*se, 0.02);
  EXPECT_FALSE(BootstrapLogMedianStandardError(std::vector<double>{1e-3}).ok());
}

TEST(HolmAdjust, MatchesRsPAdjust) {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> adjusted = HolmAdjust(p);
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[0], 0.03, 1e-12);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-12);
  EXPECT_NEAR(adjusted[2], 0.06, 1e-12);
  EXPECT_NEAR(adjusted[3], 0.02, 1e-12);
  EXPECT_EQ(HolmAdjust(std::vector<double>{0.2})[0], 0.2);
  EXPECT_EQ(HolmAdjust(std::vector<double>{0.6, 0.7})[1], 1.0);
}

TEST(ExpectedFalseVerdicts, IsAlphaWhateverTheFamilysSize) {
  EXPECT_NEAR(ExpectedFalseVerdicts(100, 0.05), 0.05, 1e-12);
  EXPECT_EQ(ExpectedFalseVerdicts(0, 0.05), 0);
}

}  // namespace
}  // namespace kbench::analysis
