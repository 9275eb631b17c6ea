// The job state machine on a disk that refuses writes (the failing test VFS under a
// ResilientJobStore): a job's end still reaches its watchers, a job that cannot be started stays
// queued, and submits are refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/scheduler/job_lifecycle.h"
#include "server/store/resilient_job_store.h"
#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/store/failing_vfs.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::RecordingMetrics;
using ::kbench::scheduler::testing::SimulatedClock;
using store::JobState;
using store::testing::FailingVfs;
using store::testing::ScopedFullDisk;

class FullDiskTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    FailingVfs::Install();
    auto opened = store::JobStore::Open(data_dir_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    jobs_ = std::make_unique<store::ResilientJobStore>(
        *std::move(opened), store::WriteRetryPolicy{2, absl::Milliseconds(1)});
    lifecycle_ = std::make_unique<JobLifecycle>(jobs_.get(), &metrics_, &events_, &clock_);
  }

  store::JobRecord Created() {
    store::JobRecord r;
    r.id = "job-1";
    r.device = "cpu";
    auto created = lifecycle_->Create(r);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->first : r;
  }

  SimulatedClock clock_;
  RecordingMetrics metrics_;
  JobEvents events_;
  std::unique_ptr<store::ResilientJobStore> jobs_;
  std::unique_ptr<JobLifecycle> lifecycle_;
};

TEST_F(FullDiskTest, WatchersSeeTheEndOfAJobWhoseTerminalStateCannotBeWritten) {
  const store::JobRecord job = Created();
  ASSERT_TRUE(lifecycle_->Start(job.id).ok());
  const uint64_t seen = events_.Version(job.id);
  ScopedFullDisk full;
  lifecycle_->Finish(job, JobEnd::Failed(absl::StatusCode::kInternal, "the kernel faulted"));
  EXPECT_NE(events_.Version(job.id), seen) << "watchers were not woken";
  absl::StatusOr<store::JobRecord> now = lifecycle_->Get(job.id);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->state, JobState::kFailed);
  EXPECT_EQ(now->error, "the kernel faulted");
}

TEST_F(FullDiskTest, SubmitsAreRefusedUntilTheDiskTakesWritesAgain) {
  {
    ScopedFullDisk full;
    store::JobRecord r;
    r.id = "job-2";
    r.device = "cpu";
    EXPECT_EQ(lifecycle_->Create(r).status().code(), absl::StatusCode::kResourceExhausted);
  }
  Created();
  EXPECT_TRUE(jobs_->Writable());
}

TEST_F(FullDiskTest, AJobWhoseStartIsRefusedStaysQueued) {
  const store::JobRecord job = Created();
  {
    ScopedFullDisk full;
    absl::StatusOr<store::JobRecord> started = lifecycle_->Start(job.id);
    EXPECT_EQ(started.status().code(), absl::StatusCode::kResourceExhausted) << started.status();
    // The scheduler puts it back in its place (device_worker.cc) and tries again later.
    EXPECT_EQ(lifecycle_->Get(job.id)->state, JobState::kQueued);
  }
  ASSERT_TRUE(lifecycle_->Start(job.id).ok());
}

}  // namespace
}  // namespace kbench::scheduler
