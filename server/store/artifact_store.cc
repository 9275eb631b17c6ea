// ArtifactStore: moves executor output under <data-dir>/artifacts/<job>/<name>, records size and
// SHA-256 in the JobStore, and evicts the oldest artifacts beyond the retention limits.
#include "server/store/artifact_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "server/common/logging.h"
#include "server/store/file_moves.h"
#include "server/store/resilient_job_store.h"

namespace kbench::store {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxNameBytes = 255;  // NAME_MAX on Linux file systems
constexpr char kDefaultContentType[] = "application/octet-stream";
// Prefix of the staging file an import writes before its final rename; artifact names cannot
// start with '.', so it never collides with one.
constexpr char kStagingPrefix[] = ".importing-";

absl::Status ErrnoError(int error, absl::string_view what) {
  return absl::ErrnoToStatus(error, what);
}

absl::Status FsError(const std::error_code& error, absl::string_view what) {
  // std::filesystem reports errno values in the generic/system category on Linux.
  return absl::ErrnoToStatus(error.value(), what);
}

// Job ids and artifact names are path components under the data directory.
absl::Status ValidatePathComponent(absl::string_view field, const std::string& value) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(field, " '", value, "' ", why));
  };
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, " must not be empty"));
  if (value.size() > kMaxNameBytes) {
    return invalid(absl::StrCat("is longer than ", kMaxNameBytes, " bytes"));
  }
  if (value.find('/') != std::string::npos) return invalid("must not contain '/'");
  if (value.find('\0') != std::string::npos) return invalid("must not contain a NUL byte");
  if (value.find("..") != std::string::npos) return invalid("must not contain '..'");
  if (value.front() == '.') return invalid("must not start with '.'");
  return absl::OkStatus();
}

struct FileDigest {
  int64_t size_bytes = 0;
  std::string sha256;
};

absl::StatusOr<FileDigest> DigestFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, absl::StrCat("open '", path, "' to hash it"));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};

  // Streamed: artifacts (traces, Nsight Compute reports) can be far larger than memory allows.
  Sha256Stream sha;
  std::vector<unsigned char> buffer(1 << 16);
  FileDigest digest;
  while (true) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, absl::StrCat("read '", path, "' to hash it"));
    }
    if (got == 0) break;
    KBENCH_RETURN_IF_ERROR(sha.Update(buffer.data(), static_cast<size_t>(got)));
    digest.size_bytes += got;
  }
  KBENCH_ASSIGN_OR_RETURN(digest.sha256, sha.HexDigest());
  return digest;
}

}  // namespace

absl::StatusOr<std::string> Sha256OfFile(const std::string& path) {
  KBENCH_ASSIGN_OR_RETURN(FileDigest digest, DigestFile(path));
  return digest.sha256;
}

ArtifactStore::ArtifactStore(std::string data_dir, JobStore* jobs, RetentionPolicy retention,
                             std::unique_ptr<ArtifactChunks> chunks, HeldWrites* held)
    : root_(std::move(data_dir)),
      jobs_(jobs),
      retention_(retention),
      chunks_(std::move(chunks)),
      held_(held) {}

absl::StatusOr<std::string> ArtifactStore::WorkDir(const std::string& job_id) {
  KBENCH_RETURN_IF_ERROR(ValidatePathComponent("job_id", job_id));
  fs::path dir = fs::path(root_) / "work" / job_id;
  std::error_code error;
  fs::remove_all(dir, error);
  if (error) return FsError(error, absl::StrCat("clean work directory '", dir.string(), "'"));
  fs::create_directories(dir, error);
  if (error) return FsError(error, absl::StrCat("create work directory '", dir.string(), "'"));
  return dir.string();
}

