// Verdict tables.
#include "client/format/verdict_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/format/table.h"
#include "client/format/units.h"

namespace kbench::client {
namespace {

std::string Signed(double percent) { return absl::StrFormat("%+.2f%%", percent); }

std::string VariantCell(const v1::VariantComparison& c) {
  if (c.baseline_variant() == c.candidate_variant()) return c.baseline_variant();
  return absl::StrCat(c.baseline_variant(), " -> ", c.candidate_variant());
}

}  // namespace

std::string VerdictName(v1::Verdict verdict) {
  switch (verdict) {
    case v1::VERDICT_SAME:
      return "SAME";
    case v1::VERDICT_FASTER:
      return "FASTER";
    case v1::VERDICT_SLOWER:
      return "SLOWER";
    case v1::VERDICT_UNSURE:
      return "UNSURE";
    default:
      return "UNSPECIFIED";
  }
}

std::string RenderComparison(const v1::JobComparison& comparison) {
  std::string out = absl::StrCat("baseline ", comparison.baseline_job_id(), "  candidate ",
                                 comparison.candidate_job_id(), "\n");
  for (const std::string& d : comparison.key_differences()) {
    absl::StrAppend(&out, "note: the jobs differ in ", d, "\n");
  }
  Table table({"VARIANT", "BASELINE", "CANDIDATE", "CHANGE", "95% CI", "MIN EFFECT", "TEST", "P",
               "VERDICT"});
  for (size_t column : {1, 2, 3, 5, 7}) table.AlignRight(column);
  for (const v1::VariantComparison& c : comparison.variants()) {
    if (!c.problem().empty()) {
      table.AddRow({VariantCell(c), FormatSeconds(c.baseline_median_seconds()),
                    FormatSeconds(c.candidate_median_seconds()), "-", "-", "-", "-", "-",
                    VerdictName(c.verdict())});
      continue;
    }
    table.AddRow({VariantCell(c), FormatSeconds(c.baseline_median_seconds()),
                  FormatSeconds(c.candidate_median_seconds()), Signed(c.change_percent()),
                  absl::StrCat("[", Signed(c.change_ci_low_percent()), ", ",
                               Signed(c.change_ci_high_percent()), "]"),
                  absl::StrFormat("%.2f%%", c.min_effect_percent()), c.test(),
                  absl::StrFormat("%.3g", c.p_value()), VerdictName(c.verdict())});
  }
  absl::StrAppend(&out, table.Render());
  for (const v1::VariantComparison& c : comparison.variants()) {
    if (!c.problem().empty()) absl::StrAppend(&out, VariantCell(c), ": ", c.problem(), "\n");
    if (c.history_noise_percent() > 0) {
      absl::StrAppend(&out, VariantCell(c), ": ", c.history_results(),
                      " earlier results of the baseline's key differ by up to ",
                      absl::StrFormat("%.2f%%", c.history_noise_percent()),
                      " (95th percentile between two of them); the minimum effect is at least "
                      "that\n");
    }
  }
  return out;
}

}  // namespace kbench::client
