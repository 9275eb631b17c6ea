// Submit-time validation.
#include "server/api/submit_validation.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/placement_limits.h"
#include "common/status_macros.h"
#include "common/user_variant_name.h"
#include "kernels/catalogue.h"
#include "kernels/ops/collectives.h"
#include "server/api/user_kernel_validation.h"
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
    return absl::InvalidArgumentError(
        absl::StrCat("stopping.min_time_seconds: ", s.min_time_seconds(), " is outside [0, ",
                     limits.max_timeout_seconds, "]"));
  }
  if (s.timeout_seconds() < 0 || std::isnan(s.timeout_seconds()) ||
      s.timeout_seconds() > limits.max_timeout_seconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("stopping.timeout_seconds: ", s.timeout_seconds(), " is outside [0, ",
                     limits.max_timeout_seconds, "]"));
  }
  return absl::OkStatus();
}

int64_t HostCheckLimit(const SubmitLimits& limits) {
  if (limits.host_check_max_bytes > 0) return limits.host_check_max_bytes;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();
  // Half: the check shares the host with kbenchd, the executors and everyone else's jobs.
  return static_cast<int64_t>(pages) * page_size / 2;
}

// The check runs one variant at a time, so the largest variant's need is the job's.
absl::Status CheckHostFootprint(const v1::JobSpec& spec, int64_t need, const SubmitLimits& limits,
                                const v1::DeviceInfo& device) {
  const int64_t limit = HostCheckLimit(limits);
  if (need <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("shape: ", spec.kernel(), " ", absl::StrJoin(spec.shape(), "x"), " on ",
                   device.id(), " needs ", Bytes(need),
                   " of host memory for its float64 correctness check; this server "
                   "allows ",
                   Bytes(limit), " (--host-check-max-bytes)"));
}

}  // namespace

int64_t HostCheckFootprint(const kernels::Problem& problem) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return 0;
  const kernels::Layout layout = op->layout(problem);
  int64_t inputs = 0;
  int64_t outputs = 0;
  for (const kernels::TensorSpec& t : layout.inputs) inputs += t.elements;
  for (const kernels::TensorSpec& t : layout.outputs) outputs += t.elements;
  return static_cast<int64_t>(sizeof(double)) * (inputs + 4 * outputs);
}

namespace {

// Fills in the default kind and dtype; refuses enum values this server does not know.
absl::Status NormalizeEnums(v1::JobSpec* spec) {
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
  return absl::OkStatus();
}

// A known operation, a shape, and at least one variant, none listed twice.
// A collective holds one device per rank; every other operation runs on one device (issue 30).
absl::Status ValidateDeviceCount(const kernels::Operation& op, const v1::JobSpec& spec) {
  const int devices = std::max(1, spec.devices_size());
  if (devices < op.min_devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "devices: ", op.name, " runs on at least ", op.min_devices,
        " devices, one per rank; ask for them with --gpus N or --devices cuda:0,cuda:1"));
  }
  if (devices == 1) return absl::OkStatus();
  if (op.min_devices == 1) {
    std::vector<std::string> collectives;
    for (const kernels::Operation& o : kernels::Catalogue()) {
      if (o.min_devices > 1) collectives.push_back(o.name);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "devices: ", op.name, " runs on one device; several devices (--devices, --gpus) are for ",
        collectives.empty()
            ? std::string("the collectives, which this catalogue lacks")
            : absl::StrCat("the collectives (", absl::StrJoin(collectives, ", "), ")")));
  }
  if (spec.kind() != v1::JOB_KIND_BENCHMARK && spec.kind() != v1::JOB_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "kind: a multi-GPU job is a benchmark; profiles and compile jobs run on one device");
  }
  if (spec.ranked()) {
    return absl::InvalidArgumentError(
        "ranked: multi-GPU jobs are not ranked: their protocol (placements, confirmation on "
        "another device) is one device's");
  }
  if (spec.placements() > 1) {
    return absl::InvalidArgumentError(
        "placements: a multi-GPU job allocates each rank's buffers once; leave placements unset");
  }
  return absl::OkStatus();
}

