// Unit tests of the per-GPU gauges with a fake NVML: dcgm-exporter's names, labels and units,
// series absent (not zero) when a reading is missing, and GPUs added once.
#include "server/metrics/gpu_collector.h"

#include <sstream>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "tests/server/metrics/exposition.h"
#include "tests/server/metrics/fake_gpu_source.h"

namespace kbench::metrics {
namespace {

using ::kbench::testing::FakeGpuSource;
using ::kbench::testing::FindSample;
using ::kbench::testing::FullSample;
using ::kbench::testing::SamplesNamed;
using ::testing::HasSubstr;
using ::testing::Optional;

class GpuCollectorTest : public ::testing::Test {
 protected:
  GpuCollectorTest()
      : state_(std::make_shared<FakeGpuSource::State>()), collector_([this] {
          ++factory_calls_;
          return absl::StatusOr<std::unique_ptr<GpuSource>>(
              std::make_unique<FakeGpuSource>(state_));
        }) {}

  void AddFakeGpu(int index, const std::string& uuid, GpuSample sample) {
    absl::MutexLock lock(&state_->mu);
    state_->by_uuid[uuid] = {{index, uuid, "NVIDIA H100 80GB HBM3"}, sample};
  }

  std::string Text() const {
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, collector_.Collect());
    return out.str();
  }

  static std::map<std::string, std::string> Labels(const char* gpu, const char* uuid,
                                                   const char* device) {
    return {{"gpu", gpu},
            {"UUID", uuid},
            {"modelName", "NVIDIA H100 80GB HBM3"},
            {"kbench_device", device}};
  }

  std::shared_ptr<FakeGpuSource::State> state_;
  int factory_calls_ = 0;
  GpuCollector collector_;
};

TEST_F(GpuCollectorTest, ExportsDcgmNamedGaugesWithGpuUuidAndModelLabels) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  const std::string text = Text();
  const auto labels = Labels("0", "GPU-aaaa", "cuda:0");
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_GPU_UTIL", labels), Optional(87.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_MEM_COPY_UTIL", labels), Optional(40.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_SM_CLOCK", labels), Optional(1980.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_MEM_CLOCK", labels), Optional(2619.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_GPU_TEMP", labels), Optional(41.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_POWER_USAGE", labels), Optional(123.5));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", labels),
              Optional(5000000.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", labels),
              Optional(static_cast<double>(kThrottleSwPowerCap | kThrottleGpuIdle)));
}

// Issue 28: kbenchd --no-dcgm-gauges, where dcgm-exporter runs beside it: no DCGM_FI_* series
// twice, kbench's own GPU series stay.
TEST_F(GpuCollectorTest, OmitsTheDcgmNamedGaugesWhenAskedAndKeepsKbenchs) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  collector_.OmitDcgmNames();
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  const std::string text = Text();
  EXPECT_THAT(text, ::testing::Not(HasSubstr("DCGM_FI_")));
  EXPECT_THAT(text, HasSubstr("kbench_gpu_"));
}

TEST_F(GpuCollectorTest, ReportsFramebufferInMibAndMemoryInBytes) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  const std::string text = Text();
  const auto labels = Labels("0", "GPU-aaaa", "cuda:0");
  // dcgm-exporter's FB fields are MiB; kbench's own memory gauges are bytes.
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_FB_USED", labels), Optional(1024.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_FB_FREE", labels), Optional(80535.0));
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_FB_TOTAL", labels), Optional(81559.0));
  EXPECT_THAT(FindSample(text, "kbench_gpu_memory_used_bytes", labels),
              Optional(1024.0 * 1024 * 1024));
  EXPECT_THAT(FindSample(text, "kbench_gpu_memory_total_bytes", labels),
              Optional(81559.0 * 1024 * 1024));
}

TEST_F(GpuCollectorTest, ExportsOneSeriesPerThrottleReason) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  const std::string text = Text();
  auto reason = [&](const char* r) {
    auto labels = Labels("0", "GPU-aaaa", "cuda:0");
    labels["reason"] = r;
    return FindSample(text, "kbench_gpu_throttle_reason_active", labels);
  };
  EXPECT_THAT(reason("sw_power_cap"), Optional(1.0));
  EXPECT_THAT(reason("gpu_idle"), Optional(1.0));
  EXPECT_THAT(reason("hw_thermal_slowdown"), Optional(0.0));
  EXPECT_THAT(reason("hw_slowdown"), Optional(0.0));
  EXPECT_EQ(SamplesNamed(text, "kbench_gpu_throttle_reason_active").size(), 9u);
}

