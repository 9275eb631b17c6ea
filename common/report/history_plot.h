// kbctl history --plot: each result key's medians over time, with the median's 95% confidence
// interval as error bars, drawn by gnuplot (SVG or PNG, from the output file's extension).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/v1/history.pb.h"

namespace kbench::report {

struct HistoryPlotOptions {
  // gnuplot's path; empty: looked up in $PATH.
  std::string gnuplot;
  double timeout_seconds = 30;
};

// One line per series: the entries' key (variant, shape, dtype, mode, device model) and
// whether they counted (checked, not impossible, not contended): an uncounted result is drawn
// apart, never on the same line as the ones it would mislead about.
std::string HistorySeriesTitle(const v1::HistoryEntry& entry);

// The gnuplot script DrawHistoryPlot runs (exposed for tests).
std::string HistoryPlotScript(const v1::ListHistoryResponse& history, const std::string& title,
                              const std::string& output_path);

// Draws `history` into `output_path` (.svg or .png). INVALID_ARGUMENT for another extension or
// no entries; FAILED_PRECONDITION without gnuplot; gnuplot's own failures with its log.
absl::Status DrawHistoryPlot(const v1::ListHistoryResponse& history, const std::string& title,
                             const std::string& output_path, const HistoryPlotOptions& options);

}  // namespace kbench::report
