// The store's Database on PostgreSQL through libpq: one connection, ?N parameters rewritten to
// $N, typed parameters (bytea sent as binary), text results, SQLSTATEs mapped to absl::Status
// and SqlFailure kinds. A write transaction takes one transaction-scoped advisory lock, so
// writers on every node exclude each other exactly as SQLite's BEGIN IMMEDIATE does on one host;
// the fleet's claims use row locks (FOR UPDATE SKIP LOCKED) instead and never wait on it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/database.h"

namespace kbench::store::internal {

// Connects with a libpq connection string or URI. UNAVAILABLE naming host, port and database
// (never the password) when the server cannot be reached or refuses the login.
absl::StatusOr<std::unique_ptr<Database>> OpenPostgres(const std::string& url);

// "postgres://user@host:5432/db" for messages: the URL with any password removed.
std::string RedactedUrl(const std::string& url);

// ?1, ?2, ... outside quoted strings become $1, $2, ...; a bare ? is numbered as SQLite numbers
// it (the largest index so far plus one).
std::string PostgresPlaceholders(const std::string& sql);

}  // namespace kbench::store::internal
