// A device's worker: keeps its executor started (capped back-off, never giving up), takes the
// next job off the queue, supervises the run against its deadlines, and records the outcome.
#include "server/scheduler/device_worker.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/common/artifact_write_error.h"
#include "server/common/logging.h"
#include "server/common/run_budget.h"
#include "server/scheduler/long_errors.h"
#include "server/store/resilient_job_store.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

void UpdateQueueGauge(metrics::Metrics& metrics, const DeviceState& device) {
  metrics.SetQueueDepth(device.id, static_cast<int64_t>(device.queue.size()));
}

void SetDeviceState(metrics::Metrics& metrics, DeviceState& device, v1::DeviceState state) {
  device.info.set_state(state);
  // "DEVICE_STATE_READY" -> "ready", the word kbctl devices shows.
  metrics.SetDeviceState(device.id, absl::AsciiStrToLower(v1::DeviceState_Name(state).substr(13)));
}

void PublishPlaces(JobEvents& events, const DeviceState& device) {
  for (const QueuedJob& job : device.queue.Jobs()) events.Publish(job.id);
}

DeviceWorker::DeviceWorker(DeviceState* device, WorkerParts parts, SchedulerSync sync)
    : device_(device), parts_(parts), sync_(sync) {}

DeviceWorker::~DeviceWorker() { Join(); }

void DeviceWorker::Start() {
  // The thread that forks the executor must live as long as the daemon (PR_SET_PDEATHSIG
  // follows the forking thread): the worker's own thread starts it.
  thread_ = std::thread([this] { Loop(); });
}

void DeviceWorker::Join() {
  if (thread_.joinable()) thread_.join();
}

void DeviceWorker::Loop() {
  std::unique_lock lock(sync_.mu);
  while (!sync_.stopping) {
    if (!device_->executor) {
      if (!StartExecutor(lock)) WaitBeforeRetry(lock);
      continue;
    }
    // A device that a multi-GPU job holds or waits for starts nothing of its own (gang_line.h).
    sync_.cv.wait(lock, [&] {
      return sync_.stopping || (!device_->queue.empty() && !sync_.gangs.Blocks(device_->id));
    });
    if (sync_.stopping) break;
    const absl::Time now = parts_.clock->Now();
    std::optional<QueuedJob> next = device_->queue.Pop(
        [&](const std::string& owner) { return parts_.host->OwnerUsageNow(owner, now); });
    if (next && NeedsFreshExecutor(*next)) {
      // The job goes back in its place and runs on the fresh executor the loop starts.
      device_->queue.Push(*next);
      lock.unlock();
      logging::Log(Level::kInfo, "restarting the executor for another owner (--isolate-owners)",
                   {Field("device", device_->id), Field("owner", next->owner)});
      ReplaceExecutor(ExecutorFailure::kOwnerChanged);
      lock.lock();
      continue;
    }
    UpdateQueueGauge(*parts_.metrics, *device_);
    PublishPlaces(*parts_.events, *device_);
    if (next) {
      device_->last_owner = next->owner;
      if (next->devices.size() > 1) {
        RunGangJob(*next, lock);
      } else {
        RunJob(*next, lock);
      }
    }
    if (next && device_->queue.empty()) {
      lock.unlock();
      parts_.host->DeviceIdle();
      lock.lock();
    }
  }
}

bool DeviceWorker::StartExecutor(std::unique_lock<std::mutex>& lock) {
  if (device_->tried_once && device_->info.state() != v1::DEVICE_STATE_FAILED) {
    SetDeviceState(*parts_.metrics, *device_, v1::DEVICE_STATE_RESTARTING);
  }
  lock.unlock();
  absl::StatusOr<std::unique_ptr<Executor>> exec = parts_.launcher->Start(device_->id);
  lock.lock();
  device_->tried_once = true;
  sync_.cv.notify_all();  // Start() waits for every device's first try
  if (exec.ok()) {
    MarkReady(*std::move(exec));
    logging::Log(Level::kInfo, "executor ready", {Field("device", device_->id)});
    return true;
  }
  ++device_->start_failures;
  parts_.metrics->ExecutorRestarted(device_->id, ExecutorFailure::kStartFailed);
  logging::Log(Level::kError, "executor failed to start",
               {Field("device", device_->id), Field("failures", device_->start_failures),
                Field("error", exec.status().ToString())});
  if (device_->start_failures >= parts_.options.max_start_failures) {
    MarkUnusable(std::string(exec.status().message()), lock);
  }
  return false;
}

