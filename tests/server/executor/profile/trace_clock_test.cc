// The profile's clock is CLOCK_MONOTONIC_RAW (not CUPTI's default CLOCK_REALTIME, which NTP
// steps), and the trace says so.
#include "server/executor/profile/trace_clock.h"

#include <time.h>

#include "gtest/gtest.h"
#include "server/executor/profile/chrome_trace.h"

namespace kbench::executor::profile {
namespace {

uint64_t Read(clockid_t id) {
  timespec ts{};
  EXPECT_EQ(clock_gettime(id, &ts), 0);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

TEST(TraceClock, ReadsTheRawMonotonicClock) {
  // Bracketed by two reads of CLOCK_MONOTONIC_RAW: CLOCK_REALTIME counts from 1970 and
  // CLOCK_MONOTONIC drifts from RAW by NTP's slew since boot, so either falls outside.
  for (int i = 0; i < 1000; ++i) {
    const uint64_t before = Read(CLOCK_MONOTONIC_RAW);
    const uint64_t now = TraceClockNow();
    const uint64_t after = Read(CLOCK_MONOTONIC_RAW);
    ASSERT_LE(before, now);
    ASSERT_LE(now, after);
  }
}

TEST(TraceClock, NeverGoesBackwards) {
  uint64_t last = TraceClockNow();
  for (int i = 0; i < 100000; ++i) {
    const uint64_t now = TraceClockNow();
    ASSERT_GE(now, last);
    last = now;
  }
}

TEST(TraceClock, IsNamedInTheTrace) {
  const nlohmann::json trace = BuildChromeTrace(ActivityLog(), AttributedLog(), TraceOptions());
  EXPECT_NE(trace["otherData"]["clock"].get<std::string>().find("CLOCK_MONOTONIC_RAW"),
            std::string::npos);
}

}  // namespace
}  // namespace kbench::executor::profile
