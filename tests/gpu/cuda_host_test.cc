// Host-side pieces of the CUDA executor that need no device: read-back conversion and poison
// counting, buffer rotation sizing, peak-rate arithmetic, UUID formatting, NVML reason names,
// and discovery without a driver.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "server/executor/backend.h"
#include "server/executor/cuda/device_info.h"
#include "server/executor/cuda/nvml.h"
#include "server/executor/cuda/prepared_variant.h"
#include "server/executor/cuda/tensor_init.h"

namespace kbench::executor::cuda {
namespace {

TEST(ConvertToDouble, ConvertsFloat32ExactlyAndCountsPoison) {
  uint32_t bits[3];
  const float one = 1.5f, tiny = 1e-30f;
  std::memcpy(&bits[0], &one, 4);
  std::memcpy(&bits[1], &tiny, 4);
  bits[2] = kPoisonF32;
  std::vector<double> out;
  EXPECT_EQ(ConvertToDouble(bits, 3, kernels::DType::kF32, &out), 1);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 1.5);
  EXPECT_EQ(out[1], static_cast<double>(tiny));
  EXPECT_TRUE(std::isnan(out[2]));
}

TEST(ConvertToDouble, ConvertsHalfIncludingSubnormalsAndExtremes) {
  const uint16_t bits[] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0x3555, 0x7C00, kPoisonF16, 0x7E00};
  std::vector<double> out;
  EXPECT_EQ(ConvertToDouble(bits, 8, kernels::DType::kF16, &out), 1);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], -2.0);
  EXPECT_EQ(out[2], std::ldexp(1.0, -24));
  EXPECT_EQ(out[3], 65504.0);
  EXPECT_EQ(out[4], std::ldexp(1024.0 + 0x155, -12));  // 0.333251953125
  EXPECT_TRUE(std::isinf(out[5]));
  EXPECT_TRUE(std::isnan(out[6]));
  EXPECT_TRUE(std::isnan(out[7]));  // a NaN that is not the poison pattern is not counted
}

TEST(ConvertToDouble, ConvertsBFloat16AndCountsPoison) {
  const uint16_t bits[] = {0x3F80, 0xC040, kPoisonBF16, kPoisonBF16};
  std::vector<double> out = {42.0};  // appends after what is there
  EXPECT_EQ(ConvertToDouble(bits, 4, kernels::DType::kBF16, &out), 2);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], 42.0);
  EXPECT_EQ(out[1], 1.0);
  EXPECT_EQ(out[2], -3.0);
  EXPECT_TRUE(std::isnan(out[3]));
}

TEST(ConvertToDouble, TreatsTf32AsFloat32Storage) {
  const float v = -0.25f;
  std::vector<double> out;
  EXPECT_EQ(ConvertToDouble(&v, 1, kernels::DType::kTF32, &out), 0);
  EXPECT_EQ(out[0], -0.25);
}

TEST(BufferSetsForRotation, UsesOneSetForProblemsTwiceTheL2) {
  EXPECT_EQ(BufferSetsForRotation(100 << 20, 50 << 20), 1);
  EXPECT_EQ(BufferSetsForRotation(int64_t{1} << 30, 50 << 20), 1);
}

TEST(BufferSetsForRotation, RotatesEnoughSetsToMoveTwiceTheL2BetweenReuses) {
  // 4 MiB sets, 50 MiB L2: 25 other sets (100 MiB) between two uses of one set.
  EXPECT_EQ(BufferSetsForRotation(4 << 20, 50 << 20), 26);
  // 30 MiB: ceil(100 / 30) = 4 others.
  EXPECT_EQ(BufferSetsForRotation(30 << 20, 50 << 20), 5);
}

TEST(BufferSetsForRotation, CapsTheSetCountForTinyProblems) {
  EXPECT_EQ(BufferSetsForRotation(256, 50 << 20), CudaPreparedVariant::kMaxBufferSets);
  EXPECT_EQ(BufferSetsForRotation(0, 50 << 20), 1);
}

