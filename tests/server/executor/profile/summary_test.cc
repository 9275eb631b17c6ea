// The summary tables from the recorded softmax fixture (naive: five kernels per run, fused:
// one; two recorded iterations each; see fixtures/make_softmax_fixture.py), and the busy-time
// union on overlapping intervals.
#include "server/executor/profile/summary.h"

#include "gtest/gtest.h"
#include "server/executor/profile/kernel_category.h"
#include "tests/server/executor/profile/fixtures.h"

namespace kbench::executor::profile {
namespace {

using testing::LoadSoftmaxFixture;

const KernelRow* FindRow(const ProfileSummary& s, const std::string& prefix) {
  for (const KernelRow& r : s.rows) {
    if (r.name.rfind(prefix, 0) == 0) return &r;
  }
  return nullptr;
}

ProfileSummary SummarizeFixture() {
  const ActivityLog log = LoadSoftmaxFixture();
  return Summarize(log, Attribute(log), {.operation = "softmax", .limits = H100Limits()});
}

TEST(Summarize, CountsOnlyKernelsOfTheProfilePhase) {
  const ProfileSummary s = SummarizeFixture();
  // The check and warm-up phases launched 11 and 6 more kernels, and a memset and a copy.
  ASSERT_EQ(s.rows.size(), 6u);
  int64_t calls = 0;
  for (const KernelRow& r : s.rows) calls += r.calls;
  EXPECT_EQ(calls, 2 * 5 + 2 * 1);
  ASSERT_EQ(s.variants.size(), 2u);
  EXPECT_EQ(s.variants[0].variant, "naive");
  EXPECT_EQ(s.variants[0].kernels, 10);
  EXPECT_EQ(s.variants[0].transfers, 0);
  EXPECT_EQ(s.variants[1].variant, "fused");
  EXPECT_EQ(s.variants[1].kernels, 2);
}

TEST(Summarize, SortsRowsByTotalTimeWithDemangledNames) {
  const ProfileSummary s = SummarizeFixture();
  ASSERT_FALSE(s.rows.empty());
  EXPECT_EQ(s.rows[0].name, "void kbench::SoftmaxFusedKernel<256>(float const*, float*, int, int)");
  EXPECT_EQ(s.rows[0].mangled_name, "_ZN6kbench18SoftmaxFusedKernelILi256EEEvPKfPfii");
  EXPECT_EQ(s.rows[1].name, "kbench::SoftmaxRowMaxKernel(float const*, float*, int, int)");
  for (size_t i = 1; i < s.rows.size(); ++i) {
    EXPECT_GE(s.rows[i - 1].total_seconds, s.rows[i].total_seconds);
  }
}

TEST(Summarize, ComputesCallsTotalMeanMinMaxAndShare) {
  const ProfileSummary s = SummarizeFixture();
  const KernelRow* max = FindRow(s, "kbench::SoftmaxRowMaxKernel");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->calls, 2);
  EXPECT_NEAR(max->total_seconds, 42e-6, 1e-12);
  EXPECT_NEAR(max->mean_seconds, 21e-6, 1e-12);
  EXPECT_NEAR(max->min_seconds, 20e-6, 1e-12);
  EXPECT_NEAR(max->max_seconds, 22e-6, 1e-12);
  EXPECT_NEAR(s.gpu_seconds, 252e-6, 1e-12);
  EXPECT_NEAR(max->percent_of_gpu_time, 100.0 * 42 / 252, 1e-9);
  double percent = 0;
  for (const KernelRow& r : s.rows) percent += r.percent_of_gpu_time;
  EXPECT_NEAR(percent, 100.0, 1e-9);
}

TEST(Summarize, ReportsResourcesAndTheoreticalOccupancy) {
  const ProfileSummary s = SummarizeFixture();
  const KernelRow* fused = FindRow(s, "void kbench::SoftmaxFusedKernel");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->registers_per_thread, 40);
  EXPECT_EQ(fused->static_shared_bytes, 2048);
  EXPECT_EQ(fused->dynamic_shared_bytes, 16384);
  EXPECT_EQ(fused->local_bytes_per_thread, 0);
  EXPECT_EQ(fused->max_threads_per_block, 256);
  EXPECT_EQ(fused->grid, "(4096, 1, 1)");
  EXPECT_EQ(fused->block, "(256, 1, 1)");
  // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per SM → 6 blocks of 8 warps.
  EXPECT_EQ(fused->occupancy.blocks_per_sm, 6);
  EXPECT_DOUBLE_EQ(fused->occupancy.fraction, 0.75);
  EXPECT_EQ(fused->occupancy.limiter, "registers");
  const KernelRow* sub = FindRow(s, "kbench::SoftmaxSubtractKernel");
  ASSERT_NE(sub, nullptr);
  EXPECT_DOUBLE_EQ(sub->occupancy.fraction, 1.0);
}

