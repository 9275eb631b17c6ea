// `kbenchd store migrate`: a SQLite store with every kind of record, copied into a real
// PostgreSQL, compared field by field through the stores, job artifacts and sweep reports moved
// into the database; a second migrate is refused.
#include "server/store/store_migration.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/sweep_store.h"
#include "server/store/usage_store.h"
#include "tests/postgres/postgres_server.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::store {
namespace {

class StoreMigrationTest : public testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    KBENCH_REQUIRE_POSTGRES();
    url_ = kbench::testing::PostgresServer::Shared().NewDatabase();
    ASSERT_FALSE(url_.empty());
    target_ = StoreLocation{.data_dir = "", .postgres_url = url_, .node = ""};
  }

  static JobRecord Job(const std::string& id, const std::string& key) {
    JobRecord job;
    job.id = id;
    job.device = "cpu";
    job.target = "cpu";
    job.kernel = "softmax";
    job.priority = 2;
    job.idempotency_key = key;
    job.owner = "alice";
    job.create_time_ns = 1'700'000'000'000'000'000;
    job.spec = std::string("spec\0", 5) + id;
    return job;
  }

  // The bytes of a record whose bytes are artifact_chunks' rows.
  static std::string ReadAll(ArtifactStore& chunked, const ArtifactRecord& record) {
    std::unique_ptr<ArtifactReader> reader = *chunked.Open(record);
    std::string read;
    for (std::string part = *reader->Read(1 << 16); !part.empty(); part = *reader->Read(1 << 16)) {
      read += part;
    }
    return read;
  }

  std::string url_;
  StoreLocation target_;
};

