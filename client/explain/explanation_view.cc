// Rendering explanations as text.
#include "client/explain/explanation_view.h"

#include "absl/strings/str_cat.h"
#include "client/explain/explain_change.h"
#include "client/explain/quantities.h"
#include "client/format/verdict_view.h"

namespace kbench::client::explain {
namespace {

std::string PairName(const v1::VariantExplanation& e) {
  return e.baseline_variant() == e.candidate_variant()
             ? e.baseline_variant()
             : absl::StrCat(e.baseline_variant(), " → ", e.candidate_variant());
}

std::string RenderOne(const v1::VariantExplanation& e) {
  std::string out = absl::StrCat("\nWhy ", PairName(e), " is ", VerdictName(e.verdict()), " (",
                                 FormatChangePercent(e.change_percent()), ")");
  if (!e.baseline_profile_job_id().empty() && !e.candidate_profile_job_id().empty()) {
    absl::StrAppend(&out, ": profiles ", e.baseline_profile_job_id(), " and ",
                    e.candidate_profile_job_id());
  }
  absl::StrAppend(&out, "\n");
  for (const std::string& line : e.findings()) absl::StrAppend(&out, "  ", line, "\n");
  if (e.findings().empty() && e.not_measured().empty()) {
    absl::StrAppend(&out, "  no kernel changed by ", 100 * kMinRelativeChange,
                    " % or more in what was measured\n");
  }
  for (const std::string& line : e.not_measured()) {
    absl::StrAppend(&out, "  Not measured: ", line, "\n");
  }
  return out;
}

}  // namespace

std::string RenderExplanations(const v1::ExplainedComparison& explained) {
  if (explained.explanations().empty()) {
    return "\nNothing to explain: no variant is FASTER or SLOWER (--explain-all explains every "
           "one)\n";
  }
  std::string out;
  for (const v1::VariantExplanation& e : explained.explanations())
    absl::StrAppend(&out, RenderOne(e));
  return out;
}

}  // namespace kbench::client::explain
