// The sanitize pass of a benchmark (sanitize_job.h).
#include "server/executor/profile/sanitize_job.h"

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/user_variant_name.h"
#include "kernels/catalogue.h"
#include "server/executor/profile/ncu_runner.h"
#include "server/executor/profile/ncu_target.h"
#include "server/executor/profile/sanitizer.h"

namespace kbench::executor::profile {
namespace {

absl::StatusOr<v1::SanitizerRecord> SanitizeOne(
    const JobContext& context, int device, const std::string& sanitizer, const std::string& variant,
    int position, std::vector<internal::v1::ArtifactFile>* artifacts) {
  const internal::v1::RunJob& job = *context.job;
  const std::string dir = job.artifact_dir();
  const std::string report_name = MemcheckReportName(variant, position);
  MemcheckRequest request;
  request.sanitizer = sanitizer;
  KBENCH_ASSIGN_OR_RETURN(request.target_executable, SelfExecutable());
  request.target_spec_path = dir + "/.sanitize_target.textproto";
  request.report_path = absl::StrCat(dir, "/", report_name);
  request.output_path = dir + "/.sanitize_target_output.txt";
  // The checked launch, the warm-up and one launch: what the benchmark will run.
  KBENCH_RETURN_IF_ERROR(WriteToolTargetSpec(job, variant, 1, device, request.target_spec_path));
  absl::StatusOr<MemcheckRun> run = RunMemcheck(request, context.cancelled);
  unlink(request.target_spec_path.c_str());
  unlink(request.output_path.c_str());
  if (access(request.report_path.c_str(), R_OK) == 0) {
    internal::v1::ArtifactFile* a = &artifacts->emplace_back();
    a->set_name(report_name);
    a->set_path(request.report_path);
    a->set_content_type("text/plain");
  }
  KBENCH_RETURN_IF_ERROR(run.status());
  if (run->report.errors > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "sanitize: compute-sanitizer memcheck found ", run->report.errors, " memory error",
        run->report.errors == 1 ? "" : "s", " in ", variant, ": ", run->report.first_errors,
        " (the report: kbctl artifacts get ", job.job_id(), " ", report_name, ")"));
  }
  v1::SanitizerRecord record;
  record.set_tool("memcheck");
  record.set_errors(run->report.errors);
  record.set_report_artifact(report_name);
  record.set_seconds(run->seconds);
  return record;
}

}  // namespace

// "@my.kernel" -> memcheck_my.kernel.txt; the '+' of the other form is in no well-formed name.
std::string MemcheckReportName(const std::string& variant, int position) {
  if (IsWellFormedUserVariantName(variant)) {
    return absl::StrCat("memcheck_", variant.substr(1), ".txt");
  }
  return absl::StrCat("memcheck_+", position, ".txt");
}

absl::StatusOr<std::map<std::string, v1::SanitizerRecord>> SanitizeUserVariants(
    const JobContext& context, int device, std::vector<internal::v1::ArtifactFile>* artifacts) {
  KBENCH_ASSIGN_OR_RETURN(const std::string sanitizer,
                          FindTool(WithEnvironment(SanitizerSearch())));
  std::map<std::string, v1::SanitizerRecord> records;
  const auto& variants = context.job->spec().variants();
  for (int i = 0; i < variants.size(); ++i) {
    if (!kernels::IsUserVariantName(variants[i])) continue;
    KBENCH_ASSIGN_OR_RETURN(records[variants[i]],
                            SanitizeOne(context, device, sanitizer, variants[i], i, artifacts));
  }
  return records;
}

void AttachSanitizerRecords(const std::map<std::string, v1::SanitizerRecord>& records,
                            v1::JobResult* result) {
  for (v1::VariantResult& vr : *result->mutable_variants()) {
    auto it = records.find(vr.variant());
    if (it != records.end()) *vr.mutable_user_module()->mutable_sanitizer() = it->second;
  }
}

}  // namespace kbench::executor::profile
