// Typed contracts that cross the control plane's layers: a job's kind and why an executor was
// lost. Enums, not words: metrics and the store must never classify by matching a message.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench {

enum class JobKind { kBenchmark, kProfile, kCompile };
// "benchmark" | "profile" | "compile": the store's column and the metrics' label.
std::string JobKindName(JobKind kind);
absl::StatusOr<JobKind> ParseJobKind(absl::string_view name);

// Why an executor process had to be replaced; set where the supervision learns it (wait status,
// deadline, the executor's own outcome), carried to the metrics' `cause` label.
enum class ExecutorFailure {
  kSignal,        // killed by a signal it did not get from kbenchd's hang or cancel deadline
  kExit,          // exited (any code) or closed its pipe while a job ran
  kStickyError,   // reported a CUDA context it cannot use again
  kStartFailed,   // did not come up (exec failed, crashed or timed out before "ready")
  kHung,          // no outcome before the job's hang deadline: killed by kbenchd
  kCancelKill,    // a cancelled job did not stop within the grace period: killed by kbenchd
  kWireError,     // sent a malformed frame (oversized, truncated, unparseable)
  kOwnerChanged,  // not a failure: --isolate-owners gives the next owner a fresh executor
};
// The metrics' label: "signal" | "exit" | "sticky_error" | "start_failed" | "hung" |
// "cancel_kill" | "wire_error" | "owner_changed".
std::string ExecutorFailureName(ExecutorFailure failure);

}  // namespace kbench
