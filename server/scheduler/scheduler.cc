// Per-device workers, executor supervision and job recovery.
#include "server/scheduler/scheduler.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "server/common/logging.h"
#include "server/common/stopping_defaults.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;
using Clock = std::chrono::steady_clock;

int64_t NowNs() { return absl::GetCurrentTimeNanos(); }

// The restart cause label of an executor that died: bounded set for the metric.
std::string CauseLabel(const std::string& message) {
  if (absl::StrContains(message, "hung")) return "hung";
  if (absl::StrContains(message, "signal")) return "signal";
  return "exit";
}

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, store::JobStore* jobs,
                     store::ArtifactStore* artifacts, metrics::Metrics* metrics, JobEvents* events)
    : options_(std::move(options)),
      jobs_(jobs),
      artifacts_(artifacts),
      metrics_(metrics),
      events_(events) {}

Scheduler::~Scheduler() { Shutdown(); }

absl::Status Scheduler::Start() {
  // The cpu device comes up synchronously: without it the daemon is useless.
  auto cpu = std::make_unique<Device>();
  cpu->id = "cpu";
  absl::StatusOr<std::unique_ptr<ExecutorProcess>> cpu_exec =
      ExecutorProcess::Start(options_.executable, "cpu", options_.executor_args,
                             options_.executor_ready_timeout);
  if (!cpu_exec.ok()) return cpu_exec.status();
  MarkReady(cpu.get(), *std::move(cpu_exec));

  std::vector<std::unique_ptr<Device>> found;
  found.push_back(std::move(cpu));
  if (options_.enable_cuda) {
    absl::StatusOr<std::vector<v1::DeviceInfo>> cuda =
        ExecutorProcess::Discover(options_.executable, options_.executor_args,
                                  options_.executor_ready_timeout);
    if (!cuda.ok()) {
      logging::Log(Level::kWarn, "CUDA discovery failed; serving the cpu device only",
                   {Field("error", cuda.status().ToString())});
    } else {
      for (const v1::DeviceInfo& info : *cuda) {
        auto d = std::make_unique<Device>();
        d->id = info.id();
        d->info = info;
        d->info.set_state(v1::DEVICE_STATE_STARTING);
        metrics_->AddGpu(info.id(), info.uuid(), info.name(),
                         std::stoi(info.id().substr(info.id().find(':') + 1)));
        found.push_back(std::move(d));
      }
    }
  }

  // CUDA executors start in parallel (each measures its copy bandwidth), so that ListDevices
  // describes ready devices once the daemon says it is ready. They are forked here, by the
  // thread that lives as long as the daemon (see ExecutorProcess::Launch), and awaited in
  // parallel. One that fails here is retried by its worker with back-off.
  {
    std::vector<std::thread> waiters;
    for (auto& d : found) {
      if (d->executor) continue;
      absl::StatusOr<std::unique_ptr<ExecutorProcess>> exec =
          ExecutorProcess::Launch(options_.executable, d->id, options_.executor_args);
      if (!exec.ok()) continue;
      waiters.emplace_back([this, dev = d.get(), launched = *std::move(exec)]() mutable {
        if (absl::Status s = launched->WaitReady(dev->id, options_.executor_ready_timeout);
            !s.ok()) {
          logging::Log(Level::kError, "executor failed to start",
                       {Field("device", dev->id), Field("error", s.ToString())});
          return;
        }
        MarkReady(dev, std::move(launched));
      });
    }
    for (std::thread& t : waiters) t.join();
  }

  // Recovery: a job RUNNING when the daemon died is re-queued once, then failed.
  absl::StatusOr<std::vector<store::JobRecord>> running =
      jobs_->ListByState(store::JobState::kRunning);
  if (!running.ok()) return running.status();
  for (const store::JobRecord& r : *running) {
    if (r.attempts >= 2) {
      const std::string why = absl::StrCat(
          "the daemon stopped while this job was running, ", r.attempts,
          " times; not retried again (a job that crashes kbenchd would do it forever)");
      FinishJob(r.id, r.device, r.kind, store::JobState::kFailed, "ABORTED", why, r.result);
    } else if (absl::Status s = jobs_->Requeue(r.id); !s.ok()) {
      return s;
    } else {
      logging::LogJob(Level::kInfo, r.id, "re-queued: the daemon stopped while it was running");
    }
  }
  absl::StatusOr<std::vector<store::JobRecord>> queued =
      jobs_->ListByState(store::JobState::kQueued);
  if (!queued.ok()) return queued.status();

  std::lock_guard lock(mu_);
  for (auto& d : found) {
    order_.push_back(d->id);
    devices_[d->id] = std::move(d);
  }
  for (const store::JobRecord& r : *queued) {
    auto it = devices_.find(r.device);
    if (it == devices_.end()) {
      FinishJob(r.id, r.device, r.kind, store::JobState::kFailed, "FAILED_PRECONDITION",
                absl::StrCat("device ", r.device, " is not present on this host any more"),
                "");
      continue;
    }
    it->second->queue.Push({r.id, r.priority, r.seq, r.create_time_ns});
  }
  for (auto& [id, d] : devices_) {
    UpdateQueueGauge(*d);
    d->worker = std::thread([this, dev = d.get()] { WorkerLoop(dev); });
  }
  return absl::OkStatus();
}

