// In-memory job change notifications: the latest progress of running jobs and a version
// counter that WatchJob streams wait on. The store stays the source of truth for states.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::scheduler {

// Thread-safe.
class JobEvents {
 public:
  // Something about the job changed (state written to the store, or new progress).
  void Publish(const std::string& job_id, const v1::Progress* progress = nullptr);
  // A run of the job started (or is seen running with nothing reported yet): a change whose
  // progress starts afresh, so a re-run never shows the progress its interrupted run left.
  void Started(const std::string& job_id);
  // The job reached a terminal state: its progress is no longer kept, and its entry is erased
  // once kFinishedKept later jobs have finished (waiters woke long before), so the map holds
  // the live jobs and a bounded tail instead of every job the daemon ever ran.
  void Finished(const std::string& job_id);

  static constexpr size_t kFinishedKept = 1024;
  // Jobs with an entry (tests: the map stays bounded).
  size_t EntryCount();

  // Current version of the job's events (0 when nothing was published).
  uint64_t Version(const std::string& job_id);
  std::optional<v1::Progress> LatestProgress(const std::string& job_id);

  // Blocks until the job's version differs from `seen`, or until `until`. Returns the version.
  uint64_t WaitForChange(const std::string& job_id, uint64_t seen,
                         std::chrono::steady_clock::time_point until);

 private:
  struct Entry {
    uint64_t version = 0;
    std::optional<v1::Progress> progress;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Entry> entries_;
  // Finished jobs, oldest first: the tail of entries still kept.
  std::deque<std::string> finished_;
  // Versions of finished jobs are kept (bumped) so that waiters see the final change.
  uint64_t next_version_ = 1;
};

}  // namespace kbench::scheduler
