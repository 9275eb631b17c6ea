// The store's write path on a disk that refuses writes: retry, keep terminal states in memory,
// refuse submits, write what was kept once the disk accepts writes again.
#include "server/store/resilient_job_store.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/common/logging.h"
#include "server/store/database.h"

namespace kbench::store {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

bool IsStoreWriteFailure(const absl::Status& status) {
  return internal::SqlFailureOf(status) == internal::SqlFailure::kStorage;
}

ResilientJobStore::ResilientJobStore(std::unique_ptr<JobStore> inner, WriteRetryPolicy policy)
    : inner_(std::move(inner)), policy_(policy) {}

template <typename Write>
absl::Status ResilientJobStore::WithRetries(const Write& write) {
  absl::Duration backoff = policy_.first_backoff;
  absl::Status status;
  for (int attempt = 1; attempt <= std::max(1, policy_.attempts); ++attempt) {
    status = write();
    if (!IsStoreWriteFailure(status)) {
      if (status.ok()) NoteWritten();
      return status;
    }
    if (attempt < policy_.attempts) {
      std::this_thread::sleep_for(absl::ToChronoMilliseconds(backoff));
      backoff *= 2;
    }
  }
  NoteRefused(status);
  return status;
}

void ResilientJobStore::NoteRefused(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (writable_) {
    logging::Log(Level::kError, "the job store refuses writes; submits are refused until it can",
                 {Field("error", status.ToString())});
  }
  writable_ = false;
  last_refusal_ = status;
}

void ResilientJobStore::NoteWritten() {
  absl::MutexLock lock(&mu_);
  // A write that went through does not make the store writable while states wait in memory:
  // a submit must not be acknowledged before the backlog is on disk.
  if (!writable_ && pending_.empty()) {
    writable_ = true;
    logging::Log(Level::kInfo, "the job store accepts writes again");
  }
}

bool ResilientJobStore::Writable() {
  absl::MutexLock lock(&mu_);
  return writable_;
}

int64_t ResilientJobStore::PendingWrites() {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(pending_.size());
}

absl::Status ResilientJobStore::Unavailable() {
  absl::MutexLock lock(&mu_);
  return absl::UnavailableError(absl::StrCat(
      "the job store cannot be written now (", last_refusal_.message(),
      "); new jobs are refused until it can: free space under --data-dir, then retry"));
}

absl::Status ResilientJobStore::RetryPendingWrites() {
  absl::MutexLock flush(&flush_mu_);
  std::map<std::string, JobRecord> pending;
  {
    absl::MutexLock lock(&mu_);
    if (writable_) return absl::OkStatus();
    pending = pending_;
  }
  for (const auto& [id, job] : pending) {
    absl::Status s =
        inner_->Finish(id, job.state, job.error_code, job.error, job.result, job.finish_time_ns);
    // FAILED_PRECONDITION: it is terminal on disk already (a commit that reported failure).
    if (!s.ok() && s.code() != absl::StatusCode::kFailedPrecondition) {
      NoteRefused(s);
      return Unavailable();
    }
    absl::MutexLock lock(&mu_);
    pending_.erase(id);
  }
  // With the backlog written, the next write tries the disk again: an insert that goes through
  // proves it writable, one that does not is refused with UNAVAILABLE as before.
  absl::MutexLock lock(&mu_);
  if (pending_.empty()) writable_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::pair<JobRecord, bool>> ResilientJobStore::Insert(JobRecord record) {
  if (!Writable() && !RetryPendingWrites().ok()) return Unavailable();
  absl::StatusOr<std::pair<JobRecord, bool>> inserted;
  absl::Status status = WithRetries([&] {
    inserted = inner_->Insert(record);
    return inserted.status();
  });
  if (IsStoreWriteFailure(status)) return Unavailable();
  return inserted;
}

absl::StatusOr<JobRecord> ResilientJobStore::Get(const std::string& id) {
  KBENCH_ASSIGN_OR_RETURN(JobRecord job, inner_->Get(id));
  return Overlay(std::move(job));
}

JobRecord ResilientJobStore::Overlay(JobRecord job) {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(job.id);
  return it == pending_.end() ? job : it->second;
}

absl::Status ResilientJobStore::MarkRunning(const std::string& id, int64_t start_time_ns) {
  absl::Status status = WithRetries([&] { return inner_->MarkRunning(id, start_time_ns); });
  if (IsStoreWriteFailure(status)) {
    return absl::UnavailableError(
        absl::StrCat("the job store could not record the job's start: ", status.message()));
  }
  return status;
}

absl::Status ResilientJobStore::Requeue(const std::string& id) {
  // Left RUNNING on disk when refused: recovery at the next start re-queues it all the same.
  return WithRetries([&] { return inner_->Requeue(id); });
}

absl::Status ResilientJobStore::Finish(const std::string& id, JobState state,
                                       const std::string& error_code, const std::string& error,
                                       const std::string& result, int64_t finish_time_ns) {
  {
    absl::MutexLock lock(&mu_);
    if (pending_.contains(id)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", id, " is ", JobStateName(pending_.at(id).state), "; cannot finish it again"));
    }
  }
  absl::Status status = WithRetries(
      [&] { return inner_->Finish(id, state, error_code, error, result, finish_time_ns); });
  if (!IsStoreWriteFailure(status)) return status;
  KBENCH_ASSIGN_OR_RETURN(JobRecord job, inner_->Get(id));
  if (IsTerminal(job.state)) return status;
  job.state = state;
  job.error_code = error_code;
  job.error = error;
  job.result = result;
  job.finish_time_ns = finish_time_ns;
  logging::LogJob(Level::kError, id, "terminal state kept in memory: the store refuses writes",
                  {Field("state", JobStateName(state)), Field("error", status.ToString())});
  absl::MutexLock lock(&mu_);
  pending_[id] = std::move(job);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<JobRecord>> ResilientJobStore::List(const JobFilter& filter) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, inner_->List(filter));
  std::vector<JobRecord> out;
  out.reserve(jobs.size());
  for (JobRecord& job : jobs) {
    JobRecord shown = Overlay(std::move(job));
    // A job that ended in memory no longer has the state it has on disk.
    if (filter.state.has_value() && shown.state != *filter.state) continue;
    out.push_back(std::move(shown));
  }
  return out;
}

absl::StatusOr<std::vector<JobRecord>> ResilientJobStore::ListByState(JobState state) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, inner_->ListByState(state));
  std::vector<JobRecord> out;
  for (JobRecord& job : jobs) {
    JobRecord shown = Overlay(std::move(job));
    if (shown.state == state) out.push_back(std::move(shown));
  }
  return out;
}

