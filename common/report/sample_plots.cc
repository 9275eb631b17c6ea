// Two plots of a job's samples: in order, and as a distribution.
#include "common/report/sample_plots.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/report/gnuplot_text.h"
#include "common/status_macros.h"

namespace kbench::report {
namespace {

// Points drawn per line at most: an SVG of 10 000-sample lines would weigh megabytes and show
// no more.
constexpr size_t kMaxPointsPerLine = 1500;

// Every k-th of `n` indices so that at most kMaxPointsPerLine remain, the last one included.
std::vector<size_t> ThinnedIndices(size_t n) {
  std::vector<size_t> at;
  const size_t stride = std::max<size_t>(1, (n + kMaxPointsPerLine - 1) / kMaxPointsPerLine);
  for (size_t i = 0; i < n; i += stride) at.push_back(i);
  if (!at.empty() && at.back() != n - 1) at.push_back(n - 1);
  return at;
}

std::string SampleDataBlock(const std::string& name,
                            const std::vector<std::pair<double, double>>& xy) {
  std::string block = absl::StrCat("$", name, " << EOD\n");
  for (const auto& [x, y] : xy) absl::StrAppend(&block, absl::StrFormat("%.9g %.9g\n", x, y));
  return absl::StrCat(block, "EOD\n");
}

// One SVG: the settings, then a line per series from its data block.
void AppendSamplePlot(const std::string& stem, const std::string& title, const std::string& xlabel,
                      const std::string& ylabel, const std::string& style,
                      const std::vector<std::string>& names,
                      const std::vector<SampleSeries>& series, const std::string& directory,
                      std::string* script, std::vector<PlotFile>* files) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < series.size(); ++i) {
    lines.push_back(absl::StrCat("$", names[i], " using 1:2 with ", style, " title ",
                                 GnuplotQuote(series[i].variant)));
  }
  const std::string name = stem + ".svg";
  const std::string path = (std::filesystem::path(directory) / name).string();
  absl::StrAppend(script, GnuplotTerminal(false), "set output ", GnuplotQuote(path), "\n",
                  "reset\nset title ", GnuplotQuote(title), " noenhanced\nset xlabel ",
                  GnuplotQuote(xlabel), " noenhanced\nset ylabel ", GnuplotQuote(ylabel),
                  " noenhanced\nset grid\nset key below noenhanced\n", "plot ",
                  absl::StrJoin(lines, ", \\\n  "), "\nunset output\n");
  files->push_back({name, path, title, "image/svg+xml"});
}

}  // namespace

std::vector<SampleSeries> SamplesOf(const v1::Job& job) {
  std::vector<SampleSeries> series;
  for (const v1::VariantResult& r : job.result().variants()) {
    if (r.sample_seconds().empty()) continue;
    series.push_back({r.variant(), {r.sample_seconds().begin(), r.sample_seconds().end()}});
  }
  return series;
}

std::string SamplePlotScript(const std::vector<SampleSeries>& series, const std::string& title,
                             const std::string& directory, std::vector<PlotFile>* files) {
  double max = 0;
  for (const SampleSeries& s : series) {
    for (double v : s.seconds) max = std::max(max, v);
  }
  const auto [factor, unit] = TimeScale(max);
  std::string script;
  std::vector<std::string> in_order, sorted;
  for (size_t i = 0; i < series.size(); ++i) {
    const std::vector<double>& x = series[i].seconds;
    std::vector<std::pair<double, double>> order_xy, cdf_xy;
    for (size_t k : ThinnedIndices(x.size()))
      order_xy.emplace_back(static_cast<double>(k), x[k] * factor);
    std::vector<double> s = x;
    std::sort(s.begin(), s.end());
    for (size_t k : ThinnedIndices(s.size())) {
      cdf_xy.emplace_back(s[k] * factor,
                          static_cast<double>(k + 1) / static_cast<double>(s.size()));
    }
    in_order.push_back(absl::StrCat("order", i));
    sorted.push_back(absl::StrCat("cdf", i));
    absl::StrAppend(&script, SampleDataBlock(in_order.back(), order_xy),
                    SampleDataBlock(sorted.back(), cdf_xy));
  }
  AppendSamplePlot("samples", absl::StrCat(title, ": samples in the order taken"), "sample",
                   absl::StrCat("time per launch (", unit, ")"), "lines", in_order, series,
                   directory, &script, files);
  AppendSamplePlot("distribution", absl::StrCat(title, ": distribution of the samples"),
                   absl::StrCat("time per launch (", unit, ")"), "fraction of samples at or below",
                   "steps lw 2", sorted, series, directory, &script, files);
  return script;
}

absl::StatusOr<std::vector<PlotFile>> DrawSamplePlots(const v1::Job& job,
                                                      const PlotOptions& options) {
  const std::vector<SampleSeries> series = SamplesOf(job);
  if (series.empty()) return std::vector<PlotFile>{};
  std::vector<PlotFile> files;
  const std::string script =
      SamplePlotScript(series, job.spec().kernel(), options.directory, &files);
  KBENCH_RETURN_IF_ERROR(RunGnuplotScript(script, "samples.gp", files, options));
  return files;
}

}  // namespace kbench::report
