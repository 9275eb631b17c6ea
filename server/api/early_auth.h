// Authentication before a request is read (issue 24, item 4): kbench's calls are authenticated
// when their headers arrive, by an auth metadata processor on the server credentials, so that
// gRPC never asks the transport for an unauthenticated caller's message. Without it, up to the
// 40 MiB receive cap of every call was read and parsed before its handler refused the token.
// Who calls is still established per call by an interceptor (call_identity.h), on every port
// (the Unix socket runs no processor); this only refuses earlier.
// It also refuses calls while kbenchd drains (auth/call_gate.h): before gRPC has taken the call,
// so that a call arriving during gRPC's own shutdown gets UNAVAILABLE, not CANCELLED.
#pragma once

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/strings/string_view.h"
#include "server/auth/authenticator.h"
#include "server/auth/call_gate.h"

namespace kbench::api {

// True for a method that needs credentials: every kbench.v1 method. The health and reflection
// services stay open (Kubernetes' probes and `kbctl health` send no token).
bool NeedsCredentials(absl::string_view path);

// Refuses a call that `gate` refuses (UNAVAILABLE while kbenchd drains), then a kbench.v1 call
// whose `authorization` header or client certificate does not authenticate, with the handlers'
// own UNAUTHENTICATED message. Non-blocking: a token check is a SHA-256 and a few comparisons,
// done on the transport's thread. Both must outlive it.
class EarlyAuthProcessor final : public grpc::AuthMetadataProcessor {
 public:
  EarlyAuthProcessor(const auth::Authenticator* authenticator, const auth::CallGate* gate)
      : authenticator_(authenticator), gate_(gate) {}

  bool IsBlocking() const override { return false; }
  // `context` is the connection's (its verified client certificate); null in plaintext.
  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed, OutputMetadata* response) override;

 private:
  const auth::Authenticator* authenticator_;
  const auth::CallGate* gate_;
};

// `credentials` (TLS when `tls`, else plaintext) with an EarlyAuthProcessor, open daemons
// included (they authenticate nobody, but drain). gRPC's plaintext credentials refuse a
// processor (they assert), so plaintext gets credentials of ours over gRPC core's insecure ones,
// which run the same server auth filter as TLS.
std::shared_ptr<grpc::ServerCredentials> AuthenticateBeforeReading(
    std::shared_ptr<grpc::ServerCredentials> credentials, bool tls,
    const auth::Authenticator* authenticator, const auth::CallGate* gate);

}  // namespace kbench::api
