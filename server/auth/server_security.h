// kbenchd's security flags and what follows from them: the listening policy (secure by default),
// the gRPC server credentials (TLS, optionally mutual), the authenticator's options, and the
// `kbenchd token add` command. Keeps server/kbenchd/main.cc to wiring.
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
  // --open: no credentials, every caller `local`, an admin (a single-user machine).
  bool open = false;
  // The Unix socket served when kbenchd has neither credentials to check nor --open.
  std::string unix_socket;  // empty: DefaultUnixSocketPath
  std::string unix_socket_group;
};

// --auth-file, --tls-cert, --tls-key, --tls-client-ca, --insecure, --open, --unix-socket,
// --unix-socket-group.
void AddSecurityFlags(CLI::App& app, SecurityFlags* flags);
// `token add NAME [--role admin] --auth-file FILE`; when chosen on the command line, *run is set
// to the command (returns the exit code) and the daemon must not start.
void AddTokenCommand(CLI::App& app, std::function<int()>* run);

// True for a host part of HOST:PORT that only this machine reaches (127.0.0.0/8, ::1,
// localhost).
bool IsLoopbackAddress(const std::string& listen);
// The address kbenchd listens on when --listen is not given and it has credentials to check
// (or --open).
inline constexpr char kDefaultListen[] = "127.0.0.1:50051";
// True when kbenchd serves its Unix socket instead of a TCP address: no --listen, no auth file,
// no client CA and no --open. Callers are then their Unix users (SO_PEERCRED).
bool ServesUnixSocket(const SecurityFlags& flags, const std::string& listen);
// Refuses what would make accidental admins or expose the queue to the network: a --listen
// address without credentials to check and without --open; a non-loopback address without both
// TLS and authentication, unless --insecure; flags that make no sense together. `listen` is
// --listen as given (empty: not given).
absl::Status CheckListenPolicy(const SecurityFlags& flags, const std::string& listen);
AuthOptions AuthOptionsOf(const SecurityFlags& flags);
// TLS (gRPC's SslServerCredentials) when --tls-cert is given, requesting and verifying a client
// certificate against --tls-client-ca when that is given; plaintext otherwise.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const SecurityFlags& flags);
// One line for the start-up log: how callers are authenticated.
std::string DescribeSecurity(const SecurityFlags& flags);

}  // namespace kbench::auth
