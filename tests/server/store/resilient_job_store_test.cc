// Tests of the store's write path on a disk that refuses writes (a test VFS fails them on
// request): terminal states kept in memory and written later, submits refused with
// UNAVAILABLE, recovery once the disk takes writes again.
#include "server/store/resilient_job_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "tests/server/store/failing_vfs.h"
#include "tests/server/store/result_rows.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::store {
namespace {

using testing::FailingVfs;
using ::testing::HasSubstr;
using testing::ScopedFullDisk;

class ResilientJobStoreTest : public testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    FailingVfs::Install();
    store_ = Open();
  }

  std::unique_ptr<ResilientJobStore> Open() {
    absl::StatusOr<std::unique_ptr<JobStore>> inner = JobStore::Open(data_dir_);
    EXPECT_TRUE(inner.ok()) << inner.status();
    if (!inner.ok()) return nullptr;
    held_ = std::make_unique<HeldWrites>(data_dir_ + "/held");
    EXPECT_TRUE(held_->Load().ok());
    return std::make_unique<ResilientJobStore>(*std::move(inner),
                                               WriteRetryPolicy{2, absl::Milliseconds(1)},
                                               StoreWhereabouts{data_dir_, ""}, held_.get());
  }

  static JobRecord NewJob(const std::string& id) {
    JobRecord job;
    job.id = id;
    job.device = "cpu";
    job.kernel = "square";
    job.create_time_ns = 1'700'000'000'000'000'000;
    job.spec = "spec-" + id;
    return job;
  }

  void InsertRunning(const std::string& id) {
    absl::StatusOr<std::pair<JobRecord, bool>> inserted = store_->Insert(NewJob(id));
    ASSERT_TRUE(inserted.ok()) << inserted.status();
    ASSERT_TRUE(store_->MarkRunning(id, 1).ok());
  }

  std::unique_ptr<HeldWrites> held_;
  std::unique_ptr<ResilientJobStore> store_;
};

TEST_F(ResilientJobStoreTest, KeepsTerminalStateInMemoryWhenTheDiskRefusesIt) {
  InsertRunning("j1");
  {
    ScopedFullDisk full;
    const int refused = FailingVfs::RefusedWrites();
    ASSERT_TRUE(
        store_->Finish("j1", JobState::kFailed, absl::StatusCode::kInternal, "boom", "", 7).ok());
    EXPECT_GT(FailingVfs::RefusedWrites(), refused) << "the disk was never asked";
    absl::StatusOr<JobRecord> job = store_->Get("j1");
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->state, JobState::kFailed);
    EXPECT_EQ(job->error, "boom");
    EXPECT_FALSE(store_->Writable());
    EXPECT_EQ(store_->PendingWrites(), 1);
  }
  // Nothing on disk yet: a second connection still reads RUNNING.
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kRunning);
}

TEST_F(ResilientJobStoreTest, WritesKeptStatesOnceTheDiskTakesWritesAgain) {
  InsertRunning("j1");
  {
    ScopedFullDisk full;
    ASSERT_TRUE(
        store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "result", 7).ok());
    EXPECT_EQ(store_->RetryPendingWrites().code(), absl::StatusCode::kResourceExhausted);
  }
  ASSERT_TRUE(store_->RetryPendingWrites().ok());
  EXPECT_TRUE(store_->Writable());
  EXPECT_EQ(store_->PendingWrites(), 0);
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok()) << raw.status();
  absl::StatusOr<JobRecord> job = (*raw)->Get("j1");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, JobState::kSucceeded);
  EXPECT_EQ(job->result, "result");
  EXPECT_EQ(job->finish_time_ns, 7);
}

TEST_F(ResilientJobStoreTest, RefusesSubmitsNamingTheDataDirectoryWhileTheDiskIsFull) {
  {
    ScopedFullDisk full;
    absl::StatusOr<std::pair<JobRecord, bool>> refused = store_->Insert(NewJob("j1"));
    ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
    EXPECT_THAT(refused.status().message(),
                HasSubstr("the data directory " + data_dir_ + " is full"));
    EXPECT_THAT(refused.status().message(), HasSubstr("free at least 4 MiB there"));
    EXPECT_FALSE(store_->Writable());
  }
  // Space came back: the next submit goes through and the store says so.
  absl::StatusOr<std::pair<JobRecord, bool>> accepted = store_->Insert(NewJob("j1"));
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_TRUE(accepted->second);
  EXPECT_TRUE(store_->Writable());
}

