// The paired verdict over pair ratios: its interval against a hand computation, its decisions on
// pairs whose answer is known, and why pairing matters (a placement's effect cancels).
#include "common/stats/paired_verdict.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace kbench::analysis {
namespace {

// Baseline medians that differ by up to ±20 % from pair to pair (placements, rounds), and
// candidates `ratio` times theirs with a `spread` (relative) of noise of their own.
struct Pairs {
  std::vector<double> baseline;
  std::vector<double> candidate;
};
Pairs MakePairs(int n, double ratio, double spread, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> placement(0.8, 1.2);
  std::normal_distribution<double> noise(0, spread);
  Pairs p;
  for (int i = 0; i < n; ++i) {
    const double base = 1e-3 * placement(rng);
    p.baseline.push_back(base * std::exp(noise(rng)));
    p.candidate.push_back(base * ratio * std::exp(noise(rng)));
  }
  return p;
}

// The verdict over `p` with the default options; a failed comparison fails the test and gives
// an UNSURE verdict of no pairs.
PairedVerdict Decided(const Pairs& p) {
  absl::StatusOr<PairedVerdict> v = ComparePairs(p.baseline, p.candidate);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : PairedVerdict{};
}

TEST(ComparePairs, IntervalIsTheTIntervalOfTheMeanLogRatio) {
  // Log ratios 0, 0.1, 0.2, 0.3: mean 0.15, sd 0.129099; t(0.975, 3) = 3.182446, so the
  // half-width is 0.205425 (R: t.test(c(0, .1, .2, .3))).
  const std::vector<double> base = {1, 1, 1, 1};
  const std::vector<double> cand = {1, std::exp(0.1), std::exp(0.2), std::exp(0.3)};
  absl::StatusOr<PairedVerdict> v = ComparePairs(base, cand);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->pairs, 4);
  EXPECT_NEAR(v->change.change_percent, 100 * std::expm1(0.15), 1e-6);
  EXPECT_NEAR(v->change.low_percent, 100 * std::expm1(0.15 - 0.205425), 1e-3);
  EXPECT_NEAR(v->change.high_percent, 100 * std::expm1(0.15 + 0.205425), 1e-3);
  EXPECT_NEAR(v->median_change_percent, 100 * std::expm1(0.15), 1e-6);
  // t = 2.32379 on 3 degrees of freedom: p = 0.1028 (R: 2 * pt(-2.32379, 3)).
  EXPECT_NEAR(v->p_value, 0.1028, 1e-3);
  EXPECT_NEAR(v->resolution_percent, 100 * std::expm1(0.205425), 1e-3);
  EXPECT_EQ(v->verdict, Verdict::kUnsure);
}

TEST(ComparePairs, TenPercentSlowerPairsAreSlower) {
  const Pairs p = MakePairs(8, 1.10, 0.01, 1);
  const PairedVerdict v = Decided(p);
  EXPECT_EQ(v.verdict, Verdict::kSlower);
  EXPECT_NEAR(v.change.change_percent, 10, 2);
  EXPECT_GT(v.change.low_percent, 3);
  EXPECT_EQ(v.pairs_to_resolve, 0);
}

TEST(ComparePairs, TenPercentFasterPairsAreFaster) {
  const Pairs p = MakePairs(8, 1 / 1.10, 0.01, 2);
  const PairedVerdict v = Decided(p);
  EXPECT_EQ(v.verdict, Verdict::kFaster);
}

TEST(ComparePairs, EqualPairsWithANarrowIntervalAreSame) {
  const Pairs p = MakePairs(8, 1.0, 0.003, 3);
  const PairedVerdict v = Decided(p);
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_GT(v.change.low_percent, -3);
  EXPECT_LT(v.change.high_percent, 3);
}

TEST(ComparePairs, PlacementEffectsCancelWithinAPair) {
  // Baselines spread ±20 % from pair to pair, far wider than the 5 % change: a comparison of
  // the two sets of medians could not see it, the pair ratios do.
  const Pairs p = MakePairs(8, 1.05, 0.002, 4);
  const PairedVerdict v = Decided(p);
  EXPECT_EQ(v.verdict, Verdict::kSlower);
  EXPECT_NEAR(v.change.change_percent, 5, 0.5);
}

TEST(ComparePairs, NoisyFewPairsAreUnsureAndSuggestMorePairs) {
  const Pairs p = MakePairs(4, 1.0, 0.04, 5);
  const PairedVerdict v = Decided(p);
  ASSERT_EQ(v.verdict, Verdict::kUnsure);
  EXPECT_GT(v.resolution_percent, 3);
  EXPECT_GT(v.pairs_to_resolve, 4);
  // A power of two, as --repeat would be doubled.
  EXPECT_EQ(v.pairs_to_resolve & (v.pairs_to_resolve - 1), 0);
}

TEST(ComparePairs, TheMinimumEffectDecidesBetweenSameAndSlower) {
  const Pairs p = MakePairs(16, 1.02, 0.002, 6);
  PairedOptions options;
  options.min_effect_percent = 3;
  EXPECT_EQ(ComparePairs(p.baseline, p.candidate, options)->verdict, Verdict::kSame);
  options.min_effect_percent = 1;
  EXPECT_EQ(ComparePairs(p.baseline, p.candidate, options)->verdict, Verdict::kSlower);
}

TEST(ComparePairs, IdenticalRatiosAreCertain) {
  const std::vector<double> base = {1, 2, 3};
  const std::vector<double> same = {1, 2, 3};
  const std::vector<double> slower = {1.1, 2.2, 3.3};
  EXPECT_EQ(ComparePairs(base, same)->verdict, Verdict::kSame);
  EXPECT_EQ(ComparePairs(base, same)->p_value, 1);
  EXPECT_EQ(ComparePairs(base, slower)->verdict, Verdict::kSlower);
}

TEST(ComparePairs, RefusesUnmatchedOrTooFewOrNonPositiveMedians) {
  const std::vector<double> two = {1, 2};
  const std::vector<double> three = {1, 2, 3};
  const std::vector<double> one = {1};
  const std::vector<double> zero = {1, 0};
  EXPECT_EQ(ComparePairs(two, three).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComparePairs(one, one).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComparePairs(two, zero).status().code(), absl::StatusCode::kInvalidArgument);
  PairedOptions bad;
  bad.confidence = 1;
  EXPECT_EQ(ComparePairs(two, two, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kbench::analysis
