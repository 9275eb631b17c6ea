// The store's Database on SQLite: result codes to absl::Status, statements, transactions.
#include "server/store/sqlite_db.h"

#include <sqlite3.h>

#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kbench::store::internal {
namespace {

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {  // primary code of an extended result code
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_CONSTRAINT:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kInternal;
  }
}

SqlFailure FailureFor(int rc) {
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return SqlFailure::kUniqueViolation;
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return SqlFailure::kForeignKeyViolation;
    default:
      break;
  }
  switch (rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_NOMEM:
    case SQLITE_READONLY:
      return SqlFailure::kStorage;
    default:
      return SqlFailure::kOther;
  }
}

// Carries the extended result code, so callers can tell a UNIQUE from a FOREIGN KEY violation
// without parsing messages.
constexpr absl::string_view kSqliteCodePayload = "type.kbench.dev/store.SqliteResultCode";

}  // namespace

absl::Status SqliteError(sqlite3* db, int rc, absl::string_view operation) {
  // sqlite3_errmsg describes the connection's latest failure, which is this one: the owner's
  // mutex serializes every call on the connection.
  std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  absl::Status status(CodeFor(rc),
                      absl::StrCat("sqlite ", operation, ": ", message, " (code ", rc, ")"));
  status.SetPayload(kSqliteCodePayload, absl::Cord(absl::StrCat(rc)));
  return WithSqlFailure(std::move(status), FailureFor(rc));
}

int SqliteCodeOf(const absl::Status& status) {
  auto payload = status.GetPayload(kSqliteCodePayload);
  int rc = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &rc)) return 0;
  return rc;
}

