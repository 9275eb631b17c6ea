// A job row as every job query selects it, shared by the job store and the fleet store.
#pragma once

#include "absl/status/statusor.h"
#include "server/store/database.h"
#include "server/store/job_store.h"

namespace kbench::store::internal {

// The columns every job query selects, in ReadJob's order.
extern const char kJobColumns[];

// The current row of a query that selected kJobColumns first. DATA_LOSS for a corrupt state or
// kind (a database edited by hand).
absl::StatusOr<JobRecord> ReadJob(Statement& row);

}  // namespace kbench::store::internal
