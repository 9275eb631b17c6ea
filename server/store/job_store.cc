// JobStore on SQL (SQLite or PostgreSQL): one connection under a mutex, prepared statements, and
// state transitions written as conditional UPDATEs so an illegal transition never half-happens.
#include "server/store/job_store.h"

#include <filesystem>
#include <functional>
#include <map>
#include <system_error>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "kbench/v1/types.pb.h"
#include "server/store/code_blobs.h"
#include "server/store/database.h"
#include "server/store/job_rows.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"
#include "server/store/sweep_rows.h"

namespace kbench::store {

bool IsTerminal(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

std::string JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return absl::StrCat("unknown(", static_cast<int>(state), ")");
}

absl::StatusOr<JobState> ParseJobState(const std::string& name) {
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    if (JobStateName(state) == name) return state;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "state '", name, "' is not one of queued, running, succeeded, failed, cancelled"));
}

namespace internal {

// Column order shared by every job query and ReadJob.
const char kJobColumns[] =
    "seq, id, state, device, kernel, kind, priority, owner_idempotency_key, create_time_ns, "
    "start_time_ns, finish_time_ns, attempts, error, status_code, spec, result, target, node, "
    "owner";

absl::StatusOr<JobRecord> ReadJob(Statement& row) {
  JobRecord job;
  job.seq = row.ColumnInt64(0);
  job.id = row.ColumnText(1);
  std::string state = row.ColumnText(2);
  absl::StatusOr<JobState> parsed = ParseJobState(state);
  if (!parsed.ok()) {
    // The CHECK constraint makes this unreachable unless the file was edited by hand.
    return absl::DataLossError(absl::StrCat("job ", job.id, " has corrupt state '", state, "'"));
  }
  job.state = *parsed;
  job.device = row.ColumnText(3);
  job.kernel = row.ColumnText(4);
  const std::string kind = row.ColumnText(5);
  absl::StatusOr<JobKind> parsed_kind = ParseJobKind(kind);
  if (!parsed_kind.ok()) {
    return absl::DataLossError(absl::StrCat("job ", job.id, " has corrupt kind '", kind, "'"));
  }
  job.kind = *parsed_kind;
  job.priority = static_cast<int32_t>(row.ColumnInt64(6));
  job.idempotency_key = row.ColumnText(7);
  job.create_time_ns = row.ColumnInt64(8);
  job.start_time_ns = row.ColumnInt64(9);
  job.finish_time_ns = row.ColumnInt64(10);
  job.attempts = static_cast<int32_t>(row.ColumnInt64(11));
  job.error = row.ColumnText(12);
  job.code = static_cast<absl::StatusCode>(row.ColumnInt64(13));
  job.spec = row.ColumnBlob(14);
  job.result = row.ColumnBlob(15);
  job.target = row.ColumnText(16);
  job.node = row.ColumnText(17);
  job.owner = row.ColumnText(18);
  // A row from before migration 5 (one host) has no owner in its column: its spec names it.
  // Read here, once, so that every reader takes the owner from the record.
  if (job.owner.empty()) {
    v1::JobSpec spec;
    if (spec.ParseFromString(job.spec)) job.owner = spec.owner();
  }
  return job;
}

ArtifactRecord ReadArtifact(Statement& row) {
  ArtifactRecord artifact;
  artifact.job_id = row.ColumnText(0);
  artifact.name = row.ColumnText(1);
  artifact.relative_path = row.ColumnText(2);
  artifact.content_type = row.ColumnText(3);
  artifact.size_bytes = row.ColumnInt64(4);
  artifact.sha256 = row.ColumnText(5);
  artifact.create_time_ns = row.ColumnInt64(6);
  return artifact;
}

}  // namespace internal

namespace {

using internal::Database;
using internal::kJobColumns;
using internal::ReadJob;
using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

constexpr char kArtifactColumns[] =
    "job_id, name, relative_path, content_type, size_bytes, sha256, create_time_ns";

using internal::ReadArtifact;

absl::Status JobNotFound(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("job '", id, "' not found"));
}

class SqlJobStore final : public JobStore {
 public:
  SqlJobStore(std::unique_ptr<Database> db, std::string node)
      : node_(std::move(node)), db_(std::move(db)) {}

