// The error of an artifact file an executor could not write, and how the control plane tells a
// full disk from other failures: a job whose artifacts found no space is re-run once the disk has
// room (a full disk pauses the queue; it never fails accepted jobs), any other write failure
// fails the job.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace kbench {

// After a failed write of `path` with `error` (errno): RESOURCE_EXHAUSTED saying the disk is
// full for ENOSPC and EDQUOT, else INTERNAL naming the path and the cause.
absl::Status ArtifactWriteError(const std::string& path, int error);

// True for ArtifactWriteError's full-disk status, as a job's outcome carries it (code, message).
bool IsNoSpaceForArtifacts(absl::StatusCode code, const std::string& message);

}  // namespace kbench