absl::Status ValidateOperation(const v1::JobSpec& spec) {
  if (spec.kernel().empty()) return absl::InvalidArgumentError("kernel: must be given");
  const kernels::Operation* op = kernels::FindOperation(spec.kernel());
  if (op == nullptr) {
    kernels::Problem probe;
    probe.op = spec.kernel();
    return kernels::ValidateProblem(&probe);  // names the unknown operation and the known ones
  }
  KBENCH_RETURN_IF_ERROR(ValidateDeviceCount(*op, spec));
  if (spec.shape().empty() && spec.kind() != v1::JOB_KIND_COMPILE) {
    return absl::InvalidArgumentError(absl::StrCat("shape: must be given (", op->name, " takes ",
                                                   absl::StrJoin(op->dims, " x "), "; e.g. ",
                                                   absl::StrJoin(op->default_shape, "x"), ")"));
  }
  if (spec.variants().empty() && spec.user_kernels().empty()) {
    return absl::InvalidArgumentError("variants: at least one variant must be given");
  }
  std::set<std::string> seen;
  for (const std::string& v : spec.variants()) {
    // A user kernel's or registered variant's name becomes a label in plots and reports.
    if (kernels::IsUserVariantName(v)) KBENCH_RETURN_IF_ERROR(CheckUserVariantName("variants", v));
    if (!seen.insert(v).second) {
      return absl::InvalidArgumentError(absl::StrCat("variants: '", v, "' is listed twice"));
    }
  }
  return absl::OkStatus();
}

// Graph mode and profiles need a CUDA device; profile iterations within the limit.
absl::Status ValidateForDevice(const v1::DeviceInfo& device, const SubmitLimits& limits,
                               const v1::JobSpec& spec) {
  const bool cuda = device.kind() == v1::DEVICE_KIND_CUDA;
  if (spec.mode() == v1::MEASURE_MODE_GRAPH && !cuda) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: graph mode needs a CUDA device; ", device.id(), " is not one"));
  }
  if (spec.kind() != v1::JOB_KIND_PROFILE) return absl::OkStatus();
  if (!cuda) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kind: profile jobs need a CUDA device (CUPTI); ", device.id(), " cannot profile"));
  }
  if (spec.profile().iterations() < 0 ||
      spec.profile().iterations() > limits.max_profile_iterations) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile.iterations: ", spec.profile().iterations(), " is outside [0, ",
                     limits.max_profile_iterations, "]"));
  }
  return absl::OkStatus();
}

// What a job's variants need: device (or cpu) buffers for all, host check for the largest.
struct Footprint {
  int64_t buffers = 0;
  int64_t host_check = 0;
};

