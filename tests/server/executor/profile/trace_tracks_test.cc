// The trace's tracks: on the recorded fixtures and on a log whose sync and overhead sources
// overlap one another, no track holds two partially overlapping slices, and each source of
// synchronisation or CUPTI overhead has a named track of its own.
#include <map>
#include <set>

#include "gtest/gtest.h"
#include "server/executor/profile/chrome_trace.h"
#include "tests/server/executor/profile/fixtures.h"
#include "tests/server/executor/profile/trace_checks.h"

namespace kbench::executor::profile {
namespace {

using nlohmann::json;
using testing::PartialOverlaps;

constexpr uint32_t kPid = 100;
constexpr uint32_t kJobThread = 101;
constexpr uint32_t kWorkerThread = 102;
constexpr uint32_t kCuptiThread = 103;

json Trace(const ActivityLog& log) {
  return json::parse(BuildChromeTrace(log, Attribute(log), TraceOptions()).dump());
}

ApiActivity Call(uint32_t thread, uint32_t correlation, uint64_t start, uint64_t end) {
  return {.name = "cudaStreamSynchronize",
          .start_ns = start,
          .end_ns = end,
          .process_id = kPid,
          .thread_id = thread,
          .correlation_id = correlation};
}

OverheadActivity OnThread(const std::string& kind, uint32_t thread, uint64_t start, uint64_t end) {
  return {.kind = kind,
          .start_ns = start,
          .end_ns = end,
          .on_thread = true,
          .process_id = kPid,
          .thread_id = thread};
}

// Two threads wait at once, CUPTI flushes on its thread while the job's thread is instrumented,
// and the device's overheads of two kinds overlap: each pair overlaps partially.
ActivityLog OverlappingSources() {
  ActivityLog log;
  log.api_calls = {Call(kJobThread, 1, 1000, 5000), Call(kWorkerThread, 2, 3000, 8000)};
  log.syncs = {{.type = "stream_synchronize",
                .start_ns = 1000,
                .end_ns = 5000,
                .stream = 7,
                .correlation_id = 1},
               {.type = "stream_synchronize",
                .start_ns = 3000,
                .end_ns = 8000,
                .stream = 8,
                .correlation_id = 2}};
  log.overheads = {OnThread("cupti_instrumentation", kJobThread, 2000, 6000),
                   OnThread("cupti_buffer_flush", kCuptiThread, 4000, 9000),
                   {.kind = "driver_compiler",
                    .start_ns = 2500,
                    .end_ns = 7000,
                    .on_thread = false,
                    .device = 0},
                   {.kind = "cupti_resource",
                    .start_ns = 5000,
                    .end_ns = 9500,
                    .on_thread = false,
                    .device = 0}};
  return log;
}

std::map<int64_t, std::string> ThreadNames(const json& trace) {
  std::map<int64_t, std::string> names;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      names[e["tid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    }
  }
  return names;
}

TEST(TraceTracks, NoTrackOfTheSoftmaxFixtureOverlapsPartially) {
  const std::vector<std::string> problems = PartialOverlaps(Trace(testing::LoadSoftmaxFixture()));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(TraceTracks, NoTrackOfTheH100RecordingOverlapsPartially) {
  absl::StatusOr<ActivityLog> log = ActivityLogFromJson(
      json::parse(testing::ReadFixtureText("h100_softmax_naive_fused.activity.json")));
  ASSERT_TRUE(log.ok()) << log.status();
  const std::vector<std::string> problems = PartialOverlaps(Trace(*log));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(TraceTracks, NoTrackOverlapsPartiallyWhenSourcesOverlapEachOther) {
  const std::vector<std::string> problems = PartialOverlaps(Trace(OverlappingSources()));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(TraceTracks, GivesEachSyncAndOverheadSourceItsOwnNamedTrack) {
  const json trace = Trace(OverlappingSources());
  const std::map<int64_t, std::string> names = ThreadNames(trace);
  std::map<std::string, std::set<int64_t>> tids_by_track_name;
  for (const json& e : trace["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (e["ph"] != "X" || (cat != "cuda_sync" && cat != "cupti_overhead")) continue;
    const int64_t tid = e["tid"].get<int64_t>();
    EXPECT_GE(tid, kSyntheticTidBase) << e.dump();
    ASSERT_TRUE(names.contains(tid)) << e.dump();
    tids_by_track_name[names.at(tid)].insert(tid);
  }
  const std::set<std::string> want = {
      "CUDA sync: stream_synchronize (thread 101)",
      "CUDA sync: stream_synchronize (thread 102)",
      "CUPTI overhead: cupti_instrumentation (thread 101)",
      "CUPTI overhead: cupti_buffer_flush (thread 103)",
      "CUPTI overhead: driver_compiler",
      "CUPTI overhead: cupti_resource",
  };
  std::set<std::string> got;
  for (const auto& [name, tids] : tids_by_track_name) {
    got.insert(name);
    EXPECT_EQ(tids.size(), 1u) << name;
  }
  EXPECT_EQ(got, want);
}

TEST(TraceTracks, MovesAPartialOverlapWithinOneSourceToASecondLane) {
  ActivityLog log;
  log.overheads = {OnThread("cupti_buffer_flush", kCuptiThread, 1000, 3000),
                   OnThread("cupti_buffer_flush", kCuptiThread, 2000, 4000),
                   OnThread("cupti_buffer_flush", kCuptiThread, 4000, 5000)};
  const json trace = Trace(log);
  EXPECT_TRUE(PartialOverlaps(trace).empty());
  std::set<std::string> names;
  for (const auto& [tid, name] : ThreadNames(trace)) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"CUPTI overhead: cupti_buffer_flush (thread 103)",
                                          "CUPTI overhead: cupti_buffer_flush (thread 103) "
                                          "(lane 2)"}));
}

TEST(TraceTracks, FindsAPartialOverlapWhenThereIsOne) {
  // The check itself must be able to fail: two API calls on one thread, overlapping.
  ActivityLog log;
  log.api_calls = {Call(kJobThread, 1, 1000, 3000), Call(kJobThread, 2, 2000, 4000)};
  EXPECT_EQ(PartialOverlaps(Trace(log)).size(), 1u);
}

}  // namespace
}  // namespace kbench::executor::profile
