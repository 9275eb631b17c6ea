// The queue of one device, in fair-share order (FairSharePolicy, which a fleet's claim shares):
// a job with a priority above 0 (an admin's privilege) goes first, highest first; otherwise the
// owner with the least usage goes next (usage told by the caller: decayed GPU time), and within
// an owner the highest priority, then the oldest (seq). Ties between owners go to the higher
// priority, then the older head job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kbench::scheduler {

struct QueuedJob {
  std::string id;
  int32_t priority = 0;
  int64_t seq = 0;
  int64_t enqueue_time_ns = 0;
  std::string owner;
  // What predicts its duration: SimilarJobKey, and its timeout (seconds) when no run did.
  std::string similar_key;
  double timeout_seconds = 0;
  // A multi-GPU job's devices, its lead (this queue's device) first (issue 30); empty for a
  // one-device job.
  std::vector<std::string> devices;
};

// An owner's usage now, in GPU seconds (the lower, the sooner its turn).
using OwnerUsageFn = std::function<double(const std::string& owner)>;
// A job's expected GPU seconds (to play the line forward for queue positions).
using ExpectedSecondsFn = std::function<double(const QueuedJob& job)>;

// Not thread-safe; the scheduler guards it.
class DeviceQueue {
 public:
  void Push(const QueuedJob& job);
  // Removes and returns the next job to run. Without `usage`, every owner counts as unused.
  std::optional<QueuedJob> Pop(const OwnerUsageFn& usage = nullptr);
  // The whole line in the order Pop would take it, if each job charged its owner `expected`
  // GPU seconds as it ran. Leaves the queue as it is.
  std::vector<QueuedJob> Line(const OwnerUsageFn& usage, const ExpectedSecondsFn& expected) const;
  // Removes a queued job; false when it is not queued here.
  bool Remove(const std::string& id);
  bool Contains(const std::string& id) const;
  size_t size() const { return jobs_.size(); }
  bool empty() const { return jobs_.empty(); }
  // Every queued job, in no particular order.
  std::vector<QueuedJob> Jobs() const;

 private:
  // Within an owner: highest priority first, then oldest.
  struct Key {
    int32_t priority;
    int64_t seq;
    bool operator<(const Key& o) const {
      return std::tie(o.priority, seq) < std::tie(priority, o.seq);
    }
  };
  using OwnerLine = std::set<std::pair<Key, std::string>>;

  // The owner whose head job runs next, given each owner's usage.
  static const std::string* NextOwner(const std::map<std::string, OwnerLine>& lines,
                                      const OwnerUsageFn& usage);

  std::map<std::string, OwnerLine> lines_;  // by owner; no empty lines
  std::map<std::string, QueuedJob> jobs_;   // by id
};

}  // namespace kbench::scheduler
