// Store records -> API messages.
#pragma once

#include <optional>
#include <vector>

#include "kbench/v1/types.pb.h"
#include "server/store/job_store.h"

namespace kbench::api {

v1::JobState StateToProto(store::JobState state);
// nullopt for JOB_STATE_UNSPECIFIED; INVALID values are rejected by the caller.
std::optional<store::JobState> StateFromProto(v1::JobState state);

// Clears the user kernels' code (up to 32 MiB each: not echoed in every Get/List/Watch reply;
// its sha256 stays) unless `keep_code`, which only GetJob's include_code asks for.
v1::Job RecordToJob(const store::JobRecord& record, const std::optional<v1::Progress>& progress,
                    const std::vector<store::ArtifactRecord>& artifacts, bool keep_code = false);

// ListJobs' summary view: drops the environment and the profile's per-kernel and Nsight
// Compute rows, which can be most of a job's bytes; keeps each variant's statistics and
// correctness and the profile's category totals.
void SummarizeJob(v1::Job* job);

}  // namespace kbench::api
