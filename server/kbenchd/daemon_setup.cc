// What kbenchd derives from its flags before any part starts (server/kbenchd/daemon_setup.h).
#include "server/kbenchd/daemon_setup.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "server/auth/server_security.h"
#include "server/common/idle_gate_flag.h"
#include "server/common/logging.h"
#include "server/store/store_migration.h"

namespace kbench {
namespace {

using logging::Field;
using logging::Level;

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// kbench-executor: --executor-path, else the one installed next to kbenchd.
absl::StatusOr<std::string> ExecutorPath(const std::string& flag) {
  std::filesystem::path path = flag;
  if (path.empty()) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return absl::FailedPreconditionError("cannot find my own program (/proc/self/exe)");
    path = self.parent_path() / "kbench-executor";
  }
  if (access(path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--executor-path ", path.string(),
                     ": no executable kbench-executor there (install it next to kbenchd)"));
  }
  return path.string();
}

// The executor's own flags: its log's format, and one compile at a time on this host, whichever
// executor runs it, within the compile child's limits (issue 24); each --idle-gate checked here.
absl::StatusOr<std::vector<std::string>> ExecutorArgs(const DaemonFlags& flags,
                                                      const std::string& data_dir) {
  std::vector<std::string> args = {"--log-format",
                                   flags.log_format,
                                   "--log-level",
                                   flags.log_level,
                                   "--compile-lock",
                                   data_dir + "/compile.lock",
                                   "--compile-memory-limit-mib",
                                   std::to_string(flags.compile_memory_mib),
                                   "--compile-cpu-seconds",
                                   std::to_string(flags.compile_cpu_seconds)};
  for (const std::string& gate : flags.idle_gates) {
    KBENCH_RETURN_IF_ERROR(ParseIdleGateSpec(gate).status());
    args.insert(args.end(), {"--idle-gate", gate});
  }
  if (flags.allow_nvls) args.push_back("--allow-nvls");
  return args;
}

// /metrics has no TLS nor authentication of its own: loopback only, unless the operator says
// the network it is on may read it.
absl::Status CheckMetricsPolicy(const DaemonFlags& flags) {
  if (flags.metrics_listen.empty() || flags.metrics_insecure ||
      auth::IsLoopbackAddress(flags.metrics_listen)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing --metrics-listen ", flags.metrics_listen,
      ": /metrics has neither TLS nor authentication, so whoever reaches it reads the queue's "
      "and the GPUs' state; use a loopback address (and a proxy or the node's Prometheus), or "
      "--metrics-insecure to accept that"));
}

}  // namespace

sigset_t StopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);  // not a stop: reloads the auth file (WaitForStop)
  return stop_signals;
}

std::string ListenAddress(const DaemonFlags& flags) {
  return flags.listen.empty() ? auth::kDefaultListen : flags.listen;
}

absl::StatusOr<Security> SetUpSecurity(const DaemonFlags& flags) {
  KBENCH_RETURN_IF_ERROR(auth::CheckListenPolicy(flags.security, flags.listen));
  KBENCH_RETURN_IF_ERROR(CheckMetricsPolicy(flags));
  Security security;
  auth::AuthOptions auth_options = auth::AuthOptionsOf(flags.security);
  if (auth::ServesUnixSocket(flags.security, flags.listen)) {
    security.unix_peers = std::make_unique<auth::UnixPeers>();
    auth_options.unix_peers = security.unix_peers.get();
  }
  KBENCH_ASSIGN_OR_RETURN(security.authenticator, auth::Authenticator::Create(auth_options));
  KBENCH_ASSIGN_OR_RETURN(security.credentials, auth::ServerCredentialsFor(flags.security));
  if (security.unix_peers != nullptr && !flags.store.empty()) {
    return absl::InvalidArgumentError(
        "--store (a fleet) needs --listen, with --auth-file, --tls-client-ca or --open: the "
        "other nodes reach this one over the network, not over its Unix socket");
  }
  if (flags.security.insecure && !auth::IsLoopbackAddress(ListenAddress(flags))) {
    logging::Log(Level::kWarn, "--insecure: the queue is open to whoever reaches it",
                 {Field("listen", ListenAddress(flags))});
  }
  return security;
}

Endpoint EndpointOf(const DaemonFlags& flags, const std::string& data_dir,
                    const Security& security) {
  Endpoint endpoint;
  if (security.unix_peers == nullptr) {
    endpoint.listen = ListenAddress(flags);
    return endpoint;
  }
  endpoint.unix_socket = flags.security.unix_socket.empty() ? auth::DefaultUnixSocketPath(data_dir)
                                                            : flags.security.unix_socket;
  endpoint.unix_socket_group = flags.security.unix_socket_group;
  return endpoint;
}

absl::StatusOr<store::StoreLocation> StoreLocationOf(const DaemonFlags& flags,
                                                     const std::string& data_dir) {
  store::StoreLocation location;
  location.data_dir = data_dir;
  if (flags.store.empty()) return location;
  if (!store::IsPostgresUrl(flags.store)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--store: expected a PostgreSQL URL (postgres://USER@HOST:PORT/DB), got '",
        flags.store.substr(0, 64), "'; without --store, SQLite under --data-dir serves one host"));
  }
  location.postgres_url = flags.store;
  if (!flags.store_password_file.empty()) {
    absl::StatusOr<std::string> url =
        store::WithPasswordFile(flags.store, flags.store_password_file);
    if (!url.ok()) return url.status();
    location.postgres_url = *url;
  }
  location.node = flags.node.empty() ? HostName() : flags.node;
  if (location.node.find('/') != std::string::npos || location.node.size() > 63) {
    return absl::InvalidArgumentError(
        absl::StrCat("--node: '", location.node, "' must be at most 63 bytes, without '/'"));
  }
  return location;
}

absl::StatusOr<scheduler::ProcessLauncherOptions> ExecutorOf(const DaemonFlags& flags,
                                                             const std::string& data_dir) {
  scheduler::ProcessLauncherOptions options;
  KBENCH_ASSIGN_OR_RETURN(options.executable, ExecutorPath(flags.executor_path));
  KBENCH_ASSIGN_OR_RETURN(options.executor_args, ExecutorArgs(flags, data_dir));
  return options;
}

absl::StatusOr<scheduler::SchedulerOptions> SchedulerOptionsOf(const DaemonFlags& flags) {
  scheduler::SchedulerOptions options;
  options.enable_cuda = !flags.no_cuda;
  options.hang_slack = absl::Seconds(flags.executor_hang_slack_seconds);
  options.isolate_owners = flags.isolate_owners;
  if (!absl::ParseDuration(flags.fair_share_half_life, &options.fair_share_half_life) ||
      options.fair_share_half_life <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--fair-share-half-life ", flags.fair_share_half_life,
                     ": not a positive duration such as 1h, 30m or 90s"));
  }
  return options;
}

void SetKnownOwners(const auth::Authenticator& authenticator, bool owner_labels,
                    metrics::Metrics& metrics) {
  std::vector<std::string> owners;
  if (owner_labels) owners = authenticator.UserNames();
  if (owner_labels && authenticator.open()) owners.push_back(auth::kLocalUser);
  metrics.SetKnownOwners(owners);
}

}  // namespace kbench
