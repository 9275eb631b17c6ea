// The environment a child process starts with (issue 24, item 1): empty, plus a named list.
// kbenchd's environment may hold secrets (a fleet's database password, tokens); no executor,
// compiler or tool child inherits it whole. Plain C++, used by the scheduler (executors) and
// the executor (compile and tool children).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kbench {

struct ChildEnvironmentSpec {
  // Names copied from the parent when it has them. LD_LIBRARY_PATH is copied whole: the
  // operator set it for kbenchd, whose children are its own executor (which needs kbenchd's
  // libraries: a bundle's lib/ folder) and the toolkit's tools; no user reaches it. (Filtering
  // it to CUDA entries left the executor of a packed bundle unable to start on an H100.)
  std::vector<std::string> inherit;
  // NAME, VALUE set whatever the parent has (these win over `inherit`).
  std::vector<std::pair<std::string, std::string>> set;
};

// "NAME=VALUE" strings for execve: `spec` applied to `parent` (a null-terminated environ).
std::vector<std::string> BuildChildEnvironment(const ChildEnvironmentSpec& spec,
                                               const char* const* parent);

// kbench-executor's: what CUDA, the driver and our tools' lookups read (CUDA_VISIBLE_DEVICES,
// NVIDIA_*, KBENCH_NCU...), PATH, HOME, TMPDIR, and the test hook KBENCH_TEST_CHEAT.
ChildEnvironmentSpec ExecutorEnvironment();

// A compile or tool child's: PATH fixed to the toolkit's and the system's bin directories,
// HOME and TMPDIR its work directory, the CUDA variables the tools read, KBENCH_CUDA_INCLUDE_DIR.
ChildEnvironmentSpec ToolEnvironment(const std::string& work_dir);

// The process's own environment, for BuildChildEnvironment's `parent`.
const char* const* ParentEnvironment();

}  // namespace kbench
