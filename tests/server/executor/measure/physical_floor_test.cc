// The impossible-time rule as a pure function: (median, cost, rates, mode) -> verdict.
#include "server/executor/measure/physical_floor.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace kbench::measure {
namespace {

// An H100-like device: 3 TB/s copy, 10 TB/s L2, 50 MB of L2, 60 TFLOP/s.
FloorQuestion Device() {
  FloorQuestion q;
  q.copy_bandwidth_bytes_per_second = 3e12;
  q.l2_bandwidth_bytes_per_second = 10e12;
  q.l2_bytes = 50'000'000;
  q.peak_flops = 60e12;
  return q;
}

// 300 MB moved, 1 GFLOP: the copy floor (100 us) binds.
FloorQuestion Large(double median) {
  FloorQuestion q = Device();
  q.bytes = 300'000'000;
  q.flops = 1'000'000'000;
  q.median_seconds = median;
  return q;
}

TEST(JudgePhysicalFloor, HoldsALargeColdProblemToTheCopyBandwidth) {
  const FloorVerdict v = JudgePhysicalFloor(Large(120e-6));
  EXPECT_TRUE(v.judged);
  EXPECT_EQ(v.basis, FloorBasis::kCopyBandwidth);
  EXPECT_DOUBLE_EQ(v.floor_seconds, 100e-6);
  EXPECT_DOUBLE_EQ(v.bandwidth_bytes_per_second, 3e12);
  EXPECT_FALSE(v.impossible);
}

TEST(JudgePhysicalFloor, AllowsAMedianALittleUnderTheFloor) {
  // 80% of the floor: within the margin (a read-only kernel can beat a copy's rate a little).
  EXPECT_FALSE(JudgePhysicalFloor(Large(80e-6)).impossible);
}

TEST(JudgePhysicalFloor, CallsAMedianFarUnderTheFloorImpossibleNamingMedianFloorAndBasis) {
  const FloorVerdict v = JudgePhysicalFloor(Large(10e-6));
  EXPECT_TRUE(v.impossible);
  EXPECT_DOUBLE_EQ(v.margin, kFloorMargin);
  EXPECT_TRUE(absl::StrContains(v.detail,
                                "median 10.000 us is under 75% of the physical floor "
                                "100.000 us (300000000 bytes / measured copy "
                                "bandwidth 3e+12 B/s)"))
      << v.detail;
}

TEST(JudgePhysicalFloor, FlagsJustUnderTheMargin) {
  EXPECT_TRUE(JudgePhysicalFloor(Large(74e-6)).impossible);
  EXPECT_FALSE(JudgePhysicalFloor(Large(76e-6)).impossible);
}

TEST(JudgePhysicalFloor, HoldsAHostDeviceToItsLooserMargin) {
  FloorQuestion q = Large(50e-6);
  q.margin = kHostFloorMargin;
  const FloorVerdict v = JudgePhysicalFloor(q);
  EXPECT_FALSE(v.impossible);
  EXPECT_DOUBLE_EQ(v.margin, kHostFloorMargin);
  q.median_seconds = 20e-6;
  EXPECT_TRUE(JudgePhysicalFloor(q).impossible);
}

TEST(JudgePhysicalFloor, UsesThePeakFlopRateWhenArithmeticBinds) {
  // 8 GFLOP at 60 TFLOP/s: 133 us, more than 30 MB at 3 TB/s (10 us).
  FloorQuestion q = Device();
  q.bytes = 30'000'000;
  q.flops = 8'000'000'000;
  q.median_seconds = 50e-6;
  const FloorVerdict v = JudgePhysicalFloor(q);
  EXPECT_EQ(v.basis, FloorBasis::kPeakFlops);
  EXPECT_NEAR(v.floor_seconds, 8e9 / 60e12, 1e-12);
  EXPECT_TRUE(v.impossible);
  EXPECT_TRUE(absl::StrContains(v.detail, "8000000000 FLOPs / peak 6e+13 FLOP/s")) << v.detail;
}

TEST(JudgePhysicalFloor, HoldsAHotProblemThatFitsInTheL2ToTheL2Bandwidth) {
  // 10 MB in hot mode: 1 us at the L2's 10 TB/s, where the copy floor would say 3.3 us.
  FloorQuestion q = Device();
  q.bytes = 10'000'000;
  q.median_seconds = 1.5e-6;
  q.data_may_stay_in_l2 = true;
  const FloorVerdict v = JudgePhysicalFloor(q);
  EXPECT_EQ(v.basis, FloorBasis::kL2Bandwidth);
  EXPECT_DOUBLE_EQ(v.floor_seconds, 1e-6);
  EXPECT_DOUBLE_EQ(v.margin, kL2FloorMargin);
  EXPECT_FALSE(v.impossible);
  q.median_seconds = 0.4e-6;
  EXPECT_TRUE(JudgePhysicalFloor(q).impossible);
}

TEST(JudgePhysicalFloor, HoldsAColdProblemThatFitsInTheL2ToTheCopyBandwidth) {
  // Cold samples flush the L2: the same 10 MB at 1.5 us is impossible.
  FloorQuestion q = Device();
  q.bytes = 10'000'000;
  q.median_seconds = 1.5e-6;
  const FloorVerdict v = JudgePhysicalFloor(q);
  EXPECT_EQ(v.basis, FloorBasis::kCopyBandwidth);
  EXPECT_TRUE(v.impossible);
}

TEST(JudgePhysicalFloor, HoldsAHotProblemFarLargerThanTheL2ToTheCopyBandwidth) {
  FloorQuestion q = Large(120e-6);
  q.data_may_stay_in_l2 = true;
  EXPECT_EQ(JudgePhysicalFloor(q).basis, FloorBasis::kCopyBandwidth);
}

TEST(JudgePhysicalFloor, DoesNotJudgeHotModeWithoutACacheSize) {
  // The cpu device: caches of unknown size and bandwidth, no peak rate.
  FloorQuestion q;
  q.copy_bandwidth_bytes_per_second = 1e10;
  q.bytes = 1000;
  q.median_seconds = 1e-12;
  q.data_may_stay_in_l2 = true;
  const FloorVerdict v = JudgePhysicalFloor(q);
  EXPECT_FALSE(v.judged);
  EXPECT_FALSE(v.impossible);
  EXPECT_TRUE(absl::StrContains(v.detail, "cache size")) << v.detail;
}

TEST(JudgePhysicalFloor, DoesNotJudgeWithoutAnyRate) {
  FloorQuestion q;
  q.bytes = 1000;
  q.flops = 1000;
  q.median_seconds = 1e-12;
  EXPECT_FALSE(JudgePhysicalFloor(q).judged);
}

TEST(JudgePhysicalFloor, DoesNotJudgeAZeroMedian) {
  // A host clock shorter than its resolution reads 0: no rate, no verdict.
  EXPECT_FALSE(JudgePhysicalFloor(Large(0)).judged);
}

// Issue 30: a collective's bus bytes are held to the peak measured between its ranks, whatever
// the device's own bandwidths (2x H200: NCCL's 1 GiB all_reduce took 3.29 ms, peak 387.7 GB/s).
TEST(JudgePhysicalFloor, HoldsACollectivesBusBytesToThePeakBetweenItsRanks) {
  FloorQuestion q;
  q.bytes = int64_t{1} << 30;
  q.copy_bandwidth_bytes_per_second = 4.3e12;
  q.l2_bandwidth_bytes_per_second = 10e12;
  q.l2_bytes = 60 << 20;
  q.data_may_stay_in_l2 = true;
  q.peer_bandwidth_bytes_per_second = 387.7e9;
  q.median_seconds = 3.29e-3;
  const FloorVerdict real = JudgePhysicalFloor(q);
  EXPECT_TRUE(real.judged);
  EXPECT_EQ(real.basis, FloorBasis::kPeerBandwidth);
  EXPECT_NEAR(real.floor_seconds, (1 << 30) / 387.7e9, 1e-9);
  EXPECT_FALSE(real.impossible) << real.detail;
  // A rank that skipped the transfer: a 1 GiB "all_reduce" in 0.5 ms is over 2 TB/s of bus.
  q.median_seconds = 0.5e-3;
  const FloorVerdict skipped = JudgePhysicalFloor(q);
  EXPECT_TRUE(skipped.impossible);
  EXPECT_TRUE(absl::StrContains(skipped.detail, "peer bandwidth")) << skipped.detail;
}

}  // namespace
}  // namespace kbench::measure
