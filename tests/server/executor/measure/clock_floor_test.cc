// Tests of the clock floor's choice: the maximum SM clock, or the warm-up's clock when the
// clocks are locked low, never the default applications clock (issue 15, item 1).
#include "server/executor/measure/clock_floor.h"

#include <gtest/gtest.h>

namespace kbench::measure {
namespace {

TEST(ChooseClockFloor, TakesTheFractionOfTheMaximumClockOnAnUnlockedGpu) {
  // H100 SXM: 1980 MHz maximum; warm-up ran at it.
  const ClockFloor f = ChooseClockFloor(0.75, 1980, 1980, false);
  EXPECT_EQ(f.basis, ClockFloorBasis::kMaxSmClock);
  EXPECT_DOUBLE_EQ(f.mhz, 1485);
  EXPECT_DOUBLE_EQ(f.reference_mhz, 1980);
}

TEST(ChooseClockFloor, FollowsTheWarmupClockWhenClocksAreLockedLow) {
  // An administrator locked the SM clock at 1000 MHz: NVML reports no slowdown reason.
  const ClockFloor f = ChooseClockFloor(0.75, 1980, 1000, false);
  EXPECT_EQ(f.basis, ClockFloorBasis::kWarmupProbe);
  EXPECT_DOUBLE_EQ(f.mhz, 750);
  EXPECT_DOUBLE_EQ(f.reference_mhz, 1000);
}

TEST(ChooseClockFloor, KeepsTheMaximumClockWhenTheGpuIsThrottled) {
  // Power-capped during warm-up: the samples taken so slow are to be discarded, not accepted.
  const ClockFloor f = ChooseClockFloor(0.75, 1980, 1000, true);
  EXPECT_EQ(f.basis, ClockFloorBasis::kMaxSmClock);
  EXPECT_DOUBLE_EQ(f.mhz, 1485);
}

TEST(ChooseClockFloor, KeepsTheMaximumClockWithoutNvmlToTellWhy) {
  const ClockFloor f = ChooseClockFloor(0.75, 1980, 1000, std::nullopt);
  EXPECT_EQ(f.basis, ClockFloorBasis::kMaxSmClock);
  EXPECT_DOUBLE_EQ(f.mhz, 1485);
}

TEST(ChooseClockFloor, HasNoFloorWithoutAnyClock) {
  const ClockFloor f = ChooseClockFloor(0.75, 0, 0, std::nullopt);
  EXPECT_EQ(f.basis, ClockFloorBasis::kNone);
  EXPECT_EQ(f.mhz, 0);
  EXPECT_EQ(ClockFloorBasisName(f.basis), "none");
}

TEST(ChooseClockFloor, ARaisedFractionStillFloorsAboveTheWarmupClock) {
  // Tests force discards with a fraction of 10: whichever basis is chosen, the floor stays
  // above any clock the GPU can reach.
  const ClockFloor f = ChooseClockFloor(10.0, 1980, 1980, false);
  EXPECT_GT(f.mhz, 1980);
  EXPECT_GT(ChooseClockFloor(10.0, 1980, 1000, false).mhz, 1980);
}

}  // namespace
}  // namespace kbench::measure
