// The one clock of a profile: CUPTI's activity records (through its timestamp callback) and the
// job's phase spans both read it, so host and device times line up in the trace.
#pragma once

#include <time.h>

#include <cstdint>

namespace kbench::executor::profile {

// CLOCK_MONOTONIC_RAW: CUPTI's default on Linux is CLOCK_REALTIME (cupti_activity.h, the
// comment of cuptiActivityRegisterTimestampCallback), which an NTP step or an administrator's
// `date` moves mid-profile. MONOTONIC_RAW is not even slewed by NTP, so a slice's duration is
// the oscillator's (clock_gettime(2)); it is also what CUPTI itself uses under WSL.
inline constexpr clockid_t kTraceClockId = CLOCK_MONOTONIC_RAW;
inline constexpr const char* kTraceClockName = "CLOCK_MONOTONIC_RAW";

// Now on kTraceClockId, in nanoseconds. Thread-safe, async-signal-safe (vDSO read).
uint64_t TraceClockNow();

}  // namespace kbench::executor::profile
