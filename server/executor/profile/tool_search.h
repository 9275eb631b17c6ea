// Finding an NVIDIA command-line tool the executor runs as a child (ncu, compute-sanitizer):
// an explicit path from its environment variable, else PATH, else the CUDA toolkit's bin.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::executor::profile {

// Where to look, in order: `explicit_path` (when set it must work: no fallback), each directory
// of `path_env`, then `fallbacks`.
struct ToolSearch {
  // The executable's file name, e.g. "ncu".
  std::string name;
  // The spec field an error names, e.g. "profile.ncu".
  std::string field;
  // The environment variable that names it explicitly, e.g. "KBENCH_NCU".
  std::string env_var;
  // What to do when it is missing, e.g. "install Nsight Compute".
  std::string install_hint;
  std::string explicit_path;
  std::string path_env;
  std::vector<std::string> fallbacks;
};

// `search` with explicit_path from its env_var and path_env from PATH.
ToolSearch WithEnvironment(ToolSearch search);

// The executable, or FAILED_PRECONDITION "FIELD: NAME not found (looked in ...)".
absl::StatusOr<std::string> FindTool(const ToolSearch& search);

}  // namespace kbench::executor::profile
