// Where kbctl connects and with which credentials: flags first, then $KBENCH_SERVER /
// $KBENCH_TOKEN, then the config file's context (--context, else its current context), then
// the defaults. The token is read here and never printed.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/connection.h"
#include "client/session.h"

namespace kbench::client {

struct ConnectionFlags {
  std::string server;
  std::string token;
  std::string ca_file;
  std::string context;
  bool tls = false;
};

struct ResolvedConnection {
  std::string server;
  ConnectionSecurity security;
};

// Writes warnings (a token in a file others can read) to io.err. A token bound for a
// non-loopback server over plaintext is a usage error: it would cross the network readable.
absl::StatusOr<ResolvedConnection> ResolveConnection(const ConnectionFlags& flags, const Io& io,
                                                     const std::string& default_server);

// The server when nothing names one: kbenchd's Unix socket when one is there
// ($XDG_RUNTIME_DIR/kbenchd.sock, a per-user kbenchd; then /run/kbench/kbenchd.sock, a shared
// host's), else `tcp_default`.
std::string DefaultServer(const Io& io, const std::string& tcp_default);

// The host of a HOST:PORT, [V6]:PORT, bare V6 or gRPC "dns:///HOST:PORT" address.
absl::string_view ServerHost(absl::string_view server);

// True when the host is a loopback address (127.0.0.0/8 or ::1, parsed by inet_pton) or is
// exactly "localhost", or a unix: socket; a name that merely starts with "127." is not
// one.
bool IsLoopbackServer(const std::string& server);

}  // namespace kbench::client
