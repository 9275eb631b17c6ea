// The store's Database on SQLite: one connection to a file, checked calls, result codes mapped
// to absl::Status (and SqlFailure kinds) naming the operation.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/store/database.h"

struct sqlite3;

namespace kbench::store::internal {

// Maps a SQLite result code to a Status: "sqlite <operation>: <message> (code N)".
// BUSY/LOCKED -> UNAVAILABLE, FULL/NOMEM -> RESOURCE_EXHAUSTED, CORRUPT/NOTADB -> DATA_LOSS,
// READONLY/PERM -> PERMISSION_DENIED, CONSTRAINT -> FAILED_PRECONDITION, else INTERNAL.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view operation);

// The extended SQLite result code a SqliteError status carries (as a payload), or 0.
int SqliteCodeOf(const absl::Status& status);

// Opens (creating) the file at `path` with extended result codes on, then sets the store's
// pragmas and reads each back: WAL (readers never block the writer), synchronous=FULL (a
// commit survives power loss), foreign keys, and a busy timeout for other connections' locks.
absl::StatusOr<std::unique_ptr<Database>> OpenSqlite(const std::string& path);

}  // namespace kbench::store::internal
