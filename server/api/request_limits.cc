// Request size caps (request_limits.h).
#include "server/api/request_limits.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/api/field_sizes.h"

namespace kbench::api {
namespace {

constexpr size_t kQuotedPrefixBytes = 32;

absl::Status CheckCount(absl::string_view field, int count, int max_count) {
  if (count <= max_count) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", count, " entries; at most ", max_count, " are accepted"));
}

absl::Status CheckSpecStrings(const v1::JobSpec& spec) {
  KBENCH_RETURN_IF_ERROR(CheckLength("spec.kernel", spec.kernel(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("spec.device", spec.device(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("spec.owner", spec.owner(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckCount("spec.variants", spec.variants_size(), kMaxVariants));
  for (const std::string& variant : spec.variants()) {
    KBENCH_RETURN_IF_ERROR(CheckLength("spec.variants", variant, kMaxNameBytes));
  }
  KBENCH_RETURN_IF_ERROR(CheckCount("spec.shape", spec.shape_size(), kMaxShapeRank));
  KBENCH_RETURN_IF_ERROR(CheckCount("spec.params", spec.params_size(), kMaxParams));
  for (const auto& [name, value] : spec.params()) {
    KBENCH_RETURN_IF_ERROR(CheckLength("spec.params", name, kMaxNameBytes));
  }
  return absl::OkStatus();
}

// "; the largest field is spec.confirms_job (16389 bytes)": where an oversized `message`'s bytes
// are, leaving out `uncounted` bytes of its field `number` as its limit does (user kernels' code).
std::string LargestFieldBesides(const google::protobuf::Message& message, absl::string_view prefix,
                                int number, size_t uncounted) {
  std::vector<FieldSize> sizes = FieldSizes(message);
  for (FieldSize& size : sizes) {
    if (size.field != nullptr && size.number == number) size.bytes -= uncounted;
  }
  return LargestField(sizes, prefix);
}

}  // namespace

std::string QuotePrefix(absl::string_view value) {
  if (value.size() <= kQuotedPrefixBytes) return absl::StrCat("'", value, "'");
  return absl::StrCat("'", value.substr(0, kQuotedPrefixBytes), "...' (", value.size(), " bytes)");
}

absl::Status CheckLength(absl::string_view field, absl::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", QuotePrefix(value), " is longer than ", max_bytes, " bytes"));
}

absl::Status CheckRequestSize(const v1::SubmitJobRequest& request) {
  KBENCH_RETURN_IF_ERROR(
      CheckLength("idempotency_key", request.idempotency_key(), kMaxIdempotencyKeyBytes));
  // Strings first, so the error names the field rather than the spec as a whole.
  KBENCH_RETURN_IF_ERROR(CheckSpecStrings(request.spec()));
  if (request.spec().user_kernels_size() > kMaxUserKernels) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.user_kernels: ", request.spec().user_kernels_size(), " given; at most ",
                     kMaxUserKernels));
  }
  // User kernels' code has its own limits (kernels/user_kernel_rules.h), checked at validation.
  size_t code_bytes = 0;
  for (const v1::UserKernel& uk : request.spec().user_kernels()) code_bytes += uk.code().size();
  const size_t spec_bytes = request.spec().ByteSizeLong() - code_bytes;
  if (spec_bytes > kMaxSpecBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec: ", spec_bytes, " bytes serialized; at most ", kMaxSpecBytes, " are accepted",
        LargestFieldBesides(request.spec(), "spec.", v1::JobSpec::kUserKernelsFieldNumber,
                            code_bytes)));
  }
  return absl::OkStatus();
}

absl::Status CheckRequestSize(const v1::ListJobsRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("kernel", request.kernel(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("device", request.device(), kMaxNameBytes));
  return CheckLength("page_token", request.page_token(), kMaxPageTokenBytes);
}

absl::Status CheckRequestSize(const v1::GetArtifactRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckJobId(request.job_id()));
  return CheckLength("name", request.name(), kMaxNameBytes);
}

absl::Status CheckRequestSize(const v1::ListHistoryRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("kernel", request.kernel(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("variant", request.variant(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("device", request.device(), kMaxNameBytes));
  if (request.shape_size() > kMaxShapeRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape: ", request.shape_size(), " dimensions, at most ", kMaxShapeRank));
  }
  return CheckLength("page_token", request.page_token(), kMaxPageTokenBytes);
}

absl::Status CheckRequestSize(const v1::AddVariantRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("operation", request.operation(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("kernel.name", request.kernel().name(), kMaxNameBytes));
  const size_t code_bytes = request.kernel().code().size();
  const size_t bytes = request.kernel().ByteSizeLong() - code_bytes;
  if (bytes > kMaxSpecBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel: ", bytes, " bytes besides its code; at most ", kMaxSpecBytes, " are accepted",
        LargestFieldBesides(request.kernel(), "kernel.", v1::UserKernel::kCodeFieldNumber,
                            code_bytes)));
  }
  return absl::OkStatus();
}

absl::Status CheckRequestSize(const v1::GetVariantRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("operation", request.operation(), kMaxNameBytes));
  return CheckLength("name", request.name(), kMaxNameBytes);
}

absl::Status CheckRequestSize(const v1::ListVariantsRequest& request) {
  return CheckLength("operation", request.operation(), kMaxNameBytes);
}

absl::Status CheckRequestSize(const v1::DeleteVariantRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("operation", request.operation(), kMaxNameBytes));
  return CheckLength("name", request.name(), kMaxNameBytes);
}

absl::Status CheckRequestSize(const v1::GetLeaderboardRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckLength("kernel", request.kernel(), kMaxNameBytes));
  KBENCH_RETURN_IF_ERROR(CheckLength("device_model", request.device_model(), kMaxNameBytes));
  for (int i = 0; i < request.shapes_size(); ++i) {
    if (request.shapes(i).dims_size() > kMaxShapeRank) {
      return absl::InvalidArgumentError(absl::StrCat("shapes[", i,
                                                     "]: ", request.shapes(i).dims_size(),
                                                     " dimensions, at most ", kMaxShapeRank));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckJobId(absl::string_view job_id) {
  if (job_id.empty()) return absl::InvalidArgumentError("job_id: must be given");
  return CheckLength("job_id", job_id, kMaxNameBytes);
}

}  // namespace kbench::api
