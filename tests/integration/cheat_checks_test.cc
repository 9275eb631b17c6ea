// Integration: the checks a cheating kernel cannot pass (issue 10, item 5), end to end through a
// real kbenchd on the cpu device. A correct variant still succeeds and its result says what was
// checked (seeds, floor); each cheat of tests/integration/cheating_executor_main.cc, run by a
// kbenchd started with --executor-path, fails its job with the reason.
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

// A softmax on the cpu device's host variant, quick to check and to sample.
v1::JobSpec SoftmaxSpec(int64_t rows, int64_t cols, v1::MeasureMode mode) {
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_kernel("softmax");
  spec.clear_variants();
  spec.add_variants("host_rowwise");
  spec.clear_shape();
  spec.add_shape(rows);
  spec.add_shape(cols);
  spec.set_mode(mode);
  spec.set_seed(42);
  return spec;
}

TEST(CheatChecks, ACorrectVariantSucceedsAndItsResultSaysWhatWasChecked) {
  TempDir dir;
  Daemon daemon(dir.path());
  // Cold: the host's caches are flushed, so the copy-bandwidth floor applies.
  const v1::Job job = RunToEnd(daemon, SoftmaxSpec(512, 512, v1::MEASURE_MODE_COLD));
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  const v1::Environment& env = job.result().environment();
  EXPECT_EQ(env.seed(), 42u);
  EXPECT_NE(env.check_seed(), 0u);
  EXPECT_NE(env.check_seed(), 42u);
  EXPECT_NE(env.timed_check_seed(), 0u);
  const v1::VariantResult& v = job.result().variants(0);
  EXPECT_TRUE(v.correctness().passed()) << v.correctness().detail();
  EXPECT_EQ(v.correctness().input_seed(), env.check_seed());
  EXPECT_TRUE(v.timed_correctness().passed()) << v.timed_correctness().detail();
  EXPECT_EQ(v.timed_correctness().input_seed(), env.timed_check_seed());
  EXPECT_EQ(v.correctness().output_defect(), v1::OUTPUT_DEFECT_UNSPECIFIED);
  EXPECT_TRUE(v.floor().judged()) << v.floor().detail();
  EXPECT_EQ(v.floor().basis(), v1::FLOOR_BASIS_COPY_BANDWIDTH);
  EXPECT_FALSE(v.floor().impossible()) << v.floor().detail();
  EXPECT_GT(v.floor().floor_seconds(), 0);
  EXPECT_DOUBLE_EQ(v.floor().median_seconds(), v.stats().median_seconds());
}

TEST(CheatChecks, ACorrectHotVariantOnTheCpuIsNotJudgedAgainstAFloor) {
  // The host's caches have no measured size or bandwidth: hot mode is never called impossible.
  TempDir dir;
  Daemon daemon(dir.path());
  const v1::Job job = RunToEnd(daemon, SoftmaxSpec(64, 64, v1::MEASURE_MODE_HOT));
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  EXPECT_FALSE(job.result().variants(0).floor().judged());
}

// A kbenchd whose cpu executor runs the cheat `cheat` as softmax/host_rowwise.
class CheatingDaemon {
 public:
  explicit CheatingDaemon(const char* cheat) {
    setenv("KBENCH_TEST_CHEAT", cheat, 1);
    daemon_ = std::make_unique<Daemon>(
        dir_.path(), std::vector<std::string>{"--executor-path", CHEATING_EXECUTOR_PATH});
    unsetenv("KBENCH_TEST_CHEAT");
  }
  Daemon& daemon() { return *daemon_; }

 private:
  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

void ExpectFailsWith(const char* cheat, const v1::JobSpec& spec, const std::string& reason) {
  CheatingDaemon cheating(cheat);
  const v1::Job job = RunToEnd(cheating.daemon(), spec);
  EXPECT_EQ(job.state(), v1::JOB_STATE_FAILED) << cheat;
  EXPECT_TRUE(absl::StrContains(job.error(), reason)) << cheat << ": " << job.error();
}

TEST(CheatChecks, AVariantThatWritesZerosFails) {
  ExpectFailsWith("zeros", SoftmaxSpec(64, 64, v1::MEASURE_MODE_HOT),
                  "softmax/host_rowwise does not match the float64 reference: output is all "
                  "zeros but the reference is not");
}

TEST(CheatChecks, AVariantThatWritesAConstantFails) {
  ExpectFailsWith("constant", SoftmaxSpec(64, 64, v1::MEASURE_MODE_HOT),
                  "output is the constant 0.125 in all 4096 elements but the reference is not");
}

TEST(CheatChecks, AVariantThatCopiesItsInputFails) {
  ExpectFailsWith("copy", SoftmaxSpec(64, 64, v1::MEASURE_MODE_HOT),
                  "output is a copy of input 0 but the reference is not");
}

// The timed samples are checked themselves (issue 23): a sealed sample catches these first.
TEST(CheatChecks, AVariantThatReplaysItsFirstResultFailsOnItsTimedSamples) {
  ExpectFailsWith("replay", SoftmaxSpec(64, 64, v1::MEASURE_MODE_HOT),
                  "of softmax/host_rowwise does not match its reference (inputs of its own");
}

TEST(CheatChecks, AVariantThatSkipsWorkWhileTimedFailsItsSealedSamples) {
  // Correct whenever its output was poisoned with NaN (the announced checks), idle otherwise:
  // 8 MB that no host moves in the nanoseconds it takes, so the floor would fail it too; the
  // sealed samples' output pattern, left in place, fails it first and says why.
  v1::JobSpec spec = SoftmaxSpec(1024, 1024, v1::MEASURE_MODE_COLD);
  spec.mutable_stopping()->set_min_time_seconds(1e-9);
  ExpectFailsWith("skip_when_written", spec, "still held the sample's output pattern");
}

}  // namespace
}  // namespace kbench::testing
