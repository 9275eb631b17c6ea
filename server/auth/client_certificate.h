// The verified client certificate of a call, as the authenticator needs it: its names (CN, then
// SANs) and whether it was issued for client authentication (the clientAuth extended key usage).
// gRPC has verified the chain against --tls-client-ca before a call reaches a handler.
#pragma once

#include <string>
#include <vector>

namespace grpc {
class AuthContext;
class ServerContextBase;
}  // namespace grpc

namespace kbench::auth {

struct ClientCertificate {
  std::vector<std::string> names;  // CN first, then SANs; empty: no certificate presented
  // The certificate lists the clientAuth EKU. One without it (a server's certificate from the
  // same CA, say) identifies nobody, even though it verifies.
  bool client_auth = false;

  bool presented() const { return !names.empty(); }
};

// The certificate of the call's peer; empty names without TLS or without a certificate.
ClientCertificate ClientCertificateOf(const grpc::ServerContextBase& context);
// The same from a connection's auth context (an AuthMetadataProcessor's view; may be null).
ClientCertificate ClientCertificateOf(const grpc::AuthContext* auth);

// True when the PEM certificate's extended key usage lists clientAuth (an absent EKU does not:
// an unrestricted certificate was not issued for this).
bool HasClientAuthUsage(const std::string& pem);

}  // namespace kbench::auth