  // Prepares the fixed statements once; List's are prepared per filter shape on first use.
  absl::Status Prepare() {
    absl::MutexLock lock(&mu_);
    auto prepare = [this](std::unique_ptr<Statement>* out, const std::string& sql,
                          absl::string_view operation) -> absl::Status {
      KBENCH_ASSIGN_OR_RETURN(*out, db_->Prepare(sql, operation));
      return absl::OkStatus();
    };
    KBENCH_RETURN_IF_ERROR(prepare(
        &get_job_, absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE id = ?1"), "get job"));
    KBENCH_RETURN_IF_ERROR(
        prepare(&get_job_by_key_,
                absl::StrCat("SELECT ", kJobColumns,
                             " FROM jobs WHERE owner = ?1 AND owner_idempotency_key = ?2"),
                "get job by owner and idempotency key"));
    KBENCH_RETURN_IF_ERROR(prepare(
        &insert_job_,
        "INSERT INTO jobs (id, state, device, kernel, kind, priority, owner_idempotency_key, "
        "create_time_ns, start_time_ns, finish_time_ns, attempts, error, status_code, spec, "
        "result, target, node, owner, spec_bytes) "
        "VALUES (?1, 'queued', ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, 0, '', 0, ?8, ?9, ?2, '', ?10, ?11) "
        "RETURNING seq",
        "insert job"));
    KBENCH_RETURN_IF_ERROR(
        prepare(&mark_running_,
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, start_time_ns = ?2 "
                "WHERE id = ?1 AND state = 'queued' AND node = ?3 "
                "AND (lease_expires_ns = 0 OR lease_expires_ns > ?2)",
                "mark job running"));
    // A requeued job is not running, so it has no start time; attempts keeps the history. In a
    // fleet it goes back to its target, unclaimed (a job from before the fleet's migration has
    // no target and keeps its device).
    KBENCH_RETURN_IF_ERROR(
        prepare(&requeue_,
                "UPDATE jobs SET state = 'queued', start_time_ns = 0, node = '', "
                "lease_expires_ns = 0, device = CASE WHEN target = '' THEN device ELSE target END "
                "WHERE id = ?1 AND state IN ('queued', 'running') AND node IN (?2, '')",
                "requeue job"));
    KBENCH_RETURN_IF_ERROR(
        prepare(&finish_,
                "UPDATE jobs SET state = ?2, status_code = ?3, error = ?4, result = ?5, "
                "finish_time_ns = ?6 WHERE id = ?1 AND state IN ('queued', 'running') "
                "AND node IN (?7, '')",
                "finish job"));
    KBENCH_RETURN_IF_ERROR(prepare(
        &list_by_state_,
        absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE state = ?1 ORDER BY seq ASC"),
        "list jobs by state"));
    // A re-imported artifact (a retried job writes the same names) replaces the old record.
    KBENCH_RETURN_IF_ERROR(prepare(
        &add_artifact_,
        absl::StrCat("INSERT INTO artifacts (", kArtifactColumns,
                     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                     "ON CONFLICT (job_id, name) DO UPDATE SET "
                     "relative_path = excluded.relative_path, "
                     "content_type = excluded.content_type, size_bytes = excluded.size_bytes, "
                     "sha256 = excluded.sha256, create_time_ns = excluded.create_time_ns"),
        "add artifact"));
    KBENCH_RETURN_IF_ERROR(
        prepare(&job_artifacts_,
                absl::StrCat("SELECT ", kArtifactColumns,
                             " FROM artifacts WHERE job_id = ?1 ORDER BY create_time_ns, name"),
                "list job artifacts"));
    KBENCH_RETURN_IF_ERROR(prepare(&get_artifact_,
                                   absl::StrCat("SELECT ", kArtifactColumns,
                                                " FROM artifacts WHERE job_id = ?1 AND name = ?2"),
                                   "get artifact"));
    KBENCH_RETURN_IF_ERROR(prepare(&delete_artifact_,
                                   "DELETE FROM artifacts WHERE job_id = ?1 AND name = ?2",
                                   "delete artifact"));
    KBENCH_RETURN_IF_ERROR(
        prepare(&all_artifacts_,
                absl::StrCat("SELECT ", kArtifactColumns,
                             " FROM artifacts ORDER BY create_time_ns, job_id, name"),
                "list all artifacts"));
    // artifacts_by_age serves it: retention reads a few rows per import, not the whole table.
    KBENCH_RETURN_IF_ERROR(
        prepare(&oldest_artifacts_,
                absl::StrCat("SELECT ", kArtifactColumns,
                             " FROM artifacts ORDER BY create_time_ns, job_id, name "
                             "LIMIT ?1"),
                "list oldest artifacts"));
    KBENCH_RETURN_IF_ERROR(prepare(&artifact_bytes_,
                                   "SELECT COALESCE(SUM(size_bytes), 0) FROM artifacts",
                                   "sum artifact sizes"));
    KBENCH_RETURN_IF_ERROR(prepare(&schema_version_,
                                   "SELECT COALESCE(MAX(version), 0) FROM schema_version",
                                   "read schema version"));
    KBENCH_ASSIGN_OR_RETURN(results_, internal::ResultIndexQueries::Prepare(db_.get()));
    KBENCH_ASSIGN_OR_RETURN(code_, internal::CodeBlobs::Prepare(db_.get()));
    return absl::OkStatus();
  }

  absl::StatusOr<std::pair<JobRecord, bool>> Insert(JobRecord record) override {
    if (record.id.empty()) return absl::InvalidArgumentError("job id must not be empty");
    if (record.state != JobState::kQueued) {
      return absl::InvalidArgumentError(absl::StrCat("job ", record.id, " inserted as ",
                                                     JobStateName(record.state),
                                                     "; new jobs must be queued"));
    }
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(db_.get(), "insert job"));
    if (!record.idempotency_key.empty()) {
      KBENCH_ASSIGN_OR_RETURN(std::optional<JobRecord> existing,
                              FindByKey(record.owner, record.idempotency_key));
      if (existing.has_value()) {
        KBENCH_RETURN_IF_ERROR(transaction->Commit());
        return std::make_pair(*std::move(existing), false);
      }
    }
    // A large kernel's code goes to code_blobs, once whatever the number of jobs that run it.
    KBENCH_ASSIGN_OR_RETURN(const internal::CodeBlobs::KeptSpec kept,
                            code_->KeepJobCode(record.spec, record.owner, record.create_time_ns));
    {
      Statement& insert = *insert_job_;
      ScopedReset reset(&insert);
      KBENCH_RETURN_IF_ERROR(insert.BindText(1, record.id));
      KBENCH_RETURN_IF_ERROR(insert.BindText(2, record.device));
      KBENCH_RETURN_IF_ERROR(insert.BindText(3, record.kernel));
      KBENCH_RETURN_IF_ERROR(insert.BindText(4, JobKindName(record.kind)));
      KBENCH_RETURN_IF_ERROR(insert.BindInt64(5, record.priority));
      KBENCH_RETURN_IF_ERROR(insert.BindTextOrNull(6, record.idempotency_key));
      KBENCH_RETURN_IF_ERROR(insert.BindInt64(7, record.create_time_ns));
      KBENCH_RETURN_IF_ERROR(insert.BindBlob(8, kept.spec));
      KBENCH_RETURN_IF_ERROR(insert.BindBlob(9, ""));
      KBENCH_RETURN_IF_ERROR(insert.BindText(10, record.owner));
      KBENCH_RETURN_IF_ERROR(insert.BindInt64(11, static_cast<int64_t>(kept.spec.size())));
      absl::StatusOr<bool> inserted = insert.Step();
      if (internal::SqlFailureOf(inserted.status()) == internal::SqlFailure::kUniqueViolation) {
        // The idempotency key was checked above under the write lock, so this is the id.
        return absl::AlreadyExistsError(absl::StrCat("job id '", record.id, "' already exists"));
      }
      KBENCH_RETURN_IF_ERROR(inserted.status());
      if (!*inserted) return absl::InternalError("insert job: RETURNING gave no row");
      record.seq = insert.ColumnInt64(0);
    }
    KBENCH_RETURN_IF_ERROR(code_->ReferJob(record.id, record.owner, kept.sha256s));
    KBENCH_RETURN_IF_ERROR(transaction->Commit());
    record.start_time_ns = 0;
    record.finish_time_ns = 0;
    record.attempts = 0;
    record.error.clear();
    record.code = absl::StatusCode::kOk;
    record.result.clear();
    return std::make_pair(std::move(record), true);
  }

  absl::StatusOr<JobRecord> Get(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    return GetLocked(id);
  }

  absl::Status MarkRunning(const std::string& id, int64_t start_time_ns) override {
    absl::MutexLock lock(&mu_);
    Statement& update = *mark_running_;
    ScopedReset reset(&update);
    KBENCH_RETURN_IF_ERROR(update.BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update.BindInt64(2, start_time_ns));
    KBENCH_RETURN_IF_ERROR(update.BindText(3, node_));
    KBENCH_RETURN_IF_ERROR(RunUnsynced(update));
    if (db_->Changes() == 1) return absl::OkStatus();
    KBENCH_ASSIGN_OR_RETURN(JobRecord job, GetLocked(id));
    if (job.state == JobState::kQueued && !node_.empty() && job.node == node_) {
      // Claimed by this node, but its lease lapsed (heartbeats failing): a node that cannot
      // renew starts nothing, since another may reap the claim and run the job meanwhile.
      return absl::UnavailableError(absl::StrCat(
          "node ", node_, "'s lease on job ", id,
          " lapsed (its heartbeats failed); the job starts once a heartbeat renews it"));
    }
    return TransitionRefused(id, "mark it running (only a queued job can start)");
  }

  absl::Status Requeue(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    Statement& update = *requeue_;
    ScopedReset reset(&update);
    KBENCH_RETURN_IF_ERROR(update.BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update.BindText(2, node_));
    KBENCH_RETURN_IF_ERROR(update.Run());
    if (db_->Changes() == 1) return absl::OkStatus();
    return TransitionRefused(id, "requeue it (only a queued or running job can be requeued)");
  }

  absl::Status Finish(const std::string& id, JobState state, absl::StatusCode code,
                      const std::string& error, const std::string& result,
                      int64_t finish_time_ns) override {
    if (!IsTerminal(state)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot finish job ", id, " as ", JobStateName(state), ": not a terminal state"));
    }
    absl::MutexLock lock(&mu_);
    Statement& update = *finish_;
    ScopedReset reset(&update);
    KBENCH_RETURN_IF_ERROR(update.BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update.BindText(2, JobStateName(state)));
    KBENCH_RETURN_IF_ERROR(update.BindInt64(3, static_cast<int64_t>(code)));
    KBENCH_RETURN_IF_ERROR(update.BindText(4, error));
    KBENCH_RETURN_IF_ERROR(update.BindBlob(5, result));
    KBENCH_RETURN_IF_ERROR(update.BindInt64(6, finish_time_ns));
    KBENCH_RETURN_IF_ERROR(update.BindText(7, node_));
    KBENCH_RETURN_IF_ERROR(update.Run());
    if (db_->Changes() == 1) return absl::OkStatus();
    return TransitionRefused(
        id, absl::StrCat("finish it as ", JobStateName(state), " (it already finished)"));
  }

  absl::StatusOr<std::vector<JobRecord>> List(const JobFilter& filter) override {
    if (filter.limit < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("limit must be at least 1, got ", filter.limit));
    }
    if (filter.before_seq < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("before_seq must not be negative, got ", filter.before_seq));
    }
    // One statement per filter shape, so each can use its index; at most 64 shapes.
    std::string sql = absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE TRUE");
    int parameters = 0;  // ?N in order of appearance
    auto condition = [&sql, &parameters](absl::string_view column, absl::string_view op) {
      absl::StrAppend(&sql, " AND ", column, " ", op, " ?", ++parameters);
    };
    if (filter.state.has_value()) condition("state", "=");
    if (!filter.kernel.empty()) condition("kernel", "=");
    if (!filter.device.empty()) condition("device", "=");
    if (!filter.node.empty()) condition("node", "=");
    if (!filter.target.empty()) condition("target", "=");
    if (filter.before_seq > 0) condition("seq", "<");
    absl::StrAppend(&sql, " ORDER BY seq DESC LIMIT ?", ++parameters);

