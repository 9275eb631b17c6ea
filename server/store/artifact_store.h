// Artifact bytes as files under <data-dir>/artifacts/<job>/<name> (one host) or as chunked rows
// in the database (a fleet: artifact_bytes.h), their size and sha256 in the JobStore, and a
// retention limit (bytes and age) evicting oldest first.
#pragma once

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store/artifact_bytes.h"
#include "server/store/held_writes.h"
#include "server/store/job_store.h"

namespace kbench::store {

struct RetentionPolicy {
  int64_t max_total_bytes = 0;  // 0 (or negative): unlimited
  int64_t max_age_seconds = 0;  // 0 (or negative): unlimited
};

// Thread-safe. `jobs` must outlive the store. Job ids and artifact names become path components,
// so both are validated: non-empty, at most 255 bytes, no '/', no NUL, no '..', not starting
// with '.' -> INVALID_ARGUMENT.
class ArtifactStore {
 public:
  // With `chunks`, artifact bytes live in the database, where every node of a fleet reads them;
  // without, in files under `data_dir`. Work directories are local files either way.
  // With `held`, an artifact the store refuses (its database away, its disk full) is held on
  // this host (HeldWrites) and written by WriteHeldArtifacts.
  ArtifactStore(std::string data_dir, JobStore* jobs, RetentionPolicy retention,
                std::unique_ptr<ArtifactChunks> chunks = nullptr, HeldWrites* held = nullptr);

  // A fresh, empty directory <data-dir>/work/<job> where an executor may write the job's
  // artifact files; whatever a previous attempt left there is removed.
  absl::StatusOr<std::string> WorkDir(const std::string& job_id);

  // Moves `source_path` (written by an executor) into the store as the job's artifact `name`,
  // computing size and sha256, records it, then applies retention. Renames when it can, copies
  // (then removes the source) across file systems. Importing a name again replaces it.
  // NOT_FOUND for an unknown job or a missing source; RESOURCE_EXHAUSTED when the file alone is
  // over max_total_bytes (the source is then left where it is). An empty content_type is
  // stored as "application/octet-stream". An error after the move (hashing, recording) discards
  // the moved bytes. A failure of the retention pass that follows is logged, not returned: the
  // artifact itself was stored. When the store refuses the write and the store holds writes,
  // the bytes are held and UNAVAILABLE says so.
  absl::StatusOr<ArtifactRecord> Import(const std::string& job_id, const std::string& name,
                                        const std::string& source_path,
                                        const std::string& content_type);
  // Stores the held artifacts of jobs still this node's (dropping the others'); returns how
  // many were stored, or the store's refusal that stopped the pass.
  absl::StatusOr<int64_t> WriteHeldArtifacts();

  // Removes <data-dir>/work/<job> (whatever an executor left there): called once the job's
  // run is over, whatever its end, since the artifacts it kept were moved out by Import.
  absl::Status RemoveWorkDir(const std::string& job_id);
  // Removes every work directory: at start, when no job runs. Returns how many were removed.
  absl::StatusOr<int64_t> SweepWorkDirs();
  // Deletes the jobs that finished before `cutoff_ns` (Unix epoch ns) with their artifacts,
  // records and files. Returns the number of jobs deleted.
  absl::StatusOr<int64_t> PruneJobsFinishedBefore(int64_t cutoff_ns);
  // Deletes one finished job with its artifacts, records, history rows and files
  // (JobStore::DeleteFinished's errors). Returns how many artifacts went with it.
  absl::StatusOr<int32_t> DeleteFinishedJob(const std::string& job_id);
  // What DeleteSweep removed.
  struct DeletedSweep {
    int32_t jobs = 0;
    int32_t artifacts = 0;  // the jobs' and the report's
  };
  // Deletes a sweep with its points' jobs (their artifacts, records, history rows and files) and
  // its report's records and bytes (files under <data-dir>/sweeps/<id>, or rows in a fleet);
  // JobStore::DeleteSweep's errors.
  absl::StatusOr<DeletedSweep> DeleteSweep(const std::string& sweep_id);

  // Absolute path of a stored artifact's file (files only: see Open).
  std::string PathOf(const ArtifactRecord& record) const;
  // A reader of a stored artifact's bytes, wherever they are. DATA_LOSS when its file is gone.
  absl::StatusOr<std::unique_ptr<ArtifactReader>> Open(const ArtifactRecord& record);
  bool in_database() const { return chunks_ != nullptr; }
  // The database's artifact rows (null when artifacts are files): sweep reports use them too.
  ArtifactChunks* chunks() { return chunks_.get(); }

  // Evicts oldest artifacts (file and record) until both limits hold: every artifact older than
  // max_age_seconds at `now_ns` (Unix epoch ns), then the oldest until the total is within
  // max_total_bytes. Returns bytes freed.
  absl::StatusOr<int64_t> ApplyRetention(int64_t now_ns);

  // Sum of the stored artifacts' sizes.
  absl::StatusOr<int64_t> TotalBytes();

 private:
  // Import without holding.
  absl::StatusOr<ArtifactRecord> Store(const std::string& job_id, const std::string& name,
                                       const std::string& source_path,
                                       const std::string& content_type);
  bool HeldArtifactStillOurs(const absl::StatusOr<JobRecord>& job) const;
  absl::StatusOr<int64_t> ApplyRetentionLocked(int64_t now_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Evict(const ArtifactRecord& artifact) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RemoveArtifactFile(const ArtifactRecord& artifact);
  // Each of `removed`'s bytes, all of them tried; the first error.
  absl::Status RemoveArtifactFiles(const std::vector<ArtifactRecord>& removed);
  // Import's two ends: the bytes into a file, or into the database.
  absl::StatusOr<ArtifactRecord> ImportFile(const std::string& job_id, const std::string& name,
                                            const std::string& source_path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<ArtifactRecord> ImportChunks(const std::string& job_id, const std::string& name,
                                              const std::string& source_path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Serializes imports and eviction, so two retention passes never evict the same artifact and
  // an import's file and record appear together.
  absl::Mutex mu_;
  std::string root_;  // the data directory
  JobStore* jobs_;
  RetentionPolicy retention_;
  std::unique_ptr<ArtifactChunks> chunks_;  // null: files
  HeldWrites* const held_;                  // null: nothing held
};

// Lowercase hex SHA-256 of a file's bytes.
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace kbench::store
