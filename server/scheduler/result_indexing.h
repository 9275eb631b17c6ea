// What a succeeded benchmark job adds to the result index: one row per variant under its
// result key (server/store/result_index.h).
#pragma once

#include <cstdint>
#include <vector>

#include "kbench/v1/types.pb.h"
#include "server/store/job_store.h"

namespace kbench::scheduler {

// Rows for each variant of `result` that has statistics; none for a profile job.
std::vector<store::IndexedResult> IndexedResultsOf(const store::JobRecord& job,
                                                   const v1::JobSpec& spec,
                                                   const v1::JobResult& result,
                                                   int64_t finish_time_ns);

}  // namespace kbench::scheduler
