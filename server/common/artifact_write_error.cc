#include "server/common/artifact_write_error.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kbench {
namespace {

// The words both ends agree on: the executor writes them, the scheduler looks for them.
constexpr char kNoSpace[] = "no space left for the job's artifacts";

}  // namespace

absl::Status ArtifactWriteError(const std::string& path, int error) {
  if (error == ENOSPC || error == EDQUOT) {
    return absl::ResourceExhaustedError(
        absl::StrCat(kNoSpace, ": writing ", path, ": ", std::strerror(error)));
  }
  return absl::InternalError(absl::StrCat("write failed: ", path, ": ",
                                          error != 0 ? std::strerror(error) : "unknown error"));
}

bool IsNoSpaceForArtifacts(absl::StatusCode code, const std::string& message) {
  return code == absl::StatusCode::kResourceExhausted && absl::StrContains(message, kNoSpace);
}

}  // namespace kbench
