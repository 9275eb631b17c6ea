// The sweep reporter's pass and the files of one report (server/reports/sweep_reporter.h).
#include "server/reports/sweep_reporter.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/report/html_report.h"
#include "common/report/plots.h"
#include "common/report/sweep_table.h"
#include "common/status_macros.h"
#include "server/common/logging.h"
#include "server/store/artifact_store.h"

namespace kbench::reports {
namespace {

namespace fs = std::filesystem;

bool Terminal(v1::JobState s) {
  return s == v1::JOB_STATE_SUCCEEDED || s == v1::JOB_STATE_FAILED || s == v1::JOB_STATE_CANCELLED;
}

absl::Status WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

report::ReportContext ContextOf(const v1::Sweep& sweep) {
  report::ReportContext context;
  context.heading = absl::StrCat("Sweep ", sweep.id(), " of ", sweep.spec().base().kernel());
  std::vector<std::string> axes;
  for (const v1::SweepAxis& a : sweep.spec().axes()) {
    axes.push_back(absl::StrCat(a.name(), "=", a.values()));
  }
  context.summary.push_back(
      absl::StrCat("Axes: ", absl::StrJoin(axes, "  "),
                   sweep.spec().zip().empty()
                       ? ""
                       : absl::StrCat(" (zipped: ", absl::StrJoin(sweep.spec().zip(), ", "), ")")));
  context.summary.push_back(
      absl::StrCat("Variants: ", absl::StrJoin(sweep.spec().base().variants(), ", ")));
  context.summary.push_back(absl::StrCat(
      sweep.points_total(),
      " points: ", sweep.points_done() - sweep.points_failed() - sweep.points_cancelled(),
      " succeeded, ", sweep.points_failed(), " failed, ", sweep.points_cancelled(),
      " cancelled. Owner: ", sweep.owner(), "."));
  context.generated = absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(), absl::UTCTimeZone());
  return context;
}

}  // namespace

SweepReporter::SweepReporter(store::SweepStore* store, SweepLoader load,
                             SweepReporterOptions options)
    : store_(store), load_(std::move(load)), options_(std::move(options)) {}

SweepReporter::~SweepReporter() { Stop(); }

void SweepReporter::Start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      if (absl::Status s = ReportFinished(); !s.ok()) {
        logging::Log(logging::Level::kWarn, "sweep report pass failed",
                     {logging::Field("error", s.ToString())});
      }
      lock.lock();
      wake_.wait_for(lock, absl::ToChronoMilliseconds(options_.poll_interval),
                     [this] { return stop_; });
    }
  });
}

void SweepReporter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::Status SweepReporter::ReportFinished() {
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::SweepRecord> open, store_->ListUnfinished());
  // The first pass resumes the reports this process's predecessor left half done; later passes
  // take only sweeps still RUNNING, so two nodes of a fleet never report one sweep together.
  const bool resume = first_pass_;
  first_pass_ = false;
  for (const store::SweepRecord& record : open) {
    // The points' states first (cheap); their results only once every point has ended.
    KBENCH_ASSIGN_OR_RETURN(auto states, load_(record, false));
    bool ended = true;
    for (const v1::SweepPoint& p : states.first.points()) ended = ended && Terminal(p.state());
    if (!ended) continue;
    KBENCH_ASSIGN_OR_RETURN(bool mine, store_->BeginReport(record.id, resume));
    if (!mine) continue;
    KBENCH_ASSIGN_OR_RETURN(auto loaded, load_(record, true));
    KBENCH_RETURN_IF_ERROR(Report(record, loaded.first, loaded.second));
  }
  return absl::OkStatus();
}

absl::Status SweepReporter::Report(const store::SweepRecord& record, const v1::Sweep& sweep,
                                   const std::vector<v1::Job>& jobs) {
  const fs::path dir = fs::path(options_.data_dir) / "sweeps" / record.id;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string error;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> files =
      ec ? absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()))
         : WriteFiles(dir.string(), sweep, jobs);
  if (files.ok()) {
    for (const auto& [name, type] : *files) {
      if (absl::Status s = Record(record.id, name, type); !s.ok() && error.empty()) {
        error = s.ToString();
      }
    }
  } else {
    error = files.status().ToString();
  }
  const store::SweepState end =
      record.cancel_requested ? store::SweepState::kCancelled : store::SweepState::kDone;
  logging::Log(logging::Level::kInfo, "sweep reported",
               {logging::Field("sweep", record.id), logging::Field("state", SweepStateName(end)),
                logging::Field("error", error)});
  return store_->SetState(record.id, end, error, absl::GetCurrentTimeNanos());
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SweepReporter::WriteFiles(
    const std::string& dir, const v1::Sweep& sweep, const std::vector<v1::Job>& jobs) {
  const report::SweepTable table = report::BuildSweepTable(sweep, jobs);
  std::vector<std::pair<std::string, std::string>> files = {{"sweep.csv", "text/csv"},
                                                            {"sweep.json", "application/json"}};
  KBENCH_RETURN_IF_ERROR(WriteFile(fs::path(dir) / "sweep.csv", report::ToCsv(table)));
  KBENCH_RETURN_IF_ERROR(WriteFile(fs::path(dir) / "sweep.json", report::ToJson(table)));
  report::PlotOptions plot_options{options_.gnuplot, dir, true, options_.gnuplot_timeout_seconds};
  absl::StatusOr<std::vector<report::PlotFile>> plots = report::DrawPlots(table, plot_options);
  std::vector<report::InlinePlot> inline_plots;
  report::ReportContext context = ContextOf(sweep);
  if (plots.ok()) {
    for (const report::PlotFile& p : *plots) files.emplace_back(p.name, p.content_type);
    inline_plots = report::InlineSvgPlots(*plots);
  } else {
    // The tables and the report are still worth having without plots.
    context.plots_note = absl::StrCat("No plots: ", plots.status().message());
  }
  KBENCH_RETURN_IF_ERROR(WriteFile(fs::path(dir) / "report.html",
                                   report::RenderHtmlReport(table, inline_plots, context)));
  files.emplace_back("report.html", "text/html");
  return files;
}

absl::Status SweepReporter::Record(const std::string& sweep_id, const std::string& name,
                                   const std::string& content_type) {
  std::string relative = (fs::path("sweeps") / sweep_id / name).string();
  const std::string path = (fs::path(options_.data_dir) / relative).string();
  KBENCH_ASSIGN_OR_RETURN(std::string sha256, store::Sha256OfFile(path));
  if (options_.chunks != nullptr) {
    KBENCH_RETURN_IF_ERROR(options_.chunks->Write(sweep_id, name, path).status());
    relative.clear();  // the bytes are rows: any node serves them
  }
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return absl::InternalError(absl::StrCat("cannot stat ", path, ": ", ec.message()));
  return store_->AddArtifact(
      {sweep_id, name, relative, content_type, size, sha256, absl::GetCurrentTimeNanos()});
}

}  // namespace kbench::reports
