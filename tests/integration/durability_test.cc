// Integration: nothing accepted is lost — queued jobs survive SIGTERM and SIGKILL, a job running
// when the daemon died is re-queued once, then failed; an executor killed mid-job fails that
// job with the cause and a fresh executor runs the next.
#include <signal.h>
#include <sys/wait.h>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

const auto kRunning = [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; };
const auto kTerminal = [](const v1::Job& j) { return IsTerminal(j.state()); };

class DurabilityTest : public ::testing::TestWithParam<int> {};

TEST_P(DurabilityTest, QueuedAndRunningJobsSurviveARestart) {
  TempDir dir;
  std::string running_id;
  std::vector<std::string> queued_ids;
  {
    Daemon daemon(dir.path());
    // Long enough that the stop lands while it runs; the test synchronises on RUNNING below.
    absl::StatusOr<v1::Job> running = Submit(daemon.stub(), LongCpuSpec(5.0));
    ASSERT_TRUE(running.ok());
    running_id = running->id();
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<v1::Job> q = Submit(daemon.stub(), QuickCpuSpec());
      ASSERT_TRUE(q.ok());
      queued_ids.push_back(q->id());
    }
    ASSERT_EQ(WaitFor(daemon.stub(), running_id, kRunning).state(), v1::JOB_STATE_RUNNING);
    daemon.Stop(GetParam());
  }
  Daemon again(dir.path());
  const v1::Job first = WaitFor(again.stub(), running_id, kTerminal);
  EXPECT_EQ(first.state(), v1::JOB_STATE_SUCCEEDED) << first.error();
  EXPECT_EQ(first.attempts(), 2);
  for (const std::string& id : queued_ids) {
    const v1::Job j = WaitFor(again.stub(), id, kTerminal);
    EXPECT_EQ(j.state(), v1::JOB_STATE_SUCCEEDED) << j.error();
    EXPECT_EQ(j.attempts(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, DurabilityTest, ::testing::Values(SIGTERM, SIGKILL),
                         [](const auto& info) {
                           return info.param == SIGTERM ? "SIGTERM" : "SIGKILL";
                         });

TEST(Durability, ExitsCleanlyOnSigtermWithAJobRunning) {
  TempDir dir;
  Daemon daemon(dir.path());
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), LongCpuSpec(30));
  ASSERT_TRUE(job.ok());
  WaitFor(daemon.stub(), job->id(), kRunning);
  const int status = daemon.Stop(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << "kbenchd did not exit by itself; wait status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Durability, JobRunningAtTwoCrashesIsFailedWithTheReason) {
  TempDir dir;
  std::string id;
  {
    Daemon daemon(dir.path());
    absl::StatusOr<v1::Job> job = Submit(daemon.stub(), LongCpuSpec(60));
    ASSERT_TRUE(job.ok());
    id = job->id();
    WaitFor(daemon.stub(), id, kRunning);
    daemon.Stop(SIGKILL);
  }
  {
    Daemon daemon(dir.path());
    const v1::Job j = WaitFor(daemon.stub(), id, [](const v1::Job& j) {
      return j.state() == v1::JOB_STATE_RUNNING && j.attempts() == 2;
    });
    EXPECT_EQ(j.attempts(), 2);
    daemon.Stop(SIGKILL);
  }
  Daemon daemon(dir.path());
  const v1::Job j = WaitFor(daemon.stub(), id, kTerminal);
  EXPECT_EQ(j.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(j.error().find("daemon stopped while this job was running"), std::string::npos)
      << j.error();
}

TEST(Durability, ExecutorKilledMidJobFailsThatJobAndTheNextRuns) {
  TempDir dir;
  Daemon daemon(dir.path());
  absl::StatusOr<v1::Job> victim = Submit(daemon.stub(), LongCpuSpec(60));
  absl::StatusOr<v1::Job> next = Submit(daemon.stub(), QuickCpuSpec());
  ASSERT_TRUE(victim.ok() && next.ok());
  WaitFor(daemon.stub(), victim->id(), kRunning);
  const std::vector<pid_t> executors = daemon.ChildPids("--device cpu");
  ASSERT_EQ(executors.size(), 1u);
  kill(executors[0], SIGKILL);

  const v1::Job failed = WaitFor(daemon.stub(), victim->id(), kTerminal);
  EXPECT_EQ(failed.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(failed.error().find("signal 9"), std::string::npos) << failed.error();
  const v1::Job ok = WaitFor(daemon.stub(), next->id(), kTerminal);
  EXPECT_EQ(ok.state(), v1::JOB_STATE_SUCCEEDED) << ok.error();

  grpc::ClientContext ctx;
  v1::ListDevicesRequest req;
  v1::ListDevicesResponse resp;
  ASSERT_TRUE(daemon.stub().ListDevices(&ctx, req, &resp).ok());
  ASSERT_GE(resp.devices_size(), 1);
  EXPECT_EQ(resp.devices(0).id(), "cpu");
  EXPECT_EQ(resp.devices(0).executor_restarts(), 1);
}

}  // namespace
}  // namespace kbench::testing
