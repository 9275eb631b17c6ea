// Resolution of kbctl's server and credentials (see resolve.h).
#include "client/config/resolve.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/config/config_file.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

std::optional<std::string> Env(const Io& io, const char* name) {
  if (!io.getenv) return std::nullopt;
  std::optional<std::string> value = io.getenv(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const Io& io) {
  std::ifstream in(path);
  if (!in) return UsageError(absl::StrCat("token-file ", path, ": cannot be read"));
  std::stringstream s;
  s << in.rdbuf();
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & 0044) != 0) {
    *io.err << "kbctl: warning: token file " << path << " is readable by others; run chmod 600 "
            << path << "\n";
  }
  return std::string(absl::StripAsciiWhitespace(s.str()));
}

absl::StatusOr<const KbctlContext*> ChooseContext(const KbctlConfig& config,
                                                  const std::string& flag,
                                                  const std::string& path) {
  const std::string& name = flag.empty() ? config.current_context : flag;
  if (name.empty()) return static_cast<const KbctlContext*>(nullptr);
  const KbctlContext* context = config.Find(name);
  if (context == nullptr) {
    return UsageError(absl::StrCat(flag.empty() ? "current-context" : "--context", ": no context '",
                                   name, "' in ", path, " (kbctl config get-contexts)"));
  }
  return context;
}

// The shared host's socket: where docs/security/auth.md tells a lab to put a kbenchd that
// serves its users by their Unix accounts (--unix-socket).
constexpr char kSharedUnixSocket[] = "/run/kbench/kbenchd.sock";

bool IsSocket(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

std::string DefaultServer(const Io& io, const std::string& tcp_default) {
  if (std::optional<std::string> runtime = Env(io, "XDG_RUNTIME_DIR"); runtime) {
    const std::string own = absl::StrCat(*runtime, "/kbenchd.sock");
    if (IsSocket(own)) return absl::StrCat("unix:", own);
  }
  if (IsSocket(kSharedUnixSocket)) return absl::StrCat("unix:", kSharedUnixSocket);
  return tcp_default;
}

absl::string_view ServerHost(absl::string_view server) {
  // gRPC's own scheme prefixes ("dns:///host:port", "ipv4:host:port") name the same host.
  for (absl::string_view scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (absl::ConsumePrefix(&server, scheme)) break;
  }
  if (absl::StartsWith(server, "[")) {
    const size_t close = server.find(']');
    return close == absl::string_view::npos ? absl::string_view() : server.substr(1, close - 1);
  }
  // "host:port"; a bare IPv6 address ("::1") holds several colons and no port.
  const size_t colon = server.find(':');
  if (colon != absl::string_view::npos && server.find(':', colon + 1) == absl::string_view::npos) {
    return server.substr(0, colon);
  }
  return server;
}

bool IsLoopbackServer(const std::string& server) {
  // A Unix socket never leaves the host.
  if (absl::StartsWith(server, "unix:")) return true;
  // The host as an address, never by its spelling: "127.attacker.example" is a DNS name that
  // starts with "127." and resolves wherever its owner likes.
  const std::string host(ServerHost(server));
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;  // 127.0.0.0/8, RFC 1122 section 3.2.1.3
  }
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

absl::StatusOr<ResolvedConnection> ResolveConnection(const ConnectionFlags& flags, const Io& io,
                                                     const std::string& default_server) {
  const std::string path = ConfigPath(Env(io, "KBENCH_CONFIG"), Env(io, "HOME"));
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(path));
  if (std::string warning = PermissionWarning(path, config); !warning.empty()) {
    *io.err << warning << "\n";
  }
  KBENCH_ASSIGN_OR_RETURN(const KbctlContext* context, ChooseContext(config, flags.context, path));
  const KbctlContext none;
  const KbctlContext& c = context != nullptr ? *context : none;

  ResolvedConnection out;
  out.server = !flags.server.empty()
                   ? flags.server
                   : Env(io, "KBENCH_SERVER")
                         .value_or(c.server.empty() ? DefaultServer(io, default_server) : c.server);
  out.security.token =
      !flags.token.empty() ? flags.token : Env(io, "KBENCH_TOKEN").value_or(c.token);
  if (out.security.token.empty() && !c.token_file.empty()) {
    KBENCH_ASSIGN_OR_RETURN(out.security.token, ReadTokenFile(c.token_file, io));
  }
  out.security.ca_file = !flags.ca_file.empty() ? flags.ca_file : c.ca_file;
  out.security.tls = flags.tls || c.tls || !out.security.ca_file.empty();
  if (!out.security.ca_file.empty() && !std::ifstream(out.security.ca_file)) {
    return UsageError(absl::StrCat("--ca-file ", out.security.ca_file, ": cannot be read"));
  }
  if (!out.security.token.empty() && !out.security.tls && !IsLoopbackServer(out.server)) {
    return UsageError(absl::StrCat("refusing to send a token in plaintext to ", out.server,
                                   "; use TLS (--ca-file FILE, or --tls for the system's CAs)"));
  }
  return out;
}

}  // namespace kbench::client
