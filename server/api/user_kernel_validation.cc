// Submit-time validation of user kernels.
#include "server/api/user_kernel_validation.h"

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/user_variant_name.h"
#include "kernels/abi.h"
#include "kernels/catalogue.h"
#include "kernels/include_rules.h"
#include "kernels/launch_expr.h"
#include "kernels/user_kernel_rules.h"
#include "server/auth/token.h"
#include "server/common/spec_problem.h"

namespace kbench::api {
namespace {

// CUDA's launch limits (CUDA C Programming Guide, "Technical Specifications"): they hold on every
// architecture kbench supports; the device refuses the rest at launch with a named error.
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxBlockZ = 64;
// Hopper's opt-in maximum of shared memory per block (227 KiB).
constexpr int64_t kMaxDynamicSmem = 227 * 1024;
constexpr int kMaxClusterDim = 16;

absl::Status Invalid(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// The dims and params of the job's problem, by name, as the expressions see them.
absl::StatusOr<std::map<std::string, int64_t>> ExpressionValues(const kernels::Operation& op,
                                                                const v1::JobSpec& spec) {
  KBENCH_ASSIGN_OR_RETURN(kernels::Problem problem, ProblemFromSpec(spec, "@user"));
  KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&problem));
  return kernels::LaunchExpressionValues(op, problem);
}

absl::StatusOr<int64_t> EvaluateIn(const std::string& field, const std::string& text,
                                   const std::map<std::string, int64_t>& values, int64_t min,
                                   int64_t max) {
  KBENCH_ASSIGN_OR_RETURN(const int64_t v, kernels::EvaluateLaunchExpr(field, text, values));
  if (v < min || v > max) {
    return Invalid(field, absl::StrCat("'", text.substr(0, 80), "' evaluates to ", v,
                                       " for this shape; it must be in [", min, ", ", max, "]"));
  }
  return v;
}

absl::Status ValidateGrid(const std::string& f, const v1::LaunchConfig& launch,
                          const std::map<std::string, int64_t>& values) {
  if (launch.grid_size() < 1 || launch.grid_size() > 3) {
    return Invalid(f + ".grid", absl::StrCat("give 1 to 3 expressions, got ", launch.grid_size()));
  }
  for (int i = 0; i < launch.grid_size(); ++i) {
    KBENCH_RETURN_IF_ERROR(EvaluateIn(absl::StrCat(f, ".grid[", i, "]"), launch.grid(i), values, 1,
                                      i == 0 ? kMaxGridX : kMaxGridYZ)
                               .status());
  }
  return absl::OkStatus();
}

absl::Status ValidateBlock(const std::string& f, const v1::UserKernel& uk,
                           const std::map<std::string, int64_t>& values) {
  const v1::LaunchConfig& launch = uk.launch();
  const bool triton = uk.form() == v1::USER_KERNEL_FORM_TRITON;
  if (launch.block_size() == 0 && triton) return absl::OkStatus();  // 32 * num_warps
  if (launch.block_size() < 1 || launch.block_size() > 3) {
    return Invalid(f + ".block",
                   absl::StrCat("give 1 to 3 expressions, got ", launch.block_size()));
  }
  int64_t threads = 1;
  for (int i = 0; i < launch.block_size(); ++i) {
    KBENCH_ASSIGN_OR_RETURN(
        const int64_t v, EvaluateIn(absl::StrCat(f, ".block[", i, "]"), launch.block(i), values, 1,
                                    i == 2 ? kMaxBlockZ : kMaxBlockThreads));
    threads *= v;
  }
  if (threads > kMaxBlockThreads) {
    return Invalid(
        f + ".block",
        absl::StrCat(threads, " threads per block for this shape; at most ", kMaxBlockThreads));
  }
  if (triton && threads != 32 * int64_t{uk.triton().num_warps()}) {
    return Invalid(f + ".block", absl::StrCat(threads,
                                              " threads, but the Triton kernel was "
                                              "compiled for num_warps = ",
                                              uk.triton().num_warps(), " (",
                                              32 * uk.triton().num_warps(), " threads)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateLaunch(const std::string& f, const v1::UserKernel& uk,
                            const std::map<std::string, int64_t>& values) {
  KBENCH_RETURN_IF_ERROR(ValidateGrid(f + ".launch", uk.launch(), values));
  KBENCH_RETURN_IF_ERROR(ValidateBlock(f + ".launch", uk, values));
  if (!uk.launch().dynamic_smem().empty()) {
    KBENCH_RETURN_IF_ERROR(EvaluateIn(f + ".launch.dynamic_smem", uk.launch().dynamic_smem(),
                                      values, 0, kMaxDynamicSmem)
                               .status());
  }
  if (uk.launch().cluster_size() > 3) {
    return Invalid(f + ".launch.cluster", "at most 3 dims");
  }
  for (int c : uk.launch().cluster()) {
    if (c < 1 || c > kMaxClusterDim) {
      return Invalid(f + ".launch.cluster",
                     absl::StrCat(c, " is outside [1, ", kMaxClusterDim, "]"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateTriton(const std::string& f, const v1::TritonMetadata& t) {
  const int w = t.num_warps();
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16 && w != 32) {
    return Invalid(f + ".triton.num_warps", absl::StrCat(w, " is not 1, 2, 4, 8, 16 or 32"));
  }
  if (t.shared_bytes() < 0 || t.shared_bytes() > kMaxDynamicSmem) {
    return Invalid(f + ".triton.shared_bytes",
                   absl::StrCat(t.shared_bytes(), " is outside [0, ", kMaxDynamicSmem, "]"));
  }
  if (t.trailing_null_pointers() < 0 || t.trailing_null_pointers() > 8) {
    return Invalid(f + ".triton.trailing_null_pointers",
                   absl::StrCat(t.trailing_null_pointers(), " is outside [0, 8]"));
  }
  return absl::OkStatus();
}

// A Triton kernel compiled with a dim or param declared divisible by 16 computes wrong
// addresses (or skips a masked tail) for a value that is not: such a shape is refused.
absl::Status ValidateDivisibility(const std::string& f, const v1::TritonMetadata& t,
                                  const std::map<std::string, int64_t>& values) {
  for (int i = 0; i < t.divisible_by_16_size(); ++i) {
    const std::string& name = t.divisible_by_16(i);
    const auto it = values.find(name);
    if (it == values.end()) {
      return Invalid(
          absl::StrCat(f, ".triton.divisible_by_16[", i, "]"),
          absl::StrCat("'", name.substr(0, 64), "' is not a dim or param of the operation"));
    }
    if (it->second % 16 != 0) {
      return Invalid(absl::StrCat(f, ".triton.divisible_by_16[", i, "]"),
                     absl::StrCat("the kernel was compiled assuming ", name,
                                  " divisible by 16, but this shape has ", name, " = ", it->second,
                                  "; compile it for this shape (tools/triton --specialize-for)"));
    }
  }
  return absl::OkStatus();
}

// A Triton kernel that takes its dims and params as int32 would read a truncated value for one
// past 2^31: such a problem is refused.
absl::Status ValidateInt32Scalars(const std::string& f, const v1::TritonMetadata& t,
                                  const std::map<std::string, int64_t>& values) {
  if (!t.int32_scalars()) return absl::OkStatus();
  for (const auto& [name, value] : values) {
    if (value > std::numeric_limits<int32_t>::max() ||
        value < std::numeric_limits<int32_t>::min()) {
      return Invalid(
          f + ".triton.int32_scalars",
          absl::StrCat("the kernel takes its dims and params as int32, but ", name, " = ", value,
                       " does not fit; compile it without --specialize-for (int64)"));
    }
  }
  return absl::OkStatus();
}

bool IsBinaryForm(v1::UserKernelForm form) {
  return form == v1::USER_KERNEL_FORM_CUBIN || form == v1::USER_KERNEL_FORM_TRITON;
}

absl::Status ValidateCode(const std::string& f, const v1::UserKernel& uk) {
  if (uk.form() == v1::USER_KERNEL_FORM_UNSPECIFIED || !v1::UserKernelForm_IsValid(uk.form())) {
    return Invalid(f + ".form", "must be CUDA, PTX, CUBIN or TRITON");
  }
  if (uk.code().empty()) return Invalid(f + ".code", "is empty");
  const size_t limit =
      IsBinaryForm(uk.form()) ? kernels::kMaxUserBinaryBytes : kernels::kMaxUserSourceBytes;
  if (uk.code().size() > limit) {
    return Invalid(
        f + ".code",
        absl::StrCat(uk.code().size(), " bytes; at most ", limit, " bytes (", limit >> 20,
                     " MiB) of ", IsBinaryForm(uk.form()) ? "binary" : "source", " are accepted"));
  }
  KBENCH_RETURN_IF_ERROR(kernels::CheckEntryName(uk.entry()));
  KBENCH_RETURN_IF_ERROR(kernels::CheckSourceFileName(uk.file_name()));
  // Issue 24: no file outside the toolkit's headers may be named (the compile child checks
  // again and cannot open one anyway: Landlock).
  if (uk.form() == v1::USER_KERNEL_FORM_CUDA) {
    KBENCH_RETURN_IF_ERROR(kernels::CheckSourceIncludes(uk.code()));
  }
  if (uk.options_size() > kernels::kMaxUserOptions) {
    return Invalid(f + ".options", absl::StrCat("at most ", kernels::kMaxUserOptions));
  }
  for (const std::string& option : uk.options()) {
    KBENCH_RETURN_IF_ERROR(kernels::CheckCompilerOption(option));
  }
  if (IsBinaryForm(uk.form()) && uk.options_size() > 0) {
    return Invalid(f + ".options", "a cubin is loaded as given: compiler options do not apply");
  }
  if (uk.form() == v1::USER_KERNEL_FORM_TRITON) {
    KBENCH_RETURN_IF_ERROR(ValidateTriton(f, uk.triton()));
  }
  return absl::OkStatus();
}

// The architecture the code is built for: the compile job's arch, else the device's.
absl::StatusOr<kernels::SmArch> TargetArch(const v1::DeviceInfo& device, v1::UserKernel* uk,
                                           bool compile) {
  if (!uk->arch().empty()) {
    KBENCH_ASSIGN_OR_RETURN(const kernels::SmArch arch, kernels::ParseSmArch(uk->arch()));
    if (compile || device.kind() != v1::DEVICE_KIND_CUDA) return arch;
  }
  if (device.kind() != v1::DEVICE_KIND_CUDA) {
    return absl::InvalidArgumentError(
        absl::StrCat("arch: must be given (e.g. sm_90a) for a compile job on ", device.id(),
                     ", which has no CUDA architecture; or submit it to a CUDA device"));
  }
  KBENCH_ASSIGN_OR_RETURN(const kernels::SmArch arch,
                          kernels::SmArchForComputeCapability(device.compute_capability()));
  uk->set_arch(arch.ToString());
  return arch;
}

// The hash the store keeps a large kernel's code under is kbenchd's to compute (a client's
// value is replaced): a retried submit then compares equal to the stored spec, which has it.
void StampCodeSha256(v1::UserKernel* uk) { uk->set_code_sha256(auth::Sha256Hex(uk->code())); }

absl::Status ValidateOne(const v1::DeviceInfo& device, const kernels::Operation& op, int i,
                         v1::JobSpec* spec) {
  const std::string f = absl::StrCat("user_kernels[", i, "]");
  v1::UserKernel* uk = spec->mutable_user_kernels(i);
  KBENCH_RETURN_IF_ERROR(ValidateCode(f, *uk));
  StampCodeSha256(uk);
  const bool compile = spec->kind() == v1::JOB_KIND_COMPILE;
  KBENCH_ASSIGN_OR_RETURN(const kernels::SmArch arch, TargetArch(device, uk, compile));
  if (IsBinaryForm(uk->form()))
    KBENCH_RETURN_IF_ERROR(kernels::CheckBinaryForArch(uk->code(), arch));
  // A compile job without a launch configuration reports resources without occupancy.
  if (compile && uk->launch().grid_size() == 0 && uk->launch().block_size() == 0) {
    return absl::OkStatus();
  }
  KBENCH_ASSIGN_OR_RETURN(const auto values, ExpressionValues(op, *spec));
  if (uk->form() == v1::USER_KERNEL_FORM_TRITON) {
    KBENCH_RETURN_IF_ERROR(ValidateDivisibility(f, uk->triton(), values));
    KBENCH_RETURN_IF_ERROR(ValidateInt32Scalars(f, uk->triton(), values));
  }
  return ValidateLaunch(f, *uk, values);
}

// Names the unnamed "@user" and checks every name, before anything that depends on the device,
// so a name is refused alike everywhere.
absl::Status NameUserKernels(v1::JobSpec* spec) {
  for (int i = 0; i < spec->user_kernels_size(); ++i) {
    v1::UserKernel* uk = spec->mutable_user_kernels(i);
    if (uk->name().empty()) uk->set_name(kernels::kDefaultUserVariantName);
    KBENCH_RETURN_IF_ERROR(
        CheckUserVariantName(absl::StrCat("user_kernels[", i, "].name"), uk->name()));
  }
  return absl::OkStatus();
}

// Every user kernel is named in `variants` exactly once (added when missing); names are unique.
absl::Status ListUserVariants(v1::JobSpec* spec) {
  std::set<std::string> listed(spec->variants().begin(), spec->variants().end());
  std::set<std::string> names;
  for (const v1::UserKernel& uk : spec->user_kernels()) {
    if (!names.insert(uk.name()).second) {
      return Invalid("user_kernels", absl::StrCat("two user kernels are named '", uk.name(), "'"));
    }
    if (spec->kind() != v1::JOB_KIND_COMPILE && listed.count(uk.name()) == 0) {
      spec->add_variants(uk.name());
    }
  }
  for (const std::string& v : spec->variants()) {
    if (kernels::IsUserVariantName(v) && names.count(v) == 0) {
      return Invalid("variants", absl::StrCat("'", v, "' names no user kernel of the job"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateUserKernels(const v1::DeviceInfo& device, v1::JobSpec* spec) {
  const kernels::Operation* op = kernels::FindOperation(spec->kernel());
  if (op == nullptr) return Invalid("kernel", absl::StrCat("unknown operation ", spec->kernel()));
  const bool compile = spec->kind() == v1::JOB_KIND_COMPILE;
  if (compile && spec->user_kernels_size() != 1) {
    return Invalid("user_kernels", absl::StrCat("a compile job takes exactly one user kernel, got ",
                                                spec->user_kernels_size()));
  }
  if (spec->user_kernels_size() == 0) return absl::OkStatus();
  KBENCH_RETURN_IF_ERROR(NameUserKernels(spec));
  if (!compile && device.kind() != v1::DEVICE_KIND_CUDA) {
    return absl::FailedPreconditionError(absl::StrCat(
        "user_kernels: user kernels run on CUDA devices; ", device.id(), " is not one"));
  }
  if (spec->shape().empty()) {
    for (int64_t d : op->default_shape) spec->add_shape(d);
  }
  for (int i = 0; i < spec->user_kernels_size(); ++i) {
    KBENCH_RETURN_IF_ERROR(ValidateOne(device, *op, i, spec));
  }
  return ListUserVariants(spec);
}

absl::Status ValidateRegisteredKernel(const kernels::Operation& op, v1::UserKernel* uk) {
  KBENCH_RETURN_IF_ERROR(CheckUserVariantName("kernel.name", uk->name()));
  KBENCH_RETURN_IF_ERROR(ValidateCode("kernel", *uk));
  StampCodeSha256(uk);
  // Its architecture and a Triton kernel's divisibility are checked per job; the launch
  // expressions are checked here, at the operation's default shape, so a typo fails now.
  v1::JobSpec probe;
  probe.set_kernel(op.name);
  for (int64_t d : op.default_shape) probe.add_shape(d);
  KBENCH_ASSIGN_OR_RETURN(const auto values, ExpressionValues(op, probe));
  return ValidateLaunch("kernel", *uk, values);
}

}  // namespace kbench::api
