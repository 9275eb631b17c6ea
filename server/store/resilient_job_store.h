// A JobStore that survives a disk that refuses writes (full, or failing): writes are retried,
// a terminal state that still cannot be written is kept in memory and served from there (so
// watchers see the job end instead of hanging), submits are refused with UNAVAILABLE while the
// disk refuses writes, and the kept states are written as soon as it accepts them again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/store/job_store.h"

namespace kbench::store {

struct WriteRetryPolicy {
  // Tries of one write before it counts as refused; the waits between them double.
  int attempts = 3;
  absl::Duration first_backoff = absl::Milliseconds(20);
};

// True for a failure of the storage under the store (disk full, I/O error, busy, connection
// lost: SqlFailure::kStorage),
// which another try may get past; false for a refused transition or bad input.
bool IsStoreWriteFailure(const absl::Status& status);

// Thread-safe. Owns the store it wraps.
class ResilientJobStore final : public JobStore {
 public:
  explicit ResilientJobStore(std::unique_ptr<JobStore> inner, WriteRetryPolicy policy = {});

  // False while a write was refused and not yet retried with success.
  bool Writable();
  // Writes the terminal states kept in memory; the store is writable again once all are
  // written. Called by Insert while unwritable and by the daemon's maintenance timer.
  absl::Status RetryPendingWrites();
  // Jobs whose terminal state is only in memory.
  int64_t PendingWrites();

  // UNAVAILABLE, naming the disk's error, while the store is unwritable (after one try to
  // write the pending states) or when this insert is refused.
  absl::StatusOr<std::pair<JobRecord, bool>> Insert(JobRecord record) override;
  absl::StatusOr<JobRecord> Get(const std::string& id) override;
  // UNAVAILABLE when the disk refuses it: the job stays QUEUED in the store.
  absl::Status MarkRunning(const std::string& id, int64_t start_time_ns) override;
  absl::Status Requeue(const std::string& id) override;
  // OK when the state was written, or when the disk refused it and it is kept in memory.
  absl::Status Finish(const std::string& id, JobState state, const std::string& error_code,
                      const std::string& error, const std::string& result,
                      int64_t finish_time_ns) override;
  absl::StatusOr<std::vector<JobRecord>> List(const JobFilter& filter) override;
  absl::StatusOr<std::vector<JobRecord>> ListByState(JobState state) override;
  absl::Status AddArtifact(const ArtifactRecord& artifact) override;
  absl::StatusOr<std::vector<ArtifactRecord>> Artifacts(const std::string& job_id) override;
  absl::StatusOr<ArtifactRecord> GetArtifact(const std::string& job_id,
                                             const std::string& name) override;
  absl::Status DeleteArtifact(const std::string& job_id, const std::string& name) override;
  absl::StatusOr<std::vector<ArtifactRecord>> AllArtifacts() override;
  absl::StatusOr<std::vector<ArtifactRecord>> OldestArtifacts(int32_t limit) override;
  absl::StatusOr<int64_t> ArtifactBytes() override;
  absl::StatusOr<int> SchemaVersion() override;
  absl::StatusOr<int64_t> PruneFinishedBefore(int64_t cutoff_ns,
                                              std::vector<ArtifactRecord>* removed) override;
  absl::Status DeleteFinished(const std::string& id, std::vector<ArtifactRecord>* removed) override;
  // The result index: a lost index row loses history, never a job, so no write is held back.
  absl::Status IndexResults(const std::vector<IndexedResult>& rows) override;
  absl::StatusOr<std::vector<IndexedResult>> History(const HistoryFilter& filter) override;
  absl::StatusOr<std::vector<IndexedResult>> LeaderboardRows(
      const LeaderboardFilter& filter) override;

 private:
  template <typename Write>
  absl::Status WithRetries(const Write& write);
  void NoteRefused(const absl::Status& status);
  void NoteWritten();
  // The job with its in-memory terminal state, if it has one.
  JobRecord Overlay(JobRecord job);
  absl::Status Unavailable();

  std::unique_ptr<JobStore> inner_;
  const WriteRetryPolicy policy_;
  // Serializes RetryPendingWrites so two passes never write the same job twice.
  absl::Mutex flush_mu_;
  absl::Mutex mu_;
  bool writable_ ABSL_GUARDED_BY(mu_) = true;
  absl::Status last_refusal_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, JobRecord> pending_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::store
