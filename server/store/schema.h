// The store's schema migrations, applied in one transaction when the database is opened.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/database.h"

namespace kbench::store::internal {

// Each engine's DDL, one entry per schema version (index 0 is migration 1).
std::vector<std::string_view> SqliteMigrations();
std::vector<std::string_view> PostgresMigrations();

// Brings the database to `target_version`, applying each missing migration and recording it in
// schema_version, all in one transaction: a crash mid-migration leaves the old version intact.
// FAILED_PRECONDITION when the database is newer than `target_version` (a downgrade).
// Returns the version the database is at afterwards.
absl::StatusOr<int> Migrate(Database* db, int target_version, int64_t now_ns);

// Whether the database has `table` (in the connection's schema, on PostgreSQL).
absl::StatusOr<bool> TableExists(Database* db, const std::string& table);

// The highest version recorded in schema_version (0 for a fresh database).
absl::StatusOr<int> CurrentSchemaVersion(Database* db);

}  // namespace kbench::store::internal
