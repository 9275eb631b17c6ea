// A sweep's points as job specs: the sweep's base spec with each axis's value put where it
// belongs (a dimension of the shape, a param, the dtype, the variants, the mode).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/sweep/axes.h"
#include "kbench/v1/sweep.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::api {

// The parsed axes of `spec` (INVALID_ARGUMENT / RESOURCE_EXHAUSTED as sweep::ExpandPoints says),
// checked against `kernel`: each axis must name one of its dims, one of its params, "dtype",
// "variants" or "mode".
absl::StatusOr<std::vector<sweep::Point>> SweepPoints(const v1::SweepSpec& spec,
                                                      const v1::KernelInfo& kernel,
                                                      int64_t max_points);

// The job spec of one point: `base` (its shape defaulting to the kernel's) with the point's
// values. INVALID_ARGUMENT naming the axis when a value does not parse.
absl::StatusOr<v1::JobSpec> PointSpec(const v1::JobSpec& base, const v1::KernelInfo& kernel,
                                      const sweep::Point& point);

// "cols=1024 dtype=f32", for messages and tables.
std::string DescribePoint(const sweep::Point& point);

}  // namespace kbench::api
