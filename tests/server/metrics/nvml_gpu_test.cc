// GPU test (ctest label `gpu`): the real NVML through dlopen reads plausible values from GPU 0
// and the collector serves them; skips on a host without the NVIDIA driver or a GPU.
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "server/metrics/gpu_collector.h"
#include "server/metrics/gpu_source.h"
#include "tests/server/metrics/exposition.h"

namespace kbench::metrics {
namespace {

std::unique_ptr<GpuSource> NvmlOrSkip() {
  auto nvml = LoadNvml();
  if (!nvml.ok()) return nullptr;
  return std::move(*nvml);
}

TEST(NvmlGpu, ReadsPlausibleValuesFromGpuZero) {
  std::unique_ptr<GpuSource> nvml = NvmlOrSkip();
  if (nvml == nullptr) GTEST_SKIP() << "no NVIDIA driver on this host";
  auto gpu = nvml->Find("", 0);
  if (!gpu.ok()) GTEST_SKIP() << "no GPU: " << gpu.status();
  EXPECT_TRUE(absl::StartsWith(gpu->uuid, "GPU-")) << gpu->uuid;
  EXPECT_FALSE(gpu->name.empty());
  const GpuSample s = nvml->Read(gpu->index);
  ASSERT_TRUE(s.temperature_celsius.has_value());
  EXPECT_GT(*s.temperature_celsius, 5);
  EXPECT_LT(*s.temperature_celsius, 110);
  ASSERT_TRUE(s.sm_clock_mhz.has_value());
  EXPECT_GT(*s.sm_clock_mhz, 0);
  ASSERT_TRUE(s.memory_total_bytes.has_value());
  EXPECT_GT(*s.memory_total_bytes, uint64_t{1} << 30);
  ASSERT_TRUE(s.memory_used_bytes.has_value());
  EXPECT_LE(*s.memory_used_bytes, *s.memory_total_bytes);
  ASSERT_TRUE(s.power_watts.has_value());
  EXPECT_GT(*s.power_watts, 1);
  EXPECT_TRUE(s.throttle_reasons.has_value());
  std::printf(
      "NVML: %s %s temp=%.0fC sm=%.0fMHz mem=%.0fMHz power=%.1fW used=%llu/%llu B "
      "throttle=0x%llx\n",
      gpu->name.c_str(), gpu->uuid.c_str(), *s.temperature_celsius, *s.sm_clock_mhz,
      s.memory_clock_mhz.value_or(-1), *s.power_watts,
      static_cast<unsigned long long>(*s.memory_used_bytes),
      static_cast<unsigned long long>(*s.memory_total_bytes),
      static_cast<unsigned long long>(s.throttle_reasons.value_or(0)));
}

TEST(NvmlGpu, FindsTheGpuByItsBareHexUuid) {
  std::unique_ptr<GpuSource> nvml = NvmlOrSkip();
  if (nvml == nullptr) GTEST_SKIP() << "no NVIDIA driver on this host";
  auto gpu = nvml->Find("", 0);
  if (!gpu.ok()) GTEST_SKIP() << "no GPU: " << gpu.status();
  // CUDA gives a UUID as 16 bytes; callers print them as bare hex.
  std::string bare = absl::StrReplaceAll(gpu->uuid.substr(4), {{"-", ""}});
  auto again = nvml->Find(bare, -1);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->index, gpu->index);
}

TEST(NvmlGpu, CollectorServesDcgmSeriesForARealGpu) {
  if (NvmlOrSkip() == nullptr) GTEST_SKIP() << "no NVIDIA driver on this host";
  GpuCollector collector([] { return LoadNvml(); });
  absl::Status added = collector.AddGpu("cuda:0", "", "", 0);
  if (absl::IsNotFound(added)) GTEST_SKIP() << "no GPU: " << added;
  ASSERT_TRUE(added.ok()) << added;
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, collector.Collect());
  const auto temps = kbench::testing::SamplesNamed(out.str(), "DCGM_FI_DEV_GPU_TEMP");
  ASSERT_EQ(temps.size(), 1u) << out.str();
  EXPECT_EQ(temps[0].labels.at("gpu"), "0");
  EXPECT_TRUE(absl::StartsWith(temps[0].labels.at("UUID"), "GPU-"));
  EXPECT_FALSE(temps[0].labels.at("modelName").empty());
  EXPECT_EQ(kbench::testing::SamplesNamed(out.str(), "kbench_gpu_throttle_reason_active").size(),
            9u);
}

}  // namespace
}  // namespace kbench::metrics