// Validates each variant's problem for `device`, fills in default params, sums the footprint.
absl::StatusOr<Footprint> ValidateVariants(const v1::DeviceInfo& device, v1::JobSpec* spec) {
  const bool cuda = device.kind() == v1::DEVICE_KIND_CUDA;
  Footprint need;
  for (const std::string& variant : spec->variants()) {
    KBENCH_ASSIGN_OR_RETURN(kernels::Problem problem, ProblemFromSpec(*spec, variant));
    KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&problem));
    const kernels::Operation* op = kernels::FindOperation(problem.op);
    const kernels::VariantDesc* desc = op->FindVariant(variant);  // nullptr for "@user"
    const bool host_variant = desc != nullptr && desc->backend == kernels::Backend::kHost;
    if (host_variant == cuda) {
      return absl::InvalidArgumentError(
          absl::StrCat("variants: ", op->name, "/", variant, " runs on ",
                       host_variant ? "the cpu device" : "CUDA devices", ", not on ", device.id()));
    }
    for (const auto& [name, value] : problem.params) (*spec->mutable_params())[name] = value;
    if (op->min_devices > 1) {
      // A collective (issue 30): what one rank holds at the gang's size, on every device; the
      // float64 references of every rank on the host.
      const int world = spec->devices_size();
      KBENCH_RETURN_IF_ERROR(kernels::ValidateCollective(problem, world));
      need.buffers += kernels::CollectiveMemoryPerRank(problem, world);
      need.host_check = std::max(need.host_check, world * HostCheckFootprint(problem));
      continue;
    }
    // Every placement is a copy of the buffers, with gaps of up to kMaxPlacementGapBytes.
    const int64_t copies = std::max(spec->placements(), 1);
    const kernels::Layout layout = op->layout(problem);
    const auto tensors = static_cast<int64_t>(layout.inputs.size() + layout.outputs.size());
    need.buffers +=
        copies * kernels::MemoryFootprint(problem) + (copies - 1) * tensors * kMaxPlacementGapBytes;
    // The check runs one variant at a time.
    need.host_check = std::max(need.host_check, HostCheckFootprint(problem));
  }
  return need;
}

absl::Status CheckDeviceMemory(const v1::DeviceInfo& device, const SubmitLimits& limits,
                               const v1::JobSpec& spec, int64_t buffers) {
  const std::string problem = absl::StrCat(spec.kernel(), " ", absl::StrJoin(spec.shape(), "x"));
  if (device.kind() == v1::DEVICE_KIND_CUDA) {
    // Beside the problem's buffers: the L2 flush buffer (2x L2) and the allocator's slack.
    const int64_t need = buffers + 2 * device.l2_bytes() + (int64_t{256} << 20);
    if (device.memory_bytes() > 0 && need > device.memory_bytes()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "shape: ", problem, " needs ", Bytes(need), " of device memory for ",
          spec.variants_size(), " variant(s)",
          spec.placements() > 1 ? absl::StrCat(" at ", spec.placements(), " placements each") : "",
          "; ", device.id(), " has ", Bytes(device.memory_bytes())));
    }
    return absl::OkStatus();
  }
  // The cpu keeps float32 buffers and a float64 copy of each for the reference.
  const int64_t need = buffers * 3;
  if (need > limits.cpu_max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("shape: ", problem, " needs ", Bytes(need),
                     " of host memory; the cpu device accepts at most ",
                     Bytes(limits.cpu_max_bytes), " (--cpu-max-bytes)"));
  }
  return absl::OkStatus();
}

// `sanitize` runs a benchmark's user kernels under compute-sanitizer before timing them.
absl::Status ValidateSanitize(const v1::JobSpec& spec) {
  if (!spec.sanitize()) return absl::OkStatus();
  if (spec.kind() != v1::JOB_KIND_BENCHMARK) {
    return absl::InvalidArgumentError(
        "sanitize: applies to benchmarks (kbctl bench, compare) of user kernels, not to " +
        v1::JobKind_Name(spec.kind()));
  }
  if (spec.user_kernels().empty()) {
    return absl::InvalidArgumentError(
        "sanitize: checks user kernels and this job has none (give --source FILE or an "
        "@registered variant)");
  }
  return absl::OkStatus();
}

