// A device's worker: keeps its executor started (capped back-off, never giving up), takes the
// next job off the queue, supervises the run against its deadlines, and records the outcome.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/common/artifact_write_error.h"
#include "server/common/logging.h"
#include "server/common/run_budget.h"
#include "server/scheduler/long_errors.h"
#include "server/scheduler/scheduler.h"
#include "server/store/resilient_job_store.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

void Scheduler::WorkerLoop(Device* device) {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (!device->executor) {
      if (!StartExecutor(device, lock)) WaitBeforeRetry(device, lock);
      continue;
    }
    cv_.wait(lock, [&] { return stopping_ || !device->queue.empty(); });
    if (stopping_) break;
    const absl::Time now = clock_->Now();
    std::optional<QueuedJob> next =
        device->queue.Pop([&](const std::string& owner) { return OwnerUsageNow(owner, now); });
    if (next && NeedsFreshExecutor(*device, *next)) {
      // The job goes back in its place and runs on the fresh executor the loop starts.
      device->queue.Push(*next);
      lock.unlock();
      logging::Log(Level::kInfo, "restarting the executor for another owner (--isolate-owners)",
                   {Field("device", device->id), Field("owner", next->owner)});
      ReplaceExecutor(device, ExecutorFailure::kOwnerChanged);
      lock.lock();
      continue;
    }
    UpdateQueueGauge(*device);
    PublishPlaces(*device);
    if (next) {
      device->last_owner = next->owner;
      RunJob(device, *next, lock);
    }
    if (next && device->queue.empty() && on_idle_) {
      lock.unlock();
      on_idle_();
      lock.lock();
    }
  }
}

bool Scheduler::StartExecutor(Device* device, std::unique_lock<std::mutex>& lock) {
  if (device->tried_once && device->info.state() != v1::DEVICE_STATE_FAILED) {
    device->info.set_state(v1::DEVICE_STATE_RESTARTING);
  }
  lock.unlock();
  absl::StatusOr<std::unique_ptr<Executor>> exec = launcher_->Start(device->id);
  lock.lock();
  device->tried_once = true;
  cv_.notify_all();  // Start() waits for every device's first try
  if (exec.ok()) {
    MarkReady(device, *std::move(exec));
    logging::Log(Level::kInfo, "executor ready", {Field("device", device->id)});
    return true;
  }
  ++device->start_failures;
  metrics_->ExecutorRestarted(device->id, ExecutorFailure::kStartFailed);
  logging::Log(Level::kError, "executor failed to start",
               {Field("device", device->id), Field("failures", device->start_failures),
                Field("error", exec.status().ToString())});
  if (device->start_failures >= options_.max_start_failures) {
    MarkUnusable(device, std::string(exec.status().message()), lock);
  }
  return false;
}

void Scheduler::MarkUnusable(Device* device, const std::string& why,
                             std::unique_lock<std::mutex>& lock) {
  const bool was_usable = device->info.state() != v1::DEVICE_STATE_FAILED;
  device->info.set_state(v1::DEVICE_STATE_FAILED);
  if (was_usable) PublishHealth();
  // Nothing runs there until a start succeeds: fail its queued jobs with the cause.
  std::vector<QueuedJob> doomed;
  while (std::optional<QueuedJob> q = device->queue.Pop()) doomed.push_back(*q);
  UpdateQueueGauge(*device);
  lock.unlock();
  for (const QueuedJob& q : doomed) {
    FailJob(q.id, absl::StatusCode::kUnavailable,
            absl::StrCat("device ", device->id, " is unavailable: ", why));
  }
  lock.lock();
}

void Scheduler::WaitBeforeRetry(Device* device, std::unique_lock<std::mutex>& lock) {
  // initial, 2x, 4x, ... capped: a GPU that comes back after a reset is picked up again.
  absl::Duration backoff = options_.initial_backoff;
  for (int i = 1; i < device->start_failures && backoff < options_.max_backoff; ++i) backoff *= 2;
  backoff = std::min(backoff, options_.max_backoff);
  clock_->WaitUntil(cv_, lock, clock_->Now() + backoff, [&] { return stopping_; });
}

bool Scheduler::NeedsFreshExecutor(const Device& device, const QueuedJob& next) const {
  return options_.isolate_owners && device.id != "cpu" && device.last_owner.has_value() &&
         *device.last_owner != next.owner;
}