    absl::MutexLock lock(&mu_);
    std::unique_ptr<Statement>& cached = list_statements_[sql];
    if (cached == nullptr) {
      KBENCH_ASSIGN_OR_RETURN(cached, db_->Prepare(sql, "list jobs"));
    }
    Statement& query = *cached;
    ScopedReset reset(&query);
    int index = 1;
    if (filter.state.has_value()) {
      KBENCH_RETURN_IF_ERROR(query.BindText(index++, JobStateName(*filter.state)));
    }
    if (!filter.kernel.empty()) KBENCH_RETURN_IF_ERROR(query.BindText(index++, filter.kernel));
    if (!filter.device.empty()) KBENCH_RETURN_IF_ERROR(query.BindText(index++, filter.device));
    if (!filter.node.empty()) KBENCH_RETURN_IF_ERROR(query.BindText(index++, filter.node));
    if (!filter.target.empty()) KBENCH_RETURN_IF_ERROR(query.BindText(index++, filter.target));
    if (filter.before_seq > 0) {
      KBENCH_RETURN_IF_ERROR(query.BindInt64(index++, filter.before_seq));
    }
    KBENCH_RETURN_IF_ERROR(query.BindInt64(index++, filter.limit));
    return ReadJobs(query);
  }

  absl::StatusOr<std::vector<JobRecord>> ListByState(JobState state) override {
    absl::MutexLock lock(&mu_);
    Statement& query = *list_by_state_;
    ScopedReset reset(&query);
    KBENCH_RETURN_IF_ERROR(query.BindText(1, JobStateName(state)));
    return ReadJobs(query);
  }

  absl::Status AddArtifact(const ArtifactRecord& artifact) override {
    if (artifact.job_id.empty() || artifact.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("artifact job_id '", artifact.job_id,
                                                     "' and name '", artifact.name,
                                                     "' must not be empty"));
    }
    if (artifact.size_bytes < 0) {
      return absl::InvalidArgumentError(absl::StrCat("artifact ", artifact.name, " size_bytes ",
                                                     artifact.size_bytes, " is negative"));
    }
    absl::MutexLock lock(&mu_);
    Statement& insert = *add_artifact_;
    ScopedReset reset(&insert);
    KBENCH_RETURN_IF_ERROR(insert.BindText(1, artifact.job_id));
    KBENCH_RETURN_IF_ERROR(insert.BindText(2, artifact.name));
    KBENCH_RETURN_IF_ERROR(insert.BindText(3, artifact.relative_path));
    KBENCH_RETURN_IF_ERROR(insert.BindText(4, artifact.content_type));
    KBENCH_RETURN_IF_ERROR(insert.BindInt64(5, artifact.size_bytes));
    KBENCH_RETURN_IF_ERROR(insert.BindText(6, artifact.sha256));
    KBENCH_RETURN_IF_ERROR(insert.BindInt64(7, artifact.create_time_ns));
    absl::Status inserted = RunUnsynced(insert);
    if (internal::SqlFailureOf(inserted) == internal::SqlFailure::kForeignKeyViolation) {
      return JobNotFound(artifact.job_id);
    }
    return inserted;
  }

  absl::StatusOr<std::vector<ArtifactRecord>> Artifacts(const std::string& job_id) override {
    absl::MutexLock lock(&mu_);
    std::vector<ArtifactRecord> artifacts;
    {
      Statement& query = *job_artifacts_;
      ScopedReset reset(&query);
      KBENCH_RETURN_IF_ERROR(query.BindText(1, job_id));
      KBENCH_ASSIGN_OR_RETURN(artifacts, ReadArtifacts(query));
    }
    if (artifacts.empty()) {
      // Tell "no artifacts yet" from "no such job".
      KBENCH_RETURN_IF_ERROR(GetLocked(job_id).status());
    }
    return artifacts;
  }

  absl::StatusOr<ArtifactRecord> GetArtifact(const std::string& job_id,
                                             const std::string& name) override {
    absl::MutexLock lock(&mu_);
    Statement& query = *get_artifact_;
    ScopedReset reset(&query);
    KBENCH_RETURN_IF_ERROR(query.BindText(1, job_id));
    KBENCH_RETURN_IF_ERROR(query.BindText(2, name));
    KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return ArtifactNotFound(job_id, name);
    return ReadArtifact(query);
  }

  absl::Status DeleteArtifact(const std::string& job_id, const std::string& name) override {
    absl::MutexLock lock(&mu_);
    Statement& update = *delete_artifact_;
    ScopedReset reset(&update);
    KBENCH_RETURN_IF_ERROR(update.BindText(1, job_id));
    KBENCH_RETURN_IF_ERROR(update.BindText(2, name));
    KBENCH_RETURN_IF_ERROR(update.Run());
    if (db_->Changes() == 0) return ArtifactNotFound(job_id, name);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<ArtifactRecord>> AllArtifacts() override {
    absl::MutexLock lock(&mu_);
    Statement& query = *all_artifacts_;
    ScopedReset reset(&query);
    return ReadArtifacts(query);
  }

  absl::StatusOr<int64_t> PruneFinishedBefore(int64_t cutoff_ns,
                                              std::vector<ArtifactRecord>* removed) override {
    // A sweep's points stay as long as their sweep does (sweep_points references them; the
    // sweep's table and report are its own store's to prune). History outlives the pruning.
    static constexpr char kOldJobs[] =
        "SELECT id FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') "
        "AND finish_time_ns < ?1 AND id NOT IN (SELECT job_id FROM sweep_points)";
    absl::MutexLock lock(&mu_);
    return DeleteJobsLocked(
        kOldJobs, [cutoff_ns](Statement& s) { return s.BindInt64(1, cutoff_ns); },
        /*with_history=*/false, removed);
  }

  absl::Status DeleteFinished(const std::string& id,
                              std::vector<ArtifactRecord>* removed) override {
    static constexpr char kThisJob[] =
        "SELECT id FROM jobs WHERE id = ?1 AND state IN ('succeeded', 'failed', 'cancelled') "
        "AND id NOT IN (SELECT job_id FROM sweep_points)";
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(const int64_t deleted,
                            DeleteJobsLocked(
                                kThisJob, [&id](Statement& s) { return s.BindText(1, id); },
                                /*with_history=*/true, removed));
    if (deleted == 1) return absl::OkStatus();
    KBENCH_ASSIGN_OR_RETURN(const JobRecord job, GetLocked(id));
    if (!IsTerminal(job.state)) {
      return absl::FailedPreconditionError(
          absl::StrCat("job ", id, " is ", JobStateName(job.state),
                       "; cancel it, then delete it once it ended"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", id, " is a point of a sweep, which keeps it as long as the sweep is kept"));
  }

  absl::StatusOr<int64_t> DeleteSweep(const std::string& sweep_id,
                                      std::vector<ArtifactRecord>* removed,
                                      std::vector<ArtifactRecord>* report) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(const std::vector<std::string> job_ids,
                            internal::DeletableSweepJobs(db_.get(), sweep_id));
    // The points' ids, listed: the sweep's rows that name them go before the jobs themselves.
    std::string ids = "SELECT id FROM jobs WHERE id IN (''";
    for (size_t i = 0; i < job_ids.size(); ++i) absl::StrAppend(&ids, ", ?", i + 1);
    absl::StrAppend(&ids, ")");
    auto bind = [&job_ids](Statement& s) -> absl::Status {
      for (size_t i = 0; i < job_ids.size(); ++i) {
        KBENCH_RETURN_IF_ERROR(s.BindText(static_cast<int>(i + 1), job_ids[i]));
      }
      return absl::OkStatus();
    };
    auto drop_sweep = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return internal::DropSweepRows(db_.get(), sweep_id, report);
    };
    return DeleteJobsLocked(ids, bind, /*with_history=*/true, removed, drop_sweep);
  }

  absl::StatusOr<std::vector<ArtifactRecord>> OldestArtifacts(int32_t limit) override {
    absl::MutexLock lock(&mu_);
    Statement& query = *oldest_artifacts_;
    ScopedReset reset(&query);
    KBENCH_RETURN_IF_ERROR(query.BindInt64(1, limit));
    return ReadArtifacts(query);
  }

  absl::StatusOr<int64_t> ArtifactBytes() override {
    absl::MutexLock lock(&mu_);
    Statement& query = *artifact_bytes_;
    ScopedReset reset(&query);
    KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return absl::InternalError("sum artifact sizes: no row");
    return query.ColumnInt64(0);
  }

  absl::Status IndexResults(const std::vector<IndexedResult>& rows) override {
    absl::MutexLock lock(&mu_);
    return results_->Index(rows);
  }

  absl::StatusOr<std::vector<IndexedResult>> History(const HistoryFilter& filter) override {
    absl::MutexLock lock(&mu_);
    return results_->History(filter);
  }

  absl::StatusOr<std::vector<IndexedResult>> LeaderboardRows(
      const LeaderboardFilter& filter) override {
    absl::MutexLock lock(&mu_);
    return results_->LeaderboardRows(filter);
  }

  absl::StatusOr<int> SchemaVersion() override {
    absl::MutexLock lock(&mu_);
    Statement& query = *schema_version_;
    ScopedReset reset(&query);
    KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return absl::InternalError("read schema version: no row");
    return static_cast<int>(query.ColumnInt64(0));
  }

 private:
  static absl::Status ArtifactNotFound(const std::string& job_id, const std::string& name) {
    return absl::NotFoundError(
        absl::StrCat("artifact '", name, "' of job '", job_id, "' not found"));
  }

  // Runs a write committed without an fsync of its own (SQLite: synchronous=NORMAL; PostgreSQL:
  // synchronous_commit=off) for this one statement: it survives a crash of kbenchd at once and
  // power loss once the next durable commit syncs the log, which holds every earlier write in
  // order. For the writes nothing is promised on: RUNNING (a power loss re-queues the job, as a
  // crash would) and an artifact's record (published with the terminal state, whose commit
  // syncs it). Saves two of a tiny job's three fsyncs (docs/benchmarks.md, "Per-job overhead").
  absl::Status RunUnsynced(Statement& write) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_RETURN_IF_ERROR(db_->SetDurableCommits(false));
    absl::Status status = write.Run();
    absl::Status restored = db_->SetDurableCommits(true);
    KBENCH_RETURN_IF_ERROR(status);
    return restored;
  }

  // Runs a one-parameter, at-most-one-row job query.
  absl::StatusOr<std::optional<JobRecord>> FindOne(Statement& query, const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ScopedReset reset(&query);
    KBENCH_RETURN_IF_ERROR(query.BindText(1, key));
    return ReadOne(query);
  }

  // The owner's job submitted with idempotency key `key`: keys are unique per owner.
  absl::StatusOr<std::optional<JobRecord>> FindByKey(const std::string& owner,
                                                     const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ScopedReset reset(get_job_by_key_.get());
    KBENCH_RETURN_IF_ERROR(get_job_by_key_->BindText(1, owner));
    KBENCH_RETURN_IF_ERROR(get_job_by_key_->BindText(2, key));
    return ReadOne(*get_job_by_key_);
  }

  // The bound query's row, if it has one.
  absl::StatusOr<std::optional<JobRecord>> ReadOne(Statement& query)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return std::optional<JobRecord>();
    KBENCH_ASSIGN_OR_RETURN(JobRecord job, ReadJob(query));
    KBENCH_RETURN_IF_ERROR(code_->FillJobCode(&job.spec));
    return std::optional<JobRecord>(std::move(job));
  }

  // Deletes the jobs `ids` selects (a SELECT of ids whose parameters `bind` sets) with their
  // artifact records and transitions, and their history rows `with_history`, in one
  // transaction. Appends the deleted artifact records to `removed` (may be null), whose files
  // the caller removes. Returns the number of jobs deleted.
  // `before_jobs` (may be null) runs in the same transaction just before the jobs go: a sweep's
  // rows that name them.
  absl::StatusOr<int64_t> DeleteJobsLocked(absl::string_view ids,
                                           const std::function<absl::Status(Statement&)>& bind,
                                           bool with_history, std::vector<ArtifactRecord>* removed,
                                           const std::function<absl::Status()>& before_jobs = {})
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(db_.get(), "delete jobs"));
    if (removed != nullptr) {
      KBENCH_ASSIGN_OR_RETURN(
          std::unique_ptr<Statement> artifacts,
          db_->Prepare(absl::StrCat("SELECT ", kArtifactColumns,
                                    " FROM artifacts WHERE job_id IN (", ids, ")"),
                       "list artifacts of deleted jobs"));
      KBENCH_RETURN_IF_ERROR(bind(*artifacts));
      KBENCH_ASSIGN_OR_RETURN(std::vector<ArtifactRecord> found, ReadArtifacts(*artifacts));
      removed->insert(removed->end(), found.begin(), found.end());
    }
    // Rows that name the jobs first, the jobs last: their ids select the rest.
    std::vector<std::string> tables = {"artifacts", "job_transitions", "job_code_refs"};
    if (with_history) tables.push_back("result_index");
    for (const std::string& table : tables) {
      KBENCH_ASSIGN_OR_RETURN(
          std::unique_ptr<Statement> drop,
          db_->Prepare(absl::StrCat("DELETE FROM ", table, " WHERE job_id IN (", ids, ")"),
                       absl::StrCat("delete ", table, " of deleted jobs")));
      KBENCH_RETURN_IF_ERROR(bind(*drop));
      KBENCH_RETURN_IF_ERROR(drop->Run());
    }
    if (before_jobs) KBENCH_RETURN_IF_ERROR(before_jobs());
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> drop_jobs,
        db_->Prepare(absl::StrCat("DELETE FROM jobs WHERE id IN (", ids, ")"), "delete jobs"));
    KBENCH_RETURN_IF_ERROR(bind(*drop_jobs));
    KBENCH_RETURN_IF_ERROR(drop_jobs->Run());
    const int64_t deleted = db_->Changes();
    drop_jobs.reset();
    // The code only these jobs ran goes with them.
    KBENCH_RETURN_IF_ERROR(code_->FreeUnreferenced());
    KBENCH_RETURN_IF_ERROR(transaction->Commit());
    return deleted;
  }

  absl::StatusOr<JobRecord> GetLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(std::optional<JobRecord> job, FindOne(*get_job_, id));
    if (!job.has_value()) return JobNotFound(id);
    return *std::move(job);
  }

  // Explains why a conditional UPDATE changed nothing: the job is missing or in the wrong state.
  absl::Status TransitionRefused(const std::string& id, const std::string& what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(JobRecord job, GetLocked(id));
    if (job.node != node_ && !job.node.empty() && !IsTerminal(job.state)) {
      return absl::FailedPreconditionError(absl::StrCat("job ", id, " is ", JobStateName(job.state),
                                                        " on node ", job.node, "; cannot ", what,
                                                        " from node ", node_));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("job ", id, " is ", JobStateName(job.state), "; cannot ", what));
  }

  // Every row of `query`, each spec with its kernels' code filled in (after the last row:
  // one statement at a time).
  absl::StatusOr<std::vector<JobRecord>> ReadJobs(Statement& query)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<JobRecord> jobs;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      KBENCH_ASSIGN_OR_RETURN(JobRecord job, ReadJob(query));
      jobs.push_back(std::move(job));
    }
    for (JobRecord& job : jobs) KBENCH_RETURN_IF_ERROR(code_->FillJobCode(&job.spec));
    return jobs;
  }

  static absl::StatusOr<std::vector<ArtifactRecord>> ReadArtifacts(Statement& query) {
    std::vector<ArtifactRecord> artifacts;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return artifacts;
      artifacts.push_back(ReadArtifact(query));
    }
  }

  // The node on whose behalf transitions are made ("" on a single host).
  const std::string node_;
  absl::Mutex mu_;
  // Declared first so it is destroyed last, after the statements on it.
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> get_job_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> get_job_by_key_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> insert_job_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> mark_running_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> requeue_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> finish_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> list_by_state_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> add_artifact_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> job_artifacts_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> get_artifact_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> delete_artifact_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> all_artifacts_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> oldest_artifacts_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> artifact_bytes_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> schema_version_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<internal::ResultIndexQueries> results_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<internal::CodeBlobs> code_ ABSL_GUARDED_BY(mu_);
  // Keyed by SQL text: one prepared statement per List filter shape.
  std::map<std::string, std::unique_ptr<Statement>> list_statements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(const std::string& data_dir) {
  return Open(StoreLocation{.data_dir = data_dir, .postgres_url = "", .node = ""});
}

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(const StoreLocation& location) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_RETURN_IF_ERROR(
      internal::Migrate(db.get(), kSchemaVersion, absl::GetCurrentTimeNanos()).status());
  auto store = std::make_unique<SqlJobStore>(std::move(db), location.node);
  KBENCH_RETURN_IF_ERROR(store->Prepare());
  return std::unique_ptr<JobStore>(std::move(store));
}

}  // namespace kbench::store
