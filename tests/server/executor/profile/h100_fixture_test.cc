// The record processing on a real recording: a profile of softmax naive vs fused (4096x4096
// f32, 20 iterations each) taken on an H100 by profile_gpu_test, warm-up records trimmed
// (fixtures/trim_activity.py), and Nsight Compute's raw page for the fused kernel from a later
// run of the same test.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "gtest/gtest.h"
#include "server/executor/profile/chrome_trace.h"
#include "server/executor/profile/kernel_category.h"
#include "server/executor/profile/ncu_csv.h"
#include "server/executor/profile/summary.h"
#include "tests/server/executor/profile/fixtures.h"

namespace kbench::executor::profile {
namespace {

using testing::ReadFixtureText;

ActivityLog LoadH100() {
  absl::StatusOr<ActivityLog> log = ActivityLogFromJson(
      nlohmann::json::parse(ReadFixtureText("h100_softmax_naive_fused.activity.json")));
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : ActivityLog();
}

const KernelRow* RowContaining(const ProfileSummary& s, const std::string& part) {
  for (const KernelRow& r : s.rows) {
    if (r.name.find(part) != std::string::npos) return &r;
  }
  return nullptr;
}

TEST(H100Recording, SummarisesTwentyRunsOfEachKernel) {
  const ActivityLog log = LoadH100();
  const ProfileSummary s =
      Summarize(log, Attribute(log), {.operation = "softmax", .limits = H100Limits()});
  // naive: RowMax, SubtractRow, ExpInPlace, RowSum, DivideRow; fused: SoftmaxBlockRow. The
  // input generation and poisoning kernels ran in other phases.
  ASSERT_EQ(s.rows.size(), 6u);
  for (const KernelRow& r : s.rows) EXPECT_EQ(r.calls, 20) << r.name;
  EXPECT_EQ(RowContaining(s, "FillUniform"), nullptr);
  ASSERT_EQ(s.variants.size(), 2u);
  EXPECT_EQ(s.variants[0].kernels, 100);
  EXPECT_EQ(s.variants[1].kernels, 20);
  double iterations = 0;
  for (const VariantProfile& v : s.variants) {
    for (double t : v.iteration_gpu_seconds) {
      EXPECT_GT(t, 0);
      iterations += t;
    }
  }
  EXPECT_NEAR(iterations, s.gpu_seconds, 1e-12);
  EXPECT_GT(s.gpu_busy_fraction, 0.5);
  EXPECT_LE(s.gpu_busy_fraction, 1.0);
}

TEST(H100Recording, ClassifiesTheRealKernelNames) {
  const ActivityLog log = LoadH100();
  const ProfileSummary s =
      Summarize(log, Attribute(log), {.operation = "softmax", .limits = H100Limits()});
  const std::map<std::string, std::string> want = {
      {"RowMaxKernel", kCategoryReduction},          {"RowSumKernel", kCategoryReduction},
      {"SoftmaxBlockRowKernel", kCategoryReduction}, {"SubtractRowKernel", kCategoryPointwise},
      {"ExpInPlaceKernel", kCategoryPointwise},      {"DivideRowKernel", kCategoryPointwise}};
  for (const auto& [part, category] : want) {
    const KernelRow* r = RowContaining(s, part);
    ASSERT_NE(r, nullptr) << part;
    EXPECT_EQ(r->category, category) << r->name;
    EXPECT_NE(r->name.find("kbench::kernels::cuda::(anonymous namespace)::"), std::string::npos);
  }
}

TEST(H100Recording, AgreesWithNsightComputeOnTheoreticalOccupancy) {
  const ActivityLog log = LoadH100();
  const ProfileSummary s =
      Summarize(log, Attribute(log), {.operation = "softmax", .limits = H100Limits()});
  const KernelRow* fused = RowContaining(s, "SoftmaxBlockRowKernel");
  ASSERT_NE(fused, nullptr);
  absl::StatusOr<std::vector<NcuLaunch>> ncu =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_h100_softmax_fused.csv"));
  ASSERT_TRUE(ncu.ok()) << ncu.status();
  ASSERT_EQ(ncu->size(), 3u);
  const NcuLaunch& launch = (*ncu)[0];
  // ncu's own view of the same launch: registers, block limit from registers, theoretical %.
  EXPECT_EQ(fused->registers_per_thread, launch.values.at("launch__registers_per_thread"));
  EXPECT_EQ(fused->occupancy.blocks_per_sm, launch.values.at("launch__occupancy_limit_registers"));
  EXPECT_DOUBLE_EQ(100 * fused->occupancy.fraction,
                   launch.values.at("sm__maximum_warps_per_active_cycle_pct"));
  EXPECT_EQ(fused->occupancy.limiter, "registers");
}

TEST(H100Recording, ReadsNsightComputesRawPage) {
  absl::StatusOr<std::vector<NcuLaunch>> ncu =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_h100_softmax_fused.csv"));
  ASSERT_TRUE(ncu.ok()) << ncu.status();
  const std::vector<v1::NcuMetrics> m = SummarizeNcu(*ncu);
  ASSERT_EQ(m.size(), 1u);
  // Imported with --print-kernel-base mangled and demangled by us: the summary's own name.
  EXPECT_EQ(m[0].kernel(),
            "void kbench::kernels::cuda::(anonymous namespace)::SoftmaxBlockRowKernel<float, true, "
            "4, 256>(float const*, float*, long)");
  // 41,568 + 40,736 + 40,896 ns ("ns" in base units, thousands grouped).
  EXPECT_NEAR(m[0].duration_seconds(), (41568 + 40736 + 40896) / 3.0 * 1e-9, 1e-15);
  EXPECT_NEAR(m[0].dram_throughput_percent(), (80.84 + 82.24 + 82.20) / 3, 1e-9);
  EXPECT_NEAR(m[0].sm_throughput_percent(), (31.28 + 31.83 + 31.70) / 3, 1e-9);
  EXPECT_NEAR(m[0].achieved_occupancy_percent(), (68.31 + 68.24 + 68.11) / 3, 1e-9);
  EXPECT_NEAR(m[0].l2_hit_rate_percent(), (49.64 + 49.71 + 49.67) / 3, 1e-9);
}

// Issue 12, item 8: what a job writes (event by event) is the document BuildChromeTrace makes.
TEST(H100Recording, WritesTheSameTraceEventByEvent) {
  const ActivityLog log = LoadH100();
  TraceOptions options;
  options.metadata = {{"job_id", "j-1"}, {"kernel", "softmax"}};
  char tmpl[] = "/tmp/kbench_trace_XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_TRUE(WriteChromeTrace(log, Attribute(log), options, tmpl).ok());
  std::ifstream f(tmpl);
  const nlohmann::json written = nlohmann::json::parse(f);
  unlink(tmpl);
  const nlohmann::json built = BuildChromeTrace(log, Attribute(log), options);
  ASSERT_GT(built["traceEvents"].size(), 100u);
  EXPECT_EQ(written, built);
  EXPECT_EQ(WriteChromeTrace(log, Attribute(log), options, "/nonexistent/dir/trace.json").code(),
            absl::StatusCode::kInternal);
}

TEST(H100Recording, LinksEveryRecordedKernelToItsLaunchCall) {
  const ActivityLog log = LoadH100();
  const nlohmann::json trace =
      nlohmann::json::parse(BuildChromeTrace(log, Attribute(log), TraceOptions()).dump());
  std::map<uint64_t, std::string> launches;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e.value("cat", "") == "cuda_runtime") {
      launches[e["args"]["correlation"].get<uint64_t>()] = e["name"];
    }
  }
  std::map<uint64_t, int> flows;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "s") flows[e["id"].get<uint64_t>()]++;
  }
  std::map<std::string, int> recorded;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e.value("cat", "") != "kernel") continue;
    const uint64_t id = e["args"]["correlation"].get<uint64_t>();
    EXPECT_EQ(launches[id], "cudaLaunchKernel") << e.dump();
    EXPECT_EQ(flows[id], 1) << e.dump();
    if (e["args"].value("phase", "") == "profile") recorded[e["args"]["variant"]]++;
  }
  EXPECT_EQ(recorded["naive"], 100);
  EXPECT_EQ(recorded["fused"], 20);
}

}  // namespace
}  // namespace kbench::executor::profile