void Scheduler::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    // Running jobs are interrupted: their executors are killed and the jobs re-queued.
    for (auto& [id, d] : devices_) {
      if (!d->running_job.empty() && d->executor) d->executor->Kill();
    }
  }
  cv_.notify_all();
  for (const std::string& id : order_) {
    std::thread* worker = nullptr;
    {
      std::lock_guard lock(mu_);
      worker = &devices_[id]->worker;
    }
    if (worker->joinable()) worker->join();
  }
  std::lock_guard lock(mu_);
  for (auto& [id, d] : devices_) d->executor.reset();
}

std::vector<v1::DeviceInfo> Scheduler::Devices() {
  std::lock_guard lock(mu_);
  std::vector<v1::DeviceInfo> out;
  for (const std::string& id : order_) {
    const Device& d = *devices_.at(id);
    v1::DeviceInfo info = d.info;
    info.set_queue_depth(static_cast<int32_t>(d.queue.size() + (d.running_job.empty() ? 0 : 1)));
    info.set_executor_restarts(d.restarts);
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<v1::DeviceInfo> Scheduler::ResolveDevice(const std::string& requested) {
  std::lock_guard lock(mu_);
  std::vector<const Device*> cuda;
  for (const std::string& id : order_) {
    const Device* d = devices_.at(id).get();
    if (d->info.kind() == v1::DEVICE_KIND_CUDA) cuda.push_back(d);
  }
  const Device* chosen = nullptr;
  if (requested.empty() || requested == "cuda:any") {
    if (cuda.empty()) {
      if (requested.empty()) {
        chosen = devices_.at("cpu").get();
      } else {
        return absl::FailedPreconditionError(
            "device: cuda:any was requested but this host has no usable CUDA device");
      }
    } else {
      // The least loaded GPU that is not marked failed.
      for (const Device* d : cuda) {
        if (d->info.state() == v1::DEVICE_STATE_FAILED) continue;
        const auto load = [](const Device* x) { return x->queue.size() + !x->running_job.empty(); };
        if (chosen == nullptr || load(d) < load(chosen)) chosen = d;
      }
      if (chosen == nullptr) chosen = cuda.front();
    }
  } else {
    auto it = devices_.find(requested);
    if (it == devices_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("device: unknown device '", requested,
                                                     "' (available: ", absl::StrJoin(order_, ", "),
                                                     ", cuda:any)"));
    }
    chosen = it->second.get();
  }
  if (chosen->info.state() == v1::DEVICE_STATE_FAILED) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device: ", chosen->id, " is unavailable: its executor failed to start repeatedly"));
  }
  return chosen->info;
}

