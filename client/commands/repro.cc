// kbctl repro JOB|FILE.kbench and kbctl bundle JOB -f FILE (issue 29, item 3): re-run a stored
// job from its record on the same device model and report the new result beside the old, with
// the job-as-unit verdict and every environment field that drifted; or export everything a
// reproduction on another kbench needs into one checked file.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/artifact_download.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/json.h"
#include "client/format/verdict_view.h"
#include "client/job_wait.h"
#include "client/paired/paired_compare.h"
#include "client/repro/bundle_archive.h"
#include "client/repro/env_drift.h"
#include "client/repro/repro_request.h"
#include "client/repro/repro_source.h"
#include "client/verdict/diff_flags.h"
#include "client/verdict/fail_on.h"
#include "common/status_macros.h"
#include "google/protobuf/struct.pb.h"

namespace kbench::client {
namespace {

struct ReproFlags {
  std::string device;
  bool any_model = false;
  bool same_seed = false;
  std::vector<std::string> code;
  VerdictFlags verdict;
};

absl::StatusOr<CodeFiles> ParseCodeFlags(const std::vector<std::string>& values) {
  CodeFiles files;
  for (const std::string& value : values) {
    std::vector<std::string> parts = absl::StrSplit(value, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return UsageError(absl::StrCat("--code: '", value, "' is not NAME=FILE, e.g. @user=k.cu"));
    }
    files[parts[0]] = parts[1];
  }
  return files;
}

absl::Status RequireSucceeded(const v1::Job& job) {
  if (job.state() == v1::JOB_STATE_SUCCEEDED) return absl::OkStatus();
  return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                          absl::StrCat("job ", job.id(), " is ", v1::JobState_Name(job.state()),
                                       "; only a succeeded job has a result to reproduce"));
}

// The job and its code: a job id asks kbenchd, anything else is a bundle file.
absl::StatusOr<ReproSource> LoadSource(Session& session, const std::string& what,
                                       const CodeFiles& files) {
  if (IsJobId(what)) return SourceFromServer(session, what, files, /*need_all_code=*/false);
  if (!std::filesystem::is_regular_file(what)) {
    return UsageError(absl::StrCat("'", what, "' is neither a job id (j-...) nor a bundle file"));
  }
  KBENCH_ASSIGN_OR_RETURN(BundleMembers members, ReadBundle(what));
  return SourceFromBundle(what, members);
}

// The target device as kbenchd lists it, held to the job's model unless --any-model.
absl::Status CheckTarget(Session& session, const v1::Job& job, const ReproFlags& flags) {
  const std::string target = ReproDevice(job, flags.device);
  KBENCH_ASSIGN_OR_RETURN(v1::ListDevicesResponse devices, session.connection().ListDevices());
  std::vector<std::string> ids;
  for (const v1::DeviceInfo& d : devices.devices()) {
    const std::string id = d.node().empty() ? d.id() : absl::StrCat(d.node(), "/", d.id());
    if (id == target || d.id() == target) {
      return flags.any_model ? absl::OkStatus() : CheckSameModel(job, d);
    }
    ids.push_back(id);
  }
  return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                          absl::StrCat("job ", job.id(), " ran on ", target,
                                       ", which this kbenchd "
                                       "does not have (it has ",
                                       absl::StrJoin(ids, ", "), "); name one with --device"));
}

absl::Status PrintRepro(Session& session, const v1::Job& old_job, const v1::Job& new_job,
                        const v1::JobComparison& comparison, const std::vector<Drift>& drift) {
  if (!session.json()) {
    session.out() << "Reproduction of " << old_job.id() << " (" << old_job.device() << ") as "
                  << new_job.id() << " (" << new_job.device() << ")\n"
                  << RenderComparison(comparison) << RenderDrift(drift);
    return absl::OkStatus();
  }
  google::protobuf::Struct doc;
  auto& fields = *doc.mutable_fields();
  fields["original_job_id"].set_string_value(old_job.id());
  KBENCH_ASSIGN_OR_RETURN(fields["reproduction"], ToJsonValue(new_job));
  KBENCH_ASSIGN_OR_RETURN(fields["comparison"], ToJsonValue(comparison));
  google::protobuf::ListValue* list = fields["drift"].mutable_list_value();
  for (const Drift& d : drift) {
    auto& item = *list->add_values()->mutable_struct_value()->mutable_fields();
    item["field"].set_string_value(d.field);
    item["old"].set_string_value(d.old_value);
    item["new"].set_string_value(d.new_value);
  }
  return session.PrintJson(doc);
}

