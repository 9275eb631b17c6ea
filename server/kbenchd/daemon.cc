// kbenchd's composition root (server/kbenchd/daemon.h): Start builds the members in their
// declaration order, Run serves until a stop signal, the destructors tear down in reverse.
#include "server/kbenchd/daemon.h"

#include <grpcpp/health_check_service_interface.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/api/early_auth.h"
#include "server/common/logging.h"
#include "server/kbenchd/draining.h"
#include "server/scheduler/clock.h"
#include "server/store/job_store.h"

namespace kbench {
namespace {

using logging::Field;
using logging::Level;

// A part's error as kbenchd has always printed it: its code, then its message.
absl::Status Described(const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), status.ToString());
}

// The lines operators and the tests wait for on stdout (the addresses, then "ready"), and the
// log's own.
void AnnounceReady(const DaemonFlags& flags, const store::StoreLocation& location,
                   const std::string& address, const std::string& metrics_address,
                   const std::vector<v1::DeviceInfo>& devices) {
  std::printf("kbenchd: listening on %s\n", address.c_str());
  if (!metrics_address.empty()) std::printf("kbenchd: metrics on %s\n", metrics_address.c_str());
  for (const auto& d : devices) {
    logging::Log(Level::kInfo, "device", {Field("id", d.id()), Field("name", d.name())});
  }
  std::printf("kbenchd: ready\n");
  std::fflush(stdout);
  logging::Log(
      Level::kInfo, "kbenchd ready",
      {Field("listen", address), Field("data_dir", location.data_dir),
       Field("store", std::string(location.is_postgres() ? "postgres" : "sqlite")),
       Field("node", location.node), Field("security", auth::DescribeSecurity(flags.security))});
}

// The API's options: its flags, and the cpu device's bound on a problem's bytes.
api::ApiOptions ApiOptionsOf(const DaemonFlags& flags) {
  api::ApiOptions api = flags.api;
  api.limits.cpu_max_bytes = flags.cpu_max_bytes;
  return api;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonFlags& flags) {
  std::unique_ptr<Daemon> daemon(new Daemon(flags));
  KBENCH_RETURN_IF_ERROR(daemon->CheckFlags());
  KBENCH_RETURN_IF_ERROR(daemon->OpenStores());
  KBENCH_RETURN_IF_ERROR(daemon->StartScheduler());
  KBENCH_RETURN_IF_ERROR(daemon->StartMaintenance());
  KBENCH_RETURN_IF_ERROR(daemon->StartQueue());
  KBENCH_RETURN_IF_ERROR(daemon->StartService());
  daemon->StartSweepReporter();
  KBENCH_RETURN_IF_ERROR(daemon->StartServer());
  return daemon;
}

Daemon::~Daemon() { StopWork(); }

absl::Status Daemon::CheckFlags() {
  KBENCH_ASSIGN_OR_RETURN(security_, SetUpSecurity(flags_));
  KBENCH_ASSIGN_OR_RETURN(scheduler_options_, SchedulerOptionsOf(flags_));
  scheduler_options_.version = KBENCH_VERSION;
  scheduler_options_.start_time = absl::Now();
  // A write to an executor that just died must be an error, not a fatal signal.
  std::signal(SIGPIPE, SIG_IGN);
  std::error_code ec;
  std::filesystem::create_directories(flags_.data_dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("--data-dir ", flags_.data_dir, ": ", ec.message()));
  }
  data_dir_ = std::filesystem::absolute(flags_.data_dir).string();
  absl::StatusOr<absl::Duration> retention = scheduler::ParseRetention(flags_.job_retention);
  if (!retention.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--job-retention: ", retention.status().message()));
  }
  job_retention_ = *retention;
  KBENCH_ASSIGN_OR_RETURN(location_, StoreLocationOf(flags_, data_dir_));
  // A fleet's queue is every node's: the fleet, not this node's scheduler, recovers it.
  scheduler_options_.recover_jobs = !location_.is_postgres();
  return absl::OkStatus();
}