void Scheduler::MarkReady(Device* device, std::unique_ptr<Executor> executor) {
  device->executor = std::move(executor);
  device->last_owner.reset();
  device->info = device->executor->info();
  device->info.set_id(device->id);  // the daemon's name for it, whatever the executor says
  device->info.set_state(v1::DEVICE_STATE_READY);
  device->start_failures = 0;
  PublishHealth();
}

void Scheduler::RunJob(Device* device, const QueuedJob& queued,
                       std::unique_lock<std::mutex>& lock) {
  device->running = RunningJob{queued.id, std::nullopt, queued.owner, clock_->Now(),
                               ExpectedSeconds(queued, nullptr)};
  const bool cancelled_early = cancel_requested_.erase(queued.id) > 0;
  lock.unlock();
  NotAdmitted why_not = NotAdmitted::kDropped;
  absl::StatusOr<AdmittedJob> job = AdmitJob(*device, queued.id, cancelled_early, &why_not);
  if (job.ok()) {
    const RunResult run = SuperviseRun(device, *job);
    RecordOutcome(device, *job, run);
    // Whatever the end, the run is over: what the executor left is not kept (Import moved the
    // artifacts out), so failed and killed jobs do not leave directories behind forever.
    if (absl::Status s = artifacts_->RemoveWorkDir(queued.id); !s.ok()) {
      logging::LogJob(Level::kWarn, queued.id, "work directory not removed",
                      {Field("error", s.ToString())});
    }
  }
  lock.lock();
  device->running.reset();  // and with it any kill deadline armed for this job
  if (!job.ok() && why_not == NotAdmitted::kDeferred) {
    DeferStart(device, queued, lock);
    return;
  }
  device->deferred_starts = 0;
  cancel_requested_.erase(queued.id);
}

void Scheduler::DeferStart(Device* device, const QueuedJob& queued,
                           std::unique_lock<std::mutex>& lock) {
  // A cancel that came meanwhile stays requested: the next try ends the job at once.
  device->queue.Push(queued);
  UpdateQueueGauge(*device);
  ++device->deferred_starts;
  // 0.5 s, 1 s, 2 s, ... capped: the queue resumes soon after the store takes writes again,
  // without a tight loop of refused writes meanwhile.
  absl::Duration wait = absl::Milliseconds(500);
  for (int i = 1; i < device->deferred_starts && wait < options_.max_backoff; ++i) wait *= 2;
  wait = std::min(wait, options_.max_backoff);
  clock_->WaitUntil(cv_, lock, clock_->Now() + wait, [&] { return stopping_; });
}

absl::StatusOr<Scheduler::AdmittedJob> Scheduler::AdmitJob(const Device& device,
                                                           const std::string& id,
                                                           bool cancelled_early,
                                                           NotAdmitted* why_not) {
  absl::StatusOr<store::JobRecord> record = lifecycle_.Get(id);
  if (!record.ok() && store::IsStoreWriteFailure(record.status())) {
    *why_not = NotAdmitted::kDeferred;  // the database is away: it is still queued there
    return record.status();
  }
  if (!record.ok()) return record.status();
  if (record->state != store::JobState::kQueued) {
    return absl::FailedPreconditionError("no longer queued");
  }
  if (cancelled_early) {
    lifecycle_.Finish(*record, JobEnd::Cancelled("cancelled before it started"));
    return absl::CancelledError("cancelled before it started");
  }
  AdmittedJob job;
  if (!job.spec.ParseFromString(record->spec)) {
    lifecycle_.Finish(
        *record, JobEnd::Failed(absl::StatusCode::kDataLoss, "the stored job spec is unreadable"));
    return absl::DataLossError("the stored job spec is unreadable");
  }
  absl::StatusOr<store::JobRecord> running = lifecycle_.Start(id);
  if (!running.ok()) {
    // The store refused the write (full disk, database away, this node's lease lapsed): the job
    // is still QUEUED there and goes back in its place until the store takes the start.
    const bool deferred = running.status().code() == absl::StatusCode::kUnavailable ||
                          running.status().code() == absl::StatusCode::kResourceExhausted;
    if (deferred) *why_not = NotAdmitted::kDeferred;
    logging::LogJob(
        deferred ? Level::kWarn : Level::kError, id,
        deferred ? "start deferred: the store refuses it now" : "cannot be marked running",
        {Field("owner", job.spec.owner()), Field("device", device.id),
         Field("error", running.status().ToString())});
    return running.status();
  }
  job.record = *std::move(running);
  job.started = clock_->Now();
  // Per kind: a profile job running Nsight Compute may take its two runs' time on top.
  job.hang_deadline =
      job.started + absl::Seconds(JobRunBudgetSeconds(job.spec)) + options_.hang_slack;
  return job;
}

