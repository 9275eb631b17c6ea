// Series from the table, one gnuplot script for every plot, one bounded gnuplot run.
#include "common/report/plots.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/report/bounded_process.h"
#include "common/report/gnuplot_text.h"
#include "common/status_macros.h"

namespace kbench::report {
namespace {

// What the x axis is: a numeric swept axis (the first with several values), else the points in
// order, each tick labelled with its axes' values.
struct XAxis {
  int axis = -1;  // index into table.axes; -1: categorical
  std::string label;
  bool log = false;
  // Categorical: one tick label per row, at x = the row's position.
  std::vector<std::string> ticks;
};

XAxis ChooseX(const SweepTable& table) {
  for (size_t a = 0; a < table.axes.size(); ++a) {
    std::vector<double> xs;
    bool numeric = true;
    for (const PointRow& row : table.rows) {
      double x = 0;
      if (a >= row.values.size() || !absl::SimpleAtod(row.values[a].second, &x) ||
          !std::isfinite(x)) {
        numeric = false;
      }
      xs.push_back(x);
    }
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    if (!numeric || xs.size() < 2) continue;
    // Geometric sweeps (powers of two) read best on a log axis.
    const bool log = xs.front() > 0 && xs.back() / xs.front() >= 16;
    return {static_cast<int>(a), table.axes[a], log, {}};
  }
  XAxis x{-1, absl::StrJoin(table.axes, ", "), false, {}};
  for (const PointRow& row : table.rows) {
    std::vector<std::string> label;
    for (const auto& value : row.values) label.push_back(value.second);
    x.ticks.push_back(absl::StrJoin(label, "/"));
  }
  return x;
}

// One line: a variant at one value of the axes other than x.
struct Series {
  std::string title;
  std::vector<std::pair<double, double>> points;  // (x, y)
  // The 95 % interval of each y, where the metric has one (the median time): error bars.
  std::vector<std::pair<double, double>> intervals;
};

using Metric = std::function<double(const PointRow&, const VariantCell&)>;
using Interval = std::function<std::pair<double, double>(const VariantCell&)>;

// The row's x: its numeric axis value, or its position. Only numbers reach the data blocks:
// text (labels, titles) goes through GnuplotQuote.
double XOf(const XAxis& x, const PointRow& row, size_t position) {
  double value = static_cast<double>(position);
  if (x.axis >= 0) (void)absl::SimpleAtod(row.values[static_cast<size_t>(x.axis)].second, &value);
  return value;
}

std::vector<Series> SeriesOf(const SweepTable& table, const XAxis& x, const Metric& metric,
                             const Interval& interval = nullptr) {
  std::map<std::string, size_t> index;
  std::vector<Series> series;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const PointRow& row = table.rows[r];
    std::vector<std::string> rest;
    for (size_t a = 0; a < row.values.size(); ++a) {
      if (static_cast<int>(a) != x.axis) {
        rest.push_back(absl::StrCat(row.values[a].first, "=", row.values[a].second));
      }
    }
    for (const VariantCell& c : row.cells) {
      const double y = metric(row, c);
      if (!c.measured || !(y > 0) || !std::isfinite(y)) continue;
      std::string title = c.variant;
      if (x.axis >= 0 && !rest.empty()) absl::StrAppend(&title, " ", absl::StrJoin(rest, " "));
      auto [it, fresh] = index.emplace(title, series.size());
      if (fresh) series.push_back({title, {}, {}});
      series[it->second].points.emplace_back(XOf(x, row, r), y);
      if (interval) series[it->second].intervals.push_back(interval(c));
    }
  }
  return series;
}

// `set xtics (...)` naming each categorical point; "" for a numeric axis.
std::string CategoricalTicks(const XAxis& x) {
  if (x.axis >= 0) return "";
  std::vector<std::string> ticks;
  for (size_t i = 0; i < x.ticks.size(); ++i) {
    ticks.push_back(absl::StrCat(GnuplotQuote(x.ticks[i]), " ", i));
  }
  return absl::StrCat("set xtics (", absl::StrJoin(ticks, ", "), ")\n");
}

// A scale for numbers up to `max` so that values read in 1..1000s: (factor, unit prefix), or
// for times (factor, unit) — "µs", not a prefix.
std::pair<double, std::string> ScaleOf(double max, bool time) {
  if (time) return TimeScale(max);
  if (max >= 1e12) return {1e-12, "T"};
  if (max >= 1e9) return {1e-9, "G"};
  if (max >= 1e6) return {1e-6, "M"};
  return {1e-3, "k"};
}

struct PlotSpec {
  std::string stem;
  std::string title;
  std::string ylabel;
  std::vector<Series> series;
  std::vector<Ceiling> ceilings;
  bool time = false;
  bool log_y = false;
};

void AppendPlot(const SweepTable& table, const XAxis& x, PlotSpec spec,
                const std::string& directory, bool png, std::string* script,
                std::vector<PlotFile>* files) {
  double max = 0;
  for (const Series& s : spec.series) {
    for (const auto& p : s.points) max = std::max(max, p.second);
    for (const auto& b : s.intervals) max = std::max(max, b.second);
  }
  for (const Ceiling& c : spec.ceilings) max = std::max(max, c.value);
  const auto [factor, prefix] =
      spec.stem == "speedup" ? std::make_pair(1.0, std::string()) : ScaleOf(max, spec.time);
  const std::string ylabel = absl::StrReplaceAll(spec.ylabel, {{"{}", prefix}});
  std::string body;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    absl::StrAppend(&body, "$", spec.stem, i, " << EOD\n");
    const Series& series = spec.series[i];
    const bool bars = series.intervals.size() == series.points.size();
    for (size_t p = 0; p < series.points.size(); ++p) {
      const auto& [at, y] = series.points[p];
      absl::StrAppend(&body, absl::StrFormat("%.9g %.9g", at, y * factor));
      if (bars) {
        // An interval the result lacks (0) is drawn as none: both ends at the median.
        const auto [low, high] = series.intervals[p];
        absl::StrAppend(&body, absl::StrFormat(" %.9g %.9g", (low > 0 ? low : y) * factor,
                                               (high > 0 ? high : y) * factor));
      }
      absl::StrAppend(&body, "\n");
    }
    absl::StrAppend(&body, "EOD\n");
  }
  std::vector<std::string> plots;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const bool bars = spec.series[i].intervals.size() == spec.series[i].points.size() &&
                      !spec.series[i].points.empty();
    plots.push_back(absl::StrCat(
        "$", spec.stem, i,
        bars ? " using 1:2:3:4 with yerrorlines lw 2 pt 7 title "
             : " using 1:2 with linespoints lw 2 pt 7 title ",
        GnuplotQuote(bars ? spec.series[i].title + " (95 % CI)" : spec.series[i].title)));
  }
  for (const Ceiling& c : spec.ceilings) {
    plots.push_back(absl::StrFormat("%.9g with lines dt 2 lw 2 lc rgb '#b22222' title %s",
                                    c.value * factor, GnuplotQuote(c.label)));
  }
  if (spec.stem == "speedup") plots.push_back("1 with lines dt 3 lc rgb '#555555' notitle");
  std::string settings = absl::StrCat(
      "reset\nset title ", GnuplotQuote(absl::StrCat(table.kernel, ": ", spec.title)),
      " noenhanced\n", "set xlabel ", GnuplotQuote(x.label), " noenhanced\nset ylabel ",
      GnuplotQuote(ylabel), " noenhanced\nset grid\nset key below noenhanced\nset yrange [0:*]\n");
  absl::StrAppend(&settings, CategoricalTicks(x));
  if (x.log) absl::StrAppend(&settings, "set logscale x 2\n");
  if (spec.log_y) absl::StrAppend(&settings, "set yrange [*:*]\nset logscale y\n");
  const std::string plot = absl::StrCat("plot ", absl::StrJoin(plots, ", \\\n  "), "\n");
  absl::StrAppend(script, body);
  for (const char* ext : {"svg", "png"}) {
    const bool is_svg = std::string(ext) == "svg";
    if (!is_svg && !png) continue;
    const std::string name = absl::StrCat(spec.stem, ".", ext);
    const std::string path = (std::filesystem::path(directory) / name).string();
    absl::StrAppend(script, GnuplotTerminal(!is_svg), "set output ", GnuplotQuote(path), "\n",
                    settings, plot, "unset output\n");
    files->push_back({name, path, spec.title, is_svg ? "image/svg+xml" : "image/png"});
  }
}