absl::Status Daemon::OpenStores() {
  const bool fleet = location_.is_postgres();
  absl::StatusOr<std::unique_ptr<store::JobStore>> opened = store::JobStore::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(opened.status()));
  // What an earlier life held is written first.
  held_ = std::make_unique<store::HeldWrites>((std::filesystem::path(data_dir_) / "held").string(),
                                              location_.node);
  KBENCH_RETURN_IF_ERROR(Described(held_->Load()));
  jobs_ = std::make_unique<store::ResilientJobStore>(
      *std::move(opened), store::WriteRetryPolicy{},
      store::StoreWhereabouts{data_dir_, fleet ? location_.postgres_url : ""}, held_.get());
  absl::StatusOr<std::unique_ptr<store::SweepStore>> sweeps = store::SweepStore::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(sweeps.status()));
  sweeps_ = *std::move(sweeps);
  absl::StatusOr<std::unique_ptr<store::VariantStore>> variants =
      store::VariantStore::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(variants.status()));
  variants_ = *std::move(variants);
  absl::StatusOr<std::unique_ptr<store::StoredBytes>> stored = store::StoredBytes::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(stored.status()));
  stored_ = *std::move(stored);
  // A fleet keeps artifact bytes in the database, where every node reads them.
  std::unique_ptr<store::ArtifactChunks> chunks;
  if (fleet) {
    absl::StatusOr<std::unique_ptr<store::internal::Database>> chunk_db =
        store::ConnectStoreDatabase(location_);
    KBENCH_RETURN_IF_ERROR(Described(chunk_db.status()));
    chunks = std::make_unique<store::ArtifactChunks>(*std::move(chunk_db));
  }
  artifacts_ = std::make_unique<store::ArtifactStore>(
      data_dir_, jobs_.get(),
      store::RetentionPolicy{flags_.artifact_max_bytes, flags_.artifact_max_age_seconds},
      std::move(chunks), held_.get());
  absl::StatusOr<std::unique_ptr<store::UsageStore>> usage = store::UsageStore::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(usage.status()));
  usage_ = *std::move(usage);
  absl::StatusOr<std::unique_ptr<metrics::Metrics>> metrics =
      metrics::Metrics::Create(flags_.metrics_listen, flags_.dcgm_gauges);
  KBENCH_RETURN_IF_ERROR(Described(metrics.status()));
  metrics_ = *std::move(metrics);
  return absl::OkStatus();
}

absl::Status Daemon::StartScheduler() {
  KBENCH_ASSIGN_OR_RETURN(scheduler::ProcessLauncherOptions executor,
                          ExecutorOf(flags_, data_dir_));
  scheduler::Clock* clock = scheduler::Clock::Real();
  launcher_ = std::make_unique<scheduler::ProcessLauncher>(std::move(executor), clock);
  scheduler_ = std::make_unique<scheduler::Scheduler>(scheduler_options_, launcher_.get(), clock,
                                                      jobs_.get(), artifacts_.get(), metrics_.get(),
                                                      &events_);
  WireTenancy();
  return Described(scheduler_->Start());
}

void Daemon::WireTenancy() {
  security_.authenticator->SetFailureObserver([m = metrics_.get()](auth::AuthFailure reason) {
    m->AuthFailed(auth::AuthFailureName(reason));
  });
  SetKnownOwners(*security_.authenticator, flags_.metrics_owner_labels, *metrics_);
  scheduler_->UseUsageStore(usage_.get());
  scheduler_->SetUsageObserver([m = metrics_.get()](const std::string& owner, double seconds) {
    m->AddOwnerGpuSeconds(owner, seconds);
  });
}

absl::Status Daemon::StartMaintenance() {
  scheduler::MaintenanceOptions options;
  options.job_retention = job_retention_;
  maintenance_ = std::make_unique<scheduler::StoreMaintenance>(options, scheduler::Clock::Real(),
                                                               jobs_.get(), artifacts_.get());
  FollowStoreState();
  maintenance_->RunOnce();
  maintenance_->Start();
  return absl::OkStatus();
}

// Health ("kbench.store", and "" while the store refuses writes) and the store's gauges follow
// the job store's writability.
void Daemon::FollowStoreState() {
  scheduler_->SetStoreWritable(jobs_->Writable());
  metrics_->SetStoreState(jobs_->Writable(), held_->Count());
  jobs_->OnWritabilityChange([this](bool writable, const absl::Status&) {
    scheduler_->SetStoreWritable(writable);
    metrics_->SetStoreState(writable, held_->Count());
    if (!writable) maintenance_->Wake();
  });
  jobs_->OnWriteRefused([metrics = metrics_.get()](const absl::Status& why) {
    metrics->StoreWriteRefused(absl::IsResourceExhausted(why) ? "disk_full" : "unavailable");
  });
  store_state_hook_.jobs = jobs_.get();
}

