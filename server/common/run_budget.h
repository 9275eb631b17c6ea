// How long each kind of job may legitimately run, shared by the executor (the deadlines it
// gives its child processes) and the control plane (when a silent executor counts as hung), so
// that a slow but healthy Nsight Compute run is never killed as a hang.
#pragma once

#include "kbench/v1/types.pb.h"

namespace kbench {

// Each of Nsight Compute's two runs in a profile job (profile, then --import), seconds.
inline constexpr double kNcuRunTimeoutSeconds = 300;
// One user variant's compute-sanitizer run in a benchmark with `sanitize`, seconds (memcheck
// slows a kernel by 10-100x, and the checked launch's reference is computed in the child too).
inline constexpr double kSanitizerRunTimeoutSeconds = 300;

// The job's own bound on its work, seconds: its sampling timeout (or the default), plus, for a
// profile job with `ncu`, both Nsight Compute runs, and with `sanitize`, one compute-sanitizer
// run per user kernel. The scheduler adds its hang slack to it.
double JobRunBudgetSeconds(const v1::JobSpec& spec);

}  // namespace kbench
