// kbctl's view of a fleet: its nodes, their heartbeats and devices.
#pragma once

#include <string>

#include "kbench/v1/fleet.pb.h"

namespace kbench::client {

std::string RenderNodesTable(const v1::ListNodesResponse& nodes);

}  // namespace kbench::client