absl::Status Daemon::StartQueue() {
  authorizer_ =
      std::make_unique<auth::Authorizer>(security_.authenticator.get(), jobs_.get(), &gate_);
  if (!location_.is_postgres()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<store::FleetStore>> opened = store::FleetStore::Open(location_);
  KBENCH_RETURN_IF_ERROR(Described(opened.status()));
  fleet_store_ = *std::move(opened);
  fleet::FleetOptions options;
  options.node = location_.node;
  options.address = ListenAddress(flags_);
  options.version = KBENCH_VERSION;
  options.store_url = location_.postgres_url;
  options.lease = absl::Seconds(flags_.node_lease_seconds);
  options.on_store_unreachable = [jobs = jobs_.get()](const absl::Status& why) {
    jobs->NoteUnreachable(why);
  };
  // Maintenance started before the queue: its held writes follow the database's return at once.
  options.on_store_answered = [jobs = jobs_.get(), maintenance = maintenance_.get()] {
    if (!jobs->Writable() || jobs->PendingWrites() > 0) maintenance->Wake();
  };
  options.on_nodes_read = [metrics = metrics_.get()](const std::vector<v1::NodeInfo>& nodes) {
    for (const v1::NodeInfo& n : nodes)
      metrics->SetFleetNode(n.name(), n.alive(), n.heartbeat_age_seconds());
  };
  options.on_leases_taken_over = [metrics = metrics_.get()](int64_t jobs) {
    metrics->LeasesTakenOver(jobs);
  };
  fleet_queue_ = std::make_unique<fleet::FleetQueue>(options, scheduler_.get(), jobs_.get(),
                                                     fleet_store_.get(), &events_);
  return Described(fleet_queue_->Start());
}

absl::Status Daemon::StartService() {
  scheduler::JobQueue* queue = scheduler_.get();
  if (fleet_queue_ != nullptr) queue = fleet_queue_.get();
  api::KbenchService::Parts parts;
  parts.jobs = jobs_.get();
  parts.artifacts = artifacts_.get();
  parts.stored = stored_.get();
  parts.scheduler = queue;
  parts.events = &events_;
  parts.callers = &callers_;
  parts.authorizer = authorizer_.get();
  parts.sweeps = sweeps_.get();
  parts.sweep_data_dir = data_dir_;
  parts.variants = variants_.get();
  parts.max_variants_per_owner = flags_.max_variants_per_owner;
  service_ = std::make_unique<api::KbenchService>(parts, ApiOptionsOf(flags_));
  // Ranked runs are confirmed by kbenchd's own re-run (issue 23) before a rank is final.
  scheduler_->SetRankedObserver([jobs = &service_->jobs()](const std::string& id,
                                                           const v1::JobSpec& spec,
                                                           const v1::JobResult& result) {
    jobs->ConfirmRankedRun(id, spec, result);
  });
  return absl::OkStatus();
}

void Daemon::StartSweepReporter() {
  reports::SweepReporterOptions options;
  options.data_dir = data_dir_;
  options.chunks = artifacts_->chunks();
  sweep_reporter_ = std::make_unique<reports::SweepReporter>(
      sweeps_.get(),
      [sweeps = &service_->sweeps()](const store::SweepRecord& record, bool with_jobs) {
        return sweeps->Load(record, with_jobs);
      },
      std::move(options));
  sweep_reporter_->Start();
}

absl::Status Daemon::StartServer() {
  KBENCH_ASSIGN_OR_RETURN(
      Listening listening,
      kbench::StartServer(
          EndpointOf(flags_, data_dir_, security_),
          api::AuthenticateBeforeReading(security_.credentials, !flags_.security.tls_cert.empty(),
                                         security_.authenticator.get(), &gate_),
          security_.unix_peers.get(), ApiOptionsOf(flags_), service_.get(),
          {.gate = &gate_,
           .metrics = metrics_.get(),
           .authorizer = authorizer_.get(),
           .callers = &callers_}));
  listening_ = std::make_unique<Listening>(std::move(listening));
  // Per-device health ("kbench.device.cpu", ...) and NOT_SERVING for "" when no device is
  // usable, kept current by the scheduler from now on.
  scheduler_->ReportHealthTo([health = listening_->server->GetHealthCheckService()](
                                 const std::string& service, bool serving) {
    health->SetServingStatus(service, serving);
  });
  if (fleet_queue_ != nullptr) fleet_queue_->ListeningOn(listening_->address);
  return absl::OkStatus();
}

void Daemon::Run() {
  AnnounceReady(flags_, location_, listening_->address, metrics_->BoundAddress(),
                scheduler_->Devices());
  const int sig = WaitForStop();
  logging::Log(Level::kInfo, "draining", {Field("signal", strsignal(sig))});
  DrainAndStop({.gate = &gate_,
                .server = listening_->server.get(),
                .unix_socket = listening_->unix_socket.get(),
                .end_streams =
                    [this] {
                      service_->StopStreams();
                      sweep_reporter_->Stop();
                    },
                .stop_work = [this] { StopWork(); }},
               absl::Seconds(flags_.drain_seconds));
  logging::Log(Level::kInfo, "stopped");
}

// Returns the stop signal; SIGHUP in between reloads the auth file, keeping the users loaded
// before if the new file is wrong. Jobs and connections are untouched.
int Daemon::WaitForStop() {
  while (true) {
    int sig = 0;
    sigwait(&stop_signals_, &sig);
    if (sig != SIGHUP) return sig;
    const absl::Status reloaded = security_.authenticator->Reload();
    SetKnownOwners(*security_.authenticator, flags_.metrics_owner_labels, *metrics_);
    logging::Log(reloaded.ok() ? Level::kInfo : Level::kError,
                 reloaded.ok() ? "auth file reloaded" : "auth file not reloaded",
                 {Field("error", reloaded.ToString())});
  }
}

void Daemon::StopWork() {
  if (maintenance_ != nullptr) maintenance_->Stop();
  if (fleet_queue_ != nullptr) fleet_queue_->Shutdown();
  if (scheduler_ != nullptr) scheduler_->Shutdown();
}

}  // namespace kbench
