// Ties each piece of device work (kernel, copy, memset) to the API call that launched it
// (CUPTI correlation id) and to the job's phase and iteration it ran in (host spans).
#pragma once

#include <vector>

#include "server/executor/profile/activity.h"

namespace kbench::executor::profile {

inline constexpr char kPhasePrepare[] = "prepare";
inline constexpr char kPhaseCheck[] = "check";
inline constexpr char kPhaseWarmup[] = "warmup";
// The recorded iterations: what the summary counts.
inline constexpr char kPhaseProfile[] = "profile";
// One iteration inside the profile phase.
inline constexpr char kPhaseIteration[] = "iteration";

struct Attribution {
  // Index into ActivityLog::api_calls of the launching call (a runtime call when both a runtime
  // and a driver record carry the correlation id), or -1.
  int launch_api = -1;
  // Indices into ActivityLog::spans: the innermost phase span (not an iteration) and the
  // iteration span the work was launched in, or -1.
  int phase_span = -1;
  int iteration_span = -1;
};

struct AttributedLog {
  // Parallel to ActivityLog::kernels and ActivityLog::transfers.
  std::vector<Attribution> kernels;
  std::vector<Attribution> transfers;
};

// Work belongs to the span that contains its launch call's start (its own start when no launch
// call was recorded): a span measures host time, and the job waits for each run, so the launch
// of every piece of work falls inside the span of the run that issued it.
AttributedLog Attribute(const ActivityLog& log);

}  // namespace kbench::executor::profile
