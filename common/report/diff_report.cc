// Rendering a diff's page: the verdicts, then each explanation.
#include "common/report/diff_report.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "common/report/html_page.h"
#include "common/report/html_report.h"

namespace kbench::report {
namespace {

std::string Word(v1::Verdict verdict) {
  return std::string(absl::StripPrefix(v1::Verdict_Name(verdict), "VERDICT_"));
}
// SLOWER in red, FASTER in green: what a reader scans for.
std::string VerdictClass(v1::Verdict verdict) {
  if (verdict == v1::VERDICT_SLOWER) return "l fail";
  if (verdict == v1::VERDICT_FASTER) return "l pass";
  return "l";
}
std::string Signed(double percent) { return absl::StrFormat("%+.2f %%", percent); }

std::string PairName(const std::string& baseline, const std::string& candidate) {
  return baseline == candidate ? baseline : absl::StrCat(baseline, " → ", candidate);
}

std::string VerdictRow(const v1::VariantComparison& c) {
  const std::string name = PairName(c.baseline_variant(), c.candidate_variant());
  std::string row =
      absl::StrCat("<tr>", Cell(name, true), Cell(FormatSeconds(c.baseline_median_seconds())),
                   Cell(FormatSeconds(c.candidate_median_seconds())));
  if (!c.problem().empty()) {
    absl::StrAppend(&row, "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>");
  } else {
    absl::StrAppend(&row, Cell(Signed(c.change_percent())),
                    Cell(absl::StrCat("[", Signed(c.change_ci_low_percent()), ", ",
                                      Signed(c.change_ci_high_percent()), "]")),
                    Cell(absl::StrFormat("±%.2f %%", c.resolvable_effect_percent())),
                    Cell(absl::StrFormat("%.2f %%", c.min_effect_percent())),
                    Cell(absl::StrFormat("%.3g", c.adjusted_p_value())));
  }
  absl::StrAppend(&row, CellOfClass(Word(c.verdict()), VerdictClass(c.verdict())), "</tr>");
  return row;
}

std::string VerdictSection(const v1::JobComparison& comparison) {
  std::string html = "<h2>Verdicts</h2>";
  for (const std::string& d : comparison.key_differences()) {
    absl::StrAppend(&html, "<p class=\"meta\">The jobs differ in ", HtmlEscape(d), ".</p>");
  }
  absl::StrAppend(&html, "<div class=\"scroll\"><table><thead><tr>", Head("variant", true),
                  Head("baseline"), Head("candidate"), Head("change"), Head("95 % CI"),
                  Head("resolves"), Head("min effect"), Head("p"), Head("verdict", true),
                  "</tr></thead><tbody>");
  for (const v1::VariantComparison& c : comparison.variants())
    absl::StrAppend(&html, VerdictRow(c));
  absl::StrAppend(&html, "</tbody></table></div><ul>");
  for (const v1::VariantComparison& c : comparison.variants()) {
    const std::string name = PairName(c.baseline_variant(), c.candidate_variant());
    absl::StrAppend(&html, "<li><b>", HtmlEscape(name), "</b>: ", HtmlEscape(c.reason()));
    if (!c.energy_note().empty()) absl::StrAppend(&html, " Energy: ", HtmlEscape(c.energy_note()));
    absl::StrAppend(&html, "</li>");
  }
  absl::StrAppend(&html, "</ul>");
  if (comparison.family_size() > 1) {
    absl::StrAppend(
        &html, "<p class=\"meta\">",
        HtmlEscape(absl::StrFormat(
            "%d keys, one family: p is %s-adjusted; expected false SLOWER/FASTER among unchanged "
            "keys at most %.2f (%.2f without the correction).",
            comparison.family_size(), comparison.family_correction(),
            comparison.expected_false_verdicts(), comparison.family_size() * comparison.alpha())),
        "</p>");
  }
  return html;
}

std::string Quantity(double value) { return absl::StrFormat("%.4g", value); }

std::string KernelChangesTable(const v1::VariantExplanation& e) {
  if (e.changes().empty()) return "";
  std::string html = absl::StrCat("<div class=\"scroll\"><table><thead><tr>", Head("kernel", true),
                                  Head("quantity", true), Head("baseline"), Head("candidate"),
                                  Head("change"), "</tr></thead><tbody>");
  for (const v1::KernelChange& k : e.changes()) {
    absl::StrAppend(&html, "<tr>", Cell(k.kernel(), true), Cell(k.quantity(), true),
                    Cell(Quantity(k.baseline())), Cell(Quantity(k.candidate())),
                    Cell(Signed(k.change_percent())), "</tr>");
  }
  return absl::StrCat(html, "</tbody></table></div>");
}

std::string SassTable(const v1::VariantExplanation& e) {
  if (e.sass_changes().empty()) return "";
  std::string html = absl::StrCat("<h4>SASS opcodes</h4><div class=\"scroll\"><table><thead><tr>",
                                  Head("opcode", true), Head("baseline"), Head("candidate"),
                                  Head("difference"), "</tr></thead><tbody>");
  for (const v1::OpcodeCountChange& o : e.sass_changes()) {
    absl::StrAppend(&html, "<tr>", Cell(o.opcode(), true), Cell(absl::StrCat(o.baseline())),
                    Cell(absl::StrCat(o.candidate())),
                    Cell(absl::StrFormat("%+d", o.candidate() - o.baseline())), "</tr>");
  }
  return absl::StrCat(html, "</tbody></table></div>");
}

std::string List(const std::string& title,
                 const google::protobuf::RepeatedPtrField<std::string>& items) {
  if (items.empty()) return "";
  std::string html = absl::StrCat("<h4>", HtmlEscape(title), "</h4><ul>");
  for (const std::string& item : items) absl::StrAppend(&html, "<li>", HtmlEscape(item), "</li>");
  return absl::StrCat(html, "</ul>");
}

std::string ExplanationSection(const v1::VariantExplanation& e) {
  std::string html = absl::StrCat(
      "<h3>Why ", HtmlEscape(PairName(e.baseline_variant(), e.candidate_variant())), " is ",
      Word(e.verdict()), " (", HtmlEscape(Signed(e.change_percent())), ")</h3>");
  if (!e.baseline_profile_job_id().empty() && !e.candidate_profile_job_id().empty()) {
    absl::StrAppend(&html, "<p class=\"meta\">Profiles ", HtmlEscape(e.baseline_profile_job_id()),
                    " (baseline) and ", HtmlEscape(e.candidate_profile_job_id()),
                    " (candidate).</p>");
  }
  if (e.findings().empty() && e.not_measured().empty()) {
    absl::StrAppend(&html, "<p>No kernel changed by enough to matter in what was measured.</p>");
  }
  if (!e.findings().empty()) {
    absl::StrAppend(&html, "<ol>");
    for (const std::string& f : e.findings())
      absl::StrAppend(&html, "<li>", HtmlEscape(f), "</li>");
    absl::StrAppend(&html, "</ol>");
  }
  absl::StrAppend(&html, KernelChangesTable(e), SassTable(e),
                  List("Kernels only in the candidate", e.kernels_added()),
                  List("Kernels only in the baseline", e.kernels_removed()),
                  List("Not measured", e.not_measured()));
  return html;
}

}  // namespace

std::string RenderDiffReport(const v1::ExplainedComparison& diff, const std::string& generated,
                             bool explained) {
  const v1::JobComparison& c = diff.comparison();
  std::string html = OpenHtmlPage(
      absl::StrCat("Diff of ", c.candidate_job_id(), " against ", c.baseline_job_id()),
      {absl::StrCat("Baseline ", c.baseline_job_id(), ", candidate ", c.candidate_job_id(),
                    "; verdicts as docs/verdicts.md defines them.")});
  if (!generated.empty()) {
    absl::StrAppend(&html, "<p class=\"meta\">Generated ", HtmlEscape(generated),
                    " by kbench.</p>");
  }
  absl::StrAppend(&html, VerdictSection(c));
  if (explained) {
    absl::StrAppend(&html, "<h2>What changed in the kernels</h2>");
    if (diff.explanations().empty()) {
      absl::StrAppend(&html,
                      "<p>Nothing to explain: no variant is FASTER or SLOWER (--explain-all "
                      "explains every one).</p>");
    }
    for (const v1::VariantExplanation& e : diff.explanations())
      absl::StrAppend(&html, ExplanationSection(e));
  }
  absl::StrAppend(&html, kCloseHtmlPage);
  return html;
}

}  // namespace kbench::report
