// Connecting to the store's database, whichever engine the location names.
#include "server/store/store_location.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/store/postgres_db.h"
#include "server/store/sqlite_db.h"

namespace kbench::store {

bool IsPostgresUrl(const std::string& value) {
  return absl::StartsWith(value, "postgres://") || absl::StartsWith(value, "postgresql://");
}

absl::StatusOr<std::unique_ptr<internal::Database>> ConnectStoreDatabase(
    const StoreLocation& location) {
  if (location.is_postgres()) return internal::OpenPostgres(location.postgres_url);
  if (location.data_dir.empty()) return absl::InvalidArgumentError("data_dir must not be empty");
  std::error_code error;
  std::filesystem::create_directories(location.data_dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create data_dir '", location.data_dir, "': ", error.message()));
  }
  return internal::OpenSqlite((std::filesystem::path(location.data_dir) / "kbench.db").string());
}

}  // namespace kbench::store
