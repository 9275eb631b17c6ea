// fork/exec with a process group, so a timed-out ncu is killed together with the target it
// started, and a parent-death signal, so an executor killed mid-profile never leaves an ncu
// holding the GPU.
#include "server/executor/profile/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/common/child_environment.h"

namespace kbench::executor::profile {

std::string ProcessResult::Describe(double timeout_seconds) const {
  if (cancelled) return "cancelled";
  if (!exceeded_limit.empty()) return absl::StrCat("exceeded ", exceeded_limit);
  if (timed_out) return absl::StrCat("timed out after ", timeout_seconds, " s");
  if (signal != 0) return absl::StrCat("killed by signal ", signal, " (", strsignal(signal), ")");
  return absl::StrCat("exit code ", exit_code);
}

namespace {

absl::StatusOr<int> OpenForAppend(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", strerror(errno)));
  return fd;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildSetup ToolChildSetup(const std::string& work_dir, double timeout_seconds) {
  return ChildSetup{BuildChildEnvironment(ToolEnvironment(work_dir), ParentEnvironment()),
                    sandbox::ToolLimits(timeout_seconds), work_dir};
}

ChildSetup CudaToolChildSetup(const std::string& work_dir, double timeout_seconds) {
  ChildSetup setup = ToolChildSetup(work_dir, timeout_seconds);
  setup.limits = sandbox::CudaToolLimits(timeout_seconds);
  return setup;
}

std::string DirectoryOf(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path, double timeout_seconds,
                                         const std::atomic<bool>* cancelled) {
  return RunProcess(argv, stdout_path, stderr_path, timeout_seconds, cancelled,
                    ToolChildSetup(DirectoryOf(stdout_path), timeout_seconds));
}

namespace {

void WriteStderr(const char* message) { (void)!write(2, message, strlen(message)); }

// The child's side between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(pid_t parent, int out, int err, const ChildSetup& setup,
                            char* const* args, char* const* env) {
  // The child lives in its own process group (so a kill of the executor's group misses it):
  // without this it would outlive a SIGKILLed executor and keep the GPU. PDEATHSIG follows
  // the forking thread, which waits for the child below, so it fires only when the executor
  // dies. The getppid check closes the race where the parent died before prctl.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  setpgid(0, 0);
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, 0);
  dup2(out, 1);
  dup2(err, 2);
  // The executor's socket to the control plane must not live on in the child.
  close_range(3, ~0U, 0);
  if (!setup.work_dir.empty() && chdir(setup.work_dir.c_str()) != 0) _exit(127);
  if (!sandbox::ApplyChildLimits(setup.limits)) {
    WriteStderr("cannot set the resource limits\n");
    _exit(127);
  }
  execve(args[0], args, env);
  WriteStderr("exec failed\n");
  _exit(127);
}

// Waits for `pid`, killing its group at the time limit or on cancellation.
absl::StatusOr<ProcessResult> WaitForChild(pid_t pid, double timeout_seconds,
                                           const std::atomic<bool>* cancelled) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
      return result;
    }
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitpid failed: ", strerror(errno)));
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool cancel = cancelled != nullptr && cancelled->load();
    if (cancel || elapsed > timeout_seconds) {
      result.cancelled = cancel;
      result.timed_out = !cancel;
      // The whole group: ncu and the target it started. The leader is not reaped yet, so the
      // group id cannot have been reused.
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path, double timeout_seconds,
                                         const std::atomic<bool>* cancelled,
                                         const ChildSetup& setup) {
  if (argv.empty()) return absl::InvalidArgumentError("RunProcess: empty argv");
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> args = CStrings(argv);
  std::vector<char*> env = CStrings(setup.environment);
  absl::StatusOr<int> out_or = OpenForAppend(stdout_path);
  if (!out_or.ok()) return out_or.status();
  const int out = *out_or;
  int err = out;
  if (stderr_path != stdout_path) {
    absl::StatusOr<int> err_or = OpenForAppend(stderr_path);
    if (!err_or.ok()) {
      close(out);
      return err_or.status();
    }
    err = *err_or;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) ExecChild(parent, out, err, setup, args.data(), env.data());
  const int fork_errno = errno;
  close(out);
  if (err != out) close(err);
  if (pid < 0) return absl::InternalError(absl::StrCat("fork failed: ", strerror(fork_errno)));
  setpgid(pid, pid);  // also from the parent, so the group exists before we may kill it
  absl::StatusOr<ProcessResult> result = WaitForChild(pid, timeout_seconds, cancelled);
  if (result.ok() && !result->timed_out && !result->cancelled) {
    result->exceeded_limit =
        sandbox::ExceededLimit(setup.limits, result->exit_code, result->signal);
  }
  return result;
}

std::string FileTail(const std::string& path, size_t max_bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  return s.size() <= max_bytes ? s : s.substr(s.size() - max_bytes);
}

}  // namespace kbench::executor::profile
