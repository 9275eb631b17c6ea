// kbenchd: flags, wiring of the control plane, signals. The control plane links no CUDA library;
// each device's jobs run in a kbench-executor child process (found next to this program).
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "server/api/early_auth.h"
#include "server/api/kbench_service.h"
#include "server/api/server_options.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/server_security.h"
#include "server/auth/unix_peers.h"
#include "server/auth/unix_socket_listener.h"
#include "server/common/idle_gate_flag.h"
#include "server/common/logging.h"
#include "server/draining.h"
#include "server/fleet/fleet_queue.h"
#include "server/listening.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/executor_supervisor.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/scheduler.h"
#include "server/scheduler/store_maintenance.h"
#include "server/store/artifact_store.h"
#include "server/store/fleet_store.h"
#include "server/store/job_store.h"
#include "server/store/resilient_job_store.h"
#include "server/store/store_migration.h"
#include "server/store/stored_bytes.h"
#include "server/store/sweep_store.h"
#include "server/store/usage_store.h"
#include "server/store/variant_store.h"

namespace {

using kbench::logging::Field;
using kbench::logging::Level;

struct Flags {
  // Empty: 127.0.0.1:50051 with credentials (or --open), else the Unix socket.
  std::string listen;
  std::string data_dir = "kbench-data";
  std::string metrics_listen;
  // /metrics on a non-loopback address (it has no TLS nor authentication of its own).
  bool metrics_insecure = false;
  // Owners' names as label values of the tenancy series (default: all count as "other").
  bool metrics_owner_labels = false;
  std::string log_format = "text";
  std::string log_level = "info";
  int64_t cpu_max_bytes = int64_t{4} << 30;
  bool no_cuda = false;
  int64_t artifact_max_bytes = int64_t{10} << 30;
  int64_t artifact_max_age_seconds = int64_t{30} * 24 * 3600;
  std::string job_retention = "90d";
  double executor_hang_slack_seconds = 300;
  // kbench-executor; empty: next to this program.
  std::string executor_path;
  // How fast fair share forgets GPU time ("1h", "30m", "90s").
  std::string fair_share_half_life = "1h";
  // Restart a GPU's executor when the next job is another owner's (issue 23, item 4).
  bool isolate_owners = false;
  // --idle-gate DEVICE=TIMEOUT_S[,MAX_TEMP_C], repeated (server/common/idle_gate_flag.h).
  std::vector<std::string> idle_gates;
  kbench::auth::SecurityFlags security;
  kbench::api::ApiOptions api;
  // The fleet (issue 14): a PostgreSQL URL shared by every node; empty: SQLite in data_dir.
  std::string store;
  // A libpq password file for --store (issue 24: never PGPASSWORD, which children inherit).
  std::string store_password_file;
  // A compile child's address space (MiB) and CPU time (s) (issue 24).
  uint64_t compile_memory_mib = 4096;
  uint64_t compile_cpu_seconds = 60;
  // This node's name in the fleet (default: the host name) and how long it may go without a
  // heartbeat before its jobs are re-queued elsewhere.
  std::string node;
  double node_lease_seconds = 15;
  // Registered user variants each owner may keep (kbctl variants add).
  int64_t max_variants_per_owner = 50;
  // How long a stop (SIGTERM, SIGINT) waits for the calls in flight (server/draining.h).
  double drain_seconds = 10;
};

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// Where the store lives: --store postgres://... (a fleet), else SQLite under --data-dir.
absl::StatusOr<kbench::store::StoreLocation> StoreLocationOf(const Flags& flags,
                                                             const std::string& data_dir) {
  kbench::store::StoreLocation location;
  location.data_dir = data_dir;
  if (flags.store.empty()) return location;
  if (!kbench::store::IsPostgresUrl(flags.store)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--store: expected a PostgreSQL URL (postgres://USER@HOST:PORT/DB), got '",
        flags.store.substr(0, 64), "'; without --store, SQLite under --data-dir serves one host"));
  }
  location.postgres_url = flags.store;
  if (!flags.store_password_file.empty()) {
    absl::StatusOr<std::string> url =
        kbench::store::WithPasswordFile(flags.store, flags.store_password_file);
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

// `kbenchd store migrate`: a single host's SQLite store into a fleet's PostgreSQL.
void AddStoreCommand(CLI::App& app, std::function<int()>* run) {
  auto args = std::make_shared<kbench::store::MigrateCommandArgs>();
  CLI::App* store = app.add_subcommand("store", "Manage the job store");
  store->require_subcommand(1);
  CLI::App* migrate = store->add_subcommand(
      "migrate",
      "Copy a SQLite data directory (jobs, artifacts, usage, sweeps, history) into an empty "
      "PostgreSQL database for a fleet");
  migrate->add_option("--data-dir", args->data_dir, "The SQLite data directory")->required();
  migrate->add_option("--to", args->to, "postgres://USER@HOST:PORT/DB")->required();
  migrate->callback(
      [args, run] { *run = [args] { return kbench::store::RunMigrateCommand(*args); }; });
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "kbenchd: %s\n", message.c_str());
  return 1;
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

sigset_t StopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);  // not a stop: reloads the auth file (WaitForStop)
  return stop_signals;
}