absl::Status ArtifactStore::RemoveWorkDir(const std::string& job_id) {
  KBENCH_RETURN_IF_ERROR(ValidatePathComponent("job_id", job_id));
  const fs::path dir = fs::path(root_) / "work" / job_id;
  std::error_code error;
  fs::remove_all(dir, error);
  if (error) return FsError(error, absl::StrCat("remove work directory '", dir.string(), "'"));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ArtifactStore::SweepWorkDirs() {
  const fs::path work = fs::path(root_) / "work";
  std::error_code error;
  if (!fs::exists(work, error)) return 0;
  int64_t removed = 0;
  for (fs::directory_iterator it(work, error), end; !error && it != end; it.increment(error)) {
    std::error_code remove_error;
    fs::remove_all(it->path(), remove_error);
    if (remove_error) {
      return FsError(remove_error,
                     absl::StrCat("remove work directory '", it->path().string(), "'"));
    }
    ++removed;
  }
  if (error) return FsError(error, absl::StrCat("list work directories in '", work.string(), "'"));
  return removed;
}

absl::StatusOr<int64_t> ArtifactStore::PruneJobsFinishedBefore(int64_t cutoff_ns) {
  absl::MutexLock lock(&mu_);
  std::vector<ArtifactRecord> removed;
  KBENCH_ASSIGN_OR_RETURN(int64_t jobs, jobs_->PruneFinishedBefore(cutoff_ns, &removed));
  KBENCH_RETURN_IF_ERROR(RemoveArtifactFiles(removed));
  return jobs;
}

absl::StatusOr<int32_t> ArtifactStore::DeleteFinishedJob(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  std::vector<ArtifactRecord> removed;
  KBENCH_RETURN_IF_ERROR(jobs_->DeleteFinished(job_id, &removed));
  KBENCH_RETURN_IF_ERROR(RemoveArtifactFiles(removed));
  return static_cast<int32_t>(removed.size());
}

absl::StatusOr<ArtifactStore::DeletedSweep> ArtifactStore::DeleteSweep(
    const std::string& sweep_id) {
  absl::MutexLock lock(&mu_);
  std::vector<ArtifactRecord> removed;
  std::vector<ArtifactRecord> report;
  KBENCH_ASSIGN_OR_RETURN(const int64_t jobs, jobs_->DeleteSweep(sweep_id, &removed, &report));
  absl::Status status = RemoveArtifactFiles(removed);
  // The report's files sit under <data-dir>/sweeps/<id>/ (their paths relative to the data
  // directory), or in the fleet's rows keyed by the sweep's id.
  for (const ArtifactRecord& file : report) {
    absl::Status s = absl::OkStatus();
    if (chunks_ && file.relative_path.empty()) {
      s = chunks_->Remove(file.job_id, file.name);
    } else if (const std::string path = (fs::path(root_) / file.relative_path).string();
               ::unlink(path.c_str()) != 0 && errno != ENOENT) {
      s = ErrnoError(errno, absl::StrCat("remove a deleted sweep's report file '", path, "'"));
    }
    if (status.ok()) status = s;
  }
  std::error_code ignored;  // not empty: a file that could not go, whose error is returned
  fs::remove(fs::path(root_) / "sweeps" / sweep_id, ignored);
  KBENCH_RETURN_IF_ERROR(status);
  return DeletedSweep{static_cast<int32_t>(jobs),
                      static_cast<int32_t>(removed.size() + report.size())};
}

absl::Status ArtifactStore::RemoveArtifactFiles(const std::vector<ArtifactRecord>& removed) {
  // The records are gone: a file that cannot be removed now is an orphan (wasted bytes, never a
  // record without bytes), so one failure does not stop the others.
  absl::Status first_error;
  for (const ArtifactRecord& artifact : removed) {
    absl::Status s = RemoveArtifactFile(artifact);
    if (first_error.ok()) first_error = s;
  }
  return first_error;
}

std::string ArtifactStore::PathOf(const ArtifactRecord& record) const {
  return (fs::path(root_) / "artifacts" / record.relative_path).string();
}

absl::StatusOr<ArtifactRecord> ArtifactStore::Import(const std::string& job_id,
                                                     const std::string& name,
                                                     const std::string& source_path,
                                                     const std::string& content_type) {
  absl::StatusOr<ArtifactRecord> stored = Store(job_id, name, source_path, content_type);
  if (stored.ok() || held_ == nullptr || !IsStoreWriteFailure(stored.status())) return stored;
  // The store refused (its database went away, its disk is full): the bytes wait on this host.
  absl::StatusOr<HeldArtifact> held = held_->HoldArtifact(job_id, name, source_path, content_type);
  if (!held.ok()) {
    return absl::Status(held.status().code(),
                        absl::StrCat("artifact '", name, "' is lost: the store refused it (",
                                     stored.status().message(), ") and it cannot be held (",
                                     held.status().message(), ")"));
  }
  return absl::UnavailableError(absl::StrCat("artifact '", name,
                                             "' is held on this host until the store takes it (",
                                             stored.status().message(), ")"));
}

absl::StatusOr<int64_t> ArtifactStore::WriteHeldArtifacts() {
  if (held_ == nullptr) return 0;
  int64_t written = 0;
  for (const HeldArtifact& artifact : held_->Artifacts()) {
    absl::StatusOr<JobRecord> job = jobs_->Get(artifact.job_id);
    if (!job.ok() && IsStoreWriteFailure(job.status())) return job.status();
    if (!HeldArtifactStillOurs(job)) {
      logging::LogJob(logging::Level::kWarn, artifact.job_id,
                      "held artifact dropped: the job is no longer this node's",
                      {logging::Field("artifact", artifact.name),
                       logging::Field("job", job.ok() ? JobStateName(job->state) + " on node '" +
                                                            job->node + "'"
                                                      : job.status().ToString())});
      held_->ReleaseArtifact(artifact.job_id, artifact.name);
      continue;
    }
    absl::StatusOr<ArtifactRecord> stored =
        Store(artifact.job_id, artifact.name, artifact.path, artifact.content_type);
    if (!stored.ok() && IsStoreWriteFailure(stored.status())) return stored.status();
    if (!stored.ok()) {
      logging::LogJob(logging::Level::kError, artifact.job_id,
                      "held artifact could not be stored; dropped",
                      {logging::Field("artifact", artifact.name),
                       logging::Field("error", stored.status().ToString())});
    } else {
      ++written;
    }
    held_->ReleaseArtifact(artifact.job_id, artifact.name);
  }
  return written;
}

bool ArtifactStore::HeldArtifactStillOurs(const absl::StatusOr<JobRecord>& job) const {
  if (!job.ok()) return false;  // deleted meanwhile
  // Another node claimed it after this node's lease lapsed: its run's artifacts are the job's.
  if (!job->node.empty() && job->node != held_->node()) return false;
  // Ended without this node's held end (cancelled while queued after a re-queue, say).
  return !IsTerminal(job->state) || held_->FinishOf(job->id).has_value();
}

absl::StatusOr<ArtifactRecord> ArtifactStore::Store(const std::string& job_id,
                                                    const std::string& name,
                                                    const std::string& source_path,
                                                    const std::string& content_type) {
  KBENCH_RETURN_IF_ERROR(ValidatePathComponent("job_id", job_id));
  KBENCH_RETURN_IF_ERROR(ValidatePathComponent("artifact name", name));
  KBENCH_RETURN_IF_ERROR(jobs_->Get(job_id).status());
  struct stat source_stat;
  if (::stat(source_path.c_str(), &source_stat) != 0) {
    return ErrnoError(errno, absl::StrCat("artifact '", name, "' source '", source_path, "'"));
  }
  if (!S_ISREG(source_stat.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("artifact '", name, "' source '", source_path, "' is not a regular file"));
  }
  // Checked before moving anything: such a file would evict every other artifact and then
  // itself.
  if (retention_.max_total_bytes > 0 && source_stat.st_size > retention_.max_total_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "artifact '", name, "' of job ", job_id, " is ", source_stat.st_size,
        " bytes, over the artifact store's limit of ", retention_.max_total_bytes, " bytes"));
  }

  absl::MutexLock lock(&mu_);
  absl::StatusOr<ArtifactRecord> stored =
      chunks_ ? ImportChunks(job_id, name, source_path) : ImportFile(job_id, name, source_path);
  if (!stored.ok()) return stored.status();
  ArtifactRecord record = *std::move(stored);
  record.content_type = content_type.empty() ? kDefaultContentType : content_type;
  record.create_time_ns = absl::GetCurrentTimeNanos();
  absl::Status added = jobs_->AddArtifact(record);
  if (!added.ok() && IsStoreWriteFailure(added) && !chunks_) {
    // The bytes go back where they came from, to be held there (Import) rather than lost.
    if (MoveFile(PathOf(record), source_path).ok()) return added;
  }
  if (!added.ok()) {
    // No record, no bytes: unrecorded bytes would never be evicted.
    (void)RemoveArtifactFile(record);
    return added;
  }
  // The bytes are in the database now; the source goes (held bytes, or with the work directory).
  if (chunks_) ::unlink(source_path.c_str());

  absl::StatusOr<int64_t> freed = ApplyRetentionLocked(record.create_time_ns);
  if (!freed.ok()) {
    logging::LogJob(
        logging::Level::kWarn, job_id, "artifact retention failed after import",
        {logging::Field("artifact", name), logging::Field("error", freed.status().ToString())});
  }
  return record;
}

