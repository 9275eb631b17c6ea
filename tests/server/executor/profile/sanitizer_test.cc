// compute-sanitizer support on CPU: reading memcheck's report, the command line, locating the
// tool, and a run against a stand-in script that writes a report as memcheck does.
#include "server/executor/profile/sanitizer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "server/executor/profile/ncu_runner.h"

namespace kbench::executor::profile {
namespace {

// memcheck's report of a kernel that writes one element past its output (the layout of
// compute-sanitizer 2025.x; host frames as --show-backtrace yes would print them).
constexpr char kOutOfBoundsReport[] = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at softmax_oob+0x1d0 in oob.cu:12
=========     by thread (0,0,0) in block (4096,0,0)
=========     Address 0x7f3a4c000000 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f3a4a000000 of size 33554432 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f1c3] in libcuda.so.1
=========
========= Invalid __global__ write of size 4 bytes
=========     at softmax_oob+0x1d0 in oob.cu:12
=========     by thread (1,0,0) in block (4096,0,0)
=========     Address 0x7f3a4c000004 is out of bounds
=========
========= ERROR SUMMARY: 2 errors
)";

TEST(ParseMemcheckReport, CountsTheErrorsAndKeepsTheFirstWithoutHostFrames) {
  const MemcheckReport r = ParseMemcheckReport(kOutOfBoundsReport, 4096);
  EXPECT_EQ(r.errors, 2);
  EXPECT_EQ(r.first_errors.rfind("Invalid __global__ write of size 4 bytes; at softmax_oob", 0), 0u)
      << r.first_errors;
  EXPECT_NE(r.first_errors.find("block (4096,0,0)"), std::string::npos) << r.first_errors;
  EXPECT_NE(r.first_errors.find(" | Invalid __global__ write"), std::string::npos);
  EXPECT_EQ(r.first_errors.find("Host Frame"), std::string::npos) << r.first_errors;
  EXPECT_EQ(r.first_errors.find("COMPUTE-SANITIZER"), std::string::npos);
  EXPECT_EQ(r.first_errors.find("ERROR SUMMARY"), std::string::npos);
}

TEST(ParseMemcheckReport, BoundsTheExcerpt) {
  const MemcheckReport r = ParseMemcheckReport(kOutOfBoundsReport, 40);
  EXPECT_EQ(r.errors, 2);
  EXPECT_LE(r.first_errors.size(), 40u + 4);
  EXPECT_EQ(r.first_errors.substr(r.first_errors.size() - 4), " ...");
}

TEST(ParseMemcheckReport, ReadsACleanRunAndOneError) {
  EXPECT_EQ(
      ParseMemcheckReport("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", 100)
          .errors,
      0);
  const MemcheckReport one = ParseMemcheckReport(
      "========= COMPUTE-SANITIZER\n========= Program hit cudaErrorIllegalAddress\n"
      "========= ERROR SUMMARY: 1 error\n",
      100);
  EXPECT_EQ(one.errors, 1);
  EXPECT_EQ(one.first_errors, "Program hit cudaErrorIllegalAddress");
}

// As an H100 reported a write far past an allocation (2026-11-25): the access, then every later
// API call failing alike; the excerpt keeps the access and the first failed call only.
TEST(ParseMemcheckReport, KeepsOneOfTheFailedCallsThatFollowAFault) {
  const MemcheckReport r = ParseMemcheckReport(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at softmax_fused_user+0xe10\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Access to 0x7f5964000000 is out of bounds\n"
      "========= \n"
      "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch "
      "failure\" on CUDA API call to cudaStreamSynchronize.\n"
      "=========     Saved host backtrace up to driver entry point at error\n"
      "=========         Host Frame: [0x1] in libcuda.so.1\n"
      "========= \n"
      "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch "
      "failure\" on CUDA API call to cudaFree.\n"
      "========= \n"
      "========= ERROR SUMMARY: 3 errors\n",
      4096);
  EXPECT_EQ(r.errors, 3);
  EXPECT_EQ(r.first_errors,
            "Invalid __global__ write of size 4 bytes; at softmax_fused_user+0xe10; by thread "
            "(0,0,0) in block (0,0,0); Access to 0x7f5964000000 is out of bounds | Program hit "
            "cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
            "call to cudaStreamSynchronize.");
}

TEST(ParseMemcheckReport, SaysUnknownWithoutASummary) {
  EXPECT_EQ(ParseMemcheckReport("", 100).errors, -1);
  EXPECT_EQ(ParseMemcheckReport("========= COMPUTE-SANITIZER\n", 100).errors, -1);
}

