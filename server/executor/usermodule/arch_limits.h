// Per-architecture residency limits for the occupancy of a compile job, which may run where no
// GPU is (the cpu device): the numbers of CUDA's "Technical Specifications per Compute
// Capability" table, keyed by sm_XX.
#pragma once

#include <optional>

#include "kernels/user_kernel_rules.h"
#include "server/executor/profile/occupancy.h"

namespace kbench::executor::usermodule {

// nullopt for an architecture the table does not know.
std::optional<profile::DeviceLimits> LimitsForArch(const kernels::SmArch& arch);

}  // namespace kbench::executor::usermodule
