// The fleet's queries. PostgreSQL only: claims rely on FOR UPDATE SKIP LOCKED.
#include "server/store/fleet_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/common/fair_share_policy.h"
#include "server/store/job_rows.h"
#include "server/store/schema.h"

namespace kbench::store {
namespace {

using internal::Database;
using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

// The fleet's tables arrived in migration 5, the progress it shares in migration 8.
constexpr int kFleetSchemaVersion = 8;

// kJobColumns qualified by the jobs table, for statements that join it with something else.
std::string QualifiedJobColumns() {
  std::vector<std::string> columns;
  for (absl::string_view c : absl::StrSplit(internal::kJobColumns, ", ")) {
    columns.push_back(absl::StrCat("jobs.", c));
  }
  return absl::StrJoin(columns, ", ");
}

}  // namespace

absl::StatusOr<std::unique_ptr<FleetStore>> FleetStore::Open(const StoreLocation& location) {
  if (!location.is_postgres()) {
    return absl::FailedPreconditionError(
        "a fleet needs a PostgreSQL store (--store postgres://...); SQLite serves one host");
  }
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_ASSIGN_OR_RETURN(int version, internal::CurrentSchemaVersion(db.get()));
  if (version < kFleetSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(db->path(), " has schema version ", version,
                                                      "; the fleet needs ", kFleetSchemaVersion,
                                                      " (open it with JobStore::Open first)"));
  }
  return std::unique_ptr<FleetStore>(new FleetStore(std::move(db)));
}

absl::Status FleetStore::RegisterNode(const NodeRecord& node) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> upsert,
      db_->Prepare("INSERT INTO nodes (name, address, version, start_time_ns, heartbeat_ns, "
                   "devices) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (name) DO UPDATE SET "
                   "address = excluded.address, version = excluded.version, "
                   "start_time_ns = excluded.start_time_ns, heartbeat_ns = excluded.heartbeat_ns, "
                   "devices = excluded.devices",
                   "register node"));
  KBENCH_RETURN_IF_ERROR(upsert->BindText(1, node.name));
  KBENCH_RETURN_IF_ERROR(upsert->BindText(2, node.address));
  KBENCH_RETURN_IF_ERROR(upsert->BindText(3, node.version));
  KBENCH_RETURN_IF_ERROR(upsert->BindInt64(4, node.start_time_ns));
  KBENCH_RETURN_IF_ERROR(upsert->BindInt64(5, node.heartbeat_ns));
  KBENCH_RETURN_IF_ERROR(upsert->BindBlob(6, node.devices));
  return upsert->Run();
}

absl::Status FleetStore::Heartbeat(const std::string& node, int64_t now_ns,
                                   const std::string& devices, int64_t lease_until_ns) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> beat,
      db_->Prepare("UPDATE nodes SET heartbeat_ns = ?2, devices = ?3 WHERE name = ?1",
                   "heartbeat"));
  KBENCH_RETURN_IF_ERROR(beat->BindText(1, node));
  KBENCH_RETURN_IF_ERROR(beat->BindInt64(2, now_ns));
  KBENCH_RETURN_IF_ERROR(beat->BindBlob(3, devices));
  KBENCH_RETURN_IF_ERROR(beat->Run());
  if (db_->Changes() != 1) {
    return absl::NotFoundError(absl::StrCat("node ", node, " is not registered"));
  }
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> renew,
                          db_->Prepare("UPDATE jobs SET lease_expires_ns = ?2 "
                                       "WHERE node = ?1 AND state IN ('queued', 'running')",
                                       "renew leases"));
  KBENCH_RETURN_IF_ERROR(renew->BindText(1, node));
  KBENCH_RETURN_IF_ERROR(renew->BindInt64(2, lease_until_ns));
  return renew->Run();
}

absl::Status FleetStore::SetNodeAddress(const std::string& node, const std::string& address) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> update,
      db_->Prepare("UPDATE nodes SET address = ?2 WHERE name = ?1", "record a node's address"));
  KBENCH_RETURN_IF_ERROR(update->BindText(1, node));
  KBENCH_RETURN_IF_ERROR(update->BindText(2, address));
  return update->Run();
}

