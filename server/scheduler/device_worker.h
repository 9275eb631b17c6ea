// A device's worker (issue 27, item 5): one thread per device that owns the device's executor
// and loop: keeps the executor started (capped back-off, never giving up), takes the next job
// off the device's queue in fair-share order, supervises the run against its deadlines and
// records the outcome through the job's lifecycle. The Scheduler routes jobs to the devices'
// queues and answers for all of them; what a worker needs of it is WorkerHost.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/common/device_id.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/device_queue.h"
#include "server/scheduler/executor.h"
#include "server/scheduler/gang_line.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_lifecycle.h"
#include "server/scheduler/scheduler_options.h"
#include "server/store/artifact_store.h"

namespace kbench::scheduler {

// The job a device runs now, and the kill deadline a cancel armed for that job only.
struct RunningJob {
  std::string id;
  std::optional<absl::Time> kill_at;
  std::string owner;
  absl::Time started;
  double expected_seconds = 0;
  // A multi-GPU job's other device (issue 30): the job runs on its lead's executor; this device
  // is held, and shown busy, for it.
  bool gang_member = false;
};

// A device as the scheduler routes to it and its worker runs it. Guarded by the scheduler's
// mutex; only the device's worker replaces its executor.
struct DeviceState {
  std::string id;
  DeviceId parsed;
  v1::DeviceInfo info;
  DeviceQueue queue;
  std::unique_ptr<Executor> executor;
  std::optional<RunningJob> running;
  int64_t restarts = 0;
  // The owner of the last job the current executor ran (--isolate-owners).
  std::optional<std::string> last_owner;
  int start_failures = 0;
  bool tried_once = false;
  // Consecutive jobs whose start the store refused (full disk, database away): the worker
  // waits longer before each next try.
  int deferred_starts = 0;
};

// A device that can run jobs: its executor has not failed to start for good.
inline bool Usable(const v1::DeviceInfo& info) { return info.state() != v1::DEVICE_STATE_FAILED; }
// The job as its device's queue holds it: owner, priority, what predicts its duration.
QueuedJob QueuedJobOf(const store::JobRecord& record);
// The device's queue depth gauge, and its queued jobs' watchers told their places changed.
void UpdateQueueGauge(metrics::Metrics& metrics, const DeviceState& device);
// Sets the device's state, as ListDevices and kbench_device_state show it.
void SetDeviceState(metrics::Metrics& metrics, DeviceState& device, v1::DeviceState state);
void PublishPlaces(JobEvents& events, const DeviceState& device);

// What a worker asks of the scheduler that holds every device. The functions marked so are
// called with the scheduler's mutex held; the others without it.
class WorkerHost {
 public:
  virtual ~WorkerHost() = default;
  // Under the mutex: an owner's decayed GPU time now, with its runs in progress on any device.
  virtual double OwnerUsageNow(const std::string& owner, absl::Time now) = 0;
  // Under the mutex: seconds a queued job is expected to run (past runs, else its timeout).
  virtual double ExpectedSeconds(const QueuedJob& job, bool* from_history) = 0;
  // Under the mutex: a device's state changed; health is reported again.
  virtual void PublishHealth() = 0;
  // Charges a run's wall time to its owner (fair share, history, store, metrics).
  virtual void ChargeRun(const store::JobRecord& record, const v1::JobSpec& spec,
                         absl::Duration ran, bool succeeded) = 0;
  // The device finished a job and has nothing queued (a fleet's node claims the next).
  virtual void DeviceIdle() = 0;
  // Under the mutex: whether the device runs no job now (a gang waits for its devices to).
  virtual bool RunsNothing(const std::string& device) = 0;
  // Under the mutex: a granted multi-GPU job's other devices shown busy with it, or freed.
  virtual void HoldGangMembers(const QueuedJob& job, bool hold) = 0;
  // A ranked job that is not a confirmation succeeded (its confirming re-run is submitted).
  virtual void RankedSucceeded(const std::string& job_id, const v1::JobSpec& spec,
                               const v1::JobResult& result) = 0;
};

// The scheduler's lock, and what it guards that workers share.
struct SchedulerSync {
  std::mutex& mu;
  std::condition_variable& cv;
  const bool& stopping;                     // guarded by mu
  std::set<std::string>& cancel_requested;  // guarded by mu: jobs asked to stop before they ran
  GangLine& gangs;                          // guarded by mu: multi-GPU jobs' holds
};

// What a worker borrows; everything outlives it.
struct WorkerParts {
  const SchedulerOptions& options;
  ExecutorLauncher* launcher;
  Clock* clock;
  store::ArtifactStore* artifacts;
  metrics::Metrics* metrics;
  JobEvents* events;
  JobLifecycle* lifecycle;
  WorkerHost* host;
};

class DeviceWorker {
 public:
  // `device` is the worker's own device state (the scheduler keeps it, guarded by sync.mu).
  DeviceWorker(DeviceState* device, WorkerParts parts, SchedulerSync sync);
  ~DeviceWorker();

