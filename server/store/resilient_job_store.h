// A JobStore that survives a store that refuses writes (a full or failing disk, a database that
// went away): writes are retried, a terminal state that still cannot be written is held
// (HeldWrites: on local disk when it takes it, else in memory) and served from there (so
// watchers see the job end instead of hanging), submits are refused while the store refuses
// writes (RESOURCE_EXHAUSTED naming the data directory when it is full, UNAVAILABLE naming the
// database when it cannot be reached), and the held states are written as soon as it takes
// them, after the job's held artifacts, fenced as any finish is (a job another node took since
// is left to it).
#pragma once

#include <cstdint>
#include <functional>
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
#include "server/store/held_writes.h"
#include "server/store/job_store.h"

namespace kbench::store {

struct WriteRetryPolicy {
  // Tries of one write before it counts as refused; the waits between them double.
  int attempts = 3;
  absl::Duration first_backoff = absl::Milliseconds(20);
};

// Where the store lives, for refusals that say what to fix.
struct StoreWhereabouts {
  std::string data_dir;  // --data-dir (SQLite's file and the held writes are under it)
  std::string database;  // the PostgreSQL URL of a fleet; "" for SQLite
};

// Below this much free space under the data directory, SQLite's store counts as full: a
// refusal asks for it to be freed, and the store is not declared writable again before.
constexpr int64_t kMinFreeBytes = int64_t{4} << 20;
// Free bytes for an unprivileged writer under `dir` (-1 when it cannot be read).
int64_t FreeBytes(const std::string& dir);
// The refusal a submit gets while the store at `where` refuses writes (`last`: its last error).
absl::Status DescribeRefusal(const StoreWhereabouts& where, const absl::Status& last);

// True for a failure of the storage under the store (disk full, I/O error, busy, connection
// lost: SqlFailure::kStorage),
// which another try may get past; false for a refused transition or bad input.
bool IsStoreWriteFailure(const absl::Status& status);

// Thread-safe. Owns the store it wraps.
class ResilientJobStore final : public JobStore {
 public:
  // `held` (borrowed; null: a hold in memory of its own) also holds artifacts for the
  // ArtifactStore: a job's held finish waits for its held artifacts.
  explicit ResilientJobStore(std::unique_ptr<JobStore> inner, WriteRetryPolicy policy = {},
                             StoreWhereabouts where = {}, HeldWrites* held = nullptr);

  // False while a write was refused and not yet retried with success.
  bool Writable();
  // Writes the held terminal states (those whose artifacts are no longer held); the store is
  // writable again once all are written and it answers. Called by Insert while unwritable and
  // by the daemon's maintenance timer. The refusal when the store still refuses.
  absl::Status RetryPendingWrites();
  // Jobs whose terminal state is held.
  int64_t PendingWrites();
  // Something else found the store unreachable (a fleet's heartbeat): refuse submits until a
  // retry finds it back.
  void NoteUnreachable(const absl::Status& why);
  // Called (outside any lock of this store) each time writability changes, with the refusal
  // when it became unwritable, and each time one more terminal state is held.
  void OnWritabilityChange(std::function<void(bool writable, const absl::Status& why)> callback);
  // Called (outside any lock of this store) for each write refused after its retries (not when
  // something else found the store unreachable): kbench_store_write_failures_total.
  void OnWriteRefused(std::function<void(const absl::Status& why)> callback);
  // Why submits are refused now: RESOURCE_EXHAUSTED naming the data directory and the space to
  // free when SQLite's disk is full, else UNAVAILABLE naming the database or the directory.
  absl::Status Refusal();

  // The refusal while the store is unwritable (after one try to write the held states) or
  // when this insert is refused.
  absl::StatusOr<std::pair<JobRecord, bool>> Insert(JobRecord record) override;
  absl::StatusOr<JobRecord> Get(const std::string& id) override;
  // The refusal when the store refuses it: the job stays QUEUED in the store.
  absl::Status MarkRunning(const std::string& id, int64_t start_time_ns) override;
  absl::Status Requeue(const std::string& id) override;
  // OK when the state was written, or when the store refused it and it is held. Held at once,
  // unwritten, while the job's artifacts are: they go to the store first.
  absl::Status Finish(const std::string& id, JobState state, absl::StatusCode code,
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
  absl::StatusOr<int64_t> DeleteSweep(const std::string& sweep_id,
                                      std::vector<ArtifactRecord>* removed,
                                      std::vector<ArtifactRecord>* report) override;
  // The result index: rows the store refuses are held in memory and written after the held
  // terminal states (a restart before then loses history rows, never a job).
  absl::Status IndexResults(const std::vector<IndexedResult>& rows) override;
  absl::StatusOr<std::vector<IndexedResult>> History(const HistoryFilter& filter) override;
  absl::StatusOr<std::vector<IndexedResult>> LeaderboardRows(
      const LeaderboardFilter& filter) override;

 private:
  template <typename Write>
  absl::Status WithRetries(const Write& write);
  void NoteRefused(const absl::Status& status);
  void NoteWritten();
  // Writability changes to `writable`; tells the callback when it did change.
  void SetWritable(bool writable, const absl::Status& why);
  // The job with its held terminal state, if it has one.
  JobRecord Overlay(JobRecord job);
  void Hold(const std::string& id, const HeldFinish& finish, const absl::Status& why);
  absl::Status WriteHeldIndexRows();
  // Whether the store answers (and, for SQLite, its disk has room): before declaring it
  // writable with nothing held.
  bool Answers();

  std::unique_ptr<JobStore> inner_;
  const WriteRetryPolicy policy_;
  const StoreWhereabouts where_;
  std::unique_ptr<HeldWrites> own_held_;
  HeldWrites* const held_;
  // Serializes RetryPendingWrites so two passes never write the same job twice.
  absl::Mutex flush_mu_;
  absl::Mutex mu_;
  bool writable_ ABSL_GUARDED_BY(mu_) = true;
  absl::Status last_refusal_ ABSL_GUARDED_BY(mu_);
  std::function<void(bool, const absl::Status&)> on_change_ ABSL_GUARDED_BY(mu_);
  std::function<void(const absl::Status&)> on_refused_ ABSL_GUARDED_BY(mu_);
  std::vector<std::vector<IndexedResult>> held_index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::store