absl::StatusOr<ArtifactRecord> ArtifactStore::ImportFile(const std::string& job_id,
                                                         const std::string& name,
                                                         const std::string& source_path) {
  fs::path job_dir = fs::path(root_) / "artifacts" / job_id;
  std::error_code error;
  fs::create_directories(job_dir, error);
  if (error) {
    return FsError(error, absl::StrCat("create artifact directory '", job_dir.string(), "'"));
  }
  // Staged then renamed, so a reader never sees a half-copied artifact under its final name.
  std::string staging = (job_dir / absl::StrCat(kStagingPrefix, name)).string();
  std::string final_path = (job_dir / name).string();
  KBENCH_RETURN_IF_ERROR(MoveFile(source_path, staging));
  absl::StatusOr<FileDigest> digest = DigestFile(staging);
  if (!digest.ok()) {
    ::unlink(staging.c_str());
    return digest.status();
  }
  if (::rename(staging.c_str(), final_path.c_str()) != 0) {
    absl::Status status =
        ErrnoError(errno, absl::StrCat("rename '", staging, "' to '", final_path, "'"));
    ::unlink(staging.c_str());
    return status;
  }
  ArtifactRecord record;
  record.job_id = job_id;
  record.name = name;
  record.relative_path = absl::StrCat(job_id, "/", name);
  record.size_bytes = digest->size_bytes;
  record.sha256 = digest->sha256;
  return record;
}