void DeviceWorker::MarkUnusable(const std::string& why, std::unique_lock<std::mutex>& lock) {
  const bool was_usable = device_->info.state() != v1::DEVICE_STATE_FAILED;
  SetDeviceState(*parts_.metrics, *device_, v1::DEVICE_STATE_FAILED);
  if (was_usable) parts_.host->PublishHealth();
  // Nothing runs there until a start succeeds: fail its queued jobs with the cause.
  std::vector<QueuedJob> doomed;
  while (std::optional<QueuedJob> q = device_->queue.Pop()) doomed.push_back(*q);
  UpdateQueueGauge(*parts_.metrics, *device_);
  lock.unlock();
  for (const QueuedJob& q : doomed) {
    FailJob(q.id, absl::StatusCode::kUnavailable,
            absl::StrCat("device ", device_->id, " is unavailable: ", why));
  }
  lock.lock();
}

void DeviceWorker::WaitBeforeRetry(std::unique_lock<std::mutex>& lock) {
  // initial, 2x, 4x, ... capped: a GPU that comes back after a reset is picked up again.
  absl::Duration backoff = parts_.options.initial_backoff;
  for (int i = 1; i < device_->start_failures && backoff < parts_.options.max_backoff; ++i)
    backoff *= 2;
  backoff = std::min(backoff, parts_.options.max_backoff);
  parts_.clock->WaitUntil(sync_.cv, lock, parts_.clock->Now() + backoff,
                          [&] { return sync_.stopping; });
}

bool DeviceWorker::NeedsFreshExecutor(const QueuedJob& next) const {
  return parts_.options.isolate_owners && device_->id != "cpu" && device_->last_owner.has_value() &&
         *device_->last_owner != next.owner;
}

void DeviceWorker::MarkReady(std::unique_ptr<Executor> executor) {
  device_->executor = std::move(executor);
  device_->last_owner.reset();
  device_->info = device_->executor->info();
  device_->info.set_id(device_->id);  // the daemon's name for it, whatever the executor says
  SetDeviceState(*parts_.metrics, *device_, v1::DEVICE_STATE_READY);
  device_->start_failures = 0;
  parts_.host->PublishHealth();
}

void DeviceWorker::RunJob(const QueuedJob& queued, std::unique_lock<std::mutex>& lock) {
  device_->running = RunningJob{queued.id, std::nullopt, queued.owner, parts_.clock->Now(),
                                parts_.host->ExpectedSeconds(queued, nullptr)};
  const bool cancelled_early = sync_.cancel_requested.erase(queued.id) > 0;
  lock.unlock();
  NotAdmitted why_not = NotAdmitted::kDropped;
  absl::StatusOr<AdmittedJob> job = AdmitJob(queued.id, cancelled_early, &why_not);
  if (job.ok()) {
    parts_.metrics->SetJobRunning(device_->id, true);
    const RunResult run = SuperviseRun(*job);
    RecordOutcome(*job, run);
    parts_.metrics->SetJobRunning(device_->id, false);
    // Whatever the end, the run is over: what the executor left is not kept (Import moved the
    // artifacts out), so failed and killed jobs do not leave directories behind forever.
    if (absl::Status s = parts_.artifacts->RemoveWorkDir(queued.id); !s.ok()) {
      logging::LogJob(Level::kWarn, queued.id, "work directory not removed",
                      {Field("error", s.ToString())});
    }
  }
  lock.lock();
  device_->running.reset();  // and with it any kill deadline armed for this job
  sync_.cv.notify_all();     // a multi-GPU job may be waiting for this device
  if (!job.ok() && why_not == NotAdmitted::kDeferred) {
    DeferStart(queued, lock);
    return;
  }
  device_->deferred_starts = 0;
  sync_.cancel_requested.erase(queued.id);
}

