// Paths confined to a directory (contained_path.h).
#include "client/contained_path.h"

#include <algorithm>
#include <iterator>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "client/errors.h"

namespace kbench::client {
namespace {

// True when `path` is `dir` or lies below it; both canonical.
bool IsWithin(const std::filesystem::path& dir, const std::filesystem::path& path) {
  const auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  // A trailing empty component ("a/b/") matches any continuation.
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());
}

}  // namespace

absl::StatusOr<std::filesystem::path> PathInside(const std::filesystem::path& dir,
                                                 const std::string& name, const std::string& what) {
  const std::filesystem::path relative(name);
  if (name.empty() || relative.is_absolute() || relative.has_root_name()) {
    return UsageError(absl::StrCat(what, ": '", name,
                                   "' must be a path relative to the metadata file's directory"));
  }
  std::error_code error;
  const std::filesystem::path base =
      std::filesystem::weakly_canonical(dir.empty() ? "." : dir, error);
  const std::filesystem::path target =
      error ? std::filesystem::path() : std::filesystem::weakly_canonical(base / relative, error);
  if (error) {
    return UsageError(absl::StrCat(what, ": '", name, "' cannot be resolved: ", error.message()));
  }
  if (!IsWithin(base, target)) {
    return UsageError(absl::StrCat(what, ": '", name, "' resolves to ", target.string(),
                                   ", outside ", base.string(),
                                   "; kbctl reads only files inside the metadata file's "
                                   "directory (a symlink is followed first)"));
  }
  return target;
}

}  // namespace kbench::client