namespace {

// A writer waits this long for another connection's write lock before failing with UNAVAILABLE.
constexpr int kBusyTimeoutMs = 5000;

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string operation)
      : db_(db), stmt_(stmt), operation_(std::move(operation)) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }

  absl::Status BindInt64(int index, int64_t value) override {
    return Checked(sqlite3_bind_int64(stmt_, index, value), index);
  }
  absl::Status BindDouble(int index, double value) override {
    return Checked(sqlite3_bind_double(stmt_, index, value), index);
  }
  absl::Status BindText(int index, const std::string& value) override {
    return Checked(sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                       SQLITE_UTF8),
                   index);
  }
  absl::Status BindTextOrNull(int index, const std::string& value) override {
    if (!value.empty()) return BindText(index, value);
    return Checked(sqlite3_bind_null(stmt_, index), index);
  }
  absl::Status BindBlob(int index, const std::string& value) override {
    // data() is never null, so an empty string binds a zero-length blob, not NULL.
    return Checked(sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT),
                   index);
  }

  absl::StatusOr<bool> Step() override {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, rc, operation_);
  }

  int64_t ColumnInt64(int column) override { return sqlite3_column_int64(stmt_, column); }
  double ColumnDouble(int column) override { return sqlite3_column_double(stmt_, column); }
  std::string ColumnText(int column) override {
    const unsigned char* text = sqlite3_column_text(stmt_, column);
    if (text == nullptr) return "";
    int bytes = sqlite3_column_bytes(stmt_, column);
    return std::string(reinterpret_cast<const char*>(text), bytes);
  }
  std::string ColumnBlob(int column) override {
    const void* blob = sqlite3_column_blob(stmt_, column);
    // A zero-length blob comes back as a null pointer.
    if (blob == nullptr) return "";
    int bytes = sqlite3_column_bytes(stmt_, column);
    return std::string(static_cast<const char*>(blob), bytes);
  }

  void Reset() override {
    // sqlite3_reset returns the error of the last step, already reported by Step().
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  const std::string& operation() const override { return operation_; }

 private:
  absl::Status Checked(int rc, int index) {
    if (rc == SQLITE_OK) return absl::OkStatus();
    return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string operation_;
};

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  // close_v2 defers the close until every statement is finalized, whatever the destruction
  // order.
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }

  Dialect dialect() const override { return Dialect::kSqlite; }
  const std::string& path() const override { return path_; }

  absl::Status Exec(const std::string& sql, absl::string_view operation) override {
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, operation);
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Statement>> Prepare(const std::string& sql,
                                                     absl::string_view operation) override {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size() + 1),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return SqliteError(db_, rc, absl::StrCat("prepare ", operation));
    }
    return std::make_unique<SqliteStatement>(db_, stmt, std::string(operation));
  }

  int64_t Changes() override { return sqlite3_changes64(db_); }

  // synchronous=NORMAL in WAL mode: a commit survives a crash of kbenchd at once (the WAL is in
  // the OS's cache) and power loss once the next FULL commit syncs the WAL, which holds every
  // earlier frame in order. Executed, not prepared once: SQLite applies the pragma when it
  // compiles it.
  absl::Status SetDurableCommits(bool durable) override {
    return Exec(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                durable ? "restore synchronous" : "relax synchronous");
  }

  // IMMEDIATE takes the write lock up front, so a read-then-write (the idempotency check) is
  // atomic even against another connection to the same file.
  absl::Status BeginWrite(absl::string_view operation) override {
    return Exec("BEGIN IMMEDIATE", absl::StrCat(operation, ": begin transaction"));
  }
  absl::Status BeginLocal(absl::string_view operation) override { return BeginWrite(operation); }
  absl::Status Commit(absl::string_view operation) override {
    return Exec("COMMIT", absl::StrCat(operation, ": commit"));
  }
  // ROLLBACK fails only when SQLite already rolled back by itself.
  void Rollback() override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

  // A pragma's value read back as text.
  absl::StatusOr<std::string> PragmaValue(const std::string& pragma) {
    std::string operation = absl::StrCat("PRAGMA ", pragma);
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> statement, Prepare(operation, operation));
    KBENCH_ASSIGN_OR_RETURN(bool row, statement->Step());
    if (!row) return absl::InternalError(absl::StrCat("sqlite ", operation, ": returned no row"));
    std::string value = statement->ColumnText(0);
    KBENCH_RETURN_IF_ERROR(statement->Run());
    return value;
  }

  // Sets a pragma, then reads it back: SQLite ignores some settings silently (journal_mode=WAL
  // on a file system without shared memory, for one), and the store's guarantees rest on them.
  absl::Status SetPragma(const std::string& name, const std::string& value,
                         const std::string& expected) {
    KBENCH_RETURN_IF_ERROR(
        Exec(absl::StrCat("PRAGMA ", name, " = ", value), absl::StrCat("set ", name)));
    KBENCH_ASSIGN_OR_RETURN(std::string actual, PragmaValue(name));
    if (actual != expected) {
      return absl::FailedPreconditionError(absl::StrCat("sqlite PRAGMA ", name, " = ", value,
                                                        " on ", path_, " did not hold: got '",
                                                        actual, "', want '", expected, "'"));
    }
    return absl::OkStatus();
  }

 private:
  sqlite3* db_;
  std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Database>> OpenSqlite(const std::string& path) {
  sqlite3* handle = nullptr;
  // NOMUTEX: the store's own mutex serializes the connection.
  int rc =
      sqlite3_open_v2(path.c_str(), &handle,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(handle, rc, absl::StrCat("open ", path));
    sqlite3_close_v2(handle);  // a handle is returned even on failure
    return status;
  }
  auto db = std::make_unique<SqliteDatabase>(handle, path);
  rc = sqlite3_extended_result_codes(handle, 1);
  if (rc != SQLITE_OK) return SqliteError(handle, rc, "enable extended result codes");
  KBENCH_RETURN_IF_ERROR(db->SetPragma("journal_mode", "WAL", "wal"));
  KBENCH_RETURN_IF_ERROR(db->SetPragma("synchronous", "FULL", "2"));
  KBENCH_RETURN_IF_ERROR(db->SetPragma("foreign_keys", "ON", "1"));
  KBENCH_RETURN_IF_ERROR(
      db->SetPragma("busy_timeout", absl::StrCat(kBusyTimeoutMs), absl::StrCat(kBusyTimeoutMs)));
  return std::unique_ptr<Database>(std::move(db));
}

}  // namespace kbench::store::internal