void DeviceWorker::RunGangJob(const QueuedJob& queued, std::unique_lock<std::mutex>& lock) {
  sync_.gangs.Join(queued.id, queued.devices);
  // Any worker's wake-up may be the moment the devices are free: each waiting lead grants what
  // can be granted, and wakes the others when it did.
  const auto ready = [&] {
    const auto idle = [&](const std::string& d) { return parts_.host->RunsNothing(d); };
    if (!sync_.gangs.Grant(idle).empty()) sync_.cv.notify_all();
    return sync_.stopping || sync_.cancel_requested.contains(queued.id) ||
           sync_.gangs.Granted(queued.id);
  };
  sync_.cv.wait(lock, ready);
  const bool granted = sync_.gangs.Granted(queued.id) && !sync_.stopping;
  if (!granted) {
    // Cancelled while waiting (RunJob ends it as such), or shutting down (it stays QUEUED in the
    // store, and the next start queues it again).
    sync_.gangs.Leave(queued.id);
    sync_.cv.notify_all();
    if (!sync_.stopping) RunJob(queued, lock);
    return;
  }
  parts_.host->HoldGangMembers(queued, true);
  RunJob(queued, lock);
  parts_.host->HoldGangMembers(queued, false);
  sync_.gangs.Leave(queued.id);
  sync_.cv.notify_all();
}

void DeviceWorker::DeferStart(const QueuedJob& queued, std::unique_lock<std::mutex>& lock) {
  // A cancel that came meanwhile stays requested: the next try ends the job at once.
  device_->queue.Push(queued);
  UpdateQueueGauge(*parts_.metrics, *device_);
  ++device_->deferred_starts;
  // 0.5 s, 1 s, 2 s, ... capped: the queue resumes soon after the store takes writes again,
  // without a tight loop of refused writes meanwhile.
  absl::Duration wait = absl::Milliseconds(500);
  for (int i = 1; i < device_->deferred_starts && wait < parts_.options.max_backoff; ++i) wait *= 2;
  wait = std::min(wait, parts_.options.max_backoff);
  parts_.clock->WaitUntil(sync_.cv, lock, parts_.clock->Now() + wait,
                          [&] { return sync_.stopping; });
}

absl::StatusOr<DeviceWorker::AdmittedJob> DeviceWorker::AdmitJob(const std::string& id,
                                                                 bool cancelled_early,
                                                                 NotAdmitted* why_not) {
  absl::StatusOr<store::JobRecord> record = parts_.lifecycle->Get(id);
  if (!record.ok() && store::IsStoreWriteFailure(record.status())) {
    *why_not = NotAdmitted::kDeferred;  // the database is away: it is still queued there
    return record.status();
  }
  if (!record.ok()) return record.status();
  if (record->state != store::JobState::kQueued) {
    return absl::FailedPreconditionError("no longer queued");
  }
  if (cancelled_early) {
    parts_.lifecycle->Finish(*record, JobEnd::Cancelled("cancelled before it started"));
    return absl::CancelledError("cancelled before it started");
  }
  AdmittedJob job;
  if (!job.spec.ParseFromString(record->spec)) {
    parts_.lifecycle->Finish(
        *record, JobEnd::Failed(absl::StatusCode::kDataLoss, "the stored job spec is unreadable"));
    return absl::DataLossError("the stored job spec is unreadable");
  }
  absl::StatusOr<store::JobRecord> running = parts_.lifecycle->Start(id);
  if (!running.ok()) {
    // The store refused the write (full disk, database away, this node's lease lapsed): the job
    // is still QUEUED there and goes back in its place until the store takes the start.
    const bool deferred = running.status().code() == absl::StatusCode::kUnavailable ||
                          running.status().code() == absl::StatusCode::kResourceExhausted;
    if (deferred) *why_not = NotAdmitted::kDeferred;
    logging::LogJob(
        deferred ? Level::kWarn : Level::kError, id,
        deferred ? "start deferred: the store refuses it now" : "cannot be marked running",
        {Field("owner", job.spec.owner()), Field("device", device_->id),
         Field("error", running.status().ToString())});
    return running.status();
  }
  job.record = *std::move(running);
  job.started = parts_.clock->Now();
  // Per kind: a profile job running Nsight Compute may take its two runs' time on top.
  job.hang_deadline =
      job.started + absl::Seconds(JobRunBudgetSeconds(job.spec)) + parts_.options.hang_slack;
  return job;
}

