// Supervises one executor child process (kbench-executor) and the socketpair to it: start it, wait
// for its device description, run jobs on it, cancel, and tell how it died. ProcessLauncher starts
// them.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/executor.h"

namespace kbench::scheduler {

// Makes `fd` the child's descriptor `target`, inherited across exec (close-on-exec cleared), also
// when it already is `target`. Async-signal-safe: called between fork and exec. False on error.
bool InheritAt(int fd, int target);

class ExecutorSupervisor : public Executor {
 public:
  // Starts `executable --fd 3 --device DEVICE EXTRA_ARGS...` and waits up to `ready_timeout` for
  // its ready message. UNAVAILABLE with the child's exit cause when it does not come up.
  static absl::StatusOr<std::unique_ptr<ExecutorSupervisor>> Start(
      const std::string& executable, const std::string& device,
      const std::vector<std::string>& extra_args, std::chrono::milliseconds ready_timeout,
      Clock* clock);

  // Runs `executable --fd 3 --discover` and returns the CUDA devices it reports.
  static absl::StatusOr<std::vector<v1::DeviceInfo>> Discover(
      const std::string& executable, const std::vector<std::string>& extra_args,
      std::chrono::milliseconds timeout);

  // Sends Shutdown, then waits briefly and kills the process if it lingers.
  ~ExecutorSupervisor() override;

  const v1::DeviceInfo& info() const override { return info_; }
  pid_t pid() const { return pid_; }

  absl::Status Send(const internal::v1::RunJob& job) override;
  ExecutorEvent Next(const std::string& job_id, absl::Time until) override;
  // Sends the cancel request only: the kill after the grace period is the scheduler's, tied to
  // the job it was meant for (a deadline kept here outlived its job and killed the next one).
  void Cancel(const std::string& job_id) override;
  void Kill() override;
  // How the process ended ("killed by signal 9 (Killed)", "exited with code 4"); reaps it.
  std::string Bury() override;

 private:
  ExecutorSupervisor(pid_t pid, int fd, Clock* clock) : pid_(pid), fd_(fd), clock_(clock) {}
  static absl::StatusOr<std::pair<pid_t, int>> Spawn(const std::string& executable,
                                                     const std::string& device,
                                                     const std::vector<std::string>& extra_args);
  absl::Status WaitReady(const std::string& device, std::chrono::milliseconds ready_timeout);
  // Waits up to `grace` for the process to exit, then SIGKILLs it; reaps it either way and
  // keeps its wait status. No-op once reaped.
  void ReapWithin(std::chrono::milliseconds grace);
  // Reads one message, waiting at most until `until`; DEADLINE_EXCEEDED on timeout.
  absl::Status ReadUntil(internal::v1::ExecutorMessage* message,
                         std::chrono::steady_clock::time_point until);
  // The lost event for a read that failed with `read`: how the process ended, typed.
  ExecutorEvent Lost(const absl::Status& read);

  const pid_t pid_;
  const int fd_;
  Clock* const clock_;
  v1::DeviceInfo info_;
  std::mutex write_mu_;
  bool reaped_ = false;
  int wait_status_ = 0;
  std::atomic<bool> killed_by_us_{false};
};

struct ProcessLauncherOptions {
  // The kbench-executor program.
  std::string executable;
  // Extra flags for executor processes (e.g. --log-format json).
  std::vector<std::string> executor_args;
  std::chrono::milliseconds ready_timeout{60000};
};

// Starts kbench-executor child processes.
class ProcessLauncher : public ExecutorLauncher {
 public:
  ProcessLauncher(ProcessLauncherOptions options, Clock* clock)
      : options_(std::move(options)), clock_(clock) {}
  absl::StatusOr<std::unique_ptr<Executor>> Start(const std::string& device) override;
  absl::StatusOr<std::vector<v1::DeviceInfo>> Discover() override;

 private:
  ProcessLauncherOptions options_;
  Clock* clock_;
};

}  // namespace kbench::scheduler
