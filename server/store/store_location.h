// Where the control plane's durable state lives: SQLite under a data directory (one host, the
// default) or a PostgreSQL database shared by a fleet of nodes (--store postgres://...).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/database.h"

namespace kbench::store {

struct StoreLocation {
  // SQLite: <data_dir>/kbench.db (created with the directory when missing).
  std::string data_dir;
  // When set, a libpq connection string or URI ("postgres://user@host:5432/kbench"); data_dir
  // is then not used for the database.
  std::string postgres_url;
  // The node this process is in a fleet (--node); "" on a single host. The job store makes its
  // transitions on this node's behalf.
  std::string node;

  bool is_postgres() const { return !postgres_url.empty(); }
};

// True for a --store value naming PostgreSQL ("postgres://", "postgresql://").
bool IsPostgresUrl(const std::string& value);

// `url` with libpq's `passfile` parameter naming `password_file` (--store-password-file; issue
// 24): the password reaches libpq from a file (.pgpass format: host:port:db:user:password),
// never through PGPASSWORD, an environment every child would inherit. INVALID_ARGUMENT when the
// file cannot be read or is readable by group or others (libpq would ignore it, silently).
absl::StatusOr<std::string> WithPasswordFile(const std::string& url,
                                             const std::string& password_file);

// One new connection to the location's database, not migrated (JobStore::Open migrates).
// UNAVAILABLE when it cannot be reached, naming it (never with a password).
absl::StatusOr<std::unique_ptr<internal::Database>> ConnectStoreDatabase(
    const StoreLocation& location);

}  // namespace kbench::store
