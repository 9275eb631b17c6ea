// kbctl sweep / sweep get / sweeps / report: submitting a sweep over axes, its table and
// artifacts, the list of sweeps, and the HTML report of a sweep or a job.
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "client/args.h"
#include "client/artifact_download.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/table.h"
#include "client/local_file.h"
#include "client/spec_options.h"
#include "client/submit_retry.h"
#include "client/sweep_wait.h"
#include "common/report/html_report.h"
#include "common/report/plots.h"
#include "common/report/sample_plots.h"
#include "common/report/sweep_table.h"
#include "common/status_macros.h"
#include "common/sweep/axes.h"

namespace kbench::client {
namespace {

struct SweepFlags {
  SpecFlags spec;
  std::vector<std::string> axes;
  std::string zip;
};

// The sweep's axes as the server takes them, checked here first so that a typo costs no RPC.
absl::StatusOr<v1::SweepSpec> AxesOf(const SweepFlags& flags) {
  v1::SweepSpec spec;
  std::vector<sweep::Axis> parsed;
  for (const std::string& flag : flags.axes) {
    absl::StatusOr<sweep::Axis> axis = sweep::ParseAxisFlag(flag);
    if (!axis.ok()) return UsageError(absl::StrCat("--axis: ", axis.status().message()));
    v1::SweepAxis* a = spec.add_axes();
    a->set_name(axis->name);
    a->set_values(flag.substr(flag.find('=') + 1));
    parsed.push_back(*std::move(axis));
  }
  // --dtype f32,bf16 is an axis over dtypes.
  if (flags.spec.dtype && flags.spec.dtype->find(',') != std::string::npos) {
    absl::StatusOr<sweep::Axis> axis = sweep::ParseAxisFlag("dtype=" + *flags.spec.dtype);
    if (!axis.ok()) return UsageError(absl::StrCat("--dtype: ", axis.status().message()));
    v1::SweepAxis* a = spec.add_axes();
    a->set_name("dtype");
    a->set_values(*flags.spec.dtype);
    parsed.push_back(*std::move(axis));
  }
  if (parsed.empty())
    return UsageError("--axis: a sweep needs at least one, e.g. cols=1024:8192:*2");
  if (!flags.zip.empty()) {
    for (absl::string_view z : absl::StrSplit(flags.zip, ',')) spec.add_zip(std::string(z));
  }
  absl::StatusOr<std::vector<sweep::Point>> points =
      sweep::ExpandPoints(parsed, {spec.zip().begin(), spec.zip().end()});
  if (!points.ok()) return UsageError(points.status().message());
  return spec;
}

absl::Status RunSweep(Session& session, SweepFlags flags) {
  KBENCH_ASSIGN_OR_RETURN(v1::SweepSpec spec, AxesOf(flags));
  if (flags.spec.dtype && flags.spec.dtype->find(',') != std::string::npos)
    flags.spec.dtype.reset();
  KBENCH_ASSIGN_OR_RETURN(
      v1::SubmitJobRequest base,
      BuildSubmitRequest(
          flags.spec, SubmitCommand::kCompare,
          session.options().security.token.empty() ? session.GetEnv("USER").value_or("") : ""));
  KBENCH_RETURN_IF_ERROR(ResolveDefaults(session, &base));
  v1::SubmitSweepRequest request;
  *request.mutable_spec() = spec;
  *request.mutable_spec()->mutable_base() = base.spec();
  request.set_idempotency_key(base.idempotency_key());
  KBENCH_ASSIGN_OR_RETURN(
      v1::SubmitSweepResponse response,
      SubmitRetryingUnavailable<v1::SubmitSweepResponse>(session, request.idempotency_key(), [&] {
        return session.connection().SubmitSweep(request);
      }));
  const v1::Sweep& sweep = response.sweep();
  if (flags.spec.no_wait) {
    if (session.json()) return session.PrintJson(sweep);
    session.out() << sweep.id() << "\n";
    return absl::OkStatus();
  }
  session.Note(absl::StrCat("kbctl: submitted sweep ", sweep.id(), " (", sweep.points_total(),
                            " points); Ctrl-C stops watching, `kbctl cancel ", sweep.id(),
                            "` stops the sweep"));
  KBENCH_RETURN_IF_ERROR(WaitForSweep(session, sweep.id()).status());
  return PrintSweepReport(session, sweep.id());
}

absl::Status RunSweepGet(Session& session, const std::string& id, const std::string& dir) {
  if (dir.empty()) return PrintSweepReport(session, id);
  KBENCH_ASSIGN_OR_RETURN(v1::GetSweepResponse got, session.connection().GetSweep(id, false));
  return SaveSweepArtifacts(session, got.sweep(), dir);
}

absl::Status RunSweepRm(Session& session, const std::string& id) {
  KBENCH_ASSIGN_OR_RETURN(v1::DeleteSweepResponse deleted, session.connection().DeleteSweep(id));
  if (session.json()) return session.PrintJson(deleted);
  session.out() << "sweep " << id << " deleted with its " << deleted.jobs_removed()
                << " point job(s), " << deleted.artifacts_removed()
                << " artifact(s) and history rows\n";
  return absl::OkStatus();
}

absl::Status RunSweeps(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListSweepsResponse list, session.connection().ListSweeps(0));
  if (session.json()) return session.PrintJson(list);
  Table table({"SWEEP", "KERNEL", "STATE", "POINTS", "FAILED", "OWNER"});
  for (const v1::Sweep& s : list.sweeps()) {
    std::string state = v1::SweepState_Name(s.state()).substr(sizeof("SWEEP_STATE_") - 1);
    table.AddRow({s.id(), s.spec().base().kernel(), absl::AsciiStrToLower(state),
                  absl::StrCat(s.points_done(), "/", s.points_total()),
                  absl::StrCat(s.points_failed()), s.owner()});
  }
  session.out() << table.Render();
  return absl::OkStatus();
}

// A job's samples as plots for its report (in order, and their distribution), drawn by the
// local gnuplot in a temporary directory; when they cannot be drawn, why, for the report to say.
std::string DrawJobSamplePlots(const v1::Job& job, std::vector<report::InlinePlot>* plots) {
  char pattern[] = "/tmp/kbctl-report-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return "no plots: cannot make a temporary directory";
  const std::filesystem::path dir = pattern;
  report::PlotOptions options;
  options.directory = dir.string();
  options.png = false;
  absl::StatusOr<std::vector<report::PlotFile>> files = report::DrawSamplePlots(job, options);
  std::string note;
  if (!files.ok()) {
    note = std::string(files.status().message());
  } else if (files->empty()) {
    note = "no variant kept samples to plot";
  }
  if (files.ok()) *plots = report::InlineSvgPlots(*files);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return note;
}

// A job's report is rendered here, with plots of its samples; a sweep's was written by kbenchd
// with its plots, and is downloaded.
absl::Status RunReport(Session& session, const std::string& id, std::string path) {
  if (path.empty()) path = absl::StrCat(id, ".html");
  if (IsSweepId(id)) {
    KBENCH_ASSIGN_OR_RETURN(v1::GetSweepResponse got, session.connection().GetSweep(id, false));
    if (!IsSweepOver(got.sweep().state())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "sweep ", id, " is still running (", got.sweep().points_done(), "/",
          got.sweep().points_total(), " points); `kbctl watch ", id, "` waits for it"));
    }
    KBENCH_RETURN_IF_ERROR(DownloadArtifact(session, id, "report.html", path).status());
  } else {
    KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().GetJob(id));
    report::ReportContext context;
    context.heading = absl::StrCat("Job ", job.id(), " of ", job.spec().kernel());
    context.summary.push_back(absl::StrCat("State: ", report::JobStateWord(job.state()),
                                           job.error().empty() ? "" : ": " + job.error()));
    context.generated =
        absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", session.Now(), absl::UTCTimeZone());
    std::vector<report::InlinePlot> plots;
    context.plots_note = DrawJobSamplePlots(job, &plots);
    KBENCH_RETURN_IF_ERROR(
        WriteLocalFile(path, report::RenderHtmlReport(report::BuildJobTable(job), plots, context)));
  }
  session.Note(absl::StrCat("kbctl: wrote ", path));
  return absl::OkStatus();
}

}  // namespace

