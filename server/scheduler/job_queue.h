// What the API needs of a queue of jobs, whether one host's (Scheduler) or a fleet's
// (fleet::FleetQueue, which puts a node's Scheduler in front of a queue shared in PostgreSQL).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/fleet.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/scheduler/usage_ledger.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace kbench::scheduler {

// Where a queued job stands in its device's fair-share line (see kbench.v1.QueuePlace).
struct QueuePlaceEstimate {
  std::string device;
  int32_t position = 0;  // 1: next to start
  bool device_busy = false;
  double wait_seconds = 0;
  int32_t from_history = 0;
  int32_t from_timeout = 0;
  // What holds the job besides the jobs ahead (a fleet's node that stopped heartbeating).
  std::string waiting_for;
};

// One owner's GPU time and jobs now.
struct OwnerStanding {
  std::string owner;
  OwnerUsageTotals usage;
  int32_t queued = 0;
  int32_t running = 0;
};
struct UsageSnapshot {
  std::vector<OwnerStanding> owners;  // every owner with usage or unfinished jobs, by name
  int64_t unfinished_jobs = 0;        // queued or running, all owners
  absl::Time now;
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  // Every device jobs can target, with queue depth and state.
  virtual std::vector<v1::DeviceInfo> Devices() = 0;
  // The device (or, in a fleet, the target) a request names, as a DeviceInfo whose id is what
  // the job is stored with. INVALID_ARGUMENT naming an unknown device, UNAVAILABLE when it
  // cannot run jobs now.
  virtual absl::StatusOr<v1::DeviceInfo> ResolveDevice(const std::string& requested) = 0;
  // As ResolveDevice, but always one device, never a fleet's "KIND:any" target: for work whose
  // parts must run on the same device to compare (a sweep's points). On one host ResolveDevice
  // already picks one.
  virtual absl::StatusOr<v1::DeviceInfo> ResolveOneDevice(const std::string& requested) {
    return ResolveDevice(requested);
  }
  // The devices a multi-GPU job holds (issue 30), lead first: those `requested` names
  // ("cuda:0", "cuda:1"), or `gpus` ready CUDA devices of one model (-1: all of them), the least
  // queued. INVALID_ARGUMENT for a malformed or mixed request, FAILED_PRECONDITION when this
  // host has too few such devices, UNAVAILABLE when a named device cannot run jobs now. A queue
  // that cannot place them says so (the default).
  virtual absl::StatusOr<std::vector<v1::DeviceInfo>> ResolveGang(
      const std::vector<std::string>& requested, int32_t gpus) {
    (void)requested;
    (void)gpus;
    return absl::FailedPreconditionError("devices: this kbenchd does not place multi-GPU jobs");
  }
  // Creates a QUEUED job through its lifecycle (JobLifecycle::Create: store, metrics,
  // watchers) and queues it: the API writes no job row itself. With an idempotency key its
  // owner used before, creates nothing and returns the earlier job with `false`.
  virtual absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) = 0;
  // Deletes a finished job (its artifacts, records, history rows) through its lifecycle;
  // returns how many artifacts went with it. FAILED_PRECONDITION while queued or running.
  virtual absl::StatusOr<int32_t> DeleteFinished(const std::string& job_id) = 0;
  // Deletes a sweep with its points' jobs through their lifecycle.
  virtual absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(
      const std::string& sweep_id) = 0;
  // Queues a job already written to the store as QUEUED.
  virtual void Enqueue(const store::JobRecord& record) = 0;
  // Cancels a queued job, or asks the running one to stop; returns once it is terminal or
  // `wait` passed. FAILED_PRECONDITION when it already is terminal.
  virtual absl::Status Cancel(const std::string& job_id, std::chrono::milliseconds wait) = 0;
  // Each queued job's place and estimated wait, by job id.
  virtual std::map<std::string, QueuePlaceEstimate> QueuePlaces() = 0;
  // Every owner's usage and unfinished jobs, plus `owner` even when it has neither.
  virtual UsageSnapshot Usage(const std::string& owner = "") = 0;
  virtual absl::Duration FairShareHalfLife() const = 0;
  // The nodes serving the queue (one on a single host).
  virtual std::vector<v1::NodeInfo> Nodes() = 0;
};

}  // namespace kbench::scheduler
