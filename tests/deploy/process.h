// Test helper: runs a server process (kbenchd, prometheus) with its stdout and stderr in files,
// waits for a line with a deadline, and stops it with SIGTERM (SIGKILL past a grace period).
// The child dies with the test process (PR_SET_PDEATHSIG), so a crashed test leaves no server.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Process {
 public:
  // Starts argv[0] with argv; stdout to `stdout_path`, stderr to `stderr_path`.
  static absl::StatusOr<std::unique_ptr<Process>> Start(const std::vector<std::string>& argv,
                                                        const std::string& stdout_path,
                                                        const std::string& stderr_path) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the test died between fork and prctl
      FILE* out = freopen(stdout_path.c_str(), "w", stdout);
      FILE* err = freopen(stderr_path.c_str(), "w", stderr);
      if (out == nullptr || err == nullptr) _exit(126);
      execv(args[0], args.data());
      std::fprintf(stderr, "exec %s failed\n", args[0]);
      _exit(127);
    }
    return std::unique_ptr<Process>(new Process(pid, argv, stdout_path, stderr_path));
  }

  ~Process() {
    if (!reaped_) (void)Stop(std::chrono::seconds(10));
  }

  // Polls stdout until a line satisfies `match` (returned), the process exits, or the deadline.
  absl::StatusOr<std::string> WaitForLine(const std::function<bool(const std::string&)>& match,
                                          std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      std::istringstream lines(ReadFile(stdout_path_));
      for (std::string line; std::getline(lines, line);) {
        if (match(line)) return line;
      }
      if (HasExited()) {
        return absl::FailedPreconditionError(absl::StrCat(
            Name(), " exited (wait status ", status_, ") before the expected line; stdout:\n",
            ReadFile(stdout_path_), "\nstderr:\n", ReadFile(stderr_path_)));
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat(Name(), ": no expected line within ", timeout.count(), " ms; stdout:\n",
                         ReadFile(stdout_path_), "\nstderr:\n", ReadFile(stderr_path_)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The value after `prefix` on the first stdout line that starts with it.
  absl::StatusOr<std::string> WaitForValue(const std::string& prefix,
                                           std::chrono::milliseconds timeout) {
    absl::StatusOr<std::string> line =
        WaitForLine([&](const std::string& l) { return l.rfind(prefix, 0) == 0; }, timeout);
    if (!line.ok()) return line.status();
    return line->substr(prefix.size());
  }

  bool HasExited() {
    if (reaped_) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      status_ = status;
    }
    return reaped_;
  }

  // SIGTERM, then waits up to `grace` for the exit (SIGKILL after it). Returns the wait status;
  // DEADLINE_EXCEEDED when SIGKILL was needed.
  absl::StatusOr<int> Stop(std::chrono::milliseconds grace) {
    if (HasExited()) return status_;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
      if (HasExited()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    reaped_ = true;
    return absl::DeadlineExceededError(
        absl::StrCat(Name(), " did not exit within ", grace.count(), " ms of SIGTERM"));
  }

  std::string Stdout() const { return ReadFile(stdout_path_); }
  std::string Stderr() const { return ReadFile(stderr_path_); }
  pid_t pid() const { return pid_; }

 private:
  Process(pid_t pid, std::vector<std::string> argv, std::string stdout_path,
          std::string stderr_path)
      : pid_(pid),
        argv_(std::move(argv)),
        stdout_path_(std::move(stdout_path)),
        stderr_path_(std::move(stderr_path)) {}

  std::string Name() const { return absl::StrJoin(argv_, " "); }

  pid_t pid_;
  std::vector<std::string> argv_;
  std::string stdout_path_;
  std::string stderr_path_;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace kbench::testing