TEST(MemcheckArgv, RunsTheTargetModeUnderMemcheckWithABoundedReport) {
  MemcheckRequest r;
  r.sanitizer = "/cuda/bin/compute-sanitizer";
  r.target_executable = "/opt/kbench/bin/kbench-executor";
  r.target_spec_path = "/data/job/.sanitize_target.textproto";
  r.report_path = "/data/job/memcheck_mine.txt";
  EXPECT_EQ(absl::StrJoin(MemcheckArgv(r), " "),
            "/cuda/bin/compute-sanitizer --tool memcheck --log-file /data/job/memcheck_mine.txt "
            "--print-limit 20 --show-backtrace device /opt/kbench/bin/kbench-executor "
            "--ncu-target /data/job/.sanitize_target.textproto");
}

class SanitizerDir {
 public:
  SanitizerDir() {
    char tmpl[] = "/tmp/kbench_sanitizer_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~SanitizerDir() { std::system(("rm -rf " + path_).c_str()); }
  const std::string& path() const { return path_; }
  // A script standing in for compute-sanitizer: it writes `report` to the --log-file argument
  // (the 4th), says `output` on stdout, and exits with `code`.
  std::string StandIn(const std::string& report, const std::string& output, int code) const {
    const std::string p = path_ + "/compute-sanitizer";
    std::ofstream(path_ + "/report.txt") << report;
    std::ofstream(p) << "#!/bin/sh\ncp " << path_ << "/report.txt \"$4\"\necho '" << output
                     << "'\nexit " << code << "\n";
    chmod(p.c_str(), 0755);
    return p;
  }

 private:
  std::string path_;
};

MemcheckRequest RequestIn(const SanitizerDir& dir, const std::string& sanitizer) {
  MemcheckRequest r;
  r.sanitizer = sanitizer;
  r.target_executable = "/bin/true";
  r.target_spec_path = dir.path() + "/spec.textproto";
  r.report_path = dir.path() + "/memcheck.txt";
  r.output_path = dir.path() + "/output.txt";
  r.timeout_seconds = 30;
  return r;
}

TEST(RunMemcheck, ReturnsTheErrorsOfAReport) {
  SanitizerDir dir;
  const MemcheckRequest r = RequestIn(dir, dir.StandIn(kOutOfBoundsReport, "target failed", 1));
  absl::StatusOr<MemcheckRun> run = RunMemcheck(r, nullptr);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->report.errors, 2);
  EXPECT_GE(run->seconds, 0);
}

TEST(RunMemcheck, PassesACleanRun) {
  SanitizerDir dir;
  const MemcheckRequest r =
      RequestIn(dir, dir.StandIn("========= ERROR SUMMARY: 0 errors\n", "checked", 0));
  absl::StatusOr<MemcheckRun> run = RunMemcheck(r, nullptr);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->report.errors, 0);
}

TEST(RunMemcheck, ATargetThatFailsWithoutAMemoryErrorGivesNoVerdict) {
  SanitizerDir dir;
  const MemcheckRequest r = RequestIn(
      dir, dir.StandIn("========= ERROR SUMMARY: 0 errors\n", "correctness: @mine differs", 1));
  absl::StatusOr<MemcheckRun> run = RunMemcheck(r, nullptr);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(run.status().message());
  EXPECT_NE(message.find("exit code 1 with no memory error"), std::string::npos) << message;
  EXPECT_NE(message.find("correctness: @mine differs"), std::string::npos) << message;
}

TEST(RunMemcheck, AReportWithoutSummaryGivesNoVerdict) {
  SanitizerDir dir;
  const MemcheckRequest r = RequestIn(dir, dir.StandIn("========= COMPUTE-SANITIZER\n", "", 0));
  absl::StatusOr<MemcheckRun> run = RunMemcheck(r, nullptr);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(run.status().message().find("before memcheck's summary"), std::string::npos)
      << run.status();
}

TEST(FindSanitizer, NamesTheFieldTheVariableAndWhereItLooked) {
  SanitizerSearch search;
  search.path_env = "/nonexistent/a";
  search.fallbacks = {"/nonexistent/cuda/bin/compute-sanitizer"};
  absl::StatusOr<std::string> r = FindTool(search);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(r.status().message());
  EXPECT_EQ(message.rfind("sanitize: compute-sanitizer not found (looked in "
                          "KBENCH_COMPUTE_SANITIZER (unset), PATH: /nonexistent/a, "
                          "/nonexistent/cuda/bin/compute-sanitizer)",
                          0),
            0u)
      << message;
}

TEST(FindSanitizer, TakesTheExplicitPath) {
  SanitizerDir dir;
  SanitizerSearch search;
  search.explicit_path = dir.StandIn("", "", 0);
  search.path_env = "/nonexistent";
  absl::StatusOr<std::string> r = FindTool(search);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, search.explicit_path);
}

}  // namespace
}  // namespace kbench::executor::profile