// --listen, or its default when kbenchd listens on TCP.
std::string ListenAddress(const Flags& flags) {
  return flags.listen.empty() ? kbench::auth::kDefaultListen : flags.listen;
}

// Who may call, and how: the listening policy, the authenticator and the TLS credentials.
struct Security {
  // Set when kbenchd serves its Unix socket: its connections' uids, read by the authenticator.
  std::unique_ptr<kbench::auth::UnixPeers> unix_peers;
  std::unique_ptr<kbench::auth::Authenticator> authenticator;
  std::shared_ptr<grpc::ServerCredentials> credentials;
};

// /metrics has no TLS nor authentication of its own: loopback only, unless the operator says
// the network it is on may read it.
absl::Status CheckMetricsPolicy(const Flags& flags) {
  if (flags.metrics_listen.empty() || flags.metrics_insecure ||
      kbench::auth::IsLoopbackAddress(flags.metrics_listen)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing --metrics-listen ", flags.metrics_listen,
      ": /metrics has neither TLS nor authentication, so whoever reaches it reads the queue's "
      "and the GPUs' state; use a loopback address (and a proxy or the node's Prometheus), or "
      "--metrics-insecure to accept that"));
}

absl::StatusOr<Security> SetUpSecurity(const Flags& flags) {
  KBENCH_RETURN_IF_ERROR(kbench::auth::CheckListenPolicy(flags.security, flags.listen));
  KBENCH_RETURN_IF_ERROR(CheckMetricsPolicy(flags));
  Security security;
  kbench::auth::AuthOptions auth_options = kbench::auth::AuthOptionsOf(flags.security);
  if (kbench::auth::ServesUnixSocket(flags.security, flags.listen)) {
    security.unix_peers = std::make_unique<kbench::auth::UnixPeers>();
    auth_options.unix_peers = security.unix_peers.get();
  }
  KBENCH_ASSIGN_OR_RETURN(security.authenticator,
                          kbench::auth::Authenticator::Create(auth_options));
  KBENCH_ASSIGN_OR_RETURN(security.credentials, kbench::auth::ServerCredentialsFor(flags.security));
  if (security.unix_peers != nullptr && !flags.store.empty()) {
    return absl::InvalidArgumentError(
        "--store (a fleet) needs --listen, with --auth-file, --tls-client-ca or --open: the "
        "other nodes reach this one over the network, not over its Unix socket");
  }
  if (flags.security.insecure && !kbench::auth::IsLoopbackAddress(ListenAddress(flags))) {
    kbench::logging::Log(Level::kWarn, "--insecure: the queue is open to whoever reaches it",
                         {Field("listen", ListenAddress(flags))});
  }
  return security;
}

// Where gRPC is served: the Unix socket when SetUpSecurity chose it, else --listen.
kbench::Endpoint EndpointOf(const Flags& flags, const std::string& data_dir,
                            const Security& security) {
  kbench::Endpoint endpoint;
  if (security.unix_peers == nullptr) {
    endpoint.listen = ListenAddress(flags);
    return endpoint;
  }
  endpoint.unix_socket = flags.security.unix_socket.empty()
                             ? kbench::auth::DefaultUnixSocketPath(data_dir)
                             : flags.security.unix_socket;
  endpoint.unix_socket_group = flags.security.unix_socket_group;
  return endpoint;
}

