// Parsing bisect's versions, and the A/B requests that time them.
#include "client/bisect/versions.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

bool LooksLikeKernelFile(const std::string& item) {
  if (item.find('/') != std::string::npos) return true;
  for (const char* ext : {".cu", ".cuh", ".ptx", ".cubin", ".fatbin", ".json"}) {
    if (absl::EndsWith(item, ext)) return true;
  }
  return false;
}

// Adds `version` to the request's variants, a file as a user kernel named `name`.
absl::Status AddVersion(const Version& version, const UserKernelFlags& launch,
                        const std::string& name, v1::SubmitJobRequest* request) {
  v1::JobSpec* spec = request->mutable_spec();
  if (version.kind == VersionKind::kVariant) {
    spec->add_variants(version.variant);
    return absl::OkStatus();
  }
  if (version.path.empty()) {
    return absl::InternalError(absl::StrCat("version ", version.label, " has no file yet"));
  }
  UserKernelFlags flags = launch;
  flags.source = version.path;
  flags.name = name;
  KBENCH_ASSIGN_OR_RETURN(v1::UserKernel kernel, BuildUserKernel(flags));
  spec->add_variants(name);
  *spec->add_user_kernels() = std::move(kernel);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Version>> ParseVersionList(const std::vector<std::string>& items) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> names, ParseNameList("--versions", items));
  std::vector<Version> versions;
  for (const std::string& item : names) {
    Version v;
    v.label = item;
    if (LooksLikeKernelFile(item)) {
      v.kind = VersionKind::kFile;
      v.path = item;
    } else {
      v.variant = item;
    }
    versions.push_back(std::move(v));
  }
  return versions;
}

absl::StatusOr<std::vector<Version>> ParseShapeVersions(const std::string& variant,
                                                        const std::vector<std::string>& shapes) {
  if (variant.empty()) {
    return UsageError("--shapes: versions as shapes time one variant; give it with --variant");
  }
  std::vector<Version> versions;
  for (const std::string& text : shapes) {
    Version v;
    v.kind = VersionKind::kShape;
    KBENCH_ASSIGN_OR_RETURN(v.shape, ParseShape("--shapes", text));
    v.label = ShapeString(v.shape);
    v.variant = variant;
    versions.push_back(std::move(v));
  }
  return versions;
}

bool ShareAJob(const Version& a, const Version& b) {
  return a.kind != VersionKind::kShape && b.kind != VersionKind::kShape;
}

absl::StatusOr<v1::SubmitJobRequest> SharedRequest(const v1::SubmitJobRequest& base,
                                                   const UserKernelFlags& launch,
                                                   const Version& good, const Version& candidate,
                                                   int candidate_index) {
  if (good.kind == VersionKind::kVariant && candidate.kind == VersionKind::kVariant &&
      good.variant == candidate.variant) {
    return UsageError(absl::StrCat("--versions: ", good.variant,
                                   " is both the good version and version ", candidate_index));
  }
  v1::SubmitJobRequest request = base;
  KBENCH_RETURN_IF_ERROR(AddVersion(good, launch, "@bisect-good", &request));
  KBENCH_RETURN_IF_ERROR(
      AddVersion(candidate, launch, absl::StrCat("@bisect-", candidate_index), &request));
  return request;
}

v1::SubmitJobRequest SingleRequest(const v1::SubmitJobRequest& base, const Version& version) {
  v1::SubmitJobRequest request = base;
  request.mutable_spec()->add_variants(version.variant);
  request.mutable_spec()->mutable_shape()->Assign(version.shape.begin(), version.shape.end());
  return request;
}

}  // namespace kbench::client
