// The scheduler's public face: start (devices, recovery, workers), shutdown, device lookup,
// enqueue and cancel. The per-device worker is in device_worker.cc.
#include "server/scheduler/scheduler.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "server/common/logging.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

std::string DeviceHealthService(const std::string& device) {
  return absl::StrCat("kbench.device.", device);
}

Scheduler::Scheduler(SchedulerOptions options, ExecutorLauncher* launcher, Clock* clock,
                     store::JobStore* jobs, store::ArtifactStore* artifacts,
                     metrics::Metrics* metrics, JobEvents* events)
    : options_(options),
      launcher_(launcher),
      clock_(clock),
      artifacts_(artifacts),
      metrics_(metrics),
      events_(events),
      lifecycle_(jobs, metrics, events, clock),
      accounts_(options.fair_share_half_life) {}

Scheduler::~Scheduler() { Shutdown(); }

absl::Status Scheduler::Start() {
  KBENCH_RETURN_IF_ERROR(ReplayUsage());
  std::vector<std::unique_ptr<Device>> found = FindDevices();
  std::vector<store::JobRecord> queued;
  if (options_.recover_jobs) {
    KBENCH_ASSIGN_OR_RETURN(queued, lifecycle_.Recover());
  }
  // No job runs yet: whatever an executor left in work/ (a crash, a kill) goes now.
  if (absl::StatusOr<int64_t> swept = artifacts_->SweepWorkDirs(); !swept.ok()) {
    logging::Log(Level::kWarn, "work directories not swept",
                 {Field("error", swept.status().ToString())});
  } else if (*swept > 0) {
    logging::Log(Level::kInfo, "work directories left by earlier runs removed",
                 {Field("count", *swept)});
  }
  std::vector<store::JobRecord> orphans;
  {
    std::lock_guard lock(mu_);
    for (auto& d : found) {
      order_.push_back(d->id);
      devices_[d->id] = std::move(d);
    }
    orphans = QueueRecoveredJobs(queued);
    // Each worker starts its own executor (in parallel, on its own thread).
    const WorkerParts parts{options_, launcher_, clock_,      artifacts_,
                            metrics_, events_,   &lifecycle_, this};
    for (const std::string& id : order_) {
      workers_.push_back(std::make_unique<DeviceWorker>(
          devices_.at(id).get(), parts,
          SchedulerSync{mu_, cv_, stopping_, cancel_requested_, gangs_}));
      workers_.back()->Start();
    }
  }
  for (const store::JobRecord& r : orphans) {
    // A GPU that left the host: its jobs end with the cause instead of waiting forever.
    lifecycle_.Finish(r, JobEnd::Failed(absl::StatusCode::kFailedPrecondition,
                                        absl::StrCat("device ", r.device,
                                                     " is not present on this host any more")));
  }
  return AwaitFirstStarts();
}

std::vector<std::unique_ptr<Scheduler::Device>> Scheduler::FindDevices() {
  std::vector<std::unique_ptr<Device>> found;
  auto cpu = std::make_unique<Device>();
  cpu->id = "cpu";
  cpu->parsed = DeviceId::Cpu();
  cpu->info.set_id("cpu");
  cpu->info.set_kind(v1::DEVICE_KIND_CPU);
  SetDeviceState(*metrics_, *cpu, v1::DEVICE_STATE_STARTING);
  found.push_back(std::move(cpu));
  if (!options_.enable_cuda) return found;
  absl::StatusOr<std::vector<v1::DeviceInfo>> cuda = launcher_->Discover();
  if (!cuda.ok()) {
    logging::Log(Level::kWarn, "CUDA discovery failed; serving the cpu device only",
                 {Field("error", cuda.status().ToString())});
    return found;
  }
  for (const v1::DeviceInfo& info : *cuda) {
    absl::StatusOr<DeviceId> id = ParseDeviceId(info.id());
    if (!id.ok() || id->kind != DeviceId::Kind::kCuda) {
      logging::Log(Level::kError, "discovery reported a bad device id; ignored",
                   {Field("id", info.id())});
      continue;
    }
    auto d = std::make_unique<Device>();
    d->id = id->ToString();
    d->parsed = *id;
    d->info = info;
    SetDeviceState(*metrics_, *d, v1::DEVICE_STATE_STARTING);
    metrics_->AddGpu(d->id, info.uuid(), info.name(), id->ordinal);
    found.push_back(std::move(d));
  }
  return found;
}

