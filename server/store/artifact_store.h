// Artifact bytes as files under <data-dir>/artifacts/<job>/<name>, their size and sha256 in
// the JobStore, and a retention limit (bytes and age) evicting oldest first.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/job_store.h"

namespace kbench::store {

struct RetentionPolicy {
  int64_t max_total_bytes = 0;   // 0: unlimited
  int64_t max_age_seconds = 0;   // 0: unlimited
};

// Thread-safe.
class ArtifactStore {
 public:
  ArtifactStore(std::string data_dir, JobStore* jobs, RetentionPolicy retention);

  // A fresh directory where an executor may write the job's artifact files.
  absl::StatusOr<std::string> WorkDir(const std::string& job_id);

  // Moves `source_path` (written by an executor) into the store as the job's artifact `name`,
  // computing size and sha256, records it, then applies retention.
  absl::StatusOr<ArtifactRecord> Import(const std::string& job_id, const std::string& name,
                                        const std::string& source_path,
                                        const std::string& content_type);

  // Absolute path of a stored artifact's bytes.
  std::string PathOf(const ArtifactRecord& record) const;

  // Evicts oldest artifacts until both limits hold. Returns bytes freed.
  absl::StatusOr<int64_t> ApplyRetention(int64_t now_ns);

  // Sum of the stored artifacts' sizes.
  absl::StatusOr<int64_t> TotalBytes();

 private:
  std::string root_;
  JobStore* jobs_;
  RetentionPolicy retention_;
};

// Lowercase hex SHA-256 of a file's bytes.
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace kbench::store
