// Nsight Compute support on CPU: the raw-page CSV parser on a fixture, locating ncu, and the
// command lines.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "server/executor/profile/ncu_csv.h"
#include "server/executor/profile/ncu_runner.h"
#include "tests/server/executor/profile/fixtures.h"

namespace kbench::executor::profile {
namespace {

using testing::ReadFixtureText;

TEST(ParseNcuRawCsv, ReadsEveryLaunchWithTimesInSeconds) {
  absl::StatusOr<std::vector<NcuLaunch>> launches =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_softmax_fused.csv"));
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 3u);
  const NcuLaunch& first = (*launches)[0];
  EXPECT_EQ(first.kernel, "void kbench::SoftmaxFusedKernel<256>(const float *, float *, int, int)");
  EXPECT_NEAR(first.values.at(kNcuDuration), 41216e-9, 1e-15);  // "41,216" nsecond
  EXPECT_DOUBLE_EQ(first.values.at(kNcuDramThroughput), 85.10);
  EXPECT_DOUBLE_EQ(first.values.at(kNcuL2HitRate), 12.50);
  EXPECT_DOUBLE_EQ(first.values.at(kNcuSmThroughput), 30.20);
  EXPECT_DOUBLE_EQ(first.values.at(kNcuAchievedOccupancy), 88.10);
  EXPECT_FALSE(first.values.contains("Block Size"));
}

TEST(SummarizeNcu, AveragesEachMetricPerKernel) {
  absl::StatusOr<std::vector<NcuLaunch>> launches =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_softmax_fused.csv"));
  ASSERT_TRUE(launches.ok()) << launches.status();
  const std::vector<v1::NcuMetrics> metrics = SummarizeNcu(*launches);
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_NEAR(metrics[0].duration_seconds(), (41216 + 41984 + 40448) / 3.0 * 1e-9, 1e-15);
  EXPECT_NEAR(metrics[0].dram_throughput_percent(), 85.0, 1e-9);
  EXPECT_NEAR(metrics[0].sm_throughput_percent(), 30.0, 1e-9);
  EXPECT_NEAR(metrics[0].achieved_occupancy_percent(), 88.0, 1e-9);
  EXPECT_NEAR(metrics[0].l2_hit_rate_percent(), 38.0 / 3, 1e-9);
}

// ncu_raw_spill.csv: the raw page's layout (--print-units base) with the metrics
// `kbctl diff --explain` compares, for a kernel that spills; two launches.
TEST(SummarizeNcu, ReadsTheQuantitiesDiffExplainCompares) {
  absl::StatusOr<std::vector<NcuLaunch>> launches =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_spill.csv"));
  ASSERT_TRUE(launches.ok()) << launches.status();
  const std::vector<v1::NcuMetrics> m = SummarizeNcu(*launches);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NEAR(m[0].duration_seconds(), 53e-6, 1e-15);
  EXPECT_DOUBLE_EQ(m[0].dram_read_bytes(), 33554432);
  EXPECT_DOUBLE_EQ(m[0].dram_write_bytes(), 33554432);
  EXPECT_DOUBLE_EQ(m[0].dram_bytes(), 67108864);
  EXPECT_DOUBLE_EQ(m[0].l2_bytes(), 91e6);
  EXPECT_DOUBLE_EQ(m[0].instructions_executed(), 1.2e6);
  EXPECT_EQ(m[0].registers_per_thread(), 32);
  EXPECT_DOUBLE_EQ(m[0].local_load_bytes(), 6291456);
  EXPECT_DOUBLE_EQ(m[0].local_store_bytes(), 6291456);
}

TEST(SummarizeNcu, KeepsTheLargestStallReasonsWithTheirShares) {
  absl::StatusOr<std::vector<NcuLaunch>> launches =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_spill.csv"));
  ASSERT_TRUE(launches.ok()) << launches.status();
  const std::vector<v1::NcuMetrics> m = SummarizeNcu(*launches);
  ASSERT_EQ(m.size(), 1u);
  // Means: long_scoreboard 6.2, wait 1.2, lg_throttle 0.6, short_scoreboard 0.2, barrier 0.1;
  // math_pipe_throttle is "n/a" and so not a reason at all.
  ASSERT_EQ(m[0].top_stall_reasons_size(), kNcuTopStallReasons);
  const double total = 6.2 + 1.2 + 0.6 + 0.2 + 0.1;
  const char* expected[] = {"long_scoreboard", "wait", "lg_throttle", "short_scoreboard"};
  const double values[] = {6.2, 1.2, 0.6, 0.2};
  for (int i = 0; i < kNcuTopStallReasons; ++i) {
    EXPECT_EQ(m[0].top_stall_reasons(i).name(), expected[i]);
    EXPECT_NEAR(m[0].top_stall_reasons(i).warps_per_issue(), values[i], 1e-12);
    EXPECT_NEAR(m[0].top_stall_reasons(i).share(), values[i] / total, 1e-12);
  }
}

TEST(SummarizeNcu, LeavesQuantitiesAnOlderReportLacksUnset) {
  absl::StatusOr<std::vector<NcuLaunch>> launches =
      ParseNcuRawCsv(ReadFixtureText("ncu_raw_softmax_fused.csv"));
  ASSERT_TRUE(launches.ok()) << launches.status();
  const std::vector<v1::NcuMetrics> m = SummarizeNcu(*launches);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0].has_dram_bytes());
  EXPECT_FALSE(m[0].has_l2_bytes());
  EXPECT_FALSE(m[0].has_registers_per_thread());
  EXPECT_FALSE(m[0].has_local_load_bytes());
  EXPECT_EQ(m[0].top_stall_reasons_size(), 0);
}

