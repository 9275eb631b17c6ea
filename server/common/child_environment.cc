// Empty environments plus named lists for child processes (issue 24, item 1).
#include "server/common/child_environment.h"

#include <unistd.h>

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kbench {
namespace {

// What CUDA, the driver, Nsight Compute and compute-sanitizer read; none holds a secret.
const char* const kCudaVariables[] = {
    "CUDA_VISIBLE_DEVICES",    "CUDA_DEVICE_ORDER",      "CUDA_MODULE_LOADING",
    "CUDA_CACHE_DISABLE",      "CUDA_CACHE_PATH",        "CUDA_CACHE_MAXSIZE",
    "CUDA_MPS_PIPE_DIRECTORY", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
    "LD_LIBRARY_PATH",         "KBENCH_CUDA_INCLUDE_DIR"};

}  // namespace

std::vector<std::string> BuildChildEnvironment(const ChildEnvironmentSpec& spec,
                                               const char* const* parent) {
  std::map<std::string, std::string> env;
  for (const char* const* p = parent; p != nullptr && *p != nullptr; ++p) {
    const absl::string_view entry = *p;
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos) continue;
    const std::string name(entry.substr(0, eq));
    for (const std::string& wanted : spec.inherit) {
      if (name != wanted) continue;
      std::string value(entry.substr(eq + 1));
      if (!value.empty()) env[name] = value;
    }
  }
  for (const auto& [name, value] : spec.set) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

ChildEnvironmentSpec ExecutorEnvironment() {
  ChildEnvironmentSpec spec;
  spec.inherit.assign(std::begin(kCudaVariables), std::end(kCudaVariables));
  // PATH: the executor finds ncu and compute-sanitizer on it; KBENCH_NCU and
  // KBENCH_COMPUTE_SANITIZER name them explicitly; KBENCH_PROFILE_KEEP_ACTIVITY is a debugging
  // switch; KBENCH_TEST_CHEAT is the cheating test executor's (tests/integration).
  for (const char* name : {"PATH", "HOME", "TMPDIR", "KBENCH_NCU", "KBENCH_COMPUTE_SANITIZER",
                           "KBENCH_PROFILE_KEEP_ACTIVITY", "KBENCH_TEST_CHEAT"}) {
    spec.inherit.emplace_back(name);
  }
  return spec;
}

ChildEnvironmentSpec ToolEnvironment(const std::string& work_dir) {
  ChildEnvironmentSpec spec;
  spec.inherit.assign(std::begin(kCudaVariables), std::end(kCudaVariables));
  spec.set = {{"PATH", "/usr/local/cuda/bin:/usr/bin:/bin"},
              {"HOME", work_dir},
              {"TMPDIR", work_dir},
              {"LC_ALL", "C"}};
  return spec;
}

const char* const* ParentEnvironment() { return environ; }

}  // namespace kbench
