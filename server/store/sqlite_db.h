// A thin, checked wrapper over the SQLite C API for the store: one connection, prepared
// statements, transactions; every failure is an absl::Status naming the operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kbench::store::internal {

// Maps a SQLite result code to a Status: "sqlite <operation>: <message> (code N)".
// BUSY/LOCKED -> UNAVAILABLE, FULL/NOMEM -> RESOURCE_EXHAUSTED, CORRUPT/NOTADB -> DATA_LOSS,
// READONLY/PERM -> PERMISSION_DENIED, CONSTRAINT -> FAILED_PRECONDITION, else INTERNAL.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view operation);

// The extended SQLite result code a SqliteError status carries (as a payload), or 0.
int SqliteCodeOf(const absl::Status& status);

// One prepared statement, finalized on destruction. Not thread-safe: the owner's mutex guards it.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string operation);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based. Values are copied into SQLite (SQLITE_TRANSIENT).
  absl::Status BindInt64(int index, int64_t value);
  absl::Status BindDouble(int index, double value);
  absl::Status BindText(int index, const std::string& value);
  // Binds NULL for an empty string (nullable UNIQUE columns).
  absl::Status BindTextOrNull(int index, const std::string& value);
  absl::Status BindBlob(int index, const std::string& value);

  // One step: true when a row is ready, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Steps to completion, for statements that return no rows.
  absl::Status Run();

  int64_t ColumnInt64(int column);
  double ColumnDouble(int column);
  // Empty for NULL.
  std::string ColumnText(int column);
  std::string ColumnBlob(int column);

  // Resets the statement and clears its bindings, ready for the next use.
  void Reset();

  const std::string& operation() const { return operation_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string operation_;
};

// Resets a statement when leaving scope, so an early return never leaves it mid-step (which
// would hold a read transaction open and block WAL checkpoints).
class ScopedReset {
 public:
  explicit ScopedReset(Statement* statement) : statement_(statement) {}
  ~ScopedReset() { statement_->Reset(); }
  ScopedReset(const ScopedReset&) = delete;
  ScopedReset& operator=(const ScopedReset&) = delete;

 private:
  Statement* statement_;
};

// One connection. Not thread-safe: the owner's mutex guards it.
class Database {
 public:
  // Opens (creating) the file at `path` with extended result codes on.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL that returns no rows we need (DDL, PRAGMA assignments, BEGIN/COMMIT).
  absl::Status Exec(const std::string& sql, absl::string_view operation);
  // Runs a PRAGMA and returns the first column of its first row as text.
  absl::StatusOr<std::string> PragmaValue(const std::string& pragma);
  absl::StatusOr<std::unique_ptr<Statement>> Prepare(const std::string& sql,
                                                     absl::string_view operation);
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t Changes();
  int64_t LastInsertRowid();

  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back on destruction unless committed. IMMEDIATE takes the
// write lock up front, so a read-then-write (the idempotency check) is atomic even against
// another connection to the same file.
class Transaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Begin(Database* db,
                                                            absl::string_view operation);
  ~Transaction();
  absl::Status Commit();

 private:
  Transaction(Database* db, std::string operation) : db_(db), operation_(std::move(operation)) {}
  Database* db_;
  std::string operation_;
  bool done_ = false;
};

}  // namespace kbench::store::internal
