// Admission of calls while kbenchd drains (see call_gate.h).
#include "server/auth/call_gate.h"

namespace kbench::auth {

absl::Status CallGate::Admit(CallKind kind) const {
  const Phase phase = phase_.load(std::memory_order_acquire);
  if (phase == Phase::kServing) return absl::OkStatus();
  if (phase == Phase::kDraining && kind == CallKind::kOther) return absl::OkStatus();
  return absl::UnavailableError(kShuttingDownMessage);
}

void CallGate::CallStarted() {
  absl::MutexLock lock(&mu_);
  ++in_flight_;
}

void CallGate::CallEnded() {
  absl::MutexLock lock(&mu_);
  --in_flight_;
}

void CallGate::Drain() {
  Phase serving = Phase::kServing;
  phase_.compare_exchange_strong(serving, Phase::kDraining, std::memory_order_acq_rel);
}

void CallGate::Close() { phase_.store(Phase::kClosed, std::memory_order_release); }

int64_t CallGate::AwaitNoCalls(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithDeadline(absl::Condition(this, &CallGate::NoCallsInFlight), deadline);
  return in_flight_;
}

}  // namespace kbench::auth