void Scheduler::Enqueue(const store::JobRecord& record) {
  {
    std::lock_guard lock(mu_);
    auto it = devices_.find(record.device);
    if (it == devices_.end()) return;  // ResolveDevice guarantees it exists
    it->second->queue.Push({record.id, record.priority, record.seq, record.create_time_ns});
    UpdateQueueGauge(*it->second);
  }
  cv_.notify_all();
}

absl::Status Scheduler::Cancel(const std::string& job_id, std::chrono::milliseconds wait) {
  absl::StatusOr<store::JobRecord> record = jobs_->Get(job_id);
  if (!record.ok()) return record.status();
  if (store::IsTerminal(record->state)) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is already ",
                                                      store::JobStateName(record->state),
                                                      "; only queued or running jobs can be cancelled"));
  }
  bool removed = false;
  {
    std::lock_guard lock(mu_);
    cancel_requested_.insert(job_id);
    for (auto& [id, d] : devices_) {
      if (d->queue.Remove(job_id)) {
        removed = true;
        UpdateQueueGauge(*d);
      } else if (d->running_job == job_id && d->executor) {
        d->executor->Cancel(job_id, options_.cancel_grace);
      }
    }
  }
  if (removed) {
    {
      std::lock_guard lock(mu_);
      cancel_requested_.erase(job_id);
    }
    FinishJob(job_id, record->device, record->kind, store::JobState::kCancelled, "CANCELLED",
              "cancelled while queued", "");
    return absl::OkStatus();
  }
  // Running (or about to start): the worker finishes it as CANCELLED; wait for that.
  const auto until = Clock::now() + wait;
  uint64_t seen = events_->Version(job_id);
  while (Clock::now() < until) {
    absl::StatusOr<store::JobRecord> now = jobs_->Get(job_id);
    if (now.ok() && store::IsTerminal(now->state)) break;
    seen = events_->WaitForChange(job_id, seen, std::min(until, Clock::now() + std::chrono::milliseconds(200)));
  }
  return absl::OkStatus();
}

void Scheduler::MarkReady(Device* device, std::unique_ptr<ExecutorProcess> executor) {
  device->executor = std::move(executor);
  device->info = device->executor->info();
  device->info.set_id(device->id);  // the daemon's name for it, whatever the executor says
  device->info.set_state(v1::DEVICE_STATE_READY);
  device->start_failures = 0;
}

void Scheduler::UpdateQueueGauge(const Device& device) {
  metrics_->SetQueueDepth(device.id, static_cast<int64_t>(device.queue.size()));
}

bool Scheduler::EnsureExecutor(Device* device, std::unique_lock<std::mutex>& lock) {
  if (device->executor) return true;
  const bool first = device->info.state() == v1::DEVICE_STATE_STARTING;
  if (!first) device->info.set_state(v1::DEVICE_STATE_RESTARTING);
  lock.unlock();
  absl::StatusOr<std::unique_ptr<ExecutorProcess>> exec =
      ExecutorProcess::Start(options_.executable, device->id, options_.executor_args,
                             options_.executor_ready_timeout);
  lock.lock();
  if (exec.ok()) {
    MarkReady(device, *std::move(exec));
    logging::Log(Level::kInfo, "executor ready",
                 {Field("device", device->id), Field("pid", device->executor->pid())});
    return true;
  }
  ++device->start_failures;
  metrics_->ExecutorRestarted(device->id, "start_failed");
  logging::Log(Level::kError, "executor failed to start",
               {Field("device", device->id), Field("failures", device->start_failures),
                Field("max_failures", options_.max_start_failures),
                Field("error", exec.status().ToString())});
  if (device->start_failures >= options_.max_start_failures) {
    device->info.set_state(v1::DEVICE_STATE_FAILED);
    // Nothing will run there: fail its queued jobs with the cause instead of losing them.
    std::vector<QueuedJob> doomed;
    while (auto q = device->queue.Pop()) doomed.push_back(*q);
    UpdateQueueGauge(*device);
    const std::string why = absl::StrCat("device ", device->id, " is unavailable: ",
                                         exec.status().message());
    lock.unlock();
    for (const QueuedJob& q : doomed) {
      absl::StatusOr<store::JobRecord> r = jobs_->Get(q.id);
      FinishJob(q.id, device->id, r.ok() ? r->kind : "benchmark", store::JobState::kFailed,
                "UNAVAILABLE", why, "");
    }
    lock.lock();
  }
  return false;
}

