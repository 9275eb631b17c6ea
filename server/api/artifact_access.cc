// Who may see what a job's user code produced (artifact_access.h).
#include "server/api/artifact_access.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kernels/catalogue.h"

namespace kbench::api {
namespace {

// Artifacts of a code-carrying job that hold nothing derived from the code: the timed samples.
constexpr std::array<absl::string_view, 1> kPublicArtifacts = {"samples.csv"};

// Whose code the job runs; a job stored before code_owners existed ran its owner's.
std::vector<std::string> CodeOwners(const v1::JobSpec& spec) {
  if (!spec.code_owners().empty()) {
    return {spec.code_owners().begin(), spec.code_owners().end()};
  }
  return {spec.owner()};
}

}  // namespace

bool CarriesUserCode(const v1::JobSpec& spec) {
  return spec.user_kernels_size() > 0 ||
         std::any_of(spec.variants().begin(), spec.variants().end(),
                     [](const std::string& v) { return kernels::IsUserVariantName(v); });
}

bool IsOwnerOnlyArtifact(const v1::JobSpec& spec, absl::string_view name) {
  if (!CarriesUserCode(spec)) return false;
  return std::find(kPublicArtifacts.begin(), kPublicArtifacts.end(), name) ==
         kPublicArtifacts.end();
}

bool MayReadCode(const auth::Identity& caller, const v1::JobSpec& spec) {
  if (caller.admin()) return true;
  const std::vector<std::string> owners = CodeOwners(spec);
  return std::all_of(owners.begin(), owners.end(),
                     [&](const std::string& owner) { return owner == caller.name; });
}

absl::Status DecideArtifactRead(const auth::Identity& caller, const v1::JobSpec& spec,
                                const std::string& job_id, const std::string& name) {
  if (!IsOwnerOnlyArtifact(spec, name) || MayReadCode(caller, spec)) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "artifact ", name, " of job ", job_id, " is derived from the code of '",
      absl::StrJoin(CodeOwners(spec), "', '"), "' and only they and admins may read it; you are '",
      caller.name, "' (samples.csv is for everyone)"));
}

void MarkOwnerOnlyArtifacts(v1::Job* job) {
  for (v1::ArtifactInfo& a : *job->mutable_artifacts()) {
    a.set_owner_only(IsOwnerOnlyArtifact(job->spec(), a.name()));
  }
}

absl::StatusOr<v1::Job> WithCodeFor(const auth::Identity& caller, v1::Job job) {
  // A job of catalogue variants only has no code to withhold.
  if (!CarriesUserCode(job.spec()) || MayReadCode(caller, job.spec())) return job;
  return absl::PermissionDeniedError(
      absl::StrCat("include_code: job ", job.id(), " runs the code of '",
                   absl::StrJoin(CodeOwners(job.spec()), "', '"),
                   "' and only they and admins may read it; you are '", caller.name, "'"));
}

absl::StatusOr<v1::Job> WithinReplyBound(v1::Job job, int64_t max_reply_bytes) {
  // The reply wraps the job in GetJobResponse: a tag and a length of a few bytes.
  constexpr int64_t kEnvelopeBytes = 16;
  const int64_t bytes = static_cast<int64_t>(job.ByteSizeLong()) + kEnvelopeBytes;
  if (bytes <= max_reply_bytes) return job;
  return absl::ResourceExhaustedError(absl::StrFormat(
      "include_code: job %s with its kernels' code is %.1f MiB, above the %.1f MiB a reply may "
      "carry; give the code from its file instead (kbctl repro|bundle JOB --code FILE)",
      job.id(), static_cast<double>(bytes) / (1 << 20),
      static_cast<double>(max_reply_bytes) / (1 << 20)));
}

void RedactForViewer(const auth::Identity& viewer, v1::Job* job) {
  if (job->error().empty() || !CarriesUserCode(job->spec()) || MayReadCode(viewer, job->spec())) {
    return;
  }
  job->set_error(absl::StrCat(
      "the job failed (", job->error_code(), "); its message may quote the code of '",
      absl::StrJoin(CodeOwners(job->spec()), "', '"), "' and is shown only to them and admins"));
}

}  // namespace kbench::api
