// The scheduler: one queue and one worker per device, each worker owning that device's
// executor process. Runs one job at a time per device, restarts executors that die, recovers
// queued and interrupted jobs from the store at start.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/device_queue.h"
#include "server/scheduler/executor_process.h"
#include "server/scheduler/job_events.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace kbench::scheduler {

struct SchedulerOptions {
  // The kbench-executor program.
  std::string executable;
  // Extra flags for executor processes (e.g. --log-format json).
  std::vector<std::string> executor_args;
  // Start executors for CUDA devices found by discovery.
  bool enable_cuda = true;
  std::chrono::milliseconds executor_ready_timeout{60000};
  // How long a cancelled running job may take to stop before its executor is killed.
  std::chrono::milliseconds cancel_grace{5000};
  // Slack added to a job's own timeout before its executor counts as hung.
  std::chrono::seconds hang_slack{300};
  // Consecutive failed executor starts after which a device is marked FAILED.
  int max_start_failures = 5;
};

class Scheduler {
 public:
  Scheduler(SchedulerOptions options, store::JobStore* jobs, store::ArtifactStore* artifacts,
            metrics::Metrics* metrics, JobEvents* events);
  ~Scheduler();

  // Discovers devices, starts their executors, and re-queues jobs from the store (a job that
  // was RUNNING is re-queued once, then failed). Fails only if the cpu executor cannot start.
  absl::Status Start();

  // Stops the workers and executors. A running job goes back to QUEUED (it was interrupted,
  // not failed) so the next start runs it.
  void Shutdown();

  // Current devices with queue depth, state and restart counts.
  std::vector<v1::DeviceInfo> Devices();
  // "cpu", "cuda:N", or "cuda:any" (the CUDA device with the shortest queue); "" picks cuda:any
  // when a GPU exists, else cpu. INVALID_ARGUMENT naming the device when unknown.
  absl::StatusOr<v1::DeviceInfo> ResolveDevice(const std::string& requested);

  // Queues a job already written to the store as QUEUED.
  void Enqueue(const store::JobRecord& record);

  // Cancels a queued job at once, or asks the running job to stop. FAILED_PRECONDITION when the
  // job is already terminal. Returns after the job is terminal or `wait` has passed.
  absl::Status Cancel(const std::string& job_id, std::chrono::milliseconds wait);

 private:
  struct Device {
    std::string id;
    v1::DeviceInfo info;
    DeviceQueue queue;
    std::unique_ptr<ExecutorProcess> executor;
    std::string running_job;
    int64_t restarts = 0;
    int start_failures = 0;
    std::thread worker;
  };

  void WorkerLoop(Device* device);
  // Starts (or restarts) the device's executor; false when it could not be started.
  bool EnsureExecutor(Device* device, std::unique_lock<std::mutex>& lock);
  void RunJob(Device* device, const QueuedJob& queued, std::unique_lock<std::mutex>& lock);
  void FinishJob(const std::string& job_id, const std::string& device, const std::string& kind,
                 store::JobState state, const std::string& code, const std::string& error,
                 const std::string& result);
  void UpdateQueueGauge(const Device& device);
  // Installs a ready executor on its device: its description (under the device's id), READY.
  static void MarkReady(Device* device, std::unique_ptr<ExecutorProcess> executor);

  SchedulerOptions options_;
  store::JobStore* jobs_;
  store::ArtifactStore* artifacts_;
  metrics::Metrics* metrics_;
  JobEvents* events_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Device ids in order: cpu first, then cuda:0, cuda:1, ...
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<Device>> devices_ ABSL_GUARDED_BY(mu_);
  // Jobs asked to stop: honoured when they start or when their executor dies.
  std::set<std::string> cancel_requested_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::scheduler
