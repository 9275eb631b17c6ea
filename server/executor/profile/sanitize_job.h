// A benchmark's `sanitize` pass (issue 10, item 6): before anything is timed, each user variant
// runs in a child process under compute-sanitizer's memcheck, on the executor's tool target
// mode (its checked launch, warm-up and one launch, as the benchmark will run them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/userkernels.pb.h"
#include "server/executor/backend.h"

namespace kbench::executor::profile {

// The report's artifact name of the user variant at `position` in the job's variants:
// memcheck_<name without '@'>.txt, or, for a name that breaks the rule of
// common/user_variant_name.h (one stored before the rule: any bytes, '/' and ".." included),
// memcheck_+<position>.txt, since a file name is never taken raw from a user.
std::string MemcheckReportName(const std::string& variant, int position);

// Each user variant's record, by variant name; each report is added to `artifacts` (named by
// MemcheckReportName) whatever the outcome. A variant with memory errors fails the pass
// (FAILED_PRECONDITION naming the variant, the count and the first errors); so does a missing
// compute-sanitizer, before any run.
absl::StatusOr<std::map<std::string, v1::SanitizerRecord>> SanitizeUserVariants(
    const JobContext& context, int device, std::vector<internal::v1::ArtifactFile>* artifacts);

// Copies each record into its variant's result (user_module.sanitizer).
void AttachSanitizerRecords(const std::map<std::string, v1::SanitizerRecord>& records,
                            v1::JobResult* result);

}  // namespace kbench::executor::profile