absl::StatusOr<ArtifactRecord> ArtifactStore::ImportChunks(const std::string& job_id,
                                                           const std::string& name,
                                                           const std::string& source_path) {
  // The source stays until the record is written (Store): held, it is all there is.
  KBENCH_ASSIGN_OR_RETURN(ArtifactDigest digest, chunks_->Write(job_id, name, source_path));
  ArtifactRecord record;
  record.job_id = job_id;
  record.name = name;
  record.relative_path = "";  // none: the bytes are artifact_chunks' rows
  record.size_bytes = digest.size_bytes;
  record.sha256 = digest.sha256;
  return record;
}

absl::StatusOr<std::unique_ptr<ArtifactReader>> ArtifactStore::Open(const ArtifactRecord& record) {
  if (chunks_) return chunks_->Open(record);
  std::ifstream in(PathOf(record), std::ios::binary);
  if (!in) {
    return absl::DataLossError(absl::StrCat("artifact ", record.name, " of job ", record.job_id,
                                            " is recorded but its file is missing"));
  }
  return FileReader(std::move(in));
}

absl::StatusOr<int64_t> ArtifactStore::ApplyRetention(int64_t now_ns) {
  absl::MutexLock lock(&mu_);
  return ApplyRetentionLocked(now_ns);
}

absl::StatusOr<int64_t> ArtifactStore::ApplyRetentionLocked(int64_t now_ns) {
  const bool limit_bytes = retention_.max_total_bytes > 0;
  constexpr int64_t kNsPerSecond = 1'000'000'000;
  // An age too large to express in ns is no limit at all.
  const bool limit_age =
      retention_.max_age_seconds > 0 &&
      retention_.max_age_seconds <= std::numeric_limits<int64_t>::max() / kNsPerSecond;
  if (!limit_bytes && !limit_age) return 0;
  const int64_t max_age_ns = limit_age ? retention_.max_age_seconds * kNsPerSecond : 0;

  // Oldest first, a batch at a time: an import that evicts nothing reads one batch, not the
  // whole table (which made every import O(artifacts) and a long drain quadratic).
  constexpr int32_t kBatch = 64;
  KBENCH_ASSIGN_OR_RETURN(int64_t total, jobs_->ArtifactBytes());
  int64_t freed = 0;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<ArtifactRecord> oldest, jobs_->OldestArtifacts(kBatch));
    for (const ArtifactRecord& artifact : oldest) {
      bool too_old = limit_age && now_ns - artifact.create_time_ns > max_age_ns;
      bool over = limit_bytes && total > retention_.max_total_bytes;
      // Both conditions only weaken further down the list (younger, smaller total): stop here.
      if (!too_old && !over) return freed;
      KBENCH_RETURN_IF_ERROR(Evict(artifact));
      total -= artifact.size_bytes;
      freed += artifact.size_bytes;
    }
    if (oldest.size() < static_cast<size_t>(kBatch)) return freed;
  }
}

absl::Status ArtifactStore::Evict(const ArtifactRecord& artifact) {
  // Record first: a crash between the two steps then leaves an orphan file (wasted bytes),
  // never a record whose bytes are gone.
  KBENCH_RETURN_IF_ERROR(jobs_->DeleteArtifact(artifact.job_id, artifact.name));
  return RemoveArtifactFile(artifact);
}

absl::Status ArtifactStore::RemoveArtifactFile(const ArtifactRecord& artifact) {
  if (chunks_) return chunks_->Remove(artifact.job_id, artifact.name);
  std::string path = PathOf(artifact);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoError(errno, absl::StrCat("remove evicted artifact '", path, "'"));
  }
  // Drop the job's directory once empty; failing because it still holds files is expected.
  ::rmdir((fs::path(root_) / "artifacts" / artifact.job_id).c_str());
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ArtifactStore::TotalBytes() { return jobs_->ArtifactBytes(); }

}  // namespace kbench::store
