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

void JobEvents::Finished(const std::string& job_id) {
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[job_id];
    e.version = next_version_++;
    e.progress.reset();
  }
  cv_.notify_all();
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
