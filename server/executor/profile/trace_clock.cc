// The profile's clock; plain C++ so that the CPU tests check the same function CUPTI calls.
#include "server/executor/profile/trace_clock.h"

namespace kbench::executor::profile {

uint64_t TraceClockNow() {
  timespec ts{};
  // Cannot fail for a clock id the kernel has had since Linux 2.6.28 and a valid pointer.
  clock_gettime(kTraceClockId, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace kbench::executor::profile
