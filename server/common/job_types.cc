// Names of the typed job contracts.
#include "server/common/job_types.h"

#include "absl/strings/str_cat.h"

namespace kbench {

std::string JobKindName(JobKind kind) {
  switch (kind) {
    case JobKind::kProfile:
      return "profile";
    case JobKind::kCompile:
      return "compile";
    case JobKind::kBenchmark:
      break;
  }
  return "benchmark";
}

absl::StatusOr<JobKind> ParseJobKind(absl::string_view name) {
  if (name == "benchmark") return JobKind::kBenchmark;
  if (name == "profile") return JobKind::kProfile;
  if (name == "compile") return JobKind::kCompile;
  return absl::InvalidArgumentError(absl::StrCat("unknown job kind '", name.substr(0, 40), "'"));
}

std::string ExecutorFailureName(ExecutorFailure failure) {
  switch (failure) {
    case ExecutorFailure::kSignal:
      return "signal";
    case ExecutorFailure::kExit:
      return "exit";
    case ExecutorFailure::kStickyError:
      return "sticky_error";
    case ExecutorFailure::kStartFailed:
      return "start_failed";
    case ExecutorFailure::kHung:
      return "hung";
    case ExecutorFailure::kCancelKill:
      return "cancel_kill";
    case ExecutorFailure::kWireError:
      return "wire_error";
    case ExecutorFailure::kOwnerChanged:
      return "owner_changed";
  }
  return "exit";
}

}  // namespace kbench
