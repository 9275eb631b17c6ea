// fork/exec in a process group, polled with waitpid until exit or the deadline.
#include "common/report/bounded_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kbench::report {
namespace {

std::string LogTail(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  constexpr size_t kTail = 600;
  return s.size() <= kTail ? s : s.substr(s.size() - kTail);
}

}  // namespace

std::string FindProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> dirs = absl::StrSplit(path != nullptr ? path : "", ':');
  dirs.emplace_back("/usr/bin");
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    const std::string candidate = (std::filesystem::path(dir) / name).string();
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::Status RunBounded(const std::vector<std::string>& argv, const std::string& log_path,
                        double timeout_seconds) {
  if (argv.empty() || access(argv[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot run \"", argv.empty() ? "" : argv[0], "\": not an executable"));
  }
  // Prepared before fork: the child of a threaded daemon may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", log_path, ": ", strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(log);
    return absl::InternalError(absl::StrCat("fork failed: ", strerror(errno)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    close_range(3, ~0U, 0);
    execv(args[0], args.data());
    _exit(127);
  }
  close(log);
  setpgid(pid, pid);
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
      const std::string how = WIFEXITED(status) ? absl::StrCat("exit code ", WEXITSTATUS(status))
                                                : absl::StrCat("signal ", WTERMSIG(status));
      return absl::InternalError(absl::StrCat(argv[0], " failed (", how, "): ", LogTail(log_path)));
    }
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitpid failed: ", strerror(errno)));
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
        timeout_seconds) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return absl::DeadlineExceededError(
          absl::StrCat(argv[0], " ran past its limit of ", timeout_seconds, " s and was killed"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace kbench::report
