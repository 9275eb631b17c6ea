// Moving a single host's SQLite store into a fleet's PostgreSQL database, history included:
// `kbenchd store migrate --data-dir DIR --to postgres://...`.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/store_location.h"

namespace kbench::store {

struct MigrationReport {
  std::map<std::string, int64_t> rows;  // by table
  int64_t artifact_bytes = 0;           // job artifacts and sweep reports: into artifact_chunks
  int64_t artifacts_missing = 0;        // recorded, but their file was gone: records dropped
};

// Copies every table of the SQLite store under `data_dir` (migrated to the current schema
// first) into the database at `postgres_url`, which must hold no kbench data yet
// (FAILED_PRECONDITION naming the first table that has rows): the tables in one transaction,
// keeping every seq (identity sequences are moved past them), then each job artifact's and
// sweep report's file into artifact_chunks.
absl::StatusOr<MigrationReport> MigrateSqliteToPostgres(const std::string& data_dir,
                                                        const std::string& postgres_url);

// The `kbenchd store migrate` subcommand.
struct MigrateCommandArgs {
  std::string data_dir;
  std::string to;
};
int RunMigrateCommand(const MigrateCommandArgs& args);

}  // namespace kbench::store