double FirstMedian(const PointRow& row) {
  return row.cells.empty() ? 0 : row.cells.front().median_seconds;
}

}  // namespace

std::string PlotScript(const SweepTable& table, const std::string& directory, bool png,
                       std::vector<PlotFile>* files) {
  const XAxis x = ChooseX(table);
  std::string script;
  PlotSpec time{
      "time",
      "median time per launch, 95 % interval",
      "median time ({})",  // TimeScale's unit is a whole one: "µs"
      SeriesOf(
          table, x, [](const PointRow&, const VariantCell& c) { return c.median_seconds; },
          [](const VariantCell& c) { return std::make_pair(c.ci_low_seconds, c.ci_high_seconds); }),
      {}};
  time.time = true;
  time.log_y = x.log;
  AppendPlot(table, x, time, directory, png, &script, files);
  std::vector<Ceiling> copy;
  if (table.copy_bandwidth_bytes_per_second > 0) {
    copy.push_back({"measured copy bandwidth", table.copy_bandwidth_bytes_per_second});
  }
  // A collective's curve is its bus bandwidth (nccl-tests' busbw) under the peak its jobs
  // measured between the ranks (issue 30).
  const bool collective = table.peer_bandwidth_bytes_per_second > 0;
  if (collective)
    copy = {{"measured peak between the ranks", table.peer_bandwidth_bytes_per_second}};
  PlotSpec bandwidth{
      "bandwidth",
      collective ? "bus bandwidth (nccl-tests' busbw)"
                 : "memory throughput (operation's byte model)",
      "{}B/s",
      SeriesOf(table, x, [](const PointRow&, const VariantCell& c) { return c.bytes_per_second; }),
      copy};
  if (!bandwidth.series.empty()) AppendPlot(table, x, bandwidth, directory, png, &script, files);
  PlotSpec flops{
      "flops", "compute throughput (operation's FLOP model)", "{}FLOP/s",
      SeriesOf(table, x, [](const PointRow&, const VariantCell& c) { return c.flops_per_second; }),
      table.peak_flops};
  if (!flops.series.empty()) AppendPlot(table, x, flops, directory, png, &script, files);
  if (table.variants.size() > 1) {
    PlotSpec speedup{"speedup",
                     absl::StrCat("speedup over ", table.variants.front()),
                     absl::StrCat("time of ", table.variants.front(), " / time of variant"),
                     SeriesOf(table, x,
                              [](const PointRow& row, const VariantCell& c) {
                                return c.median_seconds > 0 ? FirstMedian(row) / c.median_seconds
                                                            : 0;
                              }),
                     {}};
    AppendPlot(table, x, speedup, directory, png, &script, files);
  }
  return script;
}

