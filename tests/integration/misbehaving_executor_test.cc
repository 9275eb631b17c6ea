// A real kbenchd whose executor misbehaves on command (tests/integration/misbehaving_executor.cc,
// passed with --executor-path): each failure — a hang, an exit mid-job, a garbage frame, an
// oversized frame, half a frame — fails only the job that met it, with an error naming the
// cause, and the next job on the same device succeeds on a fresh executor.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "tests/integration/daemon.h"
#include "tests/integration/misbehaviour.h"

namespace kbench::testing {
namespace {

class MisbehavingExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A hung job is killed 1 s after its own 1 s timeout instead of the default 300 s slack.
    daemon_ = std::make_unique<Daemon>(
        dir_.path(),
        std::vector<std::string>{"--no-cuda", "--executor-path", MISBEHAVING_EXECUTOR_PATH,
                                 "--executor-hang-slack", "1"});
  }

  v1::Job RunToEnd(uint64_t seed) {
    v1::JobSpec spec = QuickCpuSpec();
    spec.set_seed(seed);
    spec.mutable_stopping()->set_timeout_seconds(1);
    absl::StatusOr<v1::Job> job = Submit(daemon_->stub(), spec);
    EXPECT_TRUE(job.ok()) << job.status();
    if (!job.ok()) return {};
    return WaitFor(daemon_->stub(), job->id(),
                   [](const v1::Job& j) { return IsTerminal(j.state()); });
  }

  // The misbehaving job fails naming `cause`; the next one succeeds.
  void ExpectOnlyThatJobFails(Misbehaviour misbehaviour, const std::string& cause) {
    const v1::Job bad = RunToEnd(static_cast<uint64_t>(misbehaviour));
    EXPECT_EQ(bad.state(), v1::JOB_STATE_FAILED);
    EXPECT_NE(bad.error().find(cause), std::string::npos) << bad.error();
    // Whatever the end, the run's work directory does not outlive it. The worker removes it
    // just after writing the terminal state (the artifacts were moved out first), so a client
    // may see the state a moment before the directory is gone: allow that moment, not more.
    const std::filesystem::path work = std::filesystem::path(dir_.path()) / "work" / bad.id();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::filesystem::exists(work) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(std::filesystem::exists(work)) << "work/" << bad.id() << " left behind";
    const v1::Job next = RunToEnd(1);
    EXPECT_EQ(next.state(), v1::JOB_STATE_SUCCEEDED) << next.error();
  }

  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(MisbehavingExecutorTest, HungExecutorIsKilledAndOnlyItsJobFails) {
  ExpectOnlyThatJobFails(Misbehaviour::kHang, "hung");
}

TEST_F(MisbehavingExecutorTest, ExecutorExitingMidJobFailsOnlyThatJob) {
  ExpectOnlyThatJobFails(Misbehaviour::kExit, "died while running the job");
}

TEST_F(MisbehavingExecutorTest, GarbageFrameFailsOnlyThatJob) {
  ExpectOnlyThatJobFails(Misbehaviour::kGarbageFrame, "malformed message");
}

TEST_F(MisbehavingExecutorTest, OversizedFrameFailsOnlyThatJob) {
  ExpectOnlyThatJobFails(Misbehaviour::kOversizedFrame, "exceeds the limit");
}

TEST_F(MisbehavingExecutorTest, TruncatedFrameFailsOnlyThatJob) {
  ExpectOnlyThatJobFails(Misbehaviour::kTruncatedFrame, "truncated message");
}

TEST_F(MisbehavingExecutorTest, EveryFailureInARowLeavesTheDaemonServing) {
  for (Misbehaviour m : {Misbehaviour::kExit, Misbehaviour::kGarbageFrame,
                         Misbehaviour::kOversizedFrame, Misbehaviour::kTruncatedFrame}) {
    EXPECT_EQ(RunToEnd(static_cast<uint64_t>(m)).state(), v1::JOB_STATE_FAILED);
  }
  EXPECT_EQ(RunToEnd(1).state(), v1::JOB_STATE_SUCCEEDED);
}

}  // namespace
}  // namespace kbench::testing
