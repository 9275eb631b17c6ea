// A device's priority-then-FIFO queue.
#include "server/scheduler/device_queue.h"

namespace kbench::scheduler {

void DeviceQueue::Push(const QueuedJob& job) {
  order_.insert({Key{job.priority, job.seq}, job.id});
  times_[job.id] = job;
}

std::optional<QueuedJob> DeviceQueue::Pop() {
  if (order_.empty()) return std::nullopt;
  auto it = order_.begin();
  QueuedJob job = times_.at(it->second);
  times_.erase(it->second);
  order_.erase(it);
  return job;
}

bool DeviceQueue::Remove(const std::string& id) {
  auto t = times_.find(id);
  if (t == times_.end()) return false;
  order_.erase({Key{t->second.priority, t->second.seq}, id});
  times_.erase(t);
  return true;
}

bool DeviceQueue::Contains(const std::string& id) const { return times_.contains(id); }

}  // namespace kbench::scheduler