DeviceWorker::RunResult DeviceWorker::SuperviseRun(const AdmittedJob& job) {
  RunResult run;
  const std::string& id = job.record.id;
  internal::v1::RunJob request;
  request.set_job_id(id);
  *request.mutable_spec() = job.spec;
  if (job.spec.devices_size() > 1) {
    // A fleet's gang is node-qualified ("gpu-a/cuda:1"): the executor knows its host's ids, and
    // this device is the lead.
    request.mutable_spec()->set_device(device_->id);
    for (std::string& d : *request.mutable_spec()->mutable_devices()) d = LocalDeviceId(d);
  }
  absl::StatusOr<std::string> work_dir = parts_.artifacts->WorkDir(id);
  if (!work_dir.ok()) {
    run.outcome.emplace();
    run.outcome->set_code(static_cast<int>(absl::StatusCode::kInternal));
    run.outcome->set_message(
        absl::StrCat("cannot create the job's work directory: ", work_dir.status().message()));
    return run;
  }
  request.set_artifact_dir(*work_dir);
  if (absl::Status s = device_->executor->Send(request); !s.ok()) {
    run.lost_message = std::string(s.message());
    return run;
  }
  while (true) {
    const absl::Time until = parts_.clock->Now() + parts_.options.supervision_tick;
    ExecutorEvent event = device_->executor->Next(id, std::min(until, job.hang_deadline));
    run.ran = parts_.clock->Now() - job.started;
    switch (event.type) {
      case ExecutorEvent::Type::kProgress:
        parts_.lifecycle->Progress(id, event.progress);
        break;
      case ExecutorEvent::Type::kOutcome:
        run.outcome = std::move(event.outcome);
        return run;
      case ExecutorEvent::Type::kLost:
        run.failure = event.failure;
        run.lost_message = std::move(event.message);
        return run;
      case ExecutorEvent::Type::kIdle:
        if (std::optional<ExecutorFailure> why = DeadlinePassed(job)) {
          device_->executor->Kill();
          run.failure = *why;
          run.lost_message = absl::StrCat(
              "executor ", device_->id,
              *why == ExecutorFailure::kHung
                  ? " hung: no outcome before the job's deadline; killed ("
                  : " did not stop the cancelled job within the grace period; killed (",
              device_->executor->Bury(), ")");
          return run;
        }
        break;
    }
  }
}

std::optional<ExecutorFailure> DeviceWorker::DeadlinePassed(const AdmittedJob& job) {
  const absl::Time now = parts_.clock->Now();
  if (now >= job.hang_deadline) return ExecutorFailure::kHung;
  std::lock_guard lock(sync_.mu);
  if (device_->running && device_->running->id == job.record.id && device_->running->kill_at &&
      now >= *device_->running->kill_at) {
    return ExecutorFailure::kCancelKill;
  }
  return std::nullopt;
}

void DeviceWorker::RecordOutcome(const AdmittedJob& job, const RunResult& run) {
  if (!run.outcome) {
    RecordLostExecutor(job, run);
    return;
  }
  const internal::v1::JobOutcome& outcome = *run.outcome;
  const auto code = static_cast<absl::StatusCode>(outcome.code());
  if (IsNoSpaceForArtifacts(code, outcome.message())) {
    RequeueWhenTheDiskHasRoom(job, run);
    return;
  }
  ImportArtifacts(job.record.id, job.spec.owner(), outcome);
  const std::string result = outcome.result().SerializeAsString();
  parts_.host->ChargeRun(job.record, job.spec, run.ran, code == absl::StatusCode::kOk);
  const std::string message =
      code == absl::StatusCode::kOk
          ? ""
          : KeepLongError(*parts_.artifacts, job.record.id, outcome.message());
  JobEnd end = code == absl::StatusCode::kOk ? JobEnd::Succeeded(result)
               : outcome.cancelled()         ? JobEnd::Cancelled(message, result)
                                             : JobEnd::Failed(code, message, result);
  end.result_message = &outcome.result();
  parts_.lifecycle->Finish(job.record, end, run.ran, &job.spec);
  if (code == absl::StatusCode::kOk && job.spec.ranked() && job.spec.confirms_job().empty()) {
    parts_.host->RankedSucceeded(job.record.id, job.spec, outcome.result());
  }
  if (outcome.restart_executor()) {
    logging::LogJob(Level::kWarn, job.record.id,
                    "left the CUDA context unusable; restarting the executor",
                    {Field("owner", job.spec.owner()), Field("device", device_->id)});
    ReplaceExecutor(ExecutorFailure::kStickyError);
  }
}

