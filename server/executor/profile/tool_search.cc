// Tool lookup (tool_search.h).
#include "server/executor/profile/tool_search.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kbench::executor::profile {
namespace {

bool IsExecutableFile(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

}  // namespace

ToolSearch WithEnvironment(ToolSearch search) {
  if (const char* v = std::getenv(search.env_var.c_str()); v != nullptr) search.explicit_path = v;
  if (const char* v = std::getenv("PATH"); v != nullptr) search.path_env = v;
  return search;
}

absl::StatusOr<std::string> FindTool(const ToolSearch& search) {
  if (!search.explicit_path.empty()) {
    if (IsExecutableFile(search.explicit_path)) return search.explicit_path;
    return absl::FailedPreconditionError(
        absl::StrCat(search.field, ": ", search.name, " not found (", search.env_var, "=",
                     search.explicit_path, " is not an executable file)"));
  }
  std::vector<std::string> looked;
  for (absl::string_view dir : absl::StrSplit(search.path_env, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", search.name);
    if (IsExecutableFile(candidate)) return candidate;
    looked.push_back(std::string(dir));
  }
  for (const std::string& f : search.fallbacks) {
    if (IsExecutableFile(f)) return f;
    looked.push_back(f);
  }
  return absl::FailedPreconditionError(absl::StrCat(
      search.field, ": ", search.name, " not found (looked in ", search.env_var,
      " (unset), PATH: ", looked.empty() ? "(empty)" : absl::StrJoin(looked, ", "), "); ",
      search.install_hint, " or set ", search.env_var, " to its ", search.name));
}

}  // namespace kbench::executor::profile
