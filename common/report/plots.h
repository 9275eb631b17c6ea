// A sweep's plots, drawn by gnuplot (a bounded subprocess; svg and pngcairo terminals): median
// time, GB/s and FLOP/s against the swept axis, one line per variant (and per value of the
// other axes), with the measured copy bandwidth and the peak FLOP rate as roofline ceilings,
// and the speedup over the first variant.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/report/html_report.h"
#include "common/report/sweep_table.h"

namespace kbench::report {

struct PlotOptions {
  // gnuplot's path; empty: looked up in $PATH.
  std::string gnuplot;
  // Where the plot files (and gnuplot's script and log) are written; must exist.
  std::string directory;
  bool png = true;
  double timeout_seconds = 30;
};

struct PlotFile {
  // "time.svg", "time.png", ...
  std::string name;
  std::string path;
  std::string title;
  std::string content_type;
};

// The plots of `table`: none when no point has a measurement. FAILED_PRECONDITION when
// gnuplot is not installed; gnuplot's own failures (INTERNAL, DEADLINE_EXCEEDED) with its log.
absl::StatusOr<std::vector<PlotFile>> DrawPlots(const SweepTable& table,
                                                const PlotOptions& options);

// Writes `script` as `script_name` under options.directory and runs gnuplot on it (bounded);
// FAILED_PRECONDITION without gnuplot, INTERNAL when one of `files` was not written.
absl::Status RunGnuplotScript(const std::string& script, const std::string& script_name,
                              const std::vector<PlotFile>& files, const PlotOptions& options);

// The SVG files among `files`, read for inlining into an HTML report (PNGs are left out).
std::vector<InlinePlot> InlineSvgPlots(const std::vector<PlotFile>& files);

// The gnuplot script DrawPlots runs (exposed for tests): writes each plot under `directory`.
std::string PlotScript(const SweepTable& table, const std::string& directory, bool png,
                       std::vector<PlotFile>* files);

}  // namespace kbench::report
