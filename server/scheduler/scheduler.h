// The scheduler: routes each job to its device's queue (ResolveDevice, Enqueue, Cancel) and
// answers for every device; a DeviceWorker per device (device_worker.h) owns that device's loop
// and executor. Runs one job at a time per device, replaces executors that die, keeps retrying
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
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/types.pb.h"
#include "server/common/device_id.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/device_queue.h"
#include "server/scheduler/device_worker.h"
#include "server/scheduler/executor.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_lifecycle.h"
#include "server/scheduler/job_queue.h"
#include "server/scheduler/run_accounts.h"
#include "server/scheduler/run_history.h"
#include "server/scheduler/scheduler_options.h"
#include "server/scheduler/usage_ledger.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/usage_store.h"

namespace kbench::scheduler {

// The grpc health service name of a device: "kbench.device.cpu", "kbench.device.cuda:0".
std::string DeviceHealthService(const std::string& device);
// The grpc health service name of the job store (SERVING while it takes writes).
inline constexpr char kStoreHealthService[] = "kbench.store";
// Told every device's serving state, and the server's ("": some device is usable).
using HealthReporter = std::function<void(const std::string& service, bool serving)>;

class Scheduler final : public JobQueue, private WorkerHost {
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

  absl::StatusOr<std::vector<v1::DeviceInfo>> ResolveGang(const std::vector<std::string>& requested,
                                                          int32_t gpus) override;

  absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) override;
  absl::StatusOr<int32_t> DeleteFinished(const std::string& job_id) override {
    return lifecycle_.DeleteFinished(*artifacts_, job_id);
  }
  absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(
      const std::string& sweep_id) override {
    return lifecycle_.DeleteSweep(*artifacts_, sweep_id);
  }
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
  using Device = DeviceState;

  // Start's steps.
  absl::Status ReplayUsage();
  std::vector<std::unique_ptr<Device>> FindDevices();
  // Queues them on their devices; returns those whose device is gone, to be failed once the
  // lock is released (a finish may call back into the scheduler: SetStoreWritable).
  std::vector<store::JobRecord> QueueRecoveredJobs(const std::vector<store::JobRecord>& queued)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AwaitFirstStarts();
  // ResolveGang's two ways of asking (gangs.cc).
  absl::StatusOr<std::vector<const DeviceState*>> NamedGangDevices(
      const std::vector<std::string>& requested) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::vector<const DeviceState*>> CountedGangDevices(int32_t gpus)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // WorkerHost, what the devices' workers ask of the scheduler (fair_share.cc).
  double OwnerUsageNow(const std::string& owner, absl::Time now) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  double ExpectedSeconds(const QueuedJob& job, bool* from_history) override;
  void PublishHealth() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ChargeRun(const store::JobRecord& record, const v1::JobSpec& spec, absl::Duration ran,
                 bool succeeded) override;
  void DeviceIdle() override;
  bool RunsNothing(const std::string& device) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void HoldGangMembers(const QueuedJob& job, bool hold) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RankedSucceeded(const std::string& job_id, const v1::JobSpec& spec,
                       const v1::JobResult& result) override;

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
  // A worker per device, in `order_`; each owns its device's loop and executor.
  std::vector<std::unique_ptr<DeviceWorker>> workers_;
  // Jobs asked to stop before they started: honoured when they start.
  std::set<std::string> cancel_requested_ ABSL_GUARDED_BY(mu_);
  // Multi-GPU jobs waiting for, or holding, their devices (issue 30).
  GangLine gangs_ ABSL_GUARDED_BY(mu_);
  HealthReporter health_ ABSL_GUARDED_BY(mu_);
  bool store_writable_ ABSL_GUARDED_BY(mu_) = true;
  store::UsageStore* usage_store_ = nullptr;
  std::function<void(const std::string&, double)> on_usage_;
  std::function<void()> on_idle_;
  std::mutex ranked_mu_;
  RankedObserver on_ranked_ ABSL_GUARDED_BY(ranked_mu_);
  // Each owner's GPU time and each kind of job's past durations, under their own lock.
  RunAccounts accounts_;
};

}  // namespace kbench::scheduler