absl::StatusOr<std::vector<NodeRecord>> FleetStore::Nodes() {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db_->Prepare("SELECT n.name, n.address, n.version, n.start_time_ns, n.heartbeat_ns, "
                   "n.devices, (SELECT COUNT(*) FROM jobs j WHERE j.node = n.name "
                   "AND j.state IN ('queued', 'running')) FROM nodes n ORDER BY n.name",
                   "list nodes"));
  std::vector<NodeRecord> nodes;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) return nodes;
    NodeRecord n;
    n.name = query->ColumnText(0);
    n.address = query->ColumnText(1);
    n.version = query->ColumnText(2);
    n.start_time_ns = query->ColumnInt64(3);
    n.heartbeat_ns = query->ColumnInt64(4);
    n.devices = query->ColumnBlob(5);
    n.claimed_jobs = static_cast<int32_t>(query->ColumnInt64(6));
    nodes.push_back(std::move(n));
  }
}

absl::StatusOr<std::optional<JobRecord>> FleetStore::Claim(const std::string& node,
                                                           const ClaimableDevice& device,
                                                           int64_t now_ns, int64_t lease_until_ns,
                                                           absl::Duration half_life) {
  if (device.targets.empty()) return std::optional<JobRecord>();
  std::vector<std::string> placeholders;
  for (size_t i = 0; i < device.targets.size(); ++i)
    placeholders.push_back(absl::StrCat("?", 6 + i));
  // Usage as the single host's fair share counts it (scheduler/fair_share.cc): GPU seconds
  // halved every half-life, plus the time of runs in progress, now fleet-wide; the candidates in
  // the order of the same policy (common/fair_share_policy.h), written as SQL so that the pick
  // and its lock stay one statement.
  const FairSharePolicy policy(half_life);
  const std::string sql = absl::StrCat(
      "WITH usage AS (SELECT owner, SUM(gpu_microseconds / 1e6 * ",
      FairSharePolicy::SqlDecayFactor("?3 - end_time_ns", "?4"),
      ") AS seconds FROM usage_charges GROUP BY owner), "
      "running AS (SELECT owner, SUM(GREATEST(0, ?3 - start_time_ns) / 1e9) AS seconds "
      "FROM jobs WHERE state = 'running' GROUP BY owner), "
      "candidate AS (SELECT j.seq FROM jobs j LEFT JOIN usage u ON u.owner = j.owner "
      "LEFT JOIN running r ON r.owner = j.owner "
      "WHERE j.state = 'queued' AND j.node = '' AND j.target IN (",
      absl::StrJoin(placeholders, ", "), ") ORDER BY ",
      FairSharePolicy::SqlOrderBy("j.priority", "COALESCE(u.seconds, 0) + COALESCE(r.seconds, 0)",
                                  "j.seq"),
      " LIMIT 1 FOR UPDATE OF j SKIP LOCKED) "
      // An earlier run's progress (a node lost while it ran) is not this run's.
      "UPDATE jobs SET node = ?1, device = ?2, lease_expires_ns = ?5, progress = '\\x' "
      "FROM candidate "
      "WHERE jobs.seq = candidate.seq RETURNING ",
      QualifiedJobColumns());
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> claim, db_->Prepare(sql, "claim a job"));
  KBENCH_RETURN_IF_ERROR(claim->BindText(1, node));
  KBENCH_RETURN_IF_ERROR(claim->BindText(2, device.device));
  KBENCH_RETURN_IF_ERROR(claim->BindInt64(3, now_ns));
  KBENCH_RETURN_IF_ERROR(claim->BindDouble(4, policy.SqlHalfLifeNs()));
  KBENCH_RETURN_IF_ERROR(claim->BindInt64(5, lease_until_ns));
  for (size_t i = 0; i < device.targets.size(); ++i) {
    KBENCH_RETURN_IF_ERROR(claim->BindText(static_cast<int>(6 + i), device.targets[i]));
  }
  KBENCH_ASSIGN_OR_RETURN(bool row, claim->Step());
  if (!row) return std::optional<JobRecord>();
  KBENCH_ASSIGN_OR_RETURN(JobRecord job, internal::ReadJob(*claim));
  return std::optional<JobRecord>(std::move(job));
}

absl::StatusOr<std::vector<ReapedJob>> FleetStore::ReapExpired(int64_t now_ns,
                                                               int32_t max_attempts) {
  return Reap("lease_expires_ns < ?1", "", now_ns, max_attempts);
}

