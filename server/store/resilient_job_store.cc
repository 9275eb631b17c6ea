// The store's write path on a disk that refuses writes: retry, keep terminal states in memory,
// refuse submits, write what was kept once the disk accepts writes again.
#include "server/store/resilient_job_store.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/common/logging.h"
#include "server/store/database.h"

namespace kbench::store {
namespace {

using logging::Field;
using logging::Level;

// "HOST:PORT/DB" of a postgres:// URL: the user name stays out of a reply to anyone.
std::string DatabaseName(const std::string& url) {
  const size_t at = url.rfind('@');
  const size_t scheme = url.find("://");
  if (at != std::string::npos) return url.substr(at + 1);
  return scheme == std::string::npos ? url : url.substr(scheme + 3);
}

}  // namespace

int64_t FreeBytes(const std::string& dir) {
  struct statvfs fs {};
  if (dir.empty() || ::statvfs(dir.c_str(), &fs) != 0) return -1;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

absl::Status DescribeRefusal(const StoreWhereabouts& where, const absl::Status& last) {
  if (!where.database.empty()) {
    return absl::UnavailableError(absl::StrCat(
        "the database ", DatabaseName(where.database), " cannot be reached (", last.message(),
        "); new jobs are refused until it is back: retry later (a submit with an idempotency key "
        "is safe to retry); jobs already running finish and are recorded then"));
  }
  const int64_t free_bytes = FreeBytes(where.data_dir);
  if (last.code() == absl::StatusCode::kResourceExhausted ||
      (free_bytes >= 0 && free_bytes < kMinFreeBytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the data directory ", where.data_dir, " is full (", free_bytes,
        " bytes free): the job store cannot be written (", last.message(), "); free at least ",
        kMinFreeBytes >> 20, " MiB there: queued jobs wait, and everything resumes by itself"));
  }
  return absl::UnavailableError(absl::StrCat("the job store under ", where.data_dir,
                                             " cannot be written (", last.message(),
                                             "); new jobs are refused until it can: retry later"));
}

bool IsStoreWriteFailure(const absl::Status& status) {
  return internal::SqlFailureOf(status) == internal::SqlFailure::kStorage;
}

ResilientJobStore::ResilientJobStore(std::unique_ptr<JobStore> inner, WriteRetryPolicy policy,
                                     StoreWhereabouts where, HeldWrites* held)
    : inner_(std::move(inner)),
      policy_(policy),
      where_(std::move(where)),
      own_held_(held == nullptr ? std::make_unique<HeldWrites>("") : nullptr),
      held_(held == nullptr ? own_held_.get() : held) {}

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
  std::function<void(const absl::Status&)> refused;
  {
    absl::MutexLock lock(&mu_);
    refused = on_refused_;
  }
  if (refused) refused(status);
  SetWritable(false, status);
}

// Not a refused write (a heartbeat, every second while the database is away): the store stops
// taking submits, and kbench_store_write_failures_total counts only writes.
void ResilientJobStore::NoteUnreachable(const absl::Status& why) { SetWritable(false, why); }

void ResilientJobStore::NoteWritten() {
  // A write that went through does not make the store writable while states are held: a
  // submit must not be acknowledged before the backlog is written.
  if (held_->Count() == 0) SetWritable(true, absl::OkStatus());
}

void ResilientJobStore::SetWritable(bool writable, const absl::Status& why) {
  std::function<void(bool, const absl::Status&)> callback;
  {
    absl::MutexLock lock(&mu_);
    if (!writable) last_refusal_ = why;
    if (writable_ == writable) return;
    writable_ = writable;
    callback = on_change_;
  }
  if (writable) {
    logging::Log(Level::kInfo, "the job store accepts writes again");
  } else {
    logging::Log(Level::kError, "the job store refuses writes; submits are refused until it can",
                 {Field("error", why.ToString())});
  }
  if (callback) callback(writable, why);
}

void ResilientJobStore::OnWritabilityChange(
    std::function<void(bool writable, const absl::Status& why)> callback) {
  absl::MutexLock lock(&mu_);
  on_change_ = std::move(callback);
}

void ResilientJobStore::OnWriteRefused(std::function<void(const absl::Status& why)> callback) {
  absl::MutexLock lock(&mu_);
  on_refused_ = std::move(callback);
}

bool ResilientJobStore::Writable() {
  absl::MutexLock lock(&mu_);
  return writable_;
}

int64_t ResilientJobStore::PendingWrites() { return held_->FinishCount(); }

absl::Status ResilientJobStore::Refusal() {
  absl::Status last;
  {
    absl::MutexLock lock(&mu_);
    last = last_refusal_;
  }
  return DescribeRefusal(where_, last);
}

bool ResilientJobStore::Answers() {
  if (!inner_->SchemaVersion().ok()) return false;
  // SQLite's reads go on working on a full disk: only room to write says it takes writes.
  return !where_.database.empty() || where_.data_dir.empty() ||
         FreeBytes(where_.data_dir) >= kMinFreeBytes;
}

absl::Status ResilientJobStore::RetryPendingWrites() {
  absl::MutexLock flush(&flush_mu_);
  const std::map<std::string, HeldFinish> held = held_->Finishes();
  if (held.empty()) {
    if (absl::Status s = WriteHeldIndexRows(); !s.ok()) {
      NoteRefused(s);
      return Refusal();
    }
    if (!Writable()) {
      if (!Answers()) return Refusal();
      SetWritable(true, absl::OkStatus());
    }
    return absl::OkStatus();
  }
  for (const auto& [id, finish] : held) {
    // Its artifacts first: a job recorded SUCCEEDED must have them.
    if (held_->HoldsArtifactsOf(id)) continue;
    absl::Status s = inner_->Finish(id, finish.state, finish.code, finish.error, finish.result,
                                    finish.finish_time_ns);
    if (IsStoreWriteFailure(s)) {
      NoteRefused(s);
      return Refusal();
    }
    if (s.ok()) {
      logging::LogJob(Level::kInfo, id, "held terminal state written",
                      {Field("state", JobStateName(finish.state))});
    } else {
      // Terminal already (a commit that reported failure), or taken by another node after this
      // node's lease lapsed: the store's record stands, and there is never a second one.
      logging::LogJob(Level::kWarn, id, "held terminal state dropped: the store's record stands",
                      {Field("state", JobStateName(finish.state)), Field("error", s.ToString())});
    }
    held_->ReleaseFinish(id);
  }
  if (absl::Status s = WriteHeldIndexRows(); !s.ok()) {
    NoteRefused(s);
    return Refusal();
  }
  if (held_->Count() == 0 && Answers()) SetWritable(true, absl::OkStatus());
  return Writable() ? absl::OkStatus() : Refusal();
}

absl::StatusOr<std::pair<JobRecord, bool>> ResilientJobStore::Insert(JobRecord record) {
  if (!Writable() && !RetryPendingWrites().ok()) return Refusal();
  absl::StatusOr<std::pair<JobRecord, bool>> inserted;
  absl::Status status = WithRetries([&] {
    inserted = inner_->Insert(record);
    return inserted.status();
  });
  if (IsStoreWriteFailure(status)) return Refusal();
  return inserted;
}

absl::StatusOr<JobRecord> ResilientJobStore::Get(const std::string& id) {
  KBENCH_ASSIGN_OR_RETURN(JobRecord job, inner_->Get(id));
  return Overlay(std::move(job));
}

JobRecord ResilientJobStore::Overlay(JobRecord job) {
  if (std::optional<HeldFinish> held = held_->FinishOf(job.id)) {
    job.state = held->state;
    job.code = held->code;
    job.error = held->error;
    job.result = held->result;
    job.finish_time_ns = held->finish_time_ns;
  }
  return job;
}

absl::Status ResilientJobStore::MarkRunning(const std::string& id, int64_t start_time_ns) {
  absl::Status status = WithRetries([&] { return inner_->MarkRunning(id, start_time_ns); });
  if (IsStoreWriteFailure(status)) {
    absl::Status refusal = Refusal();
    return absl::Status(refusal.code(),
                        absl::StrCat("the job's start cannot be recorded: ", refusal.message()));
  }
  return status;
}

absl::Status ResilientJobStore::Requeue(const std::string& id) {
  // Left RUNNING on disk when refused: recovery at the next start re-queues it all the same.
  return WithRetries([&] { return inner_->Requeue(id); });
}

absl::Status ResilientJobStore::Finish(const std::string& id, JobState state, absl::StatusCode code,
                                       const std::string& error, const std::string& result,
                                       int64_t finish_time_ns) {
  if (std::optional<HeldFinish> held = held_->FinishOf(id)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", id, " is ", JobStateName(held->state), "; cannot finish it again"));
  }
  const HeldFinish finish{state, code, error, result, finish_time_ns};
  if (held_->HoldsArtifactsOf(id)) {
    Hold(id, finish, absl::UnavailableError("its artifacts are held until the store takes them"));
    return absl::OkStatus();
  }
  absl::Status status =
      WithRetries([&] { return inner_->Finish(id, state, code, error, result, finish_time_ns); });
  if (!IsStoreWriteFailure(status)) return status;
  Hold(id, finish, status);
  return absl::OkStatus();
}

void ResilientJobStore::Hold(const std::string& id, const HeldFinish& finish,
                             const absl::Status& why) {
  logging::LogJob(Level::kError, id, "terminal state held until the store takes it",
                  {Field("state", JobStateName(finish.state)), Field("error", why.ToString())});
  held_->HoldFinish(id, finish);
  // Held states make the store unwritable until they are written: submits wait for them.
  if (Writable()) {
    SetWritable(false, why);
    return;
  }
  std::function<void(bool, const absl::Status&)> callback;
  {
    absl::MutexLock lock(&mu_);
    callback = on_change_;
  }
  if (callback) callback(false, why);  // one more held: gauges follow
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
  absl::Status status = WithRetries([&] { return inner_->IndexResults(rows); });
  if (!IsStoreWriteFailure(status) || rows.empty()) return status;
  // Held in memory (a restart loses them: history and leaderboards, never a job) and written
  // after the held terminal states.
  absl::MutexLock lock(&mu_);
  held_index_.push_back(rows);
  return absl::OkStatus();
}

absl::Status ResilientJobStore::WriteHeldIndexRows() {
  std::vector<std::vector<IndexedResult>> held;
  {
    absl::MutexLock lock(&mu_);
    held.swap(held_index_);
  }
  for (size_t i = 0; i < held.size(); ++i) {
    absl::Status s = inner_->IndexResults(held[i]);
    if (IsStoreWriteFailure(s)) {
      absl::MutexLock lock(&mu_);
      held_index_.insert(held_index_.begin(), held.begin() + static_cast<ptrdiff_t>(i), held.end());
      return s;
    }
    if (!s.ok()) {
      logging::LogJob(Level::kError, held[i].front().job_id, "held result index rows dropped",
                      {Field("error", s.ToString())});
    }
  }
  return absl::OkStatus();
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

absl::StatusOr<int64_t> ResilientJobStore::DeleteSweep(const std::string& sweep_id,
                                                       std::vector<ArtifactRecord>* removed,
                                                       std::vector<ArtifactRecord>* report) {
  const size_t removed_before = removed != nullptr ? removed->size() : 0;
  const size_t report_before = report != nullptr ? report->size() : 0;
  absl::StatusOr<int64_t> deleted;
  KBENCH_RETURN_IF_ERROR(WithRetries([&] {
    if (removed != nullptr) removed->resize(removed_before);
    if (report != nullptr) report->resize(report_before);
    deleted = inner_->DeleteSweep(sweep_id, removed, report);
    return deleted.status();
  }));
  return deleted;
}

}  // namespace kbench::store