// Issue 28: each refused write is told to the daemon (kbench_store_write_failures_total) with
// its reason, a full disk as RESOURCE_EXHAUSTED; writes that go through, and heartbeats that
// found the database away, are not.
TEST_F(ResilientJobStoreTest, TellsEachRefusedWriteWithItsReason) {
  std::vector<absl::StatusCode> refused;
  store_->OnWriteRefused([&refused](const absl::Status& why) { refused.push_back(why.code()); });
  ASSERT_TRUE(store_->Insert(NewJob("j0")).ok());
  {
    ScopedFullDisk full;
    EXPECT_FALSE(store_->Insert(NewJob("j1")).ok());
    EXPECT_FALSE(store_->Insert(NewJob("j2")).ok());
  }
  ASSERT_TRUE(store_->Insert(NewJob("j1")).ok());
  EXPECT_EQ(refused, std::vector<absl::StatusCode>(2, absl::StatusCode::kResourceExhausted));
  // A heartbeat that found the database away (every second of an outage) is no refused write.
  store_->NoteUnreachable(absl::UnavailableError("the database is away"));
  EXPECT_FALSE(store_->Writable());
  EXPECT_EQ(refused.size(), 2u);
}

TEST_F(ResilientJobStoreTest, RefusesSubmitsWhileTerminalStatesWaitInMemory) {
  InsertRunning("j1");
  {
    ScopedFullDisk full;
    ASSERT_TRUE(
        store_->Finish("j1", JobState::kCancelled, absl::StatusCode::kCancelled, "stop", "", 7)
            .ok());
  }
  // The disk takes writes now: the submit first writes the backlog, then itself.
  absl::StatusOr<std::pair<JobRecord, bool>> accepted = store_->Insert(NewJob("j2"));
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(store_->PendingWrites(), 0);
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kCancelled);
}

TEST_F(ResilientJobStoreTest, RefusedStartLeavesTheJobQueued) {
  ASSERT_TRUE(store_->Insert(NewJob("j1")).ok());
  {
    ScopedFullDisk full;
    absl::Status started = store_->MarkRunning("j1", 1);
    EXPECT_EQ(started.code(), absl::StatusCode::kResourceExhausted) << started;
    EXPECT_THAT(started.message(), HasSubstr("the job's start cannot be recorded"));
  }
  EXPECT_EQ(store_->Get("j1")->state, JobState::kQueued);
}

TEST_F(ResilientJobStoreTest, ListsShowTheStateKeptInMemory) {
  InsertRunning("j1");
  {
    ScopedFullDisk full;
    ASSERT_TRUE(
        store_->Finish("j1", JobState::kFailed, absl::StatusCode::kInternal, "boom", "", 7).ok());
  }
  JobFilter running;
  running.state = JobState::kRunning;
  EXPECT_TRUE(store_->List(running)->empty());
  EXPECT_TRUE(store_->ListByState(JobState::kRunning)->empty());
  absl::StatusOr<std::vector<JobRecord>> all = store_->List(JobFilter{});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].state, JobState::kFailed);
}

TEST_F(ResilientJobStoreTest, RefusedTransitionIsNotADiskFailure) {
  InsertRunning("j1");
  ASSERT_TRUE(store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "", 7).ok());
  absl::Status again =
      store_->Finish("j1", JobState::kFailed, absl::StatusCode::kInternal, "x", "", 8);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  EXPECT_TRUE(store_->Writable());
  EXPECT_EQ(store_->PendingWrites(), 0);
}

TEST_F(ResilientJobStoreTest, FinishingAJobKeptInMemoryAgainIsRefused) {
  InsertRunning("j1");
  ScopedFullDisk full;
  ASSERT_TRUE(
      store_->Finish("j1", JobState::kFailed, absl::StatusCode::kInternal, "boom", "", 7).ok());
  EXPECT_EQ(store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "", 8).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->Get("j1")->state, JobState::kFailed);
}

