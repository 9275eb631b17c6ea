// JobSpec <-> Problem.
#include "server/common/spec_problem.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench {

absl::StatusOr<kernels::DType> DTypeFromProto(v1::DType dtype) {
  switch (dtype) {
    case v1::DTYPE_UNSPECIFIED:
    case v1::DTYPE_F32:
      return kernels::DType::kF32;
    case v1::DTYPE_F16:
      return kernels::DType::kF16;
    case v1::DTYPE_BF16:
      return kernels::DType::kBF16;
    case v1::DTYPE_TF32:
      return kernels::DType::kTF32;
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("dtype: unknown enum value ", dtype));
}

v1::DType DTypeToProto(kernels::DType dtype) {
  switch (dtype) {
    case kernels::DType::kF32:
      return v1::DTYPE_F32;
    case kernels::DType::kF16:
      return v1::DTYPE_F16;
    case kernels::DType::kBF16:
      return v1::DTYPE_BF16;
    case kernels::DType::kTF32:
      return v1::DTYPE_TF32;
  }
  return v1::DTYPE_UNSPECIFIED;
}

absl::StatusOr<kernels::Problem> ProblemFromSpec(const v1::JobSpec& spec,
                                                 const std::string& variant) {
  kernels::Problem p;
  p.op = spec.kernel();
  p.variant = variant;
  p.shape.assign(spec.shape().begin(), spec.shape().end());
  KBENCH_ASSIGN_OR_RETURN(kernels::DType dtype, DTypeFromProto(spec.dtype()));
  p.dtype = dtype;
  for (const auto& [name, value] : spec.params()) p.params[name] = value;
  return p;
}

}  // namespace kbench