TEST_F(StoreMigrationTest, CopiesEveryRecordAndArtifactAndRefusesASecondTime) {
  std::string artifact_bytes(2'500'000, '\0');
  std::mt19937 rng(3);
  for (char& c : artifact_bytes) c = static_cast<char>(rng());
  const std::string report_bytes = "<html>" + artifact_bytes.substr(0, 70'000) + "</html>";
  {
    std::unique_ptr<JobStore> jobs = *JobStore::Open(data_dir_);
    ASSERT_TRUE(jobs->Insert(Job("j-1", "")).ok());
    ASSERT_TRUE(jobs->Insert(Job("j-2", "key-2")).ok());
    ASSERT_TRUE(jobs->MarkRunning("j-1", 10).ok());
    ASSERT_TRUE(jobs->Finish("j-1", JobState::kSucceeded, absl::StatusCode::kOk, "",
                             std::string("r\0s", 3), 20)
                    .ok());
    ArtifactStore artifacts(data_dir_, jobs.get(), {});
    ASSERT_TRUE(artifacts
                    .Import("j-1", "trace.bin",
                            WriteFile(std::filesystem::path(data_dir_) / "t", artifact_bytes),
                            "application/x")
                    .ok());
    IndexedResult row;
    row.job_id = "j-1";
    row.variant = "online";
    row.kernel = "softmax";
    row.shape = "4096";
    row.dtype = "f32";
    row.mode = "hot";
    row.device = "cpu";
    row.device_model = "cpu";
    row.owner = "alice";
    row.median_seconds = 1.5e-6;
    row.samples = 42;
    row.correct = true;
    ASSERT_TRUE(jobs->IndexResults({row}).ok());
    std::unique_ptr<UsageStore> usage = *UsageStore::Open(data_dir_);
    ASSERT_TRUE(usage->Record(UsageRecord{"j-1", 1, "alice", "cpu", "k", true, 1234, 20}).ok());
    std::unique_ptr<SweepStore> sweeps = *SweepStore::Open(data_dir_);
    SweepRecord sweep;
    sweep.id = "s-1";
    sweep.owner = "alice";
    sweep.create_time_ns = 5;
    sweep.spec = "sweep-spec";
    sweep.points.push_back(SweepPointRecord{0, "j-2", "point-0"});
    ASSERT_TRUE(sweeps->Insert(sweep).ok());
    // The sweep's report, a file under sweeps/ as a single host writes it, and a record whose
    // file is gone.
    const std::string report_path = WriteFile(
        std::filesystem::path(data_dir_) / "sweeps" / "s-1" / "report.html", report_bytes);
    ASSERT_TRUE(sweeps
                    ->AddArtifact({"s-1", "report.html", "sweeps/s-1/report.html", "text/html",
                                   static_cast<int64_t>(report_bytes.size()),
                                   *Sha256OfFile(report_path), 30})
                    .ok());
    ASSERT_TRUE(sweeps
                    ->AddArtifact({"s-1", "sweep.csv", "sweeps/s-1/sweep.csv", "text/csv", 3,
                                   std::string(64, '0'), 30})
                    .ok());
  }

  absl::StatusOr<MigrationReport> report = MigrateSqliteToPostgres(data_dir_, url_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->rows["jobs"], 2);
  EXPECT_EQ(report->rows["artifacts"], 1);
  EXPECT_EQ(report->rows["usage_charges"], 1);
  EXPECT_EQ(report->rows["sweeps"], 1);
  EXPECT_EQ(report->rows["sweep_points"], 1);
  EXPECT_EQ(report->rows["result_index"], 1);
  EXPECT_EQ(report->artifact_bytes,
            static_cast<int64_t>(artifact_bytes.size() + report_bytes.size()));
  EXPECT_EQ(report->artifacts_missing, 1) << "sweep.csv's file was never written";

  std::unique_ptr<JobStore> source = *JobStore::Open(data_dir_);
  std::unique_ptr<JobStore> target = *JobStore::Open(target_);
  for (const char* id : {"j-1", "j-2"}) {
    const JobRecord a = *source->Get(id);
    const JobRecord b = *target->Get(id);
    EXPECT_EQ(a.seq, b.seq);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.target, b.target);
    EXPECT_EQ(a.owner, b.owner);
    EXPECT_EQ(a.priority, b.priority);
    EXPECT_EQ(a.idempotency_key, b.idempotency_key);
    EXPECT_EQ(a.create_time_ns, b.create_time_ns);
    EXPECT_EQ(a.start_time_ns, b.start_time_ns);
    EXPECT_EQ(a.finish_time_ns, b.finish_time_ns);
    EXPECT_EQ(a.attempts, b.attempts);
    EXPECT_EQ(a.spec, b.spec);
    EXPECT_EQ(a.result, b.result);
  }
  // A new job continues after the copied seqs.
  absl::StatusOr<std::pair<JobRecord, bool>> next = target->Insert(Job("j-3", ""));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_GT(next->first.seq, source->Get("j-2")->seq);
  // An idempotency key still dedupes after the move.
  EXPECT_FALSE(target->Insert(Job("j-9", "key-2"))->second);

  const ArtifactRecord moved = (*target->Artifacts("j-1"))[0];
  EXPECT_EQ(moved.relative_path, "");
  EXPECT_EQ(moved.sha256, (*source->Artifacts("j-1"))[0].sha256);
  ArtifactStore chunked(data_dir_, target.get(), {},
                        std::make_unique<ArtifactChunks>(*ConnectStoreDatabase(target_)));
  EXPECT_TRUE(ReadAll(chunked, moved) == artifact_bytes);
  // The sweep's report moved too: any node serves it; the record without a file is gone.
  const std::vector<ArtifactRecord> reports = *(*SweepStore::Open(target_))->Artifacts("s-1");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].name, "report.html");
  EXPECT_EQ(reports[0].relative_path, "");
  EXPECT_TRUE(ReadAll(chunked, reports[0]) == report_bytes);

  HistoryFilter filter;
  filter.kernel = "softmax";
  const std::vector<IndexedResult> history = *target->History(filter);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].samples, 42);
  EXPECT_DOUBLE_EQ(history[0].median_seconds, 1.5e-6);
  const std::vector<UsageRecord> usage = *(*UsageStore::Open(target_))->All();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].gpu_microseconds, 1234);
  const SweepRecord sweep = *(*SweepStore::Open(target_))->Get("s-1");
  EXPECT_EQ(sweep.spec, "sweep-spec");
  ASSERT_EQ(sweep.points.size(), 1u);
  EXPECT_EQ(sweep.points[0].job_id, "j-2");

  absl::StatusOr<MigrationReport> again = MigrateSqliteToPostgres(data_dir_, url_);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition) << again.status();
}

TEST_F(StoreMigrationTest, NamesWhatIsMissing) {
  EXPECT_EQ(MigrateSqliteToPostgres(data_dir_ + "/nothing", url_).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(JobStore::Open(data_dir_).ok());
  EXPECT_EQ(MigrateSqliteToPostgres(data_dir_, "mysql://x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kbench::store
