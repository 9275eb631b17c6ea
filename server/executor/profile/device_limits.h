// The current CUDA device's residency limits, for the occupancy calculation.
#pragma once

#include <optional>

#include "server/executor/profile/occupancy.h"

namespace kbench::executor::profile {

// From cudaGetDeviceProperties of the calling thread's current device; nullopt without one.
std::optional<DeviceLimits> CurrentDeviceLimits();

}  // namespace kbench::executor::profile