TEST(ParseNcuRawCsv, ConvertsMicrosecondsAndKeepsTwoKernelsApart) {
  const std::string csv =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"usecond\"\n"
      "\"0\",\"a(int)\",\"2.5\"\n"
      "\"1\",\"b, \"\"quoted\"\"\",\"1\"\n"
      "\"2\",\"a(int)\",\"3.5\"\n";
  absl::StatusOr<std::vector<NcuLaunch>> launches = ParseNcuRawCsv(csv);
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 3u);
  EXPECT_EQ((*launches)[1].kernel, "b, \"quoted\"");
  const std::vector<v1::NcuMetrics> m = SummarizeNcu(*launches);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kernel(), "a(int)");
  EXPECT_NEAR(m[0].duration_seconds(), 3e-6, 1e-15);
  EXPECT_NEAR(m[1].duration_seconds(), 1e-6, 1e-15);
}

TEST(ParseNcuRawCsv, RejectsOutputWithoutAHeader) {
  absl::StatusOr<std::vector<NcuLaunch>> r = ParseNcuRawCsv("==PROF== No kernels were profiled.\n");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParseNcuRawCsv, RejectsARowThatDoesNotMatchTheHeader) {
  absl::StatusOr<std::vector<NcuLaunch>> r =
      ParseNcuRawCsv("\"ID\",\"Kernel Name\",\"x__y\"\n\"0\",\"k\"\n");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos);
}

TEST(ParseNcuRawCsv, ReturnsNoLaunchesForAnEmptyReport) {
  absl::StatusOr<std::vector<NcuLaunch>> r =
      ParseNcuRawCsv("\"ID\",\"Kernel Name\",\"x__y\"\n\"\",\"\",\"%\"\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

class NcuDir {
 public:
  NcuDir() {
    char tmpl[] = "/tmp/kbench_ncu_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~NcuDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string MakeExecutable(const std::string& name) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    chmod(p.c_str(), 0755);
    return p;
  }

 private:
  std::string path_;
};

TEST(FindNcu, FailsNamingWhereItLooked) {
  NcuSearch search;
  search.path_env = "/nonexistent/a:/nonexistent/b";
  search.fallbacks = {"/nonexistent/cuda/bin/ncu"};
  absl::StatusOr<std::string> r = FindNcu(search);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(r.status().message());
  EXPECT_EQ(message.rfind("profile.ncu: ncu not found (looked in ", 0), 0u) << message;
  EXPECT_NE(message.find("/nonexistent/a"), std::string::npos);
  EXPECT_NE(message.find("/nonexistent/cuda/bin/ncu"), std::string::npos);
}

TEST(FindNcu, FindsItOnThePath) {
  NcuDir dir;
  const std::string ncu = dir.MakeExecutable("ncu");
  NcuSearch search;
  search.path_env = "/nonexistent:" + dir.path();
  search.fallbacks = {};
  absl::StatusOr<std::string> r = FindNcu(search);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, ncu);
}

TEST(FindNcu, UsesTheFallbackAfterThePath) {
  NcuDir dir;
  const std::string ncu = dir.MakeExecutable("my-ncu");
  NcuSearch search;
  search.path_env = "/nonexistent";
  search.fallbacks = {ncu};
  absl::StatusOr<std::string> r = FindNcu(search);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, ncu);
}

