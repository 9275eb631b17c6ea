// A job's error message as its record keeps it (issue 24, item 3): at most kMaxJobErrorBytes,
// the whole message kept as the job's artifact error.log (owner-only when the job ran user code,
// see server/api/artifact_access.h) so nothing of a long compile log is lost.
#pragma once

#include <string>

#include "server/store/artifact_store.h"

namespace kbench::scheduler {

// `message` itself when it fits; otherwise its bounded form naming error.log, after storing the
// whole of it as that artifact. If the artifact cannot be stored the bounded form says so, and
// the job still ends with it.
std::string KeepLongError(store::ArtifactStore& artifacts, const std::string& job_id,
                          const std::string& message);

}  // namespace kbench::scheduler
