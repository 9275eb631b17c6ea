// Connecting to the store's database, whichever engine the location names.
#include "server/store/store_location.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/store/postgres_db.h"
#include "server/store/sqlite_db.h"

namespace kbench::store {

bool IsPostgresUrl(const std::string& value) {
  return absl::StartsWith(value, "postgres://") || absl::StartsWith(value, "postgresql://");
}

absl::StatusOr<std::string> WithPasswordFile(const std::string& url,
                                             const std::string& password_file) {
  struct stat st {};
  if (stat(password_file.c_str(), &st) != 0 || access(password_file.c_str(), R_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--store-password-file: cannot read ", password_file));
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--store-password-file: ", password_file,
                     " is readable by group or others; make it 0600 (libpq ignores such a file)"));
  }
  std::string encoded;  // percent-encoded: a URI parameter
  for (unsigned char c : password_file) {
    if (absl::ascii_isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-') {
      encoded.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&encoded, "%%%02X", c);
    }
  }
  const char sep = url.find('?') == std::string::npos ? '?' : '&';
  return absl::StrCat(url, std::string(1, sep), "passfile=", encoded);
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
