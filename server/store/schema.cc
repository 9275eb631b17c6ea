// Applying schema migrations, whichever engine: the DDL of each version is in schema_sqlite.cc
// and schema_postgres.cc.
#include "server/store/schema.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace kbench::store::internal {
namespace {

std::vector<std::string_view> MigrationsFor(Dialect dialect) {
  return dialect == Dialect::kPostgres ? PostgresMigrations() : SqliteMigrations();
}

// One row per applied migration: the table doubles as the database's upgrade history.
std::string SchemaVersionTable(Dialect dialect) {
  const char* integer = dialect == Dialect::kPostgres ? "BIGINT" : "INTEGER";
  return absl::StrCat("CREATE TABLE IF NOT EXISTS schema_version (version ", integer,
                      " PRIMARY KEY, applied_time_ns ", integer, " NOT NULL)");
}

}  // namespace

absl::StatusOr<bool> TableExists(Database* db, const std::string& table) {
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db->Prepare(db->dialect() == Dialect::kPostgres
                      ? "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() "
                        "AND tablename = ?1"
                      : "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                  "find a table"));
  KBENCH_RETURN_IF_ERROR(query->BindText(1, table));
  KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
  return row && query->ColumnInt64(0) > 0;
}

absl::StatusOr<int> CurrentSchemaVersion(Database* db) {
  KBENCH_ASSIGN_OR_RETURN(bool versioned, TableExists(db, "schema_version"));
  if (!versioned) return 0;
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db->Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version", "read schema version"));
  KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
  if (!row) return absl::InternalError("read schema version: no row");
  int version = static_cast<int>(query->ColumnInt64(0));
  KBENCH_RETURN_IF_ERROR(query->Run());
  return version;
}

absl::StatusOr<int> Migrate(Database* db, int target_version, int64_t now_ns) {
  const std::vector<std::string_view> migrations = MigrationsFor(db->dialect());
  const int latest = static_cast<int>(migrations.size());
  if (target_version < 1 || target_version > latest) {
    return absl::InternalError(absl::StrCat("schema version ", target_version,
                                            " has no migration (latest is ", latest, ")"));
  }
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                          Transaction::Begin(db, "migrate schema"));
  KBENCH_RETURN_IF_ERROR(db->Exec(SchemaVersionTable(db->dialect()), "create schema_version"));
  KBENCH_ASSIGN_OR_RETURN(int current, CurrentSchemaVersion(db));
  if (current > target_version) {
    return absl::FailedPreconditionError(absl::StrCat(
        "database ", db->path(), " has schema version ", current, ", newer than this kbenchd's ",
        target_version, "; run a newer kbenchd or point --data-dir elsewhere"));
  }
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> record,
      db->Prepare("INSERT INTO schema_version (version, applied_time_ns) VALUES (?1, ?2)",
                  "record schema version"));
  for (int version = current + 1; version <= target_version; ++version) {
    KBENCH_RETURN_IF_ERROR(
        db->Exec(std::string(migrations[version - 1]), absl::StrCat("apply migration ", version)));
    KBENCH_RETURN_IF_ERROR(record->BindInt64(1, version));
    KBENCH_RETURN_IF_ERROR(record->BindInt64(2, now_ns));
    KBENCH_RETURN_IF_ERROR(record->Run());
    record->Reset();
  }
  record.reset();
  KBENCH_RETURN_IF_ERROR(transaction->Commit());
  return target_version;
}

}  // namespace kbench::store::internal
