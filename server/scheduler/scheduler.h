// The scheduler: one queue and one worker thread per device, each worker owning that device's
// executor. Runs one job at a time per device, replaces executors that die, keeps retrying
// executors that do not start (capped back-off), reports each device's health, and recovers
// queued and interrupted jobs from the store at start. Time and executors are injected.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/types.pb.h"
#include "server/common/device_id.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/device_queue.h"
#include "server/scheduler/executor.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_lifecycle.h"
#include "server/scheduler/job_queue.h"
#include "server/scheduler/run_history.h"
#include "server/scheduler/usage_ledger.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/usage_store.h"

namespace kbench::scheduler {

struct SchedulerOptions {
  // Start executors for the CUDA devices the launcher discovers.
  bool enable_cuda = true;
  // How long a cancelled running job may take to stop before its executor is killed.
  absl::Duration cancel_grace = absl::Seconds(5);
  // Re-queue the store's interrupted jobs and queue its queued ones at Start (a single host).
  // A fleet's node leaves that to the fleet: the store's queue is every node's.
  bool recover_jobs = true;
  // Slack added to a job's own timeout before its executor counts as hung.
  absl::Duration hang_slack = absl::Seconds(300);
  // Consecutive failed starts after which a device counts as unusable (FAILED): its queued
  // jobs fail and new ones are refused, while starts go on being retried.
  int max_start_failures = 5;
  // Back-off between failed starts: initial, doubling, capped.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(30);
  // How often a worker looks at its running job's deadlines (a cancel arms a new one).
  absl::Duration supervision_tick = absl::Milliseconds(250);
  // Fair share forgets GPU time with this half-life (--fair-share-half-life).
  absl::Duration fair_share_half_life = absl::Hours(1);
  // --isolate-owners (issue 23, item 4): a CUDA device's executor is restarted before a job of
  // another owner than the last job's, so no CUDA context, allocation or loaded module is ever
  // shared between owners (each job already unloads its modules and scrubs its memory).
  bool isolate_owners = false;
};

// The grpc health service name of a device: "kbench.device.cpu", "kbench.device.cuda:0".
std::string DeviceHealthService(const std::string& device);
// The grpc health service name of the job store (SERVING while it takes writes).
inline constexpr char kStoreHealthService[] = "kbench.store";
// Told every device's serving state, and the server's ("": some device is usable).
using HealthReporter = std::function<void(const std::string& service, bool serving)>;

class Scheduler final : public JobQueue {
 public:
  // Borrows everything; all must outlive the scheduler.
  Scheduler(SchedulerOptions options, ExecutorLauncher* launcher, Clock* clock,
            store::JobStore* jobs, store::ArtifactStore* artifacts, metrics::Metrics* metrics,
            JobEvents* events);
  ~Scheduler();

  // Finds the devices, recovers jobs from the store, starts a worker per device, and returns
  // once every device's first executor start was tried. Fails if the cpu executor cannot start.
  absl::Status Start();

  // Stops the workers and executors. A running job goes back to QUEUED (it was interrupted,
  // not failed) so the next start runs it.
  void Shutdown();

  // Reports the current health at once, then on every change. Called from under the
  // scheduler's lock: `reporter` must not call back into the scheduler.
  void ReportHealthTo(HealthReporter reporter);
  // The job store takes writes, or refuses them (a full disk, a database away): "kbench.store"
  // follows it, and "" is NOT_SERVING while it refuses (submits would be refused).
  void SetStoreWritable(bool writable);

  // Current devices with queue depth, state and restart counts.
  std::vector<v1::DeviceInfo> Devices() override;
  // "cpu", "cuda:N", or "cuda:any" (the usable CUDA device with the shortest queue); "" picks
  // cuda:any when a GPU exists, else cpu. INVALID_ARGUMENT naming the device when unknown,
  // UNAVAILABLE when it exists but cannot run jobs now.
  absl::StatusOr<v1::DeviceInfo> ResolveDevice(const std::string& requested) override;

  absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) override;
  // Queues a job already written to the store as QUEUED. A job whose device is gone or
  // unusable is failed at once instead of being stranded.
  void Enqueue(const store::JobRecord& record) override;

  // Cancels a queued job at once, or asks the running job to stop (its executor is killed when
  // it does not within the grace period). FAILED_PRECONDITION when the job is already terminal.
  // Returns after the job is terminal or `wait` has passed.
  absl::Status Cancel(const std::string& job_id, std::chrono::milliseconds wait) override;

  JobLifecycle& lifecycle() { return lifecycle_; }
  // The clock every part of this node reads (a fleet's leases and heartbeats too).
  Clock* clock() const { return clock_; }

  // Records each run's GPU time in `usage` and replays it at Start (fair share, daily quotas
  // and estimates survive restarts). Call before Start; without it usage lives in memory only.
  void UseUsageStore(store::UsageStore* usage) { usage_store_ = usage; }
  // Each queued job's place and estimated wait, by job id (running and finished jobs absent).
  std::map<std::string, QueuePlaceEstimate> QueuePlaces() override;
  // Every owner's usage and unfinished jobs, plus `owner` even when it has neither.
  UsageSnapshot Usage(const std::string& owner = "") override;
  absl::Duration FairShareHalfLife() const override { return options_.fair_share_half_life; }
  // The one node a single host is: its devices (ListNodes).
  std::vector<v1::NodeInfo> Nodes() override;