TEST(Summarize, BreaksDownByCategory) {
  const ProfileSummary s = SummarizeFixture();
  ASSERT_EQ(s.categories.size(), 2u);
  EXPECT_EQ(s.categories[0].category, kCategoryReduction);  // fused, row max, row sum
  EXPECT_NEAR(s.categories[0].total_seconds, 162e-6, 1e-12);
  EXPECT_EQ(s.categories[0].calls, 6);
  EXPECT_NEAR(s.categories[0].percent_of_gpu_time, 100.0 * 162 / 252, 1e-9);
  EXPECT_EQ(s.categories[1].category, kCategoryPointwise);  // subtract, exp, divide
  EXPECT_NEAR(s.categories[1].total_seconds, 90e-6, 1e-12);
  EXPECT_EQ(s.categories[1].calls, 6);
}

TEST(Summarize, MeasuresBusyShareOverTheProfileWallTime) {
  const ProfileSummary s = SummarizeFixture();
  // Walls: naive 250 us, fused 100 us; kernels never overlap: busy = 172 + 80 us.
  EXPECT_NEAR(s.wall_seconds, 350e-6, 1e-12);
  EXPECT_NEAR(s.busy_seconds, 252e-6, 1e-12);
  EXPECT_NEAR(s.gpu_busy_fraction, 252.0 / 350.0, 1e-9);
}

TEST(Summarize, SumsEachIterationsGpuTime) {
  const ProfileSummary s = SummarizeFixture();
  ASSERT_EQ(s.variants.size(), 2u);
  ASSERT_EQ(s.variants[0].iteration_gpu_seconds.size(), 2u);
  EXPECT_NEAR(s.variants[0].iteration_gpu_seconds[0], 85e-6, 1e-12);
  EXPECT_NEAR(s.variants[0].iteration_gpu_seconds[1], 87e-6, 1e-12);
  ASSERT_EQ(s.variants[1].iteration_gpu_seconds.size(), 2u);
  EXPECT_NEAR(s.variants[1].iteration_gpu_seconds[0], 40e-6, 1e-12);
  EXPECT_NEAR(s.variants[0].wall_seconds, 250e-6, 1e-12);
}

TEST(Summarize, CountsTransfersOfTheProfilePhaseAsCopies) {
  ActivityLog log;
  log.spans.push_back({.phase = "profile", .variant = "v", .start_ns = 1000, .end_ns = 11000});
  log.spans.push_back(
      {.phase = "iteration", .variant = "v", .iteration = 0, .start_ns = 1000, .end_ns = 11000});
  log.transfers.push_back({.kind = TransferActivity::Kind::kMemcpy,
                           .copy_kind = "DtoD",
                           .bytes = 1 << 20,
                           .start_ns = 2000,
                           .end_ns = 6000});
  log.transfers.push_back({.kind = TransferActivity::Kind::kMemset,
                           .copy_kind = "",
                           .bytes = 4096,
                           .start_ns = 7000,
                           .end_ns = 8000});
  const ProfileSummary s =
      Summarize(log, Attribute(log), {.operation = "copy", .limits = std::nullopt});
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].name, "Memcpy DtoD");
  EXPECT_EQ(s.rows[0].bytes, 1u << 20);
  EXPECT_TRUE(s.rows[0].is_transfer);
  EXPECT_EQ(s.rows[1].name, "Memset");
  ASSERT_EQ(s.categories.size(), 1u);
  EXPECT_EQ(s.categories[0].category, kCategoryCopy);
  EXPECT_NEAR(s.gpu_busy_fraction, 5000.0 / 10000.0, 1e-12);
  EXPECT_NEAR(s.variants[0].iteration_gpu_seconds[0], 5e-6, 1e-15);
}

