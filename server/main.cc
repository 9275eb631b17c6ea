// kbenchd: flags, wiring of the control plane, signals. The control plane links no CUDA library;
// each device's jobs run in a kbench-executor child process (found next to this program).
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/api/kbench_service.h"
#include "server/api/server_options.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/server_security.h"
#include "server/common/logging.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/executor_supervisor.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/scheduler.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace {

using kbench::logging::Field;
using kbench::logging::Level;

struct Flags {
  std::string listen = "127.0.0.1:50051";
  std::string data_dir = "kbench-data";
  std::string metrics_listen;
  std::string log_format = "text";
  std::string log_level = "info";
  int64_t cpu_max_bytes = int64_t{4} << 30;
  bool no_cuda = false;
  double hang_slack_seconds = 300;
  int64_t artifact_max_bytes = int64_t{10} << 30;
  int64_t artifact_max_age_seconds = int64_t{30} * 24 * 3600;
  // kbench-executor; empty: next to this program.
  std::string executor_path;
  kbench::auth::SecurityFlags security;
  kbench::api::ApiOptions api;
};

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

// Who may call, and how: the listening policy, the authenticator and the TLS credentials.
struct Security {
  std::unique_ptr<kbench::auth::Authenticator> authenticator;
  std::shared_ptr<grpc::ServerCredentials> credentials;
};

absl::StatusOr<Security> SetUpSecurity(const Flags& flags) {
  KBENCH_RETURN_IF_ERROR(kbench::auth::CheckListenPolicy(flags.security, flags.listen));
  Security security;
  KBENCH_ASSIGN_OR_RETURN(security.authenticator, kbench::auth::Authenticator::Create(
                                                      kbench::auth::AuthOptionsOf(flags.security)));
  KBENCH_ASSIGN_OR_RETURN(security.credentials, kbench::auth::ServerCredentialsFor(flags.security));
  if (flags.security.insecure && !kbench::auth::IsLoopbackAddress(flags.listen)) {
    kbench::logging::Log(Level::kWarn, "--insecure: the queue is open to whoever reaches it",
                         {Field("listen", flags.listen)});
  }
  return security;
}

// Returns the stop signal; SIGHUP in between reloads the auth file, keeping the users loaded
// before if the new file is wrong. Jobs and connections are untouched.
int WaitForStop(const sigset_t& signals, kbench::auth::Authenticator& authenticator) {
  while (true) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != SIGHUP) return sig;
    const absl::Status reloaded = authenticator.Reload();
    kbench::logging::Log(reloaded.ok() ? Level::kInfo : Level::kError,
                         reloaded.ok() ? "auth file reloaded" : "auth file not reloaded",
                         {Field("error", reloaded.ToString())});
  }
}

