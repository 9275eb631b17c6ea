// Where a fleet's job may run, as a submitter names it and as the store keeps it:
//   "gpu-a/cuda:0", "gpu-a/cpu"  one device of one node
//   "cuda:any", "cpu:any"        any node's device of that kind
//   "h100:any"                   any node's GPU whose model name has that word ("NVIDIA H100 ...")
//   "cpu", "cuda:0"              that device of the node that received the request
//   ""                           cuda:any when the fleet has a GPU, else the receiving node's cpu
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/fleet.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::fleet {

struct ResolvedTarget {
  std::string target;             // as stored: "gpu-a/cuda:0", "cuda:any", "h100:any"
  v1::DeviceInfo representative;  // a device it may run on (validation: kind, architecture)
};

// Resolves `requested` against the fleet's nodes (with their devices, ids without the node).
// INVALID_ARGUMENT naming an unknown node, device or model and what exists instead.
absl::StatusOr<ResolvedTarget> ResolveTarget(const std::string& requested,
                                             const std::string& this_node,
                                             const std::vector<v1::NodeInfo>& nodes);

// The targets a device serves: its own ("gpu-a/cuda:0"), its kind's ("cuda:any") and, for a GPU,
// one per word of its model name ("h100:any", "80gb:any", ...).
std::vector<std::string> TargetsServedBy(const std::string& node, const v1::DeviceInfo& device);

}  // namespace kbench::fleet
