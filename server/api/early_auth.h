// Authentication before a request is read (issue 24, item 4): kbench's calls are authenticated
// when their headers arrive, by an auth metadata processor on the server credentials, so that
// gRPC never asks the transport for an unauthenticated caller's message. Without it, up to the
// 40 MiB receive cap of every call was read and parsed before its handler refused the token.
// The handlers still authenticate (authorizer.h) to learn who calls; this only refuses earlier.
#pragma once

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/strings/string_view.h"
#include "server/auth/authenticator.h"

namespace kbench::api {

// True for a method that needs credentials: every kbench.v1 method. The health and reflection
// services stay open (Kubernetes' probes and `kbctl health` send no token).
bool NeedsCredentials(absl::string_view path);

// Refuses a kbench.v1 call whose `authorization` header or client certificate does not
// authenticate, with the handlers' own UNAUTHENTICATED message. Non-blocking: a token check is a
// SHA-256 and a few comparisons, done on the transport's thread. `authenticator` must outlive it.
class EarlyAuthProcessor final : public grpc::AuthMetadataProcessor {
 public:
  explicit EarlyAuthProcessor(const auth::Authenticator* authenticator)
      : authenticator_(authenticator) {}

  bool IsBlocking() const override { return false; }
  // `context` is the connection's (its verified client certificate); null in plaintext.
  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed, OutputMetadata* response) override;

 private:
  const auth::Authenticator* authenticator_;
};

// `credentials` (TLS when `tls`, else plaintext) with an EarlyAuthProcessor, unless the
// daemon is open (no auth file nor client CA: nothing to check). gRPC's plaintext credentials
// refuse a processor (they assert), so plaintext gets credentials of ours over gRPC core's
// insecure ones, which run the same server auth filter as TLS.
std::shared_ptr<grpc::ServerCredentials> AuthenticateBeforeReading(
    std::shared_ptr<grpc::ServerCredentials> credentials, bool tls,
    const auth::Authenticator* authenticator);

}  // namespace kbench::api
