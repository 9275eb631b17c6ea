// kbctl artifacts ls / get: a job's artifacts (samples, traces, Nsight Compute reports) and
// verified downloads of them.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/artifact_download.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/json.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

struct GetFlags {
  std::string job;
  std::string name;
  std::string output;
};

// The artifact's name as a file name: its last path component, so that a name with slashes
// cannot write outside the chosen directory.
std::string LocalFileName(const std::string& name) {
  std::string base = std::filesystem::path(name).filename().string();
  return base.empty() || base == "." || base == ".." ? "artifact" : base;
}

// Where -o sends the artifact `name`: ./NAME by default, into a directory that exists, or the
// path (or "-") itself.
std::string Destination(const std::string& output, const std::string& name) {
  if (output.empty()) return LocalFileName(name);
  std::error_code ec;
  if (output != "-" && std::filesystem::is_directory(output, ec)) {
    return (std::filesystem::path(output) / LocalFileName(name)).string();
  }
  return output;
}

absl::Status PrintArtifactsJson(Session& session, const std::string& job_id,
                                const std::vector<v1::ArtifactInfo>& artifacts) {
  google::protobuf::Struct doc;
  (*doc.mutable_fields())["job_id"].set_string_value(job_id);
  google::protobuf::ListValue* list = (*doc.mutable_fields())["artifacts"].mutable_list_value();
  for (const v1::ArtifactInfo& a : artifacts) {
    KBENCH_ASSIGN_OR_RETURN(google::protobuf::Value v, ToJsonValue(a));
    *list->add_values() = std::move(v);
  }
  return session.PrintJson(doc);
}

absl::Status RunList(Session& session, const std::string& job_id) {
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().GetJob(job_id));
  if (session.json()) {
    return PrintArtifactsJson(session, job.id(), {job.artifacts().begin(), job.artifacts().end()});
  }
  if (job.artifacts().empty()) {
    session.Note(absl::StrCat("kbctl: job ", job.id(), " has no artifacts"));
    return absl::OkStatus();
  }
  Table table({"NAME", "SIZE", "TYPE", "SHA256"});
  table.AlignRight(1);
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    table.AddRow({a.name(), FormatBytes(a.size_bytes()),
                  a.content_type().empty() ? "-" : a.content_type(), a.sha256()});
  }
  session.out() << table.Render();
  return absl::OkStatus();
}

absl::Status RunGet(Session& session, const GetFlags& flags) {
  if (flags.output == "-" && session.json()) {
    return UsageError("--file -: the artifact's bytes and -o json cannot both go to stdout");
  }
  // Which artifacts, and where each one goes.
  std::vector<std::pair<std::string, std::string>> downloads;
  if (!flags.name.empty()) {
    downloads.emplace_back(flags.name, Destination(flags.output, flags.name));
  } else {
    KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().GetJob(flags.job));
    if (job.artifacts().empty()) {
      return absl::NotFoundError(absl::StrCat("job ", flags.job, " has no artifacts"));
    }
    if (job.artifacts_size() == 1) {
      const std::string& name = job.artifacts(0).name();
      downloads.emplace_back(name, Destination(flags.output, name));
    } else {
      if (flags.output == "-") {
        return UsageError(absl::StrCat("--file -: job ", flags.job, " has ", job.artifacts_size(),
                                       " artifacts; name one"));
      }
      const std::filesystem::path dir = flags.output.empty() ? "." : flags.output;
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        return LocalError(
            absl::StatusCode::kPermissionDenied,
            absl::StrCat("cannot create directory ", dir.string(), ": ", ec.message()));
      }
      for (const v1::ArtifactInfo& a : job.artifacts()) {
        downloads.emplace_back(a.name(), (dir / LocalFileName(a.name())).string());
      }
    }
  }
  std::vector<v1::ArtifactInfo> received;
  for (const auto& [name, path] : downloads) {
    KBENCH_ASSIGN_OR_RETURN(v1::ArtifactInfo info,
                            DownloadArtifact(session, flags.job, name, path));
    if (path != "-") {
      session.Note(absl::StrCat("kbctl: saved ", name, " to ", path, " (",
                                FormatBytes(info.size_bytes()), ", sha256 ", info.sha256(),
                                " verified)"));
    }
    received.push_back(std::move(info));
  }
  if (session.json()) return PrintArtifactsJson(session, flags.job, received);
  return absl::OkStatus();
}

}  // namespace

void AddArtifactCommands(CLI::App& app, Action* action) {
  CLI::App* group = app.add_subcommand("artifacts", "List or download a job's artifacts");
  group->require_subcommand(1);

  auto list_job = std::make_shared<std::string>();
  CLI::App* ls = group->add_subcommand("ls", "List a job's artifacts: name, size, sha256");
  ls->add_option("JOB", *list_job, "Job id")->required();
  ls->callback(
      [list_job, action] { *action = [list_job](Session& s) { return RunList(s, *list_job); }; });

  auto flags = std::make_shared<GetFlags>();
  CLI::App* get = group->add_subcommand(
      "get",
      "Download an artifact, verifying its sha256. Without NAME: the job's only artifact, or "
      "all of them into the directory --file names (default .)");
  get->add_option("JOB", flags->job, "Job id")->required();
  get->add_option("NAME", flags->name, "Artifact name (`kbctl artifacts ls JOB`)");
  get->add_option("-f,--file", flags->output,
                  "Where to write it (default ./NAME; - for stdout; a directory when getting "
                  "several)")
      ->type_name("PATH");
  get->callback([flags, action] { *action = [flags](Session& s) { return RunGet(s, *flags); }; });
}

}  // namespace kbench::client