// The owners that metrics count under their own name: with --metrics-owner-labels, the auth
// file's users, and `local` in open mode; otherwise none, so that /metrics does not list who
// uses the lab (issue 24). Everyone else is "other", so a label's values stay bounded.
void SetKnownOwners(const kbench::auth::Authenticator& authenticator, bool owner_labels,
                    kbench::metrics::Metrics& metrics) {
  std::vector<std::string> owners;
  if (owner_labels) owners = authenticator.UserNames();
  if (owner_labels && authenticator.open()) owners.push_back(kbench::auth::kLocalUser);
  metrics.SetKnownOwners(owners);
}

absl::StatusOr<kbench::scheduler::SchedulerOptions> SchedulerOptionsOf(const Flags& flags) {
  kbench::scheduler::SchedulerOptions options;
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

// Fair share's bookkeeping and the tenancy metrics: each run's GPU time recorded in the store
// and counted per owner, authentication failures counted by reason.
void WireTenancy(kbench::auth::Authenticator& authenticator, bool owner_labels,
                 kbench::store::UsageStore* usage, kbench::metrics::Metrics& metrics,
                 kbench::scheduler::Scheduler& scheduler) {
  authenticator.SetFailureObserver([m = &metrics](kbench::auth::AuthFailure reason) {
    m->AuthFailed(kbench::auth::AuthFailureName(reason));
  });
  SetKnownOwners(authenticator, owner_labels, metrics);
  scheduler.UseUsageStore(usage);
  scheduler.SetUsageObserver([m = &metrics](const std::string& owner, double seconds) {
    m->AddOwnerGpuSeconds(owner, seconds);
  });
}

// Returns the stop signal; SIGHUP in between reloads the auth file, keeping the users loaded
// before if the new file is wrong. Jobs and connections are untouched.
int WaitForStop(const sigset_t& signals, kbench::auth::Authenticator& authenticator,
                bool owner_labels, kbench::metrics::Metrics& metrics) {
  while (true) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != SIGHUP) return sig;
    const absl::Status reloaded = authenticator.Reload();
    SetKnownOwners(authenticator, owner_labels, metrics);
    kbench::logging::Log(reloaded.ok() ? Level::kInfo : Level::kError,
                         reloaded.ok() ? "auth file reloaded" : "auth file not reloaded",
                         {Field("error", reloaded.ToString())});
  }
}

// Health ("kbench.store", and "" while the store refuses writes) and the store's gauges follow
// the job store's writability.
void FollowStoreState(kbench::store::ResilientJobStore& jobs, kbench::store::HeldWrites& held,
                      kbench::scheduler::Scheduler& scheduler, kbench::metrics::Metrics& metrics,
                      kbench::scheduler::StoreMaintenance& maintenance) {
  scheduler.SetStoreWritable(jobs.Writable());
  metrics.SetStoreState(jobs.Writable(), held.Count());
  jobs.OnWritabilityChange([&](bool writable, const absl::Status&) {
    scheduler.SetStoreWritable(writable);
    metrics.SetStoreState(writable, held.Count());
    if (!writable) maintenance.Wake();
  });
}

// The lines operators and the tests wait for on stdout (the addresses, then "ready"), and the
// log's own.
void AnnounceReady(const Flags& flags, const kbench::store::StoreLocation& location,
                   const std::string& address, const std::string& metrics_address,
                   const std::vector<kbench::v1::DeviceInfo>& devices) {
  std::printf("kbenchd: listening on %s\n", address.c_str());
  if (!metrics_address.empty()) std::printf("kbenchd: metrics on %s\n", metrics_address.c_str());
  for (const auto& d : devices) {
    kbench::logging::Log(Level::kInfo, "device", {Field("id", d.id()), Field("name", d.name())});
  }
  std::printf("kbenchd: ready\n");
  std::fflush(stdout);
  kbench::logging::Log(Level::kInfo, "kbenchd ready",
                       {Field("listen", address), Field("data_dir", location.data_dir),
                        Field("store", std::string(location.is_postgres() ? "postgres" : "sqlite")),
                        Field("node", location.node),
                        Field("security", kbench::auth::DescribeSecurity(flags.security))});
}

