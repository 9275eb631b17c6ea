// A sweep's rows as JobStore::DeleteSweep removes them, with its points' jobs, in one
// transaction: whether it may go, and its own rows (the jobs go through the job store's delete).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/database.h"
#include "server/store/job_store.h"

namespace kbench::store::internal {

// The ids of the sweep's points' jobs, in point order, when the sweep may be deleted. NOT_FOUND
// naming it when absent; FAILED_PRECONDITION naming the points still queued or running, or
// while its report is being written.
absl::StatusOr<std::vector<std::string>> DeletableSweepJobs(Database* db,
                                                            const std::string& sweep_id);

// Deletes the sweep's report records, points and row, appending the report records to `report`
// (may be null). Call inside the transaction that deletes its points' jobs, before the jobs.
absl::Status DropSweepRows(Database* db, const std::string& sweep_id,
                           std::vector<ArtifactRecord>* report);

}  // namespace kbench::store::internal
