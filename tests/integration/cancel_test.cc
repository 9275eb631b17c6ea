// Integration: cancelling queued and running jobs, and what cannot be cancelled.
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

grpc::Status Cancel(Daemon& d, const std::string& id, v1::Job* job) {
  grpc::ClientContext ctx;
  v1::CancelJobRequest req;
  req.set_job_id(id);
  v1::CancelJobResponse resp;
  const grpc::Status s = d.stub().CancelJob(&ctx, req, &resp);
  if (job != nullptr) *job = resp.job();
  return s;
}

TEST(CancelJob, CancelsQueuedAndRunningJobs) {
  TempDir dir;
  Daemon daemon(dir.path());
  absl::StatusOr<v1::Job> running = Submit(daemon.stub(), LongCpuSpec(60));
  absl::StatusOr<v1::Job> queued = Submit(daemon.stub(), QuickCpuSpec());
  ASSERT_TRUE(running.ok() && queued.ok());
  WaitFor(daemon.stub(), running->id(),
          [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });

  v1::Job job;
  ASSERT_TRUE(Cancel(daemon, queued->id(), &job).ok());
  EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(job.start_time().seconds(), 0);  // it never ran

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Cancel(daemon, running->id(), &job).ok());
  EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED) << job.error();
  // The sampler notices between samples: far sooner than the job's 60 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  // The device is free again: the next job runs to completion.
  absl::StatusOr<v1::Job> next = Submit(daemon.stub(), QuickCpuSpec());
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(WatchToEnd(daemon.stub(), next->id()).back().state(), v1::JOB_STATE_SUCCEEDED);
}

TEST(CancelJob, RejectsFinishedAndUnknownJobs) {
  TempDir dir;
  Daemon daemon(dir.path());
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), QuickCpuSpec());
  ASSERT_TRUE(job.ok());
  WatchToEnd(daemon.stub(), job->id());
  grpc::Status s = Cancel(daemon, job->id(), nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("succeeded"), std::string::npos) << s.error_message();
  s = Cancel(daemon, "j-doesnotexist", nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("j-doesnotexist"), std::string::npos) << s.error_message();
}

}  // namespace
}  // namespace kbench::testing
