// JOB_KIND_COMPILE (issue 10, item 4): compiles one user kernel without running it, on any
// device's executor (NVRTC and nvJitLink need no GPU). Result: the compiler's report and each
// kernel's resources with the theoretical occupancy of the launch; artifacts: the log, the PTX,
// the cubin and, where nvdisasm is found, the SASS.
#pragma once

#include "absl/status/statusor.h"
#include "server/executor/backend.h"

namespace kbench::executor::usermodule {

// A compile error is INVALID_ARGUMENT carrying the compiler's log.
absl::StatusOr<JobRun> RunCompileJob(const JobContext& context);

}  // namespace kbench::executor::usermodule