TEST(PeakFlops, MatchesTheH100SxmDatasheetAtItsClock) {
  const PerSmRates h100 = PerSmRatesFor(9, 0);
  // 132 SMs at 1980 MHz: 66.9 TFLOP/s FP32 (datasheet: 67).
  EXPECT_NEAR(PeakFlops(h100, 132, 1980, kernels::DType::kF32), 66.9e12, 0.1e12);
  // At the datasheet's 1830 MHz tensor clock: 989.4 TFLOP/s dense FP16/BF16, 494.7 TF32.
  EXPECT_NEAR(PeakFlops(h100, 132, 1830, kernels::DType::kF16), 989.4e12, 0.1e12);
  EXPECT_NEAR(PeakFlops(h100, 132, 1830, kernels::DType::kBF16), 989.4e12, 0.1e12);
  EXPECT_NEAR(PeakFlops(h100, 132, 1830, kernels::DType::kTF32), 494.7e12, 0.1e12);
}

TEST(PeakFlops, MatchesTheA100DatasheetAndIsZeroWhereUnknown) {
  const PerSmRates a100 = PerSmRatesFor(8, 0);
  EXPECT_NEAR(PeakFlops(a100, 108, 1410, kernels::DType::kF32), 19.5e12, 0.1e12);
  EXPECT_NEAR(PeakFlops(a100, 108, 1410, kernels::DType::kF16), 312e12, 0.5e12);
  EXPECT_NEAR(PeakFlops(a100, 108, 1410, kernels::DType::kTF32), 156e12, 0.5e12);
  const PerSmRates pascal = PerSmRatesFor(6, 1);
  EXPECT_EQ(PeakFlops(pascal, 28, 1500, kernels::DType::kF32), 0);
  EXPECT_EQ(PeakFlops(PerSmRatesFor(8, 9), 128, 2500, kernels::DType::kF16), 0);
}

TEST(FormatUuid, PrintsLikeNvidiaSmi) {
  const unsigned char b[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                               0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  EXPECT_EQ(FormatUuid(b), "GPU-12345678-9abc-def0-0123-456789abcdef");
}

TEST(Nvml, NamesThrottleReasonBits) {
  EXPECT_EQ(nvml::ThrottleReasonNames(0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_TRUE(nvml::ThrottleReasonNames(0).empty());
  // Idle, application-clock and display-clock bits do not count as slowing the GPU down.
  EXPECT_EQ(Nvml::kSlowdownMask & (0x1 | 0x2 | 0x100), 0u);
}

TEST(Nvml, ReadsNothingBeforeOpenOrWithoutADevice) {
  Nvml nvml;
  EXPECT_FALSE(nvml.available());
  EXPECT_EQ(nvml.Read().sm_clock_mhz, 0);
  EXPECT_EQ(nvml.DefaultSmClockMhz(), 0);
  EXPECT_EQ(nvml.DriverVersion(), "");
  // No GPU has this bus id: Open says no, and nothing fails.
  EXPECT_FALSE(nvml.Open("ffff:ff:1f.7"));
  EXPECT_FALSE(nvml.available());
}

TEST(Nvml, DiffsViolationCountersOverTheRun) {
  ViolationCounters before, after;
  before.read = after.read = true;
  before.power_ns = 1'000'000'000;
  after.power_ns = 1'250'000'000;  // 0.25 s held down by the power cap during the run
  before.thermal_ns = 5;
  after.thermal_ns = 5;
  before.board_limit_ns = 10;  // went backwards (driver reload): counts as nothing
  after.board_limit_ns = 3;
  const ViolationSeconds v = ViolationsBetween(before, after);
  EXPECT_TRUE(v.read);
  EXPECT_DOUBLE_EQ(v.power, 0.25);
  EXPECT_EQ(v.thermal, 0);
  EXPECT_EQ(v.board_limit, 0);
  after.read = false;
  EXPECT_FALSE(ViolationsBetween(before, after).read);
  EXPECT_EQ(ViolationsBetween(before, after).power, 0);
}

TEST(Nvml, ReadsNoViolationCountersWithoutADevice) { EXPECT_FALSE(Nvml().ReadViolations().read); }

TEST(DiscoverCudaDevices, SucceedsWithOrWithoutADriver) {
  absl::StatusOr<std::vector<v1::DeviceInfo>> devices = DiscoverCudaDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  for (const v1::DeviceInfo& d : *devices) {
    EXPECT_EQ(d.kind(), v1::DEVICE_KIND_CUDA);
    EXPECT_FALSE(d.name().empty());
  }
}

}  // namespace
}  // namespace kbench::executor::cuda
