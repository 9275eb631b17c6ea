// JobStore::DeleteSweep (kbctl sweep rm) on both engines: a sweep goes with its points' jobs,
// their artifact records and its report's, in one transaction; never while a point is queued or
// running (named) or while its report is being written; an unknown sweep is NOT_FOUND by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/store/job_store.h"
#include "server/store/sweep_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

using ::testing::HasSubstr;

ArtifactRecord FileOf(const std::string& owner_id, const std::string& name) {
  ArtifactRecord a;
  a.job_id = owner_id;
  a.name = name;
  a.relative_path = absl::StrCat(owner_id, "/", name);
  a.content_type = "text/plain";
  a.size_bytes = 10;
  a.sha256 = std::string(64, 'b');
  a.create_time_ns = 3;
  return a;
}

class SweepDeletionTest : public testing::StoreEngineTest {
 protected:
  // Opens both stores and inserts sweep s-1 of points j-0 and j-1, and job j-other outside it.
  void SetUp() override {
    StoreEngineTest::SetUp();
    if (IsSkipped()) return;
    auto jobs = JobStore::Open(location_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    for (const char* id : {"j-0", "j-1", "j-other"}) {
      JobRecord job;
      job.id = id;
      job.owner = "alice";
      job.device = "cpu";
      job.kernel = "reduce";
      job.spec = "spec";
      ASSERT_TRUE(jobs_->Insert(job).ok());
    }
    auto sweeps = SweepStore::Open(location_);
    ASSERT_TRUE(sweeps.ok()) << sweeps.status();
    sweeps_ = *std::move(sweeps);
    SweepRecord r;
    r.id = "s-1";
    r.owner = "alice";
    r.create_time_ns = 7;
    r.spec = "sweep-spec";
    r.points = {{0, "j-0", "p0"}, {1, "j-1", "p1"}};
    ASSERT_TRUE(sweeps_->Insert(r).ok());
  }

  void Succeed(const std::string& id) {
    ASSERT_TRUE(jobs_->Finish(id, JobState::kSucceeded, absl::StatusCode::kOk, "", "", 5).ok());
  }

  std::unique_ptr<JobStore> jobs_;
  std::unique_ptr<SweepStore> sweeps_;
};

TEST_P(SweepDeletionTest, DeletesTheSweepItsPointsJobsAndBothKindsOfArtifactRecords) {
  Succeed("j-0");
  Succeed("j-1");
  Succeed("j-other");
  ASSERT_TRUE(jobs_->AddArtifact(FileOf("j-0", "trace.json")).ok());
  ASSERT_TRUE(sweeps_->AddArtifact(FileOf("s-1", "report.html")).ok());
  ASSERT_TRUE(sweeps_->SetState("s-1", SweepState::kDone, "", 9).ok());

  std::vector<ArtifactRecord> removed;
  std::vector<ArtifactRecord> report;
  absl::StatusOr<int64_t> deleted = jobs_->DeleteSweep("s-1", &removed, &report);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 2);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].name, "trace.json");
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].job_id, "s-1");
  EXPECT_EQ(report[0].name, "report.html");
  EXPECT_EQ(sweeps_->Get("s-1").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(jobs_->Get("j-0").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(jobs_->Get("j-1").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(jobs_->Get("j-other").ok()) << "a job outside the sweep stays";
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM sweep_artifacts"), "0");
}

TEST_P(SweepDeletionTest, RefusesWhileAPointIsQueuedOrRunningNamingIt) {
  Succeed("j-0");
  ASSERT_TRUE(jobs_->MarkRunning("j-1", 4).ok());
  const absl::StatusOr<int64_t> refused = jobs_->DeleteSweep("s-1", nullptr, nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("j-1 (running)"));
  EXPECT_THAT(refused.status().message(), ::testing::Not(HasSubstr("j-0")));
  EXPECT_TRUE(sweeps_->Get("s-1").ok());
  EXPECT_TRUE(jobs_->Get("j-0").ok());
}

TEST_P(SweepDeletionTest, RefusesWhileItsReportIsBeingWritten) {
  Succeed("j-0");
  Succeed("j-1");
  ASSERT_TRUE(*sweeps_->BeginReport("s-1", false));
  const absl::StatusOr<int64_t> refused = jobs_->DeleteSweep("s-1", nullptr, nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("reporting"));
}

TEST_P(SweepDeletionTest, AnUnknownSweepIsNotFoundByName) {
  const absl::StatusOr<int64_t> missing = jobs_->DeleteSweep("s-nope", nullptr, nullptr);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("s-nope"));
}

KBENCH_STORE_ENGINES(SweepDeletionTest);

}  // namespace
}  // namespace kbench::store
