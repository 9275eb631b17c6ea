// Validation of a submitted JobSpec against the catalogue and the target device, before
// anything is stored. Errors name the field and the value.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench::api {

struct SubmitLimits {
  // Largest memory footprint accepted on the cpu device (inputs, outputs, float64 reference).
  int64_t cpu_max_bytes = int64_t{4} << 30;
  // Longest per-job sampling timeout a client may ask for, seconds.
  double max_timeout_seconds = 600;
  int32_t max_profile_iterations = 1000;
  // Largest host memory the float64 correctness check of one job may need, on any device;
  // 0 means half of this host's physical memory.
  int64_t host_check_max_bytes = 0;
};

// Host bytes the correctness check of `problem` holds at once: its inputs in float64, the
// device's outputs read back in float64, their float64 reference, and the two flattened
// copies that the comparison takes. The executor's full check today; an upper bound for its
// sampled check.
int64_t HostCheckFootprint(const kernels::Problem& problem);

// Checks `spec` for `device` and fills in defaults (kind, dtype, shape, params). Returns
// INVALID_ARGUMENT for a malformed spec, FAILED_PRECONDITION for a job the device cannot run,
// RESOURCE_EXHAUSTED for a problem larger than the device or than the host memory its check
// needs.
absl::Status ValidateAndNormalize(const v1::DeviceInfo& device, const SubmitLimits& limits,
                                  v1::JobSpec* spec);

}  // namespace kbench::api
