// Submit-time validation.
#include "server/api/submit_validation.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kernels/catalogue.h"
#include "server/common/spec_problem.h"

namespace kbench::api {
namespace {

std::string Bytes(int64_t b) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
}

absl::Status ValidateStopping(const v1::StoppingCriteria& s, const SubmitLimits& limits) {
  if (s.max_noise() < 0 || s.max_noise() > 1 || std::isnan(s.max_noise())) {
    return absl::InvalidArgumentError(
        absl::StrCat("stopping.max_noise: ", s.max_noise(), " is outside [0, 1]"));
  }
  if (s.min_samples() < 0 || s.min_samples() > 1000000) {
    return absl::InvalidArgumentError(
        absl::StrCat("stopping.min_samples: ", s.min_samples(), " is outside [0, 1000000]"));
  }
  if (s.min_time_seconds() < 0 || std::isnan(s.min_time_seconds()) ||
      s.min_time_seconds() > limits.max_timeout_seconds) {
    return absl::InvalidArgumentError(absl::StrCat("stopping.min_time_seconds: ",
                                                   s.min_time_seconds(), " is outside [0, ",
                                                   limits.max_timeout_seconds, "]"));
  }
  if (s.timeout_seconds() < 0 || std::isnan(s.timeout_seconds()) ||
      s.timeout_seconds() > limits.max_timeout_seconds) {
    return absl::InvalidArgumentError(absl::StrCat("stopping.timeout_seconds: ",
                                                   s.timeout_seconds(), " is outside [0, ",
                                                   limits.max_timeout_seconds, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateAndNormalize(const v1::DeviceInfo& device, const SubmitLimits& limits,
                                  v1::JobSpec* spec) {
  if (spec->kind() == v1::JOB_KIND_UNSPECIFIED) spec->set_kind(v1::JOB_KIND_BENCHMARK);
  if (!v1::JobKind_IsValid(spec->kind())) {
    return absl::InvalidArgumentError(absl::StrCat("kind: unknown enum value ", spec->kind()));
  }
  if (!v1::MeasureMode_IsValid(spec->mode())) {
    return absl::InvalidArgumentError(absl::StrCat("mode: unknown enum value ", spec->mode()));
  }
  if (spec->dtype() == v1::DTYPE_UNSPECIFIED) spec->set_dtype(v1::DTYPE_F32);
  if (!v1::DType_IsValid(spec->dtype())) {
    return absl::InvalidArgumentError(absl::StrCat("dtype: unknown enum value ", spec->dtype()));
  }
  if (spec->priority() < -100 || spec->priority() > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("priority: ", spec->priority(), " is outside [-100, 100]"));
  }
  if (absl::Status s = ValidateStopping(spec->stopping(), limits); !s.ok()) return s;
  if (spec->kernel().empty()) return absl::InvalidArgumentError("kernel: must be given");
  if (kernels::FindOperation(spec->kernel()) == nullptr) {
    kernels::Problem probe;
    probe.op = spec->kernel();
    return kernels::ValidateProblem(&probe);  // names the unknown operation and the known ones
  }
  if (spec->shape().empty()) {
    const kernels::Operation* op = kernels::FindOperation(spec->kernel());
    return absl::InvalidArgumentError(absl::StrCat(
        "shape: must be given (", op->name, " takes ", absl::StrJoin(op->dims, " x "),
        "; e.g. ", absl::StrJoin(op->default_shape, "x"), ")"));
  }
  if (spec->variants().empty()) {
    return absl::InvalidArgumentError("variants: at least one variant must be given");
  }
  std::set<std::string> seen;
  for (const std::string& v : spec->variants()) {
    if (!seen.insert(v).second) {
      return absl::InvalidArgumentError(absl::StrCat("variants: '", v, "' is listed twice"));
    }
  }
  const bool cuda = device.kind() == v1::DEVICE_KIND_CUDA;
  if (spec->mode() == v1::MEASURE_MODE_GRAPH && !cuda) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: graph mode needs a CUDA device; ", device.id(), " is not one"));
  }
  if (spec->kind() == v1::JOB_KIND_PROFILE) {
    if (!cuda) {
      return absl::FailedPreconditionError(absl::StrCat(
          "kind: profile jobs need a CUDA device (CUPTI); ", device.id(), " cannot profile"));
    }
    if (spec->profile().iterations() < 0 ||
        spec->profile().iterations() > limits.max_profile_iterations) {
      return absl::InvalidArgumentError(absl::StrCat("profile.iterations: ",
                                                     spec->profile().iterations(),
                                                     " is outside [0, ",
                                                     limits.max_profile_iterations, "]"));
    }
  }

  int64_t footprint = 0;
  for (const std::string& variant : spec->variants()) {
    absl::StatusOr<kernels::Problem> problem = ProblemFromSpec(*spec, variant);
    if (!problem.ok()) return problem.status();
    if (absl::Status s = kernels::ValidateProblem(&*problem); !s.ok()) return s;
    const kernels::Operation* op = kernels::FindOperation(problem->op);
    const kernels::VariantDesc* desc = op->FindVariant(variant);
    const bool host_variant = desc->backend == kernels::Backend::kHost;
    if (host_variant == cuda) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variants: ", op->name, "/", variant, " runs on ", host_variant ? "the cpu device" : "CUDA devices",
          ", not on ", device.id()));
    }
    for (const auto& [name, value] : problem->params) (*spec->mutable_params())[name] = value;
    footprint += kernels::MemoryFootprint(*problem);
  }

  if (cuda) {
    // Beside the problem's buffers: the L2 flush buffer (2x L2) and the allocator's slack.
    const int64_t need = footprint + 2 * device.l2_bytes() + (int64_t{256} << 20);
    if (device.memory_bytes() > 0 && need > device.memory_bytes()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "shape: ", spec->kernel(), " ", absl::StrJoin(spec->shape(), "x"), " needs ",
          Bytes(need), " of device memory for ", spec->variants_size(), " variant(s); ",
          device.id(), " has ", Bytes(device.memory_bytes())));
    }
  } else {
    // The cpu keeps float32 buffers and a float64 copy of each for the reference.
    const int64_t need = footprint * 3;
    if (need > limits.cpu_max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "shape: ", spec->kernel(), " ", absl::StrJoin(spec->shape(), "x"), " needs ",
          Bytes(need), " of host memory; the cpu device accepts at most ",
          Bytes(limits.cpu_max_bytes), " (--cpu-max-bytes)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kbench::api
