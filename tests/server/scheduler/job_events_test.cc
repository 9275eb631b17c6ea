// JobEvents: versions change on publish, waiters wake on change and time out without one.
#include "server/scheduler/job_events.h"

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace kbench::scheduler {
namespace {

using SteadyClock = std::chrono::steady_clock;

TEST(JobEvents, PublishChangesVersionAndKeepsProgress) {
  JobEvents events;
  EXPECT_EQ(events.Version("j"), 0u);
  v1::Progress p;
  p.set_samples(7);
  events.Publish("j", &p);
  const uint64_t v1 = events.Version("j");
  EXPECT_NE(v1, 0u);
  ASSERT_TRUE(events.LatestProgress("j").has_value());
  EXPECT_EQ(events.LatestProgress("j")->samples(), 7);
  events.Finished("j");
  EXPECT_NE(events.Version("j"), v1);
  EXPECT_FALSE(events.LatestProgress("j").has_value());
}

TEST(JobEvents, AStartedRunDropsTheProgressOfTheRunBefore) {
  JobEvents events;
  v1::Progress p;
  p.set_samples(7);
  events.Publish("j", &p);
  const uint64_t before = events.Version("j");
  events.Started("j");
  EXPECT_NE(events.Version("j"), before);
  EXPECT_FALSE(events.LatestProgress("j").has_value());
  events.Publish("j");
  EXPECT_FALSE(events.LatestProgress("j").has_value()) << "a plain change reports no progress";
}

TEST(JobEvents, WaitForChangeWakesOnPublishFromAnotherThread) {
  JobEvents events;
  const uint64_t seen = events.Version("j");
  std::thread publisher([&] { events.Publish("j"); });
  const uint64_t now =
      events.WaitForChange("j", seen, SteadyClock::now() + std::chrono::seconds(30));
  publisher.join();
  EXPECT_NE(now, seen);
}

TEST(JobEvents, WaitForChangeReturnsSameVersionAtDeadline) {
  JobEvents events;
  events.Publish("j");
  const uint64_t seen = events.Version("j");
  EXPECT_EQ(events.WaitForChange("j", seen, SteadyClock::now() + std::chrono::milliseconds(20)),
            seen);
}

TEST(JobEvents, ForgetsFinishedJobsBeyondABoundedTail) {
  JobEvents events;
  const size_t jobs = JobEvents::kFinishedKept + 500;
  for (size_t i = 0; i < jobs; ++i) {
    const std::string id = "j" + std::to_string(i);
    events.Publish(id);
    events.Finished(id);
  }
  EXPECT_EQ(events.EntryCount(), JobEvents::kFinishedKept);
  // The oldest were forgotten (a late watcher reads the store), the newest still wake waiters.
  EXPECT_EQ(events.Version("j0"), 0u);
  EXPECT_NE(events.Version("j" + std::to_string(jobs - 1)), 0u);
}

TEST(JobEvents, KeepsJobsThatHaveNotFinished) {
  JobEvents events;
  events.Publish("queued");
  for (size_t i = 0; i < JobEvents::kFinishedKept + 10; ++i) {
    events.Finished("done" + std::to_string(i));
  }
  EXPECT_NE(events.Version("queued"), 0u);
}

}  // namespace
}  // namespace kbench::scheduler
