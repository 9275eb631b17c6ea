// A job's error message as its record keeps it (long_errors.h).
#include "server/scheduler/long_errors.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "server/common/job_error.h"
#include "server/common/logging.h"

namespace kbench::scheduler {
namespace {

absl::Status StoreWholeError(store::ArtifactStore& artifacts, const std::string& job_id,
                             const std::string& message) {
  // The run's work directory: its artifacts were imported already, so a fresh one loses nothing.
  absl::StatusOr<std::string> dir = artifacts.WorkDir(job_id);
  if (!dir.ok()) return dir.status();
  const std::string path = absl::StrCat(*dir, "/", kJobErrorArtifact);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(message.data(), static_cast<std::streamsize>(message.size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  }
  return artifacts.Import(job_id, kJobErrorArtifact, path, "text/plain").status();
}

}  // namespace

std::string KeepLongError(store::ArtifactStore& artifacts, const std::string& job_id,
                          const std::string& message) {
  if (message.size() <= kMaxJobErrorBytes) return message;
  if (absl::Status s = StoreWholeError(artifacts, job_id, message); !s.ok()) {
    logging::LogJob(logging::Level::kWarn, job_id, "whole error message not kept",
                    {logging::Field("bytes", static_cast<int64_t>(message.size())),
                     logging::Field("error", s.ToString())});
    return BoundedJobError(message, "");
  }
  return BoundedJobError(message, absl::StrCat("the job's artifact ", kJobErrorArtifact));
}

}  // namespace kbench::scheduler
