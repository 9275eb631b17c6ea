// SweepStore on SQLite: a second connection to the job store's file (WAL lets both write).
#include "server/store/sweep_store.h"

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "server/store/database.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"

namespace kbench::store {
namespace {

using internal::Database;
using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

// Sweeps arrived in migration 3; their keys became unique per owner in 10.
constexpr int kSweepsSchemaVersion = 10;
constexpr char kColumns[] =
    "id, seq, owner, state, cancel_requested, COALESCE(owner_idempotency_key, ''), "
    "create_time_ns, "
    "finish_time_ns, spec, error";

absl::StatusOr<SweepState> ParseState(const std::string& name) {
  for (SweepState s :
       {SweepState::kRunning, SweepState::kReporting, SweepState::kDone, SweepState::kCancelled}) {
    if (SweepStateName(s) == name) return s;
  }
  return absl::DataLossError(absl::StrCat("sweep state '", name, "' is unknown"));
}

class SqlSweepStore final : public SweepStore {
 public:
  explicit SqlSweepStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::StatusOr<std::pair<SweepRecord, bool>> Insert(SweepRecord record) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(db_.get(), "insert sweep"));
    if (!record.idempotency_key.empty()) {
      KBENCH_ASSIGN_OR_RETURN(std::optional<SweepRecord> existing,
                              FindByKeyLocked(record.owner, record.idempotency_key));
      if (existing) return std::make_pair(*std::move(existing), false);
    }
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> insert,
        db_->Prepare("INSERT INTO sweeps (id, owner, state, owner_idempotency_key, "
                     "create_time_ns, spec) VALUES (?1, ?2, 'running', ?3, ?4, ?5) RETURNING seq",
                     "insert sweep"));
    KBENCH_RETURN_IF_ERROR(insert->BindText(1, record.id));
    KBENCH_RETURN_IF_ERROR(insert->BindText(2, record.owner));
    KBENCH_RETURN_IF_ERROR(insert->BindTextOrNull(3, record.idempotency_key));
    KBENCH_RETURN_IF_ERROR(insert->BindInt64(4, record.create_time_ns));
    KBENCH_RETURN_IF_ERROR(insert->BindBlob(5, record.spec));
    KBENCH_ASSIGN_OR_RETURN(bool returned, insert->Step());
    if (!returned) return absl::InternalError("insert sweep: RETURNING gave no row");
    record.seq = insert->ColumnInt64(0);
    KBENCH_RETURN_IF_ERROR(insert->Run());
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> point,
        db_->Prepare("INSERT INTO sweep_points (sweep_id, idx, job_id, point) VALUES (?1, ?2, ?3, "
                     "?4)",
                     "insert sweep point"));
    for (const SweepPointRecord& p : record.points) {
      KBENCH_RETURN_IF_ERROR(point->BindText(1, record.id));
      KBENCH_RETURN_IF_ERROR(point->BindInt64(2, p.index));
      KBENCH_RETURN_IF_ERROR(point->BindText(3, p.job_id));
      KBENCH_RETURN_IF_ERROR(point->BindBlob(4, p.point));
      KBENCH_RETURN_IF_ERROR(point->Run());
      point->Reset();
    }
    point.reset();
    insert.reset();
    KBENCH_RETURN_IF_ERROR(transaction->Commit());
    record.state = SweepState::kRunning;
    return std::make_pair(std::move(record), true);
  }

  absl::StatusOr<std::optional<SweepRecord>> FindByKey(const std::string& owner,
                                                       const std::string& key) override {
    absl::MutexLock lock(&mu_);
    return FindByKeyLocked(owner, key);
  }

  absl::StatusOr<SweepRecord> Get(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SweepRecord> found,
        Select(absl::StrCat("SELECT ", kColumns, " FROM sweeps WHERE id = ?1"), {id}, "get sweep"));
    if (found.empty()) return absl::NotFoundError(absl::StrCat("sweep ", id, " not found"));
    return std::move(found.front());
  }

  absl::StatusOr<std::vector<SweepRecord>> List(int32_t limit) override {
    absl::MutexLock lock(&mu_);
    return Select(absl::StrCat("SELECT ", kColumns, " FROM sweeps ORDER BY seq DESC LIMIT ", limit),
                  {}, "list sweeps");
  }

  absl::StatusOr<std::vector<SweepRecord>> ListUnfinished() override {
    absl::MutexLock lock(&mu_);
    return Select(absl::StrCat("SELECT ", kColumns,
                               " FROM sweeps WHERE state IN ('running', 'reporting') ORDER BY seq"),
                  {}, "list unfinished sweeps");
  }

  absl::Status RequestCancel(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> update,
        db_->Prepare("UPDATE sweeps SET cancel_requested = 1 WHERE id = ?1", "cancel sweep"));
    KBENCH_RETURN_IF_ERROR(update->BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update->Run());
    if (db_->Changes() == 0) return absl::NotFoundError(absl::StrCat("sweep ", id, " not found"));
    return absl::OkStatus();
  }

  absl::Status SetState(const std::string& id, SweepState state, const std::string& error,
                        int64_t finish_time_ns) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> update,
        db_->Prepare("UPDATE sweeps SET state = ?2, error = ?3, finish_time_ns = ?4 WHERE id = ?1",
                     "set sweep state"));
    KBENCH_RETURN_IF_ERROR(update->BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update->BindText(2, SweepStateName(state)));
    KBENCH_RETURN_IF_ERROR(update->BindText(3, error));
    KBENCH_RETURN_IF_ERROR(update->BindInt64(4, finish_time_ns));
    KBENCH_RETURN_IF_ERROR(update->Run());
    if (db_->Changes() == 0) return absl::NotFoundError(absl::StrCat("sweep ", id, " not found"));
    return absl::OkStatus();
  }

  absl::StatusOr<bool> BeginReport(const std::string& id, bool resume) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> update,
                            db_->Prepare("UPDATE sweeps SET state = 'reporting' WHERE id = ?1 AND "
                                         "(state = 'running' OR (state = 'reporting' AND ?2 = 1))",
                                         "begin a sweep's report"));
    KBENCH_RETURN_IF_ERROR(update->BindText(1, id));
    KBENCH_RETURN_IF_ERROR(update->BindInt64(2, resume ? 1 : 0));
    KBENCH_RETURN_IF_ERROR(update->Run());
    return db_->Changes() == 1;
  }

  absl::Status AddArtifact(const ArtifactRecord& a) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> insert,
        db_->Prepare(
            "INSERT INTO sweep_artifacts (sweep_id, name, relative_path, "
            "content_type, size_bytes, sha256, create_time_ns) VALUES (?1, ?2, ?3, ?4, "
            "?5, ?6, ?7) ON CONFLICT (sweep_id, name) DO UPDATE SET "
            "relative_path = excluded.relative_path, content_type = excluded.content_type, "
            "size_bytes = excluded.size_bytes, sha256 = excluded.sha256, "
            "create_time_ns = excluded.create_time_ns",
            "add sweep artifact"));
    KBENCH_RETURN_IF_ERROR(insert->BindText(1, a.job_id));
    KBENCH_RETURN_IF_ERROR(insert->BindText(2, a.name));
    KBENCH_RETURN_IF_ERROR(insert->BindText(3, a.relative_path));
    KBENCH_RETURN_IF_ERROR(insert->BindText(4, a.content_type));
    KBENCH_RETURN_IF_ERROR(insert->BindInt64(5, a.size_bytes));
    KBENCH_RETURN_IF_ERROR(insert->BindText(6, a.sha256));
    KBENCH_RETURN_IF_ERROR(insert->BindInt64(7, a.create_time_ns));
    return insert->Run();
  }

  absl::StatusOr<std::vector<ArtifactRecord>> Artifacts(const std::string& sweep_id) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> query,
        db_->Prepare("SELECT sweep_id, name, relative_path, content_type, size_bytes, sha256, "
                     "create_time_ns FROM sweep_artifacts WHERE sweep_id = ?1 ORDER BY name",
                     "list sweep artifacts"));
    KBENCH_RETURN_IF_ERROR(query->BindText(1, sweep_id));
    std::vector<ArtifactRecord> out;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
      if (!row) break;
      out.push_back({query->ColumnText(0), query->ColumnText(1), query->ColumnText(2),
                     query->ColumnText(3), query->ColumnInt64(4), query->ColumnText(5),
                     query->ColumnInt64(6)});
    }
    return out;
  }

 private:
  absl::StatusOr<std::optional<SweepRecord>> FindByKeyLocked(const std::string& owner,
                                                             const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SweepRecord> found,
        Select(absl::StrCat("SELECT ", kColumns,
                            " FROM sweeps WHERE owner = ?1 AND owner_idempotency_key = ?2"),
               {owner, key}, "find sweep by owner and key"));
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }

  // Runs a query over sweeps (with ?1, ?2... bound to `args`) and reads its points.
  absl::StatusOr<std::vector<SweepRecord>> Select(const std::string& sql,
                                                  const std::vector<std::string>& args,
                                                  absl::string_view operation)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> query, db_->Prepare(sql, operation));
    for (size_t i = 0; i < args.size(); ++i) {
      KBENCH_RETURN_IF_ERROR(query->BindText(static_cast<int>(i + 1), args[i]));
    }
    std::vector<SweepRecord> out;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
      if (!row) break;
      SweepRecord r;
      r.id = query->ColumnText(0);
      r.seq = query->ColumnInt64(1);
      r.owner = query->ColumnText(2);
      KBENCH_ASSIGN_OR_RETURN(r.state, ParseState(query->ColumnText(3)));
      r.cancel_requested = query->ColumnInt64(4) != 0;
      r.idempotency_key = query->ColumnText(5);
      r.create_time_ns = query->ColumnInt64(6);
      r.finish_time_ns = query->ColumnInt64(7);
      r.spec = query->ColumnBlob(8);
      r.error = query->ColumnText(9);
      out.push_back(std::move(r));
    }
    query.reset();
    for (SweepRecord& r : out) KBENCH_RETURN_IF_ERROR(ReadPoints(&r));
    return out;
  }

  absl::Status ReadPoints(SweepRecord* record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> query,
        db_->Prepare("SELECT idx, job_id, point FROM sweep_points WHERE sweep_id = ?1 ORDER BY idx",
                     "read sweep points"));
    KBENCH_RETURN_IF_ERROR(query->BindText(1, record->id));
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
      if (!row) break;
      record->points.push_back({static_cast<int32_t>(query->ColumnInt64(0)), query->ColumnText(1),
                                query->ColumnBlob(2)});
    }
    return absl::OkStatus();
  }

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::string SweepStateName(SweepState state) {
  switch (state) {
    case SweepState::kRunning:
      return "running";
    case SweepState::kReporting:
      return "reporting";
    case SweepState::kDone:
      return "done";
    case SweepState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

absl::StatusOr<std::unique_ptr<SweepStore>> SweepStore::Open(const std::string& data_dir) {
  return Open(StoreLocation{.data_dir = data_dir, .postgres_url = "", .node = ""});
}

absl::StatusOr<std::unique_ptr<SweepStore>> SweepStore::Open(const StoreLocation& location) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_ASSIGN_OR_RETURN(int version, internal::CurrentSchemaVersion(db.get()));
  if (version < kSweepsSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(db->path(), " has schema version ", version,
                                                      "; sweeps need ", kSweepsSchemaVersion,
                                                      " (open it with JobStore::Open first)"));
  }
  return std::unique_ptr<SweepStore>(std::make_unique<SqlSweepStore>(std::move(db)));
}

}  // namespace kbench::store
