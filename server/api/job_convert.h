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

v1::Job RecordToJob(const store::JobRecord& record, const std::optional<v1::Progress>& progress,
                    const std::vector<store::ArtifactRecord>& artifacts);

}  // namespace kbench::api
