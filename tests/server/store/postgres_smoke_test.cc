// The job store's basic path on a real PostgreSQL: migrate, insert, claim, finish, list.
#include <gtest/gtest.h>

#include "server/store/job_store.h"
#include "tests/postgres/postgres_server.h"

namespace kbench::store {
namespace {

TEST(PostgresJobStore, MigratesAndRunsAJobThrough) {
  KBENCH_REQUIRE_POSTGRES();
  const std::string url = kbench::testing::PostgresServer::Shared().NewDatabase();
  ASSERT_FALSE(url.empty()) << kbench::testing::PostgresServer::Shared().reason();
  auto store = JobStore::Open(StoreLocation{.data_dir = "", .postgres_url = url, .node = ""});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(*(*store)->SchemaVersion(), JobStore::kSchemaVersion);

  JobRecord job;
  job.id = "j-1";
  job.device = "cpu";
  job.kernel = "square";
  job.create_time_ns = 5;
  job.spec = std::string("\0\x01\xffspec", 7);
  auto inserted = (*store)->Insert(job);
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  EXPECT_TRUE(inserted->second);
  EXPECT_GT(inserted->first.seq, 0);
  ASSERT_TRUE((*store)->MarkRunning("j-1", 10).ok());
  EXPECT_EQ((*store)->MarkRunning("j-1", 10).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*store)
                  ->Finish("j-1", JobState::kSucceeded, absl::StatusCode::kOk, "",
                           std::string("r\0s", 3), 20)
                  .ok());
  auto got = (*store)->Get("j-1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->state, JobState::kSucceeded);
  EXPECT_EQ(got->spec, job.spec);
  EXPECT_EQ(got->result, std::string("r\0s", 3));
  EXPECT_EQ(got->attempts, 1);
  JobFilter filter;
  filter.state = JobState::kSucceeded;
  filter.kernel = "square";
  auto listed = (*store)->List(filter);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_EQ((*store)->Get("nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kbench::store
