// The queue of one device: highest priority first, then submission order (seq).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace kbench::scheduler {

struct QueuedJob {
  std::string id;
  int32_t priority = 0;
  int64_t seq = 0;
  int64_t enqueue_time_ns = 0;
};

// Not thread-safe; the scheduler guards it.
class DeviceQueue {
 public:
  void Push(const QueuedJob& job);
  // Removes and returns the next job to run.
  std::optional<QueuedJob> Pop();
  // Removes a queued job; false when it is not queued here.
  bool Remove(const std::string& id);
  bool Contains(const std::string& id) const;
  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }

 private:
  struct Key {
    int32_t priority;
    int64_t seq;
    bool operator<(const Key& o) const {
      return std::tie(o.priority, seq) < std::tie(priority, o.seq);
    }
  };
  std::set<std::pair<Key, std::string>> order_;
  std::map<std::string, QueuedJob> times_;
};

}  // namespace kbench::scheduler
