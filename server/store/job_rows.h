// A job row (and an artifact row) as every query selects it, shared by the job store, the fleet
// store and the sweep rows.
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

// The current row of a query that selected an artifact's columns (job_id or sweep_id, name,
// relative_path, content_type, size_bytes, sha256, create_time_ns), in that order.
ArtifactRecord ReadArtifact(Statement& row);

}  // namespace kbench::store::internal