TEST_F(GpuCollectorTest, LeavesOutSeriesTheDriverCannotRead) {
  GpuSample partial;
  partial.temperature_celsius = 50;  // e.g. a GPU whose power and clocks NVML does not report
  AddFakeGpu(0, "GPU-aaaa", partial);
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  const std::string text = Text();
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_GPU_TEMP", Labels("0", "GPU-aaaa", "cuda:0")),
              Optional(50.0));
  EXPECT_FALSE(absl::StrContains(text, "DCGM_FI_DEV_POWER_USAGE")) << text;
  EXPECT_FALSE(absl::StrContains(text, "DCGM_FI_DEV_SM_CLOCK")) << text;
  EXPECT_FALSE(absl::StrContains(text, "kbench_gpu_throttle_reason_active")) << text;
}

TEST_F(GpuCollectorTest, CollectsNothingWithoutGpus) {
  EXPECT_TRUE(collector_.Collect().empty());
  EXPECT_EQ(factory_calls_, 0) << "NVML must not be loaded on a host that serves no GPU";
}

TEST_F(GpuCollectorTest, ReadsTheDriverAtEveryScrape) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  EXPECT_THAT(FindSample(Text(), "DCGM_FI_DEV_GPU_TEMP", Labels("0", "GPU-aaaa", "cuda:0")),
              Optional(41.0));
  {
    absl::MutexLock lock(&state_->mu);
    state_->by_uuid["GPU-aaaa"].sample.temperature_celsius = 77;
  }
  EXPECT_THAT(FindSample(Text(), "DCGM_FI_DEV_GPU_TEMP", Labels("0", "GPU-aaaa", "cuda:0")),
              Optional(77.0));
}

TEST_F(GpuCollectorTest, ServesSeveralGpus) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  GpuSample hot = FullSample();
  hot.temperature_celsius = 90;
  AddFakeGpu(1, "GPU-bbbb", hot);
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  ASSERT_TRUE(collector_.AddGpu("cuda:1", "GPU-bbbb", "NVIDIA H100 80GB HBM3", 1).ok());
  const std::string text = Text();
  EXPECT_THAT(FindSample(text, "DCGM_FI_DEV_GPU_TEMP", Labels("1", "GPU-bbbb", "cuda:1")),
              Optional(90.0));
  EXPECT_EQ(SamplesNamed(text, "DCGM_FI_DEV_GPU_TEMP").size(), 2u);
  EXPECT_EQ(factory_calls_, 1);
}

TEST_F(GpuCollectorTest, ReplacesADeviceAddedAgain) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  // An executor restart announces its GPU again; a duplicate series would break the scrape.
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  EXPECT_EQ(SamplesNamed(Text(), "DCGM_FI_DEV_GPU_TEMP").size(), 1u);
}

TEST_F(GpuCollectorTest, RefusesTheSameGpuUnderAnotherDevice) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0).ok());
  absl::Status s = collector_.AddGpu("cuda:1", "GPU-aaaa", "NVIDIA H100 80GB HBM3", 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cuda:0"));
}

TEST_F(GpuCollectorTest, ReportsAGpuTheDriverDoesNotKnow) {
  absl::Status s = collector_.AddGpu("cuda:3", "GPU-zzzz", "x", 3);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cuda:3"));
  EXPECT_TRUE(collector_.Collect().empty());
}

TEST_F(GpuCollectorTest, UsesTheDriverNameWhenNoModelIsGiven) {
  AddFakeGpu(0, "GPU-aaaa", FullSample());
  ASSERT_TRUE(collector_.AddGpu("cuda:0", "GPU-aaaa", "", 0).ok());
  EXPECT_THAT(FindSample(Text(), "DCGM_FI_DEV_GPU_TEMP", Labels("0", "GPU-aaaa", "cuda:0")),
              Optional(41.0));
}

TEST(GpuCollector, StaysEmptyWhenNvmlCannotBeLoaded) {
  int calls = 0;
  GpuCollector collector([&calls] {
    ++calls;
    return absl::StatusOr<std::unique_ptr<GpuSource>>(
        absl::FailedPreconditionError("cannot load NVML"));
  });
  EXPECT_EQ(collector.AddGpu("cuda:0", "GPU-a", "m", 0).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(collector.AddGpu("cuda:1", "GPU-b", "m", 1).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(calls, 1) << "a failed load is not retried at every AddGpu";
  EXPECT_TRUE(collector.Collect().empty());
}

TEST(LoadNvml, FailsWithTheReasonWhenTheLibraryIsMissing) {
  auto nvml = LoadNvml("libkbench-no-such-nvml.so.1");
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(nvml.status().message()), HasSubstr("libkbench-no-such-nvml.so.1"));
}

TEST(LoadNvml, RejectsALibraryThatIsNotNvml) {
  // libm is on every Linux host and exports none of NVML's entry points.
  auto nvml = LoadNvml("libm.so.6");
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(nvml.status().message()), HasSubstr("NVML"));
}

}  // namespace
}  // namespace kbench::metrics
