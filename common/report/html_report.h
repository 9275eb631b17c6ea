// The self-contained HTML report of a sweep or a job: environment, tables, plots (inline SVG)
// and correctness, with inline CSS and no script or network reference, readable on a phone
// (fluid layout, tables that scroll sideways).
#pragma once

#include <string>
#include <vector>

#include "common/report/html_page.h"
#include "common/report/sweep_table.h"

namespace kbench::report {

struct InlinePlot {
  std::string title;
  // The SVG document as gnuplot wrote it; its XML prolog is dropped when inlined.
  std::string svg;
};

struct ReportContext {
  // "Sweep s-... of softmax", shown as the page's heading.
  std::string heading;
  // Lines under the heading ("12 points, 12 succeeded", the sweep's axes...).
  std::vector<std::string> summary;
  // When generated, in words (UTC).
  std::string generated;
  // Why there are no plots, when there are none and there should be.
  std::string plots_note;
};

std::string RenderHtmlReport(const SweepTable& table, const std::vector<InlinePlot>& plots,
                             const ReportContext& context);

// The numbers as the report (and its tests) print them: "12.3 us", "45.6 GB/s", "1.23 TFLOP/s",
// "1.52x".
std::string FormatSeconds(double seconds);
std::string FormatRate(double per_second, const std::string& unit);
std::string FormatRatio(double ratio);

}  // namespace kbench::report
