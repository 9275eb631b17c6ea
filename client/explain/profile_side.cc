// Submitting and following the jobs an explanation needs, one side at a time.
#include "client/explain/profile_side.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/artifact_download.h"
#include "client/format/job_view.h"
#include "client/job_wait.h"
#include "common/status_macros.h"

namespace kbench::client::explain {
namespace {

constexpr char kSassArtifact[] = "sass.txt";

// Codes that mean kbenchd is out of reach or will not serve this caller at all: the
// explanation stops there. Any other refusal is about one job and is reported in its place.
bool StopsEverything(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kUnauthenticated ||
         s.code() == absl::StatusCode::kDeadlineExceeded ||
         s.code() == absl::StatusCode::kCancelled;
}

// Submits `spec` and follows the job to its end. A refused submit is returned as the status.
absl::StatusOr<v1::Job> RunJob(Session& session, v1::JobSpec spec, const std::string& what) {
  // With credentials the server names the owner; $USER would only mislabel an admin's job.
  spec.set_owner(session.options().security.token.empty() ? session.GetEnv("USER").value_or("")
                                                          : "");
  v1::SubmitJobRequest request;
  *request.mutable_spec() = std::move(spec);
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobResponse response, session.connection().SubmitJob(request));
  session.Note(absl::StrCat("kbctl: --explain: job ", response.job().id(), " ", what));
  return WaitForJob(session, response.job());
}

const v1::UserKernel* UserKernelNamed(const v1::JobSpec& spec, const std::string& variant) {
  for (const v1::UserKernel& uk : spec.user_kernels()) {
    if (uk.name() == variant) return &uk;
  }
  return nullptr;
}

// The artifact's bytes, verified against its size and sha256.
absl::StatusOr<std::string> ReadArtifact(Session& session, const std::string& job_id,
                                         const std::string& name) {
  ArtifactVerifier verifier(job_id, name);
  std::string bytes;
  KBENCH_RETURN_IF_ERROR(
      session.connection().GetArtifact(job_id, name, [&](const v1::GetArtifactResponse& chunk) {
        KBENCH_RETURN_IF_ERROR(verifier.Add(chunk));
        bytes += chunk.data();
        return absl::OkStatus();
      }));
  KBENCH_RETURN_IF_ERROR(verifier.Finish());
  return bytes;
}

// Profiles with Nsight Compute, then (when that job could not run ncu: FAILED_PRECONDITION,
// e.g. no ncu on the executor's host) with CUPTI alone.
absl::Status RunProfiles(Session& session, const v1::Job& job, const std::string& variant,
                         const std::string& side, SideProfile* out) {
  for (bool ncu : {true, false}) {
    absl::StatusOr<v1::Job> run =
        RunJob(session, ProfileSpecFor(job, variant, ncu),
               absl::StrCat("profiles the ", side, "'s ", variant,
                            ncu ? " with Nsight Compute" : " under CUPTI"));
    if (!run.ok()) {
      if (StopsEverything(run.status())) return run.status();
      out->not_measured.push_back(absl::StrCat("the ", side, "'s profile: kbenchd refused it (",
                                               run.status().message(), ")"));
      return absl::OkStatus();
    }
    out->profile_job_id = run->id();
    if (run->state() == v1::JOB_STATE_SUCCEEDED) {
      out->profile = *std::move(run);
      return absl::OkStatus();
    }
    const std::string why =
        absl::StrCat("job ", run->id(), " ", v1::JobState_Name(run->state()), ": ", run->error());
    if (ncu && JobStatusCode(*run) == absl::StatusCode::kFailedPrecondition) {
      out->not_measured.push_back(absl::StrCat("Nsight Compute on the ", side, " (", why, ")"));
      continue;
    }
    out->not_measured.push_back(absl::StrCat("the ", side, "'s profile (", why, ")"));
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// A user kernel's SASS, from a compile job of the same code for the same device.
absl::Status ReadSass(Session& session, const v1::Job& job, const v1::UserKernel& uk,
                      const std::string& side, SideProfile* out) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_COMPILE);
  spec.set_kernel(job.spec().kernel());
  spec.set_device(job.device());
  *spec.mutable_params() = job.spec().params();
  *spec.add_user_kernels() = uk;
  absl::StatusOr<v1::Job> compiled =
      RunJob(session, spec, absl::StrCat("compiles the ", side, "'s ", uk.name(), " for its SASS"));
  if (!compiled.ok() && StopsEverything(compiled.status())) return compiled.status();
  if (!compiled.ok() || compiled->state() != v1::JOB_STATE_SUCCEEDED) {
    out->not_measured.push_back(absl::StrCat(
        "SASS of the ", side, ": its compile ",
        compiled.ok() ? absl::StrCat("job ", compiled->id(), " failed: ", compiled->error())
                      : absl::StrCat("was refused: ", compiled.status().message())));
    return absl::OkStatus();
  }
  if (!compiled->result().compile().sass_available()) {
    out->not_measured.push_back(absl::StrCat(
        "SASS of the ", side, ": no disassembler (nvdisasm or cuobjdump) on the executor's host"));
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> sass = ReadArtifact(session, compiled->id(), kSassArtifact);
  if (sass.ok()) {
    out->sass = *std::move(sass);
  } else if (sass.status().code() == absl::StatusCode::kPermissionDenied) {
    out->not_measured.push_back(absl::StrCat("SASS of the ", side, ": ", kSassArtifact,
                                             " is readable only by the code's owner and admins"));
  } else if (StopsEverything(sass.status())) {
    return sass.status();
  } else {
    out->not_measured.push_back(absl::StrCat("SASS of the ", side, ": ", sass.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace

bool RanOnCuda(const v1::Job& job) { return absl::StartsWith(job.device(), "cuda"); }

v1::JobSpec ProfileSpecFor(const v1::Job& job, const std::string& variant, bool ncu) {
  const v1::JobSpec& from = job.spec();
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_PROFILE);
  spec.set_kernel(from.kernel());
  spec.add_variants(variant);
  *spec.mutable_shape() = from.shape();
  spec.set_dtype(from.dtype());
  spec.set_device(job.device());
  spec.set_seed(from.seed());
  *spec.mutable_params() = from.params();
  spec.mutable_profile()->set_ncu(ncu);
  if (const v1::UserKernel* uk = UserKernelNamed(from, variant)) *spec.add_user_kernels() = *uk;
  return spec;
}

absl::StatusOr<SideProfile> ProfileSide(Session& session, const v1::Job& job,
                                        const std::string& variant, const std::string& side) {
  SideProfile out;
  KBENCH_RETURN_IF_ERROR(RunProfiles(session, job, variant, side, &out));
  if (const v1::UserKernel* uk = UserKernelNamed(job.spec(), variant)) {
    KBENCH_RETURN_IF_ERROR(ReadSass(session, job, *uk, side, &out));
  }
  return out;
}

}  // namespace kbench::client::explain
