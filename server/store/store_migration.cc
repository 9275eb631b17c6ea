// Table by table, column by column: the copy knows each column's type, since the statement
// interface binds typed values.
#include "server/store/store_migration.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/artifact_bytes.h"
#include "server/store/job_store.h"

namespace kbench::store {
namespace {

using internal::Database;
using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

// I: integer, R: real, T: text, N: text that is NULL when empty (nullable UNIQUE), B: blob.
struct Column {
  const char* name;
  char type;
};
struct Table {
  const char* name;
  std::vector<Column> columns;
  const char* identity;  // the seq column, or null
};

// In foreign-key order. nodes and artifact_chunks are empty on one host; job_transitions is
// not copied (PostgreSQL's trigger logs each copied job's insert in the target).
const std::vector<Table>& Tables() {
  static const std::vector<Table> tables = {
      {"jobs",
       {{"seq", 'I'},
        {"id", 'T'},
        {"state", 'T'},
        {"device", 'T'},
        {"kernel", 'T'},
        {"kind", 'T'},
        {"priority", 'I'},
        {"idempotency_key", 'N'},
        {"create_time_ns", 'I'},
        {"start_time_ns", 'I'},
        {"finish_time_ns", 'I'},
        {"attempts", 'I'},
        {"error", 'T'},
        {"error_code", 'T'},
        {"status_code", 'I'},
        {"spec", 'B'},
        {"result", 'B'},
        {"target", 'T'},
        {"node", 'T'},
        {"owner", 'T'},
        {"lease_expires_ns", 'I'},
        {"cancel_requested", 'I'},
        {"owner_idempotency_key", 'N'},
        {"spec_bytes", 'I'}},
       "seq"},
      {"artifacts",
       {{"job_id", 'T'},
        {"name", 'T'},
        {"relative_path", 'T'},
        {"content_type", 'T'},
        {"size_bytes", 'I'},
        {"sha256", 'T'},
        {"create_time_ns", 'I'}},
       nullptr},
      {"usage_charges",
       {{"job_id", 'T'},
        {"attempt", 'I'},
        {"owner", 'T'},
        {"device", 'T'},
        {"similar_key", 'T'},
        {"succeeded", 'I'},
        {"gpu_microseconds", 'I'},
        {"end_time_ns", 'I'}},
       nullptr},
      {"sweeps",
       {{"seq", 'I'},
        {"id", 'T'},
        {"owner", 'T'},
        {"state", 'T'},
        {"cancel_requested", 'I'},
        {"idempotency_key", 'N'},
        {"create_time_ns", 'I'},
        {"finish_time_ns", 'I'},
        {"spec", 'B'},
        {"error", 'T'},
        {"owner_idempotency_key", 'N'}},
       "seq"},
      {"sweep_points", {{"sweep_id", 'T'}, {"idx", 'I'}, {"job_id", 'T'}, {"point", 'B'}}, nullptr},
      {"sweep_artifacts",
       {{"sweep_id", 'T'},
        {"name", 'T'},
        {"relative_path", 'T'},
        {"content_type", 'T'},
        {"size_bytes", 'I'},
        {"sha256", 'T'},
        {"create_time_ns", 'I'}},
       nullptr},
      {"result_index",
       {{"seq", 'I'},
        {"job_id", 'T'},
        {"variant", 'T'},
        {"module_sha256", 'T'},
        {"kernel", 'T'},
        {"shape", 'T'},
        {"dtype", 'T'},
        {"params", 'T'},
        {"mode", 'T'},
        {"device", 'T'},
        {"device_model", 'T'},
        {"driver_version", 'T'},
        {"kbench_version", 'T'},
        {"owner", 'T'},
        {"finish_time_ns", 'I'},
        {"median_seconds", 'R'},
        {"median_ci_low_seconds", 'R'},
        {"median_ci_high_seconds", 'R'},
        {"samples", 'I'},
        {"correct", 'I'},
        {"impossible", 'I'},
        {"contended", 'I'},
        {"placements", 'I'},
        {"ranked", 'I'},
        {"confirmation", 'I'},
        {"custom_stopping", 'I'},
        {"clean", 'I'},
        {"joules_per_launch", 'R'}},
       "seq"},
      {"user_variants",
       {{"operation", 'T'},
        {"name", 'T'},
        {"owner", 'T'},
        {"form", 'T'},
        {"sha256", 'T'},
        {"code_bytes", 'I'},
        {"kernel", 'B'},
        {"create_time_ns", 'I'}},
       nullptr},
      {"code_blobs",
       {{"sha256", 'T'},
        {"code", 'B'},
        {"owner", 'T'},
        {"size_bytes", 'I'},
        {"create_time_ns", 'I'}},
       nullptr},
      {"job_code_refs", {{"job_id", 'T'}, {"sha256", 'T'}, {"owner", 'T'}}, nullptr},
  };
  return tables;
}

absl::Status CopyValue(Statement& from, Statement& to, int column, char type) {
  switch (type) {
    case 'I':
      return to.BindInt64(column + 1, from.ColumnInt64(column));
    case 'R':
      return to.BindDouble(column + 1, from.ColumnDouble(column));
    case 'N':
      return to.BindTextOrNull(column + 1, from.ColumnText(column));
    case 'B':
      return to.BindBlob(column + 1, from.ColumnBlob(column));
    default:
      return to.BindText(column + 1, from.ColumnText(column));
  }
}

absl::StatusOr<int64_t> CopyTable(Database& source, Database& target, const Table& table) {
  std::vector<std::string> names;
  std::vector<std::string> marks;
  for (const Column& c : table.columns) {
    names.emplace_back(c.name);
    marks.push_back(absl::StrCat("?", marks.size() + 1));
  }
  const std::string columns = absl::StrJoin(names, ", ");
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> read,
                          source.Prepare(absl::StrCat("SELECT ", columns, " FROM ", table.name),
                                         absl::StrCat("read ", table.name)));
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> write,
      target.Prepare(absl::StrCat("INSERT INTO ", table.name, " (", columns, ") VALUES (",
                                  absl::StrJoin(marks, ", "), ")"),
                     absl::StrCat("copy ", table.name)));
  int64_t rows = 0;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, read->Step());
    if (!row) break;
    ScopedReset reset(write.get());
    for (size_t c = 0; c < table.columns.size(); ++c) {
      KBENCH_RETURN_IF_ERROR(CopyValue(*read, *write, static_cast<int>(c), table.columns[c].type));
    }
    KBENCH_RETURN_IF_ERROR(write->Run());
    ++rows;
  }
  if (table.identity != nullptr) {
    // Later inserts continue after the copied seqs instead of colliding with them.
    KBENCH_RETURN_IF_ERROR(
        target.Exec(absl::StrCat("SELECT setval(pg_get_serial_sequence('", table.name, "', '",
                                 table.identity, "'), COALESCE((SELECT MAX(", table.identity,
                                 ") FROM ", table.name, "), 0) + 1, false)"),
                    absl::StrCat("move ", table.name, "'s identity past the copied rows")));
  }
  return rows;
}

