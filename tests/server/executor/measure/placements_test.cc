// Drawing buffer placements and pooling their samples (server/executor/placements.h).
#include "server/executor/placements.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "common/placement_limits.h"

namespace kbench::executor {
namespace {

measure::VariantSamples Stream(std::vector<double> seconds, bool converged = true) {
  measure::VariantSamples vs;
  vs.name = "v";
  for (double s : seconds) {
    measure::Sample sample;
    sample.seconds = s;
    vs.kept.push_back(sample);
    vs.measured_seconds += s;
  }
  vs.decision.converged = converged;
  vs.decision.reason = converged ? "converged" : "timed out after 15 s";
  return vs;
}

TEST(DrawPlacements, TheFirstHasNoGapAndTheOthersStayOnTheAlignmentWithinTheBound) {
  const std::vector<BufferPlacement> p = DrawPlacements(kMaxPlacements, 42);
  ASSERT_EQ(p.size(), static_cast<size_t>(kMaxPlacements));
  EXPECT_EQ(p[0].tensor_gap_bytes, 0);
  for (size_t i = 1; i < p.size(); ++i) {
    EXPECT_GE(p[i].tensor_gap_bytes, 256) << i;
    EXPECT_LE(p[i].tensor_gap_bytes, kMaxPlacementGapBytes) << i;
    EXPECT_EQ(p[i].tensor_gap_bytes % 256, 0) << i;
  }
}

TEST(DrawPlacements, ZeroAndOneMeanOnePlacementWithNoGap) {
  for (int count : {0, 1}) {
    const std::vector<BufferPlacement> p = DrawPlacements(count, 42);
    ASSERT_EQ(p.size(), 1u) << count;
    EXPECT_EQ(p[0].tensor_gap_bytes, 0);
  }
}

TEST(PoolPlacements, KeepsTheSamplesInTheOrderTheSamplerTookThem) {
  // Round by round: a0 b0, a1 b1, then b2 alone (a stopped first).
  const measure::VariantSamples a = Stream({1, 2}), b = Stream({10, 20, 30});
  const measure::VariantSamples pooled = PoolPlacements({&a, &b});
  EXPECT_EQ(pooled.per_launch_seconds(), (std::vector<double>{1, 10, 2, 20, 30}));
  EXPECT_DOUBLE_EQ(pooled.measured_seconds, 63);
  EXPECT_TRUE(pooled.decision.converged);
}

TEST(PoolPlacements, IsNotConvergedWhenOnePlacementIsNotAndSaysWhich) {
  const measure::VariantSamples a = Stream({1}), b = Stream({2}, /*converged=*/false);
  const measure::VariantSamples pooled = PoolPlacements({&a, &b});
  EXPECT_FALSE(pooled.decision.converged);
  EXPECT_EQ(pooled.decision.reason, "placement 2 of 2: timed out after 15 s");
}

TEST(DescribePlacements, EachMedianAndTheSpreadOverTheMedianOfMedians) {
  const measure::VariantSamples a = Stream({1, 1, 1}), b = Stream({2, 2}), c = Stream({4});
  v1::VariantResult out;
  DescribePlacements({{0}, {512}, {4096}}, {&a, &b, &c}, &out);
  ASSERT_EQ(out.placements_size(), 3);
  EXPECT_EQ(out.placements(1).tensor_gap_bytes(), 512);
  EXPECT_DOUBLE_EQ(out.placements(1).median_seconds(), 2);
  EXPECT_EQ(out.placements(0).samples(), 3);
  EXPECT_DOUBLE_EQ(out.placement_spread(), (4.0 - 1.0) / 2.0);
}

}  // namespace
}  // namespace kbench::executor
