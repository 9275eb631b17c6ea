// Counts the kbench.v1 calls in flight into a CallGate (auth/call_gate.h), so that a draining
// kbenchd knows when they have all ended. A gRPC server interceptor lives exactly as long as its
// call, from when a handler takes it to after its status is sent, streams included; counting
// in each handler instead would miss a stream's end and every early return.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <memory>

#include "server/auth/call_gate.h"

namespace kbench::api {

// For ServerBuilder::experimental().SetInterceptorCreators. `gate` must outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> CountCallsInto(
    auth::CallGate* gate);

}  // namespace kbench::api
