// kbenchd's security flags, listening policy, credentials and `token add` (see server_security.h).
#include "server/auth/server_security.h"

#include <arpa/inet.h>
#include <grpcpp/security/server_credentials.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/auth/auth_file.h"
#include "server/auth/token.h"

namespace kbench::auth {
namespace {

absl::StatusOr<std::string> ReadPem(const char* flag, const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  if (!in || content.str().find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", path, ": cannot be read or holds no PEM block"));
  }
  return content.str();
}

std::string HostOf(const std::string& listen) {
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    return close == std::string::npos ? listen : listen.substr(1, close - 1);
  }
  const size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

struct TokenAddArgs {
  std::string name;
  std::string role;
  std::string auth_file;
};

int RunTokenAdd(const TokenAddArgs& args) {
  std::optional<Role> role;
  absl::Status status = ValidateUserName(args.name);
  if (status.ok() && !args.role.empty()) {
    absl::StatusOr<Role> parsed = ParseRole(args.role);
    status = parsed.status();
    if (parsed.ok()) role = *parsed;
  }
  AuthFile file;
  if (status.ok()) {
    // A missing file is created: this is how the first admin is made.
    absl::StatusOr<AuthFile> loaded = LoadAuthFile(args.auth_file);
    if (loaded.ok()) {
      file = *std::move(loaded);
    } else if (!absl::IsNotFound(loaded.status())) {
      status = loaded.status();
    }
  }
  absl::StatusOr<std::string> token =
      status.ok() ? MintToken() : absl::StatusOr<std::string>(status);
  if (token.ok()) {
    AddToken(&file, args.name, role, Sha256Hex(*token));
    status = SaveAuthFile(args.auth_file, file);
  }
  if (!status.ok() || !token.ok()) {
    std::fprintf(stderr, "kbenchd token add: %s\n",
                 std::string((status.ok() ? token.status() : status).message()).c_str());
    return 1;
  }
  const User* user = file.Find(args.name);
  std::fprintf(stderr,
               "kbenchd: token for %s (%s) added to %s. It is printed once, below; kbenchd loads "
               "it on SIGHUP.\n",
               args.name.c_str(), RoleName(user->role), args.auth_file.c_str());
  std::printf("%s\n", token->c_str());
  return 0;
}

}  // namespace

void AddSecurityFlags(CLI::App& app, SecurityFlags* flags) {
  app.add_option("--auth-file", flags->auth_file,
                 "Users, roles, token SHA-256s and certificate names (YAML); reloaded on SIGHUP. "
                 "Without it (and without --tls-client-ca or --open) kbenchd serves only its Unix "
                 "socket, where each caller is its Unix user");
  app.add_option("--tls-cert", flags->tls_cert, "Serve gRPC over TLS with this PEM certificate");
  app.add_option("--tls-key", flags->tls_key, "The PEM private key of --tls-cert");
  app.add_option("--tls-client-ca", flags->tls_client_ca,
                 "Mutual TLS: a client certificate signed by this PEM CA, with the clientAuth "
                 "usage, authenticates as the user whose certificate_names list its CN or a SAN");
  app.add_flag("--insecure", flags->insecure,
               "Allow a non-loopback --listen without TLS and authentication");
  app.add_flag("--open", flags->open,
               "No authentication: every caller is 'local', an admin. Only for a machine whose "
               "every user may administer kbench (a workstation)");
  app.add_option("--unix-socket", flags->unix_socket,
                 "Without --auth-file, --tls-client-ca and --open: serve this Unix socket, each "
                 "caller being its Unix user (default: $XDG_RUNTIME_DIR/kbenchd.sock, else "
                 "DATA_DIR/kbenchd.sock)");
  app.add_option("--unix-socket-group", flags->unix_socket_group,
                 "Make the Unix socket 0660 and owned by this group, whose members may connect "
                 "(default: 0600, kbenchd's own user only)");
}

void AddTokenCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<TokenAddArgs>();
  CLI::App* token = app.add_subcommand("token", "Manage the bearer tokens of --auth-file");
  token->require_subcommand(1);
  CLI::App* add = token->add_subcommand(
      "add",
      "Mint a token for NAME, add the user and the token's SHA-256 to the auth file, and "
      "print the token once");
  add->add_option("NAME", args->name, "User name")->required();
  add->add_option("--role", args->role, "user or admin (default: user, or the user's role)")
      ->check(CLI::IsMember({"user", "admin"}));
  add->add_option("--auth-file", args->auth_file, "The auth file (created if missing)")->required();
  add->callback([args, run] { *run = [args] { return RunTokenAdd(*args); }; });
}

