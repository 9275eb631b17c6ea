// process_* from /proc (server/metrics/process_collector.h): the arithmetic on fixed readings,
// a command name that holds spaces and parentheses, and what is left out when /proc says nothing.
#include "server/metrics/process_collector.h"

#include <map>
#include <optional>

#include "gtest/gtest.h"

namespace kbench::metrics {
namespace {

std::map<std::string, double> Values(const std::vector<prometheus::MetricFamily>& families) {
  std::map<std::string, double> out;
  for (const prometheus::MetricFamily& f : families) {
    const prometheus::ClientMetric& m = f.metric.at(0);
    out[f.name] = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  return out;
}

// /proc/self/stat of a process named "a) (b c", fields 3..24: utime 250, stime 50 ticks,
// 12 threads, started 1000 ticks after boot, 8 MiB virtual, 300 pages resident.
constexpr char kStat[] =
    "4242 (a) (b c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 1000 8388608 300 "
    "18446744073709551615";

TEST(ProcessFamilies, ComputesTheStandardSeriesFromProc) {
  ProcessReadings r;
  r.stat = kStat;
  r.ticks_per_second = 100;
  r.page_bytes = 4096;
  r.boot_time_seconds = 1'700'000'000;
  r.open_fds = 17;
  r.max_fds = 1024;
  const std::map<std::string, double> v = Values(ProcessFamilies(r));
  EXPECT_DOUBLE_EQ(v.at("process_cpu_seconds_total"), 3.0);
  EXPECT_DOUBLE_EQ(v.at("process_threads"), 12);
  EXPECT_DOUBLE_EQ(v.at("process_start_time_seconds"), 1'700'000'010.0);
  EXPECT_DOUBLE_EQ(v.at("process_virtual_memory_bytes"), 8388608);
  EXPECT_DOUBLE_EQ(v.at("process_resident_memory_bytes"), 300.0 * 4096);
  EXPECT_DOUBLE_EQ(v.at("process_open_fds"), 17);
  EXPECT_DOUBLE_EQ(v.at("process_max_fds"), 1024);
}

TEST(ProcessFamilies, LeavesOutWhatProcDoesNotGive) {
  ProcessReadings r;
  r.stat = "4242 (truncated) S 1 2";
  r.ticks_per_second = 100;
  r.page_bytes = 4096;
  EXPECT_TRUE(ProcessFamilies(r).empty());  // never a zero for a reading that failed
  r.stat = kStat;
  r.ticks_per_second = 100;
  r.page_bytes = 4096;
  const std::map<std::string, double> v = Values(ProcessFamilies(r));
  EXPECT_EQ(v.count("process_start_time_seconds"), 0u);  // no btime
  EXPECT_EQ(v.count("process_open_fds"), 0u);
  EXPECT_EQ(v.count("process_cpu_seconds_total"), 1u);
}

TEST(ProcessFamilies, ReadsThisProcess) {
  const std::map<std::string, double> v = Values(ProcessFamilies(ReadThisProcess()));
  ASSERT_EQ(v.count("process_open_fds"), 1u);
  EXPECT_GE(v.at("process_open_fds"), 3);  // stdin, stdout, stderr at least
  EXPECT_GE(v.at("process_threads"), 1);
  EXPECT_GT(v.at("process_resident_memory_bytes"), 0);
  EXPECT_GT(v.at("process_start_time_seconds"), 1'600'000'000);
}

}  // namespace
}  // namespace kbench::metrics
