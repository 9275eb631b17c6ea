// UsageStore: runs recorded in the job store's database, replaced per (job, attempt), listed
// oldest first; refused on a database the job store has not migrated.
#include "server/store/usage_store.h"

#include <gtest/gtest.h>

#include "server/store/job_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

UsageRecord RunOf(const std::string& job, int32_t attempt, const std::string& owner,
                  int64_t microseconds, int64_t end_ns) {
  UsageRecord r;
  r.job_id = job;
  r.attempt = attempt;
  r.owner = owner;
  r.device = "cpu";
  r.similar_key = "square|host_loop|cpu";
  r.succeeded = true;
  r.gpu_microseconds = microseconds;
  r.end_time_ns = end_ns;
  return r;
}

class UsageStoreTest : public testing::StoreEngineTest {};

TEST_P(UsageStoreTest, ListsRunsOldestFirstAndReplacesARecordedAttempt) {
  ASSERT_TRUE(JobStore::Open(location_).ok());
  auto usage = UsageStore::Open(location_);
  ASSERT_TRUE(usage.ok()) << usage.status();
  ASSERT_TRUE((*usage)->Record(RunOf("j-2", 1, "bob", 500, 2000)).ok());
  ASSERT_TRUE((*usage)->Record(RunOf("j-1", 1, "alice", 100, 1000)).ok());
  ASSERT_TRUE((*usage)->Record(RunOf("j-1", 2, "alice", 300, 3000)).ok());
  ASSERT_TRUE((*usage)->Record(RunOf("j-1", 2, "alice", 400, 3000)).ok());  // same attempt again
  absl::StatusOr<std::vector<UsageRecord>> all = (*usage)->All();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].job_id, "j-1");
  EXPECT_EQ((*all)[0].gpu_microseconds, 100);
  EXPECT_EQ((*all)[1].owner, "bob");
  EXPECT_EQ((*all)[2].attempt, 2);
  EXPECT_EQ((*all)[2].gpu_microseconds, 400);
  EXPECT_EQ((*all)[2].similar_key, "square|host_loop|cpu");
  EXPECT_TRUE((*all)[2].succeeded);
}

TEST_P(UsageStoreTest, SurvivesReopening) {
  ASSERT_TRUE(JobStore::Open(location_).ok());
  ASSERT_TRUE((*UsageStore::Open(location_))->Record(RunOf("j-1", 1, "alice", 7, 1)).ok());
  auto again = UsageStore::Open(location_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->All()->size(), 1u);
}

TEST_P(UsageStoreTest, RefusesADatabaseTheJobStoreDidNotCreate) {
  auto usage = UsageStore::Open(location_);
  EXPECT_EQ(usage.status().code(), absl::StatusCode::kFailedPrecondition) << usage.status();
}

KBENCH_STORE_ENGINES(UsageStoreTest);

}  // namespace
}  // namespace kbench::store
