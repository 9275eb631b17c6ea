// The sweep store: sweeps with their points' jobs, idempotency, the reporter's work list and
// artifacts, kept across reopening the database.
#include "server/store/sweep_store.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/store/job_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

class SweepStoreTest : public testing::StoreEngineTest {
 protected:
  // Opens both stores and inserts `n` queued jobs j-0 ... j-(n-1).
  void OpenWithJobs(int n) {
    absl::StatusOr<std::unique_ptr<JobStore>> jobs = JobStore::Open(location_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    for (int i = 0; i < n; ++i) {
      JobRecord job;
      job.id = absl::StrCat("j-", i);
      job.device = "cpu";
      job.kernel = "reduce";
      job.spec = "spec";
      ASSERT_TRUE(jobs_->Insert(job).ok());
    }
    absl::StatusOr<std::unique_ptr<SweepStore>> sweeps = SweepStore::Open(location_);
    ASSERT_TRUE(sweeps.ok()) << sweeps.status();
    sweeps_ = *std::move(sweeps);
  }

  static SweepRecord TwoPoints(const std::string& id, const std::string& key = "") {
    SweepRecord r;
    r.id = id;
    r.owner = "alice";
    r.idempotency_key = key;
    r.create_time_ns = 7;
    r.spec = "sweep-spec";
    r.points = {{0, "j-0", "p0"}, {1, "j-1", "p1"}};
    return r;
  }

  std::unique_ptr<JobStore> jobs_;
  std::unique_ptr<SweepStore> sweeps_;
};

TEST_P(SweepStoreTest, KeepsASweepAndItsPointsAcrossReopening) {
  OpenWithJobs(2);
  ASSERT_TRUE(sweeps_->Insert(TwoPoints("s-1")).ok());
  sweeps_.reset();
  jobs_.reset();
  OpenWithJobs(0);
  absl::StatusOr<SweepRecord> got = sweeps_->Get("s-1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->owner, "alice");
  EXPECT_EQ(got->state, SweepState::kRunning);
  EXPECT_EQ(got->spec, "sweep-spec");
  ASSERT_EQ(got->points.size(), 2u);
  EXPECT_EQ(got->points[1].job_id, "j-1");
  EXPECT_EQ(got->points[1].point, "p1");
  EXPECT_EQ(sweeps_->Get("s-2").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(SweepStoreTest, AnIdempotencyKeyReturnsTheFirstSweep) {
  OpenWithJobs(2);
  ASSERT_TRUE(sweeps_->Insert(TwoPoints("s-1", "k")).ok());
  absl::StatusOr<std::pair<SweepRecord, bool>> again = sweeps_->Insert(TwoPoints("s-2", "k"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->second);
  EXPECT_EQ(again->first.id, "s-1");
  absl::StatusOr<std::vector<SweepRecord>> all = sweeps_->List(10);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

// Issue 24: a sweep key is the owner's; bob's "k" does not hide alice's.
TEST_P(SweepStoreTest, IdempotencyKeysAreUniquePerOwner) {
  OpenWithJobs(2);
  SweepRecord bobs = TwoPoints("s-bob", "k");
  bobs.owner = "bob";
  ASSERT_TRUE(sweeps_->Insert(bobs).ok());
  absl::StatusOr<std::pair<SweepRecord, bool>> alices = sweeps_->Insert(TwoPoints("s-alice", "k"));
  ASSERT_TRUE(alices.ok()) << alices.status();
  EXPECT_TRUE(alices->second);
  absl::StatusOr<std::optional<SweepRecord>> found = sweeps_->FindByKey("alice", "k");
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, "s-alice");
  EXPECT_EQ((*found)->idempotency_key, "k");
  found = sweeps_->FindByKey("carol", "k");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
}

TEST_P(SweepStoreTest, APointMustNameAnExistingJob) {
  OpenWithJobs(1);  // no j-1
  EXPECT_FALSE(sweeps_->Insert(TwoPoints("s-1")).ok());
  EXPECT_EQ(sweeps_->Get("s-1").status().code(), absl::StatusCode::kNotFound);  // rolled back
}

TEST_P(SweepStoreTest, UnfinishedListsRunningAndReportingOnly) {
  OpenWithJobs(2);
  for (const char* id : {"s-1", "s-2", "s-3"}) ASSERT_TRUE(sweeps_->Insert(TwoPoints(id)).ok());
  ASSERT_TRUE(sweeps_->SetState("s-1", SweepState::kDone, "", 9).ok());
  ASSERT_TRUE(sweeps_->SetState("s-2", SweepState::kReporting, "", 0).ok());
  ASSERT_TRUE(sweeps_->RequestCancel("s-3").ok());
  absl::StatusOr<std::vector<SweepRecord>> open = sweeps_->ListUnfinished();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ((*open)[0].id, "s-2");
  EXPECT_EQ((*open)[1].id, "s-3");
  EXPECT_TRUE((*open)[1].cancel_requested);
  EXPECT_EQ(sweeps_->SetState("s-9", SweepState::kDone, "", 0).code(), absl::StatusCode::kNotFound);
}

TEST_P(SweepStoreTest, PruningOldJobsKeepsTheJobsOfASweep) {
  OpenWithJobs(3);  // j-0 and j-1 are the sweep's points, j-2 stands alone
  ASSERT_TRUE(sweeps_->Insert(TwoPoints("s-1")).ok());
  for (const char* id : {"j-0", "j-1", "j-2"}) {
    ASSERT_TRUE(jobs_->MarkRunning(id, 1).ok());
    ASSERT_TRUE(jobs_->Finish(id, JobState::kSucceeded, absl::StatusCode::kOk, "", "", 2).ok());
  }
  absl::StatusOr<int64_t> pruned = jobs_->PruneFinishedBefore(1000, nullptr);
  ASSERT_TRUE(pruned.ok()) << pruned.status();  // no foreign-key failure from sweep_points
  EXPECT_EQ(*pruned, 1);
  EXPECT_EQ(jobs_->Get("j-2").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(jobs_->Get("j-0").ok());
  EXPECT_TRUE(sweeps_->Get("s-1").ok());
}

TEST_P(SweepStoreTest, RecordsAndReplacesArtifacts) {
  OpenWithJobs(2);
  ASSERT_TRUE(sweeps_->Insert(TwoPoints("s-1")).ok());
  ASSERT_TRUE(
      sweeps_->AddArtifact({"s-1", "sweep.csv", "sweeps/s-1/sweep.csv", "text/csv", 3, "abc", 1})
          .ok());
  ASSERT_TRUE(
      sweeps_->AddArtifact({"s-1", "sweep.csv", "sweeps/s-1/sweep.csv", "text/csv", 5, "def", 2})
          .ok());
  absl::StatusOr<std::vector<ArtifactRecord>> artifacts = sweeps_->Artifacts("s-1");
  ASSERT_TRUE(artifacts.ok());
  ASSERT_EQ(artifacts->size(), 1u);
  EXPECT_EQ((*artifacts)[0].size_bytes, 5);
  EXPECT_EQ((*artifacts)[0].sha256, "def");
}

KBENCH_STORE_ENGINES(SweepStoreTest);

}  // namespace
}  // namespace kbench::store
