// The store's view of a SQL database, whichever engine serves it: SQLite (one host, the
// default) or PostgreSQL (a fleet of nodes sharing one queue). The stores (jobs, usage, sweeps,
// result index) are written once against this interface in the SQL both engines accept:
// parameters as ?1, ?2, ... (the PostgreSQL connection rewrites them to $1, $2, ...),
// INSERT ... ON CONFLICT, RETURNING. What differs lives in each engine's file: the schema's
// DDL (schema_sqlite.cc, schema_postgres.cc), how a write transaction excludes other writers,
// and how a failure is classified.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"

namespace kbench::store::internal {

enum class Dialect { kSqlite, kPostgres };

// What kind of failure a database error was, carried on the Status as a payload so callers can
// react without parsing messages.
enum class SqlFailure {
  kNone,
  kUniqueViolation,      // a UNIQUE or PRIMARY KEY constraint
  kForeignKeyViolation,  // a REFERENCES constraint
  // The storage under the database refused or lost the write (disk full, I/O error, busy or
  // locked, read-only, connection to the server lost): worth retrying later, not a bug.
  kStorage,
  kOther,
};
absl::Status WithSqlFailure(absl::Status status, SqlFailure failure);
SqlFailure SqlFailureOf(const absl::Status& status);

// One prepared statement. Not thread-safe: the owner's mutex guards it and its database.
class Statement {
 public:
  virtual ~Statement() = default;

  // Parameters are 1-based (?1 is index 1). Values are copied.
  virtual absl::Status BindInt64(int index, int64_t value) = 0;
  virtual absl::Status BindDouble(int index, double value) = 0;
  virtual absl::Status BindText(int index, const std::string& value) = 0;
  // Binds NULL for an empty string (nullable UNIQUE columns).
  virtual absl::Status BindTextOrNull(int index, const std::string& value) = 0;
  virtual absl::Status BindBlob(int index, const std::string& value) = 0;

  // One step: true when a row is ready, false when the statement is done.
  virtual absl::StatusOr<bool> Step() = 0;
  // Steps to completion, for statements that return no rows we need.
  absl::Status Run() {
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, Step());
      if (!row) return absl::OkStatus();
    }
  }

  // The current row's columns, 0-based. NULL reads as 0 or "".
  virtual int64_t ColumnInt64(int column) = 0;
  virtual double ColumnDouble(int column) = 0;
  virtual std::string ColumnText(int column) = 0;
  virtual std::string ColumnBlob(int column) = 0;

  // Ends the current execution and clears the bindings, ready for the next use.
  virtual void Reset() = 0;

  virtual const std::string& operation() const = 0;
};

// Resets a statement when leaving scope, so an early return never leaves it mid-step (which
// would hold a read transaction open: SQLite's blocks WAL checkpoints).
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
  virtual ~Database() = default;

  virtual Dialect dialect() const = 0;
  // What the database is, for messages: a file path, or PostgreSQL's host, port and name
  // (never a password).
  virtual const std::string& path() const = 0;

  // Runs SQL that returns no rows we need (DDL, several statements separated by ';').
  virtual absl::Status Exec(const std::string& sql, absl::string_view operation) = 0;
  virtual absl::StatusOr<std::unique_ptr<Statement>> Prepare(const std::string& sql,
                                                             absl::string_view operation) = 0;
  // Rows changed by the last INSERT/UPDATE/DELETE on this connection.
  virtual int64_t Changes() = 0;

  // Whether a commit waits until the write is durable (the default). Turned off around writes
  // nothing is promised on; see JobStore's RunUnsynced.
  virtual absl::Status SetDurableCommits(bool durable) = 0;

  // The primitives Transaction uses. BeginWrite excludes every other writer to the same
  // database until Commit or Rollback, on any connection of any process or host (SQLite: BEGIN
  // IMMEDIATE; PostgreSQL: a transaction-scoped advisory lock), so a read-then-write inside it
  // is atomic.
  virtual absl::Status BeginWrite(absl::string_view operation) = 0;
  // A transaction that takes no lock up front (PostgreSQL: row locks only): for long writes
  // that touch rows no one else writes, such as an artifact's chunks, which must not stall
  // every node's writers while they stream. SQLite has one writer at a time whatever is asked.
  virtual absl::Status BeginLocal(absl::string_view operation) = 0;
  virtual absl::Status Commit(absl::string_view operation) = 0;
  // Never fails loudly: it runs on paths that are already returning an error.
  virtual void Rollback() = 0;
};

// A write transaction, rolled back on destruction unless committed.
class Transaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Begin(Database* db,
                                                            absl::string_view operation);
  // A transaction without the write lock (Database::BeginLocal).
  static absl::StatusOr<std::unique_ptr<Transaction>> BeginLocal(Database* db,
                                                                 absl::string_view operation);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  absl::Status Commit();

 private:
  Transaction(Database* db, std::string operation) : db_(db), operation_(std::move(operation)) {}
  Database* db_;
  std::string operation_;
  bool done_ = false;
};

}  // namespace kbench::store::internal
