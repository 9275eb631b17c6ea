// Tests of the store's result index (schema migration 2): history filters and paging, and
// which rows a leaderboard counts.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/store/database.h"
#include "server/store/job_store.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"
#include "tests/server/store/result_rows.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

class ResultIndexTest : public testing::StoreEngineTest {
 protected:
  void SetUp() override {
    testing::StoreEngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    absl::StatusOr<std::unique_ptr<JobStore>> opened = JobStore::Open(location_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
  }

  // A job row for the index's foreign key.
  void AddJob(const std::string& id) {
    JobRecord job;
    job.id = id;
    job.device = "cpu";
    job.kernel = "gelu";
    job.spec = "spec";
    ASSERT_TRUE(store_->Insert(job).ok());
  }

  static IndexedResult Row(const std::string& job, const std::string& variant,
                           const std::string& shape, double median) {
    return testing::ResultRow(job, variant, shape, median);
  }

  std::unique_ptr<JobStore> store_;
};

TEST_P(ResultIndexTest, HistoryIsNewestFirstFilteredAndPaged) {
  for (const char* id : {"j1", "j2", "j3"}) AddJob(id);
  ASSERT_TRUE(store_->IndexResults({Row("j1", "tanh_host", "1024", 1.0)}).ok());
  ASSERT_TRUE(store_->IndexResults({Row("j2", "tanh_host", "2048", 2.0)}).ok());
  ASSERT_TRUE(store_->IndexResults({Row("j3", "tanh_host", "1024", 3.0)}).ok());

  HistoryFilter filter;
  filter.kernel = "gelu";
  filter.shape = "1024";
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].job_id, "j3");
  EXPECT_EQ((*rows)[1].job_id, "j1");
  EXPECT_DOUBLE_EQ((*rows)[1].median_seconds, 1.0);

  filter.shape.clear();
  filter.device = "Some CPU";  // the model matches as well as the id
  filter.limit = 1;
  filter.before_seq = (*rows)[0].seq;
  absl::StatusOr<std::vector<IndexedResult>> page = store_->History(filter);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].job_id, "j2");
}

TEST_P(ResultIndexTest, ReindexingAJobReplacesItsRows) {
  AddJob("j1");
  ASSERT_TRUE(store_->IndexResults({Row("j1", "tanh_host", "1024", 1.0)}).ok());
  ASSERT_TRUE(store_->IndexResults({Row("j1", "tanh_host", "1024", 5.0)}).ok());
  HistoryFilter filter;
  filter.kernel = "gelu";
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->History(filter);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_DOUBLE_EQ((*rows)[0].median_seconds, 5.0);
}

TEST_P(ResultIndexTest, KeepsTheBufferPlacementsOfEachRow) {
  AddJob("j1");
  AddJob("j2");
  IndexedResult pooled = Row("j2", "tanh_host", "1024", 2.0);
  pooled.placements = 16;
  ASSERT_TRUE(store_->IndexResults({Row("j1", "tanh_host", "1024", 1.0)}).ok());
  ASSERT_TRUE(store_->IndexResults({pooled}).ok());
  HistoryFilter filter;
  filter.kernel = "gelu";
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].placements, 16);
  EXPECT_EQ((*rows)[1].placements, 1);
}

// Migration 7 adds the placements column: a row indexed before it reads one placement.
class ResultIndexUpgradeTest : public testing::StoreEngineTest {};

TEST_P(ResultIndexUpgradeTest, RowsIndexedBeforePlacementsHadOne) {
  {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(internal::Migrate(db->get(), 6, 0).ok());
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO result_index (job_id, variant, kernel, shape, dtype, "
                           "params, mode, device, device_model, driver_version, kbench_version, "
                           "owner, finish_time_ns, median_seconds, median_ci_low_seconds, "
                           "median_ci_high_seconds, samples, correct, impossible, contended) "
                           "VALUES ('old', 'tanh_host', 'gelu', '1024', 'f32', '', 'hot', 'cpu', "
                           "'Some CPU', '', '', 'alice', 1, 1.0, 0.9, 1.1, 10, 1, 0, 0)",
                           "index a row at version 6")
                    .ok());
  }
  absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(location_);
  ASSERT_TRUE(store.ok()) << store.status();
  HistoryFilter filter;
  filter.kernel = "gelu";
  absl::StatusOr<std::vector<IndexedResult>> rows = (*store)->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].job_id, "old");
  EXPECT_EQ((*rows)[0].placements, 1);
}

