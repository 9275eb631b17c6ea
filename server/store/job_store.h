// The durable job store: SQLite in WAL mode under --data-dir (one host) or PostgreSQL (a fleet),
// with a schema version table.
// The control plane's source of truth: a job is written here as QUEUED before SubmitJob returns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/common/job_types.h"
#include "server/store/result_index.h"
#include "server/store/store_location.h"

namespace kbench::store {

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
bool IsTerminal(JobState state);
std::string JobStateName(JobState state);  // "queued", "running", ...
// The inverse of JobStateName; INVALID_ARGUMENT naming the value otherwise.
absl::StatusOr<JobState> ParseJobState(const std::string& name);

struct JobRecord {
  std::string id;
  // Insertion order, assigned by the store; newest jobs have the largest seq.
  int64_t seq = 0;
  JobState state = JobState::kQueued;
  // Device the job is queued on ("cpu", "cuda:0"; cuda:any already resolved). In a fleet, the
  // target until a node claims the job ("cpu:any", "gpu-b/cuda:0", "h100:any"), then the
  // claiming node's device.
  std::string device;
  // What the submitter asked for (the device as inserted); a job re-queued in a fleet goes
  // back to it.
  std::string target;
  // The node that claimed the job ("" until one has; always "" on a single host).
  std::string node;
  // The spec's owner, as authenticated: fair share orders a fleet's claims by it.
  std::string owner;
  std::string kernel;
  JobKind kind = JobKind::kBenchmark;
  int32_t priority = 0;
  // Empty when the client gave none; unique otherwise.
  std::string idempotency_key;
  int64_t create_time_ns = 0;  // Unix epoch nanoseconds
  int64_t start_time_ns = 0;
  int64_t finish_time_ns = 0;
  // Times the job was started on an executor.
  int32_t attempts = 0;
  std::string error;
  // The status code a FAILED or CANCELLED job ended with; kOk otherwise.
  absl::StatusCode code = absl::StatusCode::kOk;
  // Serialized kbench.v1.JobSpec / kbench.v1.JobResult; the store does not interpret them.
  std::string spec;
  std::string result;
};

struct ArtifactRecord {
  std::string job_id;
  std::string name;
  // Path relative to the artifact root.
  std::string relative_path;
  std::string content_type;
  int64_t size_bytes = 0;
  std::string sha256;  // lowercase hex
  int64_t create_time_ns = 0;
};

struct JobFilter {
  std::optional<JobState> state;
  std::string kernel;  // empty: any
  std::string device;  // empty: any
  std::string node;    // a fleet's node that claimed the job; empty: any
  std::string target;  // what the submitter asked for ("cuda:any", "h100:any"); empty: any
  // Only jobs with seq < before_seq (0: no bound): the paging cursor.
  int64_t before_seq = 0;
  int32_t limit = 50;
};

// Thread-safe: one connection guarded by a mutex.
class JobStore {
 public:
  static constexpr int kSchemaVersion = 16;

  // Connects to the location's database and migrates it to kSchemaVersion.
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(const StoreLocation& location);
  // Opens (creating if needed) `data_dir`/kbench.db and migrates it to kSchemaVersion.
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(const std::string& data_dir);
  virtual ~JobStore() = default;

