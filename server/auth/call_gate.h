// Whether kbenchd takes calls now, and how many kbench.v1 calls are in flight: the state behind
// a draining stop (server/kbenchd/draining.h). Once draining, a kbench.v1 call is refused with
// UNAVAILABLE, which clients retry, instead of reaching gRPC's own shutdown, which answers a
// call it has not handed to a handler yet with CANCELLED (grpc/grpc#41785), which they do not.
// Thread-safe; Admit never blocks (it runs on gRPC's transport threads).
#pragma once

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kbench::auth {

// What a refused call is told: why, and that a retry is safe.
inline constexpr char kShuttingDownMessage[] =
    "kbenchd is shutting down; retry in a few seconds (a submit retried with the same "
    "idempotency_key returns the job it created, never a second one)";

enum class CallKind {
  kKbench,  // kbench.v1: drained
  kOther,   // health and reflection: served until the server stops
};

class CallGate {
 public:
  // OK while kbenchd serves; UNAVAILABLE (kShuttingDownMessage) for a kbench.v1 call once
  // draining, and for every call once closed.
  absl::Status Admit(CallKind kind) const;

  // A kbench.v1 call a handler took, from then until it ends (its reply or status sent).
  void CallStarted();
  void CallEnded();

  // From now on new kbench.v1 calls are refused; those in flight go on.
  void Drain();
  // From now on every call is refused: gRPC's server is about to stop.
  void Close();
  // Waits until no kbench.v1 call is in flight, or `deadline`; returns how many still are.
  int64_t AwaitNoCalls(absl::Time deadline);

 private:
  enum class Phase { kServing, kDraining, kClosed };

  bool NoCallsInFlight() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_flight_ == 0; }

  std::atomic<Phase> phase_{Phase::kServing};
  absl::Mutex mu_;
  int64_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kbench::auth