  // Starts the worker's thread: it starts the executor, then runs jobs until the scheduler
  // stops (sync.stopping, sync.cv notified).
  void Start();
  // Waits for the thread to end (after the scheduler set stopping).
  void Join();

 private:
  // Why AdmitJob admitted nothing.
  enum class NotAdmitted {
    kDropped,   // ended, or no longer this device's to run
    kDeferred,  // the store refused its start: it stays QUEUED and goes back in its place
  };
  // A job taken off the queue and marked RUNNING.
  struct AdmittedJob {
    store::JobRecord record;
    v1::JobSpec spec;
    absl::Time started;
    absl::Time hang_deadline;
  };
  // What supervising a run produced: an outcome, or the executor lost (with why).
  struct RunResult {
    std::optional<internal::v1::JobOutcome> outcome;
    ExecutorFailure failure = ExecutorFailure::kExit;
    std::string lost_message;
    absl::Duration ran;
  };

  void Loop();
  bool StartExecutor(std::unique_lock<std::mutex>& lock);
  void MarkUnusable(const std::string& why, std::unique_lock<std::mutex>& lock);
  void WaitBeforeRetry(std::unique_lock<std::mutex>& lock);
  void RunJob(const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  // A multi-GPU job: waits, holding nothing, until its gang holds every device, then runs it on
  // this (the lead) device's executor, which drives them all.
  void RunGangJob(const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  absl::StatusOr<AdmittedJob> AdmitJob(const std::string& id, bool cancelled_early,
                                       NotAdmitted* why_not);
  // After a deferred start: the job back in its place, a wait that grows with each deferral.
  void DeferStart(const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  RunResult SuperviseRun(const AdmittedJob& job);
  std::optional<ExecutorFailure> DeadlinePassed(const AdmittedJob& job);
  void RecordOutcome(const AdmittedJob& job, const RunResult& run);
  void RecordLostExecutor(const AdmittedJob& job, const RunResult& run);
  void RequeueWhenTheDiskHasRoom(const AdmittedJob& job, const RunResult& run);
  void ImportArtifacts(const std::string& job_id, const std::string& owner,
                       const internal::v1::JobOutcome& outcome);
  void ReplaceExecutor(ExecutorFailure cause);
  void FailJob(const std::string& job_id, absl::StatusCode code, const std::string& why);
  // --isolate-owners: `next` is another owner's than the last job the executor ran.
  bool NeedsFreshExecutor(const QueuedJob& next) const;
  // Installs a ready executor: its description (under the device's id), READY.
  void MarkReady(std::unique_ptr<Executor> executor);

  DeviceState* const device_;
  const WorkerParts parts_;
  const SchedulerSync sync_;
  std::thread thread_;
};

}  // namespace kbench::scheduler
