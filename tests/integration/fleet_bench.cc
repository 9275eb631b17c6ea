// Benchmarks of the fleet (issue 14), not tests: run by hand, results in docs/benchmarks.md.
//   build/nocuda/tests/integration/fleet_bench [--gtest_filter=...]
// Submit throughput (3 client threads) and claim latency (a submit's create time to its start
// time, one job at a time on an idle fleet) with 1 and 3 PostgreSQL nodes, against a single
// host on SQLite measured in the same run; and the time from a node's SIGKILL to its job
// running on another node, with the lease it waited out.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/postgres/postgres_server.h"

namespace kbench::testing {
namespace {

using Clock = std::chrono::steady_clock;
using google::protobuf::util::TimeUtil;

struct Fleet {
  std::vector<std::unique_ptr<TempDir>> dirs;
  std::vector<std::unique_ptr<Daemon>> nodes;
};

// `count` nodes on a fresh PostgreSQL database, or one SQLite host when count is 0.
Fleet StartFleet(int count, const std::string& lease = "15") {
  Fleet fleet;
  const std::string url = count > 0 ? PostgresServer::Shared().NewDatabase() : "";
  for (int i = 0; i < std::max(count, 1); ++i) {
    fleet.dirs.push_back(std::make_unique<TempDir>());
    // Quotas high enough for the burst: what is measured is the path, not the refusal.
    std::vector<std::string> args = {"--no-cuda", "--default-max-queued-jobs", "100000",
                                     "--max-queued-jobs", "100000"};
    if (count > 0) {
      args.insert(args.end(),
                  {"--store", url, "--node", "node-" + std::to_string(i), "--node-lease", lease});
    }
    fleet.nodes.push_back(std::make_unique<Daemon>(fleet.dirs.back()->path(), args));
  }
  return fleet;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

v1::JobSpec BenchSpec(bool fleet) {
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_device(fleet ? "cpu:any" : "cpu");
  spec.mutable_stopping()->set_min_samples(3);
  spec.mutable_stopping()->set_min_time_seconds(0.001);
  return spec;
}

// Submits `jobs` jobs from 3 threads spread over the nodes; returns submits per second.
double SubmitThroughput(Fleet& fleet, int jobs, bool is_fleet) {
  const v1::JobSpec spec = BenchSpec(is_fleet);
  std::atomic<int> failed{0};
  std::mutex mu;
  std::string first_error;
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      Daemon& node = *fleet.nodes[t % fleet.nodes.size()];
      for (int i = t; i < jobs; i += 3) {
        absl::StatusOr<v1::Job> job = Submit(node.stub(), spec);
        if (job.ok()) continue;
        ++failed;
        std::lock_guard lock(mu);
        if (first_error.empty()) first_error = job.status().ToString();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(failed.load(), 0) << first_error;
  return jobs / seconds;
}

// One job at a time on an idle fleet: start time minus create time, in milliseconds.
std::vector<double> ClaimLatencies(Fleet& fleet, int jobs, bool is_fleet) {
  std::vector<double> ms;
  for (int i = 0; i < jobs; ++i) {
    Daemon& node = *fleet.nodes[i % fleet.nodes.size()];
    absl::StatusOr<v1::Job> job = Submit(node.stub(), BenchSpec(is_fleet));
    if (!job.ok()) continue;
    const v1::Job done =
        WaitFor(node.stub(), job->id(), [](const v1::Job& j) { return IsTerminal(j.state()); });
    ms.push_back((TimeUtil::TimestampToNanoseconds(done.start_time()) -
                  TimeUtil::TimestampToNanoseconds(done.create_time())) /
                 1e6);
  }
  return ms;
}

void Report(const char* what, int nodes, double per_second, const std::vector<double>& ms) {
  std::printf("%-28s nodes=%d  submits/s=%.0f  claim latency ms: p50=%.1f p95=%.1f (n=%zu)\n", what,
              nodes, per_second, Percentile(ms, 0.5), Percentile(ms, 0.95), ms.size());
}

TEST(FleetBench, SubmitThroughputAndClaimLatency) {
  KBENCH_REQUIRE_POSTGRES();
  constexpr int kSubmits = 600;
  constexpr int kLatencyJobs = 60;
  for (int count : {0, 1, 3}) {
    Fleet fleet = StartFleet(count);
    const double per_second = SubmitThroughput(fleet, kSubmits, count > 0);
    // Let the submitted jobs drain before timing single jobs on an idle fleet.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    absl::StatusOr<v1::Job> last = Submit(fleet.nodes[0]->stub(), BenchSpec(count > 0));
    ASSERT_TRUE(last.ok());
    WaitFor(
        fleet.nodes[0]->stub(), last->id(), [](const v1::Job& j) { return IsTerminal(j.state()); },
        std::chrono::seconds(300));
    Report(count == 0 ? "single host (SQLite)" : "fleet (PostgreSQL)", std::max(count, 1),
           per_second, ClaimLatencies(fleet, kLatencyJobs, count > 0));
  }
}

TEST(FleetBench, TimeFromANodesDeathToItsJobRunningElsewhere) {
  KBENCH_REQUIRE_POSTGRES();
  for (const char* lease : {"3", "15"}) {
    Fleet fleet = StartFleet(2, lease);
    v1::JobSpec spec = LongCpuSpec(2.0);
    spec.set_device("cpu:any");
    absl::StatusOr<v1::Job> job = Submit(fleet.nodes[0]->stub(), spec);
    ASSERT_TRUE(job.ok());
    const v1::Job running = WaitFor(fleet.nodes[0]->stub(), job->id(), [](const v1::Job& j) {
      return j.state() == v1::JOB_STATE_RUNNING;
    });
    const bool first_is_0 = running.device().rfind("node-0/", 0) == 0;
    Daemon& victim = *fleet.nodes[first_is_0 ? 0 : 1];
    Daemon& survivor = *fleet.nodes[first_is_0 ? 1 : 0];
    const auto killed = Clock::now();
    victim.Stop(SIGKILL);
    const v1::Job again = WaitFor(
        survivor.stub(), job->id(),
        [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING && j.attempts() == 2; },
        std::chrono::seconds(120));
    const double seconds = std::chrono::duration<double>(Clock::now() - killed).count();
    EXPECT_EQ(again.attempts(), 2);
    std::printf("lease %2s s: SIGKILL to RUNNING on %s: %.2f s\n", lease, again.device().c_str(),
                seconds);
  }
}

}  // namespace
}  // namespace kbench::testing
