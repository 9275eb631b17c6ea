// Parsing and matching a fleet's targets.
#include "server/fleet/target.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/common/device_id.h"

namespace kbench::fleet {
namespace {

constexpr absl::string_view kAny = ":any";

// Words of a model name, lowercase: "NVIDIA H100 80GB HBM3" -> nvidia, h100, 80gb, hbm3.
std::vector<std::string> ModelWords(const std::string& name) {
  std::vector<std::string> words;
  for (absl::string_view w :
       absl::StrSplit(absl::AsciiStrToLower(name), absl::ByAnyChar(" -_"), absl::SkipEmpty())) {
    words.emplace_back(w);
  }
  return words;
}

bool IsCuda(const v1::DeviceInfo& d) { return d.kind() == v1::DEVICE_KIND_CUDA; }

// "gpu-a/cuda:0" -> the node's device, or null.
const v1::DeviceInfo* FindDevice(const std::vector<v1::NodeInfo>& nodes, const std::string& id) {
  for (const v1::NodeInfo& n : nodes) {
    for (const v1::DeviceInfo& d : n.devices()) {
      if (d.id() == id) return &d;
    }
  }
  return nullptr;
}

// The first device `match` accepts, or null.
template <typename Match>
const v1::DeviceInfo* FirstDevice(const std::vector<v1::NodeInfo>& nodes, const Match& match) {
  for (const v1::NodeInfo& n : nodes) {
    for (const v1::DeviceInfo& d : n.devices()) {
      if (match(d)) return &d;
    }
  }
  return nullptr;
}

std::vector<std::string> NodeNames(const std::vector<v1::NodeInfo>& nodes) {
  std::vector<std::string> names;
  for (const v1::NodeInfo& n : nodes) names.push_back(n.name());
  return names;
}

ResolvedTarget Resolved(std::string target, const v1::DeviceInfo& device) {
  ResolvedTarget r{std::move(target), device};
  r.representative.set_id(r.target);
  return r;
}

absl::StatusOr<ResolvedTarget> ResolveAny(const std::string& kind,
                                          const std::vector<v1::NodeInfo>& nodes) {
  const v1::DeviceInfo* found = nullptr;
  if (kind == "cpu") {
    found = FirstDevice(nodes, [](const v1::DeviceInfo& d) { return !IsCuda(d); });
  } else if (kind == "cuda") {
    found = FirstDevice(nodes, IsCuda);
  } else {
    found = FirstDevice(nodes, [&kind](const v1::DeviceInfo& d) {
      if (!IsCuda(d)) return false;
      for (const std::string& w : ModelWords(d.name())) {
        if (w == kind) return true;
      }
      return false;
    });
  }
  if (found == nullptr) {
    std::set<std::string> models;
    for (const v1::NodeInfo& n : nodes) {
      for (const v1::DeviceInfo& d : n.devices()) {
        if (IsCuda(d)) models.insert(d.name());
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "device: no node of the fleet has a ", kind, " device (", kind, kAny,
        "); GPU models in the fleet: ", models.empty() ? "none" : absl::StrJoin(models, ", ")));
  }
  return Resolved(absl::StrCat(kind, kAny), *found);
}

}  // namespace

absl::StatusOr<ResolvedTarget> ResolveTarget(const std::string& requested,
                                             const std::string& this_node,
                                             const std::vector<v1::NodeInfo>& nodes) {
  const std::string lower = absl::AsciiStrToLower(requested);
  if (lower.empty()) {
    if (FirstDevice(nodes, IsCuda) != nullptr) return ResolveAny("cuda", nodes);
    return ResolveTarget("cpu", this_node, nodes);
  }
  if (absl::EndsWith(lower, kAny) && !absl::StrContains(lower, '/')) {
    const std::string kind = lower.substr(0, lower.size() - kAny.size());
    if (kind.empty()) return absl::InvalidArgumentError("device: ':any' needs a kind or model");
    return ResolveAny(kind, nodes);
  }
  std::string node = this_node;
  std::string device = requested;
  if (const size_t slash = requested.find('/'); slash != std::string::npos) {
    node = requested.substr(0, slash);
    device = requested.substr(slash + 1);
  }
  absl::StatusOr<DeviceId> parsed = ParseDeviceId(device);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("device: ", parsed.status().message()));
  }
  if (parsed->kind == DeviceId::Kind::kAnyCuda) return ResolveAny("cuda", nodes);
  const std::string id = absl::StrCat(node, "/", parsed->ToString());
  const v1::DeviceInfo* found = FindDevice(nodes, id);
  if (found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device: no device '", id, "' in the fleet (nodes: ", absl::StrJoin(NodeNames(nodes), ", "),
        "; `kbctl devices` lists every node's devices)"));
  }
  return Resolved(id, *found);
}

std::vector<std::string> TargetsServedBy(const std::string& node, const v1::DeviceInfo& device) {
  std::vector<std::string> targets = {absl::StrCat(node, "/", device.id())};
  if (!IsCuda(device)) {
    targets.push_back("cpu:any");
    return targets;
  }
  targets.push_back("cuda:any");
  for (const std::string& w : ModelWords(device.name())) {
    if (w != "cpu" && w != "cuda") targets.push_back(absl::StrCat(w, kAny));
  }
  return targets;
}

}  // namespace kbench::fleet