absl::StatusOr<std::vector<PlotFile>> DrawPlots(const SweepTable& table,
                                                const PlotOptions& options) {
  const bool any = std::any_of(table.rows.begin(), table.rows.end(), [](const PointRow& r) {
    return std::any_of(r.cells.begin(), r.cells.end(),
                       [](const VariantCell& c) { return c.measured; });
  });
  if (!any) return std::vector<PlotFile>{};
  std::vector<PlotFile> files;
  const std::string script = PlotScript(table, options.directory, options.png, &files);
  KBENCH_RETURN_IF_ERROR(RunGnuplotScript(script, "plots.gp", files, options));
  return files;
}

std::vector<InlinePlot> InlineSvgPlots(const std::vector<PlotFile>& files) {
  std::vector<InlinePlot> plots;
  for (const PlotFile& f : files) {
    if (f.content_type != "image/svg+xml") continue;
    std::ifstream in(f.path, std::ios::binary);
    std::stringstream svg;
    svg << in.rdbuf();
    plots.push_back({f.title, svg.str()});
  }
  return plots;
}

absl::Status RunGnuplotScript(const std::string& script, const std::string& script_name,
                              const std::vector<PlotFile>& files, const PlotOptions& options) {
  const std::string gnuplot = options.gnuplot.empty() ? FindProgram("gnuplot") : options.gnuplot;
  if (gnuplot.empty()) {
    return absl::FailedPreconditionError(
        "gnuplot is not installed (Debian: apt-get install gnuplot-nox); no plots drawn");
  }
  const std::filesystem::path dir = options.directory;
  const std::string script_path = (dir / script_name).string();
  {
    std::ofstream out(script_path, std::ios::trunc);
    out << script;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", script_path));
  }
  KBENCH_RETURN_IF_ERROR(
      RunBounded({gnuplot, script_path}, (dir / "gnuplot.log").string(), options.timeout_seconds));
  for (const PlotFile& f : files) {
    if (!std::filesystem::exists(f.path)) {
      return absl::InternalError(absl::StrCat("gnuplot wrote no ", f.name));
    }
  }
  return absl::OkStatus();
}

}  // namespace kbench::report
