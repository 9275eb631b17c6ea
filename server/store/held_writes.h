// Writes the store refused (a database outage, a full or failing disk), held on this host until
// it takes them: a job's artifacts and its terminal state. A job that ends while the store is
// away is recorded once, later, with its artifacts, instead of staying RUNNING until its lease
// is reaped and running again elsewhere.
//
// Held under <data-dir>/held/<job>/: `artifacts/<name>` (the bytes, moved there), `types/<name>`
// (the content type) and `finish` (the terminal state), each written to a temporary name,
// fsynced and renamed, so a kbenchd killed mid-write holds either the whole entry or none of it,
// and an entry written survives the process. When the disk itself refuses (full), an entry is
// held in memory only, and lost if kbenchd stops before the store takes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store/job_store.h"

namespace kbench::store {

// A job's terminal state as JobStore::Finish takes it.
struct HeldFinish {
  JobState state = JobState::kFailed;
  absl::StatusCode code = absl::StatusCode::kUnknown;
  std::string error;
  std::string result;
  int64_t finish_time_ns = 0;
};

// An artifact whose bytes wait in the hold.
struct HeldArtifact {
  std::string job_id;
  std::string name;
  std::string path;  // where the bytes are now
  std::string content_type;
};

// Thread-safe.
class HeldWrites {
 public:
  // `dir`: <data-dir>/held, created on first use ("": held in memory only); `node`: this
  // node's name in a fleet ("" on one host), whose jobs the held writes are.
  explicit HeldWrites(std::string dir, std::string node = "");

  const std::string& node() const { return node_; }

  // Reads what an earlier life of kbenchd held (at start, before anything is held). Entries
  // half-written when it died are removed.
  absl::Status Load();

  // Moves `source_path` into the hold as the job's artifact `name` (replacing one held before).
  // An error only when the bytes could not be moved: then nothing is held.
  absl::StatusOr<HeldArtifact> HoldArtifact(const std::string& job_id, const std::string& name,
                                            const std::string& source_path,
                                            const std::string& content_type);
  // Holds the job's terminal state; on disk when the disk takes it, else in memory.
  void HoldFinish(const std::string& job_id, const HeldFinish& finish);

  std::vector<HeldArtifact> Artifacts();
  // Every held terminal state, by job id.
  std::map<std::string, HeldFinish> Finishes();
  std::optional<HeldFinish> FinishOf(const std::string& job_id);
  bool HoldsArtifactsOf(const std::string& job_id);
  // Held entries (artifacts and terminal states).
  int64_t Count();
  // Held terminal states alone.
  int64_t FinishCount();

  // The entry reached the store (or no longer needs to): forget it, on disk too.
  void ReleaseArtifact(const std::string& job_id, const std::string& name);
  void ReleaseFinish(const std::string& job_id);

 private:
  std::string JobDir(const std::string& job_id) const;
  // Removes the job's directory once nothing of it is held.
  void RemoveJobDirIfEmpty(const std::string& job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LoadJob(const std::string& job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;
  const std::string node_;
  absl::Mutex mu_;
  // By job id, then artifact name.
  std::map<std::string, std::map<std::string, HeldArtifact>> artifacts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, HeldFinish> finishes_ ABSL_GUARDED_BY(mu_);
};

// The terminal state as a file's bytes, and back (INVALID_ARGUMENT when they do not parse).
// Decoding also reads the first version's files, which carried the code's name: a held state
// outlives an upgrade of kbenchd.
std::string EncodeHeldFinish(const HeldFinish& finish);
absl::StatusOr<HeldFinish> DecodeHeldFinish(const std::string& bytes);

}  // namespace kbench::store
