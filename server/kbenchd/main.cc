// kbenchd: parses its flags and runs the daemon (server/kbenchd/daemon.h), or a subcommand instead.
// The control plane links no CUDA library; each device's jobs run in a kbench-executor child
// process (found next to this program).
#include <signal.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "server/api/server_options.h"
#include "server/auth/server_security.h"
#include "server/common/logging.h"
#include "server/kbenchd/daemon.h"
#include "server/kbenchd/daemon_flags.h"
#include "server/kbenchd/daemon_setup.h"
#include "server/store/store_migration.h"

namespace {

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

// Where kbenchd serves, logs and exports metrics, and how long a stop drains.
void AddServingFlags(CLI::App& app, kbench::DaemonFlags* flags) {
  app.add_option("--listen", flags->listen,
                 "gRPC address HOST:PORT (port 0 picks a free one); default 127.0.0.1:50051 with "
                 "--auth-file, --tls-client-ca or --open, else the Unix socket (--unix-socket)");
  app.add_option("--data-dir", flags->data_dir, "Job store and artifacts directory")
      ->capture_default_str();
  app.add_option("--metrics-listen,--metrics-address", flags->metrics_listen,
                 "Prometheus /metrics address HOST:PORT (empty: off); loopback unless "
                 "--metrics-insecure");
  app.add_flag("--metrics-insecure", flags->metrics_insecure,
               "Allow a non-loopback --metrics-listen: /metrics has no TLS nor authentication");
  app.add_flag("!--no-dcgm-gauges", flags->dcgm_gauges,
               "Leave out the DCGM_FI_* GPU gauges (keep kbench_gpu_*): where dcgm-exporter runs "
               "beside kbenchd, its series would otherwise be doubled");
  app.add_flag("--metrics-owner-labels", flags->metrics_owner_labels,
               "Label the per-owner series with the auth file's user names (default: every "
               "owner counts as 'other', so /metrics lists no user)");
  app.add_option("--log-format", flags->log_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--log-level", flags->log_level, "trace, debug, info, warn or error")
      ->capture_default_str();
  app.add_option("--drain-seconds", flags->drain_seconds,
                 "On SIGTERM or SIGINT: new calls are refused (UNAVAILABLE) at once; how long the "
                 "calls in flight may take to finish before the rest of the stop")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
}

// What runs jobs: the devices, the executor and its compile child, fair share.
void AddJobFlags(CLI::App& app, kbench::DaemonFlags* flags) {
  app.add_option("--cpu-max-bytes", flags->cpu_max_bytes,
                 "Largest problem (bytes, with its float64 reference) the cpu device accepts")
      ->capture_default_str();
  app.add_option("--executor-hang-slack", flags->executor_hang_slack_seconds,
                 "Seconds past a job's own timeout before its silent executor counts as hung "
                 "and is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--no-cuda", flags->no_cuda, "Serve the cpu device only");
  app.add_flag("--isolate-owners", flags->isolate_owners,
               "Restart a GPU's executor before a job of another owner than the last job's: a "
               "fresh CUDA context per owner (each job's modules and memory are dropped anyway)");
  app.add_flag("--allow-nvls", flags->allow_nvls,
               "Let multi-GPU jobs use NVLink multicast (NVLS). Off by default: the executors set "
               "NCCL_NVLS_ENABLE=0, since multicast objects span GPUs outside a job's own devices "
               "on a shared host");
  app.add_option("--fair-share-half-life", flags->fair_share_half_life,
                 "Fair share forgets an owner's GPU time with this half-life (1h, 30m, 90s)")
      ->capture_default_str();
  app.add_option("--executor-path", flags->executor_path,
                 "The kbench-executor program (default: next to kbenchd)");
  app.add_option("--idle-gate", flags->idle_gates,
                 "Before sampling on a GPU, wait at most TIMEOUT_S until no other process uses "
                 "it, it is at most MAX_TEMP_C and at its default SM clock (the wait is "
                 "reported in the result): DEVICE=TIMEOUT_S[,MAX_TEMP_C], DEVICE cuda:N or "
                 "cuda:*; repeat per device")
      ->type_name("SPEC");
  app.add_option("--compile-memory-limit", flags->compile_memory_mib,
                 "Address space of one user kernel's compile, MiB (kbench-executor alone maps "
                 "about 900 MiB of libraries)")
      ->check(CLI::Range(1024, 1 << 20))
      ->capture_default_str();
  app.add_option("--compile-cpu-seconds", flags->compile_cpu_seconds,
                 "CPU time of one user kernel's compile, seconds")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
}

// What is kept, and where: the store (a fleet's PostgreSQL), artifacts, jobs, variants.
void AddStoreFlags(CLI::App& app, kbench::DaemonFlags* flags) {
  app.add_option("--artifact-max-bytes", flags->artifact_max_bytes,
                 "Artifact retention: total bytes kept (0: unlimited)")
      ->capture_default_str();
  app.add_option("--artifact-max-age", flags->artifact_max_age_seconds,
                 "Artifact retention: seconds kept (0: unlimited)")
      ->capture_default_str();
  app.add_option("--job-retention", flags->job_retention,
                 "Jobs finished longer ago are deleted with their artifacts: 90d, 12h, 30m, "
                 "3600s (0: kept forever)")
      ->capture_default_str();
  app.add_option("--store", flags->store,
                 "The job store shared by a fleet of nodes: postgres://USER@HOST:PORT/DB (password "
                 "from --store-password-file or ~/.pgpass); default: SQLite under --data-dir, "
                 "one host");
  app.add_option("--store-password-file", flags->store_password_file,
                 "A libpq password file (host:port:db:user:password, mode 0600) for --store: "
                 "the password is never taken from the environment, which children inherit");
  app.add_option("--node", flags->node,
                 "This node's name in a fleet (--store postgres://...); default: the host name");
  app.add_option("--node-lease", flags->node_lease_seconds,
                 "Seconds a fleet's node may miss heartbeats before its jobs are re-queued on "
                 "other nodes")
      ->check(CLI::Range(2.0, 3600.0))
      ->capture_default_str();
  app.add_option("--max-variants-per-owner", flags->max_variants_per_owner,
                 "Registered user variants (kbctl variants add) each owner may keep")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "kbenchd: %s\n", message.c_str());
  return 1;
}

}  // namespace

static int Main(int argc, char** argv) {
  // SIGTERM/SIGINT are taken by the daemon's sigwait; every thread (logging's and gRPC's included)
  // must inherit the mask, so it is set before any thread starts.
  sigset_t stop_signals = kbench::StopSignals();
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  kbench::DaemonFlags flags;
  CLI::App app{"kbenchd: the kbench GPU kernel benchmarking daemon"};
  // `kbenchd --version` prints "kbenchd VERSION" and exits 0, as `kbctl --version` does.
  app.set_version_flag("--version", std::string("kbenchd ") + KBENCH_VERSION);
  AddServingFlags(app, &flags);
  AddJobFlags(app, &flags);
  AddStoreFlags(app, &flags);
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
  absl::StatusOr<std::unique_ptr<kbench::Daemon>> daemon = kbench::Daemon::Start(flags);
  if (!daemon.ok()) return Fail(std::string(daemon.status().message()));
  (*daemon)->Run();
  return 0;
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