std::vector<store::JobRecord> Scheduler::QueueRecoveredJobs(
    const std::vector<store::JobRecord>& queued) {
  std::vector<store::JobRecord> orphans;
  for (const store::JobRecord& r : queued) {
    auto it = devices_.find(r.device);
    if (it == devices_.end()) {
      orphans.push_back(r);
      continue;
    }
    it->second->queue.Push(QueuedJobOf(r));
  }
  for (auto& [id, d] : devices_) UpdateQueueGauge(*metrics_, *d);
  return orphans;
}

absl::Status Scheduler::AwaitFirstStarts() {
  std::unique_lock lock(mu_);
  // Bounded by the launcher's own ready timeout: each first start returns, ready or failed.
  cv_.wait(lock, [&] {
    return std::all_of(devices_.begin(), devices_.end(),
                       [](const auto& d) { return d.second->tried_once; });
  });
  if (devices_.at("cpu")->executor) return absl::OkStatus();
  lock.unlock();
  Shutdown();
  return absl::UnavailableError("the cpu executor failed to start; see the log for its cause");
}

void Scheduler::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    // Running jobs are interrupted: their executors are killed and the jobs re-queued.
    for (auto& [id, d] : devices_) {
      if (d->running && d->executor) d->executor->Kill();
    }
  }
  cv_.notify_all();
  // Fixed since Start, which returned before any Shutdown.
  for (const std::unique_ptr<DeviceWorker>& worker : workers_) worker->Join();
  std::lock_guard lock(mu_);
  for (auto& [id, d] : devices_) d->executor.reset();
}

void Scheduler::ReportHealthTo(HealthReporter reporter) {
  std::lock_guard lock(mu_);
  health_ = std::move(reporter);
  PublishHealth();
}

void Scheduler::SetStoreWritable(bool writable) {
  std::lock_guard lock(mu_);
  store_writable_ = writable;
  PublishHealth();
}

void Scheduler::PublishHealth() {
  if (!health_) return;
  bool any = false;
  for (const auto& [id, d] : devices_) {
    health_(DeviceHealthService(id), Usable(d->info));
    any = any || Usable(d->info);
  }
  health_(kStoreHealthService, store_writable_);
  health_("", any && store_writable_);
}