// A ranked run (issue 23, item 7) is a protocol kbenchd fixes: cold mode, at least
// kRankedPlacements placements (their gaps drawn from the executor's secret), the default
// stopping rule and the executor's own seed. Unset fields are filled in; a field set otherwise
// is refused, so that nobody ranks a run taken under easier conditions.
absl::Status NormalizeRanked(v1::JobSpec* spec) {
  if (!spec->ranked()) return absl::OkStatus();
  constexpr int kRankedPlacements = 8;
  if (spec->kind() != v1::JOB_KIND_BENCHMARK) {
    return absl::InvalidArgumentError(
        "ranked: applies to benchmarks (kbctl bench, compare), not "
        "to " +
        v1::JobKind_Name(spec->kind()));
  }
  if (spec->mode() != v1::MEASURE_MODE_UNSPECIFIED && spec->mode() != v1::MEASURE_MODE_COLD) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: a ranked run is timed cold, not ", v1::MeasureMode_Name(spec->mode())));
  }
  if (spec->seed() != 0) {
    return absl::InvalidArgumentError(
        "seed: a ranked run's inputs come from the executor's secret; leave the seed unset");
  }
  if (spec->has_stopping() && spec->stopping().ByteSizeLong() > 0) {
    return absl::InvalidArgumentError(
        "stopping: a ranked run uses the default stopping rule; leave --noise, --min-samples, "
        "--min-time and --timeout unset");
  }
  if (spec->placements() > 0 && spec->placements() < kRankedPlacements) {
    return absl::InvalidArgumentError(absl::StrCat("placements: a ranked run takes at least ",
                                                   kRankedPlacements, ", not ",
                                                   spec->placements()));
  }
  spec->set_mode(v1::MEASURE_MODE_COLD);
  spec->set_placements(std::max(spec->placements(), kRankedPlacements));
  return absl::OkStatus();
}

// `placements` copies a benchmark's buffers to sample them at several addresses.
absl::Status ValidatePlacements(const v1::JobSpec& spec) {
  KBENCH_RETURN_IF_ERROR(CheckPlacementCount(spec.placements()));
  if (spec.placements() > 1 && spec.kind() != v1::JOB_KIND_BENCHMARK) {
    return absl::InvalidArgumentError(
        "placements: applies to benchmarks (kbctl bench, compare), not to " +
        v1::JobKind_Name(spec.kind()));
  }
  return absl::OkStatus();
}

// A compile job (issue 10, item 4) runs nothing: its one user kernel and the problem its launch
// expressions are evaluated for (the default shape when none is given).
absl::Status ValidateCompileJob(const v1::DeviceInfo& device, v1::JobSpec* spec) {
  if (!spec->variants().empty()) {
    return absl::InvalidArgumentError("variants: a compile job runs no variant; leave it empty");
  }
  KBENCH_RETURN_IF_ERROR(ValidateUserKernels(device, spec));
  KBENCH_ASSIGN_OR_RETURN(kernels::Problem problem,
                          ProblemFromSpec(*spec, spec->user_kernels(0).name()));
  KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&problem));
  for (const auto& [name, value] : problem.params) (*spec->mutable_params())[name] = value;
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateAndNormalize(const v1::DeviceInfo& device, const SubmitLimits& limits,
                                  v1::JobSpec* spec) {
  KBENCH_RETURN_IF_ERROR(NormalizeEnums(spec));
  KBENCH_RETURN_IF_ERROR(NormalizeRanked(spec));
  KBENCH_RETURN_IF_ERROR(ValidateStopping(spec->stopping(), limits));
  KBENCH_RETURN_IF_ERROR(ValidateOperation(*spec));
  KBENCH_RETURN_IF_ERROR(ValidateSanitize(*spec));
  KBENCH_RETURN_IF_ERROR(ValidatePlacements(*spec));
  if (spec->kind() == v1::JOB_KIND_COMPILE) return ValidateCompileJob(device, spec);
  KBENCH_RETURN_IF_ERROR(ValidateUserKernels(device, spec));
  KBENCH_RETURN_IF_ERROR(ValidateForDevice(device, limits, *spec));
  KBENCH_ASSIGN_OR_RETURN(const Footprint need, ValidateVariants(device, spec));
  KBENCH_RETURN_IF_ERROR(CheckDeviceMemory(device, limits, *spec, need.buffers));
  // On the cpu device the problem's own buffers live in host memory beside the check's.
  const bool cpu = device.kind() != v1::DEVICE_KIND_CUDA;
  return CheckHostFootprint(*spec, need.host_check + (cpu ? need.buffers : 0), limits, device);
}

}  // namespace kbench::api
