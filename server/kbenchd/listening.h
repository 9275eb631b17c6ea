// kbenchd's gRPC server and where it listens: a TCP address (--listen), or the Unix socket whose
// connections kbenchd accepts itself to learn each caller's uid (the server then has no port of
// its own). Keeps server/kbenchd/main.cc to wiring.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/api/call_identity.h"
#include "server/api/server_options.h"
#include "server/auth/authorizer.h"
#include "server/auth/call_gate.h"
#include "server/auth/unix_peers.h"
#include "server/auth/unix_socket_listener.h"
#include "server/metrics/metrics.h"

namespace kbench {

// Exactly one of listen and unix_socket is set.
struct Endpoint {
  std::string listen;  // HOST:PORT
  std::string unix_socket;
  std::string unix_socket_group;  // empty: the socket is 0600
};

struct Listening {
  // The port's credentials, kept as long as the server (declared first, so destroyed last):
  // gRPC core calls back into them (the early auth processor of api/early_auth.h) on every
  // call, and the builder that held them is gone once the server starts.
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::unique_ptr<grpc::Server> server;
  std::string address;  // "HOST:PORT" as bound (the port picked for 0), or "unix:PATH"
  // Stop it before shutting the server down: it hands new connections to the server.
  std::unique_ptr<auth::UnixSocketListener> unix_socket;
};

// What every kbench.v1 call goes through once, around its handler (server interceptors); each
// must outlive the server.
struct CallHooks {
  // Counts the calls in flight (api/call_counting.h).
  auth::CallGate* gate = nullptr;
  // Each call's duration and status (api/rpc_observer.h).
  metrics::Metrics* metrics = nullptr;
  // Authenticates each call into `callers`, where its handler finds who calls
  // (api/call_identity.h).
  const auth::Authorizer* authorizer = nullptr;
  api::CallIdentities* callers = nullptr;
};

// Builds and starts the server with `service` (which must outlive it), the health service and
// reflection, every kbench.v1 call going through `hooks`.
// `unix_peers` receives the Unix socket's connections (needed with unix_socket).
// UNAVAILABLE or FAILED_PRECONDITION naming the flag when the address cannot be served.
absl::StatusOr<Listening> StartServer(const Endpoint& endpoint,
                                      std::shared_ptr<grpc::ServerCredentials> credentials,
                                      auth::UnixPeers* unix_peers, const api::ApiOptions& api,
                                      grpc::Service* service, const CallHooks& hooks);

}  // namespace kbench
