// One side of an explained pair: profiling a benchmark job's variant again (a profile job with
// Nsight Compute, CUPTI only when ncu cannot run) and, for a user kernel, compiling it once more
// for its SASS. What could not be had is said, never left as zeros.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/session.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client::explain {

struct SideProfile {
  // The profile job that succeeded; nullopt when none could (see not_measured).
  std::optional<v1::Job> profile;
  std::string profile_job_id;  // the last one submitted, also when it failed
  // The user kernel's disassembly, when the variant is one and its sass.txt could be read.
  std::optional<std::string> sass;
  // Each thing this side could not measure, with the reason, e.g. "Nsight Compute: ...".
  std::vector<std::string> not_measured;
};

// True when `job` ran on a CUDA device (profiles need CUPTI).
bool RanOnCuda(const v1::Job& job);

// The profile job's spec for `variant` of benchmark `job`: the same problem on the same device,
// one variant, Nsight Compute on or off; nothing of the timing protocol (stopping rule, ranked
// runs, placements, sanitizer) that a profile does not take.
v1::JobSpec ProfileSpecFor(const v1::Job& job, const std::string& variant, bool ncu);

// Profiles `variant` of `job` (a side named `side`, "baseline" or "candidate", in notes).
// Errors only when kbenchd cannot be reached or refuses the caller; a job that fails or a submit
// that is refused becomes a not_measured line.
absl::StatusOr<SideProfile> ProfileSide(Session& session, const v1::Job& job,
                                        const std::string& variant, const std::string& side);

}  // namespace kbench::client::explain
