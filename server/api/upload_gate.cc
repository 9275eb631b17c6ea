// A counting gate with a bounded wait for the upload methods.
#include "server/api/upload_gate.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kbench::api {

UploadGate::UploadGate(int passes, absl::Duration max_wait)
    : passes_(std::max(passes, 1)), max_wait_(max_wait) {}

UploadGate::Pass::~Pass() {
  if (gate_ != nullptr) gate_->Leave();
}

void UploadGate::Configure(int passes, absl::Duration max_wait) {
  absl::MutexLock lock(&mu_);
  passes_ = std::max(passes, 1);
  max_wait_ = max_wait;
}

absl::StatusOr<UploadGate::Pass> UploadGate::Enter(
    std::chrono::system_clock::time_point call_deadline) {
  const absl::Time start = absl::Now();
  absl::MutexLock lock(&mu_);
  // A deadline-less call has a deadline far in the future; the margin leaves the refusal time
  // to travel back before the caller's own deadline ends the call.
  const absl::Time until =
      std::min(start + max_wait_, absl::FromChrono(call_deadline) - absl::Seconds(1));
  auto free = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return in_use_ < passes_; };
  if (!mu_.AwaitWithDeadline(absl::Condition(&free), until)) {
    return absl::UnavailableError(absl::StrCat(
        "kbenchd is reading ", in_use_, " large requests at once (--max-concurrent-uploads ",
        passes_, "); this one waited ",
        absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(100))),
        " for its turn: retry in a moment"));
  }
  ++in_use_;
  return Pass(this);
}

int UploadGate::in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

void UploadGate::Leave() {
  absl::MutexLock lock(&mu_);
  --in_use_;
}

}  // namespace kbench::api