absl::StatusOr<std::vector<ReapedJob>> FleetStore::ReleaseNode(const std::string& node,
                                                               int64_t now_ns,
                                                               int32_t max_attempts) {
  return Reap("node = ?1", node, now_ns, max_attempts);
}

absl::StatusOr<std::vector<ReapedJob>> FleetStore::Reap(const std::string& condition,
                                                        const std::string& parameter,
                                                        int64_t now_ns, int32_t max_attempts) {
  const bool parameter_is_time = parameter.empty();
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                          Transaction::Begin(db_.get(), "reap leases"));
  std::vector<ReapedJob> reaped;
  {
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> query,
        db_->Prepare(absl::StrCat("SELECT ", internal::kJobColumns,
                                  " FROM jobs WHERE state IN ('queued', 'running') "
                                  "AND node <> '' AND ",
                                  condition, " ORDER BY seq FOR UPDATE SKIP LOCKED"),
                     "find jobs to reap"));
    KBENCH_RETURN_IF_ERROR(parameter_is_time ? query->BindInt64(1, now_ns)
                                             : query->BindText(1, parameter));
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
      if (!row) break;
      KBENCH_ASSIGN_OR_RETURN(JobRecord job, internal::ReadJob(*query));
      const bool fail =
          job.state == JobState::kRunning && !FairSharePolicy::MayRetry(job.attempts, max_attempts);
      reaped.push_back(ReapedJob{std::move(job), fail});
    }
  }
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> requeue,
      db_->Prepare("UPDATE jobs SET state = 'queued', node = '', start_time_ns = 0, "
                   "lease_expires_ns = 0, device = CASE WHEN target = '' THEN device "
                   "ELSE target END WHERE id = ?1",
                   "re-queue a job of a lost node"));
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> fail,
      db_->Prepare("UPDATE jobs SET state = 'failed', status_code = ?4, error = ?2, "
                   "finish_time_ns = ?3 WHERE id = ?1",
                   "fail a job of a lost node"));
  for (const ReapedJob& r : reaped) {
    Statement& write = r.failed ? *fail : *requeue;
    ScopedReset reset(&write);
    KBENCH_RETURN_IF_ERROR(write.BindText(1, r.job.id));
    if (r.failed) {
      KBENCH_RETURN_IF_ERROR(write.BindText(
          2, absl::StrCat("node ", r.job.node, " stopped while this job was running, ",
                          r.job.attempts, " times; not retried again")));
      KBENCH_RETURN_IF_ERROR(write.BindInt64(3, now_ns));
      KBENCH_RETURN_IF_ERROR(
          write.BindInt64(4, static_cast<int64_t>(absl::StatusCode::kUnavailable)));
    }
    KBENCH_RETURN_IF_ERROR(write.Run());
  }
  KBENCH_RETURN_IF_ERROR(transaction->Commit());
  return reaped;
}

absl::StatusOr<std::vector<FleetOwnerRow>> FleetStore::OwnerRows(int64_t now_ns,
                                                                 absl::Duration half_life,
                                                                 int64_t day_start_ns) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db_->Prepare(
          absl::StrCat(
              "WITH charges AS (SELECT owner, SUM(gpu_microseconds / 1e6 * ",
              FairSharePolicy::SqlDecayFactor("?1 - end_time_ns", "?2"),
              ") AS decayed, "
              "SUM(CASE WHEN end_time_ns >= ?3 THEN gpu_microseconds ELSE 0 END) / 1e6 AS today, "
              "SUM(gpu_microseconds) / 1e6 AS total FROM usage_charges GROUP BY owner), "
              "unfinished AS (SELECT owner, COUNT(*) FILTER (WHERE state = 'queued') AS queued, "
              "COUNT(*) FILTER (WHERE state = 'running') AS running, "
              "SUM(CASE WHEN state = 'running' THEN GREATEST(0, ?1 - start_time_ns) ELSE 0 END) "
              "/ 1e9 AS in_progress FROM jobs WHERE state IN ('queued', 'running') GROUP BY owner) "
              "SELECT COALESCE(c.owner, u.owner), COALESCE(c.decayed, 0) + "
              "COALESCE(u.in_progress, 0), COALESCE(c.today, 0), COALESCE(c.total, 0), "
              "COALESCE(u.queued, 0), COALESCE(u.running, 0) "
              "FROM charges c FULL OUTER JOIN unfinished u ON u.owner = c.owner ORDER BY 1"),
          "read owners' usage"));
  KBENCH_RETURN_IF_ERROR(query->BindInt64(1, now_ns));
  KBENCH_RETURN_IF_ERROR(query->BindDouble(2, FairSharePolicy(half_life).SqlHalfLifeNs()));
  KBENCH_RETURN_IF_ERROR(query->BindInt64(3, day_start_ns));
  std::vector<FleetOwnerRow> rows;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) return rows;
    rows.push_back(FleetOwnerRow{query->ColumnText(0), query->ColumnDouble(1),
                                 query->ColumnDouble(2), query->ColumnDouble(3),
                                 static_cast<int32_t>(query->ColumnInt64(4)),
                                 static_cast<int32_t>(query->ColumnInt64(5))});
  }
}