  // Inserts a new QUEUED job (seq assigned). When record.idempotency_key is not empty and a job
  // of the same record.owner with that key exists, nothing is inserted and that job is returned
  // with `false`. Keys are unique per owner: another owner's key never matches.
  virtual absl::StatusOr<std::pair<JobRecord, bool>> Insert(JobRecord record) = 0;
  // NOT_FOUND naming the id when absent.
  virtual absl::StatusOr<JobRecord> Get(const std::string& id) = 0;
  // The transitions below are made on behalf of this store's node (StoreLocation::node): a job
  // another node claimed is not this node's to start, re-queue or finish.
  // QUEUED -> RUNNING, attempts + 1, start time set. FAILED_PRECONDITION unless QUEUED.
  virtual absl::Status MarkRunning(const std::string& id, int64_t start_time_ns) = 0;
  // Back to QUEUED (after a daemon restart or a graceful shutdown), attempts kept; in a fleet
  // also back to its target, unclaimed, for any node to take.
  virtual absl::Status Requeue(const std::string& id) = 0;
  // To a terminal state with its status code (kOk for SUCCEEDED), error and result.
  // FAILED_PRECONDITION if already terminal.
  virtual absl::Status Finish(const std::string& id, JobState state, absl::StatusCode code,
                              const std::string& error, const std::string& result,
                              int64_t finish_time_ns) = 0;
  // Newest first, filtered.
  virtual absl::StatusOr<std::vector<JobRecord>> List(const JobFilter& filter) = 0;
  // Every job in `state`, oldest first (recovery at start).
  virtual absl::StatusOr<std::vector<JobRecord>> ListByState(JobState state) = 0;

  virtual absl::Status AddArtifact(const ArtifactRecord& artifact) = 0;
  virtual absl::StatusOr<std::vector<ArtifactRecord>> Artifacts(const std::string& job_id) = 0;
  virtual absl::StatusOr<ArtifactRecord> GetArtifact(const std::string& job_id,
                                                     const std::string& name) = 0;
  virtual absl::Status DeleteArtifact(const std::string& job_id, const std::string& name) = 0;
  // Every artifact, oldest first.
  virtual absl::StatusOr<std::vector<ArtifactRecord>> AllArtifacts() = 0;
  // The `limit` oldest artifacts, oldest first (retention reads only what it may evict).
  virtual absl::StatusOr<std::vector<ArtifactRecord>> OldestArtifacts(int32_t limit) = 0;
  // Sum of every artifact's size_bytes.
  virtual absl::StatusOr<int64_t> ArtifactBytes() = 0;
  virtual absl::StatusOr<int> SchemaVersion() = 0;
  // Deletes every job that finished (succeeded, failed, cancelled) before `cutoff_ns` (Unix
  // epoch ns), with its artifact records, in one transaction; queued and running jobs are
  // never touched. Appends the deleted artifact records to `removed` (may be null), whose files
  // the caller removes. Returns the number of jobs deleted.
  virtual absl::StatusOr<int64_t> PruneFinishedBefore(int64_t cutoff_ns,
                                                      std::vector<ArtifactRecord>* removed) = 0;
  // Deletes one finished job (kbctl jobs rm) like PruneFinishedBefore does, and its history
  // rows too. NOT_FOUND when absent; FAILED_PRECONDITION naming why when it is queued or
  // running, or a point of a sweep.
  virtual absl::Status DeleteFinished(const std::string& id,
                                      std::vector<ArtifactRecord>* removed) = 0;
  // Deletes a sweep (kbctl sweep rm) with its points' jobs (their artifact records, transitions
  // and history rows) and its report's artifact records, in one transaction. Appends the jobs'
  // deleted artifact records to `removed` and the report's to `report` (either may be null;
  // a report record's job_id holds the sweep id), whose bytes the caller removes. Returns the
  // number of jobs deleted. NOT_FOUND naming the sweep when absent; FAILED_PRECONDITION naming
  // the points' jobs still queued or running, or while its report is being written.
  virtual absl::StatusOr<int64_t> DeleteSweep(const std::string& sweep_id,
                                              std::vector<ArtifactRecord>* removed,
                                              std::vector<ArtifactRecord>* report) = 0;

  // The result index (history, leaderboards). Rows of one job replace any it had (a retried
  // write is harmless). NOT_FOUND when the job is absent.
  virtual absl::Status IndexResults(const std::vector<IndexedResult>& rows) = 0;
  // Newest first.
  virtual absl::StatusOr<std::vector<IndexedResult>> History(const HistoryFilter& filter) = 0;
  // Every counted row (correct, not impossible, not contended) of the filter's kernel, dtype
  // and device model at one of its shapes; unordered.
  virtual absl::StatusOr<std::vector<IndexedResult>> LeaderboardRows(
      const LeaderboardFilter& filter) = 0;
};

}  // namespace kbench::store
