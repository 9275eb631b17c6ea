// kbenchd's draining stop on SIGTERM or SIGINT, in one place: the order of its steps and its
// bound (docs/operations.md, "Stopping kbenchd"). Keeps server/kbenchd/main.cc to wiring.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>

#include "absl/time/time.h"
#include "server/auth/call_gate.h"
#include "server/auth/unix_socket_listener.h"

namespace kbench {

// What the stop acts on, all borrowed from the daemon and alive until DrainAndStop returns.
struct DrainedParts {
  auth::CallGate* gate = nullptr;
  grpc::Server* server = nullptr;
  auth::UnixSocketListener* unix_socket = nullptr;  // null when kbenchd listens on TCP
  // Ends the open WatchJob streams with UNAVAILABLE and stops the sweeps' reporter.
  std::function<void()> end_streams;
  // Stops the maintenance timer, then the queue: a running job goes back to QUEUED (in a fleet,
  // to the shared queue), so the next start runs it.
  std::function<void()> stop_work;
};

// Refuses new kbench.v1 calls (UNAVAILABLE, "retry"), reports NOT_SERVING on every health
// service, ends the streams, waits up to `bound` for the calls in flight to finish, stops the
// work, then stops the gRPC server (anything still in flight past the bound is cancelled).
void DrainAndStop(const DrainedParts& parts, absl::Duration bound);

}  // namespace kbench
