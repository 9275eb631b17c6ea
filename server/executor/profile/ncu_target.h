// kbench-executor's tool target mode (`--ncu-target SPEC_FILE`, cuda/ncu_target_main.cc): the
// process Nsight Compute or compute-sanitizer starts. It brings up the CUDA device of the RunJob
// in SPEC_FILE (text format), then runs its one variant's checked launch, warm-up and a few
// launches inside the NVTX range Nsight Compute filters on (no CUPTI, no artifacts). This
// header holds the mode's flag and writes the spec file.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/internal/v1/executor.pb.h"

namespace kbench::executor {

namespace profile {

// True inside a process started by RunNcuTarget: RunProfileJob then only runs the kernels.
bool InNcuTargetMode();
// Called once by RunNcuTarget before it runs the job.
void EnterNcuTargetMode();

// Writes the target's RunJob: `job` as a profile job (the target mode runs profile jobs)
// reduced to `variant`, `iterations` launches, neither ncu nor sanitize, on cuda:`device`.
absl::Status WriteToolTargetSpec(const internal::v1::RunJob& job, const std::string& variant,
                                 int iterations, int device, const std::string& path);

}  // namespace profile
}  // namespace kbench::executor
