// WatchHub: every watcher sees each change of its job, a terminal state ends the watch, removed
// watchers are never called again, and shutdown closes every watch.
#include "server/api/watch_hub.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace kbench::api {
namespace {

using namespace std::chrono_literals;

// A job store and event counter the test drives.
class FakeJobs {
 public:
  void Set(const std::string& id, v1::JobState state) {
    std::lock_guard<std::mutex> lock(mu_);
    states_[id] = state;
    ++versions_[id];
  }
  uint64_t Version(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    return versions_[id];
  }
  absl::StatusOr<v1::Job> Load(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    ++loads_;
    v1::Job job;
    job.set_id(id);
    job.set_state(states_[id]);
    return job;
  }
  int loads() {
    std::lock_guard<std::mutex> lock(mu_);
    return loads_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, v1::JobState> states_;
  std::map<std::string, uint64_t> versions_;
  int loads_ = 0;
};

class RecordingWatcher : public JobWatcher {
 public:
  void OnJob(const absl::StatusOr<v1::Job>& job) override {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back(job.ok() ? job->state() : v1::JOB_STATE_UNSPECIFIED);
    if (!job.ok()) error_ = job.status();
  }
  std::vector<v1::JobState> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  absl::Status error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::vector<v1::JobState> seen_;
  absl::Status error_;
};

class WatchHubTest : public ::testing::Test {
 protected:
  WatchHubTest()
      : hub_([this](const std::string& id) { return jobs_.Version(id); },
             [this](const std::string& id) { return jobs_.Load(id); }, 1ms) {}

  void Watch(const std::string& id, RecordingWatcher* w) {
    const uint64_t version = jobs_.Version(id);
    hub_.Add(id, version, *jobs_.Load(id), w);
  }

  // Waits (bounded) until `w` has seen `n` snapshots.
  static bool WaitForCount(RecordingWatcher& w, size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (w.seen().size() < n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    return w.seen().size() >= n;
  }

  FakeJobs jobs_;
  WatchHub hub_;
};

TEST_F(WatchHubTest, DeliversEachChangeUntilTheTerminalStateThenDropsTheWatcher) {
  jobs_.Set("j", v1::JOB_STATE_QUEUED);
  RecordingWatcher w;
  Watch("j", &w);
  ASSERT_EQ(w.seen().size(), 1u);
  jobs_.Set("j", v1::JOB_STATE_RUNNING);
  ASSERT_TRUE(WaitForCount(w, 2));
  jobs_.Set("j", v1::JOB_STATE_SUCCEEDED);
  ASSERT_TRUE(WaitForCount(w, 3));
  EXPECT_EQ(w.seen().back(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(hub_.watchers(), 0u);
}

TEST_F(WatchHubTest, LoadsAChangedJobOnceForAllItsWatchers) {
  jobs_.Set("j", v1::JOB_STATE_QUEUED);
  std::vector<RecordingWatcher> watchers(100);
  for (RecordingWatcher& w : watchers) Watch("j", &w);
  const int loads_before = jobs_.loads();
  jobs_.Set("j", v1::JOB_STATE_CANCELLED);
  for (RecordingWatcher& w : watchers) {
    ASSERT_TRUE(WaitForCount(w, 2));
    EXPECT_EQ(w.seen().back(), v1::JOB_STATE_CANCELLED);
  }
  EXPECT_EQ(jobs_.loads() - loads_before, 1);
}

TEST_F(WatchHubTest, AWatcherThatMissedAChangeBeforeAddIsBroughtUpToDate) {
  jobs_.Set("j", v1::JOB_STATE_QUEUED);
  RecordingWatcher early;
  Watch("j", &early);
  // Loaded at an older version than the job now has.
  RecordingWatcher late;
  const uint64_t stale_version = jobs_.Version("j");
  const v1::Job stale = *jobs_.Load("j");
  jobs_.Set("j", v1::JOB_STATE_RUNNING);
  ASSERT_TRUE(WaitForCount(early, 2));
  hub_.Add("j", stale_version, stale, &late);
  ASSERT_TRUE(WaitForCount(late, 2));
  EXPECT_EQ(late.seen().back(), v1::JOB_STATE_RUNNING);
  hub_.Remove(&early);
  hub_.Remove(&late);
}

TEST_F(WatchHubTest, ARemovedWatcherIsNeverCalledAgain) {
  jobs_.Set("j", v1::JOB_STATE_QUEUED);
  RecordingWatcher w;
  Watch("j", &w);
  hub_.Remove(&w);
  hub_.Remove(&w);  // idempotent
  jobs_.Set("j", v1::JOB_STATE_RUNNING);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(w.seen().size(), 1u);
  EXPECT_EQ(hub_.watchers(), 0u);
}

TEST_F(WatchHubTest, CloseAllEndsOpenWatchesAndRefusesNewOnes) {
  jobs_.Set("j", v1::JOB_STATE_QUEUED);
  RecordingWatcher open, later;
  Watch("j", &open);
  hub_.CloseAll(absl::UnavailableError("shutting down"));
  EXPECT_EQ(open.error().code(), absl::StatusCode::kUnavailable);
  Watch("j", &later);
  EXPECT_EQ(later.error().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(hub_.watchers(), 0u);
}

}  // namespace
}  // namespace kbench::api
