// kbenchd's Prometheus metrics: job, queue, executor, RPC and artifact series, plus GPU gauges
// read through NVML (loaded at run time) at scrape time. No CUDA headers.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/job_types.h"

namespace kbench::metrics {

class Metrics {
 public:
  // Serves /metrics on `listen` ("host:port", port 0 picks one); empty serves nothing (the
  // registry still counts, for tests).
  // `dcgm_gauges`: serve the GPU gauges under dcgm-exporter's names too (kbenchd
  // --no-dcgm-gauges turns them off where dcgm-exporter runs beside it).
  static absl::StatusOr<std::unique_ptr<Metrics>> Create(const std::string& listen,
                                                         bool dcgm_gauges = true);
  virtual ~Metrics() = default;

  // "host:port" actually bound; empty when not serving.
  virtual std::string BoundAddress() const = 0;

  // state: "succeeded" | "failed" | "cancelled".
  virtual void JobSubmitted(JobKind kind, const std::string& device) = 0;
  virtual void JobFinished(JobKind kind, const std::string& device, const std::string& state) = 0;
  // A job accepted for `owner` (the caller, or whom an admin submitted for). The owner label is
  // bounded: owners listed in the auth file (SetKnownOwners) keep their name, others count
  // as "other".
  virtual void OwnerJobSubmitted(const std::string& owner) { (void)owner; }
  virtual void SetQueueDepth(const std::string& device, int64_t depth) = 0;
  virtual void ObserveQueueWait(const std::string& device, double seconds) = 0;
  virtual void ObserveRunDuration(JobKind kind, const std::string& device, double seconds) = 0;
  // The cause label is ExecutorFailureName(cause): typed where the supervision learns it.
  virtual void ExecutorRestarted(const std::string& device, ExecutorFailure cause) = 0;
  // method: the RPC's short name; code: gRPC status code name, e.g. "OK", "NOT_FOUND".
  virtual void ObserveRpc(const std::string& method, const std::string& code, double seconds) = 0;
  virtual void SetArtifactBytes(int64_t bytes) = 0;
  // Whether the job store takes writes, and how many writes it refused are held on this host
  // (ResilientJobStore, HeldWrites). A no-op by default, so that test doubles need not.
  virtual void SetStoreState(bool /*writable*/, int64_t /*held_writes*/) {}
  // A write the job store refused after its retries; reason "disk_full" (RESOURCE_EXHAUSTED:
  // SQLite's disk) or "unavailable" (the database or directory away). A no-op by default.
  virtual void StoreWriteRefused(const std::string& /*reason*/) {}
  // The fleet as this node's last heartbeat read it: each node, whether its heartbeat is within
  // the lease, and how old it is; and jobs this node took over from nodes whose lease expired.
  // No-ops by default (a single host has no fleet).
  virtual void SetFleetNode(const std::string& /*node*/, bool /*alive*/,
                            double /*heartbeat_age_seconds*/) {}
  virtual void LeasesTakenOver(int64_t /*jobs*/) {}
  // A device's state as ListDevices shows it ("starting", "ready", "restarting", "failed"), and
  // whether it runs a job now. No-ops by default, so that test doubles need not.
  virtual void SetDeviceState(const std::string& /*device*/, const std::string& /*state*/) {}
  virtual void SetJobRunning(const std::string& /*device*/, bool /*running*/) {}
  // Adds per-GPU gauges (NVML, read at scrape time) for a CUDA device the daemon serves.
  virtual void AddGpu(const std::string& device_id, const std::string& uuid,
                      const std::string& model_name, int ordinal) = 0;

  // Tenancy series. No-ops by default, so that test doubles need not implement them.
  // GPU seconds a run of `owner` used. The owner label is the owner only when it is one of
  // SetKnownOwners' (the auth file's users), else "other": the series stay bounded.
  virtual void AddOwnerGpuSeconds(const std::string& /*owner*/, double /*seconds*/) {}
  // Replaces the owners counted under their own name (at start and on each auth file reload).
  virtual void SetKnownOwners(const std::vector<std::string>& /*owners*/) {}
  // An authentication failure; reason: auth::AuthFailureName's word.
  virtual void AuthFailed(const std::string& /*reason*/) {}
};

}  // namespace kbench::metrics