TEST_P(ResultIndexTest, UnknownJobIsNotFound) {
  EXPECT_EQ(store_->IndexResults({Row("nope", "tanh_host", "1024", 1.0)}).code(),
            absl::StatusCode::kNotFound);
}

TEST_P(ResultIndexTest, LeaderboardCountsOnlyCheckedUncontendedPossibleRows) {
  for (const char* id : {"ok", "failed", "contended", "impossible", "other_shape"}) AddJob(id);
  IndexedResult failed = Row("failed", "erf_host", "1024", 0.1);
  failed.correct = false;
  IndexedResult contended = Row("contended", "erf_host", "1024", 0.1);
  contended.contended = true;
  IndexedResult impossible = Row("impossible", "erf_host", "1024", 0.1);
  impossible.impossible = true;
  for (const IndexedResult& r : {Row("ok", "erf_host", "1024", 1.0), failed, contended, impossible,
                                 Row("other_shape", "erf_host", "4096", 1.0)}) {
    ASSERT_TRUE(store_->IndexResults({r}).ok());
  }
  LeaderboardFilter filter;
  filter.kernel = "gelu";
  filter.shapes = {"1024", "2048"};
  filter.dtype = "f32";
  filter.device_model = "Some CPU";
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->LeaderboardRows(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].job_id, "ok");
}

// Issue 29: a contaminated result is in no history unless asked (kbctl diff's noise estimate
// reads history, so it leaves them out too); its clean flag and energy survive the round trip.
TEST_P(ResultIndexTest, HistoryLeavesOutUncleanResultsUnlessAskedAndKeepsEnergy) {
  for (const char* id : {"clean", "unclean"}) AddJob(id);
  IndexedResult clean = Row("clean", "tanh_host", "1024", 1.0);
  clean.joules_per_launch = 2.5e-3;
  IndexedResult unclean = Row("unclean", "tanh_host", "1024", 0.5);
  unclean.clean = false;
  ASSERT_TRUE(store_->IndexResults({clean}).ok());
  ASSERT_TRUE(store_->IndexResults({unclean}).ok());

  HistoryFilter filter;
  filter.kernel = "gelu";
  absl::StatusOr<std::vector<IndexedResult>> rows = store_->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].job_id, "clean");
  EXPECT_TRUE((*rows)[0].clean);
  EXPECT_DOUBLE_EQ((*rows)[0].joules_per_launch, 2.5e-3);
  filter.include_unclean = true;
  rows = store_->History(filter);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].job_id, "unclean");
  EXPECT_FALSE((*rows)[0].clean);
  EXPECT_DOUBLE_EQ((*rows)[0].joules_per_launch, 0);
}

TEST_P(ResultIndexTest, LeaderboardLeavesOutUncleanRowsAndByEnergyUnmeasuredOnes) {
  for (const char* id : {"measured", "unmeasured", "unclean"}) AddJob(id);
  IndexedResult measured = Row("measured", "erf_host", "1024", 1.0);
  measured.joules_per_launch = 1e-3;
  IndexedResult unclean = Row("unclean", "erf_host", "1024", 1.0);
  unclean.joules_per_launch = 1e-3;
  unclean.clean = false;
  for (const IndexedResult& r : {measured, Row("unmeasured", "erf_host", "1024", 1.0), unclean}) {
    ASSERT_TRUE(store_->IndexResults({r}).ok());
  }
  LeaderboardFilter filter;
  filter.kernel = "gelu";
  filter.shapes = {"1024"};
  filter.dtype = "f32";
  filter.device_model = "Some CPU";
  EXPECT_EQ(store_->LeaderboardRows(filter)->size(), 2u);  // measured, unmeasured
  filter.energy_only = true;
  ASSERT_EQ(store_->LeaderboardRows(filter)->size(), 1u);
  EXPECT_EQ((*store_->LeaderboardRows(filter))[0].job_id, "measured");
  filter.include_unclean = true;
  EXPECT_EQ(store_->LeaderboardRows(filter)->size(), 2u);  // measured, unclean
}

KBENCH_STORE_ENGINES(ResultIndexTest);
KBENCH_STORE_ENGINES(ResultIndexUpgradeTest);

}  // namespace
}  // namespace kbench::store
