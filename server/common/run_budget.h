// How long each kind of job may legitimately run, shared by the executor (the deadlines it
// gives its child processes) and the control plane (when a silent executor counts as hung), so
// that a slow but healthy Nsight Compute run is never killed as a hang.
#pragma once

#include "kbench/v1/types.pb.h"

namespace kbench {

// Each of Nsight Compute's two runs in a profile job (profile, then --import), seconds.
inline constexpr double kNcuRunTimeoutSeconds = 300;

// The job's own bound on its work, seconds: its sampling timeout (or the default), plus, for a
// profile job with `ncu`, both Nsight Compute runs. The scheduler adds its hang slack to it.
double JobRunBudgetSeconds(const v1::JobSpec& spec);

}  // namespace kbench
