// A multi-GPU job's devices in a fleet (issue 30): all of one node and one model, so that the
// node that claims the job's lead can hold the whole gang (its own scheduler's gang line). The
// job is stored with its lead's node-qualified target ("gpu-a/cuda:0"), which only that node
// serves, and `JobSpec.devices` node-qualified; the claiming node runs them as its own ids.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/fleet.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::fleet {

// `requested` names the devices ("gpu-a/cuda:0", or "cuda:0" for the receiving node's), or
// `gpus` asks for N ready CUDA devices of one model on one live node, the least queued (the
// fleet has no "all": no one host is meant). Returns them lead first, ids node-qualified.
// INVALID_ARGUMENT for a malformed or mixed ask, FAILED_PRECONDITION when no node has enough,
// UNAVAILABLE when a named device cannot run jobs now.
absl::StatusOr<std::vector<v1::DeviceInfo>> ResolveGangTarget(
    const std::vector<std::string>& requested, int32_t gpus, const std::string& this_node,
    const std::vector<v1::NodeInfo>& nodes);

}  // namespace kbench::fleet