void Scheduler::WorkerLoop(Device* device) {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (device->info.state() == v1::DEVICE_STATE_FAILED) {
      // Jobs cannot be submitted to a failed device; only shutdown ends this wait.
      cv_.wait(lock, [&] { return stopping_; });
      break;
    }
    if (!device->executor && !EnsureExecutor(device, lock)) {
      // Back off before the next start: 1 s, 2 s, 4 s, ... up to 30 s.
      const auto backoff = std::chrono::seconds(std::min(30, 1 << std::min(device->start_failures, 5)));
      cv_.wait_for(lock, backoff, [&] { return stopping_; });
      continue;
    }
    cv_.wait(lock, [&] { return stopping_ || !device->queue.empty(); });
    if (stopping_) break;
    std::optional<QueuedJob> next = device->queue.Pop();
    UpdateQueueGauge(*device);
    if (next) RunJob(device, *next, lock);
  }
}

void Scheduler::RunJob(Device* device, const QueuedJob& queued, std::unique_lock<std::mutex>& lock) {
  const std::string id = queued.id;
  const bool cancelled_early = cancel_requested_.erase(id) > 0;
  device->running_job = id;
  lock.unlock();

  absl::StatusOr<store::JobRecord> record = jobs_->Get(id);
  auto done = [&] {
    lock.lock();
    device->running_job.clear();
    cancel_requested_.erase(id);
  };
  if (!record.ok() || record->state != store::JobState::kQueued) {
    done();
    return;
  }
  if (cancelled_early) {
    FinishJob(id, device->id, record->kind, store::JobState::kCancelled, "CANCELLED",
              "cancelled before it started", "");
    done();
    return;
  }
  v1::JobSpec spec;
  if (!spec.ParseFromString(record->spec)) {
    FinishJob(id, device->id, record->kind, store::JobState::kFailed, "DATA_LOSS",
              "the stored job spec is unreadable", "");
    done();
    return;
  }
  const int64_t start_ns = NowNs();
  if (absl::Status s = jobs_->MarkRunning(id, start_ns); !s.ok()) {
    logging::LogJob(Level::kError, id, "cannot be marked running", {Field("error", s.ToString())});
    done();
    return;
  }
  events_->Publish(id);
  metrics_->ObserveQueueWait(device->id, static_cast<double>(start_ns - record->create_time_ns) / 1e9);
  logging::LogJob(Level::kInfo, id, "started",
                  {Field("device", device->id), Field("attempt", record->attempts + 1)});

  internal::v1::RunJob run;
  run.set_job_id(id);
  *run.mutable_spec() = spec;
  absl::StatusOr<std::string> work_dir = artifacts_->WorkDir(id);
  if (!work_dir.ok()) {
    FinishJob(id, device->id, record->kind, store::JobState::kFailed, "INTERNAL",
              absl::StrCat("cannot create the job's work directory: ", work_dir.status().message()), "");
    done();
    return;
  }
  run.set_artifact_dir(*work_dir);
  const double timeout_s = spec.stopping().timeout_seconds() > 0 ? spec.stopping().timeout_seconds()
                                                                 : kDefaultTimeoutSeconds;
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)) +
                        options_.hang_slack;

  absl::StatusOr<internal::v1::JobOutcome> outcome = device->executor->Run(
      run, [&](const v1::Progress& p) { events_->Publish(id, &p); }, deadline);
  const double run_seconds = static_cast<double>(NowNs() - start_ns) / 1e9;

  if (!outcome.ok()) {
    // The executor died: the job fails with the cause, a fresh executor takes the next job.
    lock.lock();
    const bool interrupted = stopping_;
    const bool cancelled = cancel_requested_.contains(id);
    device->executor.reset();
    ++device->restarts;
    lock.unlock();
    if (interrupted) {
      (void)jobs_->Requeue(id);
      events_->Publish(id);
      logging::LogJob(Level::kInfo, id, "interrupted by shutdown; re-queued");
    } else {
      metrics_->ExecutorRestarted(device->id, CauseLabel(std::string(outcome.status().message())));
      logging::LogJob(Level::kError, id, "executor lost",
                      {Field("device", device->id), Field("error", std::string(outcome.status().message()))});
      if (cancelled) {
        FinishJob(id, device->id, record->kind, store::JobState::kCancelled, "CANCELLED",
                  absl::StrCat("cancelled; the executor did not stop in time and was killed"), "");
      } else {
        FinishJob(id, device->id, record->kind, store::JobState::kFailed, "UNAVAILABLE",
                  std::string(outcome.status().message()), "");
      }
      metrics_->ObserveRunDuration(record->kind, device->id, run_seconds);
    }
    done();
    return;
  }

  for (const internal::v1::ArtifactFile& a : outcome->artifacts()) {
    absl::StatusOr<store::ArtifactRecord> imported =
        artifacts_->Import(id, a.name(), a.path(), a.content_type());
    if (!imported.ok()) {
      logging::LogJob(Level::kWarn, id, "artifact not stored",
                      {Field("artifact", a.name()), Field("error", imported.status().ToString())});
    }
  }
  if (absl::StatusOr<int64_t> bytes = artifacts_->TotalBytes(); bytes.ok()) {
    metrics_->SetArtifactBytes(*bytes);
  }
  const std::string result = outcome->result().SerializeAsString();
  if (outcome->code() == 0) {
    FinishJob(id, device->id, record->kind, store::JobState::kSucceeded, "", "", result);
  } else if (outcome->cancelled()) {
    FinishJob(id, device->id, record->kind, store::JobState::kCancelled, "CANCELLED",
              outcome->message(), result);
  } else {
    const std::string code = absl::StatusCodeToString(static_cast<absl::StatusCode>(outcome->code()));
    FinishJob(id, device->id, record->kind, store::JobState::kFailed, code, outcome->message(), result);
  }
  metrics_->ObserveRunDuration(record->kind, device->id, run_seconds);
  if (outcome->restart_executor()) {
    lock.lock();
    device->executor.reset();
    ++device->restarts;
    lock.unlock();
    metrics_->ExecutorRestarted(device->id, "sticky_error");
    logging::LogJob(Level::kWarn, id, "left the CUDA context unusable; restarting the executor",
                    {Field("device", device->id)});
  }
  done();
}

void Scheduler::FinishJob(const std::string& job_id, const std::string& device,
                          const std::string& kind, store::JobState state, const std::string& code,
                          const std::string& error, const std::string& result) {
  const absl::Status s = jobs_->Finish(job_id, state, code, error, result, NowNs());
  if (!s.ok()) {
    logging::LogJob(Level::kError, job_id, "cannot be finished",
                    {Field("state", store::JobStateName(state)), Field("error", s.ToString())});
    return;
  }
  metrics_->JobFinished(kind, device, store::JobStateName(state));
  events_->Finished(job_id);
  if (state == store::JobState::kSucceeded) {
    logging::LogJob(Level::kInfo, job_id, "succeeded", {Field("device", device)});
  } else {
    logging::LogJob(Level::kInfo, job_id, store::JobStateName(state),
                    {Field("device", device), Field("error", error), Field("code", code)});
  }
}

}  // namespace kbench::scheduler