TEST(Summarize, CountsOverlappingWorkOnceInBusyTime) {
  ActivityLog log;
  log.spans.push_back({.phase = "profile", .variant = "v", .start_ns = 0, .end_ns = 100});
  // Two streams: [10, 50) and [30, 70) overlap; [80, 120) runs past the phase's end.
  const auto kernel = [&](uint64_t start, uint64_t end, uint32_t stream) {
    KernelActivity k;
    k.name = "k";
    k.start_ns = start;
    k.end_ns = end;
    k.stream = stream;
    k.block[0] = k.block[1] = k.block[2] = 1;
    log.kernels.push_back(k);
  };
  kernel(10, 50, 1);
  kernel(30, 70, 2);
  kernel(80, 120, 1);
  const ProfileSummary s =
      Summarize(log, Attribute(log), {.operation = "x", .limits = std::nullopt});
  EXPECT_NEAR(s.busy_seconds, 80e-9, 1e-15);  // [10, 70) + [80, 100)
  EXPECT_NEAR(s.gpu_seconds, 120e-9, 1e-15);  // summed: 40 + 40 + 40
  EXPECT_NEAR(s.gpu_busy_fraction, 0.80, 1e-12);
}

TEST(UnionLength, MergesOverlappingAndNestedIntervals) {
  EXPECT_EQ(UnionLength({}), 0u);
  EXPECT_EQ(UnionLength({{0, 10}, {5, 15}, {20, 30}, {22, 25}, {30, 31}}), 26u);
  EXPECT_EQ(UnionLength({{5, 5}, {7, 3}}), 0u);  // empty and inverted intervals count nothing
}

TEST(FormatSummaryText, ListsKernelsCategoriesBusyShareAndVariants) {
  const std::string text = FormatSummaryText(SummarizeFixture(), "Profile of softmax");
  EXPECT_NE(text.find("Profile of softmax"), std::string::npos);
  EXPECT_NE(text.find("void kbench::SoftmaxFusedKernel<256>"), std::string::npos);
  EXPECT_NE(text.find("reduction"), std::string::npos);
  EXPECT_NE(text.find("GPU busy 72.0%"), std::string::npos);
  EXPECT_NE(text.find("variant naive: 2 iterations, 10 kernels"), std::string::npos);
  EXPECT_NE(text.find("75%"), std::string::npos);  // the fused kernel's occupancy
}

TEST(FillProfileResult, CopiesRowsCategoriesAndTotals) {
  v1::ProfileResult result;
  FillProfileResult(SummarizeFixture(), &result);
  ASSERT_EQ(result.kernels_size(), 6);
  EXPECT_EQ(result.kernels(0).calls(), 2);
  EXPECT_EQ(result.kernels(0).category(), kCategoryReduction);
  EXPECT_EQ(result.kernels(0).registers_per_thread(), 40);
  EXPECT_DOUBLE_EQ(result.kernels(0).theoretical_occupancy(), 0.75);
  EXPECT_EQ(result.kernels(0).max_threads_per_block(), 256);
  EXPECT_EQ(result.categories_size(), 2);
  EXPECT_NEAR(result.gpu_seconds(), 252e-6, 1e-12);
  EXPECT_NEAR(result.wall_seconds(), 350e-6, 1e-12);
  EXPECT_NEAR(result.gpu_busy_fraction(), 0.72, 1e-9);
}

TEST(SummaryToJson, HoldsTheSameNumbers) {
  const nlohmann::json j = SummaryToJson(SummarizeFixture());
  EXPECT_EQ(j["kernels"].size(), 6u);
  EXPECT_EQ(j["kernels"][0]["calls"], 2);
  EXPECT_NEAR(j["gpu_busy_fraction"].get<double>(), 0.72, 1e-9);
  EXPECT_EQ(j["variants"][1]["variant"], "fused");
}

}  // namespace
}  // namespace kbench::executor::profile
