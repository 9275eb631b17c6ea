// The executor process: protocol loop around a DeviceBackend.
#include "server/executor/executor_loop.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "kbench/internal/v1/executor.pb.h"
#include "server/common/device_id.h"
#include "server/common/idle_gate_flag.h"
#include "server/common/wire.h"
#include "server/executor/backend.h"

namespace kbench::executor {
namespace {

using internal::v1::ExecutorMessage;
using internal::v1::ExecutorRequest;

class ExecutorLoop {
 public:
  ExecutorLoop(std::unique_ptr<DeviceBackend> backend, int fd)
      : backend_(std::move(backend)), fd_(fd) {}

  int Run(const std::string& device) {
    absl::StatusOr<v1::DeviceInfo> info = backend_->Initialize();
    if (!info.ok()) {
      std::fprintf(stderr, "kbench-executor %s: cannot start: %s\n", device.c_str(),
                   info.status().ToString().c_str());
      return 2;
    }
    ExecutorMessage ready;
    *ready.mutable_ready() = *info;
    if (!Send(ready)) return 3;

    std::thread reader([this] { ReadRequests(); });
    int code = 0;
    while (true) {
      internal::v1::RunJob job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !jobs_.empty() || closed_; });
        if (jobs_.empty()) break;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        running_job_ = job.job_id();
        cancelled_ = cancel_requested_.erase(job.job_id()) > 0;
      }
      RunOne(job);
      {
        std::lock_guard lock(mu_);
        running_job_.clear();
      }
      if (backend_->NeedsRestart()) {
        code = 4;  // the supervisor starts a fresh executor
        break;
      }
    }
    // The reader blocks in read(); the supervisor closes its end (or we exit) to end it.
    reader.detach();
    return code;
  }

 private:
  bool Send(const ExecutorMessage& m) {
    std::lock_guard lock(write_mu_);
    const absl::Status s = WriteDelimited(fd_, m);
    if (!s.ok()) std::fprintf(stderr, "kbench-executor: %s\n", s.ToString().c_str());
    return s.ok();
  }

  void ReadRequests() {
    while (true) {
      ExecutorRequest req;
      const absl::Status s = ReadDelimited(fd_, &req);
      std::lock_guard lock(mu_);
      if (!s.ok() || req.has_shutdown()) {
        closed_ = true;
        cancelled_ = true;  // a job still running stops at its next sample
        cv_.notify_all();
        return;
      }
      if (req.has_run()) {
        jobs_.push_back(req.run());
        cv_.notify_all();
      } else if (req.has_cancel()) {
        if (req.cancel().job_id() == running_job_) {
          cancelled_ = true;
        } else {
          cancel_requested_.insert(req.cancel().job_id());
        }
      }
    }
  }

  void RunOne(const internal::v1::RunJob& job) {
    JobContext ctx;
    ctx.job = &job;
    ctx.cancelled = &cancelled_;
    ctx.progress = [&](const v1::Progress& p) {
      ExecutorMessage m;
      m.mutable_progress()->set_job_id(job.job_id());
      *m.mutable_progress()->mutable_progress() = p;
      Send(m);
    };
    std::vector<internal::v1::ArtifactFile> kept_on_failure;
    ctx.kept_on_failure = &kept_on_failure;
    ExecutorMessage m;
    internal::v1::JobOutcome* outcome = m.mutable_outcome();
    outcome->set_job_id(job.job_id());
    absl::StatusOr<JobRun> run;
    if (cancelled_.load()) {
      run = absl::CancelledError("job cancelled before it started");
    } else if (job.spec().kind() == v1::JOB_KIND_COMPILE) {
      run = RunCompileJob(ctx);  // no device work: any executor compiles
    } else {
      run = backend_->Run(ctx);
    }
    if (run.ok()) {
      *outcome->mutable_result() = run->result;
      for (const auto& a : run->artifacts) *outcome->add_artifacts() = a;
    } else {
      outcome->set_code(static_cast<int>(run.status().code()));
      outcome->set_message(std::string(run.status().message()));
      outcome->set_cancelled(absl::IsCancelled(run.status()));
      outcome->set_restart_executor(backend_->NeedsRestart());
      for (const auto& a : kept_on_failure) *outcome->add_artifacts() = a;
    }
    Send(m);
  }

  std::unique_ptr<DeviceBackend> backend_;
  const int fd_;
  std::mutex write_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<internal::v1::RunJob> jobs_;
  std::set<std::string> cancel_requested_;
  std::string running_job_;
  bool closed_ = false;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

int RunDiscovery(int fd) {
  absl::StatusOr<std::vector<v1::DeviceInfo>> devices = DiscoverCudaDevices();
  ExecutorMessage m;
  if (devices.ok()) {
    for (const auto& d : *devices) *m.mutable_devices()->add_devices() = d;
  } else {
    std::fprintf(stderr, "kbench-executor: CUDA discovery: %s\n",
                 devices.status().ToString().c_str());
  }
  return WriteDelimited(fd, m).ok() ? 0 : 3;
}

int RunExecutorLoop(const std::string& device, int fd, const std::vector<std::string>& idle_gates) {
  std::unique_ptr<DeviceBackend> backend;
  const absl::StatusOr<DeviceId> id = ParseDeviceId(device);
  if (id.ok() && id->kind == DeviceId::Kind::kCpu) {
    backend = MakeCpuBackend();
  } else if (id.ok() && id->kind == DeviceId::Kind::kCuda) {
    IdleGateOptions gate;
    if (std::optional<IdleGateSpec> spec = IdleGateFor(device, idle_gates); spec.has_value()) {
      gate.timeout_seconds = spec->timeout_seconds;
      gate.max_temperature_c = spec->max_temperature_c;
    }
    backend = MakeCudaBackend(id->ordinal, gate);
  } else {  // Includes "cuda:any": the supervisor names one device per executor.
    std::fprintf(stderr, "kbench-executor: unknown device '%s'\n", device.c_str());
    return 2;
  }
  ExecutorLoop loop(std::move(backend), fd);
  return loop.Run(device);
}

}  // namespace kbench::executor
