// The checked SQLite wrapper: result codes to absl::Status, statements, transactions.
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
  return status;
}

int SqliteCodeOf(const absl::Status& status) {
  auto payload = status.GetPayload(kSqliteCodePayload);
  int rc = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &rc)) return 0;
  return rc;
}

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, std::string operation)
    : db_(db), stmt_(stmt), operation_(std::move(operation)) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

absl::Status Statement::BindInt64(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  return absl::OkStatus();
}

absl::Status Statement::BindDouble(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  return absl::OkStatus();
}

absl::Status Statement::BindText(int index, const std::string& value) {
  int rc =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  return absl::OkStatus();
}

absl::Status Statement::BindTextOrNull(int index, const std::string& value) {
  if (!value.empty()) return BindText(index, value);
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  return absl::OkStatus();
}

absl::Status Statement::BindBlob(int index, const std::string& value) {
  // data() is never null, so an empty string binds a zero-length blob, not NULL.
  int rc = sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat(operation_, " bind ", index));
  return absl::OkStatus();
}

absl::StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, rc, operation_);
}

absl::Status Statement::Run() {
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

int64_t Statement::ColumnInt64(int column) { return sqlite3_column_int64(stmt_, column); }

double Statement::ColumnDouble(int column) { return sqlite3_column_double(stmt_, column); }

std::string Statement::ColumnText(int column) {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  int bytes = sqlite3_column_bytes(stmt_, column);
  return std::string(reinterpret_cast<const char*>(text), bytes);
}

std::string Statement::ColumnBlob(int column) {
  const void* blob = sqlite3_column_blob(stmt_, column);
  // A zero-length blob comes back as a null pointer.
  if (blob == nullptr) return "";
  int bytes = sqlite3_column_bytes(stmt_, column);
  return std::string(static_cast<const char*>(blob), bytes);
}

void Statement::Reset() {
  // sqlite3_reset returns the error of the last step, already reported by Step().
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  sqlite3* db = nullptr;
  // NOMUTEX: the store's own mutex serializes the connection.
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, absl::StrCat("open ", path));
    sqlite3_close_v2(db);  // a handle is returned even on failure
    return status;
  }
  rc = sqlite3_extended_result_codes(db, 1);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, "enable extended result codes");
    sqlite3_close_v2(db);
    return status;
  }
  return std::unique_ptr<Database>(new Database(db, path));
}

Database::~Database() {
  // close_v2 defers the close until every statement is finalized, whatever the destruction order.
  sqlite3_close_v2(db_);
}

absl::Status Database::Exec(const std::string& sql, absl::string_view operation) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, operation);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Database::PragmaValue(const std::string& pragma) {
  std::string operation = absl::StrCat("PRAGMA ", pragma);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> statement, Prepare(operation, operation));
  KBENCH_ASSIGN_OR_RETURN(bool row, statement->Step());
  if (!row) return absl::InternalError(absl::StrCat("sqlite ", operation, ": returned no row"));
  std::string value = statement->ColumnText(0);
  KBENCH_RETURN_IF_ERROR(statement->Run());
  return value;
}

absl::StatusOr<std::unique_ptr<Statement>> Database::Prepare(const std::string& sql,
                                                             absl::string_view operation) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size() + 1),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(db_, rc, absl::StrCat("prepare ", operation));
  }
  return std::make_unique<Statement>(db_, stmt, std::string(operation));
}

int64_t Database::Changes() { return sqlite3_changes64(db_); }

int64_t Database::LastInsertRowid() { return sqlite3_last_insert_rowid(db_); }

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::Begin(Database* db,
                                                                absl::string_view operation) {
  KBENCH_RETURN_IF_ERROR(
      db->Exec("BEGIN IMMEDIATE", absl::StrCat(operation, ": begin transaction")));
  return std::unique_ptr<Transaction>(new Transaction(db, std::string(operation)));
}

Transaction::~Transaction() {
  if (done_) return;
  // Nothing to report to: the caller is already returning the error that got us here.
  // ROLLBACK fails only when SQLite already rolled back by itself.
  sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

absl::Status Transaction::Commit() {
  done_ = true;
  absl::Status status = db_->Exec("COMMIT", absl::StrCat(operation_, ": commit"));
  if (!status.ok()) {
    // A failed COMMIT (e.g. SQLITE_BUSY) leaves the transaction open; end it.
    sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  return status;
}

}  // namespace kbench::store::internal
