// UsageLedger: exponential decay by half-life, today's GPU seconds reset at 00:00 UTC, totals;
// DeviceQueue's fair-share order between owners.
#include "server/scheduler/usage_ledger.h"

#include <gtest/gtest.h>

#include <map>

#include "server/scheduler/device_queue.h"
#include "tests/server/scheduler/queued.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::Queued;

// 2023-11-14 22:13:20 UTC: far enough from midnight for an hour's steps either way.
const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST(UsageLedger, HalvesUsageEveryHalfLife) {
  UsageLedger ledger(absl::Hours(1));
  ledger.Charge("alice", 100, kT0);
  EXPECT_DOUBLE_EQ(ledger.Decayed("alice", kT0), 100);
  EXPECT_NEAR(ledger.Decayed("alice", kT0 + absl::Hours(1)), 50, 1e-9);
  EXPECT_NEAR(ledger.Decayed("alice", kT0 + absl::Hours(2)), 25, 1e-9);
  EXPECT_DOUBLE_EQ(ledger.Decayed("nobody", kT0), 0);
}

TEST(UsageLedger, DecaysEachChargeFromItsOwnTimeWhateverTheOrder) {
  UsageLedger in_order(absl::Minutes(30));
  in_order.Charge("a", 40, kT0);
  in_order.Charge("a", 10, kT0 + absl::Minutes(30));
  UsageLedger out_of_order(absl::Minutes(30));
  out_of_order.Charge("a", 10, kT0 + absl::Minutes(30));
  out_of_order.Charge("a", 40, kT0);
  const absl::Time later = kT0 + absl::Minutes(60);
  // 40 / 4 + 10 / 2
  EXPECT_NEAR(in_order.Decayed("a", later), 15, 1e-9);
  EXPECT_NEAR(out_of_order.Decayed("a", later), 15, 1e-9);
}

TEST(UsageLedger, CountsTodayFromUtcMidnightAndKeepsTheTotal) {
  UsageLedger ledger(absl::Hours(1));
  const absl::Time midnight = NextUtcMidnight(kT0);
  EXPECT_EQ(midnight, absl::FromUnixSeconds(1700006400));  // 2023-11-15 00:00:00 UTC
  ledger.Charge("a", 30, midnight - absl::Minutes(10));
  EXPECT_DOUBLE_EQ(ledger.Today("a", midnight - absl::Minutes(1)), 30);
  EXPECT_DOUBLE_EQ(ledger.Today("a", midnight + absl::Minutes(1)), 0);
  ledger.Charge("a", 5, midnight + absl::Minutes(2));
  const OwnerUsageTotals totals = ledger.Totals("a", midnight + absl::Minutes(3));
  EXPECT_DOUBLE_EQ(totals.today_gpu_seconds, 5);
  EXPECT_DOUBLE_EQ(totals.total_gpu_seconds, 35);
  EXPECT_EQ(ledger.Owners(), std::vector<std::string>{"a"});
}

std::vector<std::string> PopAll(DeviceQueue& q, std::map<std::string, double> usage,
                                double seconds_per_job) {
  std::vector<std::string> order;
  while (auto job = q.Pop([&](const std::string& owner) { return usage[owner]; })) {
    order.push_back(job->id);
    usage[job->owner] += seconds_per_job;
  }
  return order;
}

TEST(DeviceQueue, GivesTheNextTurnToTheOwnerWithTheLeastUsage) {
  DeviceQueue q;
  for (int i = 1; i <= 4; ++i) q.Push(Queued("a" + std::to_string(i), 0, i, "alice"));
  q.Push(Queued("b1", 0, 5, "bob"));
  q.Push(Queued("b2", 0, 6, "bob"));
  // Alice already used 10 s: bob goes first, then they alternate (ties to the older job).
  EXPECT_EQ(PopAll(q, {{"alice", 10}}, 10),
            (std::vector<std::string>{"b1", "a1", "b2", "a2", "a3", "a4"}));
}

TEST(DeviceQueue, OrdersAnOwnersJobsByPriorityAndLetsOnlyPositivePriorityJumpOwners) {
  DeviceQueue q;
  q.Push(Queued("a-low", -5, 1, "alice"));
  q.Push(Queued("a-high", 0, 2, "alice"));
  q.Push(Queued("b", 0, 3, "bob"));
  q.Push(Queued("admin-urgent", 50, 4, "carol"));
  // carol's priority 50 goes before anyone's fair-share turn, though she used the most.
  EXPECT_EQ(PopAll(q, {{"alice", 1}, {"bob", 2}, {"carol", 1000}}, 10),
            (std::vector<std::string>{"admin-urgent", "a-high", "b", "a-low"}));
}

TEST(DeviceQueue, LinePlaysTheOrderForwardWithoutTakingJobs) {
  DeviceQueue q;
  q.Push(Queued("a1", 0, 1, "alice"));
  q.Push(Queued("a2", 0, 2, "alice"));
  q.Push(Queued("b1", 0, 3, "bob"));
  const std::vector<QueuedJob> line =
      q.Line([](const std::string&) { return 0.0; }, [](const QueuedJob&) { return 5.0; });
  std::vector<std::string> ids;
  for (const QueuedJob& j : line) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a1", "b1", "a2"}));
  EXPECT_EQ(q.size(), 3u);
  EXPECT_TRUE(q.Remove("b1"));
  EXPECT_FALSE(q.Contains("b1"));
  EXPECT_EQ(q.Pop()->id, "a1");
}

}  // namespace
}  // namespace kbench::scheduler