Scheduler::RunResult Scheduler::SuperviseRun(Device* device, const AdmittedJob& job) {
  RunResult run;
  const std::string& id = job.record.id;
  internal::v1::RunJob request;
  request.set_job_id(id);
  *request.mutable_spec() = job.spec;
  absl::StatusOr<std::string> work_dir = artifacts_->WorkDir(id);
  if (!work_dir.ok()) {
    run.outcome.emplace();
    run.outcome->set_code(static_cast<int>(absl::StatusCode::kInternal));
    run.outcome->set_message(
        absl::StrCat("cannot create the job's work directory: ", work_dir.status().message()));
    return run;
  }
  request.set_artifact_dir(*work_dir);
  if (absl::Status s = device->executor->Send(request); !s.ok()) {
    run.lost_message = std::string(s.message());
    return run;
  }
  while (true) {
    const absl::Time until = clock_->Now() + options_.supervision_tick;
    ExecutorEvent event = device->executor->Next(id, std::min(until, job.hang_deadline));
    run.ran = clock_->Now() - job.started;
    switch (event.type) {
      case ExecutorEvent::Type::kProgress:
        events_->Publish(id, &event.progress);
        break;
      case ExecutorEvent::Type::kOutcome:
        run.outcome = std::move(event.outcome);
        return run;
      case ExecutorEvent::Type::kLost:
        run.failure = event.failure;
        run.lost_message = std::move(event.message);
        return run;
      case ExecutorEvent::Type::kIdle:
        if (std::optional<ExecutorFailure> why = DeadlinePassed(device, job)) {
          device->executor->Kill();
          run.failure = *why;
          run.lost_message = absl::StrCat(
              "executor ", device->id,
              *why == ExecutorFailure::kHung
                  ? " hung: no outcome before the job's deadline; killed ("
                  : " did not stop the cancelled job within the grace period; killed (",
              device->executor->Bury(), ")");
          return run;
        }
        break;
    }
  }
}

std::optional<ExecutorFailure> Scheduler::DeadlinePassed(Device* device, const AdmittedJob& job) {
  const absl::Time now = clock_->Now();
  if (now >= job.hang_deadline) return ExecutorFailure::kHung;
  std::lock_guard lock(mu_);
  if (device->running && device->running->id == job.record.id && device->running->kill_at &&
      now >= *device->running->kill_at) {
    return ExecutorFailure::kCancelKill;
  }
  return std::nullopt;
}

void Scheduler::RecordOutcome(Device* device, const AdmittedJob& job, const RunResult& run) {
  if (!run.outcome) {
    RecordLostExecutor(device, job, run);
    return;
  }
  const internal::v1::JobOutcome& outcome = *run.outcome;
  const auto code = static_cast<absl::StatusCode>(outcome.code());
  if (IsNoSpaceForArtifacts(code, outcome.message())) {
    RequeueWhenTheDiskHasRoom(device, job, run);
    return;
  }
  ImportArtifacts(job.record.id, job.spec.owner(), outcome);
  const std::string result = outcome.result().SerializeAsString();
  ChargeRun(job, run.ran, code == absl::StatusCode::kOk);
  const std::string message = code == absl::StatusCode::kOk
                                  ? ""
                                  : KeepLongError(*artifacts_, job.record.id, outcome.message());
  JobEnd end = code == absl::StatusCode::kOk ? JobEnd::Succeeded(result)
               : outcome.cancelled()         ? JobEnd::Cancelled(message, result)
                                             : JobEnd::Failed(code, message, result);
  end.result_message = &outcome.result();
  lifecycle_.Finish(job.record, end, run.ran, &job.spec);
  if (code == absl::StatusCode::kOk && job.spec.ranked() && job.spec.confirms_job().empty()) {
    RankedObserver observer;
    {
      std::lock_guard lock(ranked_mu_);
      observer = on_ranked_;
    }
    if (observer) observer(job.record.id, job.spec, outcome.result());
  }
  if (outcome.restart_executor()) {
    logging::LogJob(Level::kWarn, job.record.id,
                    "left the CUDA context unusable; restarting the executor",
                    {Field("owner", job.spec.owner()), Field("device", device->id)});
    ReplaceExecutor(device, ExecutorFailure::kStickyError);
  }
}