// Durability per write, counted at the file layer: a submit and a terminal state are synced
// before they return; the start and an artifact's record ride on the next synced commit.
TEST_F(ResilientJobStoreTest, SyncsSubmitsAndTerminalStatesOnly) {
  int syncs = FailingVfs::Syncs();
  ASSERT_TRUE(store_->Insert(NewJob("j1")).ok());
  EXPECT_GT(FailingVfs::Syncs(), syncs) << "an acknowledged submit must be on disk";
  syncs = FailingVfs::Syncs();
  ASSERT_TRUE(store_->MarkRunning("j1", 1).ok());
  ArtifactRecord artifact;
  artifact.job_id = "j1";
  artifact.name = "samples.csv";
  artifact.relative_path = "j1/samples.csv";
  artifact.content_type = "text/csv";
  artifact.sha256 = "00";
  ASSERT_TRUE(store_->AddArtifact(artifact).ok());
  EXPECT_EQ(FailingVfs::Syncs(), syncs) << "starting a job and recording an artifact need none";
  ASSERT_TRUE(store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "", 7).ok());
  EXPECT_GT(FailingVfs::Syncs(), syncs) << "a terminal state must be on disk";
  // Still FULL for everything else.
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kSucceeded);
  EXPECT_EQ((*raw)->Artifacts("j1")->size(), 1u);
}

TEST_F(ResilientJobStoreTest, AHeldTerminalStateSurvivesARestartAndIsWrittenThen) {
  InsertRunning("j1");
  {
    ScopedFullDisk full;
    ASSERT_TRUE(
        store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "result", 7).ok());
  }
  store_.reset();  // kbenchd stops before the disk takes the state
  store_ = Open();
  // Recovery must not see it RUNNING (and run it again): the held state is the job's.
  absl::StatusOr<std::vector<JobRecord>> running = store_->ListByState(JobState::kRunning);
  ASSERT_TRUE(running.ok());
  EXPECT_TRUE(running->empty());
  EXPECT_EQ(store_->Get("j1")->state, JobState::kSucceeded);
  ASSERT_TRUE(store_->RetryPendingWrites().ok());
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kSucceeded);
  EXPECT_EQ((*raw)->Get("j1")->result, "result");
  EXPECT_EQ(held_->Count(), 0);
}

TEST_F(ResilientJobStoreTest, AFinishWaitsForTheJobsHeldArtifacts) {
  InsertRunning("j1");
  const std::string source = WriteFile(std::filesystem::path(data_dir_) / "samples.csv", "1,2\n");
  ASSERT_TRUE(held_->HoldArtifact("j1", "samples.csv", source, "text/csv").ok());
  ASSERT_TRUE(
      store_->Finish("j1", JobState::kSucceeded, absl::StatusCode::kOk, "", "result", 7).ok());
  absl::StatusOr<std::unique_ptr<JobStore>> raw = JobStore::Open(data_dir_);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kRunning) << "written before its artifact";
  EXPECT_EQ(store_->Get("j1")->state, JobState::kSucceeded);
  EXPECT_EQ(store_->Insert(NewJob("j2")).status().code(), absl::StatusCode::kUnavailable);

  held_->ReleaseArtifact("j1", "samples.csv");  // the artifact store wrote it
  ASSERT_TRUE(store_->RetryPendingWrites().ok());
  EXPECT_EQ((*raw)->Get("j1")->state, JobState::kSucceeded);
  EXPECT_TRUE(store_->Insert(NewJob("j2")).ok());
}

TEST_F(ResilientJobStoreTest, ResultIndexRowsTheStoreRefusesAreWrittenOnceItTakesWrites) {
  InsertRunning("j1");
  const IndexedResult row = testing::ResultRow("j1", "tanh_host", "1024", 1e-3);
  {
    ScopedFullDisk full;
    ASSERT_TRUE(store_->IndexResults({row}).ok());
  }
  HistoryFilter filter;
  filter.kernel = "gelu";
  EXPECT_TRUE(store_->History(filter)->empty());
  ASSERT_TRUE(store_->RetryPendingWrites().ok());
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].job_id, "j1");
}

TEST(StoreRefusal, ADatabaseOutageNamesTheDatabaseNotTheDisk) {
  const absl::Status refusal =
      DescribeRefusal({"/var/lib/kbench", "postgres://kbench@db.lab:5432/kbench"},
                      absl::UnavailableError("postgres connect: connection refused"));
  EXPECT_EQ(refusal.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refusal.message(), HasSubstr("the database db.lab:5432/kbench cannot be reached"));
  EXPECT_THAT(refusal.message(), HasSubstr("connection refused"));
  EXPECT_THAT(refusal.message(), ::testing::Not(HasSubstr("kbench@")));
  EXPECT_THAT(refusal.message(), ::testing::Not(HasSubstr("free")));
}

}  // namespace
}  // namespace kbench::store