std::vector<v1::DeviceInfo> Scheduler::Devices() {
  std::lock_guard lock(mu_);
  std::vector<v1::DeviceInfo> out;
  for (const std::string& id : order_) {
    const Device& d = *devices_.at(id);
    v1::DeviceInfo info = d.info;
    info.set_queue_depth(static_cast<int32_t>(d.queue.size() + (d.running ? 1 : 0)));
    info.set_executor_restarts(d.restarts);
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<v1::DeviceInfo> Scheduler::ResolveDevice(const std::string& requested) {
  std::lock_guard lock(mu_);
  const bool has_cuda = order_.size() > 1;  // cpu first, then the CUDA devices
  absl::StatusOr<DeviceId> parsed = requested.empty()
                                        ? (has_cuda ? DeviceId::AnyCuda() : DeviceId::Cpu())
                                        : ParseDeviceId(requested);
  if (!parsed.ok())
    return absl::InvalidArgumentError(absl::StrCat("device: ", parsed.status().message()));
  const Device* chosen = nullptr;
  if (parsed->kind == DeviceId::Kind::kAnyCuda) {
    if (!has_cuda) {
      return absl::FailedPreconditionError(
          "device: cuda:any was requested but this host has no CUDA device");
    }
    const auto load = [](const Device* x) { return x->queue.size() + (x->running ? 1 : 0); };
    for (const auto& [id, d] : devices_) {
      if (d->parsed.kind != DeviceId::Kind::kCuda || !Usable(d->info)) continue;
      if (chosen == nullptr || load(d.get()) < load(chosen)) chosen = d.get();
    }
    if (chosen == nullptr) {
      return absl::UnavailableError(
          "device: every CUDA device is unavailable now (their "
          "executors do not start); retry later");
    }
  } else {
    auto it = devices_.find(parsed->ToString());
    if (it == devices_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("device: unknown device '", requested,
                                                     "' (available: ", absl::StrJoin(order_, ", "),
                                                     has_cuda ? ", cuda:any)" : ")"));
    }
    chosen = it->second.get();
  }
  if (!Usable(chosen->info)) {
    return absl::UnavailableError(absl::StrCat(
        "device: ", chosen->id, " is unavailable now: its executor fails to start; retry later"));
  }
  return chosen->info;
}

absl::StatusOr<std::pair<store::JobRecord, bool>> Scheduler::Submit(store::JobRecord record) {
  KBENCH_ASSIGN_OR_RETURN(auto created, lifecycle_.Create(std::move(record)));
  if (created.second) Enqueue(created.first);
  return created;
}

void Scheduler::Enqueue(const store::JobRecord& record) {
  std::string why;
  {
    std::lock_guard lock(mu_);
    auto it = devices_.find(record.device);
    if (it == devices_.end()) {
      why = absl::StrCat("device ", record.device, " is not present on this host");
    } else if (!Usable(it->second->info)) {
      // It failed between the submit's ResolveDevice and now: fail, do not strand the job.
      why = absl::StrCat("device ", record.device,
                         " became unavailable: its executor fails to start");
    } else {
      it->second->queue.Push(QueuedJobOf(record));
      UpdateQueueGauge(*metrics_, *it->second);
      PublishPlaces(*events_, *it->second);
    }
  }
  if (!why.empty()) {
    lifecycle_.Finish(record, JobEnd::Failed(absl::StatusCode::kUnavailable, why));
    return;
  }
  cv_.notify_all();
}

absl::Status Scheduler::Cancel(const std::string& job_id, std::chrono::milliseconds wait) {
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord record, lifecycle_.Get(job_id));
  if (store::IsTerminal(record.state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", store::JobStateName(record.state),
                     "; only queued or running jobs can be cancelled"));
  }
  bool removed = false;
  {
    std::lock_guard lock(mu_);
    cancel_requested_.insert(job_id);
    for (auto& [id, d] : devices_) {
      if (d->queue.Remove(job_id)) {
        removed = true;
        UpdateQueueGauge(*metrics_, *d);
      } else if (d->running && d->running->id == job_id && d->executor && !d->running->kill_at &&
                 !d->running->gang_member) {
        // The kill deadline belongs to this run of this job: it ends with the run.
        d->executor->Cancel(job_id);
        d->running->kill_at = clock_->Now() + options_.cancel_grace;
      }
    }
    if (removed) cancel_requested_.erase(job_id);
  }
  cv_.notify_all();  // a multi-GPU job waiting for its devices ends at once
  if (removed) {
    lifecycle_.Finish(record, JobEnd::Cancelled("cancelled while queued"));
    return absl::OkStatus();
  }
  // Running (or about to start): the worker finishes it as CANCELLED; wait for that.
  const auto until = std::chrono::steady_clock::now() + wait;
  uint64_t seen = events_->Version(job_id);
  while (std::chrono::steady_clock::now() < until) {
    absl::StatusOr<store::JobRecord> now = lifecycle_.Get(job_id);
    if (now.ok() && store::IsTerminal(now->state)) break;
    seen = events_->WaitForChange(job_id, seen, until);
  }
  return absl::OkStatus();
}

std::vector<v1::NodeInfo> Scheduler::Nodes() {
  v1::NodeInfo node;
  node.set_alive(true);
  node.set_version(options_.version);
  if (options_.start_time != absl::InfinitePast()) {
    const int64_t ns = absl::ToUnixNanos(options_.start_time);
    node.mutable_start_time()->set_seconds(ns / 1'000'000'000);
    node.mutable_start_time()->set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
  }
  for (v1::DeviceInfo& d : Devices()) *node.add_devices() = std::move(d);
  return {node};
}

}  // namespace kbench::scheduler
