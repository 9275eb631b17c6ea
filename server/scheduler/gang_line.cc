// Gang scheduling: all-or-nothing grants in order of arrival among gangs that share a device.
#include "server/scheduler/gang_line.h"

#include <algorithm>
#include <set>

namespace kbench::scheduler {

void GangLine::Join(const std::string& job_id, const std::vector<std::string>& devices) {
  for (const Gang& g : gangs_) {
    if (g.job_id == job_id) return;
  }
  gangs_.push_back(Gang{job_id, devices, false});
}

std::vector<std::string> GangLine::Grant(const DeviceIdleFn& idle) {
  std::vector<std::string> granted;
  // Devices wanted by a gang still waiting ahead: a later gang must not take them first.
  std::set<std::string> wanted_ahead;
  for (Gang& g : gangs_) {
    if (g.granted) continue;
    const bool free = std::all_of(g.devices.begin(), g.devices.end(), [&](const std::string& d) {
      return !wanted_ahead.contains(d) && !held_.contains(d) && idle(d);
    });
    if (free) {
      g.granted = true;
      for (const std::string& d : g.devices) held_[d] = g.job_id;
      granted.push_back(g.job_id);
    } else {
      wanted_ahead.insert(g.devices.begin(), g.devices.end());
    }
  }
  return granted;
}

bool GangLine::Granted(const std::string& job_id) const {
  return std::any_of(gangs_.begin(), gangs_.end(),
                     [&](const Gang& g) { return g.job_id == job_id && g.granted; });
}

void GangLine::Leave(const std::string& job_id) {
  std::erase_if(held_, [&](const auto& entry) { return entry.second == job_id; });
  std::erase_if(gangs_, [&](const Gang& g) { return g.job_id == job_id; });
}

bool GangLine::Blocks(const std::string& device) const {
  return std::any_of(gangs_.begin(), gangs_.end(), [&](const Gang& g) {
    return std::find(g.devices.begin(), g.devices.end(), device) != g.devices.end();
  });
}

std::optional<std::string> GangLine::HolderOf(const std::string& device) const {
  auto it = held_.find(device);
  if (it == held_.end()) return std::nullopt;
  return it->second;
}

}  // namespace kbench::scheduler