absl::Status RunRepro(Session& session, const std::string& what, const ReproFlags& flags) {
  KBENCH_RETURN_IF_ERROR(CheckVerdictFlags(flags.verdict));  // usage errors send nothing
  KBENCH_ASSIGN_OR_RETURN(std::set<v1::Verdict> fail_on, ParseFailOn(flags.verdict.fail_on));
  KBENCH_ASSIGN_OR_RETURN(CodeFiles files, ParseCodeFlags(flags.code));
  KBENCH_ASSIGN_OR_RETURN(ReproSource source, LoadSource(session, what, files));
  KBENCH_RETURN_IF_ERROR(RequireSucceeded(source.job));
  KBENCH_RETURN_IF_ERROR(CheckTarget(session, source.job, flags));
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                          ReproRequest(source, {.device = flags.device,
                                                .same_seed = flags.same_seed,
                                                .owner = DefaultOwner(session)}));
  KBENCH_ASSIGN_OR_RETURN(v1::Job reproduction, SubmitRequestAndWait(session, request));
  KBENCH_RETURN_IF_ERROR(JobOutcome(reproduction));
  KBENCH_ASSIGN_OR_RETURN(v1::JobComparison comparison,
                          CompareForVerdict(session, source.job, reproduction, flags.verdict));
  const std::vector<Drift> drift = EnvironmentDrift(source.job.result(), reproduction.result());
  KBENCH_RETURN_IF_ERROR(PrintRepro(session, source.job, reproduction, comparison, drift));
  return ApplyFailOn(comparison, fail_on);
}

// Every artifact of the job, verified against its sha256 as it arrives.
absl::StatusOr<std::map<std::string, std::string>> FetchArtifacts(Session& session,
                                                                  const v1::Job& job) {
  std::map<std::string, std::string> artifacts;
  for (const v1::ArtifactInfo& info : job.artifacts()) {
    KBENCH_RETURN_IF_ERROR(CheckArtifactName(info.name()));
    ArtifactVerifier verifier(job.id(), info.name());
    std::string bytes;
    KBENCH_RETURN_IF_ERROR(session.connection().GetArtifact(
        job.id(), info.name(), [&](const v1::GetArtifactResponse& chunk) {
          KBENCH_RETURN_IF_ERROR(verifier.Add(chunk));
          bytes += chunk.data();
          return absl::OkStatus();
        }));
    KBENCH_RETURN_IF_ERROR(verifier.Finish());
    artifacts[info.name()] = std::move(bytes);
  }
  return artifacts;
}

absl::Status RunBundle(Session& session, const std::string& job_id, const std::string& path,
                       const std::vector<std::string>& code) {
  KBENCH_ASSIGN_OR_RETURN(CodeFiles files, ParseCodeFlags(code));
  const std::string file = path.empty() ? job_id + ".kbench" : path;
  KBENCH_ASSIGN_OR_RETURN(ReproSource source,
                          SourceFromServer(session, job_id, files, /*need_all_code=*/true));
  KBENCH_RETURN_IF_ERROR(RequireSucceeded(source.job));
  KBENCH_ASSIGN_OR_RETURN(auto artifacts, FetchArtifacts(session, source.job));
  KBENCH_RETURN_IF_ERROR(
      WriteBundle(file, BundleOf(source, artifacts), source.job.id(), KBENCH_VERSION));
  session.Note(absl::StrCat("wrote ", file, ": job ", job_id, ", ", source.code.size(),
                            " code file(s), ", artifacts.size(), " artifact(s)"));
  if (session.json()) {
    google::protobuf::Struct doc;
    (*doc.mutable_fields())["file"].set_string_value(file);
    (*doc.mutable_fields())["job_id"].set_string_value(job_id);
    return session.PrintJson(doc);
  }
  session.out() << file << "\n";
  return absl::OkStatus();
}

}  // namespace

void AddReproCommands(CLI::App& app, Action* action) {
  auto what = std::make_shared<std::string>();
  auto flags = std::make_shared<ReproFlags>();
  CLI::App* repro = app.add_subcommand(
      "repro",
      "Re-run a stored job (or a bundle from kbctl bundle) from its record on the same device "
      "model; print the new result's verdict against the old and every environment field that "
      "drifted");
  repro->add_option("JOB", *what, "A job id, or a bundle file written by kbctl bundle")->required();
  repro->add_option("--device", flags->device, "Run it here (default: the job's device)")
      ->type_name("DEVICE");
  repro->add_flag("--any-model", flags->any_model,
                  "Run it even on a device of another model than the job's");
  repro->add_flag("--same-seed", flags->same_seed,
                  "Re-use the job's recorded input seed (default: the spec's seed policy)");
  repro
      ->add_option("--code", flags->code,
                   "The code of the job's user kernel NAME (kbenchd does not return it), "
                   "checked against the recorded sha256; repeatable")
      ->type_name("NAME=FILE");
  (void)AddVerdictFlags(repro, &flags->verdict);
  repro->callback([what, flags, action] {
    *action = [what, flags](Session& s) { return RunRepro(s, *what, *flags); };
  });

  auto job = std::make_shared<std::string>();
  auto path = std::make_shared<std::string>();
  auto code = std::make_shared<std::vector<std::string>>();
  CLI::App* bundle = app.add_subcommand(
      "bundle",
      "Export a succeeded job for reproduction on another kbench: spec, code, environment, raw "
      "samples, artifacts and their sha256 in one file (kbctl repro FILE runs it)");
  bundle->add_option("JOB", *job, "The job")->required();
  bundle->add_option("-f,--file", *path, "Where to write it (default JOB.kbench)")
      ->type_name("FILE");
  bundle
      ->add_option("--code", *code,
                   "The code of the job's user kernel NAME where it is not a registered "
                   "variant; repeatable")
      ->type_name("NAME=FILE");
  bundle->callback([job, path, code, action] {
    *action = [job, path, code](Session& s) { return RunBundle(s, *job, *path, *code); };
  });
}

}  // namespace kbench::client
