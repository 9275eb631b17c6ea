// A fleet's job transitions through JobLifecycle (the one owner of a job's life) on a real
// PostgreSQL, with time from a simulated clock: leases run from the clock's now, a heartbeat
// renews them, a lost node's job is re-queued once (FairSharePolicy::MayRetry) and then failed,
// and claims follow the fair-share policy. No test sleeps: the clock is moved.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/common/fair_share_policy.h"
#include "server/scheduler/job_lifecycle.h"
#include "server/store/fleet_store.h"
#include "server/store/job_store.h"
#include "tests/postgres/postgres_server.h"
#include "tests/server/scheduler/scheduler_doubles.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::RecordingMetrics;
using ::kbench::scheduler::testing::SimulatedClock;
using store::JobState;

constexpr absl::Duration kLease = absl::Seconds(15);
constexpr absl::Duration kHalfLife = absl::Hours(1);
const store::ClaimableDevice kCpu{"cpu", {"cpu:any"}};

class FleetLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KBENCH_REQUIRE_POSTGRES();
    const std::string url = kbench::testing::PostgresServer::Shared().NewDatabase();
    ASSERT_FALSE(url.empty()) << kbench::testing::PostgresServer::Shared().reason();
    // Each node's job store writes as that node, and its lifecycle owns that node's transitions.
    for (const char* node : {"a", "b"}) {
      absl::StatusOr<std::unique_ptr<store::JobStore>> jobs = store::JobStore::Open(
          store::StoreLocation{.data_dir = "", .postgres_url = url, .node = node});
      ASSERT_TRUE(jobs.ok()) << jobs.status();
      jobs_[node] = *std::move(jobs);
      lifecycles_[node] =
          std::make_unique<JobLifecycle>(jobs_[node].get(), &metrics_, &events_, &clock_);
    }
    // After the job stores: their first open migrates the schema.
    absl::StatusOr<std::unique_ptr<store::FleetStore>> fleet = store::FleetStore::Open(
        store::StoreLocation{.data_dir = "", .postgres_url = url, .node = ""});
    ASSERT_TRUE(fleet.ok()) << fleet.status();
    fleet_ = *std::move(fleet);
    for (const char* node : {"a", "b"}) {
      store::NodeRecord record;
      record.name = node;
      ASSERT_TRUE(fleet_->RegisterNode(record).ok());
    }
  }

  JobLifecycle& On(const std::string& node) { return *lifecycles_.at(node); }

  // Submits a job for any cpu through node a's lifecycle.
  std::string Submit(const std::string& owner, int32_t priority = 0) {
    store::JobRecord record;
    record.id = absl::StrCat("job-", ++submitted_);
    record.device = record.target = "cpu:any";
    record.kernel = "square";
    record.owner = owner;
    record.priority = priority;
    record.spec = "spec";
    absl::StatusOr<std::pair<store::JobRecord, bool>> created = On("a").Create(record);
    EXPECT_TRUE(created.ok()) << created.status();
    return record.id;
  }

  // `node` claims the next job for its cpu; "" when none was claimed.
  std::string Claim(const std::string& node) {
    absl::StatusOr<std::optional<store::JobRecord>> claimed =
        On(node).Claim(*fleet_, node, kCpu, kLease, kHalfLife);
    EXPECT_TRUE(claimed.ok()) << claimed.status();
    return claimed.ok() && claimed->has_value() ? (*claimed)->id : "";
  }

  std::vector<store::ReapedJob> Reap() {
    absl::StatusOr<std::vector<store::ReapedJob>> reaped = On("a").ReapExpired(*fleet_);
    EXPECT_TRUE(reaped.ok()) << reaped.status();
    return reaped.value_or(std::vector<store::ReapedJob>{});
  }

  store::JobRecord Get(const std::string& id) { return *jobs_.at("a")->Get(id); }
  void Advance(absl::Duration d) { clock_.AdvanceTo(clock_.Now() + d); }

  SimulatedClock clock_;
  RecordingMetrics metrics_;
  JobEvents events_;
  std::unique_ptr<store::FleetStore> fleet_;
  std::map<std::string, std::unique_ptr<store::JobStore>> jobs_;
  std::map<std::string, std::unique_ptr<JobLifecycle>> lifecycles_;
  int submitted_ = 0;
};

