// kbenchd's composition root (after Envoy's source/server/instance_impl.h): the control plane's
// parts are members in dependency order, so construction follows the declaration and teardown
// is the destructors', in reverse. server/kbenchd/main.cc parses the flags and runs it.
#pragma once

#include <signal.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/api/kbench_service.h"
#include "server/auth/authorizer.h"
#include "server/auth/call_gate.h"
#include "server/fleet/fleet_queue.h"
#include "server/kbenchd/daemon_flags.h"
#include "server/kbenchd/daemon_setup.h"
#include "server/kbenchd/listening.h"
#include "server/metrics/metrics.h"
#include "server/reports/sweep_reporter.h"
#include "server/scheduler/executor_supervisor.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/scheduler.h"
#include "server/scheduler/store_maintenance.h"
#include "server/store/artifact_store.h"
#include "server/store/fleet_store.h"
#include "server/store/held_writes.h"
#include "server/store/resilient_job_store.h"
#include "server/store/store_location.h"
#include "server/store/stored_bytes.h"
#include "server/store/sweep_store.h"
#include "server/store/usage_store.h"
#include "server/store/variant_store.h"

namespace kbench {

// Not thread-safe: built, run and destroyed by main's thread. The stop signals
// (StopSignals()) must be blocked in every thread before Start, since its parts start threads.
class Daemon {
 public:
  // Builds every part from `flags` and starts serving. The error names the flag or the part
  // that could not start; whatever started before it is stopped again by the destructors.
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonFlags& flags);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Announces readiness on stdout, waits for SIGTERM or SIGINT (SIGHUP in between reloads the
  // auth file), then drains (server/kbenchd/draining.h).
  void Run();

 private:
  explicit Daemon(const DaemonFlags& flags) : flags_(flags) {}

  // The steps of Start, each building the members it names, in their declaration order.
  absl::Status CheckFlags();
  absl::Status OpenStores();
  absl::Status StartScheduler();
  absl::Status StartMaintenance();
  absl::Status StartQueue();
  absl::Status StartService();
  void StartSweepReporter();
  absl::Status StartServer();
  // Wires fair share's bookkeeping and the tenancy metrics (run's GPU time per owner,
  // authentication failures by reason).
  void WireTenancy();
  // Health and the store's gauges follow the job store's writability.
  void FollowStoreState();
  int WaitForStop();
  // Stops the maintenance timer, the fleet's coordinator (if any), then this node's devices: a
  // running job goes back to QUEUED. Idempotent; the destructor's first step too, since the
  // scheduler calls back into the service and the health service, declared after it.
  void StopWork();

  // Unhooks the job store's writability callback, which reaches the scheduler, the metrics and
  // maintenance, before they go (members die in reverse).
  struct StoreStateHook {
    store::ResilientJobStore* jobs = nullptr;
    ~StoreStateHook() {
      if (jobs != nullptr) jobs->OnWritabilityChange(nullptr);
    }
  };

  const DaemonFlags flags_;
  sigset_t stop_signals_ = StopSignals();
  Security security_;
  scheduler::SchedulerOptions scheduler_options_;
  absl::Duration job_retention_;
  std::string data_dir_;  // absolute
  store::StoreLocation location_;
  // Writes the store refuses (its database away, its disk full) wait here, never lost, and are
  // written once it takes them (issue 25).
  std::unique_ptr<store::HeldWrites> held_;
  // Every part writes through it: a store that refuses writes fails no job silently.
  std::unique_ptr<store::ResilientJobStore> jobs_;
  std::unique_ptr<store::SweepStore> sweeps_;
  std::unique_ptr<store::VariantStore> variants_;
  std::unique_ptr<store::StoredBytes> stored_;
  std::unique_ptr<store::ArtifactStore> artifacts_;
  std::unique_ptr<store::UsageStore> usage_;
  std::unique_ptr<metrics::Metrics> metrics_;
  scheduler::JobEvents events_;
  std::unique_ptr<scheduler::ProcessLauncher> launcher_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<scheduler::StoreMaintenance> maintenance_;
  StoreStateHook store_state_hook_;
  // Open until SIGTERM; then it turns calls away while those in flight finish.
  auth::CallGate gate_;
  std::unique_ptr<auth::Authorizer> authorizer_;
  // Who each call in flight is, authenticated once by an interceptor for its handler.
  api::CallIdentities callers_;
  // A fleet only (--store postgres://...): the shared queue every node takes jobs from.
  std::unique_ptr<store::FleetStore> fleet_store_;
  std::unique_ptr<fleet::FleetQueue> fleet_queue_;
  std::unique_ptr<api::KbenchService> service_;
  // Background work, no API call: writes each ended sweep's tables, plots and report.
  std::unique_ptr<reports::SweepReporter> sweep_reporter_;
  std::unique_ptr<Listening> listening_;
};

}  // namespace kbench
