// The words beside a verdict.
#include "client/verdict/verdict_reason.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/stats/between_job_noise.h"

namespace kbench::client {
namespace {

std::string Pct(double percent) { return absl::StrFormat("%.2f %%", percent); }

// The interleaved comparison that resolves what two separate jobs cannot: both versions
// sampled in one job, alternating, so the between-job noise cancels.
std::string ResolveAdvice(const v1::VariantComparison& c, const std::string& baseline_job) {
  return absl::StrCat("run kbctl compare --baseline ", baseline_job, " --variants ",
                      c.candidate_variant(), " to resolve ", Pct(c.min_effect_percent()));
}

std::string FreshKeyReason(const v1::VariantComparison& c, const std::string& baseline_job) {
  const std::string history = absl::StrCat(
      "the key has ", c.history_results(), " comparable results",
      c.history_results_before_step() > 0 ? " since the last step in its level" : "", " (",
      analysis::kMinHistoryResults, " are needed to measure its between-job noise)");
  if (c.verdict() == v1::VERDICT_SLOWER || c.verdict() == v1::VERDICT_FASTER) {
    return absl::StrCat(history, "; a change of ", absl::StrFormat("%+.1f %%", c.change_percent()),
                        " is beyond any between-job noise measured on a device (a factor of "
                        "about 10)");
  }
  return absl::StrCat("UNSURE: ", history, "; ", ResolveAdvice(c, baseline_job),
                      ", or run more jobs of this spec");
}

}  // namespace

std::string VerdictReason(const v1::VariantComparison& c, const std::string& baseline_job,
                          int family_size) {
  if (!c.problem().empty()) return c.problem();
  if (c.test() == "fresh_key_bound") return FreshKeyReason(c, baseline_job);
  const std::string noise =
      absl::StrCat("between-job noise on this device is ±", Pct(c.resolvable_effect_percent()),
                   " for one pair of jobs at 95 % (", c.history_results(), " earlier results)");
  switch (c.verdict()) {
    case v1::VERDICT_SAME:
      return absl::StrCat("no change of ", Pct(c.min_effect_percent()), " or more: ", noise);
    case v1::VERDICT_SLOWER:
    case v1::VERDICT_FASTER:
      return absl::StrCat("beyond the noise: ", noise, "; p ", absl::StrFormat("%.3g", c.p_value()),
                          family_size > 1
                              ? absl::StrFormat(", %.3g after Holm's correction over %d",
                                                c.adjusted_p_value(), family_size)
                              : "");
    default:
      break;
  }
  if (c.uncorrected_verdict() == v1::VERDICT_SLOWER ||
      c.uncorrected_verdict() == v1::VERDICT_FASTER) {
    return absl::StrCat("UNSURE: significant alone (p ", absl::StrFormat("%.3g", c.p_value()),
                        ") but not among ", family_size,
                        " keys (Holm: ", absl::StrFormat("%.3g", c.adjusted_p_value()), "); ",
                        ResolveAdvice(c, baseline_job));
  }
  return absl::StrCat("UNSURE: ", noise, "; ", ResolveAdvice(c, baseline_job));
}

}  // namespace kbench::client
