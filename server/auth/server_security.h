// kbenchd's security flags and what follows from them: the listening policy (secure by default),
// the gRPC server credentials (TLS, optionally mutual), the authenticator's options, and the
// `kbenchd token add` command. Keeps server/main.cc to wiring.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <functional>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "server/auth/authenticator.h"

namespace kbench::auth {

struct SecurityFlags {
  std::string auth_file;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  bool insecure = false;
};

// --auth-file, --tls-cert, --tls-key, --tls-client-ca, --insecure.
void AddSecurityFlags(CLI::App& app, SecurityFlags* flags);
// `token add NAME [--role admin] --auth-file FILE`; when chosen on the command line, *run is set
// to the command (returns the exit code) and the daemon must not start.
void AddTokenCommand(CLI::App& app, std::function<int()>* run);

// True for a host part of HOST:PORT that only this machine reaches (127.0.0.0/8, ::1,
// localhost).
bool IsLoopbackAddress(const std::string& listen);
// Refuses what would expose the queue to the network: a non-loopback address without both TLS
// and authentication, unless --insecure; also TLS flags that make no sense together.
absl::Status CheckListenPolicy(const SecurityFlags& flags, const std::string& listen);
AuthOptions AuthOptionsOf(const SecurityFlags& flags);
// TLS (gRPC's SslServerCredentials) when --tls-cert is given, requesting and verifying a client
// certificate against --tls-client-ca when that is given; plaintext otherwise.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const SecurityFlags& flags);
// One line for the start-up log: how callers are authenticated.
std::string DescribeSecurity(const SecurityFlags& flags);

}  // namespace kbench::auth