  // Called (from a worker, without the scheduler's lock) each time a device finishes a job and
  // has nothing queued: a fleet's node then claims the next job for it. Set before Start.
  void SetIdleObserver(std::function<void()> observer) { on_idle_ = std::move(observer); }
  // Called (from a worker, without the scheduler's lock) when a ranked job that is not itself a
  // confirmation succeeded (issue 23): kbenchd then submits its confirming re-run. May be set
  // after Start: a job finished before it is set is not confirmed.
  using RankedObserver = std::function<void(const std::string& job_id, const v1::JobSpec& spec,
                                            const v1::JobResult& result)>;
  void SetRankedObserver(RankedObserver observer) {
    std::lock_guard lock(ranked_mu_);
    on_ranked_ = std::move(observer);
  }
  // Called with (owner, GPU seconds) as each run's time is charged (metrics). Set before Start.
  void SetUsageObserver(std::function<void(const std::string&, double)> observer) {
    on_usage_ = std::move(observer);
  }

 private:
  // The job a device runs now, and the kill deadline a cancel armed for that job only.
  struct RunningJob {
    std::string id;
    std::optional<absl::Time> kill_at;
    std::string owner;
    absl::Time started;
    double expected_seconds = 0;
  };
  struct Device {
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
    std::thread worker;
  };
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

  // Start's steps.
  absl::Status ReplayUsage();
  std::vector<std::unique_ptr<Device>> FindDevices();
  // Queues them on their devices; returns those whose device is gone, to be failed once the
  // lock is released (a finish may call back into the scheduler: SetStoreWritable).
  std::vector<store::JobRecord> QueueRecoveredJobs(const std::vector<store::JobRecord>& queued)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AwaitFirstStarts();

  // The worker and its steps (device_worker.cc).
  void WorkerLoop(Device* device);
  bool StartExecutor(Device* device, std::unique_lock<std::mutex>& lock);
  void MarkUnusable(Device* device, const std::string& why, std::unique_lock<std::mutex>& lock);
  void WaitBeforeRetry(Device* device, std::unique_lock<std::mutex>& lock);
  void RunJob(Device* device, const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  absl::StatusOr<AdmittedJob> AdmitJob(const Device& device, const std::string& id,
                                       bool cancelled_early, NotAdmitted* why_not);
  // After a deferred start: the job back in its place, a wait that grows with each deferral.
  void DeferStart(Device* device, const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  RunResult SuperviseRun(Device* device, const AdmittedJob& job);
  std::optional<ExecutorFailure> DeadlinePassed(Device* device, const AdmittedJob& job);
  void RecordOutcome(Device* device, const AdmittedJob& job, const RunResult& run);
  void RecordLostExecutor(Device* device, const AdmittedJob& job, const RunResult& run);
  void RequeueWhenTheDiskHasRoom(Device* device, const AdmittedJob& job, const RunResult& run);
  void ImportArtifacts(const std::string& job_id, const std::string& owner,
                       const internal::v1::JobOutcome& outcome);
  void ReplaceExecutor(Device* device, ExecutorFailure cause);

  void FailJob(const std::string& job_id, absl::StatusCode code, const std::string& why);

  // Fair share (fair_share.cc).
  // The job as its device's queue holds it: owner, priority, what predicts its duration.
  static QueuedJob QueuedJobOf(const store::JobRecord& record);
  // An owner's decayed GPU time now, counting its runs in progress on every device.
  double OwnerUsageNow(const std::string& owner, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Seconds a queued job is expected to run; `from_history` says whether past runs told it.
  double ExpectedSeconds(const QueuedJob& job, bool* from_history) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells the device's queued jobs' watchers that their places changed.
  void PublishPlaces(const Device& device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Charges a run's wall time to its owner: ledger, history, store, metrics.
  void ChargeRun(const AdmittedJob& job, absl::Duration ran, bool succeeded);
  void UpdateQueueGauge(const Device& device);
  void PublishHealth() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // --isolate-owners: `next` is another owner's than the last job the executor ran.
  bool NeedsFreshExecutor(const Device& device, const QueuedJob& next) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Installs a ready executor on its device: its description (under the device's id), READY.
  void MarkReady(Device* device, std::unique_ptr<Executor> executor)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SchedulerOptions options_;
  ExecutorLauncher* const launcher_;
  Clock* const clock_;
  store::ArtifactStore* const artifacts_;
  metrics::Metrics* const metrics_;
  JobEvents* const events_;
  JobLifecycle lifecycle_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Device ids in order: cpu first, then cuda:0, cuda:1, ... Fixed after Start.
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<Device>> devices_ ABSL_GUARDED_BY(mu_);
  // Jobs asked to stop before they started: honoured when they start.
  std::set<std::string> cancel_requested_ ABSL_GUARDED_BY(mu_);
  HealthReporter health_ ABSL_GUARDED_BY(mu_);
  bool store_writable_ ABSL_GUARDED_BY(mu_) = true;
  store::UsageStore* usage_store_ = nullptr;
  std::function<void(const std::string&, double)> on_usage_;
  std::function<void()> on_idle_;
  std::mutex ranked_mu_;
  RankedObserver on_ranked_ ABSL_GUARDED_BY(ranked_mu_);
  UsageLedger ledger_ ABSL_GUARDED_BY(mu_);
  RunHistory history_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::scheduler
