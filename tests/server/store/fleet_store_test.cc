// The fleet store's shared progress on a real PostgreSQL: written only by the node running the
// job, read back by any node, and not carried into a later run after the node is lost.
#include "server/store/fleet_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/store/job_store.h"
#include "tests/postgres/postgres_server.h"

namespace kbench::store {
namespace {

class FleetStoreProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KBENCH_REQUIRE_POSTGRES();
    const std::string url = kbench::testing::PostgresServer::Shared().NewDatabase();
    ASSERT_FALSE(url.empty()) << kbench::testing::PostgresServer::Shared().reason();
    // Each node's job store writes as that node (a start is refused for another's job).
    for (const char* node : {"a", "b"}) {
      absl::StatusOr<std::unique_ptr<JobStore>> jobs =
          JobStore::Open(StoreLocation{.data_dir = "", .postgres_url = url, .node = node});
      ASSERT_TRUE(jobs.ok()) << jobs.status();
      jobs_[node] = *std::move(jobs);
    }
    absl::StatusOr<std::unique_ptr<FleetStore>> fleet =
        FleetStore::Open(StoreLocation{.data_dir = "", .postgres_url = url, .node = ""});
    ASSERT_TRUE(fleet.ok()) << fleet.status();
    fleet_ = *std::move(fleet);
    for (const char* node : {"a", "b"}) {
      NodeRecord record;
      record.name = node;
      ASSERT_TRUE(fleet_->RegisterNode(record).ok());
    }
    JobRecord job;
    job.id = "j";
    job.device = job.target = "cpu:any";
    job.kernel = "square";
    job.create_time_ns = 1;
    job.spec = "spec";
    ASSERT_TRUE(jobs_["a"]->Insert(job).ok());
  }

  // Claims the job for `node`'s cpu and starts it there.
  void ClaimAndRun(const std::string& node) {
    absl::StatusOr<std::optional<JobRecord>> claimed =
        fleet_->Claim(node, ClaimableDevice{"cpu", {"cpu:any"}}, 10, kLeaseUntil, absl::Hours(1));
    ASSERT_TRUE(claimed.ok()) << claimed.status();
    ASSERT_TRUE(claimed->has_value());
    ASSERT_TRUE(jobs_[node]->MarkRunning("j", 20).ok());
  }

  std::string Shared() {
    absl::StatusOr<std::string> bytes = fleet_->SharedProgress("j");
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.value_or("?");
  }

  static constexpr int64_t kLeaseUntil = 1000;
  std::map<std::string, std::unique_ptr<JobStore>> jobs_;
  std::unique_ptr<FleetStore> fleet_;
};

TEST_F(FleetStoreProgressTest, OnlyTheRunningNodeWritesAndEveryNodeReads) {
  ASSERT_TRUE(fleet_->ShareProgress("a", "j", "queued").ok());
  EXPECT_EQ(Shared(), "") << "a queued job has no progress to share";
  ClaimAndRun("a");
  ASSERT_TRUE(fleet_->ShareProgress("b", "j", "not mine").ok());
  EXPECT_EQ(Shared(), "") << "node b does not run the job";
  const std::string bytes("\x08\x00\x12progress", 11);
  ASSERT_TRUE(fleet_->ShareProgress("a", "j", bytes).ok());
  EXPECT_EQ(Shared(), bytes);
  EXPECT_EQ(fleet_->RunningOn("a").value_or(std::vector<std::string>{}),
            std::vector<std::string>{"j"});
  EXPECT_TRUE(fleet_->RunningOn("b").value_or(std::vector<std::string>{"?"}).empty());
  EXPECT_EQ(fleet_->SharedProgress("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(FleetStoreProgressTest, ALostNodesProgressIsNotTheNextRuns) {
  ClaimAndRun("a");
  ASSERT_TRUE(fleet_->ShareProgress("a", "j", "first run").ok());
  absl::StatusOr<std::vector<ReapedJob>> reaped =
      fleet_->ReapExpired(kLeaseUntil + 1, /*max_attempts=*/2);
  ASSERT_TRUE(reaped.ok()) << reaped.status();
  ASSERT_EQ(reaped->size(), 1u);
  EXPECT_FALSE((*reaped)[0].failed);
  ASSERT_TRUE(fleet_->ShareProgress("a", "j", "after the lease").ok());
  EXPECT_EQ(Shared(), "first run") << "a re-queued job is no longer node a's to write";
  ClaimAndRun("b");
  EXPECT_EQ(Shared(), "");
  ASSERT_TRUE(fleet_->ShareProgress("b", "j", "second run").ok());
  EXPECT_EQ(Shared(), "second run");
}

TEST_F(FleetStoreProgressTest, ANodeWhoseLeaseLapsedStartsNothingUntilAHeartbeatRenewsIt) {
  absl::StatusOr<std::optional<JobRecord>> claimed =
      fleet_->Claim("a", ClaimableDevice{"cpu", {"cpu:any"}}, 10, kLeaseUntil, absl::Hours(1));
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  // Past the lease (the heartbeats failed): another node may reap the claim at any moment.
  absl::Status refused = jobs_["a"]->MarkRunning("j", kLeaseUntil + 1);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("lease on job j lapsed"));
  EXPECT_EQ(jobs_["a"]->Get("j")->state, JobState::kQueued);
  ASSERT_TRUE(fleet_->Heartbeat("a", kLeaseUntil + 2, "", kLeaseUntil + 100).ok());
  ASSERT_TRUE(jobs_["a"]->MarkRunning("j", kLeaseUntil + 3).ok());
}

TEST_F(FleetStoreProgressTest, AFinishHeldByANodeWhoseClaimWasReapedAndTakenIsRefused) {
  ClaimAndRun("a");
  ASSERT_TRUE(fleet_->ReapExpired(kLeaseUntil + 1, /*max_attempts=*/2).ok());
  ClaimAndRun("b");
  // Node a writes back what it held through the outage: node b's run stands.
  absl::Status late =
      jobs_["a"]->Finish("j", JobState::kSucceeded, absl::StatusCode::kOk, "", "a's", 30);
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition) << late;
  ASSERT_TRUE(
      jobs_["b"]->Finish("j", JobState::kSucceeded, absl::StatusCode::kOk, "", "b's", 40).ok());
  EXPECT_EQ(jobs_["a"]->Get("j")->result, "b's");
}

}  // namespace
}  // namespace kbench::store
