// Where an artifact's bytes are and how they are read back: files under the data directory (one
// host), or chunked rows in the database (a fleet: any node serves any artifact, even after the
// node that produced it is gone). Readers of chunked artifacts check the recorded size and
// SHA-256 as they stream, so a torn or altered row never reaches a user as a good artifact.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store/database.h"
#include "server/store/job_store.h"

namespace kbench::store {

// Streams stored bytes. Not thread-safe (one stream reads it).
class ArtifactReader {
 public:
  virtual ~ArtifactReader() = default;
  // Up to `max` next bytes; "" at the end. DATA_LOSS when the bytes are not what was recorded.
  virtual absl::StatusOr<std::string> Read(size_t max) = 0;
};

// A reader of an open file (the file's bytes as they are).
std::unique_ptr<ArtifactReader> FileReader(std::ifstream file);

// Incremental SHA-256 (OpenSSL), lowercase hex at the end.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  absl::Status Update(const void* data, size_t size);
  absl::StatusOr<std::string> HexDigest();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

struct ArtifactDigest {
  int64_t size_bytes = 0;
  std::string sha256;
};

// Artifact bytes as rows of artifact_chunks (job_id, name, idx, data): kChunkBytes each, the last
// shorter. A MiB keeps a row far below PostgreSQL's bytea limits and memory flat while
// streaming, at one row per MiB. Thread-safe: one connection under a mutex.
class ArtifactChunks {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  explicit ArtifactChunks(std::unique_ptr<internal::Database> db) : db_(std::move(db)) {}

  // Streams the file at `path` into the artifact's chunks, replacing any it had, in one
  // transaction; returns the bytes' size and SHA-256.
  absl::StatusOr<ArtifactDigest> Write(const std::string& job_id, const std::string& name,
                                       const std::string& path);
  absl::Status Remove(const std::string& job_id, const std::string& name);
  // A reader of the artifact's chunks that checks them against `record`'s size and sha256.
  std::unique_ptr<ArtifactReader> Open(const ArtifactRecord& record);

  // Chunk `index` of the artifact; nullopt past its last chunk.
  absl::StatusOr<std::optional<std::string>> Chunk(const std::string& job_id,
                                                   const std::string& name, int64_t index);

 private:
  absl::Mutex mu_;
  std::unique_ptr<internal::Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::store
