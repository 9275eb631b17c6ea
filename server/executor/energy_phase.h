// The energy phase of a benchmark job (issue 29, item 1): after sampling, each variant runs a
// batch of launches on its sampled buffers between two readings of the device's energy counter
// (conditions/energy.h does the planning and arithmetic).
#pragma once

#include "absl/status/statusor.h"
#include "kbench/v1/conditions.pb.h"
#include "kernels/operation.h"
#include "server/executor/device_runner.h"

namespace kbench::executor {

// The variant's energy per launch given its median time per launch; "unsupported on <device>"
// where the device has no counter. `budget_seconds` bounds the batch's wall time (a share of
// the job's stopping timeout).
absl::StatusOr<v1::Energy> MeasureVariantEnergy(DeviceRunner& runner, PreparedVariant& variant,
                                                double per_launch_seconds,
                                                const kernels::Cost& cost, double budget_seconds);

}  // namespace kbench::executor
