// A device's fair-share queue: one line per owner, the next owner chosen at each pop.
#include "server/scheduler/device_queue.h"

#include "server/common/fair_share_policy.h"

namespace kbench::scheduler {

void DeviceQueue::Push(const QueuedJob& job) {
  lines_[job.owner].insert({Key{job.priority, job.seq}, job.id});
  jobs_[job.id] = job;
}

const std::string* DeviceQueue::NextOwner(const std::map<std::string, OwnerLine>& lines,
                                          const OwnerUsageFn& usage) {
  const std::string* best = nullptr;
  FairShareRank best_rank;  // of the best owner's head job so far
  for (const auto& [owner, line] : lines) {
    const Key& head = line.begin()->first;
    const FairShareRank rank{head.priority, usage ? usage(owner) : 0.0, head.seq};
    if (best == nullptr || FairSharePolicy::Before(rank, best_rank)) {
      best = &owner;
      best_rank = rank;
    }
  }
  return best;
}

std::optional<QueuedJob> DeviceQueue::Pop(const OwnerUsageFn& usage) {
  const std::string* owner = NextOwner(lines_, usage);
  if (owner == nullptr) return std::nullopt;
  auto line = lines_.find(*owner);
  const std::string id = line->second.begin()->second;
  line->second.erase(line->second.begin());
  if (line->second.empty()) lines_.erase(line);
  QueuedJob job = std::move(jobs_.at(id));
  jobs_.erase(id);
  return job;
}

std::vector<QueuedJob> DeviceQueue::Line(const OwnerUsageFn& usage,
                                         const ExpectedSecondsFn& expected) const {
  std::map<std::string, OwnerLine> lines = lines_;
  std::map<std::string, double> charged;  // what the played jobs add to each owner's usage
  const OwnerUsageFn played = [&](const std::string& owner) {
    return (usage ? usage(owner) : 0.0) + charged[owner];
  };
  std::vector<QueuedJob> order;
  order.reserve(jobs_.size());
  while (const std::string* owner = NextOwner(lines, played)) {
    auto line = lines.find(*owner);
    const QueuedJob& job = jobs_.at(line->second.begin()->second);
    charged[job.owner] += expected ? expected(job) : 0.0;
    order.push_back(job);
    line->second.erase(line->second.begin());
    if (line->second.empty()) lines.erase(line);
  }
  return order;
}

bool DeviceQueue::Remove(const std::string& id) {
  auto t = jobs_.find(id);
  if (t == jobs_.end()) return false;
  auto line = lines_.find(t->second.owner);
  line->second.erase({Key{t->second.priority, t->second.seq}, id});
  if (line->second.empty()) lines_.erase(line);
  jobs_.erase(t);
  return true;
}

bool DeviceQueue::Contains(const std::string& id) const { return jobs_.contains(id); }

std::vector<QueuedJob> DeviceQueue::Jobs() const {
  std::vector<QueuedJob> out;
  out.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) out.push_back(job);
  return out;
}

}  // namespace kbench::scheduler
