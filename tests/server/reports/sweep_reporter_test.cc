// The sweep reporter against a real SQLite sweep store and a fake loader: a sweep whose points
// have all ended gets its tables and report recorded and is DONE; one with a point still running
// is left alone.
#include "server/reports/sweep_reporter.h"

#include <filesystem>
#include <memory>
#include <set>

#include "gtest/gtest.h"
#include "server/store/job_store.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::reports {
namespace {

class SweepReporterTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    absl::StatusOr<std::unique_ptr<store::JobStore>> jobs = store::JobStore::Open(data_dir_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    for (const char* id : {"j-0", "j-1"}) {
      store::JobRecord job;
      job.id = id;
      job.device = "cpu";
      job.kernel = "reduce";
      job.spec = "spec";
      ASSERT_TRUE(jobs_->Insert(job).ok());
    }
    absl::StatusOr<std::unique_ptr<store::SweepStore>> sweeps = store::SweepStore::Open(data_dir_);
    ASSERT_TRUE(sweeps.ok()) << sweeps.status();
    sweeps_ = *std::move(sweeps);
    store::SweepRecord record;
    record.id = "s-1";
    record.owner = "alice";
    record.spec = "sweep-spec";
    record.points = {{0, "j-0", ""}, {1, "j-1", ""}};
    ASSERT_TRUE(sweeps_->Insert(record).ok());
  }

  // A reporter whose loader shows sweep s-1 with its second point in `second`.
  std::unique_ptr<SweepReporter> ReporterSeeing(v1::JobState second) {
    SweepReporterOptions options;
    options.data_dir = data_dir_;
    options.gnuplot = (std::filesystem::path(data_dir_) / "no-gnuplot").string();
    return std::make_unique<SweepReporter>(
        sweeps_.get(),
        [second](const store::SweepRecord& record,
                 bool with_jobs) -> absl::StatusOr<std::pair<v1::Sweep, std::vector<v1::Job>>> {
          v1::Sweep sweep;
          sweep.set_id(record.id);
          sweep.set_owner(record.owner);
          sweep.set_points_total(2);
          sweep.add_points()->set_state(v1::JOB_STATE_SUCCEEDED);
          sweep.add_points()->set_state(second);
          std::vector<v1::Job> jobs;
          if (with_jobs) jobs.resize(2);
          return std::make_pair(sweep, jobs);
        },
        options);
  }

  std::set<std::string> ArtifactNames() {
    absl::StatusOr<std::vector<store::ArtifactRecord>> artifacts = sweeps_->Artifacts("s-1");
    EXPECT_TRUE(artifacts.ok()) << artifacts.status();
    std::set<std::string> names;
    if (artifacts.ok()) {
      for (const store::ArtifactRecord& a : *artifacts) names.insert(a.name);
    }
    return names;
  }

  std::unique_ptr<store::JobStore> jobs_;
  std::unique_ptr<store::SweepStore> sweeps_;
};

TEST_F(SweepReporterTest, ReportsASweepWhosePointsHaveAllEnded) {
  std::unique_ptr<SweepReporter> reporter = ReporterSeeing(v1::JOB_STATE_FAILED);
  ASSERT_TRUE(reporter->ReportFinished().ok());
  absl::StatusOr<store::SweepRecord> sweep = sweeps_->Get("s-1");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->state, store::SweepState::kDone) << sweep->error;
  const std::set<std::string> names = ArtifactNames();
  for (const char* name : {"sweep.csv", "sweep.json", "report.html"}) {
    EXPECT_TRUE(names.count(name)) << name;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(data_dir_) / "sweeps/s-1" / name));
  }
}

TEST_F(SweepReporterTest, LeavesASweepWithAPointStillRunning) {
  std::unique_ptr<SweepReporter> reporter = ReporterSeeing(v1::JOB_STATE_RUNNING);
  ASSERT_TRUE(reporter->ReportFinished().ok());
  absl::StatusOr<store::SweepRecord> sweep = sweeps_->Get("s-1");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  EXPECT_EQ(sweep->state, store::SweepState::kRunning);
  EXPECT_TRUE(ArtifactNames().empty());
}

}  // namespace
}  // namespace kbench::reports
