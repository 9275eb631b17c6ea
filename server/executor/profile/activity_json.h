// ActivityLog ⇄ JSON: recorded profiles as fixtures for the CPU tests, and the optional raw
// dump of a job's records (KBENCH_PROFILE_KEEP_ACTIVITY=1 adds activity.json to its artifacts).
#pragma once

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/executor/profile/activity.h"

namespace kbench::executor::profile {

nlohmann::json ActivityLogToJson(const ActivityLog& log);

// INVALID_ARGUMENT naming the first field that is missing or of the wrong type.
absl::StatusOr<ActivityLog> ActivityLogFromJson(const nlohmann::json& j);

}  // namespace kbench::executor::profile