int Serve(const Flags& flags) {
  sigset_t stop_signals = StopSignals();
  absl::StatusOr<Security> security = SetUpSecurity(flags);
  if (!security.ok()) return Fail(std::string(security.status().message()));
  absl::StatusOr<kbench::scheduler::SchedulerOptions> options = SchedulerOptionsOf(flags);
  if (!options.ok()) return Fail(std::string(options.status().message()));
  // A write to an executor that just died must be an error, not a fatal signal.
  std::signal(SIGPIPE, SIG_IGN);

  std::error_code ec;
  std::filesystem::create_directories(flags.data_dir, ec);
  if (ec) return Fail(absl::StrCat("--data-dir ", flags.data_dir, ": ", ec.message()));
  const std::string data_dir = std::filesystem::absolute(flags.data_dir).string();

  absl::StatusOr<absl::Duration> job_retention =
      kbench::scheduler::ParseRetention(flags.job_retention);
  if (!job_retention.ok())
    return Fail(absl::StrCat("--job-retention: ", job_retention.status().message()));
  absl::StatusOr<kbench::store::StoreLocation> location = StoreLocationOf(flags, data_dir);
  if (!location.ok()) return Fail(std::string(location.status().message()));
  const bool fleet = location->is_postgres();
  // A fleet's queue is every node's: the fleet, not this node's scheduler, recovers it.
  options->recover_jobs = !fleet;
  absl::StatusOr<std::unique_ptr<kbench::store::JobStore>> opened =
      kbench::store::JobStore::Open(*location);
  if (!opened.ok()) return Fail(opened.status().ToString());
  // Writes the store refuses (its database away, its disk full) wait here, never lost, and are
  // written once it takes them (issue 25); what an earlier life held is written first.
  kbench::store::HeldWrites held((std::filesystem::path(data_dir) / "held").string(),
                                 location->node);
  if (absl::Status s = held.Load(); !s.ok()) return Fail(s.ToString());
  // Every part writes through it: a store that refuses writes fails no job silently.
  auto jobs = std::make_unique<kbench::store::ResilientJobStore>(
      *std::move(opened), kbench::store::WriteRetryPolicy{},
      kbench::store::StoreWhereabouts{data_dir, fleet ? location->postgres_url : ""}, &held);
  absl::StatusOr<std::unique_ptr<kbench::store::SweepStore>> sweeps =
      kbench::store::SweepStore::Open(*location);
  if (!sweeps.ok()) return Fail(sweeps.status().ToString());
  absl::StatusOr<std::unique_ptr<kbench::store::VariantStore>> variants =
      kbench::store::VariantStore::Open(*location);
  if (!variants.ok()) return Fail(variants.status().ToString());
  absl::StatusOr<std::unique_ptr<kbench::store::StoredBytes>> stored =
      kbench::store::StoredBytes::Open(*location);
  if (!stored.ok()) return Fail(stored.status().ToString());
  // A fleet keeps artifact bytes in the database, where every node reads them.
  std::unique_ptr<kbench::store::ArtifactChunks> chunks;
  if (fleet) {
    absl::StatusOr<std::unique_ptr<kbench::store::internal::Database>> chunk_db =
        kbench::store::ConnectStoreDatabase(*location);
    if (!chunk_db.ok()) return Fail(chunk_db.status().ToString());
    chunks = std::make_unique<kbench::store::ArtifactChunks>(*std::move(chunk_db));
  }
  kbench::store::ArtifactStore artifacts(data_dir, jobs.get(),
                                         {flags.artifact_max_bytes, flags.artifact_max_age_seconds},
                                         std::move(chunks), &held);
  absl::StatusOr<std::unique_ptr<kbench::store::UsageStore>> usage =
      kbench::store::UsageStore::Open(*location);
  if (!usage.ok()) return Fail(usage.status().ToString());
  absl::StatusOr<std::unique_ptr<kbench::metrics::Metrics>> metrics =
      kbench::metrics::Metrics::Create(flags.metrics_listen);
  if (!metrics.ok()) return Fail(metrics.status().ToString());

  kbench::scheduler::JobEvents events;
  absl::StatusOr<std::string> executor = ExecutorPath(flags.executor_path);
  if (!executor.ok()) return Fail(std::string(executor.status().message()));
  kbench::scheduler::Clock* clock = kbench::scheduler::Clock::Real();
  // One compile at a time on this host, whichever executor runs it (issue 24).
  std::vector<std::string> executor_args = {"--log-format",
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
    if (absl::Status s = kbench::ParseIdleGateSpec(gate).status(); !s.ok()) {
      return Fail(std::string(s.message()));
    }
    executor_args.insert(executor_args.end(), {"--idle-gate", gate});
  }
  kbench::scheduler::ProcessLauncher launcher({*executor, executor_args}, clock);
  kbench::scheduler::Scheduler scheduler(*options, &launcher, clock, jobs.get(), &artifacts,
                                         metrics->get(), &events);
  WireTenancy(*security->authenticator, flags.metrics_owner_labels, usage->get(), **metrics,
              scheduler);
  if (absl::Status s = scheduler.Start(); !s.ok()) return Fail(s.ToString());
  kbench::scheduler::MaintenanceOptions maintenance_options;
  maintenance_options.job_retention = *job_retention;
  kbench::scheduler::StoreMaintenance maintenance(maintenance_options, clock, jobs.get(),
                                                  &artifacts);
  FollowStoreState(*jobs, held, scheduler, **metrics, maintenance);
  // Forgotten before maintenance, the scheduler or the metrics go (locals die in reverse).
  absl::Cleanup forget_store_state = [&jobs] { jobs->OnWritabilityChange(nullptr); };
  maintenance.RunOnce();
  maintenance.Start();

  kbench::api::ApiOptions api = flags.api;
  api.limits.cpu_max_bytes = flags.cpu_max_bytes;
  // Open until SIGTERM; then it turns calls away while those in flight finish.
  kbench::auth::CallGate gate;
  kbench::auth::Authorizer authorizer(security->authenticator.get(), jobs.get(), &gate);
  std::unique_ptr<kbench::store::FleetStore> fleet_store;
  std::unique_ptr<kbench::fleet::FleetQueue> fleet_queue;
  kbench::scheduler::JobQueue* queue = &scheduler;
  if (fleet) {
    absl::StatusOr<std::unique_ptr<kbench::store::FleetStore>> opened_fleet =
        kbench::store::FleetStore::Open(*location);
    if (!opened_fleet.ok()) {
      scheduler.Shutdown();
      return Fail(opened_fleet.status().ToString());
    }
    fleet_store = *std::move(opened_fleet);
    kbench::fleet::FleetOptions fleet_options;
    fleet_options.node = location->node;
    fleet_options.address = ListenAddress(flags);
    fleet_options.version = KBENCH_VERSION;
    fleet_options.store_url = location->postgres_url;
    fleet_options.lease = absl::Seconds(flags.node_lease_seconds);
    fleet_options.on_store_unreachable = [&jobs](const absl::Status& why) {
      jobs->NoteUnreachable(why);
    };
    fleet_queue = std::make_unique<kbench::fleet::FleetQueue>(fleet_options, &scheduler, jobs.get(),
                                                              fleet_store.get(), &events);
    if (absl::Status s = fleet_queue->Start(); !s.ok()) {
      scheduler.Shutdown();
      return Fail(s.ToString());
    }
    queue = fleet_queue.get();
  }
  // Stops the fleet's coordinator (if any), then this node's devices.
  auto stop_queue = [&] {
    if (fleet_queue) fleet_queue->Shutdown();
    scheduler.Shutdown();
  };
  kbench::api::KbenchService service(jobs.get(), &artifacts, stored->get(), queue, &events,
                                     metrics->get(), api, &authorizer);
  service.EnableVariants(variants->get(), flags.max_variants_per_owner);
  // Ranked runs are confirmed by kbenchd's own re-run (issue 23) before a rank is final.
  scheduler.SetRankedObserver([&service](const std::string& id, const kbench::v1::JobSpec& spec,
                                         const kbench::v1::JobResult& result) {
    service.ConfirmRankedRun(id, spec, result);
  });
  kbench::api::SweepReporterOptions sweep_reports;
  sweep_reports.data_dir = data_dir;
  sweep_reports.chunks = artifacts.chunks();
  if (absl::Status s = service.EnableSweeps(sweeps->get(), sweep_reports); !s.ok()) {
    maintenance.Stop();
    stop_queue();
    return Fail(s.ToString());
  }
  absl::StatusOr<kbench::Listening> listening =
      kbench::StartServer(EndpointOf(flags, data_dir, *security),
                          kbench::api::AuthenticateBeforeReading(
                              security->credentials, !flags.security.tls_cert.empty(),
                              security->authenticator.get(), &gate),
                          security->unix_peers.get(), api, &service, &gate);
  if (!listening.ok()) {
    maintenance.Stop();
    stop_queue();
    return Fail(std::string(listening.status().message()));
  }
  std::unique_ptr<grpc::Server>& server = listening->server;
  // Per-device health ("kbench.device.cpu", ...) and NOT_SERVING for "" when no device is
  // usable, kept current by the scheduler from now on.
  scheduler.ReportHealthTo(
      [health = server->GetHealthCheckService()](const std::string& service, bool serving) {
        health->SetServingStatus(service, serving);
      });
  if (fleet_queue) fleet_queue->ListeningOn(listening->address);
  AnnounceReady(flags, *location, listening->address, (*metrics)->BoundAddress(),
                scheduler.Devices());

  const int sig =
      WaitForStop(stop_signals, *security->authenticator, flags.metrics_owner_labels, **metrics);
  kbench::logging::Log(Level::kInfo, "draining", {Field("signal", strsignal(sig))});
  kbench::DrainAndStop({.gate = &gate,
                        .server = server.get(),
                        .unix_socket = listening->unix_socket.get(),
                        .end_streams =
                            [&] {
                              service.StopStreams();
                              service.StopSweeps();
                            },
                        .stop_work =
                            [&] {
                              maintenance.Stop();
                              stop_queue();
                            }},
                       absl::Seconds(flags.drain_seconds));
  kbench::logging::Log(Level::kInfo, "stopped");
  return 0;
}

}  // namespace