TEST(FindNcu, TrustsOnlyTheExplicitPathWhenOneIsSet) {
  NcuDir dir;
  dir.MakeExecutable("ncu");
  NcuSearch search;
  search.explicit_path = dir.path() + "/missing-ncu";
  search.path_env = dir.path();  // has an ncu, but the explicit setting wins
  absl::StatusOr<std::string> r = FindNcu(search);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("KBENCH_NCU=" + dir.path() + "/missing-ncu"),
            std::string::npos);
}

TEST(NcuProfileArgv, RunsTheTargetUnderNvtxFilterWithoutClockControl) {
  NcuRequest r;
  r.ncu = "/usr/local/cuda/bin/ncu";
  r.target_executable = "/opt/kbench/bin/kbenchd";
  r.target_spec_path = "/data/artifacts/j1/ncu_target.textproto";
  r.report_base = "/data/artifacts/j1/ncu_fused";
  const std::vector<std::string> argv = NcuProfileArgv(r);
  const std::string joined = absl::StrJoin(argv, " ");
  EXPECT_EQ(argv.front(), r.ncu);
  EXPECT_NE(joined.find("--clock-control none"), std::string::npos);
  EXPECT_NE(joined.find("--nvtx --nvtx-include kbench_ncu/"), std::string::npos);
  EXPECT_NE(joined.find("--export /data/artifacts/j1/ncu_fused"), std::string::npos);
  EXPECT_NE(joined.find(std::string("--metrics ") + NcuMetricList()), std::string::npos);
  // The target and its arguments come last.
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[argv.size() - 3], r.target_executable);
  EXPECT_EQ(argv[argv.size() - 2], "--ncu-target");
  EXPECT_EQ(argv[argv.size() - 1], r.target_spec_path);
  for (const char* metric :
       {kNcuDuration, kNcuDramThroughput, kNcuSmThroughput, kNcuAchievedOccupancy, kNcuL2HitRate,
        kNcuDramReadBytes, kNcuDramWriteBytes, kNcuL2Bytes, kNcuInstructions, kNcuRegisters,
        kNcuLocalLoadBytes, kNcuLocalStoreBytes}) {
    EXPECT_NE(NcuMetricList().find(metric), std::string::npos) << metric;
  }
  EXPECT_NE(NcuMetricList().find(
                "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
            std::string::npos);
}

TEST(NcuImportArgv, AsksForTheRawPageInBaseUnits) {
  EXPECT_EQ(absl::StrJoin(NcuImportArgv("ncu", "r.ncu-rep"), " "),
            "ncu --import r.ncu-rep --csv --page raw --print-units base --print-kernel-base "
            "mangled");
}

TEST(RunNcu, ReportsAFailingNcuWithTheEndOfItsOutput) {
  NcuDir dir;
  const std::string ncu = dir.path() + "/ncu";
  std::ofstream(ncu)
      << "#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - no permission' >&2\nexit 1\n";
  chmod(ncu.c_str(), 0755);
  NcuRequest r;
  r.ncu = ncu;
  r.target_executable = "/bin/true";
  r.target_spec_path = "spec";
  r.report_base = dir.path() + "/report";
  r.log_path = dir.path() + "/ncu.log";
  r.csv_path = dir.path() + "/raw.csv";
  absl::StatusOr<std::vector<v1::NcuMetrics>> m = RunNcu(r, nullptr);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(m.status().message().find("exit code 1"), std::string::npos) << m.status();
  EXPECT_NE(m.status().message().find("ERR_NVGPUCTRPERM"), std::string::npos) << m.status();
}

TEST(RunNcu, ParsesTheImportedRawPage) {
  NcuDir dir;
  // A stand-in ncu: the profile run writes a report, the import prints the fixture.
  const std::string fixture = testing::FixturePath("ncu_raw_softmax_fused.csv");
  const std::string ncu = dir.path() + "/ncu";
  std::ofstream(ncu) << "#!/bin/sh\n"
                        "if [ \"$1\" = --import ]; then cat '"
                     << fixture
                     << "'; exit 0; fi\n"
                        "while [ $# -gt 0 ]; do if [ \"$1\" = --export ]; then touch "
                        "\"$2.ncu-rep\"; fi; shift; done\n";
  chmod(ncu.c_str(), 0755);
  NcuRequest r;
  r.ncu = ncu;
  r.target_executable = "/bin/true";
  r.target_spec_path = "spec";
  r.report_base = dir.path() + "/report";
  r.log_path = dir.path() + "/ncu.log";
  r.csv_path = dir.path() + "/raw.csv";
  absl::StatusOr<std::vector<v1::NcuMetrics>> m = RunNcu(r, nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_NEAR((*m)[0].dram_throughput_percent(), 85.0, 1e-9);
}

}  // namespace
}  // namespace kbench::executor::profile
