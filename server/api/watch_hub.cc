// The WatchJob fan-out (watch_hub.h).
#include "server/api/watch_hub.h"

#include <utility>
#include <vector>

namespace kbench::api {
namespace {

bool IsTerminal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

}  // namespace

WatchHub::WatchHub(VersionFn version, LoadFn load, std::chrono::milliseconds interval)
    : version_(std::move(version)), load_(std::move(load)), interval_(interval) {
  thread_ = std::thread([this] { Run(); });
}

WatchHub::~WatchHub() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void WatchHub::Add(const std::string& job_id, uint64_t version, const v1::Job& first,
                   JobWatcher* watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!closed_.ok()) {
    watcher->OnJob(closed_);
    return;
  }
  watcher->OnJob(first);
  if (IsTerminal(first.state())) return;
  by_job_[job_id][watcher] = version;
  job_of_[watcher] = job_id;
}

void WatchHub::Remove(JobWatcher* watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = job_of_.find(watcher);
  if (it == job_of_.end()) return;
  auto job = by_job_.find(it->second);
  job->second.erase(watcher);
  if (job->second.empty()) by_job_.erase(job);
  job_of_.erase(it);
}

void WatchHub::CloseAll(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = status;
  for (auto& [watcher, job_id] : job_of_) watcher->OnJob(status);
  job_of_.clear();
  by_job_.clear();
}

size_t WatchHub::watchers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return job_of_.size();
}

void WatchHub::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    Poll();
    lock.lock();
  }
}

void WatchHub::Poll() {
  std::vector<std::string> jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs.reserve(by_job_.size());
    for (const auto& [job_id, watchers] : by_job_) jobs.push_back(job_id);
  }
  for (const std::string& job_id : jobs) {
    // The version is read before the job, so a change between the two is seen next pass.
    const uint64_t version = version_(job_id);
    bool stale = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = by_job_.find(job_id);
      if (it == by_job_.end()) continue;
      for (const auto& [watcher, seen] : it->second) stale |= seen != version;
    }
    if (!stale) continue;
    const absl::StatusOr<v1::Job> job = load_(job_id);
    std::lock_guard<std::mutex> lock(mu_);
    Deliver(job_id, version, job);
  }
}

void WatchHub::Deliver(const std::string& job_id, uint64_t version,
                       const absl::StatusOr<v1::Job>& job) {
  auto it = by_job_.find(job_id);
  if (it == by_job_.end()) return;
  const bool last = !job.ok() || IsTerminal(job->state());
  Watchers& watchers = it->second;
  for (auto w = watchers.begin(); w != watchers.end();) {
    if (w->second == version) {
      ++w;
      continue;
    }
    w->first->OnJob(job);
    w->second = version;
    if (!last) {
      ++w;
      continue;
    }
    job_of_.erase(w->first);
    w = watchers.erase(w);
  }
  if (watchers.empty()) by_job_.erase(it);
}

}  // namespace kbench::api
