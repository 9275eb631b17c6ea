// Reading a job and its user kernels' code for a reproduction, from kbenchd or a bundle.
#include "client/repro/repro_source.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/artifact_download.h"
#include "client/errors.h"
#include "client/format/json.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

constexpr char kJobMember[] = "job.json";
constexpr char kCodePrefix[] = "code/";

// The sha256 the job recorded for a kernel's code (the spec's, else a result's module record).
std::string RecordedSha256(const v1::Job& job, const v1::UserKernel& uk) {
  if (!uk.code_sha256().empty()) return uk.code_sha256();
  for (const v1::VariantResult& v : job.result().variants()) {
    if (v.variant() == uk.name()) return v.user_module().module_sha256();
  }
  return "";
}

absl::Status CheckCode(const v1::Job& job, const v1::UserKernel& uk, const std::string& code,
                       const std::string& from) {
  const std::string recorded = RecordedSha256(job, uk);
  if (!recorded.empty() && Sha256Hex(code) != recorded) {
    return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                            absl::StrCat(uk.name(), ": the code from ", from, " has sha256 ",
                                         Sha256Hex(code), "; job ", job.id(), " ran ", recorded));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadCodeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return LocalError(absl::StatusCode::kNotFound, absl::StrCat("--code: cannot read ", path));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool IsListedVariant(const v1::JobSpec& spec, const std::string& name) {
  for (const std::string& v : spec.variants()) {
    if (v == name) return true;
  }
  return false;
}

// A kernel's code from its registered variant, or nullopt-like empty when it is not one.
absl::StatusOr<std::string> RegisteredCode(Session& session, const v1::Job& job,
                                           const v1::UserKernel& uk) {
  v1::GetVariantRequest request;
  request.set_operation(job.spec().kernel());
  request.set_name(uk.name());
  request.set_include_code(true);
  KBENCH_ASSIGN_OR_RETURN(v1::GetVariantResponse reply, session.connection().GetVariant(request));
  return reply.variant().kernel().code();
}

}  // namespace

absl::StatusOr<ReproSource> SourceFromServer(Session& session, const std::string& job_id,
                                             const CodeFiles& files, bool need_all_code) {
  ReproSource source;
  // The code as it ran comes back to its owners and admins (GetJobRequest.include_code); anyone
  // else gives it with --code.
  absl::StatusOr<v1::Job> with_code = session.connection().GetJob(job_id, /*include_code=*/true);
  if (absl::IsPermissionDenied(with_code.status())) {
    with_code = session.connection().GetJob(job_id);
  }
  KBENCH_ASSIGN_OR_RETURN(source.job, std::move(with_code));
  for (const v1::UserKernel& uk : source.job.spec().user_kernels()) {
    auto file = files.find(uk.name());
    if (file != files.end()) {
      KBENCH_ASSIGN_OR_RETURN(std::string code, ReadCodeFile(file->second));
      KBENCH_RETURN_IF_ERROR(CheckCode(source.job, uk, code, file->second));
      source.code[uk.name()] = std::move(code);
      continue;
    }
    const bool registered = IsListedVariant(source.job.spec(), uk.name());
    if (!registered && !uk.code().empty()) {
      KBENCH_RETURN_IF_ERROR(CheckCode(source.job, uk, uk.code(), "the job's record"));
      source.code[uk.name()] = uk.code();
      continue;
    }
    if (registered && !need_all_code) continue;  // kbenchd resolves it again at submit
    if (!registered) {
      return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                              absl::StrCat("job ", job_id, " ran the user kernel ", uk.name(),
                                           " (file ", uk.file_name(),
                                           "), whose code kbenchd returns only to its owners and "
                                           "admins: give it with --code ",
                                           uk.name(), "=FILE"));
    }
    KBENCH_ASSIGN_OR_RETURN(std::string code, RegisteredCode(session, source.job, uk));
    KBENCH_RETURN_IF_ERROR(CheckCode(source.job, uk, code, "registered variant " + uk.name()));
    source.code[uk.name()] = std::move(code);
  }
  for (const auto& [name, path] : files) {
    if (source.code.count(name) == 0) {
      return UsageError(absl::StrCat("--code ", name, "=", path, ": job ", job_id,
                                     " has no user kernel named ", name));
    }
  }
  return source;
}

absl::StatusOr<ReproSource> SourceFromBundle(const std::string& path,
                                             const BundleMembers& members) {
  ReproSource source;
  auto job = members.find(kJobMember);
  if (job == members.end()) {
    return CheckFailedError(absl::StatusCode::kInvalidArgument,
                            absl::StrCat(path, ": the bundle has no ", kJobMember));
  }
  absl::Status parsed = FromJson(job->second, &source.job);
  if (!parsed.ok()) {
    return CheckFailedError(absl::StatusCode::kInvalidArgument,
                            absl::StrCat(path, ": ", kJobMember, ": ", parsed.message()));
  }
  for (const v1::UserKernel& uk : source.job.spec().user_kernels()) {
    auto code = members.find(kCodePrefix + uk.name());
    if (code == members.end()) {
      return CheckFailedError(absl::StatusCode::kInvalidArgument,
                              absl::StrCat(path, ": no ", kCodePrefix, uk.name(),
                                           " for the user "
                                           "kernel ",
                                           uk.name()));
    }
    KBENCH_RETURN_IF_ERROR(CheckCode(source.job, uk, code->second, path));
    source.code[uk.name()] = code->second;
  }
  return source;
}

BundleMembers BundleOf(const ReproSource& source,
                       const std::map<std::string, std::string>& artifacts) {
  BundleMembers members;
  absl::StatusOr<std::string> job = ToJson(source.job);
  members[kJobMember] = job.ok() ? *job : "";
  absl::StatusOr<std::string> env = ToJson(source.job.result().environment());
  members["environment.json"] = env.ok() ? *env : "";
  for (const auto& [name, code] : source.code) members[kCodePrefix + name] = code;
  for (const v1::VariantResult& v : source.job.result().variants()) {
    std::string lines;
    for (double s : v.sample_seconds()) absl::StrAppend(&lines, absl::StrFormat("%.17g\n", s));
    members[absl::StrCat("samples/", v.variant(), ".txt")] = lines;
  }
  for (const auto& [name, bytes] : artifacts) members["artifacts/" + name] = bytes;
  return members;
}

}  // namespace kbench::client