TEST_F(FleetLifecycleTest, AClaimedJobIsKeptUntilItsLeaseFromTheClockPasses) {
  const std::string id = Submit("alice");
  ASSERT_EQ(Claim("a"), id);
  Advance(kLease - absl::Seconds(1));
  EXPECT_TRUE(Reap().empty());
  EXPECT_EQ(Get(id).node, "a");
  Advance(absl::Seconds(2));
  const std::vector<store::ReapedJob> reaped = Reap();
  ASSERT_EQ(reaped.size(), 1u);
  EXPECT_FALSE(reaped[0].failed);
  EXPECT_EQ(Get(id).state, JobState::kQueued);
  EXPECT_EQ(Get(id).node, "");
}

TEST_F(FleetLifecycleTest, AHeartbeatRenewsTheLeaseFromTheClock) {
  const std::string id = Submit("alice");
  ASSERT_EQ(Claim("a"), id);
  Advance(absl::Seconds(10));
  ASSERT_TRUE(On("a").Heartbeat(*fleet_, "a", "", kLease).ok());
  Advance(absl::Seconds(10));  // 20 s after the claim, 10 s after the beat
  EXPECT_TRUE(Reap().empty());
  EXPECT_EQ(Get(id).node, "a");
  Advance(absl::Seconds(6));  // the renewed lease passed
  EXPECT_EQ(Reap().size(), 1u);
}

TEST_F(FleetLifecycleTest, ALostNodesRunningJobIsRequeuedOnceThenFailed) {
  const std::string id = Submit("alice");
  ASSERT_EQ(Claim("a"), id);
  ASSERT_TRUE(On("a").Start(id).ok());
  Advance(kLease + absl::Seconds(1));
  std::vector<store::ReapedJob> reaped = Reap();
  ASSERT_EQ(reaped.size(), 1u);
  EXPECT_FALSE(reaped[0].failed);
  EXPECT_EQ(Get(id).state, JobState::kQueued);
  const uint64_t before_second_loss = events_.Version(id);

  ASSERT_EQ(Claim("b"), id);
  ASSERT_TRUE(On("b").Start(id).ok());
  EXPECT_EQ(Get(id).attempts, FairSharePolicy::kMaxAttempts);
  Advance(kLease + absl::Seconds(1));
  reaped = Reap();
  ASSERT_EQ(reaped.size(), 1u);
  EXPECT_TRUE(reaped[0].failed);
  EXPECT_EQ(Get(id).state, JobState::kFailed);
  EXPECT_EQ(Get(id).code, absl::StatusCode::kUnavailable);
  EXPECT_GT(events_.Version(id), before_second_loss);  // its watchers were told
}

TEST_F(FleetLifecycleTest, AStartAfterTheLeasePassedIsRefused) {
  const std::string id = Submit("alice");
  ASSERT_EQ(Claim("a"), id);
  Advance(kLease + absl::Seconds(1));
  EXPECT_EQ(On("a").Start(id).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Get(id).state, JobState::kQueued);
}

TEST_F(FleetLifecycleTest, ClaimsFollowTheFairSharePolicy) {
  // alice's job is older, but bob runs one now: alice goes first, then an admin's boost
  // outranks both.
  const std::string bobs_running = Submit("bob");
  ASSERT_EQ(Claim("b"), bobs_running);
  ASSERT_TRUE(On("b").Start(bobs_running).ok());
  Advance(absl::Minutes(1));
  const std::string bobs = Submit("bob");
  const std::string alices = Submit("alice");
  const std::string boosted = Submit("carol", /*priority=*/5);
  // The policy's own order of the three candidates, with the usage the SQL counts.
  const FairShareRank bob{0, 60, 2}, alice{0, 0, 3}, carol{5, 0, 4};
  EXPECT_TRUE(FairSharePolicy::Before(carol, alice));
  EXPECT_TRUE(FairSharePolicy::Before(alice, bob));
  EXPECT_EQ(Claim("a"), boosted);
  EXPECT_EQ(Claim("a"), alices);
  EXPECT_EQ(Claim("a"), bobs);
  EXPECT_EQ(Claim("a"), "");
}

TEST_F(FleetLifecycleTest, ACancelWhileUnclaimedEndsTheJobAndTellsItsWatchers) {
  const std::string id = Submit("alice");
  const uint64_t before = events_.Version(id);
  absl::StatusOr<bool> cancelled = On("b").CancelUnclaimed(*fleet_, id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(*cancelled);
  EXPECT_EQ(Get(id).state, JobState::kCancelled);
  EXPECT_GT(events_.Version(id), before);
  EXPECT_EQ(Claim("a"), "");
}

TEST_F(FleetLifecycleTest, ACancelWhileUnclaimedRecordsTheCancelledCode) {
  const std::string id = Submit("alice");
  ASSERT_TRUE(On("b").CancelUnclaimed(*fleet_, id).ok());
  EXPECT_EQ(Get(id).code, absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace kbench::scheduler
