// Runs a child process (Nsight Compute) with its output in a file, a time limit and
// cancellation, without a shell.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/executor/sandbox/child_limits.h"

namespace kbench::executor::profile {

struct ProcessResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool cancelled = false;
  // The resource limit its end shows it ran into ("its 4096 MiB memory limit"); empty if none.
  std::string exceeded_limit;
  // Exited with 0.
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out && !cancelled; }
  // "exit code 3", "signal 9", "timed out after 300 s", "cancelled".
  std::string Describe(double timeout_seconds) const;
};

// What a child starts with (issue 24, item 1): its whole environment, its resource limits and
// its working directory.
struct ChildSetup {
  std::vector<std::string> environment;  // NAME=VALUE; nothing else is inherited
  sandbox::ChildLimits limits;
  std::string work_dir;  // the child's working directory; empty: the executor's
};

// A tool's: ToolEnvironment(work_dir) (child_environment.h), ToolLimits, `work_dir`.
ChildSetup ToolChildSetup(const std::string& work_dir, double timeout_seconds);
// ncu's or compute-sanitizer's, whose target creates a CUDA context: CudaToolLimits.
ChildSetup CudaToolChildSetup(const std::string& work_dir, double timeout_seconds);
// The directory of `path` ("." when it has none): a tool's work directory.
std::string DirectoryOf(const std::string& path);

// Runs argv[0] (a path) with argv and `setup`, its stdout appended to `stdout_path` and its stderr
// to `stderr_path` (may be the same file), in its own process group, which is killed when it
// outlives `timeout_seconds` or `*cancelled` becomes true. Descriptors other than 0-2 are not
// inherited. Errors only when it cannot be started.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path, double timeout_seconds,
                                         const std::atomic<bool>* cancelled,
                                         const ChildSetup& setup);
// The same with ToolChildSetup(the directory of `stdout_path`, timeout_seconds).
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path, double timeout_seconds,
                                         const std::atomic<bool>* cancelled);

// The last `max_bytes` of a file, for error messages.
std::string FileTail(const std::string& path, size_t max_bytes);

}  // namespace kbench::executor::profile
