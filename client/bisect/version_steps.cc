// Running one bisect step against kbenchd.
#include "client/bisect/version_steps.h"

#include "absl/strings/str_cat.h"
#include "client/errors.h"
#include "client/paired/paired_run.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// A revision's file, built on first use; other versions as they are.
absl::StatusOr<Version> Materialised(const VersionStepsConfig& config, int index) {
  Version v = config.versions[index];
  if (v.kind != VersionKind::kRevision) return v;
  if (config.builder == nullptr) {
    return absl::InternalError(absl::StrCat("revision ", v.label, " but no --build command"));
  }
  KBENCH_ASSIGN_OR_RETURN(v.path, config.builder->PathFor(v.revision));
  return v;
}

absl::StatusOr<PairedRun> RunStepPairs(Session& session, const VersionStepsConfig& config,
                                       int version, int pairs) {
  KBENCH_ASSIGN_OR_RETURN(Version good, Materialised(config, 0));
  KBENCH_ASSIGN_OR_RETURN(Version candidate, Materialised(config, version));
  if (!ShareAJob(good, candidate)) {
    return RunSeparatePairs(session, SingleRequest(config.base, good),
                            SingleRequest(config.base, candidate), pairs);
  }
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobRequest both,
                          SharedRequest(config.base, config.launch, good, candidate, version));
  return RunSharedPairs(session, both, pairs);
}

}  // namespace

BisectStepFunction VersionSteps(Session& session, VersionStepsConfig config) {
  auto shared = std::make_shared<const VersionStepsConfig>(std::move(config));
  return [&session, shared](int version, int pairs) -> absl::StatusOr<BisectStep> {
    session.Note(absl::StrCat("kbctl: bisect: ", shared->versions[0].label, " vs version ", version,
                              " (", shared->versions[version].label, "), ", pairs, " pairs"));
    KBENCH_ASSIGN_OR_RETURN(PairedRun run, RunStepPairs(session, *shared, version, pairs));
    absl::StatusOr<analysis::PairedVerdict> verdict =
        analysis::ComparePairs(run.baseline_seconds, run.candidate_seconds, shared->paired);
    if (!verdict.ok()) {
      return CheckFailedError(verdict.status().code(), verdict.status().message());
    }
    BisectStep step;
    step.version = version;
    step.verdict = *verdict;
    for (const v1::Job& job : run.jobs) step.job_ids.push_back(job.id());
    return step;
  };
}

}  // namespace kbench::client
