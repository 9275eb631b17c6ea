// Profile jobs: run variants under CUPTI's activity API and return a Chrome trace, a
// key_averages-style summary, kernel resources and (optionally) Nsight Compute metrics.
#pragma once

#include "server/executor/backend.h"
#include "server/executor/device_runner.h"

namespace kbench::executor {

// Runs a JOB_KIND_PROFILE job on a CUDA device's runner. Called by the CUDA backend.
absl::StatusOr<JobRun> RunProfileJob(DeviceRunner& runner, const JobContext& context);

}  // namespace kbench::executor
