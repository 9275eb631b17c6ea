// Rendering the HTML report: one string, sections in reading order.
#include "common/report/html_report.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/interval.h"
#include "common/report/html_page.h"

namespace kbench::report {
namespace {

void AddFact(std::string* html, const std::string& name, const std::string& value) {
  if (value.empty()) return;
  absl::StrAppend(html, "<dt>", HtmlEscape(name), "</dt><dd>", HtmlEscape(value), "</dd>");
}

std::string ClockText(const v1::ClockReading& c) {
  std::string text =
      absl::StrCat("SM ", c.sm_clock_mhz(), " MHz, memory ", c.memory_clock_mhz(), " MHz, ",
                   c.temperature_c(), " C, ", absl::StrFormat("%.0f W", c.power_watts()));
  if (c.throttle_reason_names_size() > 0) {
    absl::StrAppend(&text, ", throttled: ", absl::StrJoin(c.throttle_reason_names(), ", "));
  }
  return text;
}

std::string EnvironmentSection(const SweepTable& table) {
  const v1::Environment& e = table.environment;
  std::string html = "<h2>Environment</h2><dl>";
  if (table.devices.size() > 1) {
    // The environment below is the first point's; the results table names each point's.
    AddFact(&html, "devices", absl::StrCat(table.device, ": ", MixedDevicesWarning(table)));
    AddFact(&html, "environment of", absl::StrCat(e.device_name(), " (", table.devices[0], ")"));
  } else {
    AddFact(&html, "device", absl::StrCat(e.device_name(), " (", table.device, ")"));
  }
  AddFact(&html, "device UUID", e.device_uuid());
  if (e.sm_count() > 0) AddFact(&html, "SMs", absl::StrCat(e.sm_count()));
  if (e.cpu_threads() > 0) AddFact(&html, "CPU threads", absl::StrCat(e.cpu_threads()));
  AddFact(&html, "driver", e.driver_version());
  AddFact(&html, "runtime", e.runtime_version());
  AddFact(&html, "host", e.host());
  AddFact(&html, "kbench version", e.kbench_version());
  if (e.has_before() && e.before().sm_clock_mhz() > 0) {
    AddFact(&html, "clocks before", ClockText(e.before()));
    AddFact(&html, "clocks after", ClockText(e.after()));
  }
  if (e.estimated_sm_clock_mhz() > 0) {
    AddFact(&html, "estimated SM clock while sampling",
            absl::StrFormat("%.0f MHz (default %.0f MHz)", e.estimated_sm_clock_mhz(),
                            e.default_sm_clock_mhz()));
  }
  if (table.copy_bandwidth_bytes_per_second > 0) {
    AddFact(&html, "measured copy bandwidth",
            FormatRate(table.copy_bandwidth_bytes_per_second, "B/s"));
  }
  for (const Ceiling& c : table.peak_flops) AddFact(&html, c.label, FormatRate(c.value, "FLOP/s"));
  absl::StrAppend(&html, "</dl>");
  return html;
}

// One row per point and variant: the median with its interval, the samples behind it and their
// spread, the rates, and the ratio to the point's first variant.
std::string ResultsSection(const SweepTable& table) {
  std::string html = "<h2>Results</h2><div class=\"scroll\"><table><thead><tr>";
  const bool mixed = table.devices.size() > 1;
  const bool points = table.rows.size() > 1;
  for (const std::string& axis : table.axes) absl::StrAppend(&html, Head(axis, true));
  if (mixed) absl::StrAppend(&html, Head("device", true));
  if (points) absl::StrAppend(&html, Head("job", true));
  absl::StrAppend(&html, Head("state", true), Head("variant", true), Head("median"),
                  Head("95 % interval"), Head("±"), Head("samples"), Head("noise"),
                  Head("bandwidth"), Head("compute"));
  if (table.variants.size() > 1) {
    absl::StrAppend(&html, Head(absl::StrCat("speedup vs ", table.variants.front())));
  }
  absl::StrAppend(&html, "</tr></thead><tbody>");
  for (const PointRow& row : table.rows) {
    std::string lead;
    for (const auto& value : row.values) absl::StrAppend(&lead, Cell(value.second, true));
    if (mixed) absl::StrAppend(&lead, Cell(row.device, true));
    if (points) absl::StrAppend(&lead, Cell(row.job_id, true));
    absl::StrAppend(&lead, Cell(row.state, true));
    const VariantCell* first = row.cells.empty() ? nullptr : &row.cells.front();
    if (row.cells.empty()) {
      absl::StrAppend(&html, "<tr>", lead, Cell("-", true), "</tr>");
      continue;
    }
    for (const VariantCell& c : row.cells) {
      const bool m = c.measured;
      const std::optional<double> half =
          m ? RelativeHalfWidth(c.median_seconds, c.ci_low_seconds, c.ci_high_seconds)
            : std::nullopt;
      absl::StrAppend(
          &html, "<tr>", lead, Cell(c.variant, true),
          Cell(m ? FormatSeconds(c.median_seconds) : "-"),
          Cell(half ? absl::StrCat(FormatSeconds(c.ci_low_seconds), " .. ",
                                   FormatSeconds(c.ci_high_seconds))
                    : "-"),
          Cell(half ? absl::StrFormat("%.2f %%", 100 * *half) : "-"),
          Cell(m ? absl::StrCat(c.samples) : "-"),
          Cell(m ? absl::StrFormat("%.2f %%", 100 * c.relative_stddev) : "-"),
          Cell(m ? FormatRate(c.bytes_per_second, "B/s") : "-"),
          Cell(m && c.flops_per_second > 0 ? FormatRate(c.flops_per_second, "FLOP/s") : "-"));
      if (table.variants.size() > 1) {
        const bool both = m && first != nullptr && first->measured && c.median_seconds > 0;
        absl::StrAppend(&html,
                        Cell(both ? FormatRatio(first->median_seconds / c.median_seconds) : "-"));
      }
      absl::StrAppend(&html, "</tr>");
    }
  }
  absl::StrAppend(&html, "</tbody></table></div>");
  return html;
}

// How it was measured: what a benchmark record must say to be judged and repeated.
std::string ProtocolSection(const SweepTable& table) {
  if (table.protocol.empty()) return "";
  std::string html = "<h2>How it was measured</h2><dl>";
  for (const auto& [name, value] : table.protocol) AddFact(&html, name, value);
  absl::StrAppend(&html, "</dl>");
  return html;
}

std::string CorrectnessSection(const SweepTable& table) {
  std::string html = absl::StrCat(
      "<h2>Correctness</h2><p class=\"meta\">Each output against a float64 host reference on "
      "seeded random inputs: relative L2 error and the operation's tolerance.</p>",
      "<div class=\"scroll\"><table><thead><tr>", Head("point", true), Head("variant", true),
      Head("check", true), Head("relative L2 error"), Head("tolerance"), Head("detail", true),
      "</tr></thead><tbody>");
  for (const PointRow& row : table.rows) {
    std::vector<std::string> at;
    for (const auto& [axis, value] : row.values) at.push_back(absl::StrCat(axis, "=", value));
    for (const VariantCell& c : row.cells) {
      const std::string verdict = !c.checked ? "not checked" : c.passed ? "passed" : "FAILED";
      absl::StrAppend(&html, "<tr>", Cell(absl::StrJoin(at, " "), true), Cell(c.variant, true),
                      "<td class=\"l ", c.checked && !c.passed ? "fail" : "pass", "\">", verdict,
                      "</td>", Cell(absl::StrFormat("%.3g", c.relative_l2_error)),
                      Cell(absl::StrFormat("%.3g", c.tolerance)), Cell(c.check_detail, true),
                      "</tr>");
    }
    if (!row.error.empty()) {
      absl::StrAppend(&html, "<tr>", Cell(absl::StrJoin(at, " "), true), Cell("-", true),
                      "<td class=\"l fail\">", HtmlEscape(row.state), "</td>", Cell("-"), Cell("-"),
                      Cell(row.error, true), "</tr>");
    }
  }
  absl::StrAppend(&html, "</tbody></table></div>");
  return html;
}

// gnuplot's SVG from its <svg> element on: the XML declaration and DOCTYPE are not allowed
// inside HTML. gnuplot escapes '<' and '&' in the text it draws, and its svg terminal writes
// script only with `mouse`, which kbench never sets; an SVG that holds a script or foreign HTML
// anyway is left out, since the report promises a page without script.
std::string SvgElement(const std::string& svg) {
  const std::string lower = absl::AsciiStrToLower(svg);
  if (absl::StrContains(lower, "<script") || absl::StrContains(lower, "<foreignobject")) return "";
  const size_t start = svg.find("<svg");
  return start == std::string::npos ? "" : svg.substr(start);
}

std::string PlotsSection(const std::vector<InlinePlot>& plots, const std::string& note) {
  std::string html = "<h2>Plots</h2>";
  if (!note.empty()) absl::StrAppend(&html, "<p class=\"meta\">", HtmlEscape(note), "</p>");
  for (const InlinePlot& p : plots) {
    absl::StrAppend(&html, "<figure>", SvgElement(p.svg), "<figcaption>", HtmlEscape(p.title),
                    "</figcaption></figure>");
  }
  return html;
}

}  // namespace

std::string FormatSeconds(double seconds) {
  if (seconds <= 0) return "-";
  if (seconds < 1e-6) return absl::StrFormat("%.3g ns", seconds * 1e9);
  if (seconds < 1e-3) return absl::StrFormat("%.3g us", seconds * 1e6);
  if (seconds < 1) return absl::StrFormat("%.3g ms", seconds * 1e3);
  return absl::StrFormat("%.3g s", seconds);
}

std::string FormatRate(double per_second, const std::string& unit) {
  if (per_second <= 0) return "-";
  if (per_second >= 1e12) return absl::StrFormat("%.3g T%s", per_second / 1e12, unit);
  if (per_second >= 1e9) return absl::StrFormat("%.3g G%s", per_second / 1e9, unit);
  if (per_second >= 1e6) return absl::StrFormat("%.3g M%s", per_second / 1e6, unit);
  return absl::StrFormat("%.3g k%s", per_second / 1e3, unit);
}

std::string FormatRatio(double ratio) { return absl::StrFormat("%.3gx", ratio); }

std::string RenderHtmlReport(const SweepTable& table, const std::vector<InlinePlot>& plots,
                             const ReportContext& context) {
  std::string html = OpenHtmlPage(context.heading, context.summary);
  if (!context.generated.empty()) {
    absl::StrAppend(&html, "<p class=\"meta\">Generated ", HtmlEscape(context.generated),
                    " by kbench.</p>");
  }
  absl::StrAppend(&html, EnvironmentSection(table), ProtocolSection(table), ResultsSection(table),
                  PlotsSection(plots, context.plots_note), CorrectnessSection(table),
                  kCloseHtmlPage);
  return html;
}

}  // namespace kbench::report