absl::Status ResilientJobStore::AddArtifact(const ArtifactRecord& artifact) {
  return WithRetries([&] { return inner_->AddArtifact(artifact); });
}

absl::StatusOr<std::vector<ArtifactRecord>> ResilientJobStore::Artifacts(
    const std::string& job_id) {
  return inner_->Artifacts(job_id);
}

absl::StatusOr<ArtifactRecord> ResilientJobStore::GetArtifact(const std::string& job_id,
                                                              const std::string& name) {
  return inner_->GetArtifact(job_id, name);
}

absl::Status ResilientJobStore::DeleteArtifact(const std::string& job_id, const std::string& name) {
  return WithRetries([&] { return inner_->DeleteArtifact(job_id, name); });
}

absl::StatusOr<std::vector<ArtifactRecord>> ResilientJobStore::AllArtifacts() {
  return inner_->AllArtifacts();
}

absl::StatusOr<std::vector<ArtifactRecord>> ResilientJobStore::OldestArtifacts(int32_t limit) {
  return inner_->OldestArtifacts(limit);
}

absl::StatusOr<int64_t> ResilientJobStore::ArtifactBytes() { return inner_->ArtifactBytes(); }

absl::StatusOr<int> ResilientJobStore::SchemaVersion() { return inner_->SchemaVersion(); }

absl::Status ResilientJobStore::IndexResults(const std::vector<IndexedResult>& rows) {
  return WithRetries([&] { return inner_->IndexResults(rows); });
}

absl::StatusOr<std::vector<IndexedResult>> ResilientJobStore::History(const HistoryFilter& filter) {
  return inner_->History(filter);
}

absl::StatusOr<std::vector<IndexedResult>> ResilientJobStore::LeaderboardRows(
    const LeaderboardFilter& filter) {
  return inner_->LeaderboardRows(filter);
}

absl::StatusOr<int64_t> ResilientJobStore::PruneFinishedBefore(
    int64_t cutoff_ns, std::vector<ArtifactRecord>* removed) {
  absl::StatusOr<int64_t> pruned;
  KBENCH_RETURN_IF_ERROR(WithRetries([&] {
    pruned = inner_->PruneFinishedBefore(cutoff_ns, removed);
    return pruned.status();
  }));
  return pruned;
}

absl::Status ResilientJobStore::DeleteFinished(const std::string& id,
                                               std::vector<ArtifactRecord>* removed) {
  // A retry after a failed commit lists the same artifacts again: start from the caller's list.
  const size_t before = removed != nullptr ? removed->size() : 0;
  return WithRetries([&] {
    if (removed != nullptr) removed->resize(before);
    return inner_->DeleteFinished(id, removed);
  });
}

}  // namespace kbench::store
