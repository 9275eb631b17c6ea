// The draining stop (see draining.h). Why this order: gRPC's Server::Shutdown answers CANCELLED
// to every call that arrives after it begins, or that it has not handed to a handler yet
// (grpc/grpc#41785), and clients do not retry CANCELLED. So kbenchd first refuses new calls
// itself, with UNAVAILABLE, and calls gRPC's shutdown only once nothing is in flight and nothing
// can reach gRPC unrefused: TCP calls are refused as their headers arrive (api/early_auth.h),
// the Unix socket's connections are closed first.
#include "server/kbenchd/draining.h"

#include <grpcpp/health_check_service_interface.h>

#include "server/common/logging.h"

namespace kbench {
namespace {

using logging::Field;
using logging::Level;

// Load balancers and probes stop routing here at once; later changes of a device's health
// cannot turn it back to SERVING.
void StopTakingCalls(const DrainedParts& parts) {
  parts.gate->Drain();
  parts.server->GetHealthCheckService()->Shutdown();
  if (parts.unix_socket != nullptr) parts.unix_socket->Stop();
}

void AwaitCallsInFlight(auth::CallGate& gate, absl::Time deadline) {
  const absl::Time start = absl::Now();
  const int64_t left = gate.AwaitNoCalls(deadline);
  if (left == 0) {
    logging::Log(Level::kInfo, "calls in flight finished",
                 {Field("seconds", absl::ToDoubleSeconds(absl::Now() - start))});
    return;
  }
  logging::Log(Level::kWarn, "calls still in flight at the drain's bound are cancelled",
               {Field("calls", left)});
}

// Nothing is in flight now (or the bound has passed): whatever arrives from here is refused
// before gRPC sees it, and gRPC's shutdown has nothing left to wait for.
void StopServer(const DrainedParts& parts) {
  parts.gate->Close();
  if (parts.unix_socket != nullptr) parts.unix_socket->Disconnect();
  parts.server->Shutdown(std::chrono::system_clock::now());
  parts.server->Wait();
}

}  // namespace

void DrainAndStop(const DrainedParts& parts, absl::Duration bound) {
  const absl::Time deadline = absl::Now() + bound;
  StopTakingCalls(parts);
  parts.end_streams();
  AwaitCallsInFlight(*parts.gate, deadline);
  parts.stop_work();
  StopServer(parts);
}

}  // namespace kbench