int Serve(const Flags& flags) {
  sigset_t stop_signals = StopSignals();
  absl::StatusOr<Security> security = SetUpSecurity(flags);
  if (!security.ok()) return Fail(std::string(security.status().message()));
  // A write to an executor that just died must be an error, not a fatal signal.
  std::signal(SIGPIPE, SIG_IGN);

  std::error_code ec;
  std::filesystem::create_directories(flags.data_dir, ec);
  if (ec) return Fail(absl::StrCat("--data-dir ", flags.data_dir, ": ", ec.message()));
  const std::string data_dir = std::filesystem::absolute(flags.data_dir).string();

  absl::StatusOr<std::unique_ptr<kbench::store::JobStore>> jobs =
      kbench::store::JobStore::Open(data_dir);
  if (!jobs.ok()) return Fail(jobs.status().ToString());
  kbench::store::ArtifactStore artifacts(
      data_dir, jobs->get(), {flags.artifact_max_bytes, flags.artifact_max_age_seconds});
  absl::StatusOr<std::unique_ptr<kbench::metrics::Metrics>> metrics =
      kbench::metrics::Metrics::Create(flags.metrics_listen);
  if (!metrics.ok()) return Fail(metrics.status().ToString());

  kbench::scheduler::JobEvents events;
  absl::StatusOr<std::string> executor = ExecutorPath(flags.executor_path);
  if (!executor.ok()) return Fail(std::string(executor.status().message()));
  kbench::scheduler::Clock* clock = kbench::scheduler::Clock::Real();
  kbench::scheduler::ProcessLauncher launcher(
      {*executor, {"--log-format", flags.log_format, "--log-level", flags.log_level}}, clock);
  kbench::scheduler::SchedulerOptions options;
  options.enable_cuda = !flags.no_cuda;
  options.hang_slack = absl::Seconds(flags.hang_slack_seconds);
  kbench::scheduler::Scheduler scheduler(options, &launcher, clock, jobs->get(), &artifacts,
                                         metrics->get(), &events);
  if (absl::Status s = scheduler.Start(); !s.ok()) return Fail(s.ToString());

  kbench::api::ApiOptions api = flags.api;
  api.limits.cpu_max_bytes = flags.cpu_max_bytes;
  kbench::auth::Authorizer authorizer(security->authenticator.get(), jobs->get());
  kbench::api::KbenchService service(jobs->get(), &artifacts, &scheduler, &events, metrics->get(),
                                     api, &authorizer);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  kbench::api::ConfigureServerBuilder(api, &builder);
  int port = 0;
  builder.AddListeningPort(flags.listen, security->credentials, &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    scheduler.Shutdown();
    return Fail(absl::StrCat("--listen ", flags.listen, ": cannot listen there"));
  }
  // Per-device health ("kbench.device.cpu", ...) and NOT_SERVING for "" when no device is
  // usable, kept current by the scheduler from now on.
  scheduler.ReportHealthTo(
      [health = server->GetHealthCheckService()](const std::string& service, bool serving) {
        health->SetServingStatus(service, serving);
      });
  const std::string host = flags.listen.substr(0, flags.listen.rfind(':'));
  std::printf("kbenchd: listening on %s:%d\n", host.c_str(), port);
  if (!(*metrics)->BoundAddress().empty()) {
    std::printf("kbenchd: metrics on %s\n", (*metrics)->BoundAddress().c_str());
  }
  for (const auto& d : scheduler.Devices()) {
    kbench::logging::Log(Level::kInfo, "device", {Field("id", d.id()), Field("name", d.name())});
  }
  std::printf("kbenchd: ready\n");
  std::fflush(stdout);
  kbench::logging::Log(Level::kInfo, "kbenchd ready",
                       {Field("listen", absl::StrCat(host, ":", port)), Field("data_dir", data_dir),
                        Field("security", kbench::auth::DescribeSecurity(flags.security))});

  const int sig = WaitForStop(stop_signals, *security->authenticator);
  kbench::logging::Log(Level::kInfo, "shutting down", {Field("signal", strsignal(sig))});
  service.StopStreams();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  scheduler.Shutdown();
  server->Wait();
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
  app.add_option("--listen", flags.listen, "gRPC address HOST:PORT (port 0 picks a free one)")
      ->capture_default_str();
  app.add_option("--data-dir", flags.data_dir, "Job store and artifacts directory")
      ->capture_default_str();
  app.add_option("--metrics-listen,--metrics-address", flags.metrics_listen,
                 "Prometheus /metrics address HOST:PORT (empty: off)");
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
  app.add_flag("--no-cuda", flags.no_cuda, "Serve the cpu device only");
  app.add_option("--hang-slack", flags.hang_slack_seconds,
                 "Seconds past a job's sampling timeout before its executor is killed as hung "
                 "(covers set-up, checks and user-kernel compiles)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--executor-path", flags.executor_path,
                 "The kbench-executor program (default: next to kbenchd)");
  kbench::auth::AddSecurityFlags(app, &flags.security);
  std::function<int()> token_command;
  kbench::auth::AddTokenCommand(app, &token_command);
  kbench::api::AddApiFlags(&app, &flags.api);
  CLI11_PARSE(app, argc, argv);
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
