// The scheduler's fair share against a simulated clock and a scripted executor: the next job
// goes to the owner with the least GPU time, queued jobs' places and estimates follow that
// order, and usage replays from the store into a new scheduler.
#include <gtest/gtest.h>

#include "server/scheduler/scheduler.h"
#include "server/store/usage_store.h"
#include "tests/server/scheduler/scheduler_fixture.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::FakeExecutorState;
using ::kbench::scheduler::testing::SchedulerTest;

constexpr double kTimeoutSeconds = 100;

// The scheduler's fixture (scheduler_fixture.h) with a usage store, cuda off and a one-hour
// half-life; jobs are submitted by owner on the cpu device.
class FairShareTest : public SchedulerTest {
 protected:
  void SetUp() override {
    SchedulerTest::SetUp();
    auto usage = store::UsageStore::Open(data_dir_);
    ASSERT_TRUE(usage.ok()) << usage.status();
    usage_ = *std::move(usage);
    usage_store_ = usage_.get();
    options_.enable_cuda = false;
    options_.fair_share_half_life = absl::Hours(1);
  }

  std::string Submit(const std::string& owner) {
    const store::JobRecord r =
        Stored("cpu", kTimeoutSeconds, [&](v1::JobSpec* spec) { spec->set_owner(owner); });
    scheduler_->Enqueue(r);
    return r.id;
  }

  // Lets the `n`-th run (1-based) take `seconds` of simulated time, then succeed; returns its id.
  std::string RunFor(FakeExecutorState& cpu, size_t n, absl::Duration seconds) {
    EXPECT_TRUE(cpu.AwaitRuns(n));
    std::string id;
    {
      std::lock_guard lock(cpu.mu);
      id = cpu.runs.at(n - 1);
    }
    clock_.AdvanceTo(clock_.Now() + seconds);
    cpu.Succeed(id);
    return id;
  }

  std::unique_ptr<store::UsageStore> usage_;
};

TEST_F(FairShareTest, RunsTheOwnerWithTheLeastGpuTimeNextInsteadOfFirstComeFirstServed) {
  StartScheduler();
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  const std::string blocker = Submit("alice");
  ASSERT_TRUE(cpu->AwaitRuns(1));
  std::vector<std::string> alice = {Submit("alice"), Submit("alice"), Submit("alice")};
  std::vector<std::string> bob = {Submit("bob"), Submit("bob")};
  std::vector<std::string> order = {RunFor(*cpu, 1, absl::Seconds(10))};
  for (size_t n = 2; n <= 6; ++n) order.push_back(RunFor(*cpu, n, absl::Seconds(10)));
  // alice has 10 s when the line first moves: bob, then turns by usage (ties to the older job).
  EXPECT_EQ(order,
            (std::vector<std::string>{blocker, bob[0], alice[0], bob[1], alice[1], alice[2]}));
}

TEST_F(FairShareTest, PlacesQueuedJobsInFairShareOrderWithTheirEstimatedWait) {
  StartScheduler();
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  const std::string running = Submit("alice");
  ASSERT_TRUE(cpu->AwaitRuns(1));
  const std::string a1 = Submit("alice");
  const std::string b1 = Submit("bob");
  clock_.AdvanceTo(clock_.Now() + absl::Seconds(30));
  const std::map<std::string, QueuePlaceEstimate> places = scheduler_->QueuePlaces();
  EXPECT_FALSE(places.contains(running));
  ASSERT_TRUE(places.contains(a1) && places.contains(b1));
  EXPECT_EQ(places.at(b1).position, 1);
  EXPECT_EQ(places.at(a1).position, 2);
  EXPECT_TRUE(places.at(b1).device_busy);
  // No past runs: each job is expected to take its timeout; the running one has 70 s left.
  EXPECT_DOUBLE_EQ(places.at(b1).wait_seconds, kTimeoutSeconds - 30);
  EXPECT_DOUBLE_EQ(places.at(a1).wait_seconds, 2 * kTimeoutSeconds - 30);
  EXPECT_EQ(places.at(a1).from_timeout, 1);
  EXPECT_EQ(places.at(a1).from_history, 0);
  RunFor(*cpu, 1, absl::Seconds(10));
  ASSERT_TRUE(cpu->AwaitRuns(2));
  // One square run of 40 s seen: the estimate now comes from it.
  const std::map<std::string, QueuePlaceEstimate> after = scheduler_->QueuePlaces();
  ASSERT_TRUE(after.contains(a1));
  EXPECT_EQ(after.at(a1).position, 1);
  EXPECT_DOUBLE_EQ(after.at(a1).wait_seconds, 40);
}

TEST_F(FairShareTest, ReplaysRecordedUsageIntoANewSchedulerWithDecay) {
  StartScheduler();
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  Submit("alice");
  RunFor(*cpu, 1, absl::Seconds(60));
  const auto charged = [&] {
    for (const OwnerStanding& o : scheduler_->Usage().owners) {
      if (o.owner == "alice" && o.usage.total_gpu_seconds > 0) return true;
    }
    return false;
  };
  ASSERT_TRUE(clock_.AdvanceUntil(charged) || charged());
  scheduler_->Shutdown();
  scheduler_.reset();

  clock_.AdvanceTo(clock_.Now() + absl::Hours(1));
  StartScheduler();
  const UsageSnapshot usage = scheduler_->Usage("bob");
  ASSERT_EQ(usage.owners.size(), 2u);
  EXPECT_EQ(usage.owners[0].owner, "alice");
  // 60 s of run, plus whatever simulated time other waiters moved on before the worker took
  // the outcome (a fraction of a second): the replay must bring back exactly what was charged.
  const double total = usage.owners[0].usage.total_gpu_seconds;
  EXPECT_GE(total, 60);
  EXPECT_LT(total, 61);
  EXPECT_NEAR(usage.owners[0].usage.decayed_gpu_seconds, total / 2, 1e-3);  // a half-life later
  EXPECT_EQ(usage.owners[1].owner, "bob");
  EXPECT_DOUBLE_EQ(usage.owners[1].usage.total_gpu_seconds, 0);
}

}  // namespace
}  // namespace kbench::scheduler
