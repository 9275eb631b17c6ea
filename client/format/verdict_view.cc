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
  Table table({"VARIANT", "BASELINE", "CANDIDATE", "CHANGE", "95% CI", "RESOLVES", "MIN EFFECT",
               "P", "VERDICT"});
  for (size_t column : {1, 2, 3, 5, 6, 7}) table.AlignRight(column);
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
                  absl::StrFormat("±%.2f%%", c.resolvable_effect_percent()),
                  absl::StrFormat("%.2f%%", c.min_effect_percent()),
                  absl::StrFormat("%.3g", c.adjusted_p_value()), VerdictName(c.verdict())});
  }
  absl::StrAppend(&out, table.Render());
  for (const v1::VariantComparison& c : comparison.variants()) {
    absl::StrAppend(&out, VariantCell(c), ": ", c.reason(), "\n");
    if (!c.energy_note().empty()) {
      absl::StrAppend(&out, VariantCell(c), ": energy: ", c.energy_note(), "\n");
    }
    if (c.interval_over() == "placement medians") {
      absl::StrAppend(&out, VariantCell(c),
                      ": each job's own interval is over its placement medians (placements "
                      "resampled whole), not its pooled samples\n");
    }
  }
  if (comparison.family_size() > 1) {
    absl::StrAppend(
        &out, absl::StrFormat("%d keys, one family: P is %s-adjusted, expected false SLOWER/FASTER "
                              "among unchanged keys at most %.2f (%.2f without the correction)\n",
                              comparison.family_size(), comparison.family_correction(),
                              comparison.expected_false_verdicts(),
                              comparison.family_size() * comparison.alpha()));
  }
  return out;
}

}  // namespace kbench::client
