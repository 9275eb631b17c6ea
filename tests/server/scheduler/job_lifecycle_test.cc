// Every transition of the job state machine, against a real store.
#include "server/scheduler/job_lifecycle.h"

#include <gtest/gtest.h>

#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::RecordingMetrics;
using ::kbench::scheduler::testing::SimulatedClock;
using store::JobState;

class JobLifecycleTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    jobs_ = *store::JobStore::Open(data_dir_);
    lifecycle_ = std::make_unique<JobLifecycle>(jobs_.get(), &metrics_, &events_, &clock_);
  }
  store::JobRecord New(const std::string& key = "") {
    store::JobRecord r;
    r.id = absl::StrCat("job-", ++n_);
    r.device = "cpu";
    r.idempotency_key = key;
    return r;
  }
  JobState StateOf(const std::string& id) { return jobs_->Get(id)->state; }

  SimulatedClock clock_;
  RecordingMetrics metrics_;
  JobEvents events_;
  std::unique_ptr<store::JobStore> jobs_;
  std::unique_ptr<JobLifecycle> lifecycle_;
  int n_ = 0;
};

TEST_F(JobLifecycleTest, CreateQueuesAndPublishes) {
  auto created = lifecycle_->Create(New());
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->second);
  EXPECT_EQ(StateOf(created->first.id), JobState::kQueued);
  EXPECT_EQ(created->first.create_time_ns, absl::ToUnixNanos(clock_.Now()));
  EXPECT_GT(events_.Version(created->first.id), 0u);
}

TEST_F(JobLifecycleTest, CreateWithAUsedKeyReturnsTheEarlierJob) {
  const auto first = lifecycle_->Create(New("k"));
  const auto again = lifecycle_->Create(New("k"));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->second);
  EXPECT_EQ(again->first.id, first->first.id);
}

TEST_F(JobLifecycleTest, StartMarksAQueuedJobRunningOnce) {
  const std::string id = lifecycle_->Create(New())->first.id;
  auto running = lifecycle_->Start(id);
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->state, JobState::kRunning);
  EXPECT_EQ(running->attempts, 1);
  EXPECT_EQ(lifecycle_->Start(id).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(JobLifecycleTest, FinishWritesTheEndAndCountsItOnce) {
  const store::JobRecord r = lifecycle_->Create(New())->first;
  ASSERT_TRUE(lifecycle_->Start(r.id).ok());
  lifecycle_->Finish(r, JobEnd::Failed(absl::StatusCode::kResourceExhausted, "too big"),
                     absl::Seconds(2));
  const store::JobRecord done = *jobs_->Get(r.id);
  EXPECT_EQ(done.state, JobState::kFailed);
  EXPECT_EQ(done.code, absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(done.error, "too big");
  lifecycle_->Finish(r, JobEnd::Succeeded(""));  // a late second finisher changes nothing
  EXPECT_EQ(StateOf(r.id), JobState::kFailed);
  EXPECT_EQ(metrics_.Finished(), std::vector<std::string>{"failed"});
  EXPECT_EQ(metrics_.RunDurations(), 1);
}

TEST_F(JobLifecycleTest, FinishCancelsAQueuedJob) {
  const store::JobRecord r = lifecycle_->Create(New())->first;
  lifecycle_->Finish(r, JobEnd::Cancelled("cancelled while queued"));
  EXPECT_EQ(StateOf(r.id), JobState::kCancelled);
  EXPECT_EQ(jobs_->Get(r.id)->code, absl::StatusCode::kCancelled);
}

TEST_F(JobLifecycleTest, RequeuePutsARunningJobBack) {
  const std::string id = lifecycle_->Create(New())->first.id;
  ASSERT_TRUE(lifecycle_->Start(id).ok());
  ASSERT_TRUE(lifecycle_->Requeue(id).ok());
  EXPECT_EQ(StateOf(id), JobState::kQueued);
  EXPECT_EQ(jobs_->Get(id)->attempts, 1);
}

TEST_F(JobLifecycleTest, RecoverRequeuesARunningJobOnceThenFailsIt) {
  const std::string id = lifecycle_->Create(New())->first.id;
  ASSERT_TRUE(lifecycle_->Start(id).ok());
  auto queued = lifecycle_->Recover();  // first crash under it
  ASSERT_TRUE(queued.ok());
  ASSERT_EQ(queued->size(), 1u);
  EXPECT_EQ((*queued)[0].id, id);
  ASSERT_TRUE(lifecycle_->Start(id).ok());
  queued = lifecycle_->Recover();  // second crash under it
  ASSERT_TRUE(queued.ok());
  EXPECT_TRUE(queued->empty());
  EXPECT_EQ(StateOf(id), JobState::kFailed);
  EXPECT_EQ(jobs_->Get(id)->code, absl::StatusCode::kAborted);
}

}  // namespace
}  // namespace kbench::scheduler
