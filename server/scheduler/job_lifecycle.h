// The one owner of a job's state machine: create (with dedupe), start, finish, re-queue and
// recover, delete, and in a fleet claim, heartbeat (lease renewal), reap and cancel while unclaimed
// (fleet_lifecycle.cc). Every transition writes the store, counts the metrics and tells the
// watchers here, in one order, so that no caller can get the order wrong; time comes from the
// injected clock and retries from FairSharePolicy, on one host and in a fleet alike:
//
//   QUEUED --Start--> RUNNING --Finish--> SUCCEEDED | FAILED | CANCELLED
//     |  ^               |
//     |  +---Requeue-----+   (shutdown; recovery re-queues a RUNNING job once, then fails it)
//     +------Finish--------> CANCELLED | FAILED   (cancelled or undeliverable while queued)
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/types.pb.h"
#include "server/common/fair_share_policy.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_events.h"
#include "server/store/artifact_store.h"
#include "server/store/fleet_store.h"
#include "server/store/job_store.h"

namespace kbench::scheduler {

// How a job ended. `code` is kOk only for SUCCEEDED.
struct JobEnd {
  store::JobState state = store::JobState::kFailed;
  absl::StatusCode code = absl::StatusCode::kUnknown;
  std::string message;
  // Serialized kbench.v1.JobResult (may be empty).
  std::string result;
  // The same result as a message, when the caller holds it (borrowed; may be null): a
  // succeeded job's results are indexed from it rather than from `result` parsed back.
  const v1::JobResult* result_message = nullptr;

  static JobEnd Succeeded(std::string result);
  static JobEnd Cancelled(std::string message, std::string result = "");
  static JobEnd Failed(absl::StatusCode code, std::string message, std::string result = "");
};

// The job's owner: the record's typed field, read once by the store (every log line about a job
// carries it).
std::string OwnerOf(const store::JobRecord& job);

// Thread-safe (the store, metrics and events are).
class JobLifecycle {
 public:
  JobLifecycle(store::JobStore* jobs, metrics::Metrics* metrics, JobEvents* events, Clock* clock)
      : jobs_(jobs), metrics_(metrics), events_(events), clock_(clock) {}

  // Writes a new QUEUED job (its create time from the clock). With an idempotency key that was
  // used before, writes nothing and returns the earlier job with `false`.
  absl::StatusOr<std::pair<store::JobRecord, bool>> Create(store::JobRecord record);
  // QUEUED -> RUNNING; returns the job as running. FAILED_PRECONDITION unless it was QUEUED.
  absl::StatusOr<store::JobRecord> Start(const std::string& id);
  // -> terminal. The metrics are counted before the store is written: a client that sees the
  // terminal state (GetJob, WatchJob) must find the job already counted in a scrape.
  // `ran`: how long it ran on an executor, when it did.
  // A job already terminal is left as it is (and not counted twice).
  // `spec`: the job's spec as the caller already parsed it (borrowed; may be null).
  void Finish(const store::JobRecord& job, const JobEnd& end,
              std::optional<absl::Duration> ran = std::nullopt, const v1::JobSpec* spec = nullptr);
  // A running job's progress (phase, samples, noise): told to its watchers, kept as its latest.
  void Progress(const std::string& id, const v1::Progress& progress) {
    events_->Publish(id, &progress);
  }
  // RUNNING -> QUEUED: interrupted (a shutdown, a full disk), not failed. The store's error
  // when it refused (logged too).
  absl::Status Requeue(const std::string& id, const std::string& why = "interrupted by shutdown");
  // At start: a RUNNING job (the daemon died under it) is re-queued once, then failed. Returns
  // every QUEUED job, oldest first.
  absl::StatusOr<std::vector<store::JobRecord>> Recover();

  // A fleet's transitions (fleet_lifecycle.cc), on the jobs table every node shares.
  // Claims for `node`'s `device` the next job it serves in fair-share order (FairSharePolicy
  // with `half_life`), leased until now + `lease`; nullopt when none waits.
  absl::StatusOr<std::optional<store::JobRecord>> Claim(store::FleetStore& fleet,
                                                        const std::string& node,
                                                        const store::ClaimableDevice& device,
                                                        absl::Duration lease,
                                                        absl::Duration half_life);
  // `node` is alive now: its heartbeat and the leases of the jobs it holds run to now + `lease`.
  absl::Status Heartbeat(store::FleetStore& fleet, const std::string& node,
                         const std::string& devices, absl::Duration lease);
  // Every job whose lease passed goes back to the fleet's queue, or ends FAILED once it ran
  // `max_attempts` times (FairSharePolicy::MayRetry); its watchers are told. Returns them.
  absl::StatusOr<std::vector<store::ReapedJob>> ReapExpired(
      store::FleetStore& fleet, int32_t max_attempts = FairSharePolicy::kMaxAttempts);
  // The same for every job `node` holds, whatever its lease (the node starts again, or stops).
  absl::StatusOr<std::vector<store::ReapedJob>> ReleaseNode(
      store::FleetStore& fleet, const std::string& node,
      int32_t max_attempts = FairSharePolicy::kMaxAttempts);
  // The latest progress of a job `node` runs, serialized, for the other nodes' readers.
  absl::Status ShareProgress(store::FleetStore& fleet, const std::string& node,
                             const std::string& id, const std::string& progress) {
    return fleet.ShareProgress(node, id, progress);
  }
  // QUEUED and unclaimed -> CANCELLED ("cancelled while queued"); false when a node claimed it
  // meanwhile (that node is then asked).
  absl::StatusOr<bool> CancelUnclaimed(store::FleetStore& fleet, const std::string& id);

  // Deletions of finished work (kbctl jobs rm, kbctl sweep rm), with artifacts, records, history
  // rows and files (ArtifactStore's errors: FAILED_PRECONDITION for a queued or running job).
  // Returns how many artifacts went with the job.
  absl::StatusOr<int32_t> DeleteFinished(store::ArtifactStore& artifacts, const std::string& id);
  absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(store::ArtifactStore& artifacts,
                                                                 const std::string& sweep_id);

  // The job as stored. NOT_FOUND naming the id when absent.
  absl::StatusOr<store::JobRecord> Get(const std::string& id) { return jobs_->Get(id); }

  int64_t NowNs() { return absl::ToUnixNanos(clock_->Now()); }

 private:
  // Adds a succeeded job's variants to the store's result index (history, leaderboards).
  // Tells the watchers (and the log) of jobs a reap re-queued or failed.
  void PublishReaped(const std::vector<store::ReapedJob>& reaped);
  void IndexResults(const store::JobRecord& job, const JobEnd& end, const v1::JobSpec* spec,
                    int64_t finish_time_ns);

  store::JobStore* jobs_;
  metrics::Metrics* metrics_;
  JobEvents* events_;
  Clock* clock_;
};

}  // namespace kbench::scheduler
