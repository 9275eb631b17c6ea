// Spawning, talking to and burying executor child processes.
#include "server/scheduler/executor_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/common/child_environment.h"
#include "server/common/wire.h"

namespace kbench::scheduler {
namespace {

using Steady = std::chrono::steady_clock;
constexpr int kChildFd = 3;
// The pseudo-device that asks kbench-executor to list the CUDA devices and exit.
constexpr char kDiscover[] = "discover";

}  // namespace

bool InheritAt(int fd, int target) {
  // dup2(fd, fd) does nothing, close-on-exec included: when the socket already is the target,
  // the flag is cleared by hand, or the executor would start without its socket.
  if (fd == target) return fcntl(target, F_SETFD, 0) == 0;
  return dup2(fd, target) == target;  // dup2 clears close-on-exec on the copy
}

absl::StatusOr<std::pair<pid_t, int>> ExecutorSupervisor::Spawn(
    const std::string& executable, const std::string& device,
    const std::vector<std::string>& extra_args) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError(absl::StrCat("socketpair: ", std::strerror(errno)));
  }
  // argv is built before fork: between fork and exec only async-signal-safe calls are allowed.
  std::vector<std::string> args = {executable, "--fd", std::to_string(kChildFd)};
  if (device == kDiscover) {
    args.push_back("--discover");
  } else {
    args.insert(args.end(), {"--device", device});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // An empty environment but for what CUDA and the executor read (issue 24): kbenchd's may hold
  // a database password or tokens.
  std::vector<std::string> env = BuildChildEnvironment(ExecutorEnvironment(), ParentEnvironment());
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // An executor must not outlive its daemon (it would hold the GPU): die with the parent.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    if (!InheritAt(fds[1], kChildFd)) _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(executable.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  return std::make_pair(pid, fds[0]);
}

absl::Status ExecutorSupervisor::WaitReady(const std::string& device,
                                           std::chrono::milliseconds ready_timeout) {
  internal::v1::ExecutorMessage m;
  const absl::Status s = ReadUntil(&m, Steady::now() + ready_timeout);
  if (s.ok() && m.has_ready()) {
    info_ = m.ready();
    return absl::OkStatus();
  }
  std::string cause;
  if (absl::IsDeadlineExceeded(s)) {
    Kill();
    cause = "did not become ready in time";
  } else {
    cause = Bury();
  }
  return absl::UnavailableError(absl::StrCat("executor for ", device, " failed to start: ", cause));
}

absl::StatusOr<std::unique_ptr<ExecutorSupervisor>> ExecutorSupervisor::Start(
    const std::string& executable, const std::string& device,
    const std::vector<std::string>& extra_args, std::chrono::milliseconds ready_timeout,
    scheduler::Clock* clock) {
  KBENCH_ASSIGN_OR_RETURN(auto spawned, Spawn(executable, device, extra_args));
  std::unique_ptr<ExecutorSupervisor> p(
      new ExecutorSupervisor(spawned.first, spawned.second, clock));
  KBENCH_RETURN_IF_ERROR(p->WaitReady(device, ready_timeout));
  return p;
}

absl::StatusOr<std::vector<v1::DeviceInfo>> ExecutorSupervisor::Discover(
    const std::string& executable, const std::vector<std::string>& extra_args,
    std::chrono::milliseconds timeout) {
  // `auto`: the pair's comma would split the macro's arguments.
  KBENCH_ASSIGN_OR_RETURN(auto spawned, Spawn(executable, kDiscover, extra_args));
  ExecutorSupervisor p(spawned.first, spawned.second, scheduler::Clock::Real());
  internal::v1::ExecutorMessage m;
  const absl::Status s = p.ReadUntil(&m, Steady::now() + timeout);
  if (!s.ok()) {
    p.Kill();
    return absl::UnavailableError(
        absl::StrCat("device discovery failed: ", s.message(), "; ", p.Bury()));
  }
  return std::vector<v1::DeviceInfo>(m.devices().devices().begin(), m.devices().devices().end());
}

ExecutorSupervisor::~ExecutorSupervisor() {
  if (!reaped_) {
    internal::v1::ExecutorRequest req;
    req.mutable_shutdown();
    {
      std::lock_guard lock(write_mu_);
      (void)WriteDelimited(fd_, req);
    }
    shutdown(fd_, SHUT_WR);
    // A job in progress stops at its next sample; give it a moment, then kill.
    ReapWithin(std::chrono::seconds(1));
  }
  close(fd_);
}

