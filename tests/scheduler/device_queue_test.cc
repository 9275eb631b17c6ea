// DeviceQueue: priority first, then submission order; removal of queued jobs.
#include "server/scheduler/device_queue.h"

#include "gtest/gtest.h"

namespace kbench::scheduler {
namespace {

TEST(DeviceQueue, PopsHighestPriorityThenOldest) {
  DeviceQueue q;
  q.Push({"a", 0, 1, 0});
  q.Push({"b", 5, 2, 0});
  q.Push({"c", 0, 3, 0});
  q.Push({"d", 5, 4, 0});
  q.Push({"e", -3, 5, 0});
  std::vector<std::string> order;
  while (auto j = q.Pop()) order.push_back(j->id);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "d", "a", "c", "e"}));
  EXPECT_TRUE(q.empty());
}

TEST(DeviceQueue, RemoveTakesOutOnlyQueuedJobs) {
  DeviceQueue q;
  q.Push({"a", 0, 1, 0});
  q.Push({"b", 0, 2, 0});
  EXPECT_TRUE(q.Contains("a"));
  EXPECT_TRUE(q.Remove("a"));
  EXPECT_FALSE(q.Remove("a"));
  EXPECT_FALSE(q.Remove("zzz"));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.Pop()->id, "b");
}

}  // namespace
}  // namespace kbench::scheduler