absl::Status RequireEmpty(Database& target) {
  std::vector<std::string> tables = {"nodes", "job_transitions", "artifact_chunks"};
  for (const Table& t : Tables()) tables.emplace_back(t.name);
  for (const std::string& table : tables) {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> count,
                            target.Prepare(absl::StrCat("SELECT COUNT(*) FROM ", table),
                                           absl::StrCat("count ", table)));
    KBENCH_ASSIGN_OR_RETURN(bool row, count->Step());
    if (row && count->ColumnInt64(0) > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("the target database already holds kbench data (table ", table, " has ",
                       count->ColumnInt64(0), " rows); migrate into an empty database"));
    }
  }
  return absl::OkStatus();
}

// A table of records whose bytes are files under a root, keyed by (owner column, name).
struct FileTable {
  const char* name;
  const char* owner_column;  // the job's or the sweep's id
  const char* kind;          // of record, and of owner, as a dropped one is named:
  const char* owner;         // "artifact trace.json of job j-1"
  std::filesystem::path root;
};

// The records of `table` whose bytes are still files.
absl::StatusOr<std::vector<ArtifactRecord>> FileRecords(Database& db, const FileTable& table) {
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db.Prepare(absl::StrCat("SELECT ", table.owner_column, ", name, relative_path, sha256 FROM ",
                              table.name, " WHERE relative_path <> '' ORDER BY 1, 2"),
                 absl::StrCat("list ", table.name)));
  std::vector<ArtifactRecord> records;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) return records;
    ArtifactRecord r;
    r.job_id = query->ColumnText(0);
    r.name = query->ColumnText(1);
    r.relative_path = query->ColumnText(2);
    r.sha256 = query->ColumnText(3);
    records.push_back(std::move(r));
  }
}

