// Applying sweep points to job specs.
#include "server/api/sweep_points.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "server/api/request_limits.h"

namespace kbench::api {
namespace {

constexpr int kMaxAxes = 8;
constexpr size_t kMaxAxisText = 1024;

int IndexOf(const google::protobuf::RepeatedPtrField<std::string>& names, const std::string& n) {
  auto it = std::find(names.begin(), names.end(), n);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

// The shape index an axis names: a dimension's name ("rows"), or "dimN" for the N-th, which
// also reaches the dimensions of a variadic shape ("elements...").
int DimIndex(const v1::KernelInfo& kernel, const std::string& axis) {
  if (const int named = IndexOf(kernel.dims(), axis); named >= 0) return named;
  int n = 0;
  if (absl::StartsWith(axis, "dim") && absl::SimpleAtoi(axis.substr(3), &n) && n >= 0 &&
      n < kMaxShapeRank) {
    return n;
  }
  return -1;
}

bool IsParam(const v1::KernelInfo& kernel, const std::string& name) {
  return std::any_of(kernel.params().begin(), kernel.params().end(),
                     [&](const v1::ParamInfo& p) { return p.name() == name; });
}

absl::Status CheckAxisName(const v1::KernelInfo& kernel, const std::string& name) {
  if (name == "dtype" || name == "variants" || name == "mode") return absl::OkStatus();
  if (DimIndex(kernel, name) >= 0 || IsParam(kernel, name)) return absl::OkStatus();
  std::vector<std::string> known(kernel.dims().begin(), kernel.dims().end());
  for (const v1::ParamInfo& p : kernel.params()) known.push_back(p.name());
  known.insert(known.end(), {"dim0, dim1, ...", "dtype", "variants", "mode"});
  return absl::InvalidArgumentError(absl::StrCat("axes: \"", name, "\" is not an axis of ",
                                                 kernel.name(),
                                                 "; sweepable: ", absl::StrJoin(known, ", ")));
}

absl::StatusOr<int64_t> ParseInteger(const std::string& axis, const std::string& value) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(value, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, ": \"", value, "\" is not an integer"));
  }
  return v;
}

absl::StatusOr<v1::DType> ParseDType(const std::string& value) {
  if (value == "f32") return v1::DTYPE_F32;
  if (value == "f16") return v1::DTYPE_F16;
  if (value == "bf16") return v1::DTYPE_BF16;
  if (value == "tf32") return v1::DTYPE_TF32;
  return absl::InvalidArgumentError(
      absl::StrCat("axis dtype: \"", value, "\" is not one of f32, f16, bf16, tf32"));
}

absl::StatusOr<v1::MeasureMode> ParseMode(const std::string& value) {
  if (value == "cold") return v1::MEASURE_MODE_COLD;
  if (value == "hot") return v1::MEASURE_MODE_HOT;
  if (value == "graph") return v1::MEASURE_MODE_GRAPH;
  return absl::InvalidArgumentError(
      absl::StrCat("axis mode: \"", value, "\" is not one of cold, hot, graph"));
}

}  // namespace

absl::StatusOr<std::vector<sweep::Point>> SweepPoints(const v1::SweepSpec& spec,
                                                      const v1::KernelInfo& kernel,
                                                      int64_t max_points) {
  if (spec.axes().empty()) {
    return absl::InvalidArgumentError("axes: a sweep needs at least one axis");
  }
  if (spec.axes_size() > kMaxAxes) {
    return absl::InvalidArgumentError(
        absl::StrCat("axes: ", spec.axes_size(), " axes; at most ", kMaxAxes, " are accepted"));
  }
  std::vector<sweep::Axis> axes;
  for (const v1::SweepAxis& a : spec.axes()) {
    if (a.name().size() > 64 || a.values().size() > kMaxAxisText) {
      return absl::InvalidArgumentError(
          absl::StrCat("axes: an axis name or its values are too long (", a.name().size(), " and ",
                       a.values().size(), " bytes; at most 64 and ", kMaxAxisText, ")"));
    }
    KBENCH_RETURN_IF_ERROR(CheckAxisName(kernel, a.name()));
    sweep::Axis axis{a.name(), {}};
    KBENCH_ASSIGN_OR_RETURN(axis.values, sweep::ParseAxisValues(a.name(), a.values(), max_points));
    axes.push_back(std::move(axis));
  }
  return sweep::ExpandPoints(axes, {spec.zip().begin(), spec.zip().end()}, max_points);
}

absl::StatusOr<v1::JobSpec> PointSpec(const v1::JobSpec& base, const v1::KernelInfo& kernel,
                                      const sweep::Point& point) {
  v1::JobSpec spec = base;
  if (spec.shape().empty()) *spec.mutable_shape() = kernel.default_shape();
  for (const auto& [axis, value] : point) {
    if (axis == "dtype") {
      KBENCH_ASSIGN_OR_RETURN(v1::DType dtype, ParseDType(value));
      spec.set_dtype(dtype);
    } else if (axis == "mode") {
      KBENCH_ASSIGN_OR_RETURN(v1::MeasureMode mode, ParseMode(value));
      spec.set_mode(mode);
    } else if (axis == "variants") {
      spec.clear_variants();
      for (absl::string_view v : absl::StrSplit(value, '+', absl::SkipEmpty())) {
        spec.add_variants(std::string(v));
      }
    } else if (const int dim = DimIndex(kernel, axis); dim >= 0) {
      if (dim >= spec.shape_size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("axis ", axis, ": the base shape has ", spec.shape_size(), " dimensions"));
      }
      KBENCH_ASSIGN_OR_RETURN(int64_t v, ParseInteger(axis, value));
      spec.set_shape(dim, v);
    } else {
      KBENCH_ASSIGN_OR_RETURN(int64_t v, ParseInteger(axis, value));
      (*spec.mutable_params())[axis] = v;
    }
  }
  return spec;
}

std::string DescribePoint(const sweep::Point& point) {
  return absl::StrJoin(point, " ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", kv.second);
  });
}

}  // namespace kbench::api
