// What kbenchd derives from its flags before any part starts: the stop signals, who may call and
// over which transport, where the store lives, the executor's program and arguments, and the
// scheduler's options. Each error names the flag that was wrong. Keeps server/kbenchd/daemon.cc to
// the parts' wiring.
#pragma once

#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/auth/authenticator.h"
#include "server/auth/unix_peers.h"
#include "server/kbenchd/daemon_flags.h"
#include "server/kbenchd/listening.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/executor_supervisor.h"
#include "server/scheduler/scheduler.h"
#include "server/store/store_location.h"

namespace kbench {

// SIGTERM and SIGINT (a draining stop) and SIGHUP (reloads the auth file): blocked in every
// thread and taken by sigwait.
sigset_t StopSignals();

// --listen, or its default when kbenchd listens on TCP.
std::string ListenAddress(const DaemonFlags& flags);

// Who may call, and how: the listening policy, the authenticator and the TLS credentials.
struct Security {
  // Set when kbenchd serves its Unix socket: its connections' uids, read by the authenticator.
  std::unique_ptr<auth::UnixPeers> unix_peers;
  std::unique_ptr<auth::Authenticator> authenticator;
  std::shared_ptr<grpc::ServerCredentials> credentials;
};
absl::StatusOr<Security> SetUpSecurity(const DaemonFlags& flags);

// Where gRPC is served: the Unix socket when SetUpSecurity chose it, else --listen.
Endpoint EndpointOf(const DaemonFlags& flags, const std::string& data_dir,
                    const Security& security);

// Where the store lives: --store postgres://... (a fleet), else SQLite under `data_dir`.
absl::StatusOr<store::StoreLocation> StoreLocationOf(const DaemonFlags& flags,
                                                     const std::string& data_dir);

// kbench-executor (--executor-path, else the one installed next to kbenchd) and its arguments.
absl::StatusOr<scheduler::ProcessLauncherOptions> ExecutorOf(const DaemonFlags& flags,
                                                             const std::string& data_dir);

absl::StatusOr<scheduler::SchedulerOptions> SchedulerOptionsOf(const DaemonFlags& flags);

// The owners that metrics count under their own name: with --metrics-owner-labels, the auth
// file's users, and `local` in open mode; otherwise none, so that /metrics does not list who
// uses the lab (issue 24). Everyone else is "other", so a label's values stay bounded.
void SetKnownOwners(const auth::Authenticator& authenticator, bool owner_labels,
                    metrics::Metrics& metrics);

}  // namespace kbench
