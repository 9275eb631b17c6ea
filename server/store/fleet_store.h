// The fleet's shared state in PostgreSQL: nodes and their heartbeats, claims of queued jobs
// for a node's idle devices (FOR UPDATE SKIP LOCKED, in fair-share order), leases that a live
// node renews and any node reaps, and cancels that reach the node running a job. The jobs
// themselves stay in the JobStore; this is the part only a fleet needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/store/database.h"
#include "server/store/job_store.h"
#include "server/store/store_location.h"

namespace kbench::store {

struct NodeRecord {
  std::string name;
  std::string address;
  std::string version;
  int64_t start_time_ns = 0;
  int64_t heartbeat_ns = 0;
  std::string devices;       // serialized kbench.v1.DeviceList
  int32_t claimed_jobs = 0;  // read only: queued-and-claimed or running on the node
};

// One device of this node that can take a job now, and which targets it serves.
struct ClaimableDevice {
  std::string device;                // on the node: "cpu", "cuda:0"
  std::vector<std::string> targets;  // "gpu-a/cuda:0", "cuda:any", "h100:any", ...
};

// A job whose node stopped renewing its lease.
struct ReapedJob {
  JobRecord job;        // as it was
  bool failed = false;  // true: it had run its attempts and ended FAILED; false: re-queued
};

// One owner's standing across the fleet (GetUsage and the quotas).
struct FleetOwnerRow {
  std::string owner;
  double decayed_gpu_seconds = 0;  // including runs in progress
  double today_gpu_seconds = 0;
  double total_gpu_seconds = 0;
  int32_t queued = 0;
  int32_t running = 0;
};

// A queued job no node has claimed yet.
struct UnclaimedJob {
  std::string id;
  std::string target;
};

// Thread-safe: one connection guarded by a mutex.
class FleetStore {
 public:
  // PostgreSQL only; the JobStore must have migrated the database.
  static absl::StatusOr<std::unique_ptr<FleetStore>> Open(const StoreLocation& location);

  // Adds the node or replaces its row (a restarted node keeps its name).
  absl::Status RegisterNode(const NodeRecord& node);
  // The node is alive at `now_ns` with these devices; every job it holds is leased to it until
  // `lease_until_ns`.
  absl::Status Heartbeat(const std::string& node, int64_t now_ns, const std::string& devices,
                         int64_t lease_until_ns);
  // The address the node's gRPC server listens on, once it is bound (port 0 picks one).
  absl::Status SetNodeAddress(const std::string& node, const std::string& address);
  // Every node, by name, with its claimed jobs counted.
  absl::StatusOr<std::vector<NodeRecord>> Nodes();

  // Takes the next queued, unclaimed job one of `device`'s targets matches, in fair-share order
  // (a positive priority first; then the owner with the least GPU time, decayed with
  // `half_life`, counting runs in progress fleet-wide; then priority and age), for `node`:
  // the job's device becomes the node's device and it is leased until `lease_until_ns`. Rows
  // another node is claiming are skipped, never waited on. Nothing to take: nullopt.
  absl::StatusOr<std::optional<JobRecord>> Claim(const std::string& node,
                                                 const ClaimableDevice& device, int64_t now_ns,
                                                 int64_t lease_until_ns, absl::Duration half_life);

  // Jobs of nodes whose lease passed before `now_ns`: a running one is re-queued to its target
  // if it ran fewer than `max_attempts` times, else ends FAILED (UNAVAILABLE, naming the node);
  // a claimed queued one is released. Returns what it did.
  absl::StatusOr<std::vector<ReapedJob>> ReapExpired(int64_t now_ns, int32_t max_attempts);
  // At a node's start: the jobs it held in an earlier life, handled as ReapExpired would.
  absl::StatusOr<std::vector<ReapedJob>> ReleaseNode(const std::string& node, int64_t now_ns,
                                                     int32_t max_attempts);

  // Every owner with GPU time or unfinished jobs, fleet-wide, by name: usage decayed to
  // `now_ns` with `half_life` (none kept when it is zero) plus the runs in progress, usage
  // since `day_start_ns`, the total, and jobs queued and running.
  absl::StatusOr<std::vector<FleetOwnerRow>> OwnerRows(int64_t now_ns, absl::Duration half_life,
                                                       int64_t day_start_ns);
  // Queued jobs nobody claimed, oldest first (ids and targets only: a cheap read per request).
  absl::StatusOr<std::vector<UnclaimedJob>> Unclaimed();

  // Running jobs held by `node`, oldest first.
  absl::StatusOr<std::vector<std::string>> RunningOn(const std::string& node);
  // Records the latest progress (a serialized kbench.v1.Progress) of job `id`, which `node`
  // runs, so that other nodes' GetJob and WatchJob show it; a change is announced to every node.
  // Nothing is written once the job no longer runs on `node` (it ended or was re-queued).
  absl::Status ShareProgress(const std::string& node, const std::string& id,
                             const std::string& progress);
  // The progress job `id`'s node last shared in its current run ("" when none yet).
  absl::StatusOr<std::string> SharedProgress(const std::string& id);

  // Cancels a job nobody claimed yet; false when it was claimed or finished meanwhile.
  absl::StatusOr<bool> CancelUnclaimed(const std::string& id, int64_t now_ns,
                                       const std::string& message);
  // Asks the node that holds the job to cancel it (announced to every node).
  absl::Status RequestCancel(const std::string& id);
  // Unfinished jobs held by `node` whose cancel was requested.
  absl::StatusOr<std::vector<std::string>> CancelRequests(const std::string& node);

 private:
  explicit FleetStore(std::unique_ptr<internal::Database> db) : db_(std::move(db)) {}
  // Ids of `node`'s jobs that `condition` (SQL over the jobs table) selects, oldest first.
  absl::StatusOr<std::vector<std::string>> JobIdsOf(const std::string& node,
                                                    const std::string& condition, const char* what);
  // Reaps the unfinished, claimed jobs `condition` selects; its ?1 is `parameter` (text), or
  // `now_ns` when `parameter` is empty.
  absl::StatusOr<std::vector<ReapedJob>> Reap(const std::string& condition,
                                              const std::string& parameter, int64_t now_ns,
                                              int32_t max_attempts);

  absl::Mutex mu_;
  std::unique_ptr<internal::Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::store
