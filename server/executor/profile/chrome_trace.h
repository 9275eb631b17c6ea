// The Chrome Trace Event JSON of a profile (opens in Perfetto UI and chrome://tracing): host
// API calls and the job's phases on the host thread tracks, kernels and transfers on a track
// per device stream, synchronisation and CUPTI's overhead on a track per source, flow arrows
// from each launch call to its work, per-event args, and the device's power, clocks and
// temperature (NVML, read while recording) as counter tracks. No two slices of one track overlap
// partially (viewers draw such a pair wrongly, or not at all).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "server/executor/profile/activity.h"
#include "server/executor/profile/attribution.h"
#include "server/executor/profile/occupancy.h"

namespace kbench::executor::profile {

// Device work is drawn under pid kDevicePidBase + device, clear of real process ids.
inline constexpr int64_t kDevicePidBase = 1 << 30;
// Synthetic tracks (tids) for records that belong to no call stack: one per source, i.e. per
// (waiting thread, sync type) and per (thread or device, overhead kind), numbered from here.
// Linux thread ids stay below PID_MAX_LIMIT = 2^22 (include/linux/threads.h) and CUPTI's stream
// ids are small counters, so no real track reaches it.
inline constexpr int64_t kSyntheticTidBase = int64_t{1} << 30;

struct TraceOptions {
  // For theoretical occupancy in kernels' args.
  std::optional<DeviceLimits> limits;
  // Copied into the trace's "otherData" (job id, operation, shape, ...).
  std::map<std::string, std::string> metadata;
};

// Timestamps ("ts", "dur") are microseconds since the earliest record or span (its CUPTI
// timestamp is otherData.base_time_ns), on the records' clock (otherData.clock; in a job
// CLOCK_MONOTONIC_RAW, trace_clock.h), with nanosecond resolution.
nlohmann::json BuildChromeTrace(const ActivityLog& log, const AttributedLog& attribution,
                                const TraceOptions& options);

// The trace written to `path` event by event (what a job does: the document is never held
// whole as text, only its events). BuildChromeTrace is this document, parsed.
absl::Status WriteChromeTrace(const ActivityLog& log, const AttributedLog& attribution,
                              const TraceOptions& options, const std::string& path);

}  // namespace kbench::executor::profile