void ExecutorSupervisor::ReapWithin(std::chrono::milliseconds grace) {
  const auto until = Steady::now() + grace;
  while (!reaped_ && Steady::now() < until) {
    if (waitpid(pid_, &wait_status_, WNOHANG) == pid_) {
      reaped_ = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &wait_status_, 0);
    reaped_ = true;
  }
}

absl::Status ExecutorSupervisor::ReadUntil(internal::v1::ExecutorMessage* message,
                                           Steady::time_point until) {
  while (true) {
    const auto now = Steady::now();
    if (now >= until) return absl::DeadlineExceededError("no message from the executor in time");
    const auto wait = std::min<int64_t>(
        100, std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1);
    pollfd pfd{fd_, POLLIN, 0};
    const int r = poll(&pfd, 1, static_cast<int>(wait));
    if (r < 0 && errno != EINTR)
      return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
    if (r > 0) return ReadDelimited(fd_, message);
  }
}

absl::Status ExecutorSupervisor::Send(const internal::v1::RunJob& job) {
  internal::v1::ExecutorRequest req;
  *req.mutable_run() = job;
  std::lock_guard lock(write_mu_);
  if (absl::Status s = WriteDelimited(fd_, req); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("executor ", info_.id(), " is gone: ", Bury()));
  }
  return absl::OkStatus();
}

ExecutorEvent ExecutorSupervisor::Next(const std::string& job_id, absl::Time until) {
  const auto steady_until = Steady::now() + absl::ToChronoNanoseconds(std::max(
                                                absl::ZeroDuration(), until - clock_->Now()));
  while (true) {
    internal::v1::ExecutorMessage m;
    const absl::Status s = ReadUntil(&m, steady_until);
    if (absl::IsDeadlineExceeded(s)) return ExecutorEvent{};
    if (!s.ok()) return Lost(s);
    ExecutorEvent event;
    if (m.has_progress() && m.progress().job_id() == job_id) {
      event.type = ExecutorEvent::Type::kProgress;
      event.progress = m.progress().progress();
      return event;
    }
    if (m.has_outcome() && m.outcome().job_id() == job_id) {
      event.type = ExecutorEvent::Type::kOutcome;
      event.outcome = m.outcome();
      return event;
    }
    // Anything else (a late message about an earlier job) is not this job's business.
  }
}

ExecutorEvent ExecutorSupervisor::Lost(const absl::Status& read) {
  ExecutorEvent event;
  event.type = ExecutorEvent::Type::kLost;
  if (absl::IsDataLoss(read)) {
    // A malformed frame: the stream cannot be resynchronised; the process is replaced.
    Kill();
    event.failure = ExecutorFailure::kWireError;
    event.message = absl::StrCat("executor ", info_.id(), " sent a malformed message (",
                                 read.message(), "); killed (", Bury(), ")");
    return event;
  }
  const std::string how = Bury();
  event.failure = WIFSIGNALED(wait_status_) ? ExecutorFailure::kSignal : ExecutorFailure::kExit;
  event.message = absl::StrCat("executor ", info_.id(), " died while running the job: ", how);
  return event;
}

void ExecutorSupervisor::Cancel(const std::string& job_id) {
  internal::v1::ExecutorRequest req;
  req.mutable_cancel()->set_job_id(job_id);
  std::lock_guard lock(write_mu_);
  (void)WriteDelimited(fd_, req);
}

void ExecutorSupervisor::Kill() {
  killed_by_us_ = true;
  kill(pid_, SIGKILL);
}

std::string ExecutorSupervisor::Bury() {
  // The stream closed; the process is exiting or has exited. Wait at most 5 s, then kill.
  ReapWithin(std::chrono::seconds(5));
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    return absl::StrCat("killed by signal ", sig, " (", strsignal(sig), ")",
                        killed_by_us_ ? " sent by kbenchd" : "");
  }
  if (WIFEXITED(wait_status_)) return absl::StrCat("exited with code ", WEXITSTATUS(wait_status_));
  return "ended";
}

}  // namespace kbench::scheduler

namespace kbench::scheduler {

absl::StatusOr<std::unique_ptr<Executor>> ProcessLauncher::Start(const std::string& device) {
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<ExecutorSupervisor> p,
      ExecutorSupervisor::Start(options_.executable, device, options_.executor_args,
                                options_.ready_timeout, clock_));
  return std::unique_ptr<Executor>(std::move(p));
}

absl::StatusOr<std::vector<v1::DeviceInfo>> ProcessLauncher::Discover() {
  return ExecutorSupervisor::Discover(options_.executable, options_.executor_args,
                                      options_.ready_timeout);
}

}  // namespace kbench::scheduler