void DeviceWorker::RequeueWhenTheDiskHasRoom(const AdmittedJob& job, const RunResult& run) {
  // The run's artifacts found no space: a full disk pauses the queue, it does not fail the job.
  // The job goes back once the store takes the re-queue (a full disk refuses that too); the
  // device has nothing else it could start meanwhile (its starts would be refused the same).
  parts_.host->ChargeRun(job.record, job.spec, run.ran, false);
  logging::LogJob(Level::kWarn, job.record.id,
                  "no space for its artifacts: re-queued once the disk takes writes",
                  {Field("owner", job.spec.owner()), Field("device", device_->id),
                   Field("error", run.outcome->message())});
  absl::Duration wait = absl::Milliseconds(500);
  std::unique_lock lock(sync_.mu);
  while (!sync_.stopping) {
    lock.unlock();
    const absl::Status requeued =
        parts_.lifecycle->Requeue(job.record.id, "its artifacts found no space on the disk");
    lock.lock();
    if (requeued.ok()) {
      device_->queue.Push(QueuedJobOf(job.record));
      UpdateQueueGauge(*parts_.metrics, *device_);
      return;
    }
    parts_.clock->WaitUntil(sync_.cv, lock, parts_.clock->Now() + wait,
                            [&] { return sync_.stopping; });
    wait = std::min(wait * 2, parts_.options.max_backoff);
  }
  // Stopping: the job stays RUNNING in the store, and recovery re-queues it at the next start.
}

void DeviceWorker::RecordLostExecutor(const AdmittedJob& job, const RunResult& run) {
  bool interrupted = false;
  bool cancelled = run.failure == ExecutorFailure::kCancelKill;
  {
    std::lock_guard lock(sync_.mu);
    interrupted = sync_.stopping;
    cancelled = cancelled || sync_.cancel_requested.contains(job.record.id);
  }
  // The device was busy with it, whatever ended the run.
  parts_.host->ChargeRun(job.record, job.spec, run.ran, false);
  if (interrupted) {
    // Killed by Shutdown: neither the job's failure nor the device's.
    std::unique_ptr<Executor> old;
    {
      std::lock_guard lock(sync_.mu);
      old = std::move(device_->executor);
    }
    old.reset();
    (void)parts_.lifecycle->Requeue(
        job.record.id);  // refused: recovery at the next start re-queues it
    return;
  }
  logging::LogJob(Level::kError, job.record.id, "executor lost",
                  {Field("owner", job.spec.owner()), Field("device", device_->id),
                   Field("error", run.lost_message)});
  ReplaceExecutor(run.failure);
  parts_.lifecycle->Finish(
      job.record,
      cancelled ? JobEnd::Cancelled("cancelled; the executor did not stop in time and was killed")
                : JobEnd::Failed(absl::StatusCode::kUnavailable, run.lost_message),
      run.ran);
}

void DeviceWorker::ImportArtifacts(const std::string& job_id, const std::string& owner,
                                   const internal::v1::JobOutcome& outcome) {
  for (const internal::v1::ArtifactFile& a : outcome.artifacts()) {
    absl::StatusOr<store::ArtifactRecord> imported =
        parts_.artifacts->Import(job_id, a.name(), a.path(), a.content_type());
    if (!imported.ok()) {
      logging::LogJob(Level::kWarn, job_id, "artifact not stored",
                      {Field("owner", owner), Field("artifact", a.name()),
                       Field("error", imported.status().ToString())});
    }
  }
  if (absl::StatusOr<int64_t> bytes = parts_.artifacts->TotalBytes(); bytes.ok()) {
    parts_.metrics->SetArtifactBytes(*bytes);
  }
}

void DeviceWorker::ReplaceExecutor(ExecutorFailure cause) {
  // Only this worker touches its executor pointer for writing; readers hold mu_.
  std::unique_ptr<Executor> old;
  {
    std::lock_guard lock(sync_.mu);
    old = std::move(device_->executor);
    ++device_->restarts;
  }
  old.reset();  // outside the lock: a real executor may take a second to exit
  parts_.metrics->ExecutorRestarted(device_->id, cause);
}

void DeviceWorker::FailJob(const std::string& job_id, absl::StatusCode code,
                           const std::string& why) {
  absl::StatusOr<store::JobRecord> record = parts_.lifecycle->Get(job_id);
  if (!record.ok() || store::IsTerminal(record->state)) return;
  parts_.lifecycle->Finish(*record, JobEnd::Failed(code, why));
}

}  // namespace kbench::scheduler
