// Store maintenance against a simulated clock and a real store in a temporary directory: jobs
// past the retention are pruned with their artifacts, nothing else is; the timer runs passes as
// time moves; work directories are removed; retention flags parse or fail naming the value.
#include "server/scheduler/store_maintenance.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::SimulatedClock;
namespace fs = std::filesystem;

class StoreMaintenanceTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    auto opened = store::JobStore::Open(data_dir_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    jobs_ = std::make_unique<store::ResilientJobStore>(*std::move(opened));
    artifacts_ = std::make_unique<store::ArtifactStore>(data_dir_, jobs_.get(),
                                                        store::RetentionPolicy{0, 0});
    options_.job_retention = absl::Hours(24 * 90);
    options_.interval = absl::Minutes(10);
  }

  // A job that finished `age` before the clock's now, with one artifact.
  void AddFinishedJob(const std::string& id, absl::Duration age) {
    store::JobRecord job;
    job.id = id;
    job.device = "cpu";
    job.kernel = "square";
    job.spec = "spec";
    ASSERT_TRUE(jobs_->Insert(job).ok());
    ASSERT_TRUE(jobs_->MarkRunning(id, 1).ok());
    const std::string source = WriteFile(fs::path(data_dir_) / "src" / id, "bytes of " + id);
    ASSERT_TRUE(artifacts_->Import(id, "samples.csv", source, "text/csv").ok());
    ASSERT_TRUE(jobs_
                    ->Finish(id, store::JobState::kSucceeded, absl::StatusCode::kOk, "", "",
                             absl::ToUnixNanos(clock_.Now() - age))
                    .ok());
  }

  bool Exists(const std::string& id) { return jobs_->Get(id).ok(); }
  bool ArtifactFileExists(const std::string& id) {
    return fs::exists(fs::path(data_dir_) / "artifacts" / id / "samples.csv");
  }

  SimulatedClock clock_;
  std::unique_ptr<store::ResilientJobStore> jobs_;
  std::unique_ptr<store::ArtifactStore> artifacts_;
  MaintenanceOptions options_;
};

TEST_F(StoreMaintenanceTest, PrunesJobsFinishedBeforeTheRetentionWithTheirArtifacts) {
  AddFinishedJob("old", absl::Hours(24 * 91));
  AddFinishedJob("recent", absl::Hours(24 * 89));
  StoreMaintenance maintenance(options_, &clock_, jobs_.get(), artifacts_.get());
  const MaintenanceReport report = maintenance.RunOnce();
  EXPECT_EQ(report.pruned_jobs, 1);
  EXPECT_FALSE(Exists("old"));
  EXPECT_FALSE(ArtifactFileExists("old"));
  EXPECT_FALSE(fs::exists(fs::path(data_dir_) / "artifacts" / "old"));
  EXPECT_TRUE(Exists("recent"));
  EXPECT_TRUE(ArtifactFileExists("recent"));
}

TEST_F(StoreMaintenanceTest, NeverPrunesQueuedOrRunningJobs) {
  store::JobRecord job;
  job.id = "waiting";
  job.device = "cpu";
  job.kernel = "square";
  job.spec = "spec";
  job.create_time_ns = 1;  // queued since 1970
  ASSERT_TRUE(jobs_->Insert(job).ok());
  job.id = "running";
  ASSERT_TRUE(jobs_->Insert(job).ok());
  ASSERT_TRUE(jobs_->MarkRunning("running", 1).ok());
  StoreMaintenance maintenance(options_, &clock_, jobs_.get(), artifacts_.get());
  EXPECT_EQ(maintenance.RunOnce().pruned_jobs, 0);
  EXPECT_TRUE(Exists("waiting"));
  EXPECT_TRUE(Exists("running"));
}

TEST_F(StoreMaintenanceTest, ZeroRetentionKeepsJobsForever) {
  AddFinishedJob("ancient", absl::Hours(24 * 3650));
  options_.job_retention = absl::ZeroDuration();
  StoreMaintenance maintenance(options_, &clock_, jobs_.get(), artifacts_.get());
  EXPECT_EQ(maintenance.RunOnce().pruned_jobs, 0);
  EXPECT_TRUE(Exists("ancient"));
}

TEST_F(StoreMaintenanceTest, AppliesTheArtifactAgeLimitOnTheTimerNotOnlyOnImport) {
  artifacts_ = std::make_unique<store::ArtifactStore>(
      data_dir_, jobs_.get(), store::RetentionPolicy{0, /*max_age_seconds=*/3600});
  AddFinishedJob("j1", absl::Minutes(1));
  options_.job_retention = absl::ZeroDuration();  // the artifact limit alone
  // Imported "now" by the real clock: move the simulated clock two hours past it.
  clock_.AdvanceTo(absl::Now() + absl::Hours(2));
  StoreMaintenance maintenance(options_, &clock_, jobs_.get(), artifacts_.get());
  EXPECT_GT(maintenance.RunOnce().freed_artifact_bytes, 0);
  EXPECT_FALSE(ArtifactFileExists("j1"));
  EXPECT_TRUE(Exists("j1")) << "the artifact limit removes artifacts, not jobs";
}

TEST_F(StoreMaintenanceTest, TimerPrunesAsTimePasses) {
  AddFinishedJob("j1", absl::ZeroDuration());
  options_.interval = absl::Hours(24);  // 90 passes to the cutoff, each a real SQLite pass
  StoreMaintenance maintenance(options_, &clock_, jobs_.get(), artifacts_.get());
  maintenance.Start();
  EXPECT_TRUE(Exists("j1"));
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return !Exists("j1"); }))
      << "no pass pruned the job within the simulated days";
  EXPECT_GE(clock_.Now() - absl::FromUnixSeconds(1700000000), absl::Hours(24 * 90));
  maintenance.Stop();
}

TEST_F(StoreMaintenanceTest, WorkDirectoriesAreRemovedAndSwept) {
  absl::StatusOr<std::string> a = artifacts_->WorkDir("a");
  absl::StatusOr<std::string> b = artifacts_->WorkDir("b");
  ASSERT_TRUE(a.ok() && b.ok());
  WriteFile(fs::path(*a) / "left-over.bin", "x");
  ASSERT_TRUE(artifacts_->RemoveWorkDir("a").ok());
  EXPECT_FALSE(fs::exists(*a));
  EXPECT_TRUE(fs::exists(*b));
  absl::StatusOr<int64_t> swept = artifacts_->SweepWorkDirs();
  ASSERT_TRUE(swept.ok()) << swept.status();
  EXPECT_EQ(*swept, 1);
  EXPECT_FALSE(fs::exists(*b));
}

TEST(ParseRetention, AcceptsWholeNumbersWithAUnit) {
  EXPECT_EQ(*ParseRetention("90d"), absl::Hours(24 * 90));
  EXPECT_EQ(*ParseRetention("12h"), absl::Hours(12));
  EXPECT_EQ(*ParseRetention("30m"), absl::Minutes(30));
  EXPECT_EQ(*ParseRetention("3600s"), absl::Seconds(3600));
  EXPECT_EQ(*ParseRetention("0"), absl::ZeroDuration());
}

TEST(ParseRetention, RejectsAnythingElseNamingTheValue) {
  for (const char* bad : {"", "d", "90", "-1d", "1.5d", "90 days", "9x"}) {
    absl::StatusOr<absl::Duration> parsed = ParseRetention(bad);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find(absl::StrCat("'", bad, "'")), std::string::npos)
        << parsed.status();
  }
}

}  // namespace
}  // namespace kbench::scheduler
