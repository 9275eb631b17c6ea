// Who calls, established once per kbench.v1 call (issue 27, item 2: a thin API): a server
// interceptor authenticates each call when its headers have arrived, before its handler runs,
// on every port (TCP, TLS and the Unix socket alike), and keeps the outcome for the call's life;
// the handler looks it up by its context and hands the identity to the domain services, which
// never see gRPC. While kbenchd drains, the outcome is UNAVAILABLE (auth/call_gate.h).
//
// Why a table keyed by the call's context: a gRPC server interceptor cannot end a call nor hand
// the handler a value, and the auth context is read-only to it. early_auth.h still refuses a TCP
// caller whose token is wrong before its message is read; this is where the identity comes from.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"

namespace grpc {
class ServerContextBase;
}

namespace kbench::api {

// The outcome of each call's authentication, while the call lives. Thread-safe.
class CallIdentities {
 public:
  // The identity of the call with `context`, or why it did not authenticate. A call the
  // interceptor never saw is refused (INTERNAL): fail closed, never anonymous.
  absl::StatusOr<auth::Identity> Of(const grpc::ServerContextBase& context) const;

  // Keeps `caller` for the call with `context` until Forget with the returned ticket. A ticket
  // other than the latest for that context forgets nothing (a context reused by a later call).
  uint64_t Remember(const grpc::ServerContextBase* context, absl::StatusOr<auth::Identity> caller);
  void Forget(const grpc::ServerContextBase* context, uint64_t ticket);

  // Calls remembered now (for tests: each call is forgotten when it ends).
  size_t size() const;

 private:
  struct Entry {
    uint64_t ticket = 0;
    absl::StatusOr<auth::Identity> caller;
  };
  mutable std::mutex mu_;
  absl::flat_hash_map<const grpc::ServerContextBase*, Entry> calls_;
  uint64_t next_ticket_ = 0;
};

// For ServerBuilder::experimental().SetInterceptorCreators: authenticates each kbench.v1 call
// with `authorizer` (Authorizer::Authenticate: the drain gate, the credentials, the audit of a
// failure) into `callers`. Health and reflection are left alone. Both must outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> AuthenticateCallsInto(
    const auth::Authorizer* authorizer, CallIdentities* callers);

}  // namespace kbench::api
