// The store's schema migrations, applied in one transaction when the database is opened.
#pragma once

#include "absl/status/statusor.h"
#include "server/store/sqlite_db.h"

namespace kbench::store::internal {

// Brings the database to `target_version`, applying each missing migration and recording it in
// schema_version, all in one transaction: a crash mid-migration leaves the old version intact.
// FAILED_PRECONDITION when the database is newer than `target_version` (a downgrade).
// Returns the version the database is at afterwards.
absl::StatusOr<int> Migrate(Database* db, int target_version, int64_t now_ns);

// The highest version recorded in schema_version (0 for a fresh database).
absl::StatusOr<int> CurrentSchemaVersion(Database* db);

}  // namespace kbench::store::internal
