// setrlimit for the executor's children and the reading of how one ended (issue 24, item 1).
#include "server/executor/sandbox/child_limits.h"

#include <signal.h>
#include <sys/resource.h>

#include <cmath>

#include "absl/strings/str_cat.h"

namespace kbench::executor::sandbox {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// Threads of a tool add their CPU time: a limit on CPU seconds is twice the wall-clock limit,
// plus a margin for start-up, so that only a runaway child (the wall clock stopped, or a
// child that outlives a cancelled job) meets it.
uint64_t ToolCpuSeconds(double timeout_seconds) {
  return static_cast<uint64_t>(std::ceil(2 * timeout_seconds)) + 10;
}

bool SetLimit(int resource, uint64_t soft, uint64_t hard) {
  const rlimit r{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  return setrlimit(resource, &r) == 0;
}

}  // namespace

ChildLimits CompileLimits(uint64_t memory_bytes, uint64_t cpu_seconds) {
  return ChildLimits{memory_bytes, cpu_seconds, 256 * kMiB, 256};
}

ChildLimits ToolLimits(double timeout_seconds) {
  return ChildLimits{4 * kGiB, ToolCpuSeconds(timeout_seconds), 1 * kGiB, 256};
}

ChildLimits CudaToolLimits(double timeout_seconds) {
  return ChildLimits{0, ToolCpuSeconds(timeout_seconds), 8 * kGiB, 4096};
}

bool ApplyChildLimits(const ChildLimits& limits) {
  bool ok = true;
  if (limits.address_space_bytes > 0) {
    ok &= SetLimit(RLIMIT_AS, limits.address_space_bytes, limits.address_space_bytes);
  }
  // The hard limit 2 s above the soft one: SIGXCPU first (told apart from a crash), then KILL.
  if (limits.cpu_seconds > 0)
    ok &= SetLimit(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 2);
  if (limits.file_bytes > 0) ok &= SetLimit(RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes);
  if (limits.open_files > 0) ok &= SetLimit(RLIMIT_NOFILE, limits.open_files, limits.open_files);
  return ok;
}

std::string ExceededLimit(const ChildLimits& limits, int exit_code, int signal) {
  if (signal == SIGXCPU) return absl::StrCat("its ", limits.cpu_seconds, " s CPU-time limit");
  if (signal == SIGXFSZ)
    return absl::StrCat("its ", limits.file_bytes / kMiB, " MiB file-size limit");
  if (signal == 0 && exit_code == kOutOfMemoryExit && limits.address_space_bytes > 0) {
    return absl::StrCat("its ", limits.address_space_bytes / kMiB, " MiB memory limit");
  }
  // Nobody here sends SIGKILL but RunProcess (whose kills are reported as a timeout or a
  // cancellation) and the kernel: the cgroup's MemoryMax= or the host's OOM killer.
  if (signal == SIGKILL) return "the service's memory limit (killed by the kernel, SIGKILL)";
  return "";
}

}  // namespace kbench::executor::sandbox
