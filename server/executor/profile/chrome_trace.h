// The Chrome Trace Event JSON of a profile (opens in Perfetto UI and chrome://tracing): host
// API calls and the job's phases on the host thread tracks, kernels and transfers on a track
// per device stream, flow arrows from each launch call to its work, per-event args.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"
#include "server/executor/profile/activity.h"
#include "server/executor/profile/attribution.h"
#include "server/executor/profile/occupancy.h"

namespace kbench::executor::profile {

// Device work is drawn under pid kDevicePidBase + device, clear of real process ids.
inline constexpr int64_t kDevicePidBase = 1 << 30;
// Synthetic host tracks (tids) for records that belong to no single thread's call stack.
inline constexpr int64_t kSyncTid = (int64_t{1} << 31) - 2;
inline constexpr int64_t kOverheadTid = (int64_t{1} << 31) - 1;

struct TraceOptions {
  // For theoretical occupancy in kernels' args.
  std::optional<DeviceLimits> limits;
  // Copied into the trace's "otherData" (job id, operation, shape, ...).
  std::map<std::string, std::string> metadata;
};

// Timestamps ("ts", "dur") are microseconds since the earliest record or span (its CUPTI
// timestamp is otherData.base_time_ns), on CUPTI's clock, with nanosecond resolution.
nlohmann::json BuildChromeTrace(const ActivityLog& log, const AttributedLog& attribution,
                                const TraceOptions& options);

}  // namespace kbench::executor::profile
