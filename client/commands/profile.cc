// kbctl profile: submit a profile job, print its kernel summary, resources and category
// breakdown, and save its Chrome trace.
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/artifact_download.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/units.h"
#include "client/job_wait.h"
#include "client/spec_options.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

struct ProfileFlags {
  SpecFlags spec;
  std::string trace_path;
};

// The job's Chrome trace: "trace.json" if present, else the first JSON artifact whose name
// mentions a trace.
const v1::ArtifactInfo* FindTrace(const v1::Job& job) {
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    if (a.name() == "trace.json") return &a;
  }
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    if (absl::StrContains(a.name(), "trace") && absl::EndsWith(a.name(), ".json")) return &a;
  }
  return nullptr;
}

absl::Status RunProfile(Session& session, const ProfileFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(std::optional<v1::Job> submitted,
                          SubmitAndWait(session, flags.spec, SubmitCommand::kProfile));
  if (!submitted.has_value()) return absl::OkStatus();  // --no-wait: the job was printed.
  const v1::Job& job = *submitted;
  if (job.state() != v1::JOB_STATE_SUCCEEDED) return PrintJobReport(session, job);

  const v1::ArtifactInfo* trace = FindTrace(job);
  if (trace == nullptr) {
    std::vector<std::string> names;
    for (const v1::ArtifactInfo& a : job.artifacts()) names.push_back(a.name());
    (void)PrintJobReport(session, job);
    return CheckFailedError(absl::StatusCode::kNotFound,
                            absl::StrCat("job ", job.id(), " succeeded without a trace artifact (",
                                         names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  const std::string path =
      flags.trace_path.empty() ? absl::StrCat("trace-", job.id(), ".json") : flags.trace_path;
  absl::StatusOr<v1::ArtifactInfo> saved = DownloadArtifact(session, job.id(), trace->name(), path);
  absl::Status outcome = PrintJobReport(session, job);
  // Checked only after the report, so the job's result prints even when saving the trace failed.
  if (!saved.ok()) return saved.status();
  session.Note(absl::StrCat("\nTrace: ", path, " (", FormatBytes(saved->size_bytes()),
                            ", sha256 verified); open it in https://ui.perfetto.dev or "
                            "chrome://tracing"));
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    if (absl::EndsWith(a.name(), ".ncu-rep")) {
      session.Note(
          absl::StrCat("Nsight Compute report: kbctl artifacts get ", job.id(), " ", a.name()));
    }
  }
  return outcome;
}

}  // namespace

void AddProfileCommand(CLI::App& app, Action* action) {
  auto flags = std::make_shared<ProfileFlags>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Profile variants under CUPTI: kernel summary, resources, categories; saves the trace");
  AddSpecFlags(cmd, SubmitCommand::kProfile, &flags->spec);
  cmd->add_option("-f,--file", flags->trace_path,
                  "Where to save the Chrome trace (default trace-JOB.json)")
      ->type_name("PATH");
  cmd->callback(
      [flags, action] { *action = [flags](Session& s) { return RunProfile(s, *flags); }; });
}

}  // namespace kbench::client