bool IsLoopbackAddress(const std::string& listen) {
  const std::string host = HostOf(listen);
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool ServesUnixSocket(const SecurityFlags& flags, const std::string& listen) {
  return listen.empty() && flags.auth_file.empty() && flags.tls_client_ca.empty() && !flags.open;
}

// Flags that contradict each other, whatever the address.
absl::Status CheckFlagCombinations(const SecurityFlags& flags, const std::string& listen) {
  if (flags.tls_cert.empty() != flags.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  if (!flags.tls_client_ca.empty() && flags.tls_cert.empty()) {
    return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
  }
  const bool authenticated = !flags.auth_file.empty() || !flags.tls_client_ca.empty();
  if (flags.open && authenticated) {
    return absl::InvalidArgumentError(
        "--open makes every caller an admin; it does not go with --auth-file or --tls-client-ca");
  }
  if ((!flags.unix_socket.empty() || !flags.unix_socket_group.empty()) &&
      !ServesUnixSocket(flags, listen)) {
    return absl::InvalidArgumentError(
        "--unix-socket and --unix-socket-group serve callers by their Unix user; they go "
        "without --listen, --auth-file, --tls-client-ca and --open");
  }
  return absl::OkStatus();
}

absl::Status CheckListenPolicy(const SecurityFlags& flags, const std::string& listen) {
  KBENCH_RETURN_IF_ERROR(CheckFlagCombinations(flags, listen));
  if (ServesUnixSocket(flags, listen)) return absl::OkStatus();
  const bool tls = !flags.tls_cert.empty();
  const bool authenticated = !flags.auth_file.empty() || !flags.tls_client_ca.empty();
  if (!authenticated && !flags.open) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing --listen ", listen,
        " without authentication: every caller would be an admin, even on loopback where every "
        "user of this host reaches it. Add --auth-file (or --tls-client-ca); or --open to accept "
        "that (a single-user machine); or drop --listen to serve the Unix socket, where each "
        "caller is its Unix user"));
  }
  const std::string address = listen.empty() ? kDefaultListen : listen;
  if (IsLoopbackAddress(address) || flags.insecure || (tls && authenticated)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to listen on ", address, " without ", tls ? "" : "TLS (--tls-cert, --tls-key)",
      tls || authenticated ? "" : " and ",
      authenticated ? "" : "authentication (--auth-file or --tls-client-ca)",
      ": anyone who reaches it could cancel any job; add them, or --insecure to accept that"));
}

AuthOptions AuthOptionsOf(const SecurityFlags& flags) {
  AuthOptions options;
  options.auth_file = flags.auth_file;
  options.client_certificates = !flags.tls_client_ca.empty();
  options.open = flags.open;
  return options;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const SecurityFlags& flags) {
  if (flags.tls_cert.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  KBENCH_ASSIGN_OR_RETURN(pair.cert_chain, ReadPem("--tls-cert", flags.tls_cert));
  KBENCH_ASSIGN_OR_RETURN(pair.private_key, ReadPem("--tls-key", flags.tls_key));
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (!flags.tls_client_ca.empty()) {
    KBENCH_ASSIGN_OR_RETURN(options.pem_root_certs,
                            ReadPem("--tls-client-ca", flags.tls_client_ca));
    // Requested, not required: callers with a token and no certificate stay welcome, while a
    // certificate that is presented must verify or the handshake fails.
    options.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

std::string DescribeSecurity(const SecurityFlags& flags) {
  std::string how = flags.tls_cert.empty() ? "plaintext" : "TLS";
  if (!flags.tls_client_ca.empty()) how += ", client certificates";
  if (!flags.auth_file.empty()) how += ", bearer tokens";
  if (flags.open) how += ", open: every caller is local (admin)";
  if (flags.auth_file.empty() && flags.tls_client_ca.empty() && !flags.open) {
    how = "Unix socket: each caller is its Unix user (SO_PEERCRED)";
  }
  return how;
}

}  // namespace kbench::auth
