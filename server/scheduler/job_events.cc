// Job change notifications.
#include "server/scheduler/job_events.h"

namespace kbench::scheduler {

void JobEvents::Publish(const std::string& job_id, const v1::Progress* progress) {
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[job_id];
    e.version = next_version_++;
    if (progress != nullptr) e.progress = *progress;
  }
  cv_.notify_all();
}

void JobEvents::Started(const std::string& job_id) {
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[job_id];
    e.version = next_version_++;
    e.progress.reset();
  }
  cv_.notify_all();
}

void JobEvents::Finished(const std::string& job_id) {
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[job_id];
    e.version = next_version_++;
    e.progress.reset();
    finished_.push_back(job_id);
    while (finished_.size() > kFinishedKept) {
      // A job re-queued and finished again appears twice; erasing it early only makes a late
      // watcher read the store, which holds the terminal state.
      entries_.erase(finished_.front());
      finished_.pop_front();
    }
  }
  cv_.notify_all();
}

size_t JobEvents::EntryCount() {
  std::lock_guard lock(mu_);
  return entries_.size();
}

uint64_t JobEvents::Version(const std::string& job_id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(job_id);
  return it == entries_.end() ? 0 : it->second.version;
}

std::optional<v1::Progress> JobEvents::LatestProgress(const std::string& job_id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(job_id);
  if (it == entries_.end()) return std::nullopt;
  return it->second.progress;
}

uint64_t JobEvents::WaitForChange(const std::string& job_id, uint64_t seen,
                                  std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  const auto version = [&]() -> uint64_t {
    auto it = entries_.find(job_id);
    return it == entries_.end() ? 0 : it->second.version;
  };
  cv_.wait_until(lock, until, [&] { return version() != seen; });
  return version();
}

}  // namespace kbench::scheduler