void Scheduler::RequeueWhenTheDiskHasRoom(Device* device, const AdmittedJob& job,
                                          const RunResult& run) {
  // The run's artifacts found no space: a full disk pauses the queue, it does not fail the job.
  // The job goes back once the store takes the re-queue (a full disk refuses that too); the
  // device has nothing else it could start meanwhile (its starts would be refused the same).
  ChargeRun(job, run.ran, false);
  logging::LogJob(Level::kWarn, job.record.id,
                  "no space for its artifacts: re-queued once the disk takes writes",
                  {Field("owner", job.spec.owner()), Field("device", device->id),
                   Field("error", run.outcome->message())});
  absl::Duration wait = absl::Milliseconds(500);
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    const absl::Status requeued =
        lifecycle_.Requeue(job.record.id, "its artifacts found no space on the disk");
    lock.lock();
    if (requeued.ok()) {
      device->queue.Push(QueuedJobOf(job.record));
      UpdateQueueGauge(*device);
      return;
    }
    clock_->WaitUntil(cv_, lock, clock_->Now() + wait, [&] { return stopping_; });
    wait = std::min(wait * 2, options_.max_backoff);
  }
  // Stopping: the job stays RUNNING in the store, and recovery re-queues it at the next start.
}

void Scheduler::RecordLostExecutor(Device* device, const AdmittedJob& job, const RunResult& run) {
  bool interrupted = false;
  bool cancelled = run.failure == ExecutorFailure::kCancelKill;
  {
    std::lock_guard lock(mu_);
    interrupted = stopping_;
    cancelled = cancelled || cancel_requested_.contains(job.record.id);
  }
  // The device was busy with it, whatever ended the run.
  ChargeRun(job, run.ran, false);
  if (interrupted) {
    // Killed by Shutdown: neither the job's failure nor the device's.
    std::unique_ptr<Executor> old;
    {
      std::lock_guard lock(mu_);
      old = std::move(device->executor);
    }
    old.reset();
    (void)lifecycle_.Requeue(job.record.id);  // refused: recovery at the next start re-queues it
    return;
  }
  logging::LogJob(Level::kError, job.record.id, "executor lost",
                  {Field("owner", job.spec.owner()), Field("device", device->id),
                   Field("error", run.lost_message)});
  ReplaceExecutor(device, run.failure);
  lifecycle_.Finish(
      job.record,
      cancelled ? JobEnd::Cancelled("cancelled; the executor did not stop in time and was killed")
                : JobEnd::Failed(absl::StatusCode::kUnavailable, run.lost_message),
      run.ran);
}

void Scheduler::ImportArtifacts(const std::string& job_id, const std::string& owner,
                                const internal::v1::JobOutcome& outcome) {
  for (const internal::v1::ArtifactFile& a : outcome.artifacts()) {
    absl::StatusOr<store::ArtifactRecord> imported =
        artifacts_->Import(job_id, a.name(), a.path(), a.content_type());
    if (!imported.ok()) {
      logging::LogJob(Level::kWarn, job_id, "artifact not stored",
                      {Field("owner", owner), Field("artifact", a.name()),
                       Field("error", imported.status().ToString())});
    }
  }
  if (absl::StatusOr<int64_t> bytes = artifacts_->TotalBytes(); bytes.ok()) {
    metrics_->SetArtifactBytes(*bytes);
  }
}

void Scheduler::ReplaceExecutor(Device* device, ExecutorFailure cause) {
  // Only this worker touches its executor pointer for writing; readers hold mu_.
  std::unique_ptr<Executor> old;
  {
    std::lock_guard lock(mu_);
    old = std::move(device->executor);
    ++device->restarts;
  }
  old.reset();  // outside the lock: a real executor may take a second to exit
  metrics_->ExecutorRestarted(device->id, cause);
}

void Scheduler::FailJob(const std::string& job_id, absl::StatusCode code, const std::string& why) {
  absl::StatusOr<store::JobRecord> record = lifecycle_.Get(job_id);
  if (!record.ok() || store::IsTerminal(record->state)) return;
  lifecycle_.Finish(*record, JobEnd::Failed(code, why));
}

}  // namespace kbench::scheduler
