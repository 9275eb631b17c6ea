// History plots (history_plot.h): one gnuplot data block per series, time on x.
#include "common/report/history_plot.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/enum_words.h"
#include "common/report/bounded_process.h"
#include "common/report/gnuplot_text.h"
#include "common/report/sweep_table.h"
#include "common/status_macros.h"

namespace kbench::report {

std::string HistorySeriesTitle(const v1::HistoryEntry& e) {
  const v1::ResultKey& k = e.key();
  std::string title = absl::StrCat(k.variant(), " [", absl::StrJoin(k.shape(), "x"), "] ",
                                   DTypeName(k.dtype()), " ", MeasureModeWord(k.mode()));
  if (k.placements() > 1) absl::StrAppend(&title, " x", k.placements(), " placements");
  if (!k.device_model().empty()) absl::StrAppend(&title, " on ", k.device_model());
  std::vector<std::string> flags;
  if (!e.correct()) flags.push_back("check failed");
  if (e.impossible()) flags.push_back("impossible");
  if (e.contended()) flags.push_back("contended");
  if (!flags.empty()) absl::StrAppend(&title, " (", absl::StrJoin(flags, ", "), ")");
  return title;
}

std::string HistoryPlotScript(const v1::ListHistoryResponse& history, const std::string& title,
                              const std::string& output_path) {
  // Series in order of first appearance, points oldest first (the response is newest first).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const v1::HistoryEntry*>> series;
  double max = 0;
  for (auto it = history.entries().rbegin(); it != history.entries().rend(); ++it) {
    const std::string t = HistorySeriesTitle(*it);
    if (!series.contains(t)) order.push_back(t);
    series[t].push_back(&*it);
    max = std::max({max, it->median_seconds(), it->median_ci_high_seconds()});
  }
  const auto [factor, unit] = TimeScale(max);
  std::string script;
  for (size_t i = 0; i < order.size(); ++i) {
    absl::StrAppend(&script, "$s", i, " << EOD\n");
    for (const v1::HistoryEntry* e : series[order[i]]) {
      const double low =
          e->median_ci_low_seconds() > 0 ? e->median_ci_low_seconds() : e->median_seconds();
      const double high =
          e->median_ci_high_seconds() > 0 ? e->median_ci_high_seconds() : e->median_seconds();
      absl::StrAppend(&script, e->finish_time().seconds(), " ",
                      absl::StrFormat("%.9g %.9g %.9g", e->median_seconds() * factor, low * factor,
                                      high * factor),
                      " ", GnuplotDataToken(e->job_id()), "\n");
    }
    absl::StrAppend(&script, "EOD\n");
  }
  const bool png = absl::EndsWith(output_path, ".png");
  absl::StrAppend(&script, GnuplotTerminal(png), "set output ", GnuplotQuote(output_path), "\n",
                  "set title ", GnuplotQuote(title),
                  " noenhanced\nset xlabel 'finished (UTC)'\nset ylabel ",
                  GnuplotQuote(absl::StrCat("median time (", unit, "), 95% CI")),
                  "\nset xdata time\nset timefmt \"%s\"\nset format x \"%m-%d\\n%H:%M\"\n"
                  "set grid\nset key below noenhanced\nset yrange [0:*]\nset offsets graph "
                  "0.02, graph 0.02, 0, 0\n");
  std::vector<std::string> plots;
  for (size_t i = 0; i < order.size(); ++i) {
    plots.push_back(absl::StrCat("$s", i, " using 1:2 with lines lw 2 lc ", i + 1, " notitle, $s",
                                 i, " using 1:2:3:4 with yerrorbars pt 7 lc ", i + 1, " title ",
                                 GnuplotQuote(order[i])));
  }
  absl::StrAppend(&script, "plot ", absl::StrJoin(plots, ", \\\n  "), "\nunset output\n");
  return script;
}

absl::Status DrawHistoryPlot(const v1::ListHistoryResponse& history, const std::string& title,
                             const std::string& output_path, const HistoryPlotOptions& options) {
  if (!absl::EndsWith(output_path, ".svg") && !absl::EndsWith(output_path, ".png")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--plot: '", output_path, "' must end in .svg or .png"));
  }
  if (history.entries().empty()) {
    return absl::InvalidArgumentError("--plot: no results match, so there is nothing to plot");
  }
  const std::string gnuplot = options.gnuplot.empty() ? FindProgram("gnuplot") : options.gnuplot;
  if (gnuplot.empty()) {
    return absl::FailedPreconditionError(
        "--plot: gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
  }
  // The script and gnuplot's log beside the plot, removed once it is drawn.
  const std::string script_path = output_path + ".gp";
  const std::string log_path = output_path + ".gnuplot.log";
  {
    std::ofstream out(script_path, std::ios::trunc);
    out << HistoryPlotScript(history, title, output_path);
    if (!out) return absl::InternalError(absl::StrCat("--plot: cannot write ", script_path));
  }
  KBENCH_RETURN_IF_ERROR(RunBounded({gnuplot, script_path}, log_path, options.timeout_seconds));
  std::error_code ignored;
  std::filesystem::remove(script_path, ignored);
  std::filesystem::remove(log_path, ignored);
  if (!std::filesystem::exists(output_path)) {
    return absl::InternalError(absl::StrCat("--plot: gnuplot wrote no ", output_path));
  }
  return absl::OkStatus();
}

}  // namespace kbench::report