void AddSweepCommands(CLI::App& app, Action* action) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Run a compare job per point of the axes (e.g. --axis cols=1024:32768:*2 --axis rows=4096 "
      "--dtype f32,bf16), then print the table; `sweep get` shows or saves one");
  AddSpecFlags(sweep, SubmitCommand::kCompare, &flags->spec);
  sweep->get_option("OP")->required(false);
  sweep
      ->add_option("--axis", flags->axes,
                   "NAME=VALUES, repeatable: a dim, param, dtype, variants or mode; VALUES a list "
                   "(a,b,c) or a range START:STOP:*FACTOR or START:STOP:+STEP")
      ->type_name("NAME=VALUES")
      ->allow_extra_args(false);
  sweep->add_option("--zip", flags->zip, "Axes advanced together instead of crossed")
      ->type_name("A,B");
  auto get_id = std::make_shared<std::string>();
  auto get_dir = std::make_shared<std::string>();
  CLI::App* get = sweep->add_subcommand(
      "get", "Show a sweep's table, or with --dir DIR save its CSV, JSON, plots and report.html");
  get->add_option("SWEEP", *get_id, "Sweep id")->required();
  get->add_option("-d,--dir", *get_dir, "Directory to save the artifacts into")->type_name("DIR");
  get->callback([get_id, get_dir, action] {
    *action = [get_id, get_dir](Session& s) { return RunSweepGet(s, *get_id, *get_dir); };
  });
  auto rm_id = std::make_shared<std::string>();
  CLI::App* rm = sweep->add_subcommand(
      "rm", "Delete a sweep that ended, with its points' jobs and its report (owner or admin)");
  rm->add_option("SWEEP", *rm_id, "Sweep id")->required();
  rm->callback(
      [rm_id, action] { *action = [rm_id](Session& s) { return RunSweepRm(s, *rm_id); }; });
  sweep->callback([sweep, get, rm, flags, action] {
    if (sweep->got_subcommand(get) || sweep->got_subcommand(rm)) return;
    *action = [flags](Session& s) {
      if (flags->spec.kernel.empty()) return UsageError("sweep: OP is required");
      return RunSweep(s, *flags);
    };
  });
  app.add_subcommand("sweeps", "List sweeps, newest first")->callback([action] {
    *action = [](Session& s) { return RunSweeps(s); };
  });
  auto report_id = std::make_shared<std::string>();
  auto report_path = std::make_shared<std::string>();
  CLI::App* report =
      app.add_subcommand("report", "Write the self-contained HTML report of a sweep or a job");
  report->add_option("ID", *report_id, "Sweep or job id")->required();
  report->add_option("-f,--file", *report_path, "Where to write it (default ID.html)")
      ->type_name("PATH");
  report->callback([report_id, report_path, action] {
    *action = [report_id, report_path](Session& s) {
      return RunReport(s, *report_id, *report_path);
    };
  });
}

}  // namespace kbench::client
