// --fail-on parsing and its exit status.
#include "client/verdict/fail_on.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/errors.h"
#include "client/format/verdict_view.h"

namespace kbench::client {

absl::StatusOr<std::set<v1::Verdict>> ParseFailOn(const std::string& text) {
  std::set<v1::Verdict> verdicts;
  for (absl::string_view word : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(word));
    if (lower == "slower") {
      verdicts.insert(v1::VERDICT_SLOWER);
    } else if (lower == "unsure") {
      verdicts.insert(v1::VERDICT_UNSURE);
    } else if (lower == "faster") {
      verdicts.insert(v1::VERDICT_FASTER);
    } else {
      return UsageError(absl::StrCat("--fail-on: '", word,
                                     "' is not one of slower, unsure, faster (comma-separated)"));
    }
  }
  return verdicts;
}

absl::Status ApplyFailOn(const v1::JobComparison& comparison,
                         const std::set<v1::Verdict>& fail_on) {
  std::vector<std::string> hits;
  for (const v1::VariantComparison& c : comparison.variants()) {
    if (fail_on.count(c.verdict()) > 0) {
      hits.push_back(absl::StrCat(c.candidate_variant(), " ", VerdictName(c.verdict())));
    }
  }
  if (hits.empty()) return absl::OkStatus();
  return CheckFailedError(
      absl::StatusCode::kFailedPrecondition,
      absl::StrCat("--fail-on: job ", comparison.candidate_job_id(), " vs ",
                   comparison.baseline_job_id(), ": ", absl::StrJoin(hits, ", "),
                   comparison.family_size() > 1
                       ? absl::StrCat(" (", comparison.family_correction(), "-corrected over ",
                                      comparison.family_size(), " keys)")
                       : ""));
}

}  // namespace kbench::client
