// One executor child process (kbench-executor) and the socketpair to it: start it,
// wait for its device description, run jobs on it, cancel, and tell how it died.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::scheduler {

class ExecutorProcess {
 public:
  // Starts `executable --fd 3 --device DEVICE EXTRA_ARGS...` and waits up to `ready_timeout` for
  // its ready message. UNAVAILABLE with the child's exit cause when it does not come up.
  static absl::StatusOr<std::unique_ptr<ExecutorProcess>> Start(
      const std::string& executable, const std::string& device,
      const std::vector<std::string>& extra_args, std::chrono::milliseconds ready_timeout);

  // Start() in two halves, so that several executors can come up in parallel while being
  // spawned by one long-lived thread: the kernel's parent-death signal (PR_SET_PDEATHSIG) fires
  // when the *thread* that forked the child exits, not the process.
  static absl::StatusOr<std::unique_ptr<ExecutorProcess>> Launch(
      const std::string& executable, const std::string& device,
      const std::vector<std::string>& extra_args);
  absl::Status WaitReady(const std::string& device, std::chrono::milliseconds ready_timeout);

  // Runs `executable --fd 3 --discover` and returns the CUDA devices it reports.
  static absl::StatusOr<std::vector<v1::DeviceInfo>> Discover(
      const std::string& executable, const std::vector<std::string>& extra_args,
      std::chrono::milliseconds timeout);

  // Sends Shutdown, then waits briefly and kills the process if it lingers.
  ~ExecutorProcess();

  const v1::DeviceInfo& info() const { return info_; }
  pid_t pid() const { return pid_; }

  // Sends the job and blocks until its outcome, forwarding progress. If the process dies or
  // stops answering, returns UNAVAILABLE whose message says how (signal, exit code, hang).
  // `deadline` bounds the whole run: past it the process is killed as hung.
  // One Run at a time.
  absl::StatusOr<internal::v1::JobOutcome> Run(
      const internal::v1::RunJob& job, std::function<void(const v1::Progress&)> on_progress,
      std::chrono::steady_clock::time_point deadline);

  // Asks the running job to stop; if no outcome arrives within `grace`, the process is killed.
  // Thread-safe.
  void Cancel(const std::string& job_id, std::chrono::milliseconds grace);

  // SIGKILL now. Thread-safe.
  void Kill();

  // How the process ended ("killed by signal 9 (Killed)", "exited with code 4"); reaps it.
  std::string ReapAndDescribe();

 private:
  ExecutorProcess(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  static absl::StatusOr<std::pair<pid_t, int>> Spawn(const std::string& executable,
                                                     const std::string& device,
                                                     const std::vector<std::string>& extra_args);
  // Waits up to `grace` for the process to exit, then SIGKILLs it; reaps it either way and
  // keeps its wait status. No-op once reaped.
  void ReapWithin(std::chrono::milliseconds grace);
  // Reads one message, waiting at most until `until`; DEADLINE_EXCEEDED on timeout.
  absl::Status ReadUntil(internal::v1::ExecutorMessage* message,
                         std::chrono::steady_clock::time_point until);

  const pid_t pid_;
  const int fd_;
  v1::DeviceInfo info_;
  std::mutex write_mu_;
  bool reaped_ = false;
  int wait_status_ = 0;
  // steady_clock ticks after which Run kills the process (set by Cancel); 0 = none.
  std::atomic<int64_t> kill_at_{0};
  std::atomic<bool> killed_by_us_{false};
};

}  // namespace kbench::scheduler
