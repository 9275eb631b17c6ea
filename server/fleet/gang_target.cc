// A multi-GPU job's devices in a fleet: one node, one model.
#include "server/fleet/gang_target.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "server/common/device_id.h"
#include "server/fleet/target.h"

namespace kbench::fleet {
namespace {

std::string NodeOf(const std::string& id) {
  const size_t slash = id.find('/');
  return slash == std::string::npos ? "" : id.substr(0, slash);
}

int OrdinalOf(const v1::DeviceInfo& d) {
  absl::StatusOr<DeviceId> parsed = ParseDeviceId(LocalDeviceId(d.id()));
  return parsed.ok() ? parsed->ordinal : -1;
}

absl::StatusOr<std::vector<v1::DeviceInfo>> NamedGang(const std::vector<std::string>& requested,
                                                      const std::string& this_node,
                                                      const std::vector<v1::NodeInfo>& nodes) {
  std::vector<v1::DeviceInfo> gang;
  std::set<std::string> seen;
  for (const std::string& name : requested) {
    if (absl::StrContains(name, ":any")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: '", name, "' is not one CUDA device; a multi-GPU job names NODE/cuda:N"));
    }
    KBENCH_ASSIGN_OR_RETURN(const ResolvedTarget target, ResolveTarget(name, this_node, nodes));
    const v1::DeviceInfo& d = target.representative;
    if (d.kind() != v1::DEVICE_KIND_CUDA) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: '", name, "' is not one CUDA device; a multi-GPU job names NODE/cuda:N"));
    }
    if (!seen.insert(target.target).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("devices: ", target.target, " is named twice"));
    }
    if (d.state() == v1::DEVICE_STATE_FAILED) {
      return absl::UnavailableError(
          absl::StrCat("devices: ", target.target,
                       " cannot run jobs now (its node is lost or its executor "
                       "fails to start); retry later"));
    }
    if (!gang.empty() && NodeOf(target.target) != NodeOf(gang.front().id())) {
      return absl::InvalidArgumentError(
          absl::StrCat("devices: ", gang.front().id(), " and ", target.target,
                       " are on different nodes; a multi-GPU job's devices are of one host"));
    }
    if (!gang.empty() && d.name() != gang.front().name()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: ", gang.front().id(), " is a ", gang.front().name(), " but ", target.target,
          " is a ", d.name(), "; a multi-GPU job's devices must be of one model"));
    }
    gang.push_back(d);
    gang.back().set_id(target.target);
  }
  return gang;
}

absl::StatusOr<std::vector<v1::DeviceInfo>> CountedGang(int32_t gpus,
                                                        const std::vector<v1::NodeInfo>& nodes) {
  std::optional<std::vector<v1::DeviceInfo>> best;
  int64_t best_load = 0;
  size_t most = 0;
  std::string most_where;
  for (const v1::NodeInfo& n : nodes) {
    if (!n.alive()) continue;
    std::map<std::string, std::vector<v1::DeviceInfo>> by_model;
    for (const v1::DeviceInfo& d : n.devices()) {
      if (d.kind() == v1::DEVICE_KIND_CUDA && d.state() != v1::DEVICE_STATE_FAILED)
        by_model[d.name()].push_back(d);
    }
    for (auto& [model, devices] : by_model) {
      if (devices.size() > most) {
        most = devices.size();
        most_where = absl::StrCat(n.name(), ", ", model);
      }
      if (devices.size() < static_cast<size_t>(gpus)) continue;
      std::stable_sort(devices.begin(), devices.end(),
                       [](const v1::DeviceInfo& a, const v1::DeviceInfo& b) {
                         return a.queue_depth() < b.queue_depth();
                       });
      devices.resize(gpus);
      int64_t load = 0;
      for (const v1::DeviceInfo& d : devices) load += d.queue_depth();
      if (best && load >= best_load) continue;
      std::sort(devices.begin(), devices.end(),
                [](const v1::DeviceInfo& a, const v1::DeviceInfo& b) {
                  return OrdinalOf(a) < OrdinalOf(b);
                });
      best = std::move(devices);
      best_load = load;
    }
  }
  if (!best) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gpus: ", gpus, " asked but no live node has that many ready CUDA devices of one model",
        most > 0 ? absl::StrCat(" (most: ", most, " on ", most_where, ")") : std::string()));
  }
  return *best;
}

}  // namespace

absl::StatusOr<std::vector<v1::DeviceInfo>> ResolveGangTarget(
    const std::vector<std::string>& requested, int32_t gpus, const std::string& this_node,
    const std::vector<v1::NodeInfo>& nodes) {
  if (!requested.empty() && gpus != 0) {
    return absl::InvalidArgumentError(
        "devices: name the devices (--devices) or ask for a count (--gpus), not both");
  }
  if (gpus == -1) {
    return absl::InvalidArgumentError(
        "gpus: 'all' names no one host in a fleet; ask for a count (--gpus N) or name one "
        "node's devices (--devices NODE/cuda:0,NODE/cuda:1)");
  }
  if (gpus < -1) {
    return absl::InvalidArgumentError(absl::StrCat("gpus: ", gpus, " is not a count; give N >= 1"));
  }
  if (!requested.empty()) return NamedGang(requested, this_node, nodes);
  return CountedGang(gpus, nodes);
}

}  // namespace kbench::fleet
