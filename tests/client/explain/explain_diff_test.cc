// `kbctl diff --explain` driving a scripted server (tests/client/fake_kbench_server.h) through
// what a GPU host without Nsight Compute answers: each profile asked with ncu fails with
// FAILED_PRECONDITION, the CUPTI-only one succeeds, and the compile jobs give the SASS. The cpu
// device's answer comes from a real kbenchd: tests/integration/explain_test.cc.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/fake_kbench_server.h"
#include "tests/client/run_kbctl.h"

namespace kbench::client {
namespace {

using testing::FakeKbenchServer;

constexpr char kSpilling[] = "-maxrregcount=32";

bool Spills(const v1::JobSpec& spec) {
  for (const v1::UserKernel& uk : spec.user_kernels()) {
    for (const std::string& o : uk.options()) {
      if (o == kSpilling) return true;
    }
  }
  return false;
}

// A benchmark of `add` by a user kernel on cuda:0, its samples around `median`.
v1::Job UserKernelBenchmark(const std::string& id, double median, bool spilling) {
  v1::Job job;
  job.set_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_device("cuda:0");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_kind(v1::JOB_KIND_BENCHMARK);
  spec->set_kernel("add");
  spec->add_variants("@user");
  spec->add_shape(1 << 24);
  spec->set_device("cuda:0");
  v1::UserKernel* uk = spec->add_user_kernels();
  uk->set_name("@user");
  uk->set_entry("add_blocked");
  if (spilling) uk->add_options(kSpilling);
  v1::VariantResult* v = job.mutable_result()->add_variants();
  v->set_variant("@user");
  for (int i = 0; i < 50; ++i) v->add_sample_seconds(median * (1 + 1e-3 * (i % 7)));
  v->mutable_stats()->set_median_seconds(median);
  return job;
}

// What a host without ncu answers: profile jobs that ask for it fail, the others succeed with
// one kernel whose resources follow the build options; compile jobs have SASS.
std::vector<v1::Job> GpuHostWithoutNcu(const v1::Job& submitted) {
  v1::Job done = submitted;
  done.set_state(v1::JOB_STATE_SUCCEEDED);
  const v1::JobSpec& spec = submitted.spec();
  if (spec.kind() == v1::JOB_KIND_COMPILE) {
    done.mutable_result()->mutable_compile()->set_sass_available(true);
  } else if (spec.profile().ncu()) {
    done.set_state(v1::JOB_STATE_FAILED);
    done.set_error("profile.ncu: ncu not found (looked in /usr/local/cuda/bin/ncu)");
    done.set_error_code("FAILED_PRECONDITION");
  } else {
    v1::ProfileKernelRow* row = done.mutable_result()->mutable_profile()->add_kernels();
    row->set_name("add_blocked");
    row->set_calls(10);
    row->set_mean_seconds(Spills(spec) ? 130e-6 : 100e-6);
    row->set_total_seconds(10 * row->mean_seconds());
    row->set_registers_per_thread(Spills(spec) ? 32 : 64);
    row->set_local_bytes_per_thread(Spills(spec) ? 24 : 0);
  }
  return {done};
}

class DiffExplain : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.AddJob(UserKernelBenchmark("a", 1e-3, false));
    server_.AddJob(UserKernelBenchmark("b", 30e-3, true));
    server_.set_script(GpuHostWithoutNcu);
    // The jobs --explain submits are job-1... in order: the baseline's profile with ncu, without,
    // its compile; then the candidate's.
    server_.AddArtifact("job-3", "sass.txt", "/*0000*/ FFMA R1, R2, R3, R4 ;\n/*0010*/ EXIT ;\n");
    server_.AddArtifact("job-6", "sass.txt",
                        "/*0000*/ STL [R1], R2 ;\n/*0010*/ STL [R1+0x4], R3 ;\n"
                        "/*0020*/ LDL R2, [R1] ;\n/*0030*/ EXIT ;\n");
  }
  Result Diff(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--server", server_.address(),   "diff", "a",
                                     "b",        "--no-history-noise"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Kbctl(args);
  }

  FakeKbenchServer server_;
};

TEST_F(DiffExplain, ProfilesWithoutNcuWhereItIsMissingAndSaysSo) {
  const Result r = Diff({"--explain"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SLOWER"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nWhy @user is SLOWER (+2900 %): profiles job-2 and job-5\n"
                       "  spills 0 → 24 B in add_blocked; registers 64 → 32 "
                       "(time +30 %, 100.0 us → 130.0 us a call)\n"
                       "  SASS: +2 STL, -1 FFMA, +1 LDL\n"
                       "  Not measured: Nsight Compute on the baseline (job job-1 "
                       "JOB_STATE_FAILED: profile.ncu: ncu not found (looked in "
                       "/usr/local/cuda/bin/ncu))\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("no Nsight Compute metrics in either profile"), std::string::npos) << r.out;

  const std::vector<v1::SubmitJobRequest> submits = server_.submits();
  ASSERT_EQ(submits.size(), 6u);
  EXPECT_TRUE(submits[0].spec().profile().ncu());
  EXPECT_FALSE(submits[1].spec().profile().ncu());
  EXPECT_EQ(submits[2].spec().kind(), v1::JOB_KIND_COMPILE);
  for (const v1::SubmitJobRequest& s : submits) {
    EXPECT_EQ(s.spec().device(), "cuda:0");
    ASSERT_EQ(s.spec().user_kernels_size(), 1);
  }
  EXPECT_TRUE(Spills(submits[4].spec()));  // the candidate's own build
}

TEST_F(DiffExplain, PrintsTheExplanationInTheJsonDocument) {
  const Result r = Diff({"--explain", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["comparison"]["variants"][0]["verdict"], "VERDICT_SLOWER");
  const nlohmann::json& e = doc["explanations"][0];
  EXPECT_EQ(e["baseline_profile_job_id"], "job-2");
  EXPECT_EQ(e["candidate_profile_job_id"], "job-5");
  ASSERT_EQ(e["changes"].size(), 2u) << r.out;
  EXPECT_EQ(e["changes"][0]["quantity"], "local_bytes_per_thread");
  EXPECT_EQ(e["changes"][1]["quantity"], "registers");
  ASSERT_EQ(e["sass_changes"].size(), 3u) << r.out;
  EXPECT_EQ(e["sass_changes"][0]["opcode"], "STL");
  EXPECT_EQ(e["not_measured"].size(), 3u) << r.out;
}

TEST_F(DiffExplain, KeepsTheFailOnExitCode) {
  const Result r = Diff({"--explain", "--fail-on", "slower"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("Why @user is SLOWER"), std::string::npos) << r.out;
}

TEST_F(DiffExplain, SaysWhySassIsMissingWhenTheArtifactCannotBeRead) {
  FakeKbenchServer server;
  server.AddJob(UserKernelBenchmark("a", 1e-3, false));
  server.AddJob(UserKernelBenchmark("b", 30e-3, true));
  server.set_script(GpuHostWithoutNcu);  // no sass.txt registered for the compile jobs
  const Result r =
      Kbctl({"--server", server.address(), "diff", "a", "b", "--no-history-noise", "--explain"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Not measured: SASS of the baseline: name: job \"job-3\" has no artifact "
                       "\"sass.txt\""),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("SASS: "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kbench::client
