// Sweep progress by polling GetSweep (a sweep is many jobs: one stream per job would not do).
#include "client/sweep_wait.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/artifact_download.h"
#include "client/errors.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "common/report/html_report.h"
#include "common/report/sweep_table.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

constexpr absl::Duration kPollInterval = absl::Milliseconds(400);

std::string SweepStateWord(v1::SweepState state) {
  switch (state) {
    case v1::SWEEP_STATE_RUNNING:
      return "running";
    case v1::SWEEP_STATE_REPORTING:
      return "reporting";
    case v1::SWEEP_STATE_DONE:
      return "done";
    case v1::SWEEP_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

std::string ProgressText(const v1::Sweep& s) {
  std::string text =
      absl::StrCat("sweep ", s.id(), ": ", s.points_done(), "/", s.points_total(), " points done");
  if (s.points_failed() > 0) absl::StrAppend(&text, ", ", s.points_failed(), " failed");
  if (s.points_cancelled() > 0) absl::StrAppend(&text, ", ", s.points_cancelled(), " cancelled");
  if (s.eta_seconds() > 0) absl::StrAppend(&text, absl::StrFormat(", ETA %.0f s", s.eta_seconds()));
  if (s.state() == v1::SWEEP_STATE_REPORTING) absl::StrAppend(&text, ", writing the report");
  return text;
}

// Points x variants: the axis values, the state, each variant's median and its speedup over
// the first.
std::string RenderSweepTable(const report::SweepTable& table) {
  const bool mixed = table.devices.size() > 1;
  std::vector<std::string> headers = {"POINT"};
  for (const std::string& axis : table.axes) headers.push_back(axis);
  if (mixed) headers.emplace_back("DEVICE");
  headers.emplace_back("STATE");
  const size_t first_number = headers.size();
  for (const std::string& v : table.variants) {
    headers.push_back(v);
    if (v != table.variants.front()) headers.push_back(absl::StrCat("SPEEDUP ", v));
  }
  Table out(headers);
  for (size_t c = first_number; c < headers.size(); ++c) out.AlignRight(c);
  for (const report::PointRow& row : table.rows) {
    std::vector<std::string> cells = {absl::StrCat(row.index)};
    for (const auto& value : row.values) cells.push_back(value.second);
    if (mixed) cells.push_back(row.device);
    cells.push_back(row.state);
    const report::VariantCell* first = row.cells.empty() ? nullptr : &row.cells.front();
    for (const std::string& v : table.variants) {
      const report::VariantCell* cell = nullptr;
      for (const report::VariantCell& c : row.cells) {
        if (c.variant == v) cell = &c;
      }
      const bool m = cell != nullptr && cell->measured;
      cells.push_back(m ? report::FormatSeconds(cell->median_seconds) : "-");
      if (v == table.variants.front()) continue;
      cells.push_back(m && first->measured && cell->median_seconds > 0
                          ? report::FormatRatio(first->median_seconds / cell->median_seconds)
                          : "-");
    }
    out.AddRow(std::move(cells));
  }
  std::string text = out.Render();
  if (mixed) absl::StrAppend(&text, "note: ", report::MixedDevicesWarning(table), "\n");
  return text;
}

absl::Status SweepOutcome(const v1::Sweep& sweep) {
  if (sweep.state() == v1::SWEEP_STATE_CANCELLED) {
    return CheckFailedError(absl::StatusCode::kCancelled,
                            absl::StrCat("sweep ", sweep.id(), " was cancelled"));
  }
  if (sweep.points_failed() > 0) {
    return CheckFailedError(absl::StatusCode::kAborted,
                            absl::StrCat("sweep ", sweep.id(), ": ", sweep.points_failed(), " of ",
                                         sweep.points_total(), " points failed"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsSweepId(const std::string& id) { return absl::StartsWith(id, "s-"); }

bool IsSweepOver(v1::SweepState state) {
  return state == v1::SWEEP_STATE_DONE || state == v1::SWEEP_STATE_CANCELLED;
}

absl::StatusOr<v1::Sweep> WaitForSweep(Session& session, const std::string& sweep_id) {
  std::string last;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(v1::GetSweepResponse now,
                            session.connection().GetSweep(sweep_id, false));
    const std::string text = ProgressText(now.sweep());
    if (!session.json() && text != last) {
      if (session.io().err_is_tty) {
        session.err() << "\r\033[K" << text << std::flush;
      } else {
        session.err() << text << "\n";
      }
      last = text;
    }
    if (IsSweepOver(now.sweep().state())) {
      if (session.io().err_is_tty && !session.json()) session.err() << "\r\033[K" << std::flush;
      return now.sweep();
    }
    absl::SleepFor(kPollInterval);
  }
}

absl::Status PrintSweepReport(Session& session, const std::string& sweep_id) {
  KBENCH_ASSIGN_OR_RETURN(v1::GetSweepResponse got, session.connection().GetSweep(sweep_id, true));
  if (session.json()) {
    KBENCH_RETURN_IF_ERROR(session.PrintJson(got));
    return SweepOutcome(got.sweep());
  }
  const v1::Sweep& sweep = got.sweep();
  const report::SweepTable table =
      report::BuildSweepTable(sweep, {got.jobs().begin(), got.jobs().end()});
  session.out() << "sweep " << sweep.id() << "  " << sweep.spec().base().kernel() << "  "
                << SweepStateWord(sweep.state()) << "  " << sweep.points_done() << "/"
                << sweep.points_total() << " points  owner " << sweep.owner() << "\n";
  if (!sweep.error().empty()) session.out() << "report error: " << sweep.error() << "\n";
  session.out() << RenderSweepTable(table);
  for (const report::PointRow& row : table.rows) {
    if (!row.error.empty()) {
      session.out() << "point " << row.index << " " << row.state << ": " << row.error << "\n";
    }
  }
  if (sweep.artifacts_size() > 0) {
    std::vector<std::string> names;
    for (const v1::ArtifactInfo& a : sweep.artifacts()) names.push_back(a.name());
    session.out() << "artifacts: " << absl::StrJoin(names, " ") << "  (kbctl sweep get "
                  << sweep.id() << " -o DIR)\n";
  }
  return SweepOutcome(sweep);
}

absl::Status CancelSweep(Session& session, const std::string& sweep_id) {
  KBENCH_ASSIGN_OR_RETURN(v1::CancelSweepResponse response,
                          session.connection().CancelSweep(sweep_id));
  if (session.json()) return session.PrintJson(response);
  session.out() << "sweep " << sweep_id << ": cancelled " << response.points_cancelled() << " of "
                << response.sweep().points_total()
                << " points (those already ended keep their results)\n";
  return absl::OkStatus();
}

absl::Status SaveSweepArtifacts(Session& session, const v1::Sweep& sweep, const std::string& dir) {
  if (sweep.artifacts().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("sweep ", sweep.id(), " has no artifacts yet (", SweepStateWord(sweep.state()),
                     "); they are written when its last point ends"));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return LocalError(absl::StatusCode::kPermissionDenied,
                      absl::StrCat("cannot create directory ", dir, ": ", ec.message()));
  }
  for (const v1::ArtifactInfo& a : sweep.artifacts()) {
    KBENCH_RETURN_IF_ERROR(CheckArtifactName(a.name()));
    const std::string path = (std::filesystem::path(dir) / a.name()).string();
    KBENCH_ASSIGN_OR_RETURN(v1::ArtifactInfo info,
                            DownloadArtifact(session, sweep.id(), a.name(), path));
    session.Note(absl::StrCat("kbctl: saved ", a.name(), " to ", path, " (",
                              FormatBytes(info.size_bytes()), ", sha256 verified)"));
  }
  return absl::OkStatus();
}

}  // namespace kbench::client