// Each file of `table` into artifact_chunks, its record's relative_path cleared (its bytes are
// rows now: any node serves them); a record whose file is gone or changed is dropped, counted.
absl::Status MoveFiles(const FileTable& table, Database& records, ArtifactChunks& chunks,
                       MigrationReport* report) {
  const std::string key = absl::StrCat(" WHERE ", table.owner_column, " = ?1 AND name = ?2");
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> moved,
      records.Prepare(absl::StrCat("UPDATE ", table.name, " SET relative_path = ''", key),
                      absl::StrCat("mark a file of ", table.name, " moved")));
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> dropped,
                          records.Prepare(absl::StrCat("DELETE FROM ", table.name, key),
                                          absl::StrCat("drop a record of ", table.name)));
  KBENCH_ASSIGN_OR_RETURN(std::vector<ArtifactRecord> all, FileRecords(records, table));
  for (const ArtifactRecord& a : all) {
    const std::string path = (table.root / a.relative_path).string();
    absl::StatusOr<ArtifactDigest> digest = chunks.Write(a.job_id, a.name, path);
    if (digest.ok() && digest->sha256 != a.sha256) {
      digest = absl::DataLossError(absl::StrCat(path, " no longer matches its recorded sha256"));
    }
    Statement& mark = digest.ok() ? *moved : *dropped;
    ScopedReset reset(&mark);
    KBENCH_RETURN_IF_ERROR(mark.BindText(1, a.job_id));
    KBENCH_RETURN_IF_ERROR(mark.BindText(2, a.name));
    if (!digest.ok()) {
      const std::string what =
          absl::StrCat(table.kind, " ", a.name, " of ", table.owner, " ", a.job_id);
      std::fprintf(stderr, "kbenchd store migrate: %s dropped: %s\n", what.c_str(),
                   digest.status().ToString().c_str());
      KBENCH_RETURN_IF_ERROR(chunks.Remove(a.job_id, a.name));
      KBENCH_RETURN_IF_ERROR(mark.Run());
      ++report->artifacts_missing;
      continue;
    }
    KBENCH_RETURN_IF_ERROR(mark.Run());
    report->artifact_bytes += digest->size_bytes;
  }
  return absl::OkStatus();
}

// Jobs' artifacts (under artifacts/) and sweeps' report files (under sweeps/, their paths
// relative to the data directory) into artifact_chunks.
absl::Status MoveArtifactBytes(const std::string& data_dir, const StoreLocation& target,
                               MigrationReport* report) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(target));
  ArtifactChunks chunks(std::move(db));
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> records, ConnectStoreDatabase(target));
  const std::filesystem::path root(data_dir);
  const FileTable tables[] = {{"artifacts", "job_id", "artifact", "job", root / "artifacts"},
                              {"sweep_artifacts", "sweep_id", "report file", "sweep", root}};
  for (const FileTable& table : tables) {
    KBENCH_RETURN_IF_ERROR(MoveFiles(table, *records, chunks, report));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MigrationReport> MigrateSqliteToPostgres(const std::string& data_dir,
                                                        const std::string& postgres_url) {
  if (!std::filesystem::exists(std::filesystem::path(data_dir) / "kbench.db")) {
    return absl::NotFoundError(absl::StrCat("--data-dir ", data_dir, " has no kbench.db"));
  }
  if (!IsPostgresUrl(postgres_url)) {
    return absl::InvalidArgumentError("--to: expected postgres://USER@HOST:PORT/DB");
  }
  const StoreLocation source_location{.data_dir = data_dir, .postgres_url = "", .node = ""};
  const StoreLocation target_location{.data_dir = "", .postgres_url = postgres_url, .node = ""};
  // Both at the current schema, so the tables and their columns match one for one.
  KBENCH_RETURN_IF_ERROR(JobStore::Open(source_location).status());
  KBENCH_RETURN_IF_ERROR(JobStore::Open(target_location).status());
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> source, ConnectStoreDatabase(source_location));
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> target, ConnectStoreDatabase(target_location));

  MigrationReport report;
  {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(target.get(), "migrate the store"));
    KBENCH_RETURN_IF_ERROR(RequireEmpty(*target));
    for (const Table& table : Tables()) {
      KBENCH_ASSIGN_OR_RETURN(report.rows[table.name], CopyTable(*source, *target, table));
    }
    KBENCH_RETURN_IF_ERROR(transaction->Commit());
  }
  KBENCH_RETURN_IF_ERROR(MoveArtifactBytes(data_dir, target_location, &report));
  return report;
}

int RunMigrateCommand(const MigrateCommandArgs& args) {
  absl::StatusOr<MigrationReport> report = MigrateSqliteToPostgres(args.data_dir, args.to);
  if (!report.ok()) {
    std::fprintf(stderr, "kbenchd store migrate: %s\n", report.status().ToString().c_str());
    return 1;
  }
  for (const auto& [table, rows] : report->rows) {
    std::printf("%-16s %lld rows\n", table.c_str(), static_cast<long long>(rows));
  }
  std::printf("artifact bytes   %lld moved into artifact_chunks",
              static_cast<long long>(report->artifact_bytes));
  if (report->artifacts_missing > 0) {
    std::printf(" (%lld artifacts whose file was gone dropped)",
                static_cast<long long>(report->artifacts_missing));
  }
  std::printf("\n");
  return 0;
}

}  // namespace kbench::store
