// Sealed sampling's device-free logic (issue 23): per-sample seeds that differ and repeat only
// given the secret, read-back positions, a uniform secret choice of the checked samples from a
// bounded reservoir, and the loose judgement of their times.
#include "server/executor/sealed_samples.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "absl/strings/match.h"

namespace kbench::executor {
namespace {

TEST(SealFor, GivesEverySampleItsOwnSeedsAndRepeatsThemOnlyForTheSameSecret) {
  std::set<uint64_t> inputs, patterns;
  for (uint64_t stream = 0; stream < 4; ++stream) {
    for (uint64_t call = 0; call < 1000; ++call) {
      const SampleSeal s = SealFor(42, stream, call);
      EXPECT_NE(s.input_seed, 0u);
      inputs.insert(s.input_seed);
      patterns.insert(s.pattern_seed);
      EXPECT_EQ(SealFor(42, stream, call).input_seed, s.input_seed);  // deterministic
    }
  }
  EXPECT_EQ(inputs.size(), 4000u);
  EXPECT_EQ(patterns.size(), 4000u);
  EXPECT_NE(SealFor(43, 0, 0).input_seed, SealFor(42, 0, 0).input_seed);
  EXPECT_NE(SealFor(42, 0, 0).input_seed, SealFor(42, 0, 0).pattern_seed);
}

TEST(SealedSetSeed, LeavesTheFirstSetOnTheSampleSeedAndGivesTheOthersTheirOwn) {
  EXPECT_EQ(SealedSetSeed(99, 0), 99u);
  EXPECT_NE(SealedSetSeed(99, 1), 99u);
  EXPECT_NE(SealedSetSeed(99, 1), SealedSetSeed(99, 2));
}

TEST(SealedPatternAt, DiffersBetweenSamplesAndStaysInTheOutputsRange) {
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    const float a = SealedPatternAt(1, 0, i), b = SealedPatternAt(2, 0, i);
    EXPECT_GE(a, -1.0f);
    EXPECT_LT(a, 1.0f);
    same += a == b;
  }
  EXPECT_LT(same, 5);
}

TEST(SealedPositions, TakesEveryElementOfASmallOutput) {
  const std::vector<int64_t> p = SealedPositions(1, 0, 0, 100, kSealedPositions);
  ASSERT_EQ(p.size(), 100u);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(p[i], i);
}

TEST(SealedPositions, DrawsDistinctSortedPositionsOfALargeOneFromTheSecret) {
  const std::vector<int64_t> p = SealedPositions(7, 3, 0, 1 << 24, kSealedPositions);
  ASSERT_EQ(p.size(), static_cast<size_t>(kSealedPositions));
  EXPECT_TRUE(std::is_sorted(p.begin(), p.end()));
  EXPECT_EQ(std::set<int64_t>(p.begin(), p.end()).size(), p.size());
  EXPECT_EQ(SealedPositions(7, 3, 0, 1 << 24, kSealedPositions), p);
  EXPECT_NE(SealedPositions(8, 3, 0, 1 << 24, kSealedPositions), p);
  EXPECT_NE(SealedPositions(7, 4, 0, 1 << 24, kSealedPositions), p);
  // Spread over the whole output, not bunched at its start.
  EXPECT_GT(p.back(), (1 << 24) * 9 / 10);
  EXPECT_LT(p.front(), (1 << 24) / 10);
}

TEST(CheckedSampleCount, IsTwoPercentAtLeastThreeAtMostTheCap) {
  EXPECT_EQ(CheckedSampleCount(0), 0);
  EXPECT_EQ(CheckedSampleCount(2), 2);
  EXPECT_EQ(CheckedSampleCount(10), 3);
  EXPECT_EQ(CheckedSampleCount(150), 3);
  EXPECT_EQ(CheckedSampleCount(151), 4);
  EXPECT_EQ(CheckedSampleCount(1000), 20);
  EXPECT_EQ(CheckedSampleCount(1000000), kMaxCheckedSamples);
}

std::vector<int64_t> CheckedIndices(uint64_t secret, uint64_t stream, int64_t kept) {
  SealedReservoir r(secret, stream);
  for (int64_t i = 0; i < kept; ++i) r.Offer({i, SealFor(secret, stream, i), {}, 0});
  std::vector<int64_t> out;
  for (const RetainedSample& s : r.Checked()) out.push_back(s.index);
  return out;
}

TEST(SealedReservoir, ChoosesDistinctSortedSamplesRepeatablyGivenTheSecret) {
  const std::vector<int64_t> a = CheckedIndices(5, 0, 1000);
  ASSERT_EQ(a.size(), 20u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<int64_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_EQ(CheckedIndices(5, 0, 1000), a);
  EXPECT_NE(CheckedIndices(6, 0, 1000), a);
}

TEST(SealedReservoir, ChoosesEverySampleAboutEquallyOften) {
  // 2000 jobs of 400 samples, 8 checked each: each sample expects 40 choices. A choice biased
  // to the first or last samples (the first launches, or those after a gap) would show.
  constexpr int64_t kKept = 400;
  std::vector<int> chosen(kKept, 0);
  for (uint64_t secret = 1; secret <= 2000; ++secret) {
    for (const int64_t i : CheckedIndices(secret, 0, kKept)) ++chosen[i];
  }
  int first_quarter = 0, last_quarter = 0;
  for (int64_t i = 0; i < kKept / 4; ++i) first_quarter += chosen[i];
  for (int64_t i = 3 * kKept / 4; i < kKept; ++i) last_quarter += chosen[i];
  // Each quarter expects 4000; a binomial's standard deviation there is about 55.
  EXPECT_NEAR(first_quarter, 4000, 300);
  EXPECT_NEAR(last_quarter, 4000, 300);
  EXPECT_LT(*std::max_element(chosen.begin(), chosen.end()), 80);
}

TEST(SealedReservoir, HoldsABoundedNumberOfSamplesHoweverLongTheRun) {
  SealedReservoir r(9, 1);
  for (int64_t i = 0; i < 100000; ++i) r.Offer({i, {}, {{1.0}}, 0});
  const std::vector<RetainedSample> checked = r.Checked();
  EXPECT_EQ(static_cast<int64_t>(checked.size()), kMaxCheckedSamples);
  // Late samples are chosen too (Algorithm R keeps replacing).
  EXPECT_GT(checked.back().index, 50000);
}

TEST(JudgeCheckedTiming, PassesCheckedSamplesFromTheSameDistribution) {
  std::vector<double> t;
  for (int i = 0; i < 200; ++i) t.push_back(1.0 + 0.001 * (i % 17));
  const CheckedTiming j = JudgeCheckedTiming(t, {3, 50, 120});
  EXPECT_TRUE(j.judged);
  EXPECT_FALSE(j.slower);
  EXPECT_TRUE(CheckedTimingStatus(j, "add/@mine").ok());
}

TEST(JudgeCheckedTiming, FailsWhenEveryCheckedSampleWasSlowerThanTheOthers) {
  std::vector<double> t(200, 1.0);
  for (int i : {3, 50, 120}) t[i] = 1.31;
  const CheckedTiming j = JudgeCheckedTiming(t, {3, 50, 120});
  EXPECT_TRUE(j.slower);
  const absl::Status s = CheckedTimingStatus(j, "add/@mine");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "add/@mine: the checked launches took 1.31x the "
                                "others"))
      << s;
}

TEST(JudgeCheckedTiming, DoesNotJudgeTooFewUncheckedSamples) {
  std::vector<double> t(10, 1.0);
  t[0] = 2.0;
  EXPECT_FALSE(JudgeCheckedTiming(t, {0}).judged);
}

}  // namespace
}  // namespace kbench::executor
