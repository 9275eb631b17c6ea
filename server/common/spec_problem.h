// Translation between the API's JobSpec and the catalogue's Problem, shared by the control
// plane (validation at submit) and the executors (running the job).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench {

absl::StatusOr<kernels::DType> DTypeFromProto(v1::DType dtype);
v1::DType DTypeToProto(kernels::DType dtype);

// The problem of one of the spec's variants; not yet validated.
absl::StatusOr<kernels::Problem> ProblemFromSpec(const v1::JobSpec& spec,
                                                 const std::string& variant);

}  // namespace kbench
