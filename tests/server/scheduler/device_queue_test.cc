// DeviceQueue: priority first, then submission order; removal of queued jobs.
#include "server/scheduler/device_queue.h"

#include "gtest/gtest.h"
#include "tests/server/scheduler/queued.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::Queued;

TEST(DeviceQueue, PopsHighestPriorityThenOldest) {
  DeviceQueue q;
  q.Push(Queued("a", 0, 1));
  q.Push(Queued("b", 5, 2));
  q.Push(Queued("c", 0, 3));
  q.Push(Queued("d", 5, 4));
  q.Push(Queued("e", -3, 5));
  std::vector<std::string> order;
  while (auto j = q.Pop()) order.push_back(j->id);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "d", "a", "c", "e"}));
  EXPECT_TRUE(q.empty());
}

TEST(DeviceQueue, RemoveTakesOutOnlyQueuedJobs) {
  DeviceQueue q;
  q.Push(Queued("a", 0, 1));
  q.Push(Queued("b", 0, 2));
  EXPECT_TRUE(q.Contains("a"));
  EXPECT_TRUE(q.Remove("a"));
  EXPECT_FALSE(q.Remove("a"));
  EXPECT_FALSE(q.Remove("zzz"));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.Pop()->id, "b");
}

}  // namespace
}  // namespace kbench::scheduler
