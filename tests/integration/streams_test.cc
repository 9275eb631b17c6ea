// Integration (issue 12, item 1): open WatchJob streams hold no server thread. 5,000 watchers
// on queued jobs leave kbenchd's thread count bounded, the jobs still run, and every watcher
// sees its job's terminal state.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/async_watcher.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kWatchers = 5000;
constexpr int kQueuedJobs = 9;
// Separate connections, so the test does not depend on one connection's stream limit.
constexpr int kChannels = 10;
// The sync API needed a thread per stream (2,435 threads for 5,000 watchers).
constexpr int kMaxThreads = 64;

int ThreadsOf(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

std::vector<std::unique_ptr<v1::KbenchService::Stub>> Stubs(const std::string& address) {
  std::vector<std::unique_ptr<v1::KbenchService::Stub>> stubs;
  for (int i = 0; i < kChannels; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("kbench.test.channel", i);  // distinct args: distinct connections
    stubs.push_back(v1::KbenchService::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args)));
  }
  return stubs;
}

void CancelJob(v1::KbenchService::Stub& stub, const std::string& id) {
  grpc::ClientContext ctx;
  v1::CancelJobRequest req;
  req.set_job_id(id);
  v1::CancelJobResponse resp;
  ASSERT_TRUE(stub.CancelJob(&ctx, req, &resp).ok());
}

TEST(Streams, FiveThousandWatchersHoldNoThreadAndAllSeeTheTerminalState) {
  TempDir dir;
  Daemon daemon(dir.path());
  // A long job holds the cpu device, so the others stay queued while the watchers open.
  absl::StatusOr<v1::Job> blocker = Submit(daemon.stub(), LongCpuSpec(40));
  ASSERT_TRUE(blocker.ok()) << blocker.status();
  std::vector<std::string> jobs = {blocker->id()};
  for (int i = 0; i < kQueuedJobs; ++i) {
    absl::StatusOr<v1::Job> job = Submit(daemon.stub(), QuickCpuSpec());
    ASSERT_TRUE(job.ok()) << job.status();
    jobs.push_back(job->id());
  }
  const int idle_threads = ThreadsOf(daemon.pid());

  const auto deadline = Clock::now() + std::chrono::seconds(45);
  auto stubs = Stubs(daemon.address());
  WatchTally tally;
  std::vector<std::unique_ptr<AsyncWatcher>> watchers;
  for (int i = 0; i < kWatchers; ++i) {
    watchers.push_back(std::make_unique<AsyncWatcher>(*stubs[i % kChannels], jobs[i % jobs.size()],
                                                      &tally, std::chrono::seconds(50)));
  }
  const bool all_open = tally.WaitOpened(kWatchers, deadline);
  const int open_threads = ThreadsOf(daemon.pid());
  std::printf("kbenchd threads: %d idle, %d with %d watchers open\n", idle_threads, open_threads,
              kWatchers);
  EXPECT_TRUE(all_open) << "not every watcher received its first snapshot in time";
  EXPECT_GT(open_threads, 0);
  EXPECT_LT(open_threads, kMaxThreads);

  // Free the device: the queued jobs run while all the streams stay open.
  CancelJob(daemon.stub(), blocker->id());
  const bool all_done = tally.WaitDone(kWatchers, deadline);
  EXPECT_TRUE(all_done) << "not every watch ended in time";
  if (!all_done) {
    for (auto& w : watchers) w->Cancel();
    // A reactor must outlive its OnDone; if even a cancel does not end it, leak it.
    if (!tally.WaitDone(kWatchers, Clock::now() + std::chrono::seconds(5))) {
      for (auto& w : watchers) (void)w.release();
      return;
    }
  }
  int ok = 0;
  for (size_t i = 0; i < watchers.size(); ++i) {
    const AsyncWatcher& w = *watchers[i];
    const v1::JobState want =
        i % jobs.size() == 0 ? v1::JOB_STATE_CANCELLED : v1::JOB_STATE_SUCCEEDED;
    ok += w.status().ok() && w.last_state() == want;
  }
  EXPECT_EQ(ok, kWatchers);
}

}  // namespace
}  // namespace kbench::testing