static int Main(int argc, char** argv) {
  // SIGTERM/SIGINT are taken by Serve's sigwait; every thread (logging's and gRPC's included)
  // must inherit the mask, so it is set before any thread starts.
  sigset_t stop_signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  Flags flags;
  CLI::App app{"kbenchd: the kbench GPU kernel benchmarking daemon"};
  // `kbenchd --version` prints "kbenchd VERSION" and exits 0, as `kbctl --version` does.
  app.set_version_flag("--version", std::string("kbenchd ") + KBENCH_VERSION);
  app.add_option("--listen", flags.listen,
                 "gRPC address HOST:PORT (port 0 picks a free one); default 127.0.0.1:50051 with "
                 "--auth-file, --tls-client-ca or --open, else the Unix socket (--unix-socket)");
  app.add_option("--data-dir", flags.data_dir, "Job store and artifacts directory")
      ->capture_default_str();
  app.add_option("--metrics-listen,--metrics-address", flags.metrics_listen,
                 "Prometheus /metrics address HOST:PORT (empty: off); loopback unless "
                 "--metrics-insecure");
  app.add_flag("--metrics-insecure", flags.metrics_insecure,
               "Allow a non-loopback --metrics-listen: /metrics has no TLS nor authentication");
  app.add_flag("--metrics-owner-labels", flags.metrics_owner_labels,
               "Label the per-owner series with the auth file's user names (default: every "
               "owner counts as 'other', so /metrics lists no user)");
  app.add_option("--log-format", flags.log_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--log-level", flags.log_level, "trace, debug, info, warn or error")
      ->capture_default_str();
  app.add_option("--cpu-max-bytes", flags.cpu_max_bytes,
                 "Largest problem (bytes, with its float64 reference) the cpu device accepts")
      ->capture_default_str();
  app.add_option("--artifact-max-bytes", flags.artifact_max_bytes,
                 "Artifact retention: total bytes kept (0: unlimited)")
      ->capture_default_str();
  app.add_option("--artifact-max-age", flags.artifact_max_age_seconds,
                 "Artifact retention: seconds kept (0: unlimited)")
      ->capture_default_str();
  app.add_option("--job-retention", flags.job_retention,
                 "Jobs finished longer ago are deleted with their artifacts: 90d, 12h, 30m, "
                 "3600s (0: kept forever)")
      ->capture_default_str();
  app.add_option("--executor-hang-slack", flags.executor_hang_slack_seconds,
                 "Seconds past a job's own timeout before its silent executor counts as hung "
                 "and is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--no-cuda", flags.no_cuda, "Serve the cpu device only");
  app.add_flag("--isolate-owners", flags.isolate_owners,
               "Restart a GPU's executor before a job of another owner than the last job's: a "
               "fresh CUDA context per owner (each job's modules and memory are dropped anyway)");
  app.add_option("--fair-share-half-life", flags.fair_share_half_life,
                 "Fair share forgets an owner's GPU time with this half-life (1h, 30m, 90s)")
      ->capture_default_str();
  app.add_option("--executor-path", flags.executor_path,
                 "The kbench-executor program (default: next to kbenchd)");
  app.add_option("--idle-gate", flags.idle_gates,
                 "Before sampling on a GPU, wait at most TIMEOUT_S until no other process uses "
                 "it, it is at most MAX_TEMP_C and at its default SM clock (the wait is "
                 "reported in the result): DEVICE=TIMEOUT_S[,MAX_TEMP_C], DEVICE cuda:N or "
                 "cuda:*; repeat per device")
      ->type_name("SPEC");
  app.add_option("--store", flags.store,
                 "The job store shared by a fleet of nodes: postgres://USER@HOST:PORT/DB (password "
                 "from --store-password-file or ~/.pgpass); default: SQLite under --data-dir, "
                 "one host");
  app.add_option("--store-password-file", flags.store_password_file,
                 "A libpq password file (host:port:db:user:password, mode 0600) for --store: "
                 "the password is never taken from the environment, which children inherit");
  app.add_option("--compile-memory-limit", flags.compile_memory_mib,
                 "Address space of one user kernel's compile, MiB (kbench-executor alone maps "
                 "about 900 MiB of libraries)")
      ->check(CLI::Range(1024, 1 << 20))
      ->capture_default_str();
  app.add_option("--compile-cpu-seconds", flags.compile_cpu_seconds,
                 "CPU time of one user kernel's compile, seconds")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--node", flags.node,
                 "This node's name in a fleet (--store postgres://...); default: the host name");
  app.add_option("--node-lease", flags.node_lease_seconds,
                 "Seconds a fleet's node may miss heartbeats before its jobs are re-queued on "
                 "other nodes")
      ->check(CLI::Range(2.0, 3600.0))
      ->capture_default_str();
  app.add_option("--drain-seconds", flags.drain_seconds,
                 "On SIGTERM or SIGINT: new calls are refused (UNAVAILABLE) at once; how long the "
                 "calls in flight may take to finish before the rest of the stop")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--max-variants-per-owner", flags.max_variants_per_owner,
                 "Registered user variants (kbctl variants add) each owner may keep")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  kbench::auth::AddSecurityFlags(app, &flags.security);
  std::function<int()> token_command;
  kbench::auth::AddTokenCommand(app, &token_command);
  AddStoreCommand(app, &token_command);
  kbench::api::AddApiFlags(&app, &flags.api);
  CLI11_PARSE(app, argc, argv);
  // A subcommand (token add, store migrate) runs instead of the daemon.
  if (token_command) return token_command();

  if (absl::Status s = kbench::logging::InitLogging(flags.log_format, flags.log_level); !s.ok()) {
    return Fail(s.ToString());
  }
  return Serve(flags);
}

// A library exception that escapes (std::bad_alloc, CLI11 outside its parse) ends the program
// with a line saying why instead of std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbenchd: %s\n", e.what());
    return 1;
  }
}