absl::StatusOr<std::vector<UnclaimedJob>> FleetStore::Unclaimed() {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db_->Prepare("SELECT id, target FROM jobs WHERE state = 'queued' AND node = '' ORDER BY seq",
                   "list unclaimed jobs"));
  std::vector<UnclaimedJob> jobs;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) return jobs;
    jobs.push_back(UnclaimedJob{query->ColumnText(0), query->ColumnText(1)});
  }
}

absl::StatusOr<std::vector<std::string>> FleetStore::RunningOn(const std::string& node) {
  return JobIdsOf(node, "state = 'running'", "list a node's running jobs");
}

absl::Status FleetStore::ShareProgress(const std::string& node, const std::string& id,
                                       const std::string& progress) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> update,
                          db_->Prepare("UPDATE jobs SET progress = ?3 WHERE id = ?1 AND node = ?2 "
                                       "AND state = 'running'",
                                       "share a job's progress"));
  KBENCH_RETURN_IF_ERROR(update->BindText(1, id));
  KBENCH_RETURN_IF_ERROR(update->BindText(2, node));
  KBENCH_RETURN_IF_ERROR(update->BindBlob(3, progress));
  return update->Run();
}

absl::StatusOr<std::string> FleetStore::SharedProgress(const std::string& id) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db_->Prepare("SELECT progress FROM jobs WHERE id = ?1", "read a job's shared progress"));
  KBENCH_RETURN_IF_ERROR(query->BindText(1, id));
  KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("job ", id, " not found"));
  return query->ColumnBlob(0);
}

absl::StatusOr<bool> FleetStore::CancelUnclaimed(const std::string& id, int64_t now_ns,
                                                 const std::string& message) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> cancel,
      db_->Prepare("UPDATE jobs SET state = 'cancelled', status_code = ?4, error = ?3, "
                   "finish_time_ns = ?2 WHERE id = ?1 AND state = 'queued' AND node = ''",
                   "cancel an unclaimed job"));
  KBENCH_RETURN_IF_ERROR(cancel->BindText(1, id));
  KBENCH_RETURN_IF_ERROR(cancel->BindInt64(2, now_ns));
  KBENCH_RETURN_IF_ERROR(cancel->BindText(3, message));
  KBENCH_RETURN_IF_ERROR(cancel->BindInt64(4, static_cast<int64_t>(absl::StatusCode::kCancelled)));
  KBENCH_RETURN_IF_ERROR(cancel->Run());
  return db_->Changes() == 1;
}

absl::Status FleetStore::RequestCancel(const std::string& id) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> request,
                          db_->Prepare("UPDATE jobs SET cancel_requested = 1 "
                                       "WHERE id = ?1 AND state IN ('queued', 'running')",
                                       "request a cancel"));
  KBENCH_RETURN_IF_ERROR(request->BindText(1, id));
  return request->Run();
}

absl::StatusOr<std::vector<std::string>> FleetStore::CancelRequests(const std::string& node) {
  return JobIdsOf(node, "cancel_requested = 1 AND state IN ('queued', 'running')",
                  "list cancel requests");
}

absl::StatusOr<std::vector<std::string>> FleetStore::JobIdsOf(const std::string& node,
                                                              const std::string& condition,
                                                              const char* what) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> query,
                          db_->Prepare(absl::StrCat("SELECT id FROM jobs WHERE node = ?1 AND ",
                                                    condition, " ORDER BY seq"),
                                       what));
  KBENCH_RETURN_IF_ERROR(query->BindText(1, node));
  std::vector<std::string> ids;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) return ids;
    ids.push_back(query->ColumnText(0));
  }
}

}  // namespace kbench::store
