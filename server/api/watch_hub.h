// Fans job changes out to open WatchJob streams without a thread per stream: one thread polls
// the JobEvents version of each watched job and loads a changed job once for all its watchers.
// Polling (rather than a callback from JobEvents) keeps the scheduler unaware of the API; its
// cost is one map lookup per watched job per interval, and its latency one interval.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"

namespace kbench::api {

// One open watch. OnJob is called with the hub's lock held: it must not block and must not
// call back into the hub.
class JobWatcher {
 public:
  virtual ~JobWatcher() = default;
  // A new snapshot of the job, or the error that ends the watch. After an error or a terminal
  // state the hub drops the watcher by itself.
  virtual void OnJob(const absl::StatusOr<v1::Job>& job) = 0;
};

class WatchHub {
 public:
  // Current change counter of a job (JobEvents::Version).
  using VersionFn = std::function<uint64_t(const std::string& job_id)>;
  using LoadFn = std::function<absl::StatusOr<v1::Job>(const std::string& job_id)>;

  WatchHub(VersionFn version, LoadFn load, std::chrono::milliseconds interval);
  // Stops the polling thread; every watcher must have been removed or closed.
  ~WatchHub();

  // Delivers `first` (loaded after reading `version`) to `watcher`, then every later change
  // until a terminal state. A terminal `first` is delivered and nothing is kept.
  void Add(const std::string& job_id, uint64_t version, const v1::Job& first, JobWatcher* watcher);
  // After this returns the hub never calls `watcher` again. Idempotent.
  void Remove(JobWatcher* watcher);
  // Ends every watch with `status` and every later Add at once (graceful shutdown).
  void CloseAll(const absl::Status& status);

  size_t watchers() const;

 private:
  // A watched job's watchers, each with the version of the last snapshot it was given.
  using Watchers = std::map<JobWatcher*, uint64_t>;
  void Run();
  // One polling pass: reload each job whose version moved and deliver it.
  void Poll();
  void Deliver(const std::string& job_id, uint64_t version, const absl::StatusOr<v1::Job>& job)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const VersionFn version_;
  const LoadFn load_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status closed_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Watchers> by_job_ ABSL_GUARDED_BY(mu_);
  std::map<JobWatcher*, std::string> job_of_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace kbench::api
